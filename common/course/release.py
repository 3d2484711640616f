"""The student handout (``make student``): the reference without its solutions or hidden tests.

``python -m common.course student --out build/student`` checks the course (:func:`common.course.content.check`), then writes
a fresh git repository with one commit and no history at ``--out``:

- every file git tracks in the reference (``git ls-files --cached``; a tree that is no git work tree is
  walked), except the instructor's (:data:`common.course.sources.INSTRUCTOR_ONLY`: the known wrong submissions, the course's
  own tests, the mutation-testing data that quotes the solutions), the labs' ``hidden_tests`` files and
  binaries under ``results/`` (:data:`common.course.sources.BINARY_SUFFIXES`; the text tables stay). Files git does not
  track (a folder of students' submissions, notes) never ship: one ``warning:`` line on stderr counts
  the untracked, non-ignored ones left out and names the first few (:func:`common.course.sources.untracked_files`);
- Python files through :func:`common.course.markers.render`: solution blocks become stubs raising
  :class:`~common.course.notimpl.NotImplementedTask`, stub blocks go live, hidden-test blocks go.
  An import or a local that the stubbed text leaves unused gets ``  # noqa: F401`` (or ``F841``) at the
  end of the line ruff reports it on (:func:`common.course.lint.add_noqa`), so the handout's linter stays clean and still
  checks the student's own code in the file;
- Markdown files through :func:`common.course.content.handout_text` (:func:`common.course.markers.render_markdown`): an
  instructor-only span (``<!-- instructor -->`` ... ``<!-- /instructor -->``, each marker alone on its
  line) goes, and a student-only span (an HTML comment ``<!-- student`` ... ``-->``, invisible in the
  reference) becomes plain text. :func:`~common.course.content.check` finds them (``Scan.blocks``), so the grader knows the
  handout's version of such a file as given, not edited.

Then the written handout goes through :func:`common.course.leaks.leak_scan`; anything it finds (a line of solution code or
of a hidden test, an instructor-only file, a marker, ...) stops the command before ``--out`` is touched:
:class:`~common.errors.GateFailed` (exit 1), one line per leak.

``--classroom`` also writes the GitHub Classroom workflow (:mod:`common.course.classroom`) into the handout.

``--out`` is replaced only when it is a handout this command wrote (its one commit says so) that holds
nothing else: a file its commit does not hold (``mywork.txt``, a ``build/grade/`` report, ignored or not) or a
file changed since stops the command, naming them (:func:`handout_changes`; caches and ``.venv`` do not count);
otherwise the command refuses too. Its ``.venv`` (a folder or a link) is kept: moved aside while ``--out`` is
replaced and back into the new handout (into the old one when the command fails). ``--out`` inside the reference's own files, a file, or under a file is
refused before anything is read. Errors (one line, exit 2: :class:`~common.errors.UserError`): a bad
``tasks.toml``, a bad marker or Markdown span, a solution block of a task in a file the task does not list, a task
without solution blocks or whose blocks sit in other functions than it lists, a graded test naming an
unknown task or points that are not a positive int, a task with no graded test, a graded test in a
file the grader does not run, a handout file that does not compile.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from common.errors import GateFailed, UserError
from common.results import new_folder

from . import markers
from .cliargs import folder_target, outside_reference
from .leaks import leak_scan
from .lint import add_noqa, noqa_rows
from .content import check, excluded, plan
from .sources import CACHE_PARTS, SKIP_DIRS, git_files, source_files, untracked_files, untracked_warning
from .tasks import Course, load_course

COMMIT_MESSAGE = "ml-compiler-labs student handout"
_GIT_ENV = {"GIT_AUTHOR_NAME": "ml-compiler-labs", "GIT_AUTHOR_EMAIL": "course@ml-compiler-labs.invalid",
            "GIT_COMMITTER_NAME": "ml-compiler-labs", "GIT_COMMITTER_EMAIL": "course@ml-compiler-labs.invalid"}


def _git(out: Path, *args: str) -> str:
    env = {**os.environ, **_GIT_ENV}
    run = subprocess.run(["git", "-C", str(out), "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
                         capture_output=True, text=True, env=env, timeout=120)
    if run.returncode != 0:
        raise UserError(f"git {args[0]} failed in {out}: {(run.stderr or run.stdout).strip()[:200]}")
    return run.stdout


def is_handout(path: Path) -> bool:
    """Whether ``path`` is a git repository whose one commit is a handout this module wrote."""
    if not (path / ".git").exists():
        return False
    run = subprocess.run(["git", "-C", str(path), "log", "--format=%s"], capture_output=True, text=True, timeout=30)
    return run.returncode == 0 and run.stdout.splitlines() == [COMMIT_MESSAGE]


def handout_changes(path: Path) -> list[str]:
    """What replacing the handout at ``path`` would lose (sorted): files its commit does not hold (a student's
    work, a ``build/grade/`` report, ignored ones too) and the ones changed since; caches and environments
    (:data:`common.course.sources.CACHE_PARTS`, ``*.pyc``) do not count."""
    tracked = git_files(path, "--cached") or set()
    changed = git_files(path, "--modified") or set()
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if d != ".git" and d not in CACHE_PARTS and not d.endswith(".egg-info")]
        for f in filenames:
            rel = Path(dirpath, f).relative_to(path).as_posix()
            if (rel not in tracked or rel in changed) and not f.endswith((".pyc", ".pyo")) and f not in CACHE_PARTS:
                out.append(rel)
    return sorted(out)


@dataclass
class Handout:
    """What :func:`build` wrote: the folder, the file count, stubs per task, hidden blocks dropped, the
    reference's files left out, and the untracked files that were not shipped."""

    out: Path
    files: int
    stubs: dict[str, int]
    hidden_blocks: int
    left_out: list[str]
    untracked: list[str] = field(default_factory=list)


def write_tree(course: Course, files: dict[str, bytes], dest: Path) -> None:
    """Write ``files`` (``{path relative to the course root: bytes}``) under ``dest``, making folders as needed;
    a file executable in the course (``course.root / path``) is made ``0o755``."""
    for rel, data in files.items():
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        if os.access(course.root / rel, os.X_OK):
            p.chmod(0o755)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _venv_kept(out: Path) -> Iterator[None]:
    """``out/.venv`` (a student's environment: gigabytes, or a link to one) moved beside ``out`` while the block
    replaces ``out``, then back into whichever ``out`` stands: the new handout, or the old one when the block raised."""
    venv = out / ".venv"
    if not (venv.is_symlink() or venv.exists()):
        yield
        return
    aside = out.parent / f".{out.name}.venv-kept"
    os.rename(venv, aside)
    try:
        yield
    finally:
        out.mkdir(exist_ok=True)
        os.rename(aside, out / ".venv")


def build(root: str | Path, out: str | Path, *, git: bool = True, extra: dict[str, bytes] | None = None,
          leak_check: bool = True, warn=_stderr) -> Handout:
    """Write the handout of the reference at ``root`` to ``out`` (see the module docstring).

    ``extra``: more files (``{relative path: bytes}``, e.g. the GitHub Classroom workflow of
    :mod:`common.course.classroom`) written into the handout before its commit. ``leak_check``: run
    :func:`common.course.leaks.leak_scan` on the new handout before it replaces ``out`` (the release gate runs it itself and
    records what it finds). ``warn``: gets the one line about untracked files left out (default: stderr).

    Raises:
        UserError: a check failed, or ``out`` exists and is not a handout this command wrote.
        GateFailed: the leak scan found something (one line per leak); ``out`` is left as it was.
    """
    course = load_course(root)
    out = folder_target(outside_reference(course.root, out, SKIP_DIRS))
    if out.exists() and any(out.iterdir()):
        if not is_handout(out):
            raise UserError(f"{out} exists and is not a handout written by this command: remove it or pick another "
                            "--out")
        if lost := handout_changes(out):
            more = f", ... ({len(lost) - 5} more)" if len(lost) > 5 else ""
            raise UserError(f"{out} holds {len(lost)} file(s) the handout did not write or that changed since (they "
                            f"would be lost): {', '.join(lost[:5])}{more}; move them out or pick another --out")
    files = source_files(course.root)
    untracked = untracked_files(course.root)
    scan = check(course, files)
    tree = plan(course, scan, files)
    for rel, data in (extra or {}).items():
        if rel in tree:
            raise UserError(f"{rel}: the reference has this file already; the handout cannot add its own")
        tree[rel] = data
    if (line := untracked_warning(untracked)) and warn is not None:
        warn(line)
    try:  # a folder the checks above could not foresee (a file system that refuses it: /proc, a full disk)
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create --out {out}: {exc.strerror or exc}") from None
    try:
        with _venv_kept(out), new_folder(out) as tmp:
            write_tree(course, tree, tmp)
            changed = [rel for rel in tree if rel in scan.blocks and rel.endswith(".py")]
            for rel, rows in noqa_rows(tmp, changed).items():
                p = tmp / rel
                p.write_text(add_noqa(p.read_text(), rows))
            if git:
                _git(tmp, "init", "-q")
                _git(tmp, "add", "-A", "-f")
                _git(tmp, "commit", "-q", "-m", COMMIT_MESSAGE)
            if leak_check:
                leaks = leak_scan(course.root, tmp, course=course, files=files, scan=scan)
                if leaks:
                    raise GateFailed(f"the leak scan found {len(leaks)} problem(s) in the handout; {out} was not "
                                     "written:\n" + "\n".join(leaks))
    except OSError as exc:
        raise UserError(f"writing the handout failed ({exc.strerror or exc}: {exc.filename or out}); {out} is as it "
                        "was") from None
    stubs: dict[str, int] = {}
    hidden = 0
    for bs in scan.blocks.values():
        for b in bs:
            if b.kind == markers.SOLUTION:
                stubs[b.task] = stubs.get(b.task, 0) + 1
            hidden += b.kind == markers.HIDDEN
    left = [rel for rel in files if excluded(course, rel)]
    return Handout(out=out, files=len(tree), stubs=stubs, hidden_blocks=hidden, left_out=left, untracked=untracked)
