"""The grader (:mod:`common.course.grade`, ``make grade``) on the demo course: scores, files, robustness."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from common.course import grade, release
from common.course.fixtures import make_course, make_demo, run_course, run_pytest_in

TOP = {"score", "execution_time", "output", "output_format", "visibility", "stdout_visibility", "extra_data", "tests"}
TEST = {"name", "number", "score", "max_score", "status", "output", "tags", "visibility", "extra_data"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo(tmp_path_factory.mktemp("grade"))


def _submission(demo, tmp_path, edit=None):
    """The handout with the solutions written in (``edit(text) -> text`` changes mod.py further)."""
    ref, handout = demo
    sub = tmp_path / "sub"
    shutil.copytree(handout, sub)
    text = (ref / "lab09_demo/mod.py").read_text()
    (sub / "lab09_demo/mod.py").write_text(edit(text) if edit else text)
    return sub


def test_full_marks_and_gradescope_files(demo, tmp_path):
    ref, _ = demo
    out = tmp_path / "out"
    (g,) = grade.grade(ref, _submission(demo, tmp_path), out)
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 4} and g.ignored == []
    data = json.loads((out / "lab09_demo/results.json").read_text())
    assert set(data) == TOP and data["score"] == 8 and data["extra_data"]["hypothesis_seed"] == 0
    assert data["extra_data"]["review"] == [] and g.review == []  # nothing for a human to look at
    assert [set(t) for t in data["tests"]] == [TEST, TEST]
    assert [(t["number"], t["score"], t["max_score"], t["status"]) for t in data["tests"]] == [
        ("9.1", 4, 4, "passed"), ("9.2", 4, 4, "passed")]
    assert data["tests"][1]["tags"] == ["lab09", "lab09.inc"]
    md = (out / "lab09_demo/results.md").read_text()
    assert md.index("| 9.1 |") < md.index("| 9.2 |") and "| | **total** | **8** | **8** |" in md
    assert not re.search(r"\d\d:\d\d|\b20\d\d-\d\d-\d\d", md)  # no timestamps


def test_handout_scores_zero_and_hidden_tests_count(demo, tmp_path):
    ref, handout = demo
    (g,) = grade.grade(ref, handout)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    inc = g.tasks[1]
    assert {r["nodeid"].split("::")[1] for r in inc.items} == {"test_inc", "test_inc_hidden"}
    assert all(r["outcome"] == "not_implemented" for r in inc.items)
    assert "not implemented yet: 2 graded test(s), 4 points" in inc.output()


def test_a_wrong_task_loses_only_its_own_points(demo, tmp_path):
    ref, _ = demo
    (g,) = grade.grade(ref, _submission(demo, tmp_path, lambda t: t.replace("return x + 1", "return x + 2")))
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 0}
    assert "test_inc (3 pt): failed: AssertionError: assert 3 == 2" in g.tasks[1].output()


def test_syntax_error_scores_zero_with_its_first_line_and_the_report_is_written(demo, tmp_path):
    ref, _ = demo
    out = tmp_path / "out"
    sub = _submission(demo, tmp_path, lambda t: t + "\ndef broken(:\n")
    (g,) = grade.grade(ref, sub, out)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    data = json.loads((out / "lab09_demo/results.json").read_text())
    assert "lab09_demo/mod.py does not compile: SyntaxError: invalid syntax (lab09_demo/mod.py, line" in \
        data["tests"][0]["output"]


def test_own_conftest_and_edited_tests_are_ignored_and_listed(demo, tmp_path):
    ref, _ = demo
    sub = _submission(demo, tmp_path, lambda t: t.replace("return x + 1", "return x + 2"))
    (sub / "conftest.py").write_text("import pytest\n\n\n@pytest.fixture(autouse=True)\ndef cheat():\n    pass\n")
    tests = sub / "lab09_demo/test_mod.py"
    given = tests.read_text()
    edited = given.replace("assert mod.Box().inc(1) == 2", "assert mod.Box().inc(1) == 3  # fitted to the bug")
    assert edited != given  # the cheat really edits the given test (which the wrong inc would then pass)
    tests.write_text(edited)
    (g,) = grade.grade(ref, sub)
    assert g.ignored == ["conftest.py (not a student file)", "lab09_demo/test_mod.py (differs from the course's copy, which is used)"]
    assert g.scores()["lab09.inc"] == 0  # the reference's tests ran, not the edited ones
    # a submission that is a git repository (a handout is one) lists its untracked files too
    import subprocess
    git = ["git", "-C", str(sub), "-c", "user.name=s", "-c", "user.email=s@x.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "lab09_demo"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "work"], check=True)
    (g,) = grade.grade(ref, sub)
    assert g.ignored == ["conftest.py (not a student file)", "lab09_demo/test_mod.py (differs from the course's copy, which is used)"]


def test_a_helper_module_the_student_added_is_named_where_a_task_imports_it(demo, tmp_path):
    """Only task files are taken: a task file that imports a helper the student wrote beside it fails with
    Python's ModuleNotFoundError, and the task's notes say which file and why (the task scores 0 all the same)."""
    ref, _ = demo
    sub = _submission(demo, tmp_path, lambda t: "from lab09_demo.helper import one\n" + t.replace(
        "return x + 1", "return x + one()"))
    (sub / "lab09_demo/helper.py").write_text("def one():\n    return 1\n")
    (g,) = grade.grade(ref, sub)
    assert "lab09_demo/helper.py (not a student file)" in g.ignored and g.scores()["lab09.inc"] == 0
    out = g.tasks[1].output()
    assert "failed importing lab09_demo/helper.py, a file of the submission that is not a task file" in out
    assert "takes only task files (lab09_demo/mod.py)" in out


def test_missing_student_file_scores_the_stub_not_the_solution(demo, tmp_path):
    ref, _ = demo
    sub = _submission(demo, tmp_path)
    (sub / "lab09_demo/mod.py").unlink()
    (g,) = grade.grade(ref, sub)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert "lab09_demo/mod.py is not in the submission (graded as the handout's stub)" in g.tasks[0].output()
    assert grade.results_json(g)["extra_data"]["review"] == [grade.NO_TASK_FILE]  # an empty upload: not a silent 0


def test_cli_grades_and_bad_input_is_one_line(demo, tmp_path):
    ref, _ = demo
    sub = _submission(demo, tmp_path)
    run = run_course("--root", str(ref), "grade", str(sub), "--out", str(tmp_path / "out"), "--timeout", "30")
    assert run.returncode == 0 and "lab09_demo: 8/8 points" in run.stdout, run.stdout + run.stderr
    assert "warning:" not in run.stderr, run.stderr  # nothing to review
    bad = run_course("--root", str(ref), "grade", str(tmp_path / "nope"))
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        f"error: no submission folder {tmp_path / 'nope'}: give the folder holding the lab files"]


def test_cli_finds_a_nested_submission_warns_on_an_empty_one_and_keeps_the_full_report(demo, tmp_path):
    """A repository zipped one folder down is graded where its files are (one line says so); a folder holding no
    task file is named in a warning; ``--out`` that is a file is refused before any test runs; a one-task regrade
    writes its own report beside the lab's full one."""
    ref, _ = demo
    nested = tmp_path / "alice"
    shutil.copytree(_submission(demo, tmp_path), nested / "repo-main")
    out = tmp_path / "out"
    run = run_course("--root", str(ref), "grade", str(nested), "--out", str(out), "--timeout", "30")
    assert run.returncode == 0 and "lab09_demo: 8/8 points" in run.stdout, run.stdout + run.stderr
    assert "submission: the handout's layout found in repo-main/" in run.stderr
    full = (out / "lab09_demo/results.json").read_text()
    run = run_course("--root", str(ref), "grade", str(nested), "--out", str(out), "--task", "9.1", "--timeout", "30")
    assert run.returncode == 0 and "results-lab09.double.json" in run.stdout, run.stdout + run.stderr
    assert (out / "lab09_demo/results.json").read_text() == full  # the full report stays
    assert json.loads((out / "lab09_demo/results-lab09.double.json").read_text())["score"] == 4
    (tmp_path / "empty").mkdir()
    run = run_course("--root", str(ref), "grade", str(tmp_path / "empty"), "--out", str(out / "e"), "--timeout", "30")
    assert run.returncode == 0 and "lab09_demo: 0/8 points" in run.stdout
    assert f"warning: {tmp_path / 'empty'} holds none of the task files graded here" in run.stderr
    # after the scores, one line per review reason (results.json's extra_data.review); the grade was made: exit 0
    assert run.stderr.splitlines()[-1] == "warning: lab09_demo: no task file of this lab in the submission", run.stderr
    assert json.loads((out / "e/lab09_demo/results.json").read_text())["extra_data"]["review"] == [grade.NO_TASK_FILE]
    (tmp_path / "file").write_text("x")
    run = run_course("--root", str(ref), "grade", str(nested), "--out", str(tmp_path / "file"))
    assert run.returncode == 2 and run.stderr.strip().splitlines() == [
        f"error: --out {tmp_path / 'file'} is a file: give a folder"], run.stderr


def test_inside_a_handout_the_grade_is_a_preview_on_the_public_tests(demo, tmp_path):
    ref, handout = demo
    (g,) = grade.grade(handout, _submission(demo, tmp_path))
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 3}  # the hidden point is not in the handout
    inc = next(t for t in g.tasks if t.task.id == "lab09.inc")
    assert "1 of the 4 points are in graded tests that did not run here: hidden tests" in inc.output()
    assert "did not run here" not in next(t for t in g.tasks if t.task.id == "lab09.double").output()
    # every test the handout holds passed: the preview says passed (it said failed, next to 3/4 and no failure)
    assert [t.status for t in g.tasks] == ["passed", "passed"] and (inc.score, inc.hidden_unrun) == (3, 1)
    run = run_course("--root", str(handout), "grade", str(_submission(demo, tmp_path / "cli")), "--out",
                     str(tmp_path / "out"), "--timeout", "30")  # the console says why 3/4 is all it can give
    assert run.returncode == 0 and "lab09.inc: 3/4 (1 in hidden tests, not run here)" in run.stdout, run.stdout
    assert "lab09.double: 4/4\n" in run.stdout, run.stdout


def test_inside_a_handout_a_missing_or_broken_file_is_graded_as_its_first_commits_stub(demo, tmp_path):
    """A student's handout holds their work: a submission lacking a file, or the handout graded on itself with a
    file that does not compile, is graded with the stub of the handout's first commit, as the course's grade takes
    the stub (the handout's working file had scored a missing file full marks). A handout that is no git
    repository keeps its own file, and the notes say so."""
    ref, _ = demo
    handout = tmp_path / "handout"
    release.build(ref, handout, git=True)
    answer = "".join(line for line in (ref / "lab09_demo/mod.py").read_text().splitlines(keepends=True)
                     if "### " not in line)  # the solutions as a student writes them: no markers
    (handout / "lab09_demo/mod.py").write_text(answer)  # the student's work in their handout
    empty = tmp_path / "empty"
    empty.mkdir()
    (g,) = grade.grade(handout, empty)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert "lab09_demo/mod.py is not in the submission (graded as the handout's stub)" in g.tasks[0].output()
    (handout / "lab09_demo/mod.py").write_text(answer + "\ndef broken(:\n")
    (g,) = grade.grade(handout, handout)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert "does not compile" in g.tasks[0].output() and "(graded as the handout's stub)" in g.tasks[0].output()
    (handout / "lab09_demo/mod.py").unlink()  # deleted from the handout itself: graded, as its stub
    (g,) = grade.grade(handout, handout)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert "lab09_demo/mod.py is not in the submission (graded as the handout's stub)" in g.tasks[0].output()
    run = run_pytest_in(handout, "--task", "lab09.inc", "-q")  # the plugin reads the course all the same
    assert run.returncode == 2 and "ERROR lab09_demo/test_mod.py" in run.stdout and "INTERNALERROR" not in run.stdout
    assert "no file lab09_demo/mod.py" not in run.stdout, run.stdout  # (was: course tasks: ... no file, a traceback)
    git = ["git", "-C", str(handout), "-c", "user.name=s", "-c", "user.email=s@x"]  # the first commit rewritten
    (handout / "lab09_demo/mod.py").write_text(answer + "\ndef broken(:\n")
    subprocess.run([*git, "commit", "-qa", "--amend", "-m", "mine"], check=True)
    (g,) = grade.grade(handout, empty)
    assert "graded as this handout's own file: no first commit holds its stub" in g.tasks[0].output()
    shutil.rmtree(handout / ".git")
    (handout / "lab09_demo/mod.py").write_text(answer)
    (g,) = grade.grade(handout, empty)
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 3}  # its own file: the student's answer
    assert ("lab09_demo/mod.py is not in the submission (graded as this handout's own file: no first commit holds "
            "its stub)") in g.tasks[0].output()


def test_a_test_file_that_does_not_import_costs_its_own_tests_only(tmp_path):
    """A submission that breaks one graded test file's import (here: it drops the kit function that file imports)
    loses that file's tests, named as a collection error; the other files' tests still run and score (the whole
    run had stopped at collection: 0 for every task, and a note blaming hidden tests)."""
    from common.course.fixtures import MOD, TASKS, TESTS
    tests = TESTS.replace("from lab09_demo import mod\n", "from lab09_demo import mod\nfrom lab09_demo.mod import given\n")
    tasks = TASKS.replace('points = 4\nfiles = ["lab09_demo/mod.py"]\nfunctions = ["Box.inc"]\n'
                          'tests = ["lab09_demo/test_mod.py"]',
                          'points = 6\nfiles = ["lab09_demo/mod.py"]\nfunctions = ["Box.inc"]\n'
                          'tests = ["lab09_demo/test_mod.py", "lab09_demo/test_other.py"]')
    ref = make_course(tmp_path / "ref", tests=tests, tasks=tasks)
    (ref / "lab09_demo/test_other.py").write_text(
        'import pytest\n\nfrom lab09_demo import mod\n\n\n@pytest.mark.task("lab09.inc", points=2)\n'
        'def test_inc_again():\n    assert mod.Box().inc(5) == 6\n')
    sub = tmp_path / "sub"
    (sub / "lab09_demo").mkdir(parents=True)
    answer = MOD[:MOD.index("def given")].replace("### ", "# ")  # the solutions, the kit's given() deleted
    (sub / "lab09_demo/mod.py").write_text(answer)
    (g,) = grade.grade(ref, sub)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 2}, [t.output() for t in g.tasks]
    inc = g.tasks[1].output()
    assert "collection error in lab09_demo/test_mod.py" in inc and "given" in inc
    assert "4 of the 6 points are in graded tests that did not run: a file holding them did not import" in inc
    assert "hidden tests" not in inc


def test_a_run_killed_in_a_test_names_that_test_and_the_rest_still_run(demo, tmp_path):
    """A segfault or an abort in native code kills pytest: the test it was in scores 0 saying so, by the
    signal's name; the tests after it run in a new process."""
    sub = _submission(demo, tmp_path, lambda t: t.replace("        return x + 1\n",
                                                         "        import os\n        os.abort()\n"))
    (g,) = grade.grade(demo[0], sub)
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 0} and g.run.rc == -6
    out = g.tasks[1].output()
    assert "- lab09_demo/test_mod.py::test_inc (3 pt): failed: crashed the test process (SIGABRT, signal 6)" in out
    assert "ended early" not in out


def test_a_run_killed_outside_any_test_says_the_run_ended_early(demo, tmp_path):
    sub = _submission(demo, tmp_path, lambda t: t + "\nimport os\nos.abort()\n")  # at import: in collection
    (g,) = grade.grade(demo[0], sub)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0} and len(g.runs) == 1
    assert "the test run ended early (exit status -6): tests that did not report score 0" in g.tasks[0].output()


def test_git_never_runs_on_a_submission(demo, tmp_path):
    """A submission holding a ``.git`` file that points at its own git folder, whose config names a command
    (``core.fsmonitor``, run by ``git ls-files``): grading it runs no git there, so the command never runs."""
    ref, _ = demo
    sub = _submission(demo, tmp_path)
    marker = tmp_path / "ran"
    subprocess.run(["git", "init", "-q", str(tmp_path / "g")], check=True, capture_output=True, timeout=60)
    (tmp_path / "g/.git").rename(sub / "g")
    (sub / ".git").write_text("gitdir: g\n")
    subprocess.run(["git", "--git-dir", str(sub / "g"), "config", "core.fsmonitor", f"echo ran >> {marker}; false"],
                   check=True, capture_output=True, timeout=60)
    (g,) = grade.grade(ref, sub)
    run = run_course("--root", str(ref), "grade", str(sub), "--out", str(tmp_path / "out"), "--timeout", "30")
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 4} and run.returncode == 0, run.stdout + run.stderr
    assert not marker.exists()
