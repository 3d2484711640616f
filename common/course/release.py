"""The student handout (``make student``): the reference without its solutions or hidden tests.

``python -m common.course student --out build/student`` checks the course (:func:`check`), then writes
a fresh git repository with one commit and no history at ``--out``:

- every file git tracks in the reference (``git ls-files --cached``; a tree that is no git work tree is
  walked), except the instructor's (:data:`INSTRUCTOR_ONLY`: the known wrong submissions, the course's
  own tests, the mutation-testing data that quotes the solutions), the labs' ``hidden_tests`` files and
  binaries under ``results/`` (:data:`BINARY_SUFFIXES`; the text tables stay). Files git does not
  track (a folder of students' submissions, notes) never ship: one ``warning:`` line on stderr counts
  the untracked, non-ignored ones left out and names the first few (:func:`untracked_files`);
- Python files through :func:`common.course.markers.render`: solution blocks become stubs raising
  :class:`~common.course.notimpl.NotImplementedTask`, stub blocks go live, hidden-test blocks go.
  An import or a local that the stubbed text leaves unused gets ``  # noqa: F401`` (or ``F841``) at the
  end of the line ruff reports it on (:func:`add_noqa`), so the handout's linter stays clean and still
  checks the student's own code in the file;
- Markdown files through :func:`handout_text` (:func:`common.course.markers.render_markdown`): an
  instructor-only span (``<!-- instructor -->`` ... ``<!-- /instructor -->``, each marker alone on its
  line) goes, and a student-only span (an HTML comment ``<!-- student`` ... ``-->``, invisible in the
  reference) becomes plain text. :func:`check` finds them (``Scan.blocks``), so the grader knows the
  handout's version of such a file as given, not edited.

Then the written handout goes through :func:`leak_scan`; anything it finds (a line of solution code or
of a hidden test, an instructor-only file, a marker, ...) stops the command before ``--out`` is touched:
:class:`~common.errors.GateFailed` (exit 1), one line per leak.

``--classroom`` also writes the GitHub Classroom workflow (:mod:`common.course.classroom`) into the handout.

``--out`` is replaced only when it is a handout this command wrote (its one commit says so) that holds
nothing else: a file its commit does not hold (``mywork.txt``, a ``build/grade/`` report, ignored or not) or a
file changed since stops the command, naming them (:func:`handout_changes`; caches and ``.venv`` do not count);
otherwise the command refuses too. ``--out`` inside the reference's own files, a file, or under a file is
refused before anything is read. Errors (one line, exit 2: :class:`~common.errors.UserError`): a bad
``tasks.toml``, a bad marker or Markdown span, a solution block of a task in a file the task does not list, a task
without solution blocks or whose blocks sit in other functions than it lists, a graded test naming an
unknown task or points that are not a positive int, a task with no graded test, a graded test in a
file the grader does not run, a handout file that does not compile.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from common.errors import GateFailed, UserError
from common.results import swap_folder

from . import markers
from .cliargs import folder_target, outside_reference
from .tasks import Course, load_course

#: Path prefixes of the reference that never reach a student (``fixtures.py``: the tiny course of the course tests,
#: and ``conftest.py``, which starts the release gate beside them and imports it; the mutation-testing data of the
#: reference, whose survivors and equivalent mutants quote solution lines, and the test that reads it).
INSTRUCTOR_ONLY = ("common/course/wrong/", "common/course/test_", "common/course/fixtures.py",
                   "common/course/conftest.py", "common/mutation_equivalents.toml", "results/mutation",
                   "common/test_mutation.py")
#: Files under results/ with these suffixes are binaries (plots, SPIR-V, libraries): not in the handout.
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".pdf", ".spv", ".so", ".o", ".a", ".tar", ".gz", ".bin",
                   ".onnx", ".data", ".pt", ".params", ".vmfb", ".npy", ".npz"}
#: Folders that are caches or environments, never part of a tree the course reads or writes.
SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "node_modules",
             "build", "mutants", ".mypy_cache"}
COMMIT_MESSAGE = "ml-compiler-labs student handout"
_GIT_ENV = {"GIT_AUTHOR_NAME": "ml-compiler-labs", "GIT_AUTHOR_EMAIL": "course@ml-compiler-labs.invalid",
            "GIT_COMMITTER_NAME": "ml-compiler-labs", "GIT_COMMITTER_EMAIL": "course@ml-compiler-labs.invalid"}


def _git_files(root: Path, *which: str) -> set[str] | None:
    """``git ls-files <which>`` under ``root`` (None: no git work tree there, or git failed)."""
    try:
        run = subprocess.run(["git", "-C", str(root), "ls-files", "-z", *which], capture_output=True, check=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return {n for n in run.stdout.decode(errors="surrogateescape").split("\0") if n}


def first_commit_texts(root: Path, rels: Iterable[str], accept=lambda rel, text: True) -> dict[str, str]:
    """``{rel: text}`` of the files ``rels`` as a root commit of the git repository at ``root`` holds them (a
    handout's first commit: the stubs :func:`build` wrote), the first root whose text ``accept(rel, text)``
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
    names = _git_files(root, "--cached") if git else None
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
    if not _git_files(root, "--cached"):
        return []
    names = _git_files(root, "--others", "--exclude-standard") or set()
    return sorted(n for n in names if (root / n).is_file() and not (root / n).is_symlink())


def untracked_warning(names: list[str], shown: int = 5) -> str | None:
    """The one ``warning:`` line about untracked files left out of the handout (None when there are none)."""
    if not names:
        return None
    more = f", ... ({len(names) - shown} more)" if len(names) > shown else ""
    return (f"warning: {len(names)} untracked file(s) not in the handout (only files git tracks ship; "
            f"git add them to ship them): {', '.join(names[:shown])}{more}")


def is_binary_result(rel: str) -> bool:
    return rel.startswith("results/") and Path(rel).suffix.lower() in BINARY_SUFFIXES


@dataclass
class Scan:
    """What :func:`check` found: the blocks per Python file (and the instructor/student spans per Markdown
    file) and the graded markers per task."""

    blocks: dict[str, list[markers.Block]] = field(default_factory=dict)
    graded: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)  # task -> [(file, line, points)]


def _is_task_mark(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("pytest.mark.task", "mark.task")


def graded_marks(text: str, path: str) -> list[tuple[str | None, object, int]]:
    """``(task id or None, points, line)`` of every ``pytest.mark.task(...)`` call in a test file."""
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
    """``{relative path: bytes}`` of the handout (before the linter's noqa comments, :func:`add_noqa`)."""
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


# The comment :func:`add_noqa` puts on a line ruff reports; :func:`strip_noqa` takes it off again.
NOQA_CODES = ("F401", "F841")  # an unused import, an unused local: what a stub leaves behind
_NOQA = re.compile(r"  # noqa: (?:F401|F841)(?:, (?:F401|F841))*$", re.M)


def _ruff_noqa(out_dir: Path, files: list[str]) -> dict[str, dict[int, set[str]]]:
    """Where ruff finds :data:`NOQA_CODES` in ``files`` of the handout: ``{file: {noqa line (1-based): codes}}``.

    The line is ruff's ``noqa_row`` (a multi-line import's reported name, a statement's first line), the one a
    ``# noqa`` comment must end to count (ruff's docs, "Error suppression")."""
    if not files:
        return {}
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", ",".join(NOQA_CODES),
                          "--output-format", "json", *files], cwd=out_dir, capture_output=True, text=True, timeout=120)
    try:
        found = json.loads(run.stdout or "[]")
    except json.JSONDecodeError:
        raise UserError(f"ruff failed on the handout: {(run.stderr or run.stdout).strip()[:200]}") from None
    rows: dict[str, dict[int, set[str]]] = {}
    for d in found:
        rel = Path(d["filename"]).resolve().relative_to(out_dir.resolve()).as_posix()
        rows.setdefault(rel, {}).setdefault(d.get("noqa_row") or d["location"]["row"], set()).add(d["code"])
    return rows


def add_noqa(text: str, rows: dict[int, set[str]]) -> str:
    """``text`` with ``  # noqa: CODES`` at the end of each line of ``rows`` (``{1-based line: codes}``).

    Raises UserError when a row is past the end of ``text`` (ruff read another file)."""
    lines = text.split("\n")
    for row, codes in rows.items():
        if not 0 < row <= len(lines):
            raise UserError(f"ruff reported line {row} of a {len(lines)}-line handout file: run make student again")
        lines[row - 1] += f"  # noqa: {', '.join(sorted(codes))}"
    return "\n".join(lines)


def strip_noqa(text: str) -> str:
    """``text`` without the comments :func:`add_noqa` writes (a handout file as :func:`handout_text` gives it)."""
    return _NOQA.sub("", text)


def lint(out_dir: Path) -> list[str]:
    """ruff's findings on a written handout (the project's ``pyproject.toml`` rules), one ``file:line: CODE text``
    each; empty when it is clean, as a student's first ``ruff check`` should find it."""
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=out_dir, capture_output=True, text=True, timeout=120)
    if run.returncode == 0:
        return []
    return [ln for ln in run.stdout.splitlines() if ln.count(":") >= 3] or [(run.stderr or run.stdout).strip()[:200]]


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
    (:data:`CACHE_PARTS`, ``*.pyc``) do not count."""
    tracked = _git_files(path, "--cached") or set()
    changed = _git_files(path, "--modified") or set()
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if d != ".git" and d not in CACHE_PARTS and not d.endswith(".egg-info")]
        for f in filenames:
            rel = Path(dirpath, f).relative_to(path).as_posix()
            if (rel not in tracked or rel in changed) and not f.endswith((".pyc", ".pyo")):
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
    for rel, data in files.items():
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        if os.access(course.root / rel, os.X_OK):
            p.chmod(0o755)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def build(root: str | Path, out: str | Path, *, git: bool = True, extra: dict[str, bytes] | None = None,
          leak_check: bool = True, warn=_stderr) -> Handout:
    """Write the handout of the reference at ``root`` to ``out`` (see the module docstring).

    ``extra``: more files (``{relative path: bytes}``, e.g. the GitHub Classroom workflow of
    :mod:`common.course.classroom`) written into the handout before its commit. ``leak_check``: run
    :func:`leak_scan` on the new handout before it replaces ``out`` (the release gate runs it itself and
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
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise UserError(f"cannot create --out {out}: {exc.strerror or exc}") from None
    try:
        write_tree(course, tree, tmp)
        changed = [rel for rel in tree if rel in scan.blocks and rel.endswith(".py")]
        for rel, rows in _ruff_noqa(tmp, changed).items():
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
        swap_folder(tmp, out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UserError(f"writing the handout failed ({exc.strerror or exc}: {exc.filename or out}); {out} is as it "
                        "was") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    stubs: dict[str, int] = {}
    hidden = 0
    for bs in scan.blocks.values():
        for b in bs:
            if b.kind == markers.SOLUTION:
                stubs[b.task] = stubs.get(b.task, 0) + 1
            hidden += b.kind == markers.HIDDEN
    left = [rel for rel in files if excluded(course, rel)]
    return Handout(out=out, files=len(tree), stubs=stubs, hidden_blocks=hidden, left_out=left, untracked=untracked)


CACHE_PARTS = {"__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache", ".venv"}
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

    ``course``, ``files``, ``scan``: the reference already read (:func:`build` passes them).
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
