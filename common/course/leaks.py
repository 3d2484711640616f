"""The leak scan: what a written handout must not hold (:func:`leak_scan`).

A marker or instructor span left in a file, a line of solution code or of a hidden test (whole, or a long
one as a substring anywhere), an instructor-only or hidden file, a cache, a binary result, a git history of
more than one commit. ``make student`` stops on any of them before ``--out`` is touched; the release gate
reports them.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from . import markers
from .lint import strip_noqa
from .content import Scan, check, handout_text
from .sources import CACHE_PARTS, INSTRUCTOR_ONLY, is_binary_result, source_files
from .tasks import Course, load_course


#: The substring scan of :func:`leak_scan`: solution lines this long or longer (stripped) count ...
MIN_SUBSTRING = 25
#: ... in handout text files up to this size (bigger ones are the multi-MB tuning databases and torch-mlir
#: dumps that programs write under results/; the whole-line scan still reads them).
SUBSTRING_MAX_BYTES = 1 << 20
#: Solution lines (stripped) that given code shares without giving the task away: generic idioms the
#: substring scan would flag otherwise, each with why it is harmless.
SHARED_LINES = {
    "out.parent.mkdir(parents=True, exist_ok=True)": "a generic idiom (several given writers)",
    "for i, node in enumerate(model.graph.node):": "a generic ONNX loop (debugging/overlays.py)",
    "if ref.shape != cand.shape:": "the shape check every numeric gate starts with (common/gates.py)",
    "check_torchscript_opset(opset)": "a given helper, named by the task's hint (common/onnx_utils.py)",
}
#: Statements too generic to count as solution code in the substring scan, whatever their length.
_IDIOM = re.compile(r"^(return|raise|yield|pass|continue|break|else:|try:|finally:|import |from \S+ import )")


def substring_secret(line: str) -> bool:
    """Whether a stripped solution line counts in the substring scan: long enough, no comment, no idiom."""
    return (len(line) >= MIN_SUBSTRING and not line.startswith("#") and line not in SHARED_LINES
            and not _IDIOM.match(line) and any(c.isalpha() for c in line))


def _squeeze(text: str) -> str:
    """``text`` without whitespace: the leak scan compares code with its spacing taken out."""
    return "".join(text.split())


def _line_of(lines: list[str], squeezed: str) -> int:
    """The 1-based line where ``squeezed`` (text without whitespace) starts in ``lines``."""
    flat, starts = "", []
    for ln in lines:
        starts.append(len(flat))
        flat += _squeeze(ln)
    at = flat.find(squeezed)
    return max(i for i, st in enumerate(starts, start=1) if st <= at) if at >= 0 else 1


def leak_scan(root: str | Path, handout: str | Path, *, course: Course | None = None,
              files: list[str] | None = None, scan: Scan | None = None) -> list[str]:
    """Problems of a handout against its reference (empty: none). One line each:

    a marker (Python) or an instructor span (Markdown) left in a file; a line of solution code or of a
    hidden test (a stripped line that occurs in a solution or hidden block and nowhere else in the
    reference's handout text, stubs included); a solution line of :data:`MIN_SUBSTRING` characters or
    more (:func:`substring_secret`) anywhere inside a handout text file up to
    :data:`SUBSTRING_MAX_BYTES` (a data file, a test, another lab's code), unless its own file's given
    code holds it as a whole line or the hit is in its lab's ``tasks.toml`` or ``TASKS.md`` (the
    instructor's hints); an instructor-only or hidden file; a cache; a binary under results/; a git
    history of more than the one commit. Code is compared without its whitespace, so respacing a
    solution line does not hide it.

    ``course``, ``files``, ``scan``: the reference already read (:func:`common.course.release.build` passes them).
    """
    course = load_course(root) if course is None else course
    files = source_files(course.root) if files is None else files
    scan = check(course, files) if scan is None else scan
    handout = Path(handout)
    problems: list[str] = []
    secret: set[str] = set()
    allowed: set[str] = set()
    substrings: dict[str, set[str]] = {}  # solution line -> the files where a hit is fine
    for rel in files:
        if rel.startswith(INSTRUCTOR_ONLY[0]) or is_binary_result(rel):
            continue
        try:
            text = (course.root / rel).read_text()
        except UnicodeDecodeError:
            continue
        lines = text.splitlines()
        blocks = scan.blocks.get(rel, [])
        inside = {i for b in blocks if b.kind != markers.STUB for i in range(b.begin, b.end + 1)}
        if rel in course.hidden_files:
            secret.update(s for ln in lines if (s := ln.strip()) and not s.startswith(("#", '"""')))
            continue
        secret.update(markers.block_lines(text, blocks, {markers.SOLUTION, markers.HIDDEN}))
        allowed.update(ln.strip() for i, ln in enumerate(lines, start=1) if i not in inside)
        if rel in scan.blocks:
            given = {ln.strip() for ln in handout_text(course, rel, scan, text).splitlines()}
            allowed.update(given)
            for b in blocks:
                if b.kind != markers.SOLUTION:
                    continue
                lab = course.tasks[b.task].lab
                for s in markers.block_lines(text, [b], {markers.SOLUTION}):
                    if substring_secret(s) and s not in given:
                        substrings.setdefault(s, set()).update({f"{lab}/tasks.toml", f"{lab}/TASKS.md"})
    secret = {_squeeze(x) for x in secret} - {_squeeze(x) for x in allowed}  # spacing changes hide nothing
    squeezed = {_squeeze(x): x for x in substrings}
    walked = []
    for dirpath, dirnames, filenames in os.walk(handout):
        rel_dir = Path(dirpath).relative_to(handout).as_posix()
        if ".git" in dirnames:
            dirnames.remove(".git")
        for d in dirnames:
            if d in CACHE_PARTS or d.endswith(".egg-info"):
                problems.append(f"{rel_dir}/{d}: a cache or environment folder in the handout")
        for f in filenames:
            walked.append(Path(rel_dir, f).as_posix().removeprefix("./"))
    for rel in sorted(walked):
        p = handout / rel
        if rel.startswith(INSTRUCTOR_ONLY) or rel in course.hidden_files:
            problems.append(f"{rel}: instructor-only or hidden test file in the handout")
        if is_binary_result(rel):
            problems.append(f"{rel}: a binary under results/ in the handout")
        if rel.endswith((".pyc", ".pyo")):
            problems.append(f"{rel}: a cache file in the handout")
        try:
            text = p.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if rel.endswith(".py"):
            text = strip_noqa(text)  # a solution line with the linter's comment added is still that line
        if rel.endswith(".py") and markers.has_marker(text):
            problems.append(f"{rel}: a solution/stub/hidden marker left in the handout")
        if rel.endswith(".md") and markers.has_md_span(text):
            problems.append(f"{rel}: an instructor/student span marker left in the handout")
        lines = text.splitlines()
        flagged = set()
        for i, ln in enumerate(lines, start=1):
            if _squeeze(ln) in secret:
                flagged.add(i)
                problems.append(f"{rel}:{i}: a line of solution code or of a hidden test: {ln.strip()[:80]!r}")
        if len(text) > SUBSTRING_MAX_BYTES:
            continue
        flat = _squeeze(text)
        hits = sorted((_line_of(lines, sq), squeezed[sq]) for sq in squeezed
                      if rel not in substrings[squeezed[sq]] and sq in flat)
        for i, s in hits:
            if i not in flagged:
                flagged.add(i)
                problems.append(f"{rel}:{i}: holds a line of solution code: {s[:80]!r}")
    if (handout / ".git").exists():
        run = subprocess.run(["git", "-C", str(handout), "rev-list", "--all", "--count"], capture_output=True,
                             text=True, timeout=30)
        if run.stdout.strip() != "1":
            problems.append(f"the handout's git history has {run.stdout.strip() or '?'} commits, not 1")
    return problems
