"""Helpers of the Lab 04 tests (``test_lab.py``, ``test_gelu_rule.py``, ``test_task_coverage.py``,
``test_task_static.py``); this file holds no test. The models are built with :mod:`common.testing`.

:func:`const` is a float32 initializer; :func:`xy_model` the one-input, one-output float32 graph
the coverage tests use (``x -> nodes -> y``); :func:`gelu_constants` and :func:`gelu_chain` the exact
Erf GELU in primitive ops, in the spellings exporters write (what :mod:`lab04_npu.gelu_pass` fuses).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper

from common.testing import AS_DECLARED, make_model, tensor


def const(name: str, value) -> onnx.TensorProto:
    """A float32 initializer ``name`` holding ``value`` (any array-like; cast to float32)."""
    return tensor(name, value, np.float32)


def xy_model(nodes: Iterable[onnx.NodeProto], inits: Iterable[onnx.TensorProto] = (),
             in_shape: Sequence[int | str] = (4, 8), out_shape: Sequence[int | str] | None = None) -> onnx.ModelProto:
    """``x`` float32 ``in_shape`` -> ``nodes`` -> ``y`` float32 ``out_shape`` (default ``in_shape``), opset 17,
    as declared (:data:`common.testing.AS_DECLARED`)."""
    return make_model(nodes, [("x", TensorProto.FLOAT, in_shape)],
                      [("y", TensorProto.FLOAT, in_shape if out_shape is None else out_shape)], inits, **AS_DECLARED)


def gelu_constants() -> list[onnx.TensorProto]:
    """The float32 scalars the GELU spellings read: ``sqrt2``, ``inv_sqrt2``, ``one``, ``half``, ``two``."""
    return [const("sqrt2", np.sqrt(2)), const("inv_sqrt2", 1 / np.sqrt(2)), const("one", 1.0), const("half", 0.5),
            const("two", 2.0)]


def gelu_chain(x: str, tag: str, spelling: str = "jax") -> tuple[list[onnx.NodeProto], str]:
    """Nodes of one exact Erf-GELU of ``x`` (reading :func:`gelu_constants`) and its output name;
    intermediates are ``s<tag>``, ``e<tag>``, ``a<tag>``, ``p<tag>`` (the inner product) and the result
    ``g<tag>``; in the ``jax`` spelling the Erf node is named ``erf<tag>`` (the others are unnamed).

    ``jax``: ``(x * (erf(x / sqrt2) + 1)) / 2`` (pattern B); ``A``: ``(x * 0.5) * (1 + erf(x *
    1/sqrt2))``; ``C``: ``x * ((erf(x / sqrt2) + 1) * 0.5)``.
    """
    s, e, a, p, g = (f"{v}{tag}" for v in "seapg")
    if spelling == "jax":
        return [helper.make_node("Div", [x, "sqrt2"], [s]), helper.make_node("Erf", [s], [e], name=f"erf{tag}"),
                helper.make_node("Add", [e, "one"], [a]), helper.make_node("Mul", [x, a], [p]),
                helper.make_node("Div", [p, "two"], [g])], g
    if spelling == "A":
        return [helper.make_node("Mul", [x, "half"], [p]), helper.make_node("Mul", ["inv_sqrt2", x], [s]),
                helper.make_node("Erf", [s], [e]), helper.make_node("Add", ["one", e], [a]),
                helper.make_node("Mul", [p, a], [g])], g
    assert spelling == "C"
    return [helper.make_node("Div", [x, "sqrt2"], [s]), helper.make_node("Erf", [s], [e]),
            helper.make_node("Add", [e, "one"], [a]), helper.make_node("Mul", [a, "half"], [p]),
            helper.make_node("Mul", [x, p], [g])], g
