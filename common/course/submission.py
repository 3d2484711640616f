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
from collections.abc import Iterable, Iterator
from pathlib import Path

from common.errors import UserError

from . import release
from .grade import NOT_COPIED
from .tasks import Course, load_course

#: Folders a submission's copy leaves out (never graded) and folders :func:`layout` does not search.
NOT_SUBMITTED = release.SKIP_DIRS | release.CACHE_PARTS | {"__MACOSX"}


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


def holders(course: Course, sub: Path) -> list[str]:
    """The folders of ``sub`` that hold task files at their handout paths, as ``rel/`` (``./`` for ``sub``)."""
    return [(f[3].relative_to(sub).as_posix() or ".") + "/" for f in _holding(course, sub)]


def base_of(course: Course, sub: Path) -> Path:
    """The folder of ``sub`` laid out like the handout: the one (``sub`` or a folder at most 3 levels down) that
    holds the most student files at their handout paths, the shallowest of those, then the first by name;
    ``sub`` when none holds any."""
    found = _holding(course, sub)
    return min(found)[3] if found else sub


def layout(course: Course, sub: str | Path, dest: str | Path) -> list[str]:
    """Copy the submission ``sub`` into ``dest`` laid out like the handout (see the module docstring).

    Returns one line per thing worth telling the instructor (the folder used, a file placed by its name).
    Raises UserError when ``sub`` is not a folder.
    """
    sub, dest = Path(sub), Path(dest)
    if not sub.is_dir():
        raise UserError(f"no submission folder {sub}: make grade SUB=<folder holding your lab files>")
    base = base_of(course, sub)
    notes = [] if base == sub else [f"submission: the handout's layout found in {base.relative_to(sub).as_posix()}/"]
    if len(rivals := holders(course, sub)) > 1:
        notes.append(f"warning: {len(rivals)} folders hold task files ({', '.join(r for r in rivals)}): graded "
                     f"{base.relative_to(sub).as_posix() or '.'}/, the one with the most; hand in one")
    dest.mkdir(parents=True, exist_ok=True)
    for p in walk(base):
        rel = p.relative_to(base).as_posix()
        if rel.startswith(NOT_COPIED):
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dest / rel)
    by_name: dict[str, list[str]] = {}
    for rel in course.student_files:
        by_name.setdefault(Path(rel).name, []).append(rel)
    uploaded: dict[str, list[Path]] = {}
    for p in walk(sub, depth=3):
        uploaded.setdefault(p.name, []).append(p)
    for rel in course.student_files:
        if (dest / rel).is_file():
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
def laid_out(root: str | Path, sub: str | Path) -> Iterator[tuple[Path, list[str]]]:
    """``(a temporary copy of sub laid out like the handout, the lines worth telling)`` for ``make grade``: the
    :func:`layout` notes, and a ``warning:`` line when the copy holds none of the course's task files (so a
    wrong folder is named, not graded 0 in silence). The copy is removed on exit.

    Raises:
        UserError: ``sub`` is not a folder, or ``root`` holds no course.
    """
    course = load_course(root)
    with tempfile.TemporaryDirectory(prefix="course-submission-") as tmp:
        dest = Path(tmp) / Path(sub).resolve().name
        notes = layout(course, sub, dest)
        if not any((dest / rel).is_file() for rel in course.student_files):
            notes.append(f"warning: {sub} holds none of the course's task files (such as {course.student_files[0]}, "
                         "up to three folders down): every task scores 0")
        yield dest, notes
