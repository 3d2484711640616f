"""The release gate on the real course (:mod:`common.course.gate`): the proof that the tests grade.

One run of ``python -m common.course gate --json`` (one warm interpreter, a fork per graded run; about
60 runs, beside the rest of the suite: ``conftest.py``) feeds the tests below, one per clause: (a) the handout's graded tests are all "not implemented"
and its other tests pass or skip, (b) the reference gets full marks with points that add up, (c) each
Lab 01 task stubbed alone scores 0 while the others keep full marks (every lab:
``python -m common.course gate --all``), (d) the leak scan finds nothing, (e) each known-wrong submission
loses points on its own task (graded alone here; ``--all`` grades its whole lab: the other tasks keep full marks).
"""
from __future__ import annotations

import json

import pytest

from common.course import gate
from common.course.grade import Reference
from common.course.tasks import load_course
from common.course.fixtures import PROJECT
from common.errors import UserError


@pytest.fixture(scope="module")
def findings(gate_run):
    run, out = gate_run  # started when collection ended, beside the rest of the suite (conftest.py)
    assert out.is_file(), f"the gate wrote no findings (exit {run.returncode}):\n{run.stdout}\n{run.stderr}"
    data = json.loads(out.read_text())
    data["exit"] = run.returncode
    data["text"] = run.stdout
    return data


@pytest.fixture(scope="module")
def course():
    return load_course(PROJECT)


def _scenario(findings, name, lab):
    (s,) = [s for s in findings["scenarios"] if s["name"] == name and s["lab"] == lab]
    return s


def _problems(findings, *prefixes):
    return [p for p in findings["problems"] if p.startswith(prefixes)]


def test_gate_passes_as_a_whole(findings):
    assert findings["exit"] == 0 and findings["problems"] == [], findings["text"]
    print(f"release gate: {findings['seconds']} s")


def test_a_handout_graded_tests_are_not_implemented_and_the_rest_passes(findings, course):
    assert _problems(findings, "handout") == []
    own = _scenario(findings, "handout: its own tests", "all")
    assert own["graded"] >= 60 and own["ungraded"] >= 5
    assert set(own["ungraded_outcomes"]) <= {"passed", "skipped", "needs_task"}
    for lab in course.labs:
        s = _scenario(findings, "handout as a submission", lab.dir)
        assert s["scores"] == {t.id: 0 for t in lab.tasks}


def test_b_reference_full_marks(findings, course):
    assert _problems(findings, "reference") == []
    for lab in course.labs:
        s = _scenario(findings, "reference", lab.dir)
        assert s["scores"] == {t.id: t.points for t in lab.tasks}


def test_c_one_task_stubbed_scores_zero_and_the_others_full(findings, course):
    assert findings["stubbed_labs"] == ["lab01_onnx"]
    lab = course.lab("lab01")
    for t in lab.tasks:
        s = _scenario(findings, f"{t.id} stubbed", lab.dir)
        assert s["scores"] == {u.id: (0 if u.id == t.id else u.points) for u in lab.tasks}


def test_d_leak_scan_is_clean(findings):
    assert _problems(findings, "leak") == []


def test_e_each_wrong_submission_loses_on_its_task(findings, course):
    wrongs = gate.load_wrong(Reference.load(PROJECT))
    assert {w.task for w in wrongs} == set(course.tasks)  # at least one per task
    for w in wrongs:
        t = course.tasks[w.task]
        s = _scenario(findings, f"wrong: {w.name}", t.lab)
        assert set(s["scores"]) == {w.task}, (w.name, s["scores"])  # graded alone (--all: its whole lab)
        assert s["scores"][w.task] < t.points, (w.name, s["scores"])


def test_a_wrong_edit_outside_its_task_is_refused(tmp_path):
    ref = Reference.load(PROJECT)
    (tmp_path / "x.toml").write_text('task = "lab01.gather"\nwhy = "x"\n[[edit]]\nfile = "lab01_onnx/passes/gather.py"\n'
                                     'old = "MAX_FOLD_ELEMENTS = 1 << 20"\nnew = "MAX_FOLD_ELEMENTS = 1"\n')
    with pytest.raises(UserError, match=r"is not inside a solution block of lab01.gather"):
        gate.load_wrong(ref, tmp_path)


def test_a_wrong_edit_that_does_not_compile_is_refused(tmp_path):
    """A known-wrong submission that is a SyntaxError would lose its points for failing to import, whatever its
    rule: the gate refuses it (an edit once put a statement inside the reference's ``try:``)."""
    import tomllib
    ref = Reference.load(PROJECT)
    src = sorted((PROJECT / "common/course/wrong").glob("lab01.gather--*.toml"))[0]
    (edit,) = tomllib.loads(src.read_text())["edit"][:1]
    broken = {**edit, "new": edit["new"] + "\n(\n"}  # an unclosed parenthesis after the edited lines
    lines = ['task = "lab01.gather"', 'why = "x"', "[[edit]]"] + [f"{k} = {json.dumps(v)}" for k, v in broken.items()]
    (tmp_path / "x.toml").write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=r"wrong/x.toml: the edited lab01_onnx/passes/gather.py does not compile"):
        gate.load_wrong(ref, tmp_path)
    (tmp_path / "x.toml").write_text("\n".join(lines[:3] + [f"{k} = {json.dumps(v)}" for k, v in edit.items()]) + "\n")
    assert [w.name for w in gate.load_wrong(ref, tmp_path)] == ["x"]  # the same edit, compiling, is taken
