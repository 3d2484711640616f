"""Helpers of the Lab 01 pass tests (``test_lab.py``, ``test_pass_mutants.py``); this file holds no test.

:func:`apply` runs a pass under the one pass contract; :func:`gather_model` is the constant Gather the
fold tests feed it; the other tiny models come from :mod:`common.testing`.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from common.testing import make_model
from lab01_onnx.passes import PassResult
from lab01_onnx.proof import contract
from lab01_onnx.proof.counterexample import violation


def apply(pass_fn, model, feeds, expect_rewrites, check=True):
    """Run ``pass_fn`` under the one pass contract (:func:`lab01_onnx.proof.contract.check_variant`:
    input untouched, deterministic, checker (full check unless ``check=False``), interface kept,
    outputs bitwise equal to the unoptimized model's under ``onnx.reference``, idempotent) and
    check the rewrite count. Returns the rewritten model.

    Raises :class:`~lab01_onnx.proof.counterexample.ContractViolation` (an AssertionError whose text shows
    the graph, expected and actual outputs and the first diverging node) when a clause or the count fails."""
    ref = [contract.RUNTIMES["onnx.reference"](model, feeds)]
    outcome = contract.check_variant(pass_fn, model, [feeds], "onnx.reference", ref, full_check=check)
    if outcome.failed or outcome.rewrites != expect_rewrites:
        raise violation(pass_fn, model, feeds, outcome, expect_rewrites, "onnx.reference")
    result = pass_fn(model)
    assert isinstance(result, PassResult)
    return result.model


def gather_model(data, indices, axis=0, data_as="init", opset=17):
    """``y = Neg(Gather(data, idx, axis))`` with ``idx`` an int64 initializer and ``data`` an initializer
    (``data_as="init"``) or a Constant node (any other value), at default-domain ``opset``."""
    nodes, inits = [], {"idx": np.asarray(indices, np.int64)}
    if data_as == "init":
        inits["data"] = data
    else:
        nodes.append(helper.make_node("Constant", [], ["data"], value=numpy_helper.from_array(data)))
    nodes += [helper.make_node("Gather", ["data", "idx"], ["g"], axis=axis), helper.make_node("Neg", ["g"], ["y"])]
    return make_model(nodes, [], [("y", TensorProto.FLOAT, None)], inits=inits, opset=opset)
