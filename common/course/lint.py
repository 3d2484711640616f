"""The handout's linter: a student's first ``ruff check`` in the handout finds nothing of the course's making.

A stub leaves imports and locals of the reference unused; :func:`noqa_rows` finds them (ruff's F401, F841) and
:func:`add_noqa` ends just those lines with ``  # noqa: F401``, so the student's own unused imports in the same
file are still reported. :func:`strip_noqa` takes the comments off again (the grader and the leak scan read a
handout file as :func:`common.course.content.handout_text` gives it); :func:`findings` lints a written handout.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from common.errors import UserError

#: The codes :func:`add_noqa` answers; the comment it writes, as :func:`strip_noqa` finds it.
NOQA_CODES = ("F401", "F841")  # an unused import, an unused local: what a stub leaves behind
_NOQA = re.compile(r"  # noqa: (?:F401|F841)(?:, (?:F401|F841))*$", re.M)


def noqa_rows(out_dir: Path, files: list[str]) -> dict[str, dict[int, set[str]]]:
    """Where ruff finds :data:`NOQA_CODES` in ``files`` of the handout: ``{file: {noqa line (1-based): codes}}``.

    The line is ruff's ``noqa_row`` (a multi-line import's reported name, a statement's first line), the one a
    ``# noqa`` comment must end to count (ruff's docs, "Error suppression")."""
    if not files:
        return {}
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", ",".join(NOQA_CODES),
                          "--output-format", "json", *files], cwd=out_dir, capture_output=True, text=True, timeout=120)
    try:
        found = json.loads(run.stdout or "[]")
    except json.JSONDecodeError:
        raise UserError(f"ruff failed on the handout: {(run.stderr or run.stdout).strip()[:200]}") from None
    rows: dict[str, dict[int, set[str]]] = {}
    for d in found:
        rel = Path(d["filename"]).resolve().relative_to(out_dir.resolve()).as_posix()
        rows.setdefault(rel, {}).setdefault(d.get("noqa_row") or d["location"]["row"], set()).add(d["code"])
    return rows


def add_noqa(text: str, rows: dict[int, set[str]]) -> str:
    """``text`` with ``  # noqa: CODES`` at the end of each line of ``rows`` (``{1-based line: codes}``).

    Raises UserError when a row is past the end of ``text`` (ruff read another file)."""
    lines = text.split("\n")
    for row, codes in rows.items():
        if not 0 < row <= len(lines):
            raise UserError(f"ruff reported line {row} of a {len(lines)}-line handout file: run make student again")
        lines[row - 1] += f"  # noqa: {', '.join(sorted(codes))}"
    return "\n".join(lines)


def strip_noqa(text: str) -> str:
    """``text`` without the comments :func:`add_noqa` writes (a handout file as :func:`common.course.content.handout_text` gives it)."""
    return _NOQA.sub("", text)


def findings(out_dir: Path) -> list[str]:
    """ruff's findings on a written handout (the project's ``pyproject.toml`` rules), one ``file:line: CODE text``
    each; empty when it is clean, as a student's first ``ruff check`` should find it."""
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=out_dir, capture_output=True, text=True, timeout=120)
    if run.returncode == 0:
        return []
    return [ln for ln in run.stdout.splitlines() if ln.count(":") >= 3] or [(run.stderr or run.stdout).strip()[:200]]
