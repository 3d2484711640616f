"""Tiny ONNX models for tests: one builder, used by the test files of every lab (this file holds no test).

:func:`make_model` turns nodes, typed inputs/outputs and initializers into a checked single-graph
``ModelProto`` at a given opset; :func:`ints` is a Constant node of int64 values; :func:`rnd` a
reproducible float32 array.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper


def make_model(nodes, inputs, outputs, inits=(), opset=17, value_info=(), check=True):
    """A checked single-graph model; inputs/outputs are (name, elem_type, shape) triples.

    ``inits`` maps names to arrays (initializers); ``value_info`` are ``ValueInfoProto`` s. Outputs given
    without a shape take the one shape inference finds (the checker needs it). ``check`` runs
    ``onnx.checker.check_model(full_check=True)``; ``ir_version`` is 8.
    """
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(*i) for i in inputs],
        [helper.make_tensor_value_info(*o) for o in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), k) for k, v in dict(inits).items()],
        value_info=list(value_info))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    # Main-graph outputs need a shape for the checker: take what shape inference finds.
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.output}
    for o in model.graph.output:
        if not o.type.tensor_type.HasField("shape") and inferred[o.name].type.tensor_type.HasField("shape"):
            o.CopyFrom(inferred[o.name])
    if check:
        onnx.checker.check_model(model, full_check=True)
    return model


def ints(name, values):
    """A Constant node producing int64 ``values``."""
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(values, np.int64)))


def rnd(*shape, seed=0):
    """A float32 standard-normal array of ``shape`` (the same for the same ``seed``)."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
