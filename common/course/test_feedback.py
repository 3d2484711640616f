"""Feedback a student can act on (:mod:`common.course.feedback`): the counterexample in the grade report.

On the demo course: a graded property that raises a :class:`Counterexample` puts its report, shrunk by
the grade profile, into the record with the command that replays it. On Lab 01: the known-wrong Gather
fold (``wrong/lab01.gather--negative-index-off-by-one.toml``) graded alone; its report shows the shrunk
graph, expected and actual outputs and the first diverging node, and ``extra_data`` holds the seed.
"""
from __future__ import annotations

import json
import re

import numpy as np
import onnx
import onnx.parser
import pytest
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

from common.course import gate, grade
from common.course.feedback import MAX_FEEDBACK_CHARS, Counterexample, feedback, find
from common.course.fixtures import MOD, PROJECT, TESTS, make_course, run_pytest_in

PROPERTY = TESTS + '''

from hypothesis import given, strategies as st

from common.course.feedback import Counterexample


@pytest.mark.task("lab09.double", points=1)
@given(st.integers(0, 10**6))
def test_double_property(x):
    got = mod.double(x)
    if got != 2 * x:
        raise Counterexample(f"double({x}) = {got}, want {2 * x}")
'''
#: The demo's double, wrong from 1000 on: the smallest failing input is 1000.
BUGGY = MOD.replace("    return 2 * x\n", "    return 2 * x if x < 1000 else 2 * x + 1\n")


def test_find_and_feedback_look_through_causes_groups_and_notes():
    ce = Counterexample("the case\nexpected 1, got 2")
    ce.add_note("Falsifying example: f(x=1)")
    try:
        raise RuntimeError("wrapped") from ce
    except RuntimeError as exc:
        wrapped = exc
    group = ExceptionGroup("two", [ValueError("no"), wrapped])
    assert find(group) is ce and find(ValueError("no")) is None
    assert feedback(group) == "the case\nexpected 1, got 2\nFalsifying example: f(x=1)"
    assert feedback(AssertionError("plain")) == ""
    long = feedback(Counterexample("\n".join("x" * 99 for _ in range(100))))
    assert len(long) <= MAX_FEEDBACK_CHARS + 40 and long.endswith("more characters cut)")


def test_grade_profile_shrinks_a_property_and_the_record_says_how_to_replay(tmp_path):
    root = make_course(tmp_path, mod=BUGGY, tests=PROPERTY)
    report = tmp_path / "r.jsonl"
    run = run_pytest_in(root, "--task", "lab09.double", f"--task-report={report}", "--hypothesis-seed=0",
                        "--hypothesis-profile=course-grade", "-q")
    records = {r["nodeid"].split("::")[1]: r for r in map(json.loads, report.read_text().splitlines())
               if r["kind"] == "item"}
    prop = records["test_double_property"]
    assert prop["outcome"] == "failed", run.stdout
    assert prop["message"] == "Counterexample: double(1000) = 2001, want 2000"  # shrunk to the boundary
    assert prop["feedback"].startswith("double(1000) = 2001, want 2000\n") and "x=1000" in prop["feedback"]
    assert prop["hypothesis"] is True and prop["replay"] == (
        ".venv/bin/python -m pytest lab09_demo/test_mod.py::test_double_property --hypothesis-seed=0 --hypothesis-profile=course-grade")
    assert records["test_double"]["outcome"] == "passed"  # double(3) is below the bug


@pytest.fixture(scope="module")
def wrong_gather(tmp_path_factory):
    """The known-wrong Gather fold graded alone (one lab, one task): (results.json, results.md)."""
    tmp = tmp_path_factory.mktemp("feedback")
    ref = grade.Reference.load(PROJECT)
    (w,) = [w for w in gate.load_wrong(ref) if w.name == "lab01.gather--negative-index-off-by-one"]
    texts = {}
    for f, old, new in w.edits:
        texts[f] = texts.get(f, (ref.course.root / f).read_text()).replace(old, new, 1)
    sub = gate._submission(ref.course, tmp / "sub", texts)
    (g,) = grade.grade(ref, sub, tmp / "out", tasks=[w.task], timeout_s=gate.GATE_TIMEOUT_S)
    assert g.report == tmp / "out" / "lab01_onnx" / "results-lab01.gather"  # a narrowed grade's own report
    return json.loads(g.report.with_name(g.report.name + ".json").read_text()), \
        g.report.with_name(g.report.name + ".md").read_text()


PROP = "lab01_onnx/test_lab.py::test_gather_fold_matches_reference_evaluator"


def _block(output: str, nodeid: str) -> str:
    """The feedback block of one test in a task's output (blocks are separated by blank lines)."""
    (block,) = [b for b in output.split("\n\n") if b.startswith(f"{nodeid} (")]
    return block


def test_wrong_gather_report_shows_the_shrunk_graph_outputs_and_divergence(wrong_gather):
    data, md = wrong_gather
    (entry,) = data["tests"]  # one task graded
    assert entry["extra_data"]["task"] == "lab01.gather" and 0 < entry["score"] < entry["max_score"]
    block = _block(entry["output"], PROP)
    assert "fold_constant_gather broke the pass contract (output_mismatch)" in block
    # the counterexample: onnx.printer text that parses back into the graph the property tested
    text = block.split("Counterexample: the pass's input (onnx.printer)\n", 1)[1].split("\n    Inputs:", 1)[0]
    model = onnx.parser.parse_model("\n".join(line[8:] for line in text.splitlines()))
    assert [n.op_type for n in model.graph.node] == ["Gather", "Neg"]
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert (inits["idx"] < 0).any()  # the bug only touches negative indices: the case must have one
    assert inits["data"].size <= 4  # shrunk: a handful of values, not what generation happened to draw
    # expected: the input graph under onnx.reference, computed here independently
    want = ReferenceEvaluator(model).run(None, {})[0]
    assert np.array_equal(want, -np.take(inits["data"], inits["idx"], axis=0))
    m = re.search(r"Expected outputs \(the input graph under onnx.reference\)\n\s+y: (\S+) (\[.*?\]) = (.+)", block)
    assert m and m.group(1) == str(want.dtype) and np.isclose(float(m.group(3).strip("[]")), want.ravel()[0])
    assert "Actual outputs (the pass's result under onnx.reference)" in block
    # the first diverging node: the Neg that reads the folded value, writing the graph output y
    assert re.search(r"First diverging node \(lab01_onnx.divergence, exact\): Neg \(unnamed, node 0 of the "
                     r"result\), output 'y'", block), block
    assert "Folded value that differs: initializer 'g' of the result" in block
    assert "a hidden test (not in your handout)" in block
    assert "## 1.3 Fold constant Gathers: counterexamples" in md and "First diverging node" in md


def test_wrong_gather_extra_data_holds_the_seed_and_the_replay_command(wrong_gather):
    data, _ = wrong_gather
    (entry,) = data["tests"]
    extra = entry["extra_data"]
    assert extra["hypothesis_seed"] == 0 == data["extra_data"]["hypothesis_seed"]
    assert extra["replay"] == f".venv/bin/python -m pytest {PROP} --hypothesis-seed=0 --hypothesis-profile=course-grade"
    tests = {t["nodeid"]: t for t in extra["tests"]}
    assert tests[PROP]["outcome"] == "failed" and tests[PROP]["hidden"] is True
    public = "lab01_onnx/test_lab.py::test_gather_out_of_range_is_not_folded"
    assert tests[public] == {"nodeid": public, "points": 1, "outcome": "passed"}  # in-range bound kept
