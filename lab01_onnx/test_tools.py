"""Tests of the Lab 01 inspection tools: memplan, whatran, fusions, customop.

Memory plans are checked on graphs small enough to compute by hand (the expected numbers are
worked out in each test's docstring); fingerprints on pairs made by known transformations (the
Lab 01 passes, onnxoptimizer passes, ORT levels, onnxsim, and two hand-written rewrites), where
the right answer is known. Run: ``pytest lab01_onnx/test_tools.py -k memplan``.
"""
from __future__ import annotations

import functools
import json
import math

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from common.errors import UserError, run_cli
from common.testing import make_model, tensor, value_info
from lab01_onnx.tools import memplan, whatran
from lab01_onnx.tools.fingerprint import fingerprint
from lab01_onnx.tools.onnx_plan import plan_onnx, tensor_rows
from lab01_onnx.tools.planning import ORDERS, Step, lifetimes, plan_memory, reorder

pytestmark = pytest.mark.lab01

F = TensorProto.FLOAT


#: the tools take graphs as given: built with the one test builder, unchecked, outputs as declared
_model = functools.partial(make_model, check=False, infer_outputs=False)


# ------------------------------------------------------------------------------------------------
# memplan: hand-computed cases


def test_memplan_chain_by_hand():
    """x -A-> a(100 B) -B-> b(10 B) -C-> c(1 B, graph output).

    Lifetimes a [0,1], b [1,2], c [2,2]; live bytes per step 100, 110, 11 -> lower bound 110 at
    step 1; naive 111; best fit: a -> buf0 (100), b -> buf1 (10), at step 2 a is released and c
    reuses buf0 -> planned 110 with 2 buffers.
    """
    steps = [Step("A", "A", ("x",), ("a",)), Step("B", "B", ("a",), ("b",)), Step("C", "C", ("b",), ("c",))]
    plan = plan_memory(steps, {"a": 100, "b": 10, "c": 1}, keep_alive=["c"])
    assert plan.live_bytes.tolist() == [100, 110, 11]
    assert (plan.naive_bytes, plan.planned_bytes, plan.lower_bound_bytes, plan.peak_step) == (111, 110, 110, 1)
    assert plan.buffers == [100, 10]
    assert plan.assignment == {"a": 0, "b": 1, "c": 0}
    # offset plan: a@0, b overlaps a in time -> @100, c overlaps only b -> @0; arena 110
    assert plan.offsets == {"a": 0, "b": 100, "c": 0} and plan.offset_plan_bytes == 110


DIAMOND_SIZES = {"a": 100, "b": 1, "c": 100, "d": 1, "e": 1}


def _diamond(order):
    """x -> A -> a(100) -> B -> b(1); x -> C -> c(100) -> D -> d(1); E(b, d) -> e(1) output."""
    steps = {"A": Step("A", "A", ("x",), ("a",)), "B": Step("B", "B", ("a",), ("b",)),
             "C": Step("C", "C", ("x",), ("c",)), "D": Step("D", "D", ("c",), ("d",)),
             "E": Step("E", "E", ("b", "d"), ("e",))}
    return [steps[k] for k in order]


def test_memplan_order_moves_the_peak_by_hand():
    """Branch by branch (A B C D E): live 100, 101, 101, 102, 3 -> bound 102, plan 100+1+1 = 102.

    Both big tensors first (A C B D E): live 100, 200, 201, 102, 3 -> bound 201; a and c overlap,
    so the plan needs 100 + 100 + 1 = 201.
    """
    good = plan_memory(_diamond("ABCDE"), DIAMOND_SIZES, keep_alive=["e"])
    bad = plan_memory(_diamond("ACBDE"), DIAMOND_SIZES, keep_alive=["e"])
    assert good.live_bytes.tolist() == [100, 101, 101, 102, 3]
    assert bad.live_bytes.tolist() == [100, 200, 201, 102, 3]
    assert (good.lower_bound_bytes, good.planned_bytes, good.offset_plan_bytes) == (102, 102, 102)
    assert (bad.lower_bound_bytes, bad.planned_bytes, bad.offset_plan_bytes) == (201, 201, 201)
    assert good.naive_bytes == bad.naive_bytes == 203
    # Depth-first reordering of the bad order finishes a branch first and recovers the good peak;
    # the memory-aware greedy order does too (it runs B, which frees a, before C).
    for strategy in ("dfs", "greedy"):
        order = reorder(_diamond("ACBDE"), strategy, DIAMOND_SIZES, keep_alive=["e"])
        assert plan_memory(order, DIAMOND_SIZES, keep_alive=["e"]).lower_bound_bytes == 102, strategy


def test_memplan_rejects_invalid_orders():
    with pytest.raises(ValueError, match="before it is produced"):
        lifetimes(_diamond("BACDE"), DIAMOND_SIZES)
    with pytest.raises(ValueError, match="unknown order"):
        reorder(_diamond("ABCDE"), "random")


@st.composite
def _random_dags(draw):
    n = draw(st.integers(1, 12))
    steps, sizes = [], {}
    for i in range(n):
        k = draw(st.integers(0, min(i, 3)))
        ins = tuple(sorted(set(draw(st.lists(st.integers(0, i - 1), min_size=k, max_size=k))))) if i else ()
        steps.append(Step(f"s{i}", "Op", tuple(f"t{j}" for j in ins) or ("x",), (f"t{i}",)))
        sizes[f"t{i}"] = draw(st.integers(1, 1000))
    return steps, sizes


@settings(max_examples=60, deadline=None)
@given(_random_dags(), st.sampled_from(ORDERS))
def test_memplan_plan_is_valid_and_bounded(dag, strategy):
    """Any plan: lower bound <= planned <= naive; tensors sharing a buffer never overlap in time;
    in the offset plan, tensors alive at the same time never overlap in address."""
    steps, sizes = dag
    steps = reorder(steps, strategy, sizes, keep_alive=[steps[-1].outputs[0]])
    plan = plan_memory(steps, sizes, keep_alive=[steps[-1].outputs[0]])
    assert plan.lower_bound_bytes <= plan.planned_bytes <= plan.naive_bytes
    by_buf: dict[int, list] = {}
    for lt in plan.lives:
        assert plan.buffers[plan.assignment[lt.name]] >= lt.nbytes
        by_buf.setdefault(plan.assignment[lt.name], []).append(lt)
    for lts in by_buf.values():
        lts.sort(key=lambda x: x.first)
        for x, y in zip(lts, lts[1:]):
            assert x.last < y.first, (x, y)
    assert plan.lower_bound_bytes <= plan.offset_plan_bytes <= plan.naive_bytes
    for x in plan.lives:
        for y in plan.lives:
            if x.name < y.name and x.first <= y.last and y.first <= x.last:
                ox, oy = plan.offsets[x.name], plan.offsets[y.name]
                assert ox + x.nbytes <= oy or oy + y.nbytes <= ox, (x, y)
    # reference lower bound by brute force over steps
    brute = max(sum(lt.nbytes for lt in plan.lives if lt.first <= k <= lt.last) for k in range(len(steps)))
    assert plan.lower_bound_bytes == brute


def _dynamic_relu_add_model():
    """X[N,4] float32 -> Relu -> r -> Add(r, r) -> s -> Mul(s, X) -> Y (graph output)."""
    nodes = [helper.make_node("Relu", ["X"], ["r"]), helper.make_node("Add", ["r", "r"], ["s"]),
             helper.make_node("Mul", ["s", "X"], ["Y"])]
    return _model(nodes, [("X", F, ["N", 4])], [("Y", F, ["N", 4])])


def test_memplan_onnx_graph_by_hand():
    """With N=3 each tensor is 3*4*4 = 48 bytes; r [0,1], s [1,2], Y [2,2].

    Live 48, 96, 96 -> bound 96; naive 144; best fit: r -> buf0, s -> buf1, Y reuses buf0 -> 96.
    """
    rep = plan_onnx(_dynamic_relu_add_model(), {"N": 3}, orders=("given",))
    p = rep.plans["given"]
    assert {lt.name: lt.nbytes for lt in p.lives} == {"r": 48, "s": 48, "Y": 48}
    assert (p.naive_bytes, p.planned_bytes, p.lower_bound_bytes, p.offset_plan_bytes) == (144, 96, 96, 96)
    rows = tensor_rows(rep)
    assert [(r["tensor"], r["first_step"], r["last_step"]) for r in rows] == [("r", 0, 1), ("s", 1, 2), ("Y", 2, 2)]


def test_memplan_resolves_shape_chains():
    """Reshape with a shape computed by Shape -> Gather -> Concat resolves with data propagation.

    X[B,8] -> Shape -> Gather(0) -> Unsqueeze -> Concat([b], [2], [4]) -> Reshape(X) -> [B,2,4];
    with B=5 the Reshape output is 5*8*4 = 160 bytes.
    """
    nodes = [helper.make_node("Shape", ["X"], ["shp"]),
             helper.make_node("Gather", ["shp", "zero"], ["b"], axis=0),
             helper.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
             helper.make_node("Concat", ["b1", "two_four"], ["new_shape"], axis=0),
             helper.make_node("Reshape", ["X", "new_shape"], ["Y"])]
    m = _model(nodes, [("X", F, ["B", 8])], [("Y", F, None)],
               [tensor("zero", np.array(0, np.int64)), tensor("ax0", np.array([0], np.int64)),
                tensor("two_four", np.array([2, 4], np.int64))])
    p = plan_onnx(m, {"B": 5}, orders=("given",)).plans["given"]
    assert {lt.name: lt.nbytes for lt in p.lives}["Y"] == 160


@pytest.mark.parametrize("trans_a,trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_memplan_sizes_the_fusedmatmul_ort_writes_as_ort_runs_it(trans_a, trans_b):
    """com.microsoft.FusedMatMul (ORT's EXTENDED/ALL levels write it; its symbolic shape inference has no rule
    for it): A [B, 3, 5] (or [B, 5, 3] with transA), Bt [5, 7] (or [7, 5] with transB), batch B = 2. Every
    size, the Relu after it included, against the shapes ORT's CPU EP produces on zeros."""
    from common.onnx_utils import ort_run

    a_shape = ["B", 5, 3] if trans_a else ["B", 3, 5]
    w = np.zeros((7, 5) if trans_b else (5, 7), np.float32)
    nodes = [helper.make_node("FusedMatMul", ["A", "W"], ["mm"], domain="com.microsoft", alpha=0.5,
                              transA=trans_a, transB=trans_b),
             helper.make_node("Relu", ["mm"], ["Y"])]
    m = _model(nodes, [("A", F, a_shape)], [("Y", F, None)], [tensor("W", w)], domains={"com.microsoft": 1})
    sizes = {lt.name: lt.nbytes for lt in plan_onnx(m, {"B": 2}, orders=("given",)).plans["given"].lives}
    model = onnx.ModelProto()
    model.CopyFrom(m)
    model.graph.output.append(helper.make_tensor_value_info("mm", F, None))
    ran = ort_run(model, {"A": np.zeros([2, *a_shape[1:]], np.float32)})
    assert sizes == {"mm": ran["mm"].nbytes, "Y": ran["Y"].nbytes} == {"mm": 2 * 3 * 7 * 4, "Y": 2 * 3 * 7 * 4}


def test_memplan_dynamic_dim_without_size_is_one_clear_line():
    with pytest.raises(UserError, match=r"--dims N=<size>") as exc:
        plan_onnx(_dynamic_relu_add_model(), {})
    assert "\n" not in str(exc.value)


def test_memplan_missing_shapes_is_one_clear_line():
    """An input without any shape (rank unknown) cannot be sized."""
    m = _dynamic_relu_add_model()
    m.graph.input[0].type.tensor_type.ClearField("shape")
    with pytest.raises(UserError, match="has no shape") as exc:
        plan_onnx(m, {"N": 3})
    assert "\n" not in str(exc.value)


def test_memplan_unknown_op_shapes_is_one_clear_line():
    """A custom-domain op without a schema leaves its output unshaped: named in one line."""
    nodes = [helper.make_node("Mystery", ["X"], ["m"], domain="my.domain"), helper.make_node("Relu", ["m"], ["Y"])]
    m = _model(nodes, [("X", F, [2, 2])], [("Y", F, None)])
    m.opset_import.append(helper.make_opsetid("my.domain", 1))
    with pytest.raises(UserError, match="no static shape.*'m' \\(Mystery\\)"):
        plan_onnx(m, {})


def test_memplan_cli_bad_inputs_exit_2(tmp_path, results_dir, capsys):
    junk = tmp_path / "not_a_model.onnx"
    junk.write_text("this is not protobuf\n" * 5)
    assert run_cli(memplan.main, [str(junk)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an ONNX model" in err[0]
    assert run_cli(memplan.main, [str(tmp_path / "missing.onnx")]) == 2
    assert "no such file" in capsys.readouterr().err
    good = tmp_path / "m.onnx"
    onnx.save(_dynamic_relu_add_model(), str(good))
    assert run_cli(memplan.main, [str(good)]) == 2
    assert "--dims N=<size>" in capsys.readouterr().err
    assert run_cli(memplan.main, [str(good), "--dims", "N=zero"]) == 2
    assert "positive integer" in capsys.readouterr().err
    assert run_cli(memplan.main, [str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(good.read_bytes()[:-5])
    assert run_cli(memplan.main, [str(truncated), "--dims", "N=2"]) == 2
    assert "not an ONNX model" in capsys.readouterr().err


@pytest.mark.parametrize("tool", ["memplan", "whatran"])
def test_tools_reject_a_model_failing_the_checker(tool, dangling_onnx, results_dir, capsys):
    with pytest.raises(onnx.checker.ValidationError):  # the premise: the checker rejects it too
        onnx.checker.check_model(str(dangling_onnx))
    argv = [str(dangling_onnx)] if tool == "memplan" else [str(dangling_onnx), str(dangling_onnx)]
    assert run_cli({"memplan": memplan.main, "whatran": whatran.main}[tool], argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a valid ONNX graph" in err[0] and "'missing'" in err[0]


def test_memplan_cli_writes_table(tmp_path, results_dir):
    good = tmp_path / "m.onnx"
    onnx.save(_dynamic_relu_add_model(), str(good))
    assert run_cli(memplan.main, [str(good), "--dims", "N=3"]) == 0
    doc = json.loads((results_dir / "lab01" / "memplan_m.json").read_text())
    given_row = next(r for r in doc["rows"] if r["order"] == "given")
    assert (given_row["naive_bytes"], given_row["planned_bytes"], given_row["lower_bound_bytes"]) == (144, 96, 96)
    assert (results_dir / "lab01" / "memplan_m.png").stat().st_size > 0


# ------------------------------------------------------------------------------------------------
# whatran: pairs made by known transformations


def _kinds(before, after):
    fp = fingerprint(before, after)
    return fp, fp.kinds()


def test_whatran_identical_models_find_nothing():
    m = _dynamic_relu_add_model()
    fp, kinds = _kinds(m, m)
    assert kinds == set() and fp.nodes_before == fp.nodes_after == 3


def _gather_reshape_identity_model():
    """Gather(const, const) feeding a Reshape chain, an Identity, and a dead branch."""
    nodes = [
        helper.make_node("Gather", ["table", "idx"], ["shape2"], axis=0),          # foldable
        helper.make_node("Reshape", ["X", "s1"], ["x1"]),                           # Reshape -> Reshape
        helper.make_node("Reshape", ["x1", "shape2"], ["x2"]),
        helper.make_node("Identity", ["x2"], ["x3"]),                               # no-op
        helper.make_node("Relu", ["x3"], ["Y"]),
        helper.make_node("Neg", ["X"], ["dead"]),                                   # dead
    ]
    inits = [tensor("table", np.array([[2, 6], [3, 4]], np.int64)), tensor("idx", np.array(1, np.int64)),
             tensor("s1", np.array([12], np.int64))]
    return _model(nodes, [("X", F, [2, 6])], [("Y", F, [3, 4])], inits)


def test_whatran_lab01_fold_constant_gather_is_constant_folding():
    from lab01_onnx.passes import fold_constant_gather
    before = _gather_reshape_identity_model()
    after = fold_constant_gather(before).model
    fp, kinds = _kinds(before, after)
    assert "constant folding" in kinds
    f = fp.get("constant folding")
    assert f.instances == 1 and "Gather" in f.evidence
    # the folded value is now an initializer; the Gather's data and indices, left unread, are gone
    assert {i.name for i in after.graph.initializer} == {"s1", "shape2"}
    assert (fp.initializers_before, fp.initializers_after) == (3, 2)
    assert kinds <= {"constant folding", "DCE"}


def test_whatran_lab01_eliminate_identity_is_noop_elimination():
    from lab01_onnx.passes import eliminate_identity
    before = _gather_reshape_identity_model()
    fp, kinds = _kinds(before, eliminate_identity(before).model)
    assert kinds == {"no-op elimination"}
    assert fp.get("no-op elimination").instances == 1 and "Identity" in fp.get("no-op elimination").evidence


def test_whatran_lab01_fuse_reshapes_is_vertical_fusion():
    from lab01_onnx.passes import fuse_consecutive_reshapes
    before = _model([helper.make_node("Reshape", ["X", "s1"], ["x1"]), helper.make_node("Reshape", ["x1", "s2"], ["x2"]),
                     helper.make_node("Relu", ["x2"], ["Y"])], [("X", F, [2, 6])], [("Y", F, [3, 4])],
                    [tensor("s1", np.array([12], np.int64)), tensor("s2", np.array([3, 4], np.int64))])
    after = fuse_consecutive_reshapes(before).model
    assert len(after.graph.node) == len(before.graph.node) - 1
    fp, kinds = _kinds(before, after)
    assert kinds == {"vertical fusion"}
    assert "Reshape+Reshape -> Reshape" in fp.get("vertical fusion").evidence


def test_whatran_onnxoptimizer_deadend_is_dce():
    import onnxoptimizer
    before = _gather_reshape_identity_model()
    fp, kinds = _kinds(before, onnxoptimizer.optimize(before, ["eliminate_deadend"]))
    assert kinds == {"DCE"}
    assert fp.get("DCE").instances == 1 and "Neg" in fp.get("DCE").evidence


def _conv_bn_model():
    rng = np.random.default_rng(0)
    nodes = [helper.make_node("Conv", ["X", "W"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["bn"]),
             helper.make_node("Relu", ["bn"], ["Y"])]
    inits = [tensor("W", rng.standard_normal((4, 3, 3, 3)).astype(np.float32)),
             tensor("g", rng.uniform(0.5, 1.5, 4).astype(np.float32)), tensor("b", rng.standard_normal(4).astype(np.float32)),
             tensor("m", rng.standard_normal(4).astype(np.float32)), tensor("v", rng.uniform(0.5, 1.5, 4).astype(np.float32))]
    return _model(nodes, [("X", F, [1, 3, 8, 8])], [("Y", F, [1, 4, 8, 8])], inits)


def test_whatran_onnxoptimizer_fuse_bn_is_vertical_fusion():
    import onnxoptimizer
    before = _conv_bn_model()
    fp, kinds = _kinds(before, onnxoptimizer.optimize(before, ["fuse_bn_into_conv"]))
    assert "vertical fusion" in kinds
    assert "Conv+BatchNormalization -> Conv" in fp.get("vertical fusion").evidence
    # this onnxoptimizer version writes the BN arithmetic as nodes on the weights, for folding later
    assert "(+10 constant-only nodes added, not yet folded" in fp.get("vertical fusion").details[0]


def _save(tmp_path, m, name):
    p = tmp_path / name
    onnx.save(m, str(p))
    return p


def test_whatran_ort_basic_conv_bn_and_cse(tmp_path):
    """ORT BASIC fuses Conv+BN and merges two identical Sigmoid nodes (CSE)."""
    from common.onnx_utils import ort_optimize
    m = _conv_bn_model()
    m.graph.node.extend([helper.make_node("Sigmoid", ["X"], ["s1"]), helper.make_node("Sigmoid", ["X"], ["s2"]),
                         helper.make_node("Add", ["s1", "s2"], ["Z"])])
    m.graph.output.append(value_info("Z", F, [1, 3, 8, 8]))
    after = ort_optimize(_save(tmp_path, m, "m.onnx"), tmp_path / "basic.onnx", "BASIC")
    fp, kinds = _kinds(m, after)
    assert {"vertical fusion", "CSE"} <= kinds
    assert "Conv+BatchNormalization -> Conv" in fp.get("vertical fusion").evidence
    assert fp.get("CSE").instances == 1 and "Sigmoid" in fp.get("CSE").evidence
    assert not kinds & {"DCE", "horizontal fusion", "layout change"}


def _gelu_model():
    """x * 0.5 * (1 + erf(x / sqrt(2))) exactly as the TorchScript exporter writes it."""
    nodes = [helper.make_node("Div", ["X", "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["a"]), helper.make_node("Mul", ["X", "a"], ["m"]),
             helper.make_node("Mul", ["m", "half"], ["Y"])]
    inits = [tensor("sqrt2", np.array(np.sqrt(2.0), np.float32)), tensor("one", np.array(1.0, np.float32)),
             tensor("half", np.array(0.5, np.float32))]
    return _model(nodes, [("X", F, [2, 16])], [("Y", F, [2, 16])], inits)


def test_whatran_ort_extended_gelu_is_vertical_fusion(tmp_path):
    from common.onnx_utils import ort_optimize, ort_run
    m = _gelu_model()
    after = ort_optimize(_save(tmp_path, m, "g.onnx"), tmp_path / "ext.onnx", "EXTENDED")
    fp, kinds = _kinds(m, after)
    assert kinds == {"vertical fusion"}
    assert "Div+Erf+Add+Mul+Mul -> com.microsoft.Gelu" in fp.get("vertical fusion").evidence
    # the fused graph computes the same function: exact GELU in float64 (no CPU-dispatched kernel on
    # the reference side), on 2048 points of [-3, 3]
    from common.onnx_utils import ort_session
    sess = ort_session(tmp_path / "ext.onnx")
    for x in np.linspace(-3, 3, 2048, dtype=np.float32).reshape(64, 2, 16):
        x64 = x.astype(np.float64)
        exact = 0.5 * x64 * (1 + np.vectorize(math.erf)(x64 / math.sqrt(2)))
        # float32 GELU, |x| <= 3, u = 2^-24: two product roundings of |y| <= 3 (6u), plus 1 + erf off by
        # <= 4.5u (erf 2 ulp, its argument, the add) times |x|/2 <= 1.5: 12.75u = 7.6e-7 (measured 2.8e-7)
        np.testing.assert_allclose(ort_run(sess, {"X": x})["Y"], exact, atol=1e-6, rtol=0)


def test_whatran_onnxsim_constant_subgraph_is_constant_folding():
    import onnxsim

    nodes = [helper.make_node("Transpose", ["Wt"], ["W"], perm=[1, 0]), helper.make_node("Mul", ["W", "two"], ["W2"]),
             helper.make_node("MatMul", ["X", "W2"], ["Y"])]
    m = _model(nodes, [("X", F, [2, 3])], [("Y", F, [2, 4])],
               [tensor("Wt", np.arange(12, dtype=np.float32).reshape(4, 3)), tensor("two", np.array(2.0, np.float32))])
    after, ok = onnxsim.simplify(m)
    assert ok
    fp, kinds = _kinds(m, after)
    assert kinds == {"constant folding"}
    f = fp.get("constant folding")
    assert f.instances == 2 and "Transpose" in f.evidence and "Mul" in f.evidence


def _horizontal_pair():
    """Two MatMuls reading X (Q and K projections) -> one MatMul on concatenated weights + Split."""
    rng = np.random.default_rng(1)
    wq, wk = rng.standard_normal((2, 8, 4)).astype(np.float32)
    before = _model([helper.make_node("MatMul", ["X", "Wq"], ["q"]), helper.make_node("MatMul", ["X", "Wk"], ["k"]),
                     helper.make_node("Add", ["q", "k"], ["Y"])],
                    [("X", F, [2, 8])], [("Y", F, [2, 4])], [tensor("Wq", wq), tensor("Wk", wk)])
    after = _model([helper.make_node("MatMul", ["X", "Wqk"], ["qk"]),
                    helper.make_node("Split", ["qk", "sizes"], ["q", "k"], axis=1),
                    helper.make_node("Add", ["q", "k"], ["Y"])],
                   [("X", F, [2, 8])], [("Y", F, [2, 4])],
                   [tensor("Wqk", np.concatenate([wq, wk], axis=1)), tensor("sizes", np.array([4, 4], np.int64))])
    return before, after


def test_whatran_hand_written_horizontal_fusion():
    from common.onnx_utils import ort_run
    before, after = _horizontal_pair()
    x = {"X": np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)}
    # same function: both graphs against the float64 product x @ Wq + x @ Wk, elementwise within the
    # worst case of any summation order, FMA or not: gamma_(K+1) (|x| @ |Wq| + |x| @ |Wk|), K = 8 terms
    w = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in before.graph.initializer}
    x64 = x["X"].astype(np.float64)
    exact, mag = x64 @ w["Wq"] + x64 @ w["Wk"], np.abs(x64) @ (np.abs(w["Wq"]) + np.abs(w["Wk"]))
    gamma = 9 * 2.0 ** -24 / (1 - 9 * 2.0 ** -24)
    for model in (before, after):
        assert np.all(np.abs(ort_run(model, x)["Y"] - exact) <= gamma * mag)
    fp, kinds = _kinds(before, after)
    assert kinds == {"horizontal fusion"}
    assert "MatMul+MatMul -> MatMul+Split" in fp.get("horizontal fusion").evidence


def test_whatran_hand_written_layout_change():
    """Relu run in NHWC: Transposes inserted at both boundaries."""
    before = _model([helper.make_node("Relu", ["X"], ["Y"])], [("X", F, [1, 3, 4, 4])], [("Y", F, [1, 3, 4, 4])])
    after = _model([helper.make_node("Transpose", ["X"], ["x_nhwc"], perm=[0, 2, 3, 1]),
                    helper.make_node("Relu", ["x_nhwc"], ["y_nhwc"]),
                    helper.make_node("Transpose", ["y_nhwc"], ["Y"], perm=[0, 3, 1, 2])],
                   [("X", F, [1, 3, 4, 4])], [("Y", F, [1, 3, 4, 4])])
    fp, kinds = _kinds(before, after)
    assert kinds == {"layout change"}
    f = fp.get("layout change")
    assert f.instances == 2 and "inserted 2" in f.evidence
    # and the reverse transformation removes them
    fp2, kinds2 = _kinds(after, before)
    assert "layout change" in kinds2 and "removed 2" in fp2.get("layout change").evidence


def test_whatran_ort_all_nchwc_layout(tmp_path):
    """ORT ALL on x86 with AVX2/AVX-512 rewrites Conv into the blocked NCHWc layout."""
    from common.onnx_utils import ort_optimize
    m = _conv_bn_model()
    after = ort_optimize(_save(tmp_path, m, "c.onnx"), tmp_path / "all.onnx", "ALL")
    if not any(n.domain == "com.microsoft.nchwc" for n in after.graph.node):
        pytest.skip("this CPU gets no NCHWc layout from ONNX Runtime (needs AVX2 or AVX-512)")
    fp, kinds = _kinds(m, after)
    assert "layout change" in kinds
    evidence = fp.get("layout change").evidence
    assert "converted 1 ops to a blocked layout: com.microsoft.nchwc.Conv" in evidence  # the Conv runs in NCHWc
    assert "inserted 1, removed 0: com.microsoft.nchwc.ReorderOutput" in evidence  # and its output is reordered back


def test_whatran_cli_bad_input_and_output(tmp_path, results_dir, capsys):
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x00\x01garbage" * 10)
    good = _save(tmp_path, _gelu_model(), "g.onnx")
    assert run_cli(whatran.main, [str(junk), str(good)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an ONNX model" in err[0]
    assert run_cli(whatran.main, [str(good)]) == 2
    assert "give two models" in capsys.readouterr().err
    import onnxoptimizer
    dce = _save(tmp_path, onnxoptimizer.optimize(_gather_reshape_identity_model(), ["eliminate_deadend"]), "dce.onnx")
    src = _save(tmp_path, _gather_reshape_identity_model(), "src.onnx")
    assert run_cli(whatran.main, [str(src), str(dce)]) == 0
    out = capsys.readouterr().out
    assert "DCE (1)" in out and "Neg" in out


# ------------------------------------------------------------------------------------------------
# fusions and customop on real (small) exports


def test_fusions_small_models_find_conv_bn_and_gelu(results_dir):
    """ResNet (depths 1-1-1-1) and 2-layer BERT: every BatchNormalization is fused into its Conv by
    onnxsim and ORT BASIC and above (not by DISABLE_ALL); every Erf GELU is fused by ORT EXTENDED
    and above (not by BASIC); each stage passes its numeric gate."""
    import torch

    from common.models import build_bert, build_resnet50
    from lab01_onnx.tools import fusions

    n_bn = sum(isinstance(m, torch.nn.BatchNorm2d) for m in build_resnet50(small=True, image=32).model.modules())
    n_gelu = build_bert(small=True, seq=8).meta["config"]["num_hidden_layers"]  # one GELU per layer
    assert run_cli(fusions.main, ["--quick", "--keep"]) == 0
    doc = json.loads((results_dir / "lab01" / "fusions.json").read_text())
    rows = {(r["model"], r["stage"]): r for r in doc["rows"]}
    assert rows[("resnet50_small", "raw")]["BatchNormalization"] == n_bn
    assert rows[("resnet50_small", "ort_disable_all")]["conv_bn_fused"] == 0
    for stage in ("onnxsim", "ort_basic", "ort_extended", "ort_all"):
        r = rows[("resnet50_small", stage)]
        assert (r["BatchNormalization"], r["conv_bn_fused"]) == (0, n_bn), stage
        assert r["nodes"] < rows[("resnet50_small", "raw")]["nodes"]
    assert rows[("bert_small", "raw")]["Erf"] == n_gelu
    assert rows[("bert_small", "ort_basic")]["gelu_fused"] == 0
    for stage in ("ort_extended", "ort_all"):
        r = rows[("bert_small", stage)]
        assert (r["Erf"], r["gelu_fused"]) == (0, n_gelu), stage
        assert "com.microsoft" in r["gelu_into"]
    assert (results_dir / "lab01" / "fusions.png").stat().st_size > 0
    _fused_stages_match_pytorch(results_dir / "lab01" / "fusions_models", fusions)


#: Independent check of every kept stage: plain onnxruntime vs the PyTorch model run in float64 (no
#: float32 kernel, so no CPU-dependent rounding, on the reference side) on fresh inputs (batch 3), max
#: abs per output. Scales: ResNet-small logits ~1.2, BERT-small hidden states ~3.6. ResNet at the seed's
#: 1e-4. BERT, float32 rounding as a random walk: sqrt(sum K ~ 2000 dot-product terms along 2 layers)
#: * 2^-24 * scale 3.6 = 9.6e-6 (measured 1.0e-6); a wrong fusion (tanh GELU: 4.7e-4 off) does not.
FUSION_ATOL = {"resnet50": 1e-4, "bert": 1e-5}


def _run_float64(bundle, feeds):
    """``bundle``'s PyTorch model in float64 (a copy) on ``feeds`` (float inputs widened)."""
    import copy

    import torch

    model = copy.deepcopy(bundle.model).double()
    with torch.no_grad():
        out = model(**{k: torch.from_numpy(v.astype(np.float64) if v.dtype.kind == "f" else v)
                       for k, v in feeds.items()})
    return {n: t.numpy() for n, t in zip(bundle.output_names, out if isinstance(out, tuple) else (out,))}


def _fused_stages_match_pytorch(folder, fusions):
    import onnxruntime as ort
    import torch

    for name, atol in FUSION_ATOL.items():
        bundle = fusions.build(name, small=True)
        g = torch.Generator().manual_seed(7)
        if name == "resnet50":
            feeds = {k: torch.randn(3, *v.shape[1:], generator=g).numpy() for k, v in bundle.inputs.items()}
        else:
            feeds = {k: torch.randint(1, 100, (3, 12), generator=g).numpy() if k == "input_ids"
                     else np.ones((3, 12), np.int64) if k == "attention_mask" else np.zeros((3, 12), np.int64)
                     for k in bundle.inputs}
        ref = _run_float64(bundle, feeds)  # {output name: float64 array}
        for stage in ("raw", "onnxsim", "ort_disable_all", "ort_basic", "ort_extended", "ort_all"):
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # run the file as saved
            sess = ort.InferenceSession(str(folder / f"fusions_{bundle.name}_{stage}.onnx"), so,
                                        providers=["CPUExecutionProvider"])
            got = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
            assert list(got) == list(ref), (name, stage)
            for k in ref:
                np.testing.assert_allclose(got[k], ref[k], rtol=0, atol=atol, err_msg=f"{name} {stage} {k}")


def test_customop_runs_only_with_a_kernel_or_a_function(results_dir, llama_tiny):
    """LLaMA-tiny with RMSNorm as one ai.onnx.contrib node: plain ORT refuses it with the
    'is not a registered function/op' error; with the onnxruntime-extensions Python kernel, or
    with a model-local function body, it matches PyTorch's original model within 1e-4."""
    from lab01_onnx.tools import customop

    assert run_cli(customop.main, []) == 0
    model = onnx.load(str(results_dir / "lab01" / "llama_tiny_customop.onnx"))
    n_norms = 2 * llama_tiny.meta["config"]["num_hidden_layers"] + 1
    ops = [(n.domain, n.op_type) for n in model.graph.node]
    assert ops.count((customop.DOMAIN, customop.OP)) == n_norms
    assert ("", "ReduceMean") not in ops  # RMSNorm was not decomposed by the exporter
    doc = json.loads((results_dir / "lab01" / "customop.json").read_text())
    plain, kernel, function = doc["rows"]
    assert plain["result"] == "load error" and "is not a registered function/op" in plain["detail"]
    for r in (kernel, function):
        assert r["result"] == "pass" and r["max_abs_vs_pytorch"] <= customop.ATOL
    gates = json.loads((results_dir / "lab01" / "customop_gates.json").read_text())["rows"]
    assert all(g["status"] == "ok" for g in gates) and len(gates) == 3
    # dynamic axes: the same file at (batch 1, seq 7) with the Python kernel vs the ORIGINAL PyTorch
    # LLaMA-tiny (LlamaRMSNorm, not the custom op), max abs 1e-4 on the logits
    ids = np.random.default_rng(3).integers(0, 512, (1, 7)).astype(np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    reference = llama_tiny.run(feeds)["logits"]
    got = customop.run_with_python_kernel(results_dir / "lab01" / "llama_tiny_customop.onnx", feeds)["logits"]
    assert got.shape == (1, 7, 512)
    np.testing.assert_allclose(got, reference, rtol=0, atol=1e-4)


def test_whatran_onnxsim_zero_bias_add_is_noop_not_fusion():
    """onnxsim drops ``Add(x, 0)``: a no-op elimination (its reader now reads the MatMul), not a fusion."""
    import onnxsim

    w = np.random.default_rng(4).standard_normal((4, 4)).astype(np.float32)
    m = _model([helper.make_node("MatMul", ["X", "W"], ["mm"]), helper.make_node("Add", ["bias", "mm"], ["biased"]),
                helper.make_node("Relu", ["biased"], ["Y"])],
               [("X", F, [2, 4])], [("Y", F, [2, 4])], [tensor("W", w), tensor("bias", np.zeros(4, np.float32))])
    after, ok = onnxsim.simplify(m)
    assert ok and len(after.graph.node) == 2
    fp, kinds = _kinds(m, after)
    assert kinds == {"no-op elimination"}
    assert "now read 'mm'" in fp.get("no-op elimination").details[0]


def test_fusions_simplify_never_writes_over_its_input(tmp_path):
    """Step 2 names its output after the input with ``_raw`` dropped and ``_onnxsim`` added: a model whose name
    holds no ``_raw`` (the old ``name.replace``) gets its own file too, and the input is left as it was."""
    from lab01_onnx.tools import fusions

    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [value_info("x", TensorProto.FLOAT, [2, 3])],
                       [value_info("y", TensorProto.FLOAT, [2, 3])])
    for name, want in (("m.onnx", "m_onnxsim.onnx"), ("m_raw.onnx", "m_onnxsim.onnx"), ("a_raw_b.onnx",
                                                                                        "a_raw_b_onnxsim.onnx")):
        src = tmp_path / name
        onnx.save(model, str(src))
        before = src.read_bytes()
        out = fusions.simplify(src)
        assert out == tmp_path / want and src.read_bytes() == before
        onnx.checker.check_model(onnx.load(str(out)))
