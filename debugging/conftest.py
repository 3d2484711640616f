"""Debugging test setup: the small models the debugging tests share, and Lab 01's wrong rewrite on them.

Both the viewer (``test_viewer.py``) and the reducer (``test_reduce.py``) are tested on a model and
the same model broken by Lab 01's deliberately wrong rewrite
(:func:`lab01_onnx.divergence.wrong_rewrite_neg_as_identity`: a ``Neg`` dropped as if it were an
``Identity``), so every fixture here is such a pair:

* ``make_chain`` (session): the builder of the viewer's 5-node chain, ``x[2, 3]``: ``Abs(x) -> a``;
  ``Neg(x) -> Relu -> r``; an unnamed ``Add(r, a)`` (the adapter's own naming); ``Mul(2) -> y``;
  ``prefix`` renames every value but ``x`` and ``y`` and every node.
* ``chain_stages`` (per test): that chain and its broken copy saved as ``before.onnx`` /
  ``after.onnx`` in the test's ``tmp_path`` (a dict: ``a``, ``b``, ``a_path``, ``b_path``,
  ``removed``, ``dir``).
* ``deep_chain`` (session): ``(reference, broken, feeds)``: :func:`debugging.reduce_demos.chain_with_neg`
  (41 nodes: 20 ``Add/Tanh`` nodes, the ``Neg``, 20 more) and its broken copy, with one seeded
  ``x[2, 8]``. Read-only.

Models are built with :mod:`common.testing`.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from common.testing import AS_DECLARED, make_model


def _chain(prefix: str = "") -> onnx.ModelProto:
    n = [helper.make_node("Abs", ["x"], [f"{prefix}a"], name=f"{prefix}abs0"),
         helper.make_node("Neg", ["x"], [f"{prefix}neg"], name=f"{prefix}neg0"),
         helper.make_node("Relu", [f"{prefix}neg"], [f"{prefix}r"], name=f"{prefix}relu0"),
         helper.make_node("Add", [f"{prefix}r", f"{prefix}a"], [f"{prefix}s"]),
         helper.make_node("Mul", [f"{prefix}s", "two"], ["y"], name=f"{prefix}mul0")]
    return make_model(n, [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])],
                      {"two": np.array(2.0, np.float32)}, ir_version=onnx.IR_VERSION, **AS_DECLARED)


@pytest.fixture(scope="session")
def make_chain():
    return _chain


@pytest.fixture
def chain_stages(tmp_path):
    from lab01_onnx.divergence import wrong_rewrite_neg_as_identity

    a = _chain()
    b, removed = wrong_rewrite_neg_as_identity(a)
    onnx.save(a, str(tmp_path / "before.onnx"))
    onnx.save(b, str(tmp_path / "after.onnx"))
    return {"a": a, "b": b, "a_path": tmp_path / "before.onnx", "b_path": tmp_path / "after.onnx",
            "removed": removed, "dir": tmp_path}


@pytest.fixture(scope="session")
def deep_chain():
    from debugging import reduce_demos
    from lab01_onnx.divergence import wrong_rewrite_neg_as_identity

    ref = reduce_demos.chain_with_neg(20, 20)
    cand, _ = wrong_rewrite_neg_as_identity(ref)
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    return ref, cand, {"x": x}
