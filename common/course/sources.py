"""Which files make a course tree, and which of them a student never sees.

:func:`source_files` lists a tree: the files git tracks in a work tree (untracked ones are no part of the
reference: :func:`untracked_files`, :func:`untracked_warning`), else a walk that skips caches and
environments (:data:`SKIP_DIRS`; the only way for a submission, where git would obey the submission's own
config). :data:`INSTRUCTOR_ONLY` and :func:`is_binary_result` say what never ships;
:func:`first_commit_texts` reads a handout's files as its first commit holds them (the stubs).
"""
from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

#: Path prefixes of the reference that never reach a student (``fixtures.py``: the tiny course of the course tests,
#: and ``conftest.py``, which starts the release gate beside them and imports it; the mutation-testing data of the
#: reference, whose survivors and equivalent mutants quote solution lines, and the test that reads it; ``course.mk``,
#: the make targets that publish the course, which the Makefile includes only where it exists).
INSTRUCTOR_ONLY = ("common/course/wrong/", "common/course/test_", "common/course/fixtures.py",
                   "common/course/conftest.py", "common/mutation_equivalents.toml", "results/mutation",
                   "common/test_mutation.py", "course.mk")
#: Files under results/ with these suffixes are binaries (plots, SPIR-V, libraries): not in the handout.
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".pdf", ".spv", ".so", ".o", ".a", ".tar", ".gz", ".bin",
                   ".onnx", ".data", ".pt", ".params", ".vmfb", ".npy", ".npz"}
#: Folders that are caches or environments, never part of a tree the course reads or writes.
SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "node_modules",
             "build", "mutants", ".mypy_cache"}
#: Cache and environment folders inside a handout: the leak scan flags them, replacing ``--out`` ignores them.
CACHE_PARTS = {"__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache", ".venv"}


def git_files(root: Path, *which: str) -> set[str] | None:
    """``git ls-files <which>`` under ``root`` (None: no git work tree there, or git failed)."""
    try:
        run = subprocess.run(["git", "-C", str(root), "ls-files", "-z", *which], capture_output=True, check=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return {n for n in run.stdout.decode(errors="surrogateescape").split("\0") if n}


def first_commit_texts(root: Path, rels: Iterable[str], accept=lambda rel, text: True) -> dict[str, str]:
    """``{rel: text}`` of the files ``rels`` as a root commit of the git repository at ``root`` holds them (a
    handout's first commit: the stubs :func:`common.course.release.build` wrote), the first root whose text ``accept(rel, text)``
    takes; a file no root holds so, or every file when ``root`` is no git repository or git fails, is left out.
    For the course's own trees only, never a submission's (git would obey its config)."""
    def git(*args: str) -> bytes | None:
        try:
            return subprocess.run(["git", "-c", "core.fsmonitor=false", "-C", str(root), *args], capture_output=True,
                                  check=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return None

    roots = [c.decode() for c in (git("rev-list", "--max-parents=0", "HEAD") or b"").split()]
    out = {}
    for rel in rels:
        for commit in roots:
            data = git("show", f"{commit}:{rel}")
            if data is not None and accept(rel, text := data.decode(errors="surrogateescape")):
                out[rel] = text
                break
    return out


def source_files(root: Path, *, git: bool = True) -> list[str]:
    """The files of the tree at ``root`` (relative POSIX paths, sorted): the files git tracks when it is a
    work tree (existing files only; untracked ones are no part of the reference, see
    :func:`untracked_files`), else a walk that skips :data:`SKIP_DIRS`. ``git=False``: the walk only, for a
    tree nobody vouches for (a submission: git would run the hooks and commands its own config names)."""
    root = Path(root)
    names = git_files(root, "--cached") if git else None
    if names:
        return sorted(n for n in names if (root / n).is_file() and not (root / n).is_symlink())
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for f in filenames:
            p = Path(dirpath, f)
            if not p.is_symlink() and not f.endswith((".pyc", ".pyo")):
                out.append(p.relative_to(root).as_posix())
    return sorted(out)


def untracked_files(root: Path) -> list[str]:
    """Files under ``root`` that git neither tracks nor ignores (sorted; empty outside a git work tree):
    what :func:`source_files` leaves out and the handout does not ship."""
    root = Path(root)
    if not git_files(root, "--cached"):
        return []
    names = git_files(root, "--others", "--exclude-standard") or set()
    return sorted(n for n in names if (root / n).is_file() and not (root / n).is_symlink())


def untracked_warning(names: list[str], shown: int = 5) -> str | None:
    """The one ``warning:`` line about untracked files left out of the handout (None when there are none)."""
    if not names:
        return None
    more = f", ... ({len(names) - shown} more)" if len(names) > shown else ""
    return (f"warning: {len(names)} untracked file(s) not in the handout (only files git tracks ship; "
            f"git add them to ship them): {', '.join(names[:shown])}{more}")


def is_binary_result(rel: str) -> bool:
    """Whether ``rel`` (a repo-relative path) is a binary under ``results/`` (suffix in :data:`BINARY_SUFFIXES`,
    any case): never shipped in a handout."""
    return rel.startswith("results/") and Path(rel).suffix.lower() in BINARY_SUFFIXES
