"""A tiny course for the course package's own tests: one lab, two tasks, a hidden test (no real lab).

:func:`make_course` writes it under a folder, :func:`make_demo` it and its handout; :func:`run_pytest_in` runs pytest there with the course
plugin (and the project on ``PYTHONPATH`` so ``common.course`` imports). This file holds no test.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from common.course import release

PROJECT = Path(__file__).resolve().parents[2]

MOD = '''\
"""Demo kit: two student functions."""


def double(x):
    """Twice ``x``."""
    ### BEGIN STUB lab09.double
    # if x == 0:
    #     return 0  # scaffold: zero is easy
    ### END STUB
    ### BEGIN SOLUTION lab09.double
    return 2 * x
    ### END SOLUTION


class Box:
    def inc(self, x):
        """``x + 1``."""
        ### BEGIN SOLUTION lab09.inc
        return x + 1
        ### END SOLUTION


def given(x):
    """Kit code the student does not write."""
    return x
'''

TESTS = '''\
import pytest

from lab09_demo import mod


@pytest.mark.task("lab09.double", points=2)
def test_double():
    assert mod.double(3) == 6


@pytest.mark.task("lab09.double", points=1)
@pytest.mark.parametrize("x", [1, 2])
def test_double_more(x):
    assert mod.double(x) == 2 * x


@pytest.mark.task("lab09.inc", points=3)
def test_inc():
    assert mod.Box().inc(1) == 2


def test_ungraded_needs_double():
    assert mod.double(5) == 10


def test_ungraded_plain():
    assert mod.given(1) == 1


### BEGIN HIDDEN TESTS
@pytest.mark.task("lab09.inc", points=1)
def test_inc_hidden():
    assert mod.Box().inc(-1) == 0
### END HIDDEN TESTS
'''

TASKS = '''\
title = "Lab 09: demo"

[[task]]
id = "lab09.double"
number = "9.1"
title = "Double"
points = 4
files = ["lab09_demo/mod.py"]
functions = ["double"]
tests = ["lab09_demo/test_mod.py"]
description = "Return twice x."
hints = ["Multiply."]

[[task]]
id = "lab09.inc"
number = "9.2"
title = "Increment"
points = 4
files = ["lab09_demo/mod.py"]
functions = ["Box.inc"]
tests = ["lab09_demo/test_mod.py"]
description = "Return x + 1."
'''

PYPROJECT = '''\
[tool.pytest.ini_options]
addopts = "-p common.course.plugin"
python_files = ["test_*.py"]
'''


def make_course(root: Path, *, mod: str = MOD, tests: str = TESTS, tasks: str = TASKS) -> Path:
    """Write the demo course under ``root`` (created) and return ``root``."""
    lab = root / "lab09_demo"
    lab.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (lab / "__init__.py").write_text("")
    (lab / "mod.py").write_text(mod)
    (lab / "test_mod.py").write_text(tests)
    (lab / "tasks.toml").write_text(tasks)
    return root


def make_demo(root: Path, *, git: bool = False, **course) -> tuple[Path, Path]:
    """``(ref, handout)``: the demo course (:func:`make_course` with ``course``) under ``root/ref`` and its handout
    under ``root/handout`` (a git repository with ``git``, as ``make student`` writes it)."""
    ref = make_course(root / "ref", **course)
    release.build(ref, root / "handout", git=git)
    return ref, root / "handout"


def env() -> dict[str, str]:
    """The environment for an inner run: this one with the project first on ``PYTHONPATH``, no bytecode written,
    ``MLC_GRADE_VIA`` dropped and ``COLUMNS=250``."""
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join([str(PROJECT)] + [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p])
    out["PYTHONDONTWRITEBYTECODE"] = "1"
    out.pop("MLC_GRADE_VIA", None)  # set by `make grade` only: the commands' hints then name make's variable
    # pytest cuts its short summary (-r) to the terminal width, except when $CI is set: a fixed wide
    # terminal makes the inner run print the same lines under CI and on a grader's machine
    out["COLUMNS"] = "250"
    return out


def run_pytest_in(root: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m pytest -p no:cacheprovider *args`` in ``root``; stdout and stderr together."""
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=root, env=env(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)


def run_course(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m common.course *args`` from the project root."""
    return subprocess.run([sys.executable, "-m", "common.course", *args], cwd=PROJECT, env=env(),
                          capture_output=True, text=True, timeout=timeout)


def dedent(text: str) -> str:
    """``textwrap.dedent(text)`` without its leading newlines."""
    return textwrap.dedent(text).lstrip("\n")
