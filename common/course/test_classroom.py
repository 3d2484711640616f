"""The GitHub Classroom workflow (:mod:`common.course.classroom`): its steps, the handout's copy, its commands run.

The real course's workflow is parsed with PyYAML (a dependency of transformers, so in the venv) and checked step
by step against the task sheets; the demo course's step command is run in the demo handout (the task fails: not
implemented) and in a submission with the solution (it passes), the way the command grader would run it.
"""
from __future__ import annotations

import re
import shlex
import subprocess

import pytest
import yaml

from common.course import classroom, leaks
from common.course.fixtures import PROJECT, make_course, run_course, run_pytest_in
from common.course.tasks import load_course


@pytest.fixture(scope="module")
def course():
    return load_course(PROJECT)


def test_the_workflow_has_one_step_per_task_with_its_points(course, tmp_path):
    run = run_course("classroom", "--out", str(tmp_path))
    assert run.returncode == 0, run.stderr
    text = (tmp_path / classroom.WORKFLOW).read_text()
    data = yaml.safe_load(text)
    assert data["on"] == ["push", "repository_dispatch"] and data["permissions"]["checks"] == "write"
    (job,) = data["jobs"].values()
    assert job["if"] == "github.actor != 'github-classroom[bot]'"
    steps = job["steps"]
    setup = [s for s in steps if s.get("uses", "").startswith("actions/setup-python")]
    assert setup and setup[0]["with"]["python-version"] == "3.11"
    install = [s["run"] for s in steps if "run" in s]
    assert install == ["python -m pip install --extra-index-url https://download.pytorch.org/whl/cpu "
                       "-c requirements.lock -e ."]
    graders = [s for s in steps if s.get("uses") == classroom.GRADER]
    tasks = list(course.tasks.values())
    assert len(graders) == len(tasks) == 16
    assert sum(s["with"]["max-score"] for s in graders) == sum(t.points for t in tasks) == 376
    for s, t in zip(graders, tasks):
        w = s["with"]
        assert s["id"] == t.id.replace(".", "-").replace("_", "-")
        assert w["test-name"] == s["name"] == f"{t.number} {t.title} ({t.id})"
        assert w["max-score"] == t.points and w["timeout"] == 10
        words = shlex.split(w["command"])
        assert words[:3] == ["python", "-m", "pytest"] and words[words.index("--task") + 1] == t.id
        assert set(t.tests) <= set(words) and "--hypothesis-seed=0" in words and "--timeout=120" in words
    (reporter,) = [s for s in steps if s.get("uses") == classroom.REPORTER]
    ids = [s["id"] for s in graders]
    assert reporter["with"]["runners"].split(",") == ids
    assert reporter["env"] == {f"{i.upper()}_RESULTS": f"${{{{steps.{i}.outputs.result}}}}" for i in ids}
    assert steps[-1] is reporter and steps.index(setup[0]) < steps.index(graders[0])


def test_the_text_is_deterministic_and_structured_without_yaml(course):
    text = classroom.workflow(course)
    assert text == classroom.workflow(course) and not re.search(r"\b20\d\d-\d\d-\d\d|\d\d:\d\d:\d\d", text)
    assert text.count(f"uses: {classroom.GRADER}") == len(course.tasks)
    assert re.findall(r"max-score: (\d+)", text) == [str(t.points) for t in course.tasks.values()]
    assert [f"--task {t.id}" in text for t in course.tasks.values()] == [True] * len(course.tasks)
    assert '"on":' in text  # quoted: YAML 1.1 reads a bare on as true
    assert ".venv" not in text  # the runner installs into setup-python's Python: no venv there


def test_student_classroom_commits_the_workflow_and_its_command_grades(tmp_path):
    ref = make_course(tmp_path / "ref")
    out = tmp_path / "handout"
    run = run_course("--root", str(ref), "student", "--out", str(out), "--classroom")
    assert run.returncode == 0, run.stdout + run.stderr
    demo = load_course(ref)
    assert (out / classroom.WORKFLOW).read_text() == classroom.workflow(demo)
    tracked = subprocess.run(["git", "-C", str(out), "ls-files"], capture_output=True, text=True).stdout.split()
    assert classroom.WORKFLOW in tracked and leaks.leak_scan(ref, out) == []
    t = demo.tasks["lab09.double"]
    args = shlex.split(classroom.command(t, timeout_s=30))[3:]  # what follows python -m pytest
    todo = run_pytest_in(out, *args)
    assert todo.returncode != 0 and "not implemented (0/" in todo.stdout, todo.stdout
    (out / "lab09_demo/mod.py").write_text((ref / "lab09_demo/mod.py").read_text())
    done = run_pytest_in(out, *args)
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout  # test_double, test_double_more x2


def test_bad_out_is_one_error_line(tmp_path):
    (tmp_path / "f").write_text("x")
    bad = run_course("classroom", "--out", str(tmp_path / "f"))
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        f"error: --out {tmp_path / 'f'} is a file: give a folder"]
    bad = run_course("classroom", "--out", str(tmp_path / "o"), "--minutes", "0")
    assert bad.returncode == 2 and bad.stderr.strip() == "error: --minutes must be > 0 (got 0)"
