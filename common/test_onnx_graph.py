"""Tests of common.onnx_graph, the one def-use index: producers, consumers, readers and use counts,
outer-scope reads at depth 1, 2 and 3 (IR spec "Names Within a Graph": a nested subgraph may read
any value its enclosing graphs define), subgraph outputs naming outer values, graph outputs,
scoping (a body's own names are not outer reads), and the value-type helpers.

Graphs are hand-built with onnx.helper; every one that uses only node-input reads also passes
``onnx.checker`` (full check), so the expectations are about legal ONNX.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from common.onnx_graph import (GraphIndex, dim_labels, graph_defs, node_reads, outer_reads, static_shape, subgraph_defs,
                               subgraph_reads, subgraphs, tensor_nbytes, value_dims)
from common.testing import make_model, value_info

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def vi(name: str, elem=F, shape=(2,)):
    """:func:`common.testing.value_info`, by default a float32 vector of 2."""
    return value_info(name, elem, shape)


def checked(model: onnx.ModelProto) -> onnx.ModelProto:
    onnx.checker.check_model(model, full_check=True)
    return model


# ---- main-graph producers, consumers, readers, uses ----------------------------------------------------

def chain() -> onnx.ModelProto:
    """a = Relu(x); b = Mul(a, a); y = Add(b, x); Dropout's optional mask output omitted."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Mul", ["a", "a"], ["b"]),
             helper.make_node("Dropout", ["b"], ["d", ""]), helper.make_node("Add", ["d", "x"], ["y"])]
    return make_model(nodes, [vi("x")], [vi("y"), vi("a")], check=False)


def test_producers_and_consumers_by_position():
    g = checked(chain()).graph
    idx = GraphIndex(g)
    assert idx.graph is g and idx.nodes == list(g.node)
    assert idx.producer == {"a": 0, "b": 1, "d": 2, "y": 3}  # the omitted output "" is no value
    assert idx.consumers["a"] == [(1, 0), (1, 1)]  # Mul(a, a): both input slots
    assert idx.consumers["x"] == [(0, 0), (3, 1)]
    assert idx.readers["a"] == [1] and idx.readers["x"] == [0, 3]  # distinct node positions
    assert "" not in idx.consumers and "" not in idx.producer


def test_uses_count_input_slots_and_graph_outputs():
    idx = GraphIndex(chain().graph)
    assert idx.outputs == ["y", "a"]
    assert (idx.uses["a"], idx.uses["x"], idx.uses["y"], idx.uses["b"]) == (3, 2, 1, 1)  # a: 2 slots + output
    assert idx.uses["nothing"] == 0
    assert idx.defines("x") and idx.defines("d") and not idx.defines("nothing")
    assert not idx.outer and not idx.local_defs


def test_initializers_dense_and_sparse_are_definitions():
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(np.ones(1, np.float32), "sp"),
                                       numpy_helper.from_array(np.zeros(1, np.int64), "sp_i"), [2])
    g = make_model([helper.make_node("Add", ["w", "sp"], ["y"])], [], [vi("y")], {"w": np.ones(2, np.float32)},
                   check=False).graph
    g.sparse_initializer.append(sparse)
    idx = GraphIndex(g)
    assert idx.initializers == {"w", "sp"} and idx.defines("sp")
    assert graph_defs(g) == {"w", "sp", "y"}


# ---- outer-scope reads at any depth --------------------------------------------------------------------

def leaf(read: str) -> onnx.GraphProto:
    """Innermost body: ``leaf_out = Neg(read)``."""
    return helper.make_graph([helper.make_node("Neg", [read], ["leaf_out"])], "leaf", [], [vi("leaf_out")])


def if_node(then_g: onnx.GraphProto, out: str, cond: str = "c") -> onnx.NodeProto:
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["else_out"])], "else", [], [vi("else_out")])
    return helper.make_node("If", [cond], [out], then_branch=then_g, else_branch=else_g)


def loop_body(inner: onnx.NodeProto, inner_out: str) -> onnx.GraphProto:
    """Loop body (i, cond, v) -> (cond, v + inner_out): the carried ``v`` is the body's own name."""
    return helper.make_graph(
        [inner, helper.make_node("Add", ["v", inner_out], ["v2"]), helper.make_node("Identity", ["cond"], ["cond2"])],
        "body", [vi("i", I64, []), vi("cond", B, []), vi("v")], [vi("cond2", B, []), vi("v2")])


def nested(depth: int, read: str = "a") -> onnx.ModelProto:
    """``a = Relu(x)``; node 1 holds ``Neg(read)`` at ``depth``: 1 If, 2 Loop > If, 3 If > Loop > If."""
    holder = if_node(leaf(read), "h" if depth == 1 else "w")
    if depth >= 2:
        holder = helper.make_node("Loop", ["n", "", "x"], ["h" if depth == 2 else "loop_out"],
                                  body=loop_body(holder, "w"))
    if depth == 3:
        holder = if_node(helper.make_graph([holder], "then", [], [vi("loop_out")]), "h")
    return make_model([helper.make_node("Relu", ["x"], ["a"]), holder], [vi("x"), vi("c", B, []), vi("n", I64, [])],
                      [vi("h")], check=False)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_an_outer_read_is_found_at_its_depth(depth):
    model = checked(nested(depth))
    idx = GraphIndex(model.graph)
    [(holder, r)] = idx.outer["a"]
    assert (holder, r.kind, r.proto.op_type, r.index, r.depth) == (1, "input", "Neg", 0, depth)
    assert idx.uses["a"] == 1 and idx.readers["a"] == [1]  # the holder node reads it
    # the else branches read x; the inner If's cond c and (depth 3) the Loop's n are read from inside too
    expected = {1: {"a", "x"}, 2: {"a", "x", "c"}, 3: {"a", "x", "c", "n"}}[depth]
    assert subgraph_reads(model.graph.node[1]) == expected
    holder_node = model.graph.node[1]
    assert node_reads(holder_node) == [t for t in holder_node.input if t] + sorted(expected)


@pytest.mark.parametrize("depth", [2, 3])
def test_names_a_body_defines_are_not_outer_reads(depth):
    # the inner If reads the Loop body's carried v: local to the body, not a read of the main graph
    model = checked(nested(depth, read="v"))
    idx = GraphIndex(model.graph)
    assert "v" not in idx.outer and idx.uses["v"] == 0
    assert {"v", "v2", "i", "cond", "cond2", "leaf_out", "w"} <= idx.local_defs[1]
    assert idx.local_defs[1] == subgraph_defs(model.graph.node[1])


def test_every_read_of_a_value_counts_once_in_uses():
    # If(c) > then: Loop(n, "", x) > body: If(c) > then: Neg(a) | else: Identity(x); outer else: Identity(x)
    idx = GraphIndex(nested(3).graph)
    refs = sorted((r.proto.op_type, r.index, r.depth) for _, r in idx.outer["x"])
    assert refs == [("Identity", 0, 1), ("Identity", 0, 3), ("Loop", 2, 1)]
    assert [(r.proto.op_type, r.depth) for _, r in idx.outer["c"]] == [("If", 2)]
    assert (idx.uses["x"], idx.uses["c"], idx.uses["n"], idx.uses["a"]) == (4, 2, 1, 1)  # + Relu(x), If(c)
    assert idx.consumers["c"] == [(1, 0)]  # consumers: main-graph input slots only


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_subgraph_output_naming_an_outer_value_is_a_read(depth):
    # the innermost then-branch returns a itself (no node); onnx.checker and ORT refuse that form,
    # but the IR spec counts a graph output as a use, so the index does too
    model = nested(depth)
    inner = model.graph.node[1]
    for _ in range(depth - 1):
        inner = next(n for g in subgraphs(inner) for n in g.node if n.op_type in ("If", "Loop"))
    then_g = next(a.g for a in inner.attribute if a.name == "then_branch")
    then_g.CopyFrom(helper.make_graph([], "returns_a", [], [vi("a")]))
    idx = GraphIndex(model.graph)
    [(holder, r)] = idx.outer["a"]
    assert (holder, r.kind, r.index, r.depth) == (1, "output", 0, depth)
    assert r.proto.name == "returns_a" and r.proto.output[r.index].name == "a"
    assert idx.uses["a"] == 1 and idx.readers["a"] == [1]


def test_a_subgraph_output_it_computes_itself_is_not_a_read():
    idx = GraphIndex(nested(1).graph)
    assert "leaf_out" not in idx.outer and "else_out" not in idx.outer


def test_a_body_input_shadows_an_outer_name():
    # the Loop body's carried input is named a, like the main graph's a: reads of it are the body's own
    body = helper.make_graph([helper.make_node("Neg", ["a"], ["a2"]), helper.make_node("Identity", ["cond"], ["cond2"])],
                             "body", [vi("i", I64, []), vi("cond", B, []), vi("a")], [vi("cond2", B, []), vi("a2")])
    model = make_model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Loop", ["n", "", "a"], ["h"], body=body)],
                       [vi("x"), vi("n", I64, [])], [vi("h")], check=False)
    idx = GraphIndex(checked(model).graph)
    assert "a" not in idx.outer and idx.uses["a"] == 1  # the Loop's own input slot only


def test_graphs_attributes_are_scanned_each():
    bodies = [helper.make_graph([helper.make_node("Neg", ["a"], [f"n{k}"])], f"b{k}", [], [vi(f"n{k}")]) for k in (0, 1)]
    node = helper.make_node("Multi", ["x"], ["o"], domain="custom.test")
    node.attribute.append(helper.make_attribute("bodies", bodies))
    assert node.attribute[0].type == onnx.AttributeProto.GRAPHS
    assert [g.name for g in subgraphs(node)] == ["b0", "b1"]
    assert [(r.name, r.proto.output[0], r.depth) for r in outer_reads(node)] == [("a", "n0", 1), ("a", "n1", 1)]
    idx = GraphIndex(make_model([helper.make_node("Relu", ["x"], ["a"]), node], [vi("x")], [vi("o")], check=False).graph)
    assert idx.uses["a"] == 2 and idx.local_defs == {1: {"n0", "n1"}}


def test_a_node_without_subgraphs_has_no_outer_reads():
    node = helper.make_node("Add", ["x", ""], ["y"])
    assert list(outer_reads(node)) == [] and subgraph_reads(node) == set() and subgraph_defs(node) == set()
    assert node_reads(node) == ["x"]


# ---- value types: dims, static shapes, bytes ----------------------------------------------------------

def test_value_dims_dim_labels_and_static_shape():
    sym = helper.make_tensor_value_info("s", F, ["batch", 3])
    unset = helper.make_tensor_value_info("u", F, [None, 3])
    seq = helper.make_tensor_sequence_value_info("q", F, [2])
    neg = vi("n", F, (2, 3))
    neg.type.tensor_type.shape.dim[0].dim_value = -1
    cases = [(vi("t", F, (2, 3)), [2, 3], [2, 3], (2, 3)), (vi("scalar", F, ()), [], [], ()),
             (sym, [None, 3], ["batch", 3], None), (unset, [None, 3], ["?", 3], None), (vi("r", F, None), None, [], None),
             (seq, None, [], None), (neg, [-1, 3], [-1, 3], None),
             (vi("z", F, (0, 3)), [0, 3], [0, 3], (0, 3))]  # a zero-size dim is static (an empty tensor)
    for v, dims, labels, shape in cases:
        assert (value_dims(v), dim_labels(v), static_shape(v)) == (dims, labels, shape), v.name


@pytest.mark.parametrize("elem,shape,nbytes", [(TensorProto.FLOAT, (2, 3), 24), (TensorProto.FLOAT16, (4,), 8),
                                               (TensorProto.INT64, (), 8), (TensorProto.BOOL, (0, 5), 0),
                                               (TensorProto.UINT8, [7], 7)])
def test_tensor_nbytes(elem, shape, nbytes):
    assert tensor_nbytes(elem, shape) == nbytes


def test_tensor_nbytes_of_an_undefined_type_raises():
    with pytest.raises(KeyError):
        tensor_nbytes(TensorProto.UNDEFINED, (2,))
