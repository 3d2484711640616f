"""The course's pytest plugin (:mod:`common.course.plugin`), run by a real pytest on the demo course."""
from __future__ import annotations

import json
import shutil

import pytest

from common.course import markers, release
from common.course.fixtures import TASKS, TESTS, make_course, make_demo, run_pytest_in


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo course and its handout."""
    return make_demo(tmp_path_factory.mktemp("course"))


def test_reference_passes_with_a_summary_per_task(demo, tmp_path):
    ref, _ = demo
    report = tmp_path / "r.jsonl"
    run = run_pytest_in(ref, f"--task-report={report}")
    assert run.returncode == 0, run.stdout
    assert "task 9.1 lab09.double: 4/4 points: 3 passed" in run.stdout
    assert "task 9.2 lab09.inc: 4/4 points: 2 passed" in run.stdout
    records = [json.loads(line) for line in report.read_text().splitlines()]
    items = [r for r in records if r["kind"] == "item"]
    assert {(r["nodeid"].split("::")[1], r["task"], r["points"], r["outcome"]) for r in items} == {
        ("test_double", "lab09.double", 2, "passed"), ("test_double_more[1]", "lab09.double", 1, "passed"),
        ("test_double_more[2]", "lab09.double", 1, "passed"), ("test_inc", "lab09.inc", 3, "passed"),
        ("test_inc_hidden", "lab09.inc", 1, "passed")}
    assert [r["kind"] for r in records].count("ungraded") == 2 and records[-1] == {"kind": "session", "exitstatus": 0}


def test_stubs_report_not_implemented_in_one_line_and_ungraded_tests_skip(demo):
    _, handout = demo
    run = run_pytest_in(handout, "-rfs")
    out = run.stdout
    assert run.returncode == 1
    assert ("lab09_demo/test_mod.py::test_inc - not implemented (0/3 points): task lab09.inc "
            "(Box.inc in lab09_demo/mod.py; instructions in lab09_demo/TASKS.md)") in out
    assert "not implemented (0/3 points): not implemented" not in out  # the phrase once
    assert "Traceback" not in out and "raise NotImplementedTask" not in out
    assert "needs task lab09.double, not implemented yet (double in lab09_demo/mod.py" in out
    assert "task 9.2 lab09.inc: 0/3 points (the task is worth 4; the rest is in hidden tests): 1 not implemented" in out
    assert "4 failed, 1 passed, 1 skipped" in out


def test_task_option_selects_one_task_by_id_or_number(demo):
    ref, _ = demo
    for key in ("lab09.inc", "9.2"):
        run = run_pytest_in(ref, "--task", key, "-q")
        assert run.returncode == 0 and "2 passed, 5 deselected" in run.stdout, run.stdout
    run = run_pytest_in(ref, "--graded", "-q")
    assert "5 passed, 2 deselected" in run.stdout
    run = run_pytest_in(ref, "--task", "lab09.nope")
    assert run.returncode == 4 and "--task: unknown task 'lab09.nope'; known: lab09.double, lab09.inc" in run.stdout


def test_with_no_path_a_task_run_collects_only_its_test_files(demo, tmp_path):
    """A test module elsewhere that does not import (a student's broken file in another lab) stops a whole run at
    collection; ``--task`` with no path collects only the task's graded test files, so it runs all the same."""
    ref = tmp_path / "ref"
    shutil.copytree(demo[0], ref)
    (ref / "other").mkdir()
    (ref / "other/test_broken.py").write_text("import a_module_that_does_not_exist  # noqa: F401\n")
    run = run_pytest_in(ref, "-q")
    assert run.returncode == 2 and "other/test_broken.py" in run.stdout, run.stdout
    run = run_pytest_in(ref, "--task", "lab09.inc", "-q")
    assert run.returncode == 0 and "2 passed, 5 deselected" in run.stdout, run.stdout
    run = run_pytest_in(ref, "--task", "lab09.inc", "-q", "other")  # a path given: pytest collects it
    assert run.returncode == 2 and "other/test_broken.py" in run.stdout, run.stdout


@pytest.mark.parametrize("old, new, words", [
    ('task("lab09.inc", points=3)', 'task("lab09.incr", points=3)',
     "lab09_demo/test_mod.py::test_inc: unknown task id 'lab09.incr' (known: lab09.double, lab09.inc"),
    ('task("lab09.inc", points=3)', 'task("lab09.inc")', "needs points=N, a positive integer (got None)"),
    ('task("lab09.inc", points=3)', 'task("lab09.inc", 3)', "the marker is @pytest.mark.task('<task-id>', points=N)"),
])
def test_bad_marker_stops_the_run_with_one_line(tmp_path, old, new, words):
    root = make_course(tmp_path, tests=TESTS.replace(old, new))
    run = run_pytest_in(root, "-q")
    assert run.returncode == 4 and words in run.stdout, run.stdout
    assert "Traceback" not in run.stdout


def test_not_implemented_folded_into_another_message_still_counts(tmp_path):
    tests = TESTS + '''

@pytest.mark.task("lab09.inc", points=1)
def test_harness_catches_it():
    try:
        mod.Box().inc(1)
    except Exception as exc:
        outcome = f"pass_error: {type(exc).__name__}: {exc}"
    assert outcome == "ok", outcome
'''
    ref = make_course(tmp_path / "ref", tests=tests)
    out = tmp_path / "handout"
    (out / "lab09_demo").mkdir(parents=True)
    for name in ("__init__.py", "tasks.toml"):
        (out / "lab09_demo" / name).write_text((ref / "lab09_demo" / name).read_text())
    (out / "pyproject.toml").write_text((ref / "pyproject.toml").read_text())
    (out / "lab09_demo/mod.py").write_text(markers.render((ref / "lab09_demo/mod.py").read_text(), "lab09_demo/mod.py"))
    (out / "lab09_demo/test_mod.py").write_text(tests)
    run = run_pytest_in(out, "--task", "lab09.inc", "-q")
    assert "test_harness_catches_it - not implemented (0/1 points): task lab09.inc" in run.stdout


def test_points_not_run_are_in_tests_not_run_here_unless_the_files_were_collected_whole(demo):
    ref, _ = demo
    line = "task 9.2 lab09.inc: 3/3 points (the task is worth 4; the rest is in tests not run here): 1 passed"
    for args in (["-k", "test_inc and not hidden"], ["lab09_demo/test_mod.py::test_inc"]):
        run = run_pytest_in(ref, *args, "-q")
        assert line in run.stdout, run.stdout  # the hidden test is right there, deselected
    # (the handout, whose file lacks the hidden test: "the rest is in hidden tests", test above)


def test_a_stub_under_hypothesis_gets_no_git_apply_advice(tmp_path):
    tests = TESTS + """

from hypothesis import given, strategies as st


@pytest.mark.task("lab09.double", points=1)
@given(st.integers())
def test_double_prop(x):
    assert mod.double(x) == 2 * x
"""
    ref = make_course(tmp_path / "ref", tests=tests, tasks=TASKS.replace("points = 4\n", "points = 5\n", 1))
    release.build(ref, tmp_path / "handout", git=False)
    run = run_pytest_in(tmp_path / "handout", "--task", "lab09.double", "-rf")
    assert "test_double_prop - not implemented (0/1 points): task lab09.double" in run.stdout, run.stdout
    assert "git apply" not in run.stdout and not (tmp_path / "handout/.hypothesis/patches").exists()


def test_the_report_is_signed_with_a_key_taken_before_any_conftest_loads(demo, tmp_path):
    """``--task-key-fd``: the plugin reads the key and closes the pipe before the first conftest imports (a
    lab's conftest may import task files), then signs every record in order; the grader's reader verifies them
    and stops at a line appended by anyone else."""
    import hmac
    import os
    import subprocess
    import sys

    from common.course.fixtures import env
    from common.course.integrity import read_report
    from common.course.plugin import signed_body

    ref = tmp_path / "ref"
    shutil.copytree(demo[0], ref)
    (ref / "conftest.py").write_text("import os\ntry:\n    os.fstat(int(os.environ['KEY_FD']))\n    print('KEY PIPE OPEN')\n"
                                     "except OSError:\n    print('KEY PIPE CLOSED')\n")
    key = b"k" * 32
    r, w = os.pipe()
    os.write(w, key)
    os.close(w)
    report = tmp_path / "r.jsonl"
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-s", f"--task-report={report}",
                          f"--task-key-fd={r}"], cwd=ref, env={**env(), "KEY_FD": str(r)}, pass_fds=(r,),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    os.close(r)
    assert "KEY PIPE CLOSED" in run.stdout and "KEY PIPE OPEN" not in run.stdout, run.stdout
    records, problem = read_report(report, key)
    assert problem is None and [r["seq"] for r in records] == list(range(len(records)))
    assert records[0]["kind"] == "begin" and records[-1]["kind"] == "session"
    assert all(hmac.compare_digest(r["mac"], hmac.new(key, signed_body(r), "sha256").hexdigest()) for r in records)
    with open(report, "a") as fh:
        fh.write(json.dumps({"kind": "item", "nodeid": "x", "outcome": "passed", "seq": len(records)}) + "\n")
    records2, problem = read_report(report, key)
    assert records2 == records and problem == f"line {len(records) + 1} of the test report is not a record the " \
                                               "grader's plugin signed"
    assert read_report(report, b"another key")[1] == "line 1 of the test report is not a record the grader's " \
                                                      "plugin signed"
