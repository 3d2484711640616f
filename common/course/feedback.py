"""Feedback a student can act on: :class:`Counterexample`, what a harness raises when a property fails.

A harness that checks a property on one case (Lab 01's pass contract:
:func:`lab01_onnx.testing.apply` raises :class:`lab01_onnx.proof.counterexample.ContractViolation`)
raises a :class:`Counterexample`, an ``AssertionError`` whose message is the whole report: the case
(for Lab 01 a small ONNX graph in ``onnx.printer`` text), what was expected and what came out, and
where the two first differ. Under Hypothesis the case is the one the shrinker left (the grade profile
shrinks, :data:`common.course.plugin.GRADE_PROFILE`), and Hypothesis adds notes to the exception (the
falsifying example's draws, the ``@reproduce_failure`` blob).

:func:`feedback` is the text the course plugin stores in a failed graded test's record (``feedback``)
and the grader prints under that test in ``results.json``'s per-task ``output`` and in ``results.md``.
A plain ``assert`` gives no feedback (its first line is the record's ``message`` as before).

This module imports nothing of the project.
"""
from __future__ import annotations

#: The most characters of one test's feedback kept in a report (the rest is cut with a note).
MAX_FEEDBACK_CHARS = 4000


class Counterexample(AssertionError):
    """A property failed on one case; ``str(exc)`` is the report, several lines of plain text (the case,
    expected against actual, the first place they differ). Subclasses add their own attributes."""


def chain(exc: BaseException | None):
    """``exc``, then its exception-group members, causes and contexts, breadth first, each once."""
    todo, seen = [exc], set()
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo.extend([*getattr(e, "exceptions", ()), e.__cause__, e.__context__])


def find(exc: BaseException | None) -> Counterexample | None:
    """The first :class:`Counterexample` in ``exc``, its causes, contexts and exception groups; None if none."""
    return next((e for e in chain(exc) if isinstance(e, Counterexample)), None)


def feedback(exc: BaseException | None, limit: int = MAX_FEEDBACK_CHARS) -> str:
    """The report of the first :class:`Counterexample` in ``exc`` plus its notes (Hypothesis's falsifying
    example), at most ``limit`` characters (longer text is cut and says so); ``""`` when there is none."""
    found = find(exc)
    if found is None:
        return ""
    text = "\n".join([str(found).rstrip(), *[str(n).rstrip() for n in getattr(found, "__notes__", ())]])
    if len(text) > limit:
        cut = text[:limit].rsplit("\n", 1)[0]
        text = f"{cut}\n... ({len(text) - len(cut)} more characters cut)"
    return text
