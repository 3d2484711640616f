"""Tests of common.onnx_skeleton: the weight-less skeleton and shape inference on it.

Reference: ``onnx.shape_inference.infer_shapes`` and ``onnx.checker`` on the whole model (weights
included) must find the same types as on the skeleton.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from common.onnx_skeleton import SMALL_ELEMENTS, infer_shapes, skeleton
from common.testing import make_model, rnd

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def mlp() -> onnx.ModelProto:
    """x [N, 64] -> MatMul(W [64, 32]) -> Reshape(shape [-1, 4, 8]) -> y: a large weight, a small shape
    vector whose *value* decides the Reshape's output shape (data propagation), a local function."""
    nodes = [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Reshape", ["h", "shape"], ["r"]),
             helper.make_node("Relu", ["r"], ["y"])]
    return make_model(nodes, [("x", F, ["N", 64])], [("y", F, None)],
                      inits={"W": rnd(64, 32), "shape": np.array([-1, 4, 8], np.int64)})


def test_the_skeleton_declares_large_initializers_as_typed_inputs_and_keeps_small_ones():
    model = mlp()
    before = model.SerializeToString()
    sk = skeleton(model)
    assert model.SerializeToString() == before
    assert [t.name for t in sk.graph.initializer] == ["shape"]
    w = next(i for i in sk.graph.input if i.name == "W")
    assert w.type.tensor_type.elem_type == F and [d.dim_value for d in w.type.tensor_type.shape.dim] == [64, 32]
    assert list(sk.graph.node) == list(model.graph.node) and sk.opset_import == model.opset_import
    assert sk.ByteSize() < model.ByteSize() / 10
    onnx.checker.check_model(sk, full_check=True)
    assert len(skeleton(model, max_elements=64 * 32).graph.initializer) == 2 and SMALL_ELEMENTS < 64 * 32


def test_an_overridable_initializer_keeps_its_input_declaration():
    model = mlp()
    model.graph.input.append(helper.make_tensor_value_info("W", F, [64, 32]))
    sk = skeleton(model)
    assert [i.name for i in sk.graph.input] == ["x", "W"] and not any(t.name == "W" for t in sk.graph.initializer)


def test_inference_on_the_skeleton_equals_inference_on_the_whole_model():
    model = mlp()
    full = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    light = infer_shapes(model, data_prop=True)
    by_name = {v.name: v.type for v in light.graph.value_info}
    assert by_name == {v.name: v.type for v in full.graph.value_info}
    assert [o.type for o in light.graph.output] == [o.type for o in full.graph.output]
    assert [d.dim_value for d in by_name["r"].tensor_type.shape.dim][1:] == [4, 8]


def test_local_functions_travel_with_the_skeleton():
    fn = helper.make_function("my.fn", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 17)])
    model = make_model([helper.make_node("Twice", ["x"], ["y"], domain="my.fn")], [("x", F, [2, 3])],
                       [("y", F, None)], domains={"my.fn": 1}, check=False, infer_outputs=False)
    model.functions.append(fn)
    out = infer_shapes(model).graph.output[0]
    assert [d.dim_value for d in out.type.tensor_type.shape.dim] == [2, 3]
