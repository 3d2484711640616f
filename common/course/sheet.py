"""The task sheet: each lab's ``TASKS.md``, rendered from its ``tasks.toml``.

``python -m common.course sheet`` writes ``<lab>/TASKS.md`` for every lab with tasks (atomically);
``--check`` writes nothing and exits 1 naming the sheets that are not what ``tasks.toml`` gives (the
suite's test does the same). The sheet is plain Markdown: a table of the tasks (number, title, points,
what to write, how to check), then one section per task (what to write, what to read first, how to
check locally, hints), then how the grade is made. It holds no date, so rendering twice gives the
same bytes.
"""
from __future__ import annotations

from pathlib import Path

from common.results import atomic_write

from .tasks import SHEET_FILE, TASKS_FILE, Course, Lab, Task

GRADING = """\
## How this is graded

`make grade SUB=<your folder>` (what the course's grader runs) copies only the files listed under
"Write" above from your folder into a clean copy of the course's tree, runs the graded tests with a
fixed Hypothesis seed (`--hypothesis-seed=0`) and a time limit per test, and writes a Gradescope
`results.json` and a Markdown table per lab. {hidden} A test that reaches a stub you have not written yet reports
`not implemented (0/N points)`; each graded test is worth its points when it passes. Files other than
yours (a `conftest.py` of your own, edits to given files) are ignored and listed in the report.
"""


def _code(items) -> str:
    return ", ".join(f"`{i}`" for i in items)


def task_section(task: Task) -> str:
    """The ``TASKS.md`` section of ``task``: heading (number, title, id, points), description, what to write,
    what to read first, the local check and the hints (Markdown, no trailing newline)."""
    lines = [f"## Task {task.number}: {task.title} (`{task.id}`, {task.points} points)", "", task.description, "",
             f"**Write:** {_code(task.functions)} in {_code(task.files)}. The rest of the kit is given: keep "
             "the names and signatures the tests call.", ""]
    if task.read:
        lines += ["**Read first:**", ""] + [f"- {r}" for r in task.read] + [""]
    lines += [f"**Check locally:** `{task.check}` (graded tests in {_code(task.tests)}).", ""]
    if task.hints:
        lines += ["**Hints:**", ""] + [f"- {h}" for h in task.hints] + [""]
    return "\n".join(lines)


def has_hidden_tests(lab: Lab, root: Path) -> bool:
    """Whether the course's grade of ``lab`` runs tests a handout leaves out: a hidden test file
    (``hidden_tests`` in its ``tasks.toml``) or a ``### BEGIN HIDDEN TESTS`` block in one of its ``test_*.py``."""
    from . import markers
    return bool(lab.hidden_tests) or any(
        b.kind == markers.HIDDEN for f in sorted((root / lab.dir).rglob("test_*.py"))
        for b in markers.find_blocks(f.read_text(encoding="utf-8"), str(f.relative_to(root))))


def render_lab(lab: Lab, root: Path) -> str:
    """The ``TASKS.md`` text of one lab of the course at ``root`` (ends with one newline)."""
    total = sum(t.points for t in lab.tasks)
    out = [f"# {lab.title}: tasks", "",
           f"<!-- Generated from {lab.dir}/{TASKS_FILE} by `python -m common.course sheet`; do not edit by hand. -->",
           ""]
    if lab.intro:
        out += [lab.intro, ""]
    out += ["| # | task | points | write | check |", "| --- | --- | ---: | --- | --- |"]
    for t in lab.tasks:
        out.append(f"| {t.number} | {t.title} (`{t.id}`) | {t.points} | {_code(t.functions)} in "
                   f"{_code(t.files)} | `{t.check}` |")
    out += [f"| | **total** | **{total}** | | |", ""]
    out += [task_section(t) for t in lab.tasks]
    hidden = ("The course's grade also runs graded tests your handout does not hold (hidden tests; a grade run in "
              "your handout names the points they hold): passing the tests here is necessary, not sufficient."
              if has_hidden_tests(lab, root) else
              "This lab has no hidden tests: the graded tests here are all the course's grade runs.")
    out += [GRADING.format(hidden=hidden)]
    return "\n".join(out).rstrip("\n") + "\n"


def sheets(course: Course) -> dict[Path, str]:
    """``{<root>/<lab>/TASKS.md: text}`` for every lab with tasks."""
    return {course.root / lab.dir / SHEET_FILE: render_lab(lab, course.root) for lab in course.labs}


def stale(course: Course) -> list[str]:
    """The sheets (relative paths) whose file is missing or differs from what ``tasks.toml`` gives."""
    return [p.relative_to(course.root).as_posix() for p, text in sheets(course).items()
            if not p.is_file() or p.read_text() != text]


def write(course: Course) -> list[str]:
    """Write every sheet that changed (atomically); returns the relative paths written."""
    changed = stale(course)
    for p, text in sheets(course).items():
        if p.relative_to(course.root).as_posix() in changed:
            atomic_write(p, text)
    return changed
