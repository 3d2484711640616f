"""Tests that kill the mutants of ``lab01_onnx/passes/`` the older tests let survive (``python -m common.mutation``).

Each test pins one documented behaviour: the Reshape spec arithmetic of :func:`reshape_dims`
(checked against ``onnx.reference`` running the Reshape), the derivation of dims through a chain
of constant-shape Reshapes, the def-use index's accounting of subgraph (outer-scope) reads per the
ONNX IR spec, and the preconditions of the three rules. Rewritten models go through the one pass
contract (``lab01_onnx.proof.contract``: outputs bitwise equal to the original's under
``onnx.reference``, atol = rtol = 0). The tests that run a student's rule (Tasks 1.1-1.3) are graded, one point
each: a review's plausible wrong rules (negative indices folded before opset 11, no fold size limit, a rename
into a shadowing subgraph) passed every other graded test.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import OpRun

from common.errors import UserError
from lab01_onnx.passes import DefUseIndex, eliminate_identity, fold_constant_gather, fuse_consecutive_reshapes
from lab01_onnx.passes.shapes import Shapes, exact_initializer_outputs, reshape_dims, static_shapes
from common.testing import AS_DECLARED, ints, make_model, rnd
from lab01_onnx.testing import apply, gather_model

pytestmark = pytest.mark.lab01
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


# ---- reshape_dims: the Reshape spec on dims -----------------------------------------------------------

def reference_reshape_dims(xd, s, allowzero=0):
    """Output dims of ``Reshape(x, s)`` as onnx.reference computes them on a real tensor of dims ``xd``."""
    node = helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=allowzero)
    model = make_model([node], [("x", F, None), ("s", I64, None)], [("y", F, None)], **AS_DECLARED)
    y = ReferenceEvaluator(model).run(None, {"x": np.zeros(xd, np.float32), "s": np.asarray(s, np.int64)})[0]
    return list(y.shape)


@pytest.mark.parametrize("xd,s", [([2, 3, 4], [0, -1]), ([2, 3, 4], [4, 0, -1]), ([2, 3, 4], [1, -1, 2]),
                                  ([2, 3, 4], [-1]), ([6, 4], [0, 2, 2]), ([5], [1, 5])])
def test_reshape_dims_equal_the_reference_evaluator(xd, s):
    got = reshape_dims(xd, np.asarray(s, np.int64), 0)
    assert got == reference_reshape_dims(xd, s) and all(type(v) is int for v in got)


def test_reshape_dims_allowzero_keeps_a_literal_zero():
    assert reshape_dims([0, 3], np.array([0, 3], np.int64), 1) == reference_reshape_dims([0, 3], [0, 3], 1) == [0, 3]
    assert reshape_dims([5, 3], np.array([0, -1], np.int64), 1) == [0, None]  # -1 next to a literal 0: unknown


@pytest.mark.parametrize("xd,s,expected", [
    (None, [0, 4], [None, 4]),           # unknown input: a copied dim is unknown
    ([5], [1, 0], [1, None]),            # a 0 beyond the input's rank copies nothing known
    ([None, 3], [0, -1], [None, None]),  # a symbolic dim: -1 cannot be inferred
    ([None, 3], [2, 0], [2, 3]),
])
def test_reshape_dims_with_unknown_dims(xd, s, expected):
    assert reshape_dims(xd, np.asarray(s, np.int64), 0) == expected


@pytest.mark.parametrize("s", [[-2, 3], [-1, -1]])
def test_reshape_dims_invalid_shape_is_none(s):
    assert reshape_dims([2, 3], np.asarray(s, np.int64), 0) is None


# ---- Shapes.through_reshapes: dims derived through the current chain ----------------------------------

class KnownShapes(Shapes):
    """Shape inference replaced by a fixed table (the other values are unknown)."""

    def __init__(self, known):
        super().__init__(onnx.ModelProto())
        self.known = known

    def dims(self, name):
        return self.known.get(name)


def chain_model(shapes, allowzero=0):
    """x -> Reshape(s_1) -> r1 -> Reshape(s_2) -> r2 ..., every r_i a graph output; x is float[2, 3, 4].

    ``allowzero=None`` leaves the attribute out (its default, 0, applies)."""
    nodes, prev = [], "x"
    attrs = {} if allowzero is None else {"allowzero": allowzero}
    for i, s in enumerate(shapes, 1):
        nodes += [ints(f"s{i}", s), helper.make_node("Reshape", [prev, f"s{i}"], [f"r{i}"], **attrs)]
        prev = f"r{i}"
    return make_model(nodes, [("x", F, [2, 3, 4])], [(f"r{i}", F, None) for i in range(1, len(shapes) + 1)],
                      **AS_DECLARED)


def actual_dims(model):
    outs = ReferenceEvaluator(model).run(None, {"x": np.zeros((2, 3, 4), np.float32)})
    return [list(o.shape) for o in outs]


@pytest.mark.parametrize("allowzero", [0, None])
def test_through_reshapes_derives_every_link_of_the_chain(allowzero):
    model = chain_model([[6, 4], [0, 2, -1], [3, 0, 0, -1]], allowzero)
    idx = DefUseIndex(model)
    expect = actual_dims(model)  # [[6, 4], [6, 2, 2], [3, 2, 2, 2]]
    for name, dims in zip(("r3", "r2", "r1"), reversed(expect)):
        got = KnownShapes({"x": [2, 3, 4]}).through_reshapes(name, idx)
        assert got == dims, name


def test_through_reshapes_answers_again_from_its_memo():
    model = chain_model([[6, 4], [0, 2, -1]])
    idx, shapes = DefUseIndex(model), KnownShapes({"x": [2, 3, 4]})
    assert shapes.through_reshapes("r2", idx) == shapes.through_reshapes("r2", idx) == [6, 2, 2]
    assert shapes.through_reshapes("r1", idx) == [6, 4]


def test_through_reshapes_keeps_known_dims_over_derived_ones():
    # inference knows r1 partly: its known dim is kept, its unknown one derived
    model = chain_model([[6, 4], [0, 2, -1]])
    got = KnownShapes({"x": [2, 3, 4], "r1": [None, 4]}).through_reshapes("r2", DefUseIndex(model))
    assert got == [6, 2, 2]


def test_through_reshapes_honours_allowzero():
    model = chain_model([[6, 4], [0, 24]], allowzero=1)  # r2 = Reshape(r1, [0, 24], allowzero=1): invalid
    assert KnownShapes({"x": [2, 3, 4]}).through_reshapes("r2", DefUseIndex(model)) == [0, 24]


def test_through_reshapes_stops_at_a_runtime_shape():
    nodes = [helper.make_node("Reshape", ["x", "t"], ["r1"]), ints("s2", [0, 2, -1]),
             helper.make_node("Reshape", ["r1", "s2"], ["r2"])]
    idx = DefUseIndex(make_model(nodes, [("x", F, [2, 3, 4]), ("t", I64, [2])], [("r2", F, None)], **AS_DECLARED))
    assert KnownShapes({"x": [2, 3, 4], "r1": [6, None]}).through_reshapes("r2", idx) == [6, 2, None]
    assert KnownShapes({"x": [2, 3, 4]}).through_reshapes("r2", idx) == [None, 2, None]


def test_through_reshapes_of_a_rank_mismatch_keeps_the_inferred_dims():
    model = chain_model([[6, 4], [0, 2, -1]])
    got = KnownShapes({"x": [2, 3, 4], "r2": [None, None]}).through_reshapes("r2", DefUseIndex(model))
    assert got == [None, None]  # derived [6, 2, 2] has another rank: inference's answer stands


# ---- DefUseIndex: outer-scope reads of subgraphs (IR spec, "Names Within a Graph") -------------------

def nested_model():
    """Main graph: a = Identity(x); If(c) reading a in both branches (one nested If); Loop reading a."""
    then_g = helper.make_graph([], "then", [], [helper.make_tensor_value_info("a", F, [2])])  # outer a as output
    inner_then = helper.make_graph([helper.make_node("Mul", ["e1", "a"], ["t2"])], "t2", [],
                                   [helper.make_tensor_value_info("t2", F, [2])])
    inner_else = helper.make_graph([], "e2", [], [helper.make_tensor_value_info("e1", F, [2])])
    else_g = helper.make_graph(
        [helper.make_node("Add", ["a", "w"], ["e1"]),
         helper.make_node("If", ["c"], ["e2"], then_branch=inner_then, else_branch=inner_else)],
        "else", [], [helper.make_tensor_value_info("e2", F, [2])],
        initializer=[numpy_helper.from_array(np.ones(2, np.float32), "w")])
    body = helper.make_graph(
        [helper.make_node("Add", ["v", "a"], ["v2"]), helper.make_node("Identity", ["cond"], ["cond_out"])],
        "body", [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond", B, []),
                 helper.make_tensor_value_info("v", F, [2])],
        [helper.make_tensor_value_info("cond_out", B, []), helper.make_tensor_value_info("v2", F, [2])])
    nodes = [helper.make_node("Identity", ["x"], ["a"]),
             helper.make_node("If", ["c"], ["o1"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Loop", ["n", "", "x"], ["o2"], body=body)]
    return make_model(nodes, [("x", F, [2]), ("c", B, []), ("n", I64, [])], [("o1", F, [2]), ("o2", F, [2])],
                      **AS_DECLARED)


def test_index_counts_every_outer_scope_read_once():
    idx = DefUseIndex(nested_model())
    # a: then-branch output, Add in else, Mul in the nested If, Add in the Loop body; c: If input + nested If
    assert (idx.uses["a"], idx.uses["c"], idx.uses["x"], idx.uses["n"]) == (4, 2, 2, 1)
    assert set(idx.sub_refs) == {"a", "c"}
    for local in ("e1", "e2", "t2", "w", "i", "cond", "v", "v2", "cond_out"):
        assert idx.uses[local] == 0, local


def test_index_records_each_outer_reference_with_its_holder_and_kind():
    idx = DefUseIndex(nested_model())
    refs = sorted((holder, kind, proto.name if kind == "output" else proto.op_type, i)
                  for holder, kind, proto, i in idx.sub_refs["a"])
    assert refs == [(1, "input", "Add", 0), (1, "input", "Mul", 1), (1, "output", "then", 0), (2, "input", "Add", 1)]
    assert [(h, k, i) for h, k, _, i in idx.sub_refs["c"]] == [(1, "input", 0)]


def test_index_collects_every_name_a_subgraph_defines():
    idx = DefUseIndex(nested_model())
    assert idx.local_defs == {1: {"w", "e1", "e2", "t2"}, 2: {"i", "cond", "v", "v2", "cond_out"}}


@pytest.mark.parametrize("returned", [None, -1, "1"])
def test_a_rule_that_returns_no_count_is_named_in_one_line(returned):
    # a rule whose last path forgets its ``return`` gives None: the driver names the rule, the node and the
    # contract, instead of a TypeError from inside ``sum`` in apply_rule
    from lab01_onnx.passes.core import apply_rule

    def forgetful_rule(idx, pos, shapes):
        return returned

    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2])], [("y", F, [2])])
    with pytest.raises(TypeError, match=r"forgetful_rule returned .* at node 0 \(Relu\): a rule returns how many "
                                        r"rewrites it made there, an int >= 0") as err:
        apply_rule(model, forgetful_rule)
    assert len(str(err.value).splitlines()) == 1
    assert apply_rule(model, lambda idx, pos, shapes: np.int64(0)).rewrites == 0  # a NumPy integer is a count


# ---- fold_constant_gather: Gather(Shape(x)) preconditions ---------------------------------------------

def shape_gather(axis):
    nodes = [helper.make_node("Shape", ["x"], ["s"]), ints("i", [1]),
             helper.make_node("Gather", ["s", "i"], ["g"], axis=axis), helper.make_node("Neg", ["g"], ["y"])]
    return nodes


@pytest.mark.task("lab01.gather", points=1)
def test_gather_of_shape_on_axis_minus_one_folds():
    model = make_model(shape_gather(-1), [("x", F, ["N", 3])], [("y", I64, None)])
    apply(fold_constant_gather, model, {"x": rnd(2, 3)}, 1)


@pytest.mark.task("lab01.gather", points=1)
def test_gather_of_shape_on_axis_one_is_not_folded():
    # axis 1 of a 1-D shape vector is out of range: the model is invalid, its error must stay
    model = make_model(shape_gather(1), [("x", F, ["N", 3])], [("y", I64, None)], check=False)
    assert fold_constant_gather(model).rewrites == 0


@pytest.mark.task("lab01.gather", points=1)
def test_gather_of_the_shape_of_a_value_folded_in_the_same_call():
    # g1 = Gather(data, [0]) folds first; Shape(g1) is then read from the folded value itself, not from
    # shape inference of the input model (here misled by a wrong value_info for g1: [7, 7, 7])
    data = rnd(3, 4)
    nodes = [helper.make_node("Gather", ["data", "i0"], ["g1"]), helper.make_node("Shape", ["g1"], ["s"]),
             ints("k", [1]), helper.make_node("Gather", ["s", "k"], ["g2"]), helper.make_node("Neg", ["g2"], ["y"])]
    model = make_model(nodes, [], [("y", I64, None)], inits={"data": data, "i0": np.array([0], np.int64)})
    model.graph.value_info.append(helper.make_tensor_value_info("g1", F, [7, 7, 7]))  # inference now raises
    result = fold_constant_gather(model)
    assert result.rewrites == 2
    np.testing.assert_array_equal(ReferenceEvaluator(result.model).run(None, {})[0], [-4])
    # the Shape's start/end slice a constant's dims as they slice inferred ones: Shape(g1, start=1) is [4] (g1 is
    # [1, 4]), so index 0 is 4, not g1's first dim 1; the same for an initializer read directly
    for source, start, want in (("g1", 1, -4), ("data", -1, -4), ("data", 0, -3)):
        nodes = [helper.make_node("Gather", ["data", "i0"], ["g1"]), helper.make_node("Shape", [source], ["s"], start=start),
                 ints("k", [0]), helper.make_node("Gather", ["s", "k"], ["g2"]), helper.make_node("Neg", ["g2"], ["y"]),
                 helper.make_node("ReduceSum", ["g1"], ["total"], keepdims=0)]
        model = make_model(nodes, [], [("y", I64, None), ("total", F, None)],
                           inits={"data": data, "i0": np.array([0], np.int64)})
        assert ReferenceEvaluator(model).run(None, {})[0].tolist() == [want]  # the oracle, on the unfolded model
        out = apply(fold_constant_gather, model, {}, 2)
        assert ReferenceEvaluator(out).run(None, {})[0].tolist() == [want], (source, start)


# ---- fuse_consecutive_reshapes: zeros resolved from dims, twice in one shape ---------------------------

@pytest.mark.task("lab01.reshape", points=1)
def test_two_zeros_resolved_from_inferred_dims_fuse():
    # s1 is computed (Shape -> Concat), so s2's zeros are resolved from m's inferred dims, one per zero
    nodes = [helper.make_node("Shape", ["x"], ["sx"]), ints("minus1", [-1]),
             helper.make_node("Concat", ["sx", "minus1"], ["s1"], axis=0),
             helper.make_node("Reshape", ["x", "s1"], ["m"]), ints("s2", [0, 0, -1]),
             helper.make_node("Reshape", ["m", "s2"], ["y"])]
    model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None)])
    out = apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4)}, 1)
    assert [n.op_type for n in out.graph.node].count("Reshape") == 1


# ---- constants: every Constant attribute form is a constant ---------------------------------------------

@pytest.mark.task("lab01.gather", points=1)
def test_constant_value_ints_and_value_int_are_constants():
    nodes = [helper.make_node("Constant", [], ["data"], value_floats=[1.0, 2.0, 3.0]),
             helper.make_node("Constant", [], ["i"], value_int=2),
             helper.make_node("Gather", ["data", "i"], ["g"]), helper.make_node("Neg", ["g"], ["y"])]
    out = apply(fold_constant_gather, make_model(nodes, [], [("y", F, None)]), {}, 1)
    np.testing.assert_array_equal(ReferenceEvaluator(out).run(None, {})[0], np.float32(-3.0))


@pytest.mark.task("lab01.reshape", points=1)
def test_constant_value_ints_is_a_reshape_shape():
    nodes = [ints("s1", [6, 4]), helper.make_node("Reshape", ["x", "s1"], ["m"]),
             helper.make_node("Constant", [], ["s2"], value_ints=[0, 2, 2]),
             helper.make_node("Reshape", ["m", "s2"], ["y"])]
    out = apply(fuse_consecutive_reshapes, make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None)]),
                {"x": rnd(2, 3, 4)}, 1)
    assert [n.op_type for n in out.graph.node] == ["Reshape"]  # both shape Constants left dead are removed


# ---- fused shapes get fresh names -----------------------------------------------------------------------

@pytest.mark.task("lab01.reshape", points=1)
@pytest.mark.parametrize("taken_by", ["node_output", "graph_input", "initializer"])
def test_each_fused_shape_gets_its_own_fresh_name(taken_by):
    # two pairs share s2 = [0, 2, 2] (0 resolved to 6 from s1): two new shape initializers; "s2_fused" is taken
    nodes = [ints("s1", [6, 4]), ints("s2", [0, 2, 2])]
    inputs, outputs, inits = [("x1", F, [2, 3, 4]), ("x2", F, [2, 3, 4])], [("y1", F, None), ("y2", F, None)], {}
    feeds = {"x1": rnd(2, 3, 4), "x2": rnd(2, 3, 4) + 1}
    if taken_by == "node_output":
        nodes.append(helper.make_node("Identity", ["z"], ["s2_fused"]))
        inputs.append(("z", F, [1]))
        feeds["z"] = np.ones(1, np.float32)
    elif taken_by == "graph_input":
        inputs.append(("s2_fused", F, [1]))
        feeds["s2_fused"] = np.ones(1, np.float32)
    else:
        inits["s2_fused"] = np.ones(1, np.float32)
    outputs.append(("s2_fused", F, [1]))
    for k in (1, 2):
        nodes += [helper.make_node("Reshape", [f"x{k}", "s1"], [f"m{k}"]),
                  helper.make_node("Reshape", [f"m{k}", "s2"], [f"y{k}"])]
    model = make_model(nodes, inputs, outputs, inits=inits)
    before = {t.name for t in model.graph.initializer} | {i.name for i in model.graph.input} \
        | {o for n in model.graph.node for o in n.output}
    out = apply(fuse_consecutive_reshapes, model, feeds, 2)
    new = [t.name for t in out.graph.initializer if t.name not in before]
    # any fresh name will do (the tests do not fix a naming scheme); it must not reuse a name the graph has
    assert len(new) == len(set(new)) == 2 and "s2_fused" in {o.name for o in out.graph.output}, (
        f"each fused pair needs its own new shape initializer with a name no value of the graph has; new: {new}")


def test_unique_name_takes_the_first_free_suffix():
    """The index's own naming (not a student rule's): ``base`` while free, then ``base_1``, ``base_2``, ...; a name
    the graph already has (here ``s_1``, a graph input) is skipped, and each name handed out is taken."""
    idx = DefUseIndex(make_model([], [("s_1", F, [1])], [("s_1", F, [1])]))
    assert [idx.unique_name("s") for _ in range(3)] == ["s", "s_2", "s_3"]
    assert [idx.unique_name("t") for _ in range(2)] == ["t", "t_1"]


# ---- eliminate_identity: subgraph references renamed, also twice -----------------------------------------

def branch(outputs, nodes=()):
    return helper.make_graph(list(nodes), "b", [], [helper.make_tensor_value_info(o, F, [2]) for o in outputs])


@pytest.mark.task("lab01.identity", points=1)
def test_identity_read_as_a_subgraph_output_is_renamed_there():
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Identity", ["r"], ["t"]),
             helper.make_node("If", ["c"], ["o"], then_branch=branch(["t"]), else_branch=branch(["r"]))]
    # a branch output naming an outer value: onnx.checker refuses it (so no pass contract here), onnx.reference
    # runs it, and the pass must rename it like any other reader
    model = make_model(nodes, [("x", F, [2]), ("c", B, [])], [("o", F, [2])], check=False)
    result = eliminate_identity(model)
    out = result.model
    assert result.rewrites == 1
    for c in (True, False):
        feeds = {"x": rnd(2) - 0.5, "c": np.array(c)}
        np.testing.assert_array_equal(ReferenceEvaluator(out).run(None, feeds)[0],
                                      ReferenceEvaluator(model).run(None, feeds)[0])
    then_g = next(a.g for a in out.graph.node[-1].attribute if a.name == "then_branch")
    assert [o.name for o in then_g.output] == ["r"]


@pytest.mark.task("lab01.identity", points=1)
def test_subgraph_reference_renamed_twice_follows_both_renames():
    # t = Identity(r) moves the branch's read of t to r; o = Identity(r) (a graph output) then renames r to o
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Identity", ["r"], ["t"]),
             helper.make_node("If", ["c"], ["q"], then_branch=branch(["n1"], [helper.make_node("Neg", ["t"], ["n1"])]),
                              else_branch=branch(["n2"], [helper.make_node("Abs", ["t"], ["n2"])])),
             helper.make_node("Identity", ["r"], ["o"])]
    model = make_model(nodes, [("x", F, [2]), ("c", B, [])], [("q", F, [2]), ("o", F, [2])])
    for c in (True, False):
        out = apply(eliminate_identity, model, {"x": rnd(2), "c": np.array(c)}, 2)
    assert [n.op_type for n in out.graph.node] == ["Relu", "If"] and out.graph.node[0].output[0] == "o"


# ---- fold_constant_gather: an invalid axis is left for the runtime to report -----------------------------

@pytest.mark.task("lab01.gather", points=1)
@pytest.mark.parametrize("axis", [2, -3])
def test_gather_with_an_axis_out_of_range_is_not_folded(axis):
    nodes = [helper.make_node("Gather", ["data", "i"], ["g"], axis=axis), helper.make_node("Neg", ["g"], ["y"])]
    model = make_model(nodes, [], [("y", F, None)], inits={"data": rnd(3, 4), "i": np.array([0], np.int64)},
                       check=False)
    assert fold_constant_gather(model).rewrites == 0


# ---- eliminate_identity: preconditions of the graph-output clause -----------------------------------------

@pytest.mark.task("lab01.identity", points=1)
def test_identity_to_output_stays_when_a_reader_of_the_source_defines_the_output_name():
    # o = Identity(r) is a graph output; renaming r to o would be captured by the branch that defines its own o
    shadow = branch(["k"], [helper.make_node("Neg", ["r"], ["o"]), helper.make_node("Abs", ["o"], ["k"])])
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Identity", ["r"], ["o"]),
             helper.make_node("If", ["c"], ["q"], then_branch=shadow, else_branch=branch(["r"]))]
    model = make_model(nodes, [("x", F, [2]), ("c", B, [])], [("o", F, [2]), ("q", F, [2])], check=False)
    assert eliminate_identity(model).rewrites == 0


@pytest.mark.task("lab01.identity", points=1)
@pytest.mark.parametrize("inputs", [[""], ["x", "x"], ["undefined"], [], ["x", ""]])
def test_malformed_identity_is_left_alone(inputs):
    # an empty input, not exactly one input, or an input nothing defines: left for the checker / runtime to
    # report, whether the Identity writes a graph output (clause 2's path) or a value a node reads (clause 1's)
    for output in ("y", "t"):
        nodes = [helper.make_node("Identity", inputs, [output])]
        if output == "t":
            nodes.append(helper.make_node("Neg", ["t"], ["y"]))
        model = make_model(nodes, [("x", F, [2])], [("y", F, [2])], check=False)
        assert eliminate_identity(model).rewrites == 0, (
            f"Identity{tuple(inputs)} -> {output} was removed: a malformed node (clause 3 of eliminate_identity's "
            "docstring: not exactly one input, an empty name, or an input nothing defines) stays")


@pytest.mark.task("lab01.identity", points=1)
def test_identity_with_other_than_one_output_is_left_alone():
    """Clause 3: ONNX ``Identity`` has exactly one output, so a node with none or two is malformed and stays for
    ``onnx.checker`` to report. Removing ``(t, u) = Identity(r)`` would rename ``t``'s readers and leave ``u``'s
    reading a value nothing writes; a node without outputs must not crash the pass either."""
    for outputs in (["t", "u"], ["y", "u"], []):
        nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Identity", ["r"], outputs),
                 helper.make_node("Abs", ["u" if outputs else "r"], ["z"])]
        if outputs[:1] == ["t"]:
            nodes.append(helper.make_node("Neg", ["t"], ["y"]))
        elif not outputs:
            nodes.append(helper.make_node("Neg", ["r"], ["y"]))
        model = make_model(nodes, [("x", F, [2])], [("y", F, [2]), ("z", F, [2])], check=False)
        assert eliminate_identity(model).rewrites == 0, (
            f"Identity(r) -> {outputs} was removed: a node with other than one output is malformed (clause 3) and stays")


@pytest.mark.task("lab01.identity", points=1)
def test_identity_of_any_defined_source_goes_when_its_output_is_no_graph_output():
    """Clause 1 has no exception for the source ``x``: it only requires that something defines ``x`` (clause 3). So
    ``t = Identity(x)`` goes when ``x`` is an initializer (constant or overridable, i.e. also a graph input) or another
    graph output (clause 2's exceptions concern renaming ``x``, which clause 1 never does), and also when nothing
    reads ``t`` (no reader to rewire: the node simply goes). Each result runs under the pass contract
    (``onnx.reference``, bitwise) and keeps no Identity."""
    cases = [  # (nodes before the Identity, source, graph inputs, initializers, extra graph outputs, feeds)
        ([], "w", [("x", F, [2])], {"w": rnd(2)}, [], {"x": rnd(2)}),
        ([], "w", [("x", F, [2]), ("w", F, [2])], {"w": rnd(2)}, [], {"x": rnd(2), "w": rnd(2)}),
        ([helper.make_node("Relu", ["x"], ["a"])], "a", [("x", F, [2])], {}, [("a", F, [2])], {"x": rnd(2)}),
    ]
    for before, src, inputs, inits, extra, feeds in cases:
        nodes = before + [helper.make_node("Identity", [src], ["t"]), helper.make_node("Add", ["t", "x"], ["y"])]
        out = apply(eliminate_identity, make_model(nodes, inputs, [("y", F, [2])] + extra, inits=inits), feeds, 1)
        assert "Identity" not in [n.op_type for n in out.graph.node], src
    # nothing reads t: the Identity is dead, but it is still an Identity of the main graph whose output is no graph output
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Identity", ["a"], ["t"])]
    out = apply(eliminate_identity, make_model(nodes, [("x", F, [2])], [("a", F, [2])]), {"x": rnd(2)}, 1)
    assert [n.op_type for n in out.graph.node] == ["Relu"]


def _if_node(out, cond="c", then_nodes=(), then_out=None, else_read="b"):
    """``out = If(cond)``: the then-branch runs ``then_nodes`` and returns ``then_out``; the else-branch returns
    ``Abs(else_read)``, ``else_read`` an outer-scope value."""
    then_g = branch([then_out], then_nodes)
    else_g = branch([f"{out}_e"], [helper.make_node("Abs", [else_read], [f"{out}_e"])])
    return helper.make_node("If", [cond], [out], then_branch=then_g, else_branch=else_g)


@pytest.mark.task("lab01.identity", points=1)
def test_identity_stays_when_any_subgraph_reading_it_shadows_the_target_and_only_then():
    """IR spec, Names Within a Graph: a subgraph defining ``a`` itself captures every read of ``a`` inside it. So
    ``b = Identity(a)`` stays when *any* subgraph that reads ``b`` defines ``a`` (clause 1), whichever position its
    holder has among the readers (here the middle one of three Ifs), and whether the read is a node input or a body
    output naming ``b`` (the branch would return its own ``a``: the constant 7). A subgraph that defines ``a`` but
    does not read ``b`` captures nothing: there (a valid model: its If runs before ``a`` is defined) the node goes.
    The results are checked against the original under ``onnx.reference`` for both branches."""
    seven = helper.make_node("Constant", [], ["a"], value=numpy_helper.from_array(np.full(2, 7, np.float32)))
    clean = [_if_node(f"q{k}", then_nodes=[helper.make_node("Neg", ["b"], [f"q{k}_t"])], then_out=f"q{k}_t")
             for k in (1, 3)]
    shadow_by_input = _if_node("q2", then_nodes=[seven, helper.make_node("Add", ["a", "b"], ["q2_t"])], then_out="q2_t")
    shadow_by_output = _if_node("q2", then_nodes=[seven], then_out="b", else_read="x")  # its only read of b: an output
    head = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Identity", ["a"], ["b"])]
    for shadow in (shadow_by_input, shadow_by_output):
        nodes = head + [clean[0], shadow, clean[1]]
        model = make_model(nodes, [("x", F, [2]), ("c", B, [])], [(f"q{k}", F, [2]) for k in (1, 2, 3)], check=False)
        result = eliminate_identity(model)
        for c in (True, False):
            feeds = {"x": rnd(2) - 0.5, "c": np.array(c)}
            for got, want in zip(ReferenceEvaluator(result.model).run(None, feeds), ReferenceEvaluator(model).run(None, feeds)):
                np.testing.assert_array_equal(got, want)
        assert result.rewrites == 0, "b = Identity(a) was removed though a subgraph reading b defines its own a"
    # an If before Relu defines its own a and reads x only: the rename b -> a reaches no subgraph of it
    early = _if_node("q0", then_nodes=[helper.make_node("Neg", ["x"], ["a"])], then_out="a", else_read="x")
    nodes = [early] + head + clean
    model = make_model(nodes, [("x", F, [2]), ("c", B, [])], [(f"q{k}", F, [2]) for k in (0, 1, 3)])
    for c in (True, False):
        out = apply(eliminate_identity, model, {"x": rnd(2), "c": np.array(c)}, 1)
    assert "Identity" not in [n.op_type for n in out.graph.node]


@pytest.mark.task("lab01.identity", points=1)
def test_a_node_reading_the_renamed_value_twice_is_rewired_in_both_slots():
    """A node may read one value in several input slots (``Add(b, b)``; IR spec: inputs are a list of names), in the
    main graph or inside a subgraph: a rename must rewrite every slot, else the other one reads a value nothing
    defines. Clause 1 (``b = Identity(a)``: readers of ``b`` move to ``a``) and clause 2 (``y = Identity(a)``, a graph
    output: readers of ``a`` move to ``y``), under the pass contract for both branches."""
    def add_twice(name, out):
        return helper.make_node("Add", [name, name], [out])

    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Identity", ["a"], ["b"]), add_twice("b", "s"),
             _if_node("q", then_nodes=[add_twice("b", "q_t")], then_out="q_t")]
    model = make_model(nodes, [("x", F, [2]), ("c", B, [])], [("s", F, [2]), ("q", F, [2])])
    for c in (True, False):
        out = apply(eliminate_identity, model, {"x": rnd(2), "c": np.array(c)}, 1)
    assert [list(n.input) for n in out.graph.node if n.op_type == "Add"] == [["a", "a"]]
    nodes = [helper.make_node("Relu", ["x"], ["a"]), add_twice("a", "s"),
             _if_node("q", then_nodes=[add_twice("a", "q_t")], then_out="q_t", else_read="a"),
             helper.make_node("Identity", ["a"], ["y"])]
    model = make_model(nodes, [("x", F, [2]), ("c", B, [])], [("s", F, [2]), ("q", F, [2]), ("y", F, [2])])
    for c in (True, False):
        out = apply(eliminate_identity, model, {"x": rnd(2), "c": np.array(c)}, 1)
    assert [list(n.input) for n in out.graph.node if n.op_type == "Add"] == [["y", "y"]]


# ---- static_shapes / exact_initializer_outputs ----------------------------------------------------------

def test_static_shapes_propagate_shape_values():
    # m = Reshape(x, Concat(Shape(x)[0:1], [-1])): known only with data propagation
    nodes = [helper.make_node("Shape", ["x"], ["sx"], end=1), ints("minus1", [-1]),
             helper.make_node("Concat", ["sx", "minus1"], ["s"], axis=0), helper.make_node("Reshape", ["x", "s"], ["m"])]
    assert static_shapes(make_model(nodes, [("x", F, [2, 3, 4])], [("m", F, None)], **AS_DECLARED))["m"] == [2, 12]


def test_static_shapes_survive_a_node_whose_inference_fails():
    # Sqrt of int32 breaks the type check and Reshape(-1, -1) the shape rule: the other dims are still known
    nodes = [helper.make_node("Sqrt", ["k"], ["q"]), ints("s", [-1, -1]), helper.make_node("Reshape", ["x", "s"], ["r"]),
             helper.make_node("Relu", ["x"], ["a"])]
    model = make_model(nodes, [("k", TensorProto.INT32, [2]), ("x", F, [2, 3])],
                       [("q", TensorProto.INT32, None), ("r", F, None), ("a", F, None)], **AS_DECLARED)
    assert static_shapes(model)["a"] == [2, 3]


def test_static_shapes_of_unshaped_values_initializers_and_symbols():
    nodes = [helper.make_node("Relu", ["u"], ["ru"]), helper.make_node("Add", ["x", "w"], ["y"])]
    model = make_model(nodes, [("u", F, None), ("x", F, ["N", 3])], [("ru", F, None), ("y", F, None)],
                       inits=[("w", np.ones((1, 3), np.float32))], **AS_DECLARED)
    dims = static_shapes(model)
    assert dims["u"] is None and dims["ru"] is None  # rank unknown: present, None
    assert dims["x"] == [None, 3] and dims["y"] == [None, 3] and dims["w"] == [1, 3]


def test_exact_initializer_outputs_declares_the_initializer_type():
    model = make_model([helper.make_node("Relu", ["x"], ["r"])], [("x", F, [2])],
                       [("r", F, None), ("c", I64, ["a", "b"])], inits=[("c", np.ones((1, 2), np.int64))], **AS_DECLARED)
    before = model.SerializeToString()
    fixed = exact_initializer_outputs(model)
    assert model.SerializeToString() == before  # the caller's model is untouched
    assert fixed.graph.output[1].type == helper.make_tensor_value_info("c", I64, [1, 2]).type
    assert fixed.graph.output[0].type == model.graph.output[0].type


def test_exact_initializer_outputs_leaves_exact_and_overridable_outputs():
    exact = make_model([], [], [("c", I64, [1, 2])], inits=[("c", np.ones((1, 2), np.int64))], **AS_DECLARED)
    assert exact_initializer_outputs(exact) is exact
    overridable = make_model([], [("c", I64, ["a", "b"])], [("c", I64, ["a", "b"])],
                             inits=[("c", np.ones((1, 2), np.int64))], **AS_DECLARED)
    assert exact_initializer_outputs(overridable) is overridable  # a graph input: a caller may feed another value


# ---- fuse_consecutive_reshapes: resolving zeros of s2 ------------------------------------------------------

def pair(s1, s2, x_shape=(2, 3, 4), attrs1=None, s2_dtype=np.int64, attrs2=None):
    """x -> Reshape(s1) -> m -> Reshape(s2) -> y; ``attrs1``, ``attrs2`` are the first and second node's attributes
    (default none)."""
    nodes = [ints("s1", s1), helper.make_node("Reshape", ["x", "s1"], ["m"], **(attrs1 or {})),
             helper.make_node("Constant", [], ["s2"], value=numpy_helper.from_array(np.asarray(s2, s2_dtype))),
             helper.make_node("Reshape", ["m", "s2"], ["y"], **(attrs2 or {}))]
    return nodes, [("x", F, list(x_shape))], [("y", F, None)]


@pytest.mark.task("lab01.reshape", points=1)
@pytest.mark.parametrize("s1,s2", [([4, 6], [0, 0]),       # both zeros resolved from s1
                                   ([0, 12], [0, 0]),      # s1's own 0 copies x's dim, then 12 from s1
                                   ([0, 12], [0, 0, 1])])
def test_every_zero_of_s2_is_resolved(s1, s2):
    model = make_model(*pair(s1, s2))
    apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4)}, 1)


@pytest.mark.task("lab01.reshape", points=1)
def test_zero_copied_through_a_first_reshape_without_allowzero_attribute():
    # the first node has no allowzero attribute: its default 0 means "copy", so s2's 0 stays valid
    model = make_model(*pair([0, -1], [0, 3, 4]))
    assert not any(a.name == "allowzero" for a in model.graph.node[1].attribute)
    apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4)}, 1)


@pytest.mark.task("lab01.reshape", points=1)
@pytest.mark.parametrize("s2,dtype", [([2, 12], np.int32), ([[2, 12]], np.int64), (24, np.int64)])
def test_an_invalid_second_shape_is_not_fused(s2, dtype):
    """ONNX Reshape types ``shape`` as a 1-D int64 tensor: an int32, a 2-D or a 0-D (scalar) constant ``s2`` makes
    the second node malformed, and the docstring of ``fuse_consecutive_reshapes`` leaves such a pair alone, whatever
    the second node's ``allowzero`` (with ``allowzero=1`` no entry of ``s2`` reads the input's dims, but a malformed
    ``s2`` is still no shape: fusing would only move the malformed node)."""
    for attrs2 in (None, {"allowzero": 0}, {"allowzero": 1}):
        nodes, inputs, outputs = pair([6, 4], s2, s2_dtype=dtype, attrs2=attrs2)
        assert fuse_consecutive_reshapes(make_model(nodes, inputs, outputs, check=False)).rewrites == 0, attrs2


@pytest.mark.task("lab01.reshape", points=1)
def test_a_zero_of_s2_is_resolved_from_any_positive_entry_of_s1():
    """``s1[i] > 0`` gives m's dim ``i`` (the docstring of ``fuse_consecutive_reshapes``), so the pair fuses with
    that entry written into ``s2'``: an entry ``1`` of ``s1`` too (left as ``0`` in ``s2'`` it would copy x's dim 2,
    and onnx.reference then fails on the element count), and whatever the first node's ``allowzero``: with no ``0``
    in ``s1`` it changes nothing (only a ``0`` of ``s1`` reads it). x float[2, 3, 4]; the outputs are compared with
    the unfused model's under onnx.reference."""
    feeds = {"x": rnd(2, 3, 4)}
    for s1, s2, attrs1, want in (([1, 24], [0, 4, 6], None, [1, 4, 6]),
                                 ([6, 4], [0, 2, 2], {"allowzero": 1}, [6, 2, 2]),
                                 ([2, 12], [0, 0, 1], {"allowzero": 1}, [2, 12, 1])):
        out = apply(fuse_consecutive_reshapes, make_model(*pair(s1, s2, attrs1=attrs1)), feeds, 1)
        assert list(ReferenceEvaluator(out).run(None, feeds)[0].shape) == want, (s1, s2, attrs1)


@pytest.mark.task("lab01.reshape", points=1)
def test_shape_initializers_that_a_caller_may_feed_or_another_node_reads():
    """Two initializer cases of the IR spec ("Graphs"). (1) An initializer that is also a graph input is only a default:
    a caller may feed another ``s2`` (here ``[0, 4]``, whose ``0`` copies m's 6), so ``s2`` is no constant and, under
    ``allowzero=0``, the pair is left alone (fused, the ``0`` would copy x's 2). (2) Shape initializers read by
    another node stay: ``s1`` also shapes ``z = Reshape(w, s1)`` and ``s2`` also shapes ``u = Reshape(v, s2)``, so
    fusing ``Reshape(Reshape(x, s1), s2)`` into ``Reshape(x, [6, 2, 2])`` keeps both (the first node goes, and only
    what fed *only* its shape input goes with it). Checked under onnx.reference against the unfused model."""
    nodes = [ints("s1", [6, 4]), helper.make_node("Reshape", ["x", "s1"], ["m"]), helper.make_node("Reshape", ["m", "s2"], ["y"])]
    model = make_model(nodes, [("x", F, [2, 3, 4]), ("s2", I64, [2])], [("y", F, ["a", "b"])],
                       inits={"s2": np.array([4, 6], np.int64)})
    for s2 in ([0, 4], [4, 6]):
        apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4), "s2": np.array(s2, np.int64)}, 0)
    nodes = [helper.make_node("Reshape", ["x", "s1"], ["m"]), helper.make_node("Reshape", ["m", "s2"], ["y"]),
             helper.make_node("Reshape", ["w", "s1"], ["z"]), helper.make_node("Reshape", ["v", "s2"], ["u"])]
    model = make_model(nodes, [("x", F, [2, 3, 4]), ("w", F, [4, 6]), ("v", F, [6, 4])],
                       [("y", F, None), ("z", F, None), ("u", F, None)],
                       inits={"s1": np.array([6, 4], np.int64), "s2": np.array([0, 2, 2], np.int64)})
    out = apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4), "w": rnd(4, 6), "v": rnd(6, 4)}, 1)
    assert {"s1", "s2"} <= {t.name for t in out.graph.initializer}
    # (3) the same for s1: an initializer that is also a graph input (default [6, 4]) is no constant, so it resolves
    # no 0 of s2 = [0, -1]: a caller feeding s1 = [4, 6] makes m's dim 0 a 4, not 6 (nor x's 2); left alone
    nodes = [helper.make_node("Reshape", ["x", "s1"], ["m"]), ints("s2", [0, -1]), helper.make_node("Reshape", ["m", "s2"], ["y"])]
    model = make_model(nodes, [("x", F, [2, 3, 4]), ("s1", I64, [2])], [("y", F, ["a", "b"])],
                       inits={"s1": np.array([6, 4], np.int64)})
    for s1 in ([6, 4], [4, 6]):
        apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4), "s1": np.array(s1, np.int64)}, 0)


@pytest.mark.task("lab01.reshape", points=1)
def test_a_zero_beyond_the_middle_rank_is_not_fused():
    # s2[2] = 0 copies m's dim 2, but m = Reshape(x, [6, 4]) has rank 2: invalid, left for the runtime
    nodes, inputs, outputs = pair([6, 4], [24, 1, 0])
    assert fuse_consecutive_reshapes(make_model(nodes, inputs, outputs, check=False)).rewrites == 0


# ---- the rule driver: a Gather turned into a Constant has no inputs left -----------------------------------

@pytest.mark.task("lab01.gather", points=1)
def test_fold_into_a_constant_node_with_a_reopened_input():
    # data has two readers; folding the Gather (a graph output) drops one, so data's last reader is retried
    nodes = [helper.make_node("Gather", ["data", "i"], ["y"]), helper.make_node("Neg", ["data"], ["z"])]
    model = make_model(nodes, [], [("y", F, None), ("z", F, None)],
                       inits={"data": rnd(3, 2), "i": np.array([2, 0], np.int64)})
    out = apply(fold_constant_gather, model, {}, 1)
    assert [n.op_type for n in out.graph.node] == ["Constant", "Neg"]


# ---- fold_constant_gather: index dtypes and opset rules -----------------------------------------------------

def gather_of(indices, opset=17, dtype=np.int64, data=None):
    data = rnd(3, 4) if data is None else data
    nodes = [helper.make_node("Gather", ["data", "i"], ["g"]), helper.make_node("Neg", ["g"], ["y"])]
    return nodes, {"data": data, "i": np.asarray(indices, dtype)}, opset


@pytest.mark.task("lab01.gather", points=1)
@pytest.mark.parametrize("indices,opset,rewrites", [([-1], 11, 1),   # negative indices: from opset 11 on
                                                    ([-1], 10, 0),
                                                    ([0], 10, 1),    # index 0 is not negative
                                                    ([2, 1], 10, 1)])
def test_negative_indices_fold_from_opset_11(indices, opset, rewrites):
    nodes, inits, opset = gather_of(indices, opset)
    model = make_model(nodes, [], [("y", F, None)], inits=inits, opset=opset)
    if rewrites:
        apply(fold_constant_gather, model, {}, rewrites)
    else:
        assert fold_constant_gather(model).rewrites == 0


@pytest.mark.task("lab01.gather", points=1)
@pytest.mark.parametrize("dtype", [np.int16, np.float32])
def test_indices_of_another_dtype_are_not_folded(dtype):
    nodes, inits, opset = gather_of([1], dtype=dtype)
    assert fold_constant_gather(make_model(nodes, [], [("y", F, None)], inits=inits, check=False)).rewrites == 0


@pytest.mark.task("lab01.gather", points=1)
def test_a_folded_gather_feeds_the_next_fold_in_the_same_call():
    nodes = [helper.make_node("Gather", ["data", "i"], ["g1"]), helper.make_node("Gather", ["g1", "j"], ["g2"], axis=1),
             helper.make_node("Neg", ["g2"], ["y"])]
    model = make_model(nodes, [], [("y", F, None)],
                       inits={"data": rnd(3, 4), "i": np.array([2, 0], np.int64), "j": np.array(3, np.int64)})
    out = apply(fold_constant_gather, model, {}, 2)
    np.testing.assert_array_equal(ReferenceEvaluator(out).run(None, {})[0], -rnd(3, 4)[[2, 0], 3])


@pytest.mark.task("lab01.gather", points=1)
def test_a_gather_folded_into_a_constant_node_feeds_the_next_fold():
    # y (a graph output) becomes a Constant node; z = Gather(y, j) folds in the same call from y's value
    nodes = [helper.make_node("Gather", ["data", "i"], ["y"]), helper.make_node("Gather", ["y", "j"], ["z"])]
    model = make_model(nodes, [], [("y", F, None), ("z", F, None)],
                       inits={"data": rnd(3, 4), "i": np.array([1], np.int64), "j": np.array([0], np.int64)})
    out = apply(fold_constant_gather, model, {}, 2)
    assert [n.op_type for n in out.graph.node] == ["Constant", "Constant"]
    assert list(out.graph.initializer) == []  # data, i and j lost their readers: removed


def one_reshape(data, shape, shape_dtype=np.int64):
    """r = Reshape(data, shape) over graph inputs y (no shape) and x (float[2, 3, 4])."""
    nodes = [helper.make_node("Constant", [], ["s"], value=numpy_helper.from_array(np.asarray(shape, shape_dtype))),
             helper.make_node("Reshape", [data, "s"], ["r"])]
    return DefUseIndex(make_model(nodes, [("y", F, None), ("x", F, [2, 3, 4])], [("r", F, None)], **AS_DECLARED))


def test_through_reshapes_starts_from_partly_known_dims_of_a_non_reshape():
    assert KnownShapes({"y": [6, None]}).through_reshapes("r", one_reshape("y", [0, 2, -1])) == [6, 2, None]


def test_through_reshapes_merges_inferred_and_derived_dims():
    assert KnownShapes({"r": [6, None]}).through_reshapes("r", one_reshape("y", [0, 4])) == [6, 4]


@pytest.mark.parametrize("data,shape,dtype", [("y", [-1, -1], np.int64),   # invalid shape: nothing derived
                                              ("x", [6, 4], np.int32),      # not an int64 shape: not followed
                                              ("", [6, 4], np.int64)])      # no data input: not followed
def test_through_reshapes_keeps_inferred_dims_where_the_chain_is_invalid(data, shape, dtype):
    assert KnownShapes({"x": [2, 3, 4], "r": [6, None]}).through_reshapes("r", one_reshape(data, shape, dtype)) == [6, None]


def test_through_reshapes_of_a_reshape_with_one_input():
    idx = DefUseIndex(make_model([helper.make_node("Reshape", ["x"], ["r"])], [("x", F, [2, 3, 4])], [("r", F, None)],
                                 **AS_DECLARED))
    assert KnownShapes({"x": [2, 3, 4]}).through_reshapes("r", idx) is None


def test_through_reshapes_stops_on_a_cycle():
    nodes = [ints("s", [6, 4]), helper.make_node("Reshape", ["b", "s"], ["a"]), helper.make_node("Reshape", ["a", "s"], ["b"])]
    idx = DefUseIndex(make_model(nodes, [], [("b", F, None)], **AS_DECLARED))
    assert KnownShapes({}).through_reshapes("b", idx) == [6, 4]


def test_through_reshapes_sees_the_chain_as_rewired_after_each_invalidate():
    idx, shapes = one_reshape("y", [0, -1]), KnownShapes({"x": [2, 3, 4]})
    assert shapes.through_reshapes("r", idx) == [None, None]  # y is unknown
    shapes.invalidate()
    assert shapes.through_reshapes("r", idx) == [None, None]
    idx.set_input(1, 0, "x")  # a rewrite points r at x (as a fusion does), then invalidates
    shapes.invalidate()
    assert shapes.through_reshapes("r", idx) == [2, 12]


# ---- more rules of the index and the driver ------------------------------------------------------------------

def test_index_scans_graphs_attributes():
    # a custom node with a list of graphs (AttributeProto.GRAPHS): each one's outer reads count
    bodies = [helper.make_graph([helper.make_node("Neg", ["a"], [f"n{k}"])], f"b{k}", [],
                                [helper.make_tensor_value_info(f"n{k}", F, [2])]) for k in (0, 1)]
    node = helper.make_node("Multi", ["x"], ["o"], domain="custom.test")
    node.attribute.append(helper.make_attribute("bodies", bodies))
    assert node.attribute[0].type == onnx.AttributeProto.GRAPHS
    idx = DefUseIndex(make_model([helper.make_node("Relu", ["x"], ["a"]), node], [("x", F, [2])], [("o", F, [2])],
                                 **AS_DECLARED))
    assert idx.uses["a"] == 2 and idx.local_defs[1] == {"n0", "n1"}


@pytest.mark.task("lab01.gather", points=1)
def test_an_unreadable_constant_is_not_folded():
    # indices stored with an UNDEFINED element type: numpy_helper cannot read them, so nothing is folded
    nodes = [helper.make_node("Gather", ["data", "i"], ["g"]), helper.make_node("Neg", ["g"], ["y"])]
    model = make_model(nodes, [], [("y", F, None)], inits={"data": rnd(3, 4), "i": np.array([1], np.int64)})
    model.graph.initializer[1].data_type = TensorProto.UNDEFINED
    assert fold_constant_gather(model).rewrites == 0


@pytest.mark.task("lab01.gather", points=1)
def test_a_producer_with_another_reader_is_kept():
    # Shape(x) feeds the folded Gather and a Cast: folding drops one reader, the Shape stays for the other
    nodes = [helper.make_node("Shape", ["x"], ["s"]), ints("k", [1]), helper.make_node("Gather", ["s", "k"], ["g"]),
             helper.make_node("Neg", ["g"], ["y"]), helper.make_node("Cast", ["s"], ["sf"], to=F)]
    model = make_model(nodes, [("x", F, ["N", 3])], [("y", I64, None), ("sf", F, None)])
    out = apply(fold_constant_gather, model, {"x": rnd(2, 3)}, 1)
    assert [n.op_type for n in out.graph.node] == ["Shape", "Neg", "Cast"]


@pytest.mark.task("lab01.reshape", points=1)
def test_value_info_of_removed_values_is_dropped_and_the_rest_kept():
    nodes, inputs, outputs = pair([6, 4], [4, 6])
    model = make_model(nodes + [helper.make_node("Relu", ["y"], ["z"])], inputs, [("z", F, None)], inits={"w": rnd(1)},
                       value_info=[helper.make_tensor_value_info(n, F, None) for n in ("m", "y", "w", "x")])
    out = apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4)}, 1)
    assert [v.name for v in out.graph.value_info] == ["y", "w", "x"]


@pytest.mark.task("lab01.reshape", points=1)
def test_reshape_pair_of_opset_5_fuses():
    # Reshape-5 takes its shape as an input (initializers here: Constant-1 has no int64)
    nodes = [helper.make_node("Reshape", ["x", "s1"], ["m"]), helper.make_node("Reshape", ["m", "s2"], ["y"])]
    model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None)], opset=5,
                       inits={"s1": np.array([6, 4], np.int64), "s2": np.array([4, 6], np.int64)})
    apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4)}, 1)


@pytest.mark.task("lab01.reshape", points=1)
def test_a_non_reshape_reading_a_reshape_is_not_fused():
    # Add(Reshape(x, [6]), c) with an int64 vector c: only a Reshape reading a Reshape is a pattern
    nodes = [ints("s1", [6]), helper.make_node("Reshape", ["x", "s1"], ["m"]), ints("c", [1, 2, 3, 4, 5, 6]),
             helper.make_node("Add", ["m", "c"], ["y"])]
    model = make_model(nodes, [("x", I64, [2, 3])], [("y", I64, None)])
    assert fuse_consecutive_reshapes(model).rewrites == 0
    # nor a Reshape with one input: from opset 5 on the shape is input 1, so such a node (second or first of the
    # pair) is malformed and left alone, not read past its inputs nor fused away
    for shapes in ((["s1"], []), ([], ["s2"])):
        nodes = [ints("s1", [6, 4]), ints("s2", [4, 6]), helper.make_node("Reshape", ["x", *shapes[1]], ["m"]),
                 helper.make_node("Reshape", ["m", *shapes[0]], ["y"])]
        model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None)], check=False, infer_outputs=False)
        assert fuse_consecutive_reshapes(model).rewrites == 0, shapes


@pytest.mark.task("lab01.gather", points=1)
@pytest.mark.parametrize("size,rewrites", [(8, 1), (9, 0)])
def test_fold_size_limit_is_inclusive(monkeypatch, size, rewrites):
    """``MAX_FOLD_ELEMENTS`` (8 here) bounds the elements of the folded *result*, inclusive, in both folds: whatever
    the data or the indices hold (a result of 3x3 elements from 3 indices is 9, over the limit; 8 of a 9-element
    ``data`` is within it)."""
    from lab01_onnx.passes import gather
    monkeypatch.setattr(gather, "MAX_FOLD_ELEMENTS", 8)
    rows = {8: 2, 9: 3}[size]
    for what, data, indices in (("data[size, 1], indices arange(size)", rnd(size, 1), np.arange(size)),
                                (f"data[{rows}, {size // rows}], indices arange({rows})", rnd(rows, size // rows),
                                 np.arange(rows)),
                                ("data[size + 1, 1], indices arange(size)", rnd(size + 1, 1), np.arange(size))):
        got = fold_constant_gather(gather_model(data, indices, 0)).rewrites
        assert got == rewrites, f"{what}: a result of {size} elements, limit 8: {got} rewrites, want {rewrites}"
    got = fold_constant_gather(shape_gather_of([1] * size)).rewrites
    assert got == rewrites, f"Gather(Shape(x), [1] * {size}): a result of {size} dims, limit 8: {got} rewrites, want {rewrites}"


@pytest.mark.task("lab01.reshape", points=1)
def test_value_info_of_only_removed_values_is_dropped():
    nodes, inputs, outputs = pair([6, 4], [4, 6])
    model = make_model(nodes, inputs, outputs, value_info=[helper.make_tensor_value_info("m", F, [6, 4])])
    out = apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4)}, 1)
    assert list(out.graph.value_info) == []


def test_a_pass_names_the_wrong_argument_type():
    with pytest.raises(UserError, match="expected an onnx.ModelProto, got str: load it with onnx.load"):
        fuse_consecutive_reshapes("model.onnx")


def test_below_the_minimum_opset_the_model_comes_back_unchanged():
    # Reshape-1 (opset 4) takes its shape as an attribute: the Reshape rule needs opset 5
    nodes = [helper.make_node("Reshape", ["x"], ["m"], shape=[6, 4]), helper.make_node("Reshape", ["m"], ["y"], shape=[4, 6])]
    model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None)], opset=4, check=False)
    result = fuse_consecutive_reshapes(model)
    assert result.rewrites == 0 and result.model == model and result.model is not model


@pytest.mark.task("lab01.identity", points=1)
def test_a_rule_without_a_minimum_runs_on_a_model_without_a_default_import():
    model = make_model([helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Neg", ["t"], ["y"])],
                       [("x", F, [2])], [("y", F, [2])], domains={"custom.test": 1}, **AS_DECLARED)
    del model.opset_import[0]  # the default domain's import: the model imports custom.test only
    assert eliminate_identity(model).rewrites == 1


@pytest.mark.task("lab01.reshape", points=1)
def test_a_multi_output_producer_with_a_used_output_is_kept():
    # s1 is output 0 of a Split; removing the first Reshape drops s1's last reader, but output 1 is still read
    nodes = [ints("c", [6, 4, 99]), ints("sizes", [2, 1]), helper.make_node("Split", ["c", "sizes"], ["s1", "b"]),
             helper.make_node("Reshape", ["x", "s1"], ["m"]), ints("s2", [4, 6]), helper.make_node("Reshape", ["m", "s2"], ["y"]),
             helper.make_node("Neg", ["b"], ["z"])]
    model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None), ("z", I64, None)])
    out = apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4)}, 1)
    assert "Split" in [n.op_type for n in out.graph.node]


@pytest.mark.task("lab01.reshape", points=1)
def test_a_pair_fused_on_a_retry_is_counted():
    # y = Reshape(m) is refused at first (Shape(m) also reads m); fusing b's pair removes the Shape->Gather->
    # Concat chain that only fed a's shape, m is left with one reader, and y's pair is fused on the retry
    nodes = [ints("s1", [6, 4]), helper.make_node("Reshape", ["x", "s1"], ["m"]), ints("s2", [4, 6]),
             helper.make_node("Reshape", ["m", "s2"], ["y"]), helper.make_node("Shape", ["m"], ["sm"]), ints("k", [0]),
             helper.make_node("Gather", ["sm", "k"], ["g"]), ints("minus1", [-1]),
             helper.make_node("Concat", ["g", "minus1"], ["sd"], axis=0), helper.make_node("Reshape", ["w", "sd"], ["a"]),
             ints("sb", [4, 6]), helper.make_node("Reshape", ["a", "sb"], ["b"])]
    model = make_model(nodes, [("x", F, [2, 3, 4]), ("w", F, [6, 4])], [("y", F, None), ("b", F, None)])
    out = apply(fuse_consecutive_reshapes, model, {"x": rnd(2, 3, 4), "w": rnd(6, 4)}, 2)
    assert sorted(n.op_type for n in out.graph.node) == ["Constant", "Constant", "Reshape", "Reshape"]


def test_through_reshapes_of_an_invalid_link_over_unknown_dims():
    assert KnownShapes({}).through_reshapes("r", one_reshape("y", [-1, -1])) is None


@pytest.mark.task("lab01.reshape", points=1)
def test_a_reader_of_a_pair_fused_on_a_retry_is_retried():
    # r = Reshape(m) is fused into m's producer only on a retry (Shape(m) reads m until b's fusion removes the
    # Shape -> Gather -> Concat chain). Only then are q's dims derivable (m's shape t is a runtime input), so
    # q = Reshape(r, [0, 2, 2]) must be retried after r's rewrite to reach the fixed point in one call.
    nodes = [helper.make_node("Reshape", ["x", "t"], ["m"]), ints("sr", [-1, 4]), helper.make_node("Reshape", ["m", "sr"], ["r"]),
             ints("sq", [0, 2, 2]), helper.make_node("Reshape", ["r", "sq"], ["q"]),
             helper.make_node("Shape", ["m"], ["sm"]), ints("k", [0]), helper.make_node("Gather", ["sm", "k"], ["g"]),
             ints("minus1", [-1]), helper.make_node("Concat", ["g", "minus1"], ["sd"], axis=0),
             helper.make_node("Reshape", ["w", "sd"], ["a"]), ints("sb", [4, 6]), helper.make_node("Reshape", ["a", "sb"], ["b"])]
    model = make_model(nodes, [("x", F, [2, 3, 4]), ("t", I64, [2]), ("w", F, [6, 4])], [("q", F, None), ("b", F, None)])
    feeds = {"x": rnd(2, 3, 4), "t": np.array([6, 4], np.int64), "w": rnd(6, 4)}
    out = apply(fuse_consecutive_reshapes, model, feeds, 3)
    assert sorted(n.op_type for n in out.graph.node) == ["Constant", "Reshape", "Reshape"]


@pytest.mark.task("lab01.identity", points=1)
def test_identity_to_an_output_of_a_multi_output_producer_renames_that_output():
    """Clause 2 renames the producer's output that the Identity reads: Split's *second* output here; renaming its
    first (``s0``) would leave Neg reading a value nothing writes."""
    nodes = [helper.make_node("Split", ["x"], ["s0", "s1"], axis=0), helper.make_node("Identity", ["s1"], ["y"]),
             helper.make_node("Neg", ["s0"], ["z"])]
    model = make_model(nodes, [("x", F, [4])], [("y", F, [2]), ("z", F, [2])])
    out = apply(eliminate_identity, model, {"x": rnd(4)}, 1)
    assert [list(n.output) for n in out.graph.node if n.op_type == "Split"] == [["s0", "y"]]


@pytest.mark.task("lab01.identity", points=1)
def test_identity_chain_whose_middle_value_has_another_reader():
    """``b = Identity(a)`` rewires Neg to ``a``; then ``y = Identity(a)`` (``b``'s Identity, now reading ``a``, a
    graph output) renames ``a`` to ``y``, and Neg, rewired a moment before, must follow."""
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Identity", ["a"], ["b"]),
             helper.make_node("Identity", ["b"], ["y"]), helper.make_node("Neg", ["b"], ["z"])]
    model = make_model(nodes, [("x", F, [3])], [("y", F, [3]), ("z", F, [3])])
    out = apply(eliminate_identity, model, {"x": rnd(3)}, 2)
    assert [(n.op_type, list(n.input), list(n.output)) for n in out.graph.node] == [
        ("Relu", ["x"], ["y"]), ("Neg", ["y"], ["z"])]


@pytest.mark.task("lab01.gather", points=1)
def test_gather_of_empty_indices_folds_to_an_empty_tensor():
    """``Gather(data[3, 4], indices=[])`` is valid (ONNX Gather: output shape ``[0, 4]``, as ``np.take`` gives); the
    fold runs under the pass contract (``onnx.reference``, bitwise)."""
    data, empty = rnd(3, 4), np.zeros((0,), np.int64)
    out = apply(fold_constant_gather, gather_model(data, empty, 0), {}, 1)
    assert ReferenceEvaluator(out).run(None, {})[0].shape == np.take(data, empty, axis=0).shape == (0, 4)


@pytest.mark.task("lab01.gather", points=1)
def test_gather_of_an_index_below_minus_s_is_not_folded():
    """ONNX Gather: indices lie in ``[-s, s-1]``; one out of range on either side is the runtime's error to raise
    (``onnx.reference`` refuses these models too), not a fold and not a crash of the pass."""
    for indices in ([-4], [[0, -4]], -7, [3]):
        model = gather_model(rnd(3, 4), indices, 0)
        with pytest.raises(IndexError, match="out of bounds"):
            ReferenceEvaluator(model).run(None, {})
        result = fold_constant_gather(model)
        assert result.rewrites == 0 and [n.op_type for n in result.model.graph.node].count("Gather") == 1, indices


# ---- a third mutant hunt: an op of another domain, Gather(Shape) indices out of the rank and before opset 11 ----

def custom_op(op_type: str, run):
    """An ``onnx.reference`` kernel for ``op_type`` of the domain ``custom.test`` (``OpRun``: the class name is the op
    type it runs): a node of that name outside the default domain is another operator, whatever its name says."""
    return type(op_type, (OpRun,), {"op_domain": "custom.test", "_run": lambda self, *xs, **attrs: (run(*xs),)})


def assert_default_domain_only(pass_fn, model, kernel, feeds, rewrites):
    """``pass_fn`` rewrites ``rewrites`` nodes of ``model``, all of the default domain: the node of the domain
    ``custom.test`` stays, and the result computes what the model computes under ``onnx.reference`` with ``kernel``
    for that op (bitwise)."""
    result = pass_fn(model)
    custom = [n.op_type for n in result.model.graph.node if n.domain == "custom.test"]
    assert custom == [kernel.__name__], f"{pass_fn.__name__} rewrote a node of the domain custom.test: not the ONNX operator"
    assert result.rewrites == rewrites
    want = ReferenceEvaluator(model, new_ops=[kernel]).run(None, feeds)
    got = ReferenceEvaluator(result.model, new_ops=[kernel]).run(None, feeds)
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.task("lab01.identity", points=1)
def test_an_identity_of_another_domain_is_not_removed():
    """Only the default domain's ``Identity`` (``""`` or ``ai.onnx``) is the identity: ``custom.test::Identity`` here
    doubles its input (ONNX IR, operator sets: an op is identified by its domain and name together). The ONNX
    Identity after it goes."""
    twice = custom_op("Identity", lambda x: x * 2)
    nodes = [helper.make_node("Identity", ["x"], ["t"], domain="custom.test"), helper.make_node("Identity", ["t"], ["u"]),
             helper.make_node("Neg", ["u"], ["y"])]
    model = make_model(nodes, [("x", F, [3])], [("y", F, [3])], domains={"custom.test": 1}, **AS_DECLARED)
    assert_default_domain_only(eliminate_identity, model, twice, {"x": rnd(3)}, 1)


@pytest.mark.task("lab01.reshape", points=1)
def test_a_reshape_of_another_domain_is_not_fused():
    """``custom.test::Reshape(Reshape(x, [6, 4]), [4, 6])``: the second node is not ONNX's Reshape (its kernel here
    passes its data through unchanged), so the pair is no pattern of the pass. Nor is ``Reshape(custom.test::
    Reshape(x, [6, 4]), [4, 6])``, the other node of the pair (its kernel here negates its data and ignores the shape):
    the producer too must be ONNX's Reshape, or the fusion drops what it computes."""
    keep = custom_op("Reshape", lambda data, shape: data)
    nodes = [ints("s1", [6, 4]), helper.make_node("Reshape", ["x", "s1"], ["m"]), ints("s2", [4, 6]),
             helper.make_node("Reshape", ["m", "s2"], ["y"], domain="custom.test")]
    model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None)], domains={"custom.test": 1}, **AS_DECLARED)
    assert_default_domain_only(fuse_consecutive_reshapes, model, keep, {"x": rnd(2, 3, 4)}, 0)
    negate = custom_op("Reshape", lambda data, shape: -data)
    nodes = [ints("s1", [6, 4]), helper.make_node("Reshape", ["x", "s1"], ["m"], domain="custom.test"), ints("s2", [4, 6]),
             helper.make_node("Reshape", ["m", "s2"], ["y"])]
    model = make_model(nodes, [("x", F, [2, 3, 4])], [("y", F, None)], domains={"custom.test": 1}, **AS_DECLARED)
    assert_default_domain_only(fuse_consecutive_reshapes, model, negate, {"x": rnd(2, 3, 4)}, 0)


@pytest.mark.task("lab01.gather", points=1)
def test_a_gather_of_another_domain_is_not_folded():
    """``custom.test::Gather(data, [1])`` with constant inputs is not ONNX's Gather (its kernel here returns ``data``
    whole): folding it as ``numpy.take`` would change the result. The ONNX Gather beside it folds."""
    whole = custom_op("Gather", lambda data, indices: data)
    nodes = [helper.make_node("Gather", ["data", "i"], ["g"], domain="custom.test"),
             helper.make_node("Gather", ["data", "j"], ["h"]), helper.make_node("Add", ["g", "h"], ["y"])]
    model = make_model(nodes, [], [("y", F, None)], domains={"custom.test": 1}, **AS_DECLARED,
                       inits={"data": rnd(3, 4), "i": np.array([1], np.int64), "j": np.array([2, 0, 1], np.int64)})
    assert_default_domain_only(fold_constant_gather, model, whole, {}, 1)
    # custom.test::Shape is not ONNX's Shape either (its kernel here returns [7, 7]): Gather(it, 1) is not x's dim 1
    seven = custom_op("Shape", lambda x: np.array([7, 7], np.int64))
    nodes = [helper.make_node("Shape", ["x"], ["s"], domain="custom.test"), helper.make_node("Gather", ["s", "k"], ["g"]),
             helper.make_node("Neg", ["g"], ["y"])]
    model = make_model(nodes, [("x", F, [2, 3])], [("y", I64, None)], domains={"custom.test": 1}, **AS_DECLARED,
                       inits={"k": np.array(1, np.int64)})
    assert_default_domain_only(fold_constant_gather, model, seven, {"x": rnd(2, 3)}, 0)


def shape_gather_of(indices, opset=17, start=None, dtype=np.int64):
    """``y = Neg(Gather(Shape(x), indices))`` (``Shape``'s ``start`` when given), x float[N, 3, S, 5]."""
    attrs = {} if start is None else {"start": start}
    nodes = [helper.make_node("Shape", ["x"], ["s"], **attrs), helper.make_node("Gather", ["s", "i"], ["g"]),
             helper.make_node("Neg", ["g"], ["y"])]
    return make_model(nodes, [("x", F, ["N", 3, "S", 5])], [("y", I64, None)], opset=opset,
                      inits={"i": np.asarray(indices, dtype)}, check=False)


@pytest.mark.task("lab01.gather", points=1)
def test_gather_of_a_shape_with_an_index_outside_its_rank_is_not_folded():
    """Gather's indices lie in ``[-s, s-1]`` for ``Gather(Shape(x))`` too, ``s`` the length of the shape vector (4, or 3
    from ``start=1``): one outside is the runtime's error (``onnx.reference`` raises it), not a fold and not a crash
    of the pass, though the dims it would pick are static."""
    for indices, start in ((4, None), (-5, None), ([1, 4], None), ([[0], [-5]], None), (3, 1)):
        model = shape_gather_of(indices, start=start)
        with pytest.raises(IndexError, match="out of bounds"):
            ReferenceEvaluator(model).run(None, {"x": rnd(2, 3, 7, 5)})
        result = fold_constant_gather(model)
        assert result.rewrites == 0 and [n.op_type for n in result.model.graph.node].count("Gather") == 1, indices


@pytest.mark.task("lab01.gather", points=1)
def test_a_negative_index_into_a_shape_folds_from_opset_11_only():
    """The opset rule holds for both folds: Gather-1 (opset 1-10) defines no negative index, Gather-11 counts it from
    the back. ``Gather(Shape(x), -1)`` at opset 10 stays; at opset 11, and ``Gather(Shape(x), 3)`` at opset 10, fold
    (dim 5 of x, static)."""
    feeds = {"x": rnd(2, 3, 7, 5)}
    assert fold_constant_gather(shape_gather_of([-1], opset=10)).rewrites == 0
    apply(fold_constant_gather, shape_gather_of([3], opset=10), feeds, 1)
    out = apply(fold_constant_gather, shape_gather_of([-1], opset=11), feeds, 1)
    np.testing.assert_array_equal(ReferenceEvaluator(out).run(None, feeds)[0], [-5])


# ---- a fourth mutant hunt: int32 indices, the opset rule in full, a Gather without two inputs ------------------

@pytest.mark.task("lab01.gather", points=1)
def test_int32_indices_fold_and_unsigned_ones_do_not():
    """ONNX Gather's ``Tind`` is int32 or int64: int32 indices fold like int64 ones, in both folds (under the pass
    contract, ``onnx.reference``, bitwise). uint32 and uint64 indices are not Gather's (``onnx.checker`` refuses
    them): the node is left alone."""
    nodes, inits, _ = gather_of([2, -1], dtype=np.int32)
    out = apply(fold_constant_gather, make_model(nodes, [], [("y", F, None)], inits=inits), {}, 1)
    np.testing.assert_array_equal(ReferenceEvaluator(out).run(None, {})[0], -rnd(3, 4)[[2, -1]])
    feeds = {"x": rnd(2, 3, 7, 5)}
    out = apply(fold_constant_gather, shape_gather_of([1, -1], dtype=np.int32), feeds, 1)
    np.testing.assert_array_equal(ReferenceEvaluator(out).run(None, feeds)[0], [-3, -5])
    for dtype in (np.uint32, np.uint64):
        nodes, inits, _ = gather_of([1], dtype=dtype)
        model = make_model(nodes, [], [("y", F, None)], inits=inits, check=False)
        assert fold_constant_gather(model).rewrites == 0, f"{np.dtype(dtype)} indices folded: Gather takes int32/int64"


@pytest.mark.task("lab01.gather", points=1)
def test_below_opset_11_any_negative_index_keeps_the_gather():
    """Gather-1 (opset 1-10) defines no negative index: one negative index anywhere among the others keeps the node,
    in both folds; empty indices hold none, so they fold. The opset is the default domain's, whatever other domains
    the model imports and in whatever order (``ai.onnx.ml`` 3 listed first, ``custom.test`` 12 beside opset 10)."""
    def model_of(indices, opset, domains=None):
        nodes, inits, _ = gather_of(indices, opset)
        return make_model(nodes, [], [("y", F, None)], inits=inits, opset=opset, domains=domains)

    for indices in ([0, -1], [-1, 0], [[1, 2], [0, -3]]):
        assert fold_constant_gather(model_of(indices, 10)).rewrites == 0, f"indices {indices} folded at opset 10"
    assert fold_constant_gather(shape_gather_of([3, -1], opset=10)).rewrites == 0, "Gather(Shape(x), [3, -1]) folded at opset 10"
    apply(fold_constant_gather, model_of(np.zeros((0,), np.int64), 10), {}, 1)  # empty indices at opset 10: fold
    model = model_of([-1], 17, {"ai.onnx.ml": 3})
    model.opset_import.reverse()  # ai.onnx.ml first: the default domain's 17 still rules
    assert [o.domain for o in model.opset_import] == ["ai.onnx.ml", ""]
    apply(fold_constant_gather, model, {}, 1)
    assert fold_constant_gather(model_of([-1], 10, {"custom.test": 12})).rewrites == 0, (
        "a negative index folded at default-domain opset 10 (another domain's version was read)")


@pytest.mark.task("lab01.gather", points=1)
def test_a_gather_without_exactly_two_inputs_is_left_alone():
    """Gather takes exactly two inputs (data, indices): with one or three the model is invalid (``onnx.reference``
    refuses to run it); that error is the runtime's to report, so the pass neither folds the node nor crashes."""
    for inputs in (["data"], ["data", "i", "i"]):
        nodes = [helper.make_node("Gather", inputs, ["g"]), helper.make_node("Neg", ["g"], ["y"])]
        model = make_model(nodes, [], [("y", F, None)], inits={"data": rnd(3, 4), "i": np.array([1], np.int64)},
                           **AS_DECLARED)
        with pytest.raises(TypeError, match="operator 'Gather'"):
            ReferenceEvaluator(model).run(None, {})
        result = fold_constant_gather(model)
        assert result.rewrites == 0 and [n.op_type for n in result.model.graph.node] == ["Gather", "Neg"], inputs
