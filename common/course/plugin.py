"""The course's pytest plugin: graded tests, ``--task`` selection, "not implemented" reports.

Loaded for every run of the project's suite (``-p common.course.plugin`` in ``pyproject.toml``'s
``addopts``). It costs nothing unless a test carries the marker or an option below is given.

- **Marker.** ``@pytest.mark.task("lab01.reshape", points=2)`` makes a test *graded*: each collected
  item (every ``parametrize`` case) is worth ``points`` (a positive int) toward that task. The id must
  be a task of a lab's ``tasks.toml``; a bad marker stops the run at collection with one line
  (pytest's usage error, exit 4): ``<test id>: unknown task id 'x' (known: ...)``.
- **Options.** ``--task ID`` (id or number, repeatable) runs only that task's graded tests (with no path on
  the command line, pytest collects only the test files and folders that hold them: a test module of another
  lab that does not import, a student's broken file there, cannot stop this task's run);
  ``--graded`` runs only graded tests; ``--task-report PATH`` appends one JSON object per line:
  ``{"kind": "item", "nodeid", "task", "points", "outcome", "message"}`` per graded test (outcome
  ``passed``, ``failed``, ``skipped`` or ``not_implemented``; message: the first line of what went
  wrong), ``{"kind": "ungraded", "nodeid", "outcome", "message"}`` per other test (outcome also
  ``needs_task``), ``{"kind": "collect_error", "nodeid", "message"}`` per file that did not import,
  ``{"kind": "begin", "pid"}`` first (a report holds the records after its last ``begin``: a run re-run
  in a fresh interpreter appends to the same file), ``{"kind": "collected", "nodeids"}`` once the tests
  to run are known, ``{"kind": "start", "nodeid"}`` (graded: also
  ``"task"``, ``"points"`` and ``"line"``) before each test runs (so a run killed in a test names it, and the grader
  can score it 0 and resume after it), and ``{"kind": "session", "exitstatus"}`` last (what
  :mod:`common.course.grade` reads). With ``--task-key-fd FD`` (the grader's), every record also carries
  ``seq`` and ``mac`` (:func:`_signer`: code under test that appends to the file cannot sign), and ``collected``
  the SHA-256 of each test module as pytest imported it (``sources``). ``--task-exclude PATH`` (a file of node ids, one a line) deselects
  exactly those tests (the grader's resume after a crash; ``--deselect`` matches prefixes).
- **Not implemented.** A test that raises :class:`~common.course.notimpl.NotImplementedTask` (also
  wrapped, or folded into another exception's text by a harness) is, when graded, a failure whose
  whole report is one line ``not implemented (0/N points): task <id> (<where>; instructions in ...)``
  (no traceback, and no Hypothesis advice to ``git apply`` a patch of its failing example); when not
  graded, a skip ``needs task <id>, not implemented yet (<where>)``.
- **Summary.** After a run with graded tests, one line per task: points earned of the points of the
  graded tests that ran, and how many passed, failed or are not implemented; when the task is worth
  more, where the rest is: "in tests not run here" (deselected, or files not collected) or "in hidden
  tests" (the task's test files were all collected whole and still fall short: tests this tree lacks).
- **Feedback.** A graded test that fails with a :class:`~common.course.feedback.Counterexample` (a
  harness's report: the shrunk case, expected against actual, where they first differ) gets its whole
  text in the record (``"feedback"``, with Hypothesis's notes); every failed graded record also says
  ``"hypothesis"`` (a ``@given`` test), ``"line"`` (of its ``def``, 1-based) and ``"replay"`` (the
  command that reruns it: ``pytest <nodeid> --hypothesis-seed=N --hypothesis-profile=P`` for a property
  run with a seed, ``pytest <nodeid>`` otherwise); a failed property also says ``"example"``:
  Hypothesis's failing example (its note ``Failing test case: ...``/``Falsifying example: ...``) on one
  line, at most :data:`MAX_EXAMPLE_CHARS` characters.
- **Sealed.** The hooks and helpers run with a private copy of this module's globals (and of the
  builtins), made when the plugin loads (:func:`_seal`): code under test that reassigns an attribute of
  this module (``plugin._outcome = ...``) changes nothing the hooks call.
- **Hypothesis profile** ``course-grade`` (what the grader passes with ``--hypothesis-seed=0``): the
  suite's settings (new examples from the seed, 100 examples unless a test says otherwise, no
  deadline), no example database, one failure per test (``report_multiple_bugs=False``), and the shrink
  phase *on* but bounded: a failing property's report is only worth reading when its case is small (a
  3-node graph, not the 9-node one generation happened to hit), and the cost is paid by failing tests
  only. The bound: the shrinker stops after :data:`GRADE_SHRINK_SECONDS` (Hypothesis's own limit is 300
  s; a run with this profile lowers ``hypothesis.internal.conjecture.engine.MAX_SHRINKING_SECONDS``,
  which Hypothesis documents as patchable, and restores it at the end), so a failing property costs at
  most its examples plus that, well inside the grader's per-test timeout (120 s; 60 s in the gate).
"""
from __future__ import annotations

import hmac as _hmac
import json
import os
import re
import shlex

import pytest

from .feedback import chain, feedback, find
from .notimpl import PATTERN, task_in
from .tasks import PYTEST

GRADE_PROFILE = "course-grade"
#: The most characters of a failed property's one-line failing example in its record (``"example"``).
MAX_EXAMPLE_CHARS = 240
#: Seconds the shrinker may spend on one failing property under the grade profile (see the docstring).
GRADE_SHRINK_SECONDS = 20
try:  # hypothesis is a required package of the project; the profile must exist before its plugin configures
    from hypothesis import HealthCheck, Phase, settings
except ImportError:  # pragma: no cover
    pass
else:
    # Shrinking on (bounded by GRADE_SHRINK_SECONDS): the student's report shows the smallest case found.
    settings.register_profile(GRADE_PROFILE, derandomize=False, print_blob=True, max_examples=100, deadline=None,
                              database=None, suppress_health_check=[HealthCheck.too_slow],
                              report_multiple_bugs=False,
                              phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])

_INFO = pytest.StashKey[tuple]()      # (task id, points)
_PHASES = pytest.StashKey[dict]()     # when -> (outcome, message)
_STATE = pytest.StashKey[dict]()      # per-config state
_SIGN = pytest.StashKey[object]()     # the report's signer (:func:`_signer`), made before the conftests load
_FEEDBACK = pytest.StashKey[str]()    # a failed graded item's Counterexample report ("" when none)
_EXAMPLE = pytest.StashKey[str]()     # a failed graded property's failing example, one line ("" when none)


def pytest_addoption(parser):
    """Add the ``course`` option group: ``--task``, ``--graded``, ``--task-report``, ``--task-exclude``,
    ``--task-key-fd``."""
    group = parser.getgroup("course", "student tasks (common.course)")
    group.addoption("--task", action="append", default=[], metavar="ID",
                    help="run only the graded tests of this task (id like lab01.reshape, or number like 1.1); repeatable")
    group.addoption("--graded", action="store_true", help="run only graded tests (@pytest.mark.task)")
    group.addoption("--task-report", metavar="PATH", help="append one JSON line per test and collection error (for the grader)")
    group.addoption("--task-exclude", metavar="PATH",
                    help="deselect exactly the test ids listed in this file, one a line (the grader's resume after a crash)")
    group.addoption("--task-key-fd", type=int, metavar="FD",
                    help="read the report's signing key from this inherited pipe, then close it (the grader's)")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Take the grader's key before any conftest loads: a lab's conftest may import task files (Lab 03's does),
    and their code must not find the pipe still open."""
    early_config.stash[_SIGN] = _signer(getattr(early_config.known_args_namespace, "task_key_fd", None))


def pytest_configure(config):
    """Register the ``task`` marker and this run's state; open the report under ``--task-report``; bound Hypothesis's
    shrinking to :data:`GRADE_SHRINK_SECONDS` under the grade profile."""
    config.addinivalue_line("markers", "task(id, points=N): a graded test of a student task (common.course); "
                                       "N points per collected test")
    config.stash[_STATE] = {"course": None, "results": [], "report": config.getoption("--task-report"),
                            "shrink_limit": None, "collected": {}, "files": set(), "narrowed": False,
                            "sign": config.stash.get(_SIGN, None)}
    if config.stash[_STATE]["report"]:
        _write(config, {"kind": "begin", "pid": os.getpid()})
        config.pluginmanager.register(_Reporter(config), "common.course.reporter")
    if _option(config, "hypothesis_profile") == GRADE_PROFILE:
        try:
            from hypothesis.internal.conjecture import engine
        except ImportError:  # pragma: no cover
            return
        config.stash[_STATE]["shrink_limit"] = engine.MAX_SHRINKING_SECONDS
        engine.MAX_SHRINKING_SECONDS = GRADE_SHRINK_SECONDS


def pytest_unconfigure(config):
    """Restore Hypothesis's shrinking limit that :func:`pytest_configure` replaced."""
    state = config.stash.get(_STATE, None)
    if state is not None and state["shrink_limit"] is not None:
        from hypothesis.internal.conjecture import engine
        engine.MAX_SHRINKING_SECONDS = state["shrink_limit"]


def _option(config, name: str):
    try:
        return config.getoption(name)
    except ValueError:  # the option's plugin is not loaded
        return None


def _course(config):
    state = config.stash[_STATE]
    if state["course"] is None:
        from common.errors import UserError

        from .tasks import load_course
        try:
            state["course"] = load_course(config.rootpath, student_files=False)  # a student may have deleted one
        except UserError as exc:
            raise pytest.UsageError(f"course tasks: {exc}") from None
    return state["course"]


def _task_paths(config) -> set[str] | None:
    """The graded test files of the ``--task`` tasks (relative POSIX paths; their labs' hidden test files too),
    when the run collects from ``testpaths`` (no path given); None otherwise (collect what pytest would)."""
    state = config.stash[_STATE]
    if "task_paths" not in state:
        paths = None
        no_path = config.args_source in (pytest.Config.ArgsSource.TESTPATHS, pytest.Config.ArgsSource.INVOCATION_DIR)
        if config.getoption("--task") and no_path:
            from common.errors import UserError

            course = _course(config)
            try:
                tasks = [course.task(key) for key in config.getoption("--task")]
            except UserError:  # an unknown id: collection_modifyitems says so in one line
                tasks = None
            if tasks is not None:
                paths = {f for t in tasks for f in (*t.tests, *course.lab(t.lab).hidden_tests)}
        state["task_paths"] = paths
    return state["task_paths"]


def pytest_ignore_collect(collection_path, config):
    """Under ``--task`` with no path given: skip folders that hold none of the task's graded test files (their
    ``conftest.py`` is not loaded either) and test files that are not among them (:func:`_task_paths`)."""
    paths = _task_paths(config)
    if paths is None:
        return None
    try:
        rel = collection_path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return None
    if collection_path.is_dir():
        return None if rel == "." or any(p.startswith(rel + "/") for p in paths) else True
    if collection_path.name.startswith("test_") and collection_path.suffix == ".py":
        return None if rel in paths else True
    return None


_ENCODE = json.JSONEncoder().encode  # bound now (the module attribute json.dumps is code under test's to break)


def _signer(fd: int | None):
    """``record -> record`` for the report: with the grader's key (read from the inherited pipe ``fd``, which is
    closed at once, before any test module is imported), each record gets ``seq`` (0, 1, ... in writing order)
    and ``mac``, HMAC-SHA256 of the record without it (:func:`signed_body`); the key stays in this closure only.
    Without ``fd`` (a student's or a test's own report): records as they are."""
    if fd is None:
        return None
    key = b""
    while chunk := os.read(fd, 64):
        key += chunk
    os.close(fd)
    state = [0]

    def sign(record: dict) -> dict:
        record = {**record, "seq": state[0]}
        state[0] += 1
        return {**record, "mac": _hmac.new(key, signed_body(record), "sha256").hexdigest()}
    return sign


def signed_body(record: dict) -> bytes:
    """The bytes a record's ``mac`` covers: the record without ``mac``, as sorted-key JSON."""
    return _SORTED({k: v for k, v in record.items() if k != "mac"}).encode()


_SORTED = json.JSONEncoder(sort_keys=True).encode


def _write(config, record: dict) -> None:
    state = config.stash[_STATE]
    if state["report"]:
        if state["sign"] is not None:
            record = state["sign"](record)
        with open(state["report"], "a", encoding="utf-8") as fh:
            fh.write(_ENCODE(record) + "\n")


def task_marker(item) -> tuple[str, int] | None:
    """``(task id, points)`` of a graded item, None for an ungraded one; UsageError for a bad marker."""
    mark = item.get_closest_marker("task")
    if mark is None:
        return None
    if len(mark.args) != 1 or not isinstance(mark.args[0], str) or set(mark.kwargs) - {"points"}:
        raise pytest.UsageError(f"{item.nodeid}: the marker is @pytest.mark.task('<task-id>', points=N), "
                                f"got args {mark.args!r} kwargs {mark.kwargs!r}")
    points = mark.kwargs.get("points")
    if isinstance(points, bool) or not isinstance(points, int) or points <= 0:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.task({mark.args[0]!r}) needs points=N, a positive "
                                f"integer (got {points!r})")
    return mark.args[0], points


def _excluded(config) -> set[str]:
    path = config.getoption("--task-exclude")
    if not path:
        return set()
    try:
        with open(path, encoding="utf-8") as fh:
            return {ln.rstrip("\n") for ln in fh if ln.strip()}
    except OSError as exc:
        raise pytest.UsageError(f"--task-exclude: cannot read {path} ({exc.strerror}): give a file of test ids") from None


@pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect: the summary knows what the task's tests were
def pytest_collection_modifyitems(session, config, items):
    """Read the graded tests' markers, then deselect the tests of ``--task-exclude`` and, under ``--task`` or
    ``--graded``, every test that is not a graded test of the chosen tasks.

    Raises:
        pytest.UsageError: a bad ``task`` marker, a marker or ``--task`` naming an unknown task, the course's
            ``tasks.toml`` files do not load, or the ``--task-exclude`` file cannot be read.
    """
    state = config.stash[_STATE]
    state["narrowed"] = any("::" in str(a) for a in config.args)
    root = config.rootpath
    for item in items:
        try:
            state["files"].add(item.path.relative_to(root).as_posix())
        except ValueError:
            pass
    graded = {}
    for item in items:
        info = task_marker(item)
        if info is not None:
            graded[item.nodeid] = info
            item.stash[_INFO] = info
            state["collected"][info[0]] = state["collected"].get(info[0], 0) + info[1]
    excluded = _excluded(config)
    if excluded:
        gone = [item for item in items if item.nodeid in excluded]
        if gone:
            config.hook.pytest_deselected(items=gone)
            items[:] = [item for item in items if item.nodeid not in excluded]
    wanted = config.getoption("--task")
    if not graded and not wanted:
        return
    course = _course(config)
    known = course.tasks
    for nodeid, (task, _) in graded.items():
        if task not in known:
            raise pytest.UsageError(f"{nodeid}: unknown task id {task!r} (known: {', '.join(known)}; "
                                    "see the labs' tasks.toml)")
    selected = set()
    for key in wanted:
        try:
            selected.add(course.task(key).id)
        except Exception as exc:  # noqa: BLE001 - UserError: one line
            raise pytest.UsageError(f"--task: {exc}") from None
    if not (selected or config.getoption("--graded")):
        return
    keep, drop = [], []
    for item in items:
        info = graded.get(item.nodeid)
        ok = info is not None and (not selected or info[0] in selected)
        (keep if ok else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _first_line(text: str) -> str:
    """What went wrong in one line (at most 300 characters): pytest's first ``E`` line, else the first line;
    an exception whose message starts on the next line (NumPy's ``AssertionError:`` then ``Arrays are not
    equal``) gets its next lines joined with "; "."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errs = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    lines = [ln for ln in (errs or lines) if ln]
    if not lines:
        return ""
    if re.fullmatch(r"[\w.]+:", lines[0]) and len(lines) > 1:  # the type alone: its message is below
        return (lines[0] + " " + "; ".join(lines[1:5]))[:300]
    return lines[0][:300]


#: The whole sentence of a NotImplementedTask: ``not implemented: task <id> (<where>; instructions in <file>)``.
_SENTENCE = re.compile(PATTERN.pattern + r" \([^()\n]*\)")


def _not_implemented_line(exc: BaseException, task: str) -> str:
    """The ``not implemented: task ...`` sentence found in ``exc`` (or a short one from the id)."""
    todo, seen = [exc], set()
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        text = str(e)
        m = _SENTENCE.search(text) or PATTERN.search(text)
        if m:
            return m.group(0)[:300]  # the sentence alone, not what a harness printed after it
        todo.extend([e.__cause__, e.__context__, *getattr(e, "exceptions", ())])
    return f"not implemented: task {task}"


#: How Hypothesis's note of the failing example starts (6.1xx: "Failing test case"; older: "Falsifying example").
_EXAMPLE_NOTE = re.compile(r"^(Failing test case|Falsifying example|Failing explicit example|Falsifying explicit "
                           r"example)\s*:\s*", re.S)


def failing_example(exc: BaseException | None, limit: int = MAX_EXAMPLE_CHARS) -> str:
    """Hypothesis's failing example noted on ``exc`` (or its causes, contexts, group members) on one line:
    ``falsifying example: test_f(x=1000, y=[0])``, cut at ``limit`` characters; ``""`` when there is none."""
    for e in chain(exc):
        for note in getattr(e, "__notes__", ()) or ():
            m = _EXAMPLE_NOTE.match(str(note))
            if m:
                text = " ".join(ln.strip() for ln in str(note)[m.end():].splitlines() if ln.strip())
                text = re.sub(r"([(\[{]) ", r"\1", re.sub(r",? ([)\]}])", r"\1", text))
                text = f"falsifying example: {text}"
                return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."
    return ""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Record each phase's outcome of a test for the summary and report; a stub's ``NotImplementedTask`` makes
    a graded test "not implemented (0/N points)" and skips an ungraded one."""
    rep = yield
    if rep.when not in ("setup", "call", "teardown"):
        return rep
    info = item.stash.get(_INFO, None)
    phases = item.stash.setdefault(_PHASES, {})
    task = task_in(call.excinfo.value) if call.excinfo is not None and rep.failed else None
    if task is not None and rep.when in ("setup", "call"):
        line = _not_implemented_line(call.excinfo.value, task)
        # Hypothesis's pytest plugin would print "`git apply .hypothesis/patches/...` to add failing test
        # cases": a stub's failure is no test case worth keeping (it reads this attribute at teardown)
        item.__dict__.pop("_hypothesis_failing_examples", None)
        if info is not None:
            rep.longrepr = f"not implemented (0/{info[1]} points): {line.removeprefix('not implemented: ')}"
            phases[rep.when] = ("not_implemented", line)
        else:
            m = re.search(r"\(([^()]*)\)$", line)
            where = m.group(1) if m else "see the lab's TASKS.md"
            rep.outcome = "skipped"
            rep.longrepr = (str(item.path), (item.location[1] or 0) + 1,
                            f"Skipped: needs task {task}, not implemented yet ({where})")
            phases[rep.when] = ("needs_task", f"needs task {task}")
        return rep
    if rep.failed:
        message = call.excinfo.exconly() if call.excinfo is not None else rep.longreprtext
        found = find(call.excinfo.value) if call.excinfo is not None else None
        if found is not None:  # its class name without the module, then the report's first line
            message = f"{type(found).__name__}: {str(found).lstrip()}"
        phases[rep.when] = ("failed", _first_line(message))
        if info is not None and found is not None and _FEEDBACK not in item.stash:
            item.stash[_FEEDBACK] = feedback(found)
        if info is not None and call.excinfo is not None and _EXAMPLE not in item.stash:
            item.stash[_EXAMPLE] = failing_example(call.excinfo.value)
    elif rep.skipped:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        phases[rep.when] = ("skipped", _first_line(str(reason)))
    else:
        phases.setdefault(rep.when, ("passed", ""))
    return rep


def _outcome(phases: dict) -> tuple[str, str]:
    for when in ("setup", "call", "teardown"):
        outcome, message = phases.get(when, ("passed", ""))
        if outcome != "passed":
            return outcome, (message if when != "teardown" else f"teardown: {message}")
    if "call" not in phases:
        return "failed", "did not run"
    return "passed", ""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Write a ``start`` record before the test runs and its outcome record after (graded: to the summary too)."""
    # written before the test runs: a run killed by a signal in it (a segfault in native code, an MLIR
    # assertion) still says which test it was (common.course.grade names it)
    info = item.stash.get(_INFO, None)
    start = {"kind": "start", "nodeid": item.nodeid}
    if info is not None:
        start.update(task=info[0], points=info[1], line=(item.location[1] or 0) + 1)
    _write(item.config, start)
    res = yield
    outcome, message = _outcome(item.stash.get(_PHASES, {}))
    if info is not None:
        record = {"kind": "item", "nodeid": item.nodeid, "task": info[0], "points": info[1],
                  "outcome": outcome, "message": message}
        if outcome == "failed":
            record.update(_failure_details(item))
        item.config.stash[_STATE]["results"].append(record)
        _write(item.config, record)
    else:
        _write(item.config, {"kind": "ungraded", "nodeid": item.nodeid, "outcome": outcome, "message": message})
    return res


def _failure_details(item) -> dict:
    """``feedback``, ``hypothesis``, ``line`` and ``replay`` of a failed graded item (see the docstring)."""
    obj = getattr(item, "obj", None)
    prop = bool(getattr(obj, "is_hypothesis_test", False))
    seed = _option(item.config, "hypothesis_seed")
    replay = f"{PYTEST} {shlex.quote(item.nodeid)}"  # the venv's pytest; quoted: ids hold [ ] (shell globs)
    if prop and seed is not None:
        replay += f" --hypothesis-seed={seed}"
        profile = _option(item.config, "hypothesis_profile")
        if profile:
            replay += f" --hypothesis-profile={profile}"
    out = {"feedback": item.stash.get(_FEEDBACK, ""), "hypothesis": prop, "line": (item.location[1] or 0) + 1,
           "replay": replay}
    if item.stash.get(_EXAMPLE, ""):
        out["example"] = item.stash[_EXAMPLE]
    return out


class _Reporter:
    """Writes the collection errors and the session's end to ``--task-report`` (registered by configure)."""

    def __init__(self, config):
        self.config = config
        self.sources: dict[str, str] = {}

    def pytest_pycollect_makemodule(self, module_path, parent):
        """The SHA-256 of each test module as pytest is about to import it (code under test that ran at an
        earlier module's import could have rewritten it): the grader compares them with its own copy."""
        import hashlib
        with open(module_path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        self.sources[os.path.relpath(module_path, self.config.rootpath)] = digest

    def pytest_collection_finish(self, session):
        _write(self.config, {"kind": "collected", "nodeids": [item.nodeid for item in session.items],
                             "sources": self.sources})

    def pytest_collectreport(self, report):
        if report.failed:
            _write(self.config, {"kind": "collect_error", "nodeid": report.nodeid,
                                 "message": _first_line(report.longreprtext)})

    def pytest_sessionfinish(self, session, exitstatus):
        _write(self.config, {"kind": "session", "exitstatus": int(exitstatus)})


def _rest(task, here: int, collected: int | None, whole: bool) -> str:
    """Where the points of ``task`` beyond the ``here`` that ran are (see the module docstring)."""
    if task.points <= here:
        return ""
    collected = here if collected is None else collected
    where = []
    if collected > here or (task.points > collected and not whole):
        where.append("tests not run here")
    if task.points > collected and whole:
        where.append("hidden tests")
    return f" (the task is worth {task.points}; the rest is in {' and in '.join(where)})"


def summary_lines(results: list[dict], course=None, collected: dict | None = None, files=None,
                  narrowed: bool = True) -> list[str]:
    """One line per task of ``results`` (the plugin's item records), in task number order.

    ``collected``: task id -> points of its graded tests collected (before any deselection); ``files``: the
    test files collected; ``narrowed``: the run named single tests. "hidden tests" only when every test file
    of the task was collected whole and its tests still fall short of its points."""
    by_task: dict[str, list[dict]] = {}
    for r in results:
        by_task.setdefault(r["task"], []).append(r)
    tasks = course.tasks if course is not None else {}
    order = sorted(by_task, key=lambda t: tasks[t].sort_key if t in tasks else (999,))
    lines = []
    for tid in order:
        rs = by_task[tid]
        got = sum(r["points"] for r in rs if r["outcome"] == "passed")
        here = sum(r["points"] for r in rs)
        counts = {k: sum(r["outcome"] == k for r in rs) for k in ("passed", "failed", "not_implemented", "skipped")}
        parts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if v)
        t = tasks.get(tid)
        head = f"task {t.number} {tid}" if t is not None else f"task {tid}"
        whole = not narrowed and files is not None and t is not None and all(f in files for f in t.tests)
        total = _rest(t, here, (collected or {}).get(tid), whole) if t is not None else ""
        lines.append(f"{head}: {got}/{here} points{total}: {parts}")
    return lines


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Print the ``course tasks`` section (points per task of the graded tests that ran), then, outside the grader,
    the files its intake would refuse."""
    results = config.stash[_STATE]["results"]
    if not results:
        return
    terminalreporter.section("course tasks")
    state = config.stash[_STATE]
    for line in summary_lines(results, state["course"], state["collected"], state["files"], state["narrowed"]):
        terminalreporter.write_line(line)
    if state["course"] is not None and not config.getoption("--task-report"):
        for line in refused_lines(state["course"], [r["task"] for r in results]):
            terminalreporter.write_line(line)


def refused_lines(course, task_ids) -> list[str]:
    """One ``warning:`` line per file of these tasks that the grader's intake scan would refuse
    (:func:`common.course.intake.tampering`): the local check passes it, ``make grade`` takes the stub."""
    import importlib.util

    from .intake import packages, tampering

    own = packages(course.root)
    out = []
    for rel in dict.fromkeys(f for t in dict.fromkeys(task_ids) for f in course.tasks[t].files):
        path = course.root / rel
        try:
            why = (tampering(importlib.util.decode_source(path.read_bytes()), rel, own, course.native(rel))
                   if path.is_file() else [])
        except (SyntaxError, ValueError, UnicodeDecodeError) as exc:  # the tests above said so already
            why = [f"does not compile ({type(exc).__name__}: {exc})"]
        if why:
            out.append(f"warning: {rel} would not be graded (the grader takes the handout's stub instead): "
                       f"it {why[0]}" + (f" (and {len(why) - 1} more)" if len(why) > 1 else ""))
    return out


def _seal(namespace: dict) -> None:
    """Give every function of this module (hooks, helpers, methods of its classes) a private copy of the
    module's globals and of the builtins, taken now: pluggy holds these function objects, and what they
    look up by name no longer goes through the module, so ``plugin._outcome = ...`` from code under test
    (or ``builtins.open = ...``) changes nothing they call."""
    import builtins
    import types

    snap = dict(namespace)
    for k, v in vars(builtins).items():
        snap.setdefault(k, v)
    name = namespace["__name__"]

    def rebind(f):
        g = types.FunctionType(f.__code__, snap, f.__name__, f.__defaults__, f.__closure__)
        g.__kwdefaults__, g.__qualname__, g.__doc__ = f.__kwdefaults__, f.__qualname__, f.__doc__
        g.__module__, g.__annotations__ = f.__module__, f.__annotations__
        g.__dict__.update(f.__dict__)  # pluggy's hookimpl options (pytest_impl)
        return g

    for key, obj in list(namespace.items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ == name:
            snap[key] = namespace[key] = rebind(obj)
        elif isinstance(obj, type) and obj.__module__ == name:
            for attr, fn in list(vars(obj).items()):
                if isinstance(fn, types.FunctionType):
                    setattr(obj, attr, rebind(fn))


_seal(globals())
