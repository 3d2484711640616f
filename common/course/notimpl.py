"""The exception a handout's stub raises: :class:`NotImplementedTask`.

In the student handout (``make student``) every ``### BEGIN SOLUTION <task-id>`` block of the
reference becomes::

    # Task 1.1 (lab01.reshape): write fuse_at here; instructions in lab01_onnx/TASKS.md
    from common.course.notimpl import NotImplementedTask
    raise NotImplementedTask("lab01.reshape")

so the stub raises when it is *called*, never at import. The message is one line that starts with
``not implemented: task <id>`` (what :mod:`common.course.plugin` looks for, also inside the text of
another exception that wrapped it), then names the function, its file and the instructions::

    not implemented: task lab01.reshape (fuse_at in lab01_onnx/passes/reshape.py; instructions in lab01_onnx/TASKS.md)

A lab pipeline run in the handout names the step that reached a stub: :func:`naming_stubs` notes the
step on the exception and lets it go on (tests see the stub, a "needs task" skip), and
:func:`stubs_as_errors` turns it into one ``error:`` line for the command line; that line offers the step's
``--skip-`` flag, unless :func:`needed_by_every_step` noted the stub in work every step runs.

This module imports nothing of the project at import time, so a stub costs nothing until it runs.
"""
from __future__ import annotations

import contextlib
import re
import sys
from pathlib import Path

#: The repository root (``common/course/notimpl.py`` -> the folder holding ``common/``).
ROOT = Path(__file__).resolve().parents[2]
#: The start of a :class:`NotImplementedTask` message (where it is, the sentence runs to the line's end).
PATTERN = re.compile(r"not implemented: task ([A-Za-z0-9_.\-]+)")
#: An exception whose whole message is one (TVM's FFI re-raises it as a RuntimeError with the same text).
_WHOLE = re.compile(r"^\s*not implemented: task ([A-Za-z0-9_.\-]+)")
#: One folded into another text by a harness, with its type name: ``NotImplementedTask: not implemented: ...``.
_FOLDED = re.compile(r"NotImplementedTask\W{1,4}not implemented: task ([A-Za-z0-9_.\-]+)")


class NotImplementedTask(NotImplementedError):
    """A student task of the handout that is still a stub.

    Args:
        task: the task id (``"lab01.reshape"``), as in the lab's ``tasks.toml``.
        where: ``"<function> in <file>"``; by default the caller's function and file (relative to
            the repository root).

    Attributes:
        task: the task id; ``where``: the function and file; ``instructions``: ``<lab>/TASKS.md``.
    """

    def __init__(self, task: str, where: str | None = None):
        self.task = str(task)
        if where is None:
            where, lab = _caller(sys._getframe(1))
        else:
            lab = where.rsplit(" in ", 1)[-1].split("/", 1)[0]
        self.where = where
        self.instructions = f"{lab}/TASKS.md" if lab else "TASKS.md"
        super().__init__(f"not implemented: task {self.task} ({self.where}; instructions in {self.instructions})")


def _caller(frame) -> tuple[str, str]:
    """``("<qualname> in <relative file>", "<lab folder>")`` of a frame."""
    code = frame.f_code
    path = Path(code.co_filename).resolve()
    rel = path.name
    for base in (ROOT, Path.cwd()):  # this checkout's root, else where the run started (another course tree)
        try:
            rel = path.relative_to(base).as_posix()
            break
        except ValueError:
            continue
    name = getattr(code, "co_qualname", code.co_name)
    return f"{name} in {rel}", rel.split("/", 1)[0] if "/" in rel else ""


def task_in(exc: BaseException | None) -> str | None:
    """The task id of the first :class:`NotImplementedTask` in ``exc``, its causes, contexts and groups.

    Also finds one re-raised as another type with the same message (TVM's FFI: a RuntimeError) or folded
    into another exception's text with its type name (a harness that caught it and reported
    ``pass_error: NotImplementedTask: not implemented: task ...``); a text that merely quotes the
    sentence (a test's output) is no match. None when there is none.
    """
    for e in _chain(exc):
        if isinstance(e, NotImplementedTask):
            return e.task
        text = str(e)
        m = _WHOLE.match(text) or _FOLDED.search(text)
        if m:
            return m.group(1)
    return None


def _chain(exc: BaseException | None):
    """``exc``, then every exception behind it (``__cause__``, ``__context__``, an exception group's
    members), each once."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo.extend([e.__cause__, e.__context__, *getattr(e, "exceptions", ())])


def stub_line(exc: BaseException) -> str | None:
    """The message of the handout stub (:class:`NotImplementedTask`) behind ``exc`` (itself, a cause or
    context, or folded into its text), or ``None`` when no stub was reached."""
    task = task_in(exc)
    if task is None:
        return None
    return next((str(e) for e in _chain(exc) if isinstance(e, NotImplementedTask)), f"not implemented: task {task}")


#: The note :func:`naming_stubs` adds before a step's skip flag.
_SKIP_NOTE = "skip with "
#: The note :func:`needed_by_every_step` adds before the work every step runs.
_EVERY_NOTE = "every step runs "
#: The note :func:`naming_stubs` adds for a step whose result the later steps read.
_LATER_NOTE = "the later steps need it"


@contextlib.contextmanager
def needed_by_every_step(work: str):
    """Run ``work`` that every step of a pipeline starts with (Lab 04 prepares each model with Lab 01's passes and
    Task 4.1's fixed dims): a stub reached inside is noted so, and the one-line error says that no ``--skip-``
    flag gets past it instead of offering the current step's (which only moves the error to the next step)."""
    try:
        yield
    except Exception as exc:
        if stub_line(exc) is not None and not any(n.startswith(_EVERY_NOTE) for n in getattr(exc, "__notes__", ())):
            exc.add_note(f"{_EVERY_NOTE}{work}")
        raise


@contextlib.contextmanager
def naming_stubs(step: str, skip: str | None = None, later: bool = False):
    """Run a pipeline step: when it reaches a stub, note ``step <name>`` on the exception (``add_note``), and
    ``skip`` (the flag that leaves the step out, e.g. ``--skip-unroll``) when the pipeline has one, or ``later``
    (the steps after it read its result, so no flag gets past it: Lab 01's export), and let it go on unchanged
    (a test sees the stub itself; :func:`stubs_as_errors` makes it one line)."""
    try:
        yield
    except Exception as exc:
        if stub_line(exc) is not None:
            exc.add_note(f"step {step}")
            if skip:
                exc.add_note(f"{_SKIP_NOTE}{skip}")
            elif later:
                exc.add_note(_LATER_NOTE)
        raise


def stubs_as_errors(main):
    """``main`` for ``python -m``: in the handout, a task not written yet stops the command with one
    ``error:`` line naming the step and the task (:class:`common.errors.UserError`: exit 2 through
    :func:`common.errors.run_cli`), not a traceback; any other exception passes through."""
    def run(argv=None):
        try:
            return main(argv)
        except Exception as exc:
            line = stub_line(exc)
            if line is None:
                raise
            from common.errors import UserError
            notes = getattr(exc, "__notes__", ())
            step = next((n for n in notes if n.startswith("step ")), "a step")
            skip = next((n[len(_SKIP_NOTE):] for n in notes if n.startswith(_SKIP_NOTE)), None)
            every = next((n[len(_EVERY_NOTE):] for n in notes if n.startswith(_EVERY_NOTE)), None)
            task = task_in(exc)
            others = [t for t in stubs_left(task) if not t.endswith(f"({task})")]
            also = f"; its lab's other stubs: {', '.join(others)}" if others else ""
            leave = (f" in {every}, which every step runs (no --skip- flag leaves it out)" if every
                     else f" (or leave the step out: {skip})" if skip
                     else " (the steps after it need its result: no --skip- flag gets past it)"
                     if _LATER_NOTE in notes else "")
            raise UserError(f"{step} needs a task you have not written yet{leave}: {line}{also}") from exc
    return run


def stubs_left(task: str, root: Path = ROOT) -> list[str]:
    """The tasks of ``task``'s lab whose files still hold their stub, as ``"Task 1.2 (lab01.identity)"``, by number.

    A task is a stub while one of its files raises ``NotImplementedTask("<its id>")`` (the line
    :func:`common.course.markers.render` writes). A step reaches one stub at a time; this names the rest of
    that lab, so a run of Lab 04 in a fresh handout says at once which Lab 01 tasks are still to write.
    Empty when the course cannot be read (the one-line error stays as it was).
    """
    from common.course.tasks import load_course  # at error time only: a stub costs nothing until it runs
    try:
        course = load_course(root, student_files=False)
        lab = course.tasks[task].lab
    except Exception:  # noqa: BLE001 (best effort: never replace the error line being written)
        return []
    left = []
    for t in sorted((t for t in course.tasks.values() if t.lab == lab), key=lambda t: t.sort_key):
        for rel in t.files:
            try:
                if f'NotImplementedTask("{t.id}")' in (root / rel).read_text():
                    left.append(f"Task {t.number} ({t.id})")
                    break
            except OSError:
                continue
    return left
