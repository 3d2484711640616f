"""The GitHub Classroom workflow of the handout: ``.github/workflows/classroom.yml``, generated from the task sheets.

``python -m common.course classroom --out DIR`` writes ``DIR/.github/workflows/classroom.yml``;
``python -m common.course student --classroom`` puts the same file into the handout (before its one commit).

The workflow follows GitHub Classroom's autograding actions
(https://github.com/education/autograding-command-grader, https://github.com/education/autograding-grading-reporter;
GitHub Classroom's own generated workflows have this shape): on ``push`` and ``repository_dispatch`` (not for
``github-classroom[bot]``'s own pushes), one job on ``ubuntu-latest`` that checks the repository out, sets up the
Python that ``pyproject.toml`` requires, installs the project as ``make setup`` does (``pip install -c
requirements.lock -e .``, PyTorch's CPU wheel index when the lock pins a ``+cpu`` build:
:func:`common.course.autograder.pip_index_args`), then one ``education/autograding-command-grader@v1`` step per task
of every lab's ``tasks.toml`` (:func:`common.course.tasks.load_course`), in number order:

- ``id``: the task id with ``.`` and ``_`` as ``-`` (``lab01-reshape``); ``test-name``: ``"1.1 <title> (<id>)"``
  as the grader names it;
- ``command``: ``python -m pytest <the task's test files> --task <id>`` (the course plugin's option: that task's
  graded tests only) with the grader's fixed ``--hypothesis-seed=0``, its ``course-grade`` Hypothesis profile and
  its per-test ``--timeout`` (pytest-timeout); the step passes (and scores ``max-score``) only when every graded
  test of the task passes. Not the task's ``check`` (``.venv/bin/python -m pytest --task <id>``, for a student's
  checkout after ``make setup``): the runner has no ``.venv``, the project is installed into setup-python's Python;
- ``timeout``: minutes for the step; ``max-score``: the task's ``points``;

then ``education/autograding-grading-reporter@v1`` with ``runners`` (the step ids) and, per step, the env
``<ID>_RESULTS: ${{steps.<id>.outputs.result}}`` (the reporter reads ``<runner id upper-cased>_RESULTS``).
In the handout the hidden tests are absent, so this score is a preview of the real grade (``make grade``, Gradescope).

The text is deterministic (no date, fixed order); every string is a double-quoted YAML scalar (JSON string
syntax), and the key ``on`` is quoted (YAML 1.1 would read it as a boolean).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from common.errors import UserError
from common.results import atomic_write

from common.cli import writable_folder

from . import sources
from .autograder import pip_index_args, python_version
from .cliargs import clear_of_reference
from .grade import DEFAULT_TIMEOUT_S, HYPOTHESIS_SEED
from .plugin import GRADE_PROFILE
from .tasks import Course, Task

WORKFLOW = ".github/workflows/classroom.yml"
GRADER = "education/autograding-command-grader@v1"
REPORTER = "education/autograding-grading-reporter@v1"
#: The job's condition: GitHub Classroom's own pushes (the starter commit) are not graded.
NOT_THE_BOT = "github.actor != 'github-classroom[bot]'"
#: Minutes per task step (the command grader's ``timeout`` input).
DEFAULT_STEP_MINUTES = 10


def q(value: str) -> str:
    """``value`` as a double-quoted YAML scalar."""
    return json.dumps(value)


def step_id(task: Task) -> str:
    """The step id of a task: its id with ``.`` and ``_`` as ``-`` (a GitHub Actions id: letters, digits, ``-``)."""
    return re.sub(r"[._]", "-", task.id)


def command(task: Task, timeout_s: int = DEFAULT_TIMEOUT_S) -> str:
    """The pytest command of a task's step (see the module docstring)."""
    return " ".join(["python -m pytest", *task.tests, f"--task {task.id}", f"--hypothesis-seed={HYPOTHESIS_SEED}",
                     f"--hypothesis-profile={GRADE_PROFILE}", f"--timeout={timeout_s}", "-p no:cacheprovider", "-q"])


def workflow(course: Course, *, timeout_s: int = DEFAULT_TIMEOUT_S, step_minutes: int = DEFAULT_STEP_MINUTES) -> str:
    """The text of ``classroom.yml`` for ``course`` (see the module docstring).

    Raises:
        UserError: two task ids differ only in ``.``, ``_`` or ``-`` (:func:`step_id` would give both one step id).
    """
    tasks = list(course.tasks.values())
    ids = [step_id(t) for t in tasks]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise UserError(f"tasks whose ids differ only in '.', '_' or '-' share a workflow step id: {', '.join(dup)}")
    total = sum(t.points for t in tasks)
    install = f"python -m pip install {pip_index_args(course.root)}-c requirements.lock -e ."
    lines = [
        f"# GitHub Classroom autograding: one step per task of the labs' tasks.toml ({len(tasks)} tasks, {total} points).",
        "# Written by `python -m common.course classroom`: regenerate it, do not edit. The hidden tests are not in the",
        "# handout, so this score is a preview; the grade is `make grade` (Gradescope: python -m common.course autograder).",
        f"name: {q('Autograding Tests')}",
        f"{q('on')}:",
        "  - push",
        "  - repository_dispatch",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        f"    if: {q(NOT_THE_BOT)}",
        "    steps:",
        f"      - name: {q('Checkout code')}",
        "        uses: actions/checkout@v4",
        f"      - name: {q('Set up Python')}",
        "        uses: actions/setup-python@v5",
        "        with:",
        f"          python-version: {q(python_version(course.root))}",
        f"          cache: {q('pip')}",
        f"          cache-dependency-path: {q('requirements.lock')}",
        f"      - name: {q('Install the project')}",
        f"        run: {q(install)}",
    ]
    for t, sid in zip(tasks, ids):
        name = f"{t.number} {t.title} ({t.id})"
        lines += [
            f"      - name: {q(name)}",
            f"        id: {q(sid)}",
            f"        uses: {GRADER}",
            "        with:",
            f"          test-name: {q(name)}",
            f"          setup-command: {q('')}",
            f"          command: {q(command(t, timeout_s))}",
            f"          timeout: {step_minutes}",
            f"          max-score: {t.points}",
        ]
    lines += [f"      - name: {q('Autograding Reporter')}", f"        uses: {REPORTER}", "        env:"]
    lines += [f"          {sid.upper()}_RESULTS: {q('${{steps.' + sid + '.outputs.result}}')}" for sid in ids]
    lines += ["        with:", f"          runners: {q(','.join(ids))}"]
    return "\n".join(lines) + "\n"


def write(course: Course, out: str | Path, **kw) -> Path:
    """Write ``out/.github/workflows/classroom.yml`` atomically; UserError for an ``out`` that cannot be written or
    holds the reference's own files (the workflow belongs in the handout: ``student --classroom``)."""
    out = writable_folder(clear_of_reference(course.root, out, sources.source_files(course.root)))
    try:
        return atomic_write(out / WORKFLOW, workflow(course, **kw))
    except OSError as exc:
        raise UserError(f"cannot write {out / WORKFLOW}: {exc.strerror or exc}") from None
