"""Where a submission's files are: the handout's layout found in the folder handed in, in a folder up to three
levels below it (a zip of the repository), or, for a file uploaded alone (Gradescope's drag and drop drops the
folders), by its name when exactly one task file has that name (:func:`layout`). ``make grade`` and the
Gradescope autograder read a submission the same way (:func:`laid_out`, :mod:`common.course.autograder`).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from . import sources
from .cliargs import submission_folder
from .grade import NOT_COPIED
from .tasks import Course, load_course

#: Folders a submission's copy leaves out (never graded) and folders :func:`layout` does not search.
NOT_SUBMITTED = sources.SKIP_DIRS | sources.CACHE_PARTS | {"__MACOSX"}


def walk(folder: Path, depth: int | None = None) -> Iterable[Path]:
    """Files under ``folder`` (sorted, no symlinks), skipping :data:`NOT_SUBMITTED` folders."""
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        level = len(here.relative_to(folder).parts)
        dirnames[:] = sorted(d for d in dirnames if d not in NOT_SUBMITTED and not d.endswith(".egg-info")
                             and (depth is None or level < depth))
        for f in sorted(filenames):
            p = here / f
            if f != ".git" and not p.is_symlink() and p.is_file():  # a .git file points git at another config
                yield p


def _holding(course: Course, sub: Path) -> list[tuple[int, int, str, Path]]:
    """``(-task files held, depth, path, folder)`` of each folder of ``sub`` (itself included, 3 levels down, no
    :data:`NOT_SUBMITTED` folder) that holds task files at their handout paths."""
    found = []
    for dirpath, dirnames, _ in os.walk(sub):
        here = Path(dirpath)
        level = len(here.relative_to(sub).parts)
        dirnames[:] = sorted(d for d in dirnames if d not in NOT_SUBMITTED and level < 3)
        n = sum((here / rel).is_file() for rel in course.student_files)
        if n:
            found.append((-n, level, here.as_posix(), here))
    return found


def base_of(course: Course, sub: Path) -> Path:
    """The folder of ``sub`` laid out like the handout: the one (``sub`` or a folder at most 3 levels down) that
    holds the most student files at their handout paths, the shallowest of those, then the first by name;
    ``sub`` when none holds any."""
    found = _holding(course, sub)
    return min(found)[3] if found else sub


def _rivals_warning(course: Course, sub: Path) -> str | None:
    """The ``warning:`` line when several folders of ``sub`` hold task files: which one is graded and why (the most
    task files; a tie broken by depth, then alphabetically), and the others; None when one or none does."""
    found = sorted(_holding(course, sub))
    if len(found) < 2:
        return None
    name = [(f[3].relative_to(sub).as_posix() or ".") + "/" for f in found]
    (n, depth, *_), second = found[0], found[1]
    if second[0] != n:
        why = f"the one with the most task files ({-n})"
    elif second[1] != depth:
        why = f"the shallowest of those with the most task files ({-n} each)"
    else:
        why = f"the first by name of those with the most task files ({-n} each: a tie broken alphabetically)"
    return (f"warning: {len(found)} folders hold task files: graded {name[0]}, {why}; not graded: "
            f"{', '.join(name[1:])}; hand in one")


def layout(course: Course, sub: str | Path, dest: str | Path, shown_as: str | None = None) -> list[str]:
    """Copy the submission ``sub`` into ``dest`` laid out like the handout (see the module docstring). A task file
    that is a symbolic link is copied as the link (never followed): the grader names it and grades the stub.

    Returns one line per thing worth telling the instructor (the folder used, a file placed by its name).
    Raises UserError when ``sub`` is not a folder (``shown_as``: how the message names it, default ``sub``).
    """
    sub, dest = submission_folder(sub, shown_as), Path(dest)
    base = base_of(course, sub)
    notes = [] if base == sub else [f"submission: the handout's layout found in {base.relative_to(sub).as_posix()}/"]
    if line := _rivals_warning(course, sub):
        notes.append(line)
    dest.mkdir(parents=True, exist_ok=True)
    for p in walk(base):
        rel = p.relative_to(base).as_posix()
        if rel.startswith(NOT_COPIED):
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dest / rel)
    for rel in course.student_files:  # the link itself, so the grade says why the file is not graded
        if (base / rel).is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(base / rel), dest / rel)
    by_name: dict[str, list[str]] = {}
    for rel in course.student_files:
        by_name.setdefault(Path(rel).name, []).append(rel)
    uploaded: dict[str, list[Path]] = {}
    for p in walk(sub, depth=3):
        uploaded.setdefault(p.name, []).append(p)
    for rel in course.student_files:
        if (dest / rel).is_file() or (dest / rel).is_symlink():
            continue
        name = Path(rel).name
        found = uploaded.get(name, [])
        if len(by_name[name]) == 1 and len(found) == 1:
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found[0], dest / rel)
            if found[0].is_relative_to(base):  # moved, not copied: not also listed as a stray file
                (dest / found[0].relative_to(base)).unlink(missing_ok=True)
            notes.append(f"submission: {found[0].relative_to(sub).as_posix()} graded as {rel}")
    return notes


@contextlib.contextmanager
def laid_out(root: str | Path | Course, sub: str | Path, files: Sequence[str] | None = None,
             shown_as: str | None = None) -> Iterator[tuple[Path, list[str]]]:
    """``(a temporary copy of sub laid out like the handout, the lines worth telling)`` for ``make grade``: the
    :func:`layout` notes, and a ``warning:`` line when the copy holds none of ``files`` (the task files graded;
    default: every one of the course), so a wrong folder is named, not graded 0 in silence. ``shown_as``: how the
    lines name ``sub`` (default: as given). The copy is removed on exit.

    Raises:
        UserError: ``sub`` is not a folder, or ``root`` holds no course.
    """
    course = root if isinstance(root, Course) else load_course(root)
    files = list(course.student_files if files is None else files)
    with tempfile.TemporaryDirectory(prefix="course-submission-") as tmp:
        dest = Path(tmp) / Path(sub).resolve().name
        notes = layout(course, sub, dest, shown_as)
        if files and not any((dest / rel).is_file() or (dest / rel).is_symlink() for rel in files):
            notes.append(f"warning: {shown_as or sub} holds none of the task files graded here (such as {files[0]}, "
                         "up to three folders down): every task graded scores 0")
        yield dest, notes
