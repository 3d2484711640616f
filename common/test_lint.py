"""The linter is part of the test command: ``ruff check`` over the whole repository must be clean.

Configuration (rules, line length, excluded folders) lives in ``pyproject.toml``'s ``[tool.ruff]``
sections. To fix most findings: ``.venv/bin/ruff check --fix .``; the rest name file, line and rule.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format=concise", str(ROOT)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        pytest.fail(f"ruff check found problems (fix with `.venv/bin/ruff check --fix .`):\n{run.stdout}{run.stderr}",
                    pytrace=False)
