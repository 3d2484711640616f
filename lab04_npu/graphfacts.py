"""Static facts about a static-shape ONNX graph: unique node names, tensor shapes, FLOPs per node.

FLOPs (a multiply-add counts 2, the convention of d2l and MLPerf):

* ``MatMul``: ``2 * prod(output) * K`` (``K`` = last axis of the first input);
* ``Gemm``: ``2 * M * N * K`` (+ ``M * N`` with a bias);
* ``Conv``: ``2 * prod(output) * (C_in / group) * prod(kernel)``;
* data movement (:data:`DATA_MOVEMENT`: Reshape, Transpose, Gather, Concat, Slice, Cast, ...): 0;
* every other op: 1 per output element (elementwise ops, normalizations and Softmax are a few
  FLOPs per element; next to the matrix products they round to nothing here);
* a node whose shapes ONNX shape inference (with data propagation) cannot make static counts 0:
  on graphs that still carry their shape arithmetic the FLOP total is then a lower bound.
"""
from __future__ import annotations

import numpy as np
import onnx

from common.onnx_graph import static_shape
from common.onnx_skeleton import infer_shapes, skeleton  # qnn.fix_dims (Task 4.1) takes skeleton from here

DATA_MOVEMENT = frozenset({"Reshape", "Transpose", "Gather", "Concat", "Slice", "Cast", "Shape", "Unsqueeze",
                           "Squeeze", "Flatten", "Expand", "Identity", "Split", "Constant", "ConstantOfShape",
                           "Tile", "Pad", "GatherElements", "ScatterND", "Range"})


#: ORT contrib ops (domain com.microsoft) whose output has the shape and type of their first input
SHAPE_PRESERVING_CONTRIB = frozenset({"Gelu", "FastGelu", "QuickGelu", "BiasGelu"})


def name_nodes(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``model`` in which every main-graph node has a unique, non-empty name.

    Unnamed (or duplicate-named) nodes become ``<op_type>_<index>``: QNN's log names nodes, and an
    empty name cannot be mapped back onto the graph.
    """
    out = onnx.ModelProto()
    out.CopyFrom(model)
    seen: set[str] = set()
    for i, node in enumerate(out.graph.node):
        if not node.name or node.name in seen:
            node.name = f"{node.op_type}_{i}"
        seen.add(node.name)
    return out


def tensor_types(model: onnx.ModelProto) -> dict[str, tuple[tuple[int, ...] | None, int]]:
    """``{tensor name: (static shape or None, ONNX elem_type)}`` from shape inference, inputs,
    outputs and initializers. Large initializers are passed to shape inference as typed graph
    inputs (their values do not decide any shape, :mod:`common.onnx_skeleton`), so a 400 MB model is
    not serialized for it."""
    light = skeleton(model)
    for node in light.graph.node:  # contrib ops ONNX cannot infer; these keep their input's shape and type
        if node.domain == "com.microsoft" and node.op_type in SHAPE_PRESERVING_CONTRIB:
            node.op_type, node.domain = "Identity", ""
            del node.input[1:]
            del node.attribute[:]
    try:
        inferred = infer_shapes(light, data_prop=True)
    except Exception:  # contrib ops without inference functions: keep what the file states
        inferred = model
    out: dict[str, tuple[tuple[int, ...] | None, int]] = {}
    g = inferred.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        out[vi.name] = (static_shape(vi), vi.type.tensor_type.elem_type)
    for init in g.initializer:
        out[init.name] = (tuple(init.dims), init.data_type)
    return out


def _attr(node: onnx.NodeProto, name: str, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def node_flops(node: onnx.NodeProto, types: dict) -> int:
    """FLOPs of one node by the rules of the module doc (0 when a needed shape is unknown).

    Args:
        node: a main-graph node.
        types: :func:`tensor_types` of its model (``{name: (static shape or None, elem_type)}``).

    Returns:
        The count as an int (a multiply-add is 2 FLOPs); divide by seconds for FLOP/s.
    """
    def shape(i: int, outputs: bool = False):
        names = node.output if outputs else node.input
        return types.get(names[i], (None, 0))[0] if len(names) > i and names[i] else None

    out = shape(0, outputs=True)
    if out is None or node.op_type in DATA_MOVEMENT:
        return 0
    numel = int(np.prod(out, dtype=np.int64))
    a = shape(0)
    if node.op_type == "MatMul" and a:
        return 2 * numel * int(a[-1])
    if node.op_type == "Gemm" and a:
        k = int(a[0] if _attr(node, "transA", 0) else a[-1])
        return 2 * numel * k + (numel if len(node.input) > 2 and node.input[2] else 0)
    if node.op_type == "Conv":
        w = shape(1)
        if w:
            return 2 * numel * int(np.prod(w[1:], dtype=np.int64))
    return numel
