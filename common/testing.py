"""Tiny ONNX models for tests: one builder, used by the test files of every lab (this file holds no test).

:func:`make_model` turns nodes, typed inputs/outputs and initializers into a single-graph
``ModelProto`` at a given opset, checked by ``onnx.checker`` unless told otherwise;
:func:`value_info` and :func:`tensor` are its typed values and initializers; :func:`ints` is a
Constant node of int64 values; :func:`rnd` a reproducible float32 array; :func:`dangling_model` the
smallest model ``onnx.checker`` rejects. Per-lab shared models are fixtures of the labs'
``conftest.py`` files.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: a graph input/output: a ``ValueInfoProto``, or ``(name, elem_type, shape)`` for :func:`value_info`
Value = onnx.ValueInfoProto | tuple
#: initializers: ``{name: array}``, or an iterable of ``TensorProto`` s and ``(name, array)`` pairs
Inits = Mapping[str, object] | Iterable[onnx.TensorProto | tuple]


#: keywords of :func:`make_model` for a graph taken as declared: not checked, outputs not completed
#: (what a pass or a tool must accept as it is given)
AS_DECLARED = {"check": False, "infer_outputs": False}


def value_info(name: str, elem_type: int = TensorProto.FLOAT, shape: Sequence[int | str | None] | None = None
               ) -> onnx.ValueInfoProto:
    """A dense tensor value: ``elem_type`` a ``TensorProto.DataType``; ``shape`` ints (static dims),
    ``str`` (``dim_param``), ``None`` entries (unset dims), or ``None`` (no shape: rank unknown)."""
    return helper.make_tensor_value_info(name, elem_type, None if shape is None else list(shape))


def tensor(name: str, value, dtype=None) -> onnx.TensorProto:
    """An initializer named ``name`` holding ``np.asarray(value, dtype)`` (its dtype decides the ONNX type)."""
    return numpy_helper.from_array(np.asarray(value, dtype), name)


def _values(items: Iterable[Value]) -> list[onnx.ValueInfoProto]:
    return [v if isinstance(v, onnx.ValueInfoProto) else value_info(*v) for v in items]


def _inits(inits: Inits) -> list[onnx.TensorProto]:
    items = inits.items() if isinstance(inits, Mapping) else inits
    return [t if isinstance(t, onnx.TensorProto) else tensor(*t) for t in items]


def make_model(nodes: Iterable[onnx.NodeProto], inputs: Iterable[Value] = (), outputs: Iterable[Value] = (),
               inits: Inits = (), opset: int = 17, value_info: Iterable[onnx.ValueInfoProto] = (), *,
               check: bool = True, infer_outputs: bool = True, domains: Mapping[str, int] | None = None,
               name: str = "g", ir_version: int = 8) -> onnx.ModelProto:
    """A single-graph model named ``name``: default-domain opset ``opset`` plus ``domains``
    (``{domain: version}``), IR version ``ir_version``.

    Args:
        inputs, outputs: ``ValueInfoProto`` s or ``(name, elem_type, shape)`` triples (:func:`value_info`).
        inits: the initializers (``{name: array}``, ``TensorProto`` s or ``(name, array)`` pairs).
        value_info: ``ValueInfoProto`` s of intermediate values.
        infer_outputs: an output declared without a shape takes the one ``onnx.shape_inference``
            finds (the checker wants main-graph outputs shaped); off: outputs stay as declared.
        check: run ``onnx.checker.check_model(full_check=True)``.

    Raises:
        onnx.checker.ValidationError, onnx.shape_inference.InferenceError: ``check`` and the model
            is invalid.
    """
    graph = helper.make_graph(list(nodes), name, _values(inputs), _values(outputs), initializer=_inits(inits),
                              value_info=list(value_info))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in (domains or {}).items()]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = ir_version
    if infer_outputs and any(not o.type.tensor_type.HasField("shape") for o in model.graph.output):
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.output}
        for o in model.graph.output:
            if not o.type.tensor_type.HasField("shape") and inferred[o.name].type.tensor_type.HasField("shape"):
                o.CopyFrom(inferred[o.name])
    if check:
        onnx.checker.check_model(model, full_check=True)
    return model


def dangling_model() -> onnx.ModelProto:
    """``Relu(missing) -> y``: a node reads a value nothing defines, which ``onnx.checker`` rejects
    (IR spec "Graphs": every node input is a graph input, an initializer or an earlier node's output)."""
    return make_model([helper.make_node("Relu", ["missing"], ["y"])], [], [("y", TensorProto.FLOAT, [1])],
                      check=False, infer_outputs=False)


def ints(name, values):
    """A Constant node producing int64 ``values``."""
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(values, np.int64)))


def rnd(*shape, seed=0):
    """A float32 standard-normal array of ``shape`` (the same for the same ``seed``)."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
