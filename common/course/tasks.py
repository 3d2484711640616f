"""The course's tasks: every lab's ``tasks.toml``, read and checked.

A lab folder (``lab01_onnx/``) that has student tasks holds a ``tasks.toml``::

    title = "Lab 01: ONNX graph passes"          # the heading of the lab's TASKS.md
    intro = "..."                                 # optional: a paragraph under the heading
    hidden_tests = ["lab01_onnx/test_x.py"]       # optional: graded test files the handout leaves out

    [[task]]
    id = "lab01.reshape"                          # [a-z0-9_-] words joined by dots; unique in the course
    number = "1.1"                                # "<lab>.<n>", unique; the order of the sheet and the grade
    title = "Fuse consecutive Reshapes"
    points = 20                                   # a positive int: the sum of the points of its graded tests
    files = ["lab01_onnx/passes/reshape.py"]      # what the student edits (the grader copies only these)
    functions = ["fuse_at", "fused_shape"]        # the functions holding its solution blocks (qualified names)
    tests = ["lab01_onnx/test_lab.py"]            # the files holding its graded tests (public ones)
    description = "..."                           # what to write (Markdown)
    read = ["lab01_onnx/passes/core.py: ..."]     # optional: what to read first (spec, upstream doc)
    check = ".venv/bin/python -m pytest --task lab01.reshape"   # optional: how to check locally (the default)
    hints = ["..."]                               # optional
    native = true                                 # optional: its files reach raw memory, as the reference (below)

The check command is what the student runs in the handout's root: the project's venv (``make setup``),
never a bare ``pytest`` (outside an activated venv that is the system's, which cannot load the course
plugin). A ``check`` given as ``pytest ...`` is read as ``.venv/bin/python -m pytest ...`` (:data:`PYTEST`).

``native = true`` lets the task's files reach raw memory and foreign calls (:data:`common.course.intake.NATIVE`:
``ctypes``, NumPy's ``ctypeslib`` and ``.ctypes``, ``as_strided``; the grader's own process included) because
the reference does (a memref descriptor pointing native code at NumPy memory); the grader's intake scan refuses
them in every other student file.

Paths are relative to the repository root and must exist. :func:`load_course` raises
:class:`~common.errors.UserError` with one line naming the file, the task and the key for a missing
or mistyped key, an unknown key, a duplicate id or number, a task with no points, or a path that
does not exist (``hidden_tests`` may be absent: the handout has none; :func:`common.course.content.check`
wants them in the reference).
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from common.errors import UserError

TASKS_FILE = "tasks.toml"
#: How a task's check runs pytest: the project venv's, from the repository root.
PYTEST = ".venv/bin/python -m pytest"
SHEET_FILE = "TASKS.md"
ID = re.compile(r"^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$")
NUMBER = re.compile(r"^[0-9]+\.[0-9]+$")

_TASK_KEYS = {  # key -> (type, required)
    "id": (str, True), "number": (str, True), "title": (str, True), "points": (int, True),
    "files": (list, True), "functions": (list, True), "tests": (list, True), "description": (str, True),
    "read": (list, False), "check": (str, False), "hints": (list, False), "native": (bool, False),
}
_LAB_KEYS = {"title": (str, True), "intro": (str, False), "hidden_tests": (list, False), "task": (list, True)}


@dataclass(frozen=True)
class Task:
    """One student task (see the module docstring for the keys); ``lab`` is its lab folder."""

    id: str
    number: str
    title: str
    points: int
    files: tuple[str, ...]
    functions: tuple[str, ...]
    tests: tuple[str, ...]
    description: str
    read: tuple[str, ...]
    check: str
    hints: tuple[str, ...]
    lab: str
    native: bool = False

    @property
    def sort_key(self) -> tuple[int, ...]:
        """``number`` as integers (``"1.10"`` -> ``(1, 10)``), so 1.10 sorts after 1.9.

        Raises:
            ValueError: a part of ``number`` is not an integer (:func:`load_lab` refuses such numbers).
        """
        return tuple(int(p) for p in self.number.split("."))


@dataclass(frozen=True)
class Lab:
    """A lab with tasks: its folder (``lab01_onnx``), title, intro, hidden test files and tasks (by number)."""

    dir: str
    title: str
    intro: str
    hidden_tests: tuple[str, ...]
    tasks: tuple[Task, ...]

    @property
    def graded_files(self) -> tuple[str, ...]:
        """Every file holding graded tests of this lab: the tasks' ``tests``, then the hidden files."""
        out: list[str] = []
        for f in [f for t in self.tasks for f in t.tests] + list(self.hidden_tests):
            if f not in out:
                out.append(f)
        return tuple(out)


@dataclass(frozen=True)
class Course:
    """All labs with tasks under one repository root."""

    root: Path
    labs: tuple[Lab, ...]

    @property
    def tasks(self) -> dict[str, Task]:
        """Task id -> task, in number order."""
        return {t.id: t for lab in self.labs for t in lab.tasks}

    def lab(self, name: str) -> Lab:
        """The lab named by its folder (``lab01_onnx``) or its prefix (``lab01``); UserError otherwise."""
        for lab in self.labs:
            if name in (lab.dir, lab.dir.split("_")[0]):
                return lab
        raise UserError(f"no lab {name!r} with tasks; labs: {', '.join(lab.dir for lab in self.labs)}")

    def task(self, key: str) -> Task:
        """The task with id or number ``key``; UserError naming the known ids otherwise."""
        for t in self.tasks.values():
            if key in (t.id, t.number):
                return t
        raise UserError(f"unknown task {key!r}; known: {', '.join(self.tasks)}")

    def owner_of(self, path: str) -> list[Task]:
        """The tasks that list ``path`` among their ``files``."""
        return [t for t in self.tasks.values() if path in t.files]

    def native(self, path: str) -> bool:
        """Whether the student file ``path`` may reach raw memory: a task of it says ``native = true``."""
        return any(t.native for t in self.owner_of(path))

    @property
    def student_files(self) -> tuple[str, ...]:
        """The manifest: every file a student edits (what ``make grade`` copies from a submission)."""
        return tuple(dict.fromkeys(f for t in self.tasks.values() for f in t.files))

    @property
    def hidden_files(self) -> tuple[str, ...]:
        """Every lab's hidden test files (``hidden_tests`` of its ``tasks.toml``), lab by lab."""
        return tuple(f for lab in self.labs for f in lab.hidden_tests)


def _check_keys(where: str, table: dict, spec: dict) -> None:
    for key in table:
        if key not in spec:
            raise UserError(f"{where}: unknown key {key!r} (known: {', '.join(spec)})")
    for key, (typ, required) in spec.items():
        if key not in table:
            if required:
                what = "has no points" if key == "points" else f"needs the key {key!r}"
                raise UserError(f"{where} {what}")
            continue
        value = table[key]
        if typ is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise UserError(f"{where}: {key} must be an integer, got {value!r}")
        if not isinstance(value, typ):
            raise UserError(f"{where}: {key} must be a {typ.__name__}, got {type(value).__name__}")
        if typ is list and not all(isinstance(v, str) for v in value) and key != "task":
            raise UserError(f"{where}: {key} must be a list of strings")


def load_lab(root: Path, path: Path, *, student_files: bool = True) -> Lab:
    """Read and check one ``tasks.toml`` (see the module docstring); raises UserError. ``student_files=False``
    does not require the tasks' ``files`` to exist (a student's handout, where one may be missing)."""
    rel = path.relative_to(root).as_posix()
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{rel}: not valid TOML: {exc}") from None
    _check_keys(rel, data, _LAB_KEYS)
    tasks = []
    for i, raw in enumerate(data["task"]):
        where = f"{rel}: task {raw.get('id', i + 1)!r}" if isinstance(raw, dict) else f"{rel}: task {i + 1}"
        if not isinstance(raw, dict):
            raise UserError(f"{where} must be a table ([[task]])")
        _check_keys(where, raw, _TASK_KEYS)
        if not ID.match(raw["id"]):
            raise UserError(f"{where}: id must be dotted lower-case words like 'lab01.reshape'")
        if not NUMBER.match(raw["number"]):
            raise UserError(f"{where}: number must look like '1.2', got {raw['number']!r}")
        if raw["points"] <= 0:
            raise UserError(f"{where} has no points (points = {raw['points']})")
        for key in ("files", "functions", "tests"):
            if not raw[key]:
                raise UserError(f"{where}: {key} is empty")
        for f in (raw["files"] if student_files else []) + raw["tests"]:
            if not (root / f).is_file():
                raise UserError(f"{where}: no file {f}")
        tasks.append(Task(id=raw["id"], number=raw["number"], title=raw["title"], points=raw["points"],
                          files=tuple(raw["files"]), functions=tuple(raw["functions"]), tests=tuple(raw["tests"]),
                          description=raw["description"].strip(), read=tuple(raw.get("read", ())),
                          check=check_command(raw.get("check", f"pytest --task {raw['id']}")),
                          hints=tuple(raw.get("hints", ())),
                          lab=path.parent.name, native=raw.get("native", False)))
    tasks.sort(key=lambda t: t.sort_key)
    return Lab(dir=path.parent.name, title=data["title"], intro=data.get("intro", "").strip(),
               hidden_tests=tuple(data.get("hidden_tests", ())), tasks=tuple(tasks))


def check_command(text: str) -> str:
    """A task's check command with a bare leading ``pytest`` spelled as :data:`PYTEST` (see the module docstring)."""
    text = text.strip()
    return PYTEST + text[len("pytest"):] if text == "pytest" or text.startswith("pytest ") else text


def load_course(root: str | Path, *, student_files: bool = True) -> Course:
    """Every ``<lab>/tasks.toml`` under ``root`` (one level down), checked across labs too. ``student_files=False``:
    a task's ``files`` need not exist (a handout a student deleted one from; see :func:`load_lab`).

    Raises:
        UserError: a bad ``tasks.toml`` (see :func:`load_lab`), an id or number used twice, a student
            file claimed by two labs, or no ``tasks.toml`` at all.
    """
    root = Path(root).resolve()
    labs = [load_lab(root, p, student_files=student_files) for p in sorted(root.glob(f"*/{TASKS_FILE}"))]
    if not labs:
        raise UserError(f"no */{TASKS_FILE} under {root}: nothing to build or grade")
    seen: dict[str, str] = {}
    for lab in labs:
        for t in lab.tasks:
            for key in (t.id, t.number):
                if key in seen:
                    raise UserError(f"{lab.dir}/{TASKS_FILE}: task {t.id!r}: {key!r} is used twice "
                                    f"(also by {seen[key]})")
                seen[key] = t.id
    labs.sort(key=lambda lab: min(t.sort_key for t in lab.tasks) if lab.tasks else (0,))
    return Course(root=root, labs=tuple(labs))
