"""Graded tests of Task 4.2 (``lab04.coverage``): ``coverage.report`` and ``Coverage.summary``.

Through the public contract only (the docstrings of ``lab04_npu.coverage``): every report comes from a
real QNN session (HTP backend, fp16) on a small hand-made graph, through the given ``coverage(model)``,
and is checked against what ONNX Runtime itself compiled, read without the log: the **EP-context
model** of the same graph and settings (``ep.context_enable=1``: each QNN partition becomes one
``com.microsoft.EPContext`` node whose inputs and outputs are the tensors crossing its boundary; every
node left on the CPU stays in the file under its own name). FLOPs are counted by hand from the shapes
(2 per multiply-add for MatMul and Conv, 1 per output element otherwise: the convention of
``lab04_npu/graphfacts.py``). Percentages are compared to the stated rounding (2 or 3 decimals).

Every report and summary is checked for its types before anything in it is compared (:func:`checked`,
:func:`summary`): a ``Coverage`` (exactly) whose ``nodes`` and ``boundaries`` are lists of dicts, and a
summary dict, with ``str`` keys and values of the types the docstrings give (``str``, ``int``, a number,
or None where allowed; exact types, NumPy's int64/float64 scalars accepted). An object of another type
may define its own ``==`` (or ``in``) and pass every comparison below without computing a thing.

Run: ``.venv/bin/python -m pytest --task lab04.coverage``.
"""
from __future__ import annotations

import functools
import re
import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from lab04_npu import qnn
from lab04_npu.coverage import Coverage, coverage, report
from lab04_npu.qnnlog import base_name
from lab04_npu.testing import const, xy_model

pytestmark = pytest.mark.lab04

FP16 = {"precision": "fp16"}
RNG = np.random.default_rng(3)
REASON_ERF = "Operators of type `Erf` are not supported by QNN EP"  # QNN EP 2.7.0's wording


# Exact types whose ``==`` (and ``in``) are their own: a subclass may redefine them. NumPy's int64 and
# float64 scalars count as int and number (what a sum or a round over arrays gives).
INT, NUM, OPT_INT = (int, np.int64), (int, float, np.int64, np.float64), (int, np.int64, type(None))
NODE_TYPES = {"index": INT, "name": (str,), "op": (str,), "placement": (str,), "partition": OPT_INT,
              "validation": (str,), "unit": (str,), "reason": (str,), "flops": INT}
BOUNDARY_TYPES = {"partition": INT, "direction": (str,), "tensor": (str,), "shape": (str,), "dtype": (str,),
                  "bytes": OPT_INT, "other_side": (str,)}
SUMMARY_TYPES = {"model": (str,), "nodes": INT, "nodes_on_qnn": INT, "coverage_nodes_pct": NUM, "gflops": NUM,
                 "coverage_flops_pct": NUM, "partitions": INT, "boundary_tensors": INT, "boundary_mib": NUM,
                 "cpu_ops": (str,), "first_reason": (str,)}


def wrong_types(row, types: dict, what: str) -> list[str]:
    """What is not as promised in ``row``: not a dict, a key that is not a str, a value of another type."""
    if type(row) is not dict:
        return [f"{what} is a {type(row).__qualname__}, not a dict"]
    out = [f"{what} has a key {k!r} of type {type(k).__qualname__}" for k in row if type(k) is not str]
    out += [f"{what}[{k!r}] is missing" if k not in row else
            f"{what}[{k!r}] is a {type(row[k]).__qualname__}, not {' or '.join(t.__qualname__ for t in ts)}"
            for k, ts in types.items() if k not in row or type(row[k]) not in ts]
    return out


def checked(c):
    """``c`` (what ``report`` returned) checked as promised: a Coverage whose rows have the stated types."""
    assert type(c) is Coverage, f"report returned a {type(c).__qualname__}, not a Coverage"
    bad = [f"Coverage.{a} is a {type(getattr(c, a)).__qualname__}, not a list"
           for a in ("nodes", "boundaries") if type(getattr(c, a)) is not list]
    assert not bad, "; ".join(bad)
    bad = [w for i, r in enumerate(c.nodes) for w in wrong_types(r, NODE_TYPES, f"nodes[{i}]")]
    bad += [w for i, r in enumerate(c.boundaries) for w in wrong_types(r, BOUNDARY_TYPES, f"boundaries[{i}]")]
    assert not bad, "report's rows are not of the types its docstring gives: " + "; ".join(bad[:4])
    return c


def summary(c, label: str) -> dict:
    """``c.summary(label)``, checked to be a dict of the keys and value types the docstring gives."""
    s = c.summary(label)
    bad = wrong_types(s, SUMMARY_TYPES, "summary")
    assert not bad, "Coverage.summary is not of the types its docstring gives: " + "; ".join(bad[:4])
    return s


def _node(op, ins, out, **attrs):
    return helper.make_node(op, ins, [out], name=out, **attrs)  # each node is named like its output


GRAPHS = {
    # MatMul (QNN) -> Erf (CPU) -> Relu, Add (QNN) -> Erf (CPU) -> Sigmoid (QNN): three partitions
    "refused_between": lambda: xy_model(
        [_node("MatMul", ["x", "W"], "mm"), _node("Erf", ["mm"], "erf"), _node("Relu", ["erf"], "relu"),
         _node("Add", ["relu", "B"], "add"), _node("Erf", ["add"], "erf2"), _node("Sigmoid", ["erf2"], "y")],
        [const("W", RNG.standard_normal((8, 8))), const("B", RNG.standard_normal(8))], [4, 8], [4, 8]),
    # all supported: one partition
    "supported": lambda: xy_model(
        [_node("MatMul", ["x", "W"], "mm"), _node("Add", ["mm", "B"], "add"), _node("Relu", ["add"], "y")],
        [const("W", RNG.standard_normal((8, 16))), const("B", RNG.standard_normal(16))], [4, 8], [4, 16]),
    # nothing QNN takes: ORT places every node on the CPU, no partition
    "refused_only": lambda: xy_model([_node("Erf", ["x"], "erf"), _node("Erf", ["erf"], "y")], [], [4, 8], [4, 8]),
    # Conv: ORT's layout pass renames it (conv_token_N) and adds Transposes; the one after the CPU's Erf
    # is a partition of its own that holds no node of the file
    "conv": lambda: xy_model(
        [_node("Conv", ["x", "Wc"], "conv", pads=[1, 1, 1, 1]), _node("Relu", ["conv"], "relu"),
         _node("Erf", ["relu"], "y")], [const("Wc", RNG.standard_normal((4, 3, 3, 3)))], [1, 3, 8, 8], [1, 4, 8, 8]),
    # exact GELU as (x * (1 + erf(x / sqrt 2))) * 0.5: QNN's GeluFusion takes the five nodes as one unit
    "gelu": lambda: xy_model(
        [_node("Mul", ["x", "inv_sqrt2"], "scaled"), _node("Erf", ["scaled"], "erf"),
         _node("Add", ["erf", "one"], "add"), _node("Mul", ["x", "add"], "mul"), _node("Mul", ["mul", "half"], "y")],
        [const("inv_sqrt2", 1 / np.sqrt(2)), const("one", 1.0), const("half", 0.5)], [4, 8], [4, 8]),
    # MatMul mm (QNN) -> Erf (CPU) -> Add d reading mm *and* the Erf (QNN), then the gelu graph's GELU and an Add of a
    # Constant node: two partitions, mm leaving the first and entering the second (a boundary row on each side); the
    # Constant is an initializer to ORT (never named in the log, not in the compiled model: QNN by the contract); Erf,
    # Add and Mul each run on QNN more than once, Erf on both sides; the CPU's Erf is named erf_token_9 in the file, a
    # name that ends like a layout-pass rename while the file also holds a node "erf" (QNN's, in the GELU)
    "mixed": lambda: xy_model(
        [helper.make_node("Constant", [], ["c"], name="c", value=const("cv", RNG.standard_normal(8))),
         _node("MatMul", ["x", "W"], "mm"), helper.make_node("Erf", ["mm"], ["e"], name="erf_token_9"),
         _node("Add", ["mm", "e"], "d"), _node("Mul", ["d", "inv_sqrt2"], "scaled"), _node("Erf", ["scaled"], "erf"),
         _node("Add", ["erf", "one"], "add"), _node("Mul", ["d", "add"], "mul"), _node("Mul", ["mul", "half"], "gelu"),
         _node("Add", ["gelu", "c"], "y")],
        [const("W", RNG.standard_normal((8, 8))), const("inv_sqrt2", 1 / np.sqrt(2)), const("one", 1.0),
         const("half", 0.5)], [4, 8], [4, 8]),
}


@functools.cache
def graph(name: str) -> onnx.ModelProto:
    return GRAPHS[name]()


@functools.cache
def compiled(name: str) -> dict:
    """What ORT compiled, read from the EP-context model: ``cpu`` (names of the file's nodes kept on
    the CPU: a kept node's own name, or the base of a ``_token_N`` name ORT's layout pass gave it) and
    ``partitions`` (``[(inputs, outputs)]`` of each EPContext node). A ``Constant`` node is in neither:
    ORT turns it into an initializer when it loads the graph."""
    model = graph(name)
    with tempfile.TemporaryDirectory(prefix="lab04ctx.") as tmp:
        out = Path(tmp) / "ctx.onnx"
        qnn.qnn_session(model, config={"ep.context_enable": "1", "ep.context_file_path": str(out),
                                       "ep.context_embed_mode": "1"}, **FP16)
        if not out.is_file():  # ORT writes no context model when QNN took nothing
            return {"cpu": {n.name for n in model.graph.node}, "partitions": []}
        ctx = onnx.load(str(out))
    names = {n.name for n in model.graph.node}
    kept = [n.name for n in ctx.graph.node if n.op_type != "EPContext"]
    return {"cpu": {k if k in names else base_name(k) for k in kept} & names,
            "partitions": [(list(n.input), list(n.output)) for n in ctx.graph.node if n.op_type == "EPContext"]}


@functools.cache
def cov(name: str):
    return checked(coverage(graph(name), **FP16))


def rows(name: str) -> dict[str, dict]:
    return {r["name"]: r for r in cov(name).nodes}


@pytest.mark.task("lab04.coverage", points=1)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_placement_is_what_ort_compiled(name):
    got = rows(name)
    truth = compiled(name)
    assert [r["name"] for r in cov(name).nodes] == [n.name for n in graph(name).graph.node]
    assert [r["index"] for r in cov(name).nodes] == list(range(len(graph(name).graph.node)))
    assert {n for n, r in got.items() if r["placement"] == "CPU"} == truth["cpu"]
    assert {n for n, r in got.items() if r["placement"] == "QNN"} == set(got) - truth["cpu"]
    assert all(r["op"] == n.op_type for r, n in zip(cov(name).nodes, graph(name).graph.node))


@pytest.mark.task("lab04.coverage", points=1)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_partitions_and_boundaries_are_what_ort_compiled(name):
    c = cov(name)
    s = summary(c, name)
    truth = compiled(name)
    assert s["partitions"] == len(truth["partitions"])
    want = sorted([("in", t) for ins, _ in truth["partitions"] for t in ins]
                  + [("out", t) for _, outs in truth["partitions"] for t in outs])
    assert sorted((b["direction"], b["tensor"]) for b in c.boundaries) == want
    assert s["boundary_tensors"] == len(want)
    # every QNN row names a partition, and a QNN node writing a partition's output is in that partition
    # (conv: the file's Erf writes y, but in the compiled graph ORT's Transpose after it does)
    by = rows(name)
    assert all(r["partition"] in range(s["partitions"]) for r in by.values() if r["placement"] == "QNN")
    assert all(r["partition"] is None for r in by.values() if r["placement"] == "CPU")
    writer = {n.output[0]: n.name for n in graph(name).graph.node}
    for b in c.boundaries:
        if b["direction"] == "out" and by.get(writer.get(b["tensor"]), {}).get("placement") == "QNN":
            assert by[writer[b["tensor"]]]["partition"] == b["partition"], b


@pytest.mark.task("lab04.coverage", points=1)
def test_verdicts_units_and_qnns_reasons():
    by = rows("refused_between")
    for name in ("erf", "erf2"):
        assert by[name]["validation"] == "FAILED" and REASON_ERF in by[name]["reason"], by[name]
        assert by[name]["unit"] == "OrtNodeUnit (Erf)"
    for name in ("mm", "relu", "add", "y"):
        assert by[name]["validation"] == "PASSED" and by[name]["reason"] == "", by[name]
    assert by["mm"]["unit"] == "OrtNodeUnit (MatMul)"
    s = summary(cov("refused_between"), "m")
    assert s["cpu_ops"] == "Erf x2" and s["first_reason"] == by["erf"]["reason"]
    gelu = rows("gelu")
    assert {r["unit"] for r in gelu.values()} == {"GeluFusion (Erf)"}
    assert {r["validation"] for r in gelu.values()} == {"PASSED"}
    s = summary(cov("gelu"), "g")
    assert s["cpu_ops"] == "-" and s["first_reason"] == "-"


@pytest.mark.task("lab04.coverage", points=2)
def test_flops_per_node_and_coverage_in_nodes_and_flops():
    # refused_between: MatMul 4x8 @ 8x8 = 2*4*8*8; five elementwise nodes of 4*8 elements each
    by = rows("refused_between")
    assert by["mm"]["flops"] == 512 and all(by[n]["flops"] == 32 for n in ("erf", "relu", "add", "erf2", "y"))
    s = summary(cov("refused_between"), "m")
    total, on = 512 + 5 * 32, 512 + 3 * 32
    assert (s["model"], s["nodes"], s["nodes_on_qnn"]) == ("m", 6, 4)
    assert s["coverage_nodes_pct"] == pytest.approx(100 * 4 / 6, abs=0.006)
    assert s["coverage_flops_pct"] == pytest.approx(100 * on / total, abs=6e-4)
    assert s["gflops"] == pytest.approx(total / 1e9, abs=6e-5)
    # conv: 2 * (1*4*8*8 outputs) * (3 in-channels * 3 * 3); Relu and Erf 1*4*8*8 each
    by = rows("conv")
    conv = 2 * 256 * 27
    assert (by["conv"]["flops"], by["relu"]["flops"], by["y"]["flops"]) == (conv, 256, 256)
    s = summary(cov("conv"), "c")
    assert s["coverage_flops_pct"] == pytest.approx(100 * (conv + 256) / (conv + 512), abs=6e-4)
    assert s["coverage_nodes_pct"] == pytest.approx(100 * 2 / 3, abs=0.006)
    s = summary(cov("supported"), "s")
    assert (s["coverage_nodes_pct"], s["coverage_flops_pct"]) == (100.0, 100.0)


@pytest.mark.task("lab04.coverage", points=1)
def test_a_graph_qnn_takes_nothing_of():
    c = cov("refused_only")
    assert [(r["placement"], r["partition"], r["validation"]) for r in c.nodes] == [("CPU", None, "FAILED")] * 2
    s = summary(c, "r")
    assert (s["nodes"], s["nodes_on_qnn"], s["coverage_nodes_pct"], s["coverage_flops_pct"]) == (2, 0, 0.0, 0.0)
    assert (s["partitions"], s["boundary_tensors"], s["boundary_mib"], s["cpu_ops"]) == (0, 0, 0.0, "Erf x2")
    assert REASON_ERF in s["first_reason"]


@pytest.mark.task("lab04.coverage", points=1)
def test_boundary_rows_say_what_is_on_the_other_side():
    c = cov("refused_between")
    b = {(r["direction"], r["tensor"]): r for r in c.boundaries}
    assert b[("in", "x")]["other_side"] == "graph input" and b[("out", "y")]["other_side"] == "graph output"
    assert b[("out", "mm")]["other_side"] == "CPU erf" and b[("in", "erf")]["other_side"] == "CPU erf"
    assert b[("out", "add")]["other_side"] == "CPU erf2" and b[("in", "erf2")]["other_side"] == "CPU erf2"
    assert {(r["shape"], r["dtype"], r["bytes"]) for r in c.boundaries} == {("4x8", "float32", 128)}  # 32 floats
    assert summary(c, "m")["boundary_mib"] == round(6 * 128 / 2**20, 3)


@pytest.mark.task("lab04.coverage", points=1)
def test_summary_counts_nodes_not_op_types_a_constant_included_and_both_sides_of_a_shared_boundary():
    """The mixed graph's summary, counted by hand from the graph (placements as ORT compiled them, checked by the
    parametrized tests): 10 rows, one per main-graph node, the ``Constant`` one included (QNN: ORT never places it
    on the CPU); 9 of them on QNN, counted by node (three Adds, three Muls and an Erf of them share op types: 5 op
    types on QNN); FLOPs 2*4*8*8 for the MatMul, 4*8 for each of the 8 elementwise nodes, 0 for the Constant, the
    CPU's Erf 32 of 768; the boundary rows are the EP-context nodes' inputs and outputs, ``mm`` counted on both
    sides (out of partition 0, into partition 1: the docstring's NPU -> host -> NPU), 5 rows of 4x8 float32."""
    c = cov("mixed")
    by = rows("mixed")
    assert (by["c"]["op"], by["c"]["placement"], by["c"]["flops"]) == ("Constant", "QNN", 0), by["c"]
    s = summary(c, "mixed")
    assert (s["nodes"], s["nodes_on_qnn"]) == (10, 9), (s["nodes"], s["nodes_on_qnn"])
    assert s["coverage_nodes_pct"] == pytest.approx(90.0, abs=1e-9)
    assert s["coverage_flops_pct"] == pytest.approx(round(100 * 736 / 768, 3), abs=1e-9)  # 95.833
    assert (s["partitions"], s["boundary_tensors"], s["cpu_ops"]) == (2, 5, "Erf x1")
    assert [(b["direction"], b["partition"]) for b in c.boundaries if b["tensor"] == "mm"] == [("out", 0), ("in", 1)]
    assert s["boundary_mib"] == pytest.approx(round(5 * 128 / 2**20, 3), abs=1e-9)  # 0.001 (4 rows would be 0.0)


@pytest.mark.task("lab04.coverage", points=1)
def test_report_of_a_log_without_qnn_lines():
    """No session needed: a log in which ORT placed nothing on the QNN EP (here: an empty one) puts
    every node on the CPU, none validated, none in a partition."""
    model = graph("refused_between")
    c = checked(report(model, ""))
    assert [(r["name"], r["placement"], r["partition"], r["validation"], r["unit"], r["reason"]) for r in c.nodes] == \
        [(n.name, "CPU", None, "not logged", "-", "") for n in model.graph.node]
    assert [r["flops"] for r in c.nodes] == [512] + [32] * 5
    s = summary(c, "empty log")
    assert (s["nodes_on_qnn"], s["partitions"], s["boundary_tensors"], s["first_reason"]) == (0, 0, 0, "-")
    assert s["cpu_ops"] == "Erf x2, MatMul x1, Relu x1, Add x1, Sigmoid x1"


@pytest.mark.task("lab04.coverage", points=1)
def test_summary_of_hand_made_rows_in_the_gflop_range():
    """``Coverage.summary``'s formulas (its docstring) on rows whose FLOPs do not all round to 0: GFLOP/s counts every
    row, CPU ones included; the FLOP coverage is the QNN rows' share; a boundary of unknown bytes counts 0; the first
    reason is the first non-empty one of a CPU row."""
    rows = full_rows([{"op": "MatMul", "placement": "QNN", "flops": 3e9, "partition": 0, "reason": ""},
                      {"op": "Erf", "placement": "CPU", "flops": 1e9, "partition": None, "reason": "Erf is not supported"},
                      {"op": "Mod", "placement": "CPU", "flops": 0, "partition": None, "reason": ""},
                      {"op": "Erf", "placement": "CPU", "flops": 0, "partition": None, "reason": "again"}])
    cov = Coverage(onnx.ModelProto(), nodes=rows, boundaries=[_boundary(0, 3 * 2**19), _boundary(0, None)])
    got = cov.summary("m")
    want = {"model": "m", "nodes": 4, "nodes_on_qnn": 1, "coverage_nodes_pct": 25.0, "gflops": 4.0,
            "coverage_flops_pct": 75.0, "partitions": 1, "boundary_tensors": 2, "boundary_mib": 1.5,
            "cpu_ops": "Erf x2, Mod x1", "first_reason": "Erf is not supported"}
    wrong = {k: f"{got.get(k, '(missing)')!r}, expected {want[k]!r}" for k in want if got.get(k) != want[k]}
    extra = sorted(set(got) - set(want))
    assert not wrong and not extra, f"summary keys wrong: {wrong}" + (f"; keys not in the contract: {extra}" if extra else "")
    # first_reason is the first non-empty reason *of a CPU row*: past a CPU row without one (a node QNN never logged,
    # as in an empty log), and never a QNN row's (hand-made rows may carry any text)
    rows = full_rows([{"op": "Add", "placement": "QNN", "flops": 0, "partition": 0, "reason": "a QNN row's note"},
                      {"op": "Mod", "placement": "CPU", "flops": 0, "partition": None, "reason": ""},
                      {"op": "Erf", "placement": "CPU", "flops": 0, "partition": None, "reason": "Erf is not supported"},
                      {"op": "Erf", "placement": "CPU", "flops": 0, "partition": None, "reason": "again"}])
    got = summary(Coverage(onnx.ModelProto(), nodes=rows, boundaries=[]), "m")
    assert got["first_reason"] == "Erf is not supported", got["first_reason"]


def placed_on_cpu(log: str, *entries: str) -> str:
    """``log`` (a real session's) with ORT's CPU placement list replaced by ``entries`` (``"Erf (erf)"``
    lines, as ``session_state.cc`` writes them) and its count set to match."""
    lines, out, head = log.splitlines(), [], None
    for line in lines:
        if "Node(s) placed on [CPUExecutionProvider]" in line:
            head = line.split("VerifyEachNodeIsAssignedToAnEp]")[0] + "VerifyEachNodeIsAssignedToAnEp]"
            out.append(line.rsplit(":", 1)[0] + f": {len(entries)}")
            out += [f"{head}   {e}" for e in entries]
        elif not (head and "VerifyEachNodeIsAssignedToAnEp]   " in line):
            out.append(line)
    assert head, "the session's log has no CPU placement list to edit"
    return "\n".join(out) + "\n"


@pytest.mark.task("lab04.coverage", points=1)
def test_cpu_rows_from_an_edited_log_token_names_and_passed_nodes_left_on_the_cpu():
    """Two placements the contract names that no small graph here makes ORT write, on the refused_between
    session's own log with its CPU list edited: a node QNN validated (``y``, PASSED) that ORT's partitioning
    left on the CPU gets the stated reason; a CPU entry under a ``_token_N`` name (ORT's layout pass renames
    the nodes it rewrites, as in the conv graph) is the file's node of the base name."""
    model, log = graph("refused_between"), cov("refused_between").session.log
    c = checked(report(model, placed_on_cpu(log, "Erf (erf_token_7)", "Erf (erf2)", "Sigmoid (y)")))
    by = {r["name"]: r for r in c.nodes}
    assert {n for n, r in by.items() if r["placement"] == "CPU"} == {"erf", "erf2", "y"}
    assert all(by[n]["partition"] is None for n in ("erf", "erf2", "y"))
    assert (by["y"]["validation"], by["y"]["reason"]) == \
        ("PASSED", "validated by QNN, left on the CPU by ORT's partitioning"), by["y"]
    assert REASON_ERF in by["erf"]["reason"] and by["erf"]["validation"] == "FAILED", by["erf"]
    assert summary(c, "edited")["cpu_ops"] == "Erf x2, Sigmoid x1"


def _row(op: str, placement: str, flops: int) -> dict:
    return {"op": op, "placement": placement, "flops": flops, "partition": 0 if placement == "QNN" else None,
            "reason": ""}


def full_rows(rows: list[dict]) -> list[dict]:
    """Hand-made node rows with every key ``Coverage.nodes`` promises (index, name, op, placement, partition,
    validation, unit, reason, flops): a summary may read any of them (the graph order from ``index``, say)."""
    return [{"index": i, "name": f"{r['op'].lower()}_{i}", "validation": "not logged", "unit": "-", **r}
            for i, r in enumerate(rows)]


def _boundary(partition: int, nbytes: int | None) -> dict:
    """A hand-made boundary row with every key ``Coverage.boundaries`` promises."""
    return {"partition": partition, "direction": "in", "tensor": f"t{partition}_{nbytes}", "shape": "?", "dtype": "?",
            "bytes": nbytes, "other_side": "graph input"}


@pytest.mark.task("lab04.coverage", points=1)
def test_summary_of_no_rows_of_no_flops_and_gflops_to_four_decimals():
    """The docstring's edge cases: no node (a graph folded away) and no FLOPs (only Reshapes and Transposes) give
    0 % coverage, not a division by zero; ``gflops`` keeps 4 decimals (1,234,567,890 FLOPs: 1.2346)."""
    empty = summary(Coverage(onnx.ModelProto(), nodes=[], boundaries=[]), "empty")
    assert (empty["nodes"], empty["coverage_nodes_pct"], empty["coverage_flops_pct"], empty["cpu_ops"]) == (0, 0, 0, "-")
    s = summary(Coverage(onnx.ModelProto(), nodes=full_rows([_row("Reshape", "QNN", 0), _row("Transpose", "CPU", 0)]),
                         boundaries=[]), "no flops")
    assert (s["coverage_nodes_pct"], s["coverage_flops_pct"], s["gflops"]) == (50.0, 0, 0.0)
    s = summary(Coverage(onnx.ModelProto(), nodes=full_rows([_row("MatMul", "QNN", 1_234_567_890)]), boundaries=[]), "m")
    assert s["gflops"] == 1.2346


@pytest.mark.task("lab04.coverage", points=1)
def test_summary_rounds_as_stated_and_counts_distinct_partitions_of_rows_without_a_log():
    """Hand-made rows (``log`` None) whose shares do not terminate: 4 QNN rows of 6 give 66.67 % of nodes (2
    decimals: not 66.667, not 66.6666...), 1e9 QNN FLOPs of 3e9 give 33.333 % (3 decimals: not 33.33, not 33.3333...);
    without a log the partitions are the *distinct non-None* partition values of the QNN rows: {2, 5} is 2 (not 3
    with the None of a QNN row _partitions could not place, not 6 from the largest index, not 1 for "any")."""
    rows = full_rows([{"op": "MatMul", "placement": "QNN", "flops": 10**9, "partition": 2, "reason": ""},
                      {"op": "Add", "placement": "QNN", "flops": 0, "partition": None, "reason": ""},
                      {"op": "Erf", "placement": "CPU", "flops": 10**9, "partition": None, "reason": "no"},
                      {"op": "Add", "placement": "QNN", "flops": 0, "partition": 5, "reason": ""},
                      {"op": "Erf", "placement": "CPU", "flops": 10**9, "partition": None, "reason": "no"},
                      {"op": "Relu", "placement": "QNN", "flops": 0, "partition": 2, "reason": ""}])
    s = summary(Coverage(onnx.ModelProto(), nodes=rows, boundaries=[]), "m")
    assert (s["nodes"], s["nodes_on_qnn"], s["gflops"]) == (6, 4, 3.0)
    assert s["coverage_nodes_pct"] == pytest.approx(66.67, abs=1e-9), s["coverage_nodes_pct"]
    assert s["coverage_flops_pct"] == pytest.approx(33.333, abs=1e-9), s["coverage_flops_pct"]
    assert s["partitions"] == 2, s["partitions"]


def test_a_boundary_tensor_the_layout_pass_renamed_has_its_originals_shape_bytes_and_other_side():
    """Around a Conv, ORT's layout pass crosses partitions with tensors the file does not hold (``relu_token_5``, the
    NHWC transpose of ``relu``): the given ``_boundaries`` reads their dtype, shape and bytes (a transpose keeps
    them) and the other side off the original, so ``boundary_mib`` counts them (a student's run of the handout
    found them as ``?`` / ``None``). Ungraded: the rows are given code."""
    c = cov("conv")
    renamed = [b for b in c.boundaries if base_name(b["tensor"]) != b["tensor"]]
    assert renamed, "the conv graph no longer crosses a partition with a renamed tensor"
    for b in c.boundaries:
        dims = [int(d) for d in b["shape"].split("x")]
        assert (b["dtype"], b["bytes"]) == ("float32", int(np.prod(dims)) * 4), b
        assert b["other_side"] not in ("-", "?"), b


@pytest.mark.task("lab04.coverage", points=1)
def test_reasons_are_qnns_reason_lines_verbatim():
    """A refused node's ``reason`` is QNN's ``REASON`` line verbatim (the docstring), read here from the session's own
    log with a regular expression of its two lines (``Node name: <node> ...`` then ``REASON : <text>``), not through
    ``qnnlog``: the whole text, both of its sentences, and ``first_reason`` is the first CPU row's."""
    for name in ("refused_between", "conv"):
        c = cov(name)
        logged = dict(re.findall(r"Node name: (\S+) Node index: \d+\s*\n\s*REASON : ([^\n]*)", c.session.log))
        refused = [r for r in c.nodes if r["validation"] == "FAILED"]
        assert refused and all(r["name"] in logged for r in refused), (name, sorted(logged), [r["name"] for r in refused])
        for r in refused:
            assert r["reason"] == logged[r["name"]].strip(), (name, r["reason"], logged[r["name"]])
        assert summary(c, name)["first_reason"] == next(r["reason"] for r in c.nodes if r["placement"] == "CPU")
