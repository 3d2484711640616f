"""The course's command lines: where they write, checked before any work is done (one ``error:`` line, exit 2).
The course's commands have no ``-v`` (they print the same at every level: ``common.cli.parser(verbose=None)``).

- :func:`outside_reference`: the handout (``student --out``) must not be the course tree itself or lie among its
  own files: only under a folder the tree never ships (:data:`common.course.sources.SKIP_DIRS`: ``build/``, ...)
  or outside it; :func:`clear_of_reference`: the folder ``grade``, ``autograder`` and ``classroom`` write must hold
  none of the tree's own files (a new folder inside it is fine);
- :func:`folder_target` / :func:`file_target`: a folder or file that may not exist yet, checked without creating
  anything (the path is no file / no folder, its nearest existing parent is a folder that can be written);
- :func:`common.cli.made_folder` (used here): creates ``--out`` for a command and, when the command fails,
  removes the empty folders it made (a failed run leaves nothing behind and deletes nothing it did not make);
- :func:`grade_owner`: a grade's ``--out`` belongs to one submission (``<out>/.submission`` names it): grading
  another submission there, which would replace that one's reports lab by lab and mix two students in one row
  of ``python -m common.grading summary``, is refused.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from common.errors import UserError


def outside_reference(root: str | Path, out: str | Path, skip_dirs: Iterable[str], flag: str = "--out",
                      what: str = "the reference") -> Path:
    """``out`` resolved; UserError when it is ``root`` or inside it other than under one of ``skip_dirs`` (the
    folders the tree never ships: :data:`common.course.sources.SKIP_DIRS`)."""
    root, out = Path(root).resolve(), Path(out).resolve()
    if out == root or root in out.parents and out.parts[len(root.parts)] not in set(skip_dirs):
        raise UserError(f"{flag} {out} lies inside {what}'s own files: pick a folder under build/ or elsewhere")
    return out


def clear_of_reference(root: str | Path, out: str | Path, files: Iterable[str], flag: str = "--out",
                       what: str = "the reference") -> Path:
    """``out`` resolved; UserError when it is ``root`` or a folder of it that holds some of its own ``files`` (paths
    relative to ``root``, e.g. :func:`common.course.sources.source_files`): a command writing there would mix its
    output with them (an autograder bundle leaves out what ``--out`` holds). A new folder inside ``root`` is fine."""
    root, out = Path(root).resolve(), Path(out).resolve()
    if out != root and root not in out.parents:
        return out
    prefix = "" if out == root else out.relative_to(root).as_posix() + "/"
    if first := next((f for f in files if f.startswith(prefix)), None):
        raise UserError(f"{flag} {out} holds {what}'s own files (such as {first}): pick a folder under build/ or "
                        "elsewhere")
    return out


def _nearest(path: Path) -> Path:
    """``path`` or its nearest parent that exists (as a name: a file or a folder)."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _writable_where(path: Path, base: Path, flag: str) -> None:
    """UserError unless ``base`` (where ``path`` goes: itself, or its nearest existing parent) is a writable folder."""
    base = _nearest(base)
    if not base.is_dir():
        raise UserError(f"cannot create {flag} {path}: {base} is a file, not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise UserError(f"cannot write to {flag} {path}: {base} is not writable (permission denied)")


def folder_target(out: str | Path, flag: str = "--out") -> Path:
    """``out`` when a folder can be made or written there (nothing is created); UserError otherwise."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"{flag} {out} is a file: give a folder")
    _writable_where(out, out, flag)
    return out


def file_target(path: str | Path, flag: str) -> Path:
    """``path`` when a file can be written there (an existing file is replaced; missing folders are made
    later); UserError for a folder, a parent that is a file, or a folder that cannot be written."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{flag} {path} is a folder: give a file name (such as {path / 'gate.json'})")
    _writable_where(path, path.parent, flag)
    return path


#: Set by the Makefile's ``grade`` target (``MLC_GRADE_VIA=make``): the hints then name ``make grade SUB=``. Not
#: ``MAKELEVEL``, which every command run under any make target sees (the suite under ``make test`` included).
GRADE_VIA = "MLC_GRADE_VIA"


def _grade_hint() -> str:
    """How to name a submission, as the user typed the command: ``make grade SUB=`` under ``make grade``
    (:data:`GRADE_VIA`), else the command's own argument."""
    return ("make grade SUB=<the folder holding your lab files>" if os.environ.get(GRADE_VIA) == "make"
            else "give the folder holding the lab files")


def submission_folder(sub: str | Path, shown_as: str | None = None) -> Path:
    """``sub`` when it is a folder; else UserError saying what it is (a zip: unzip it first; another file; nothing)
    and what to give. ``shown_as``: how the messages name it (the autograder: ``your submission``; default ``sub``)."""
    path = Path(sub)
    if path.is_dir():
        return path
    shown = shown_as or str(sub)
    if path.is_file():
        import zipfile
        if zipfile.is_zipfile(path):
            raise UserError(f"{shown} is a zip file, not a folder: unzip it (unzip {sub} -d <folder>) and grade the "
                            "folder it makes")
        raise UserError(f"{shown} is a file, not a folder: {_grade_hint()}")
    if shown_as:
        raise UserError(f"no files in {shown}: nothing was handed in")
    raise UserError(f"no submission folder {shown}: {_grade_hint()}")


#: The file in a grade's ``--out`` that names the submission graded there (its resolved path, one line).
OWNER_FILE = ".submission"


def grade_owner(out: str | Path, sub: str | Path) -> Path | None:
    """Check that ``out`` (a grade's ``--out``) holds no other submission's grade; return the file to write the owner
    to (:data:`OWNER_FILE`), or None when ``out`` is the submission's own folder (a student grading ``.`` with
    ``--out .`` writes no such file into their work). UserError (nothing written) when ``out``'s
    :data:`OWNER_FILE` names another folder than ``sub``."""
    out, sub = Path(out).resolve(), Path(sub).resolve()
    if out == sub:
        return None
    owner = out / OWNER_FILE
    try:
        was = owner.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return owner
    if was and was != str(sub):
        raise UserError(f"--out {out} holds the grade of another submission ({was}): give each submission its own "
                        f"--out (the default is build/grade/<its folder name>), or delete {owner} to replace it")
    return owner
