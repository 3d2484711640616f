"""The reference read file by file: :func:`check` checks markers, tasks and graded tests together into a
:class:`Scan`, and :func:`handout_text` / :func:`plan` give what the handout makes of each file.

Errors (one line, exit 2: :class:`~common.errors.UserError`): a bad marker or Markdown span, a solution block of
a task in a file the task does not list, a task without solution blocks or whose blocks sit in other functions
than it lists, a graded test naming an unknown task or points that are not a positive int, a task with no
graded test, a graded test in a file the grader does not run, a handout file that does not compile.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from common.errors import UserError

from . import markers
from .sources import INSTRUCTOR_ONLY, is_binary_result, source_files
from .tasks import Course


@dataclass
class Scan:
    """What :func:`check` found: the blocks per Python file (and the instructor/student spans per Markdown
    file) and the graded markers per task."""

    blocks: dict[str, list[markers.Block]] = field(default_factory=dict)
    graded: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)  # task -> [(file, line, points)]


def _is_task_mark(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("pytest.mark.task", "mark.task")


def graded_marks(text: str, path: str) -> list[tuple[str | None, object, int]]:
    """``(task id or None, points, line)`` of every ``pytest.mark.task(...)`` call in a test file.

    Raises:
        UserError: ``text`` is not valid Python (``<path>:<line>: not valid Python (...)``).
    """
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UserError(f"{path}:{exc.lineno}: not valid Python ({exc.msg})") from None
    out = []
    for node in ast.walk(tree):
        if _is_task_mark(node):
            task = node.args[0].value if len(node.args) == 1 and isinstance(node.args[0], ast.Constant) else None
            points = next((k.value.value for k in node.keywords if k.arg == "points"
                           and isinstance(k.value, ast.Constant)), None)
            out.append((task, points, node.lineno))
    return out


def check(course: Course, files: Iterable[str] | None = None, *, reference: bool = True,
          solutions: bool | None = None) -> Scan:
    """Check markers, tasks and graded tests of the reference together (see the module docstring).

    ``reference=False`` checks a handout's tree (a student grading their own work): there the tasks have
    stubs instead of solution blocks and the hidden test files are absent. ``solutions=False`` (default:
    ``reference``) checks a tree with the hidden tests but stubs (the autograder's copy of the reference).

    Returns:
        the :class:`Scan`. Raises :class:`UserError` (one line) at the first problem.
    """
    root = course.root
    tasks = course.tasks
    scan = Scan()
    for f in course.hidden_files if reference else ():
        if not (root / f).is_file():
            raise UserError(f"{f.split('/', 1)[0]}/tasks.toml: hidden_tests: no file {f}")
    for rel in files if files is not None else source_files(root):
        if rel.startswith(INSTRUCTOR_ONLY[0]):
            continue
        if rel.endswith(".md"):
            text = (root / rel).read_text(errors="replace")
            if markers.has_md_span(text) and (spans := markers.find_md_blocks(text, rel)):
                scan.blocks[rel] = spans
            continue
        if not rel.endswith(".py"):
            continue
        if not reference and rel in course.student_files:  # a handout's: the student's work, any text (no markers)
            continue
        text = (root / rel).read_text()
        blocks = markers.find_blocks(text, rel, known=tasks)
        if blocks:
            scan.blocks[rel] = blocks
        for b in blocks:
            if b.kind == markers.SOLUTION and rel not in tasks[b.task].files:
                raise UserError(f"{rel}:{b.begin}: a solution block of {b.task} in a file the task does not list "
                                f"(files = {list(tasks[b.task].files)})")
        if Path(rel).name.startswith("test_"):
            for task, points, line in graded_marks(text, rel):
                where = f"{rel}:{line}: @pytest.mark.task"
                if task is None:
                    raise UserError(f"{where}: the first argument must be a task id string")
                if task not in tasks:
                    raise UserError(f"{where}({task!r}): unknown task id (known: {', '.join(tasks)})")
                if isinstance(points, bool) or not isinstance(points, int) or points <= 0:
                    raise UserError(f"{where}({task!r}): points must be a positive integer, got {points!r}")
                lab = course.lab(tasks[task].lab)
                if rel not in tasks[task].tests and rel not in lab.hidden_tests:
                    raise UserError(f"{where}({task!r}): {rel} is neither in the task's tests nor in the lab's "
                                    "hidden_tests, so the grader would never run it")
                scan.graded.setdefault(task, []).append((rel, line, points))
    for t in tasks.values():
        found = [(rel, b) for rel, bs in scan.blocks.items() for b in bs if b.kind == markers.SOLUTION and b.task == t.id]
        if not found and not (reference if solutions is None else solutions):
            continue
        if not found:
            raise UserError(f"task {t.id} ({t.lab}/tasks.toml) has no '### BEGIN SOLUTION {t.id}' block in its files")
        for f in t.files:
            if not any(rel == f for rel, _ in found):
                raise UserError(f"task {t.id} lists {f} but that file holds no solution block of the task")
        funcs = {b.function for _, b in found}
        if funcs != set(t.functions):
            raise UserError(f"task {t.id}: its solution blocks are in {sorted(funcs)}, its tasks.toml lists "
                            f"functions = {list(t.functions)}")
        if t.id not in scan.graded:
            raise UserError(f"task {t.id} ({t.lab}/tasks.toml) has no graded test (@pytest.mark.task({t.id!r}, points=N))")
    return scan


def excluded(course: Course, rel: str) -> bool:
    """Whether ``rel`` stays out of the handout (instructor-only, hidden tests, result binaries)."""
    return rel.startswith(INSTRUCTOR_ONLY) or rel in course.hidden_files or is_binary_result(rel)


def handout_text(course: Course, rel: str, scan: Scan, text: str | None = None, stub=None) -> str:
    """The handout's text of one Python file (``stub``: the task ids to stub, None: all) or Markdown file
    (its instructor spans out, its student spans shown: :func:`markers.render_markdown`)."""
    text = (course.root / rel).read_text() if text is None else text
    blocks = scan.blocks.get(rel)
    if not blocks:
        return text
    if rel.endswith(".md"):
        return markers.render_markdown(text, rel, blocks)
    return markers.render(text, rel, stub=stub, drop_hidden=True, tasks=course.tasks, blocks=blocks)


def plan(course: Course, scan: Scan | None = None, files: Iterable[str] | None = None) -> dict[str, bytes]:
    """``{relative path: bytes}`` of the handout (before the linter's noqa comments, :func:`common.course.lint.add_noqa`).

    Raises:
        UserError: :func:`check` finds a problem (run only when ``scan`` is None), or the handout of a Python file
            does not compile (its markers cut it wrong).
    """
    files = source_files(course.root) if files is None else list(files)
    scan = check(course, files) if scan is None else scan
    out: dict[str, bytes] = {}
    for rel in files:
        if excluded(course, rel):
            continue
        if rel in scan.blocks:
            text = handout_text(course, rel, scan)
            try:
                if rel.endswith(".py"):
                    compile(text, rel, "exec")
            except SyntaxError as exc:
                raise UserError(f"the handout of {rel} does not compile (line {exc.lineno}: {exc.msg}): "
                                "check its markers") from None
            out[rel] = text.encode()
        else:
            out[rel] = (course.root / rel).read_bytes()
    return out
