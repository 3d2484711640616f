"""The grader (``make grade SUB=<folder>``): per-lab Gradescope ``results.json`` and a Markdown table.

``python -m common.course grade SUB [--out build/grade/<SUB's name>] [--lab lab01] [--task 1.3] [--timeout 120]``:

1. makes a clean copy of the reference's tree (its files as :func:`~common.course.sources.source_files`
   lists them, without ``results/`` and ``data/``; the same ``.venv`` runs it) where every student file
   (the manifest: the tasks' ``files``) is first the handout's stub, so a file the submission lacks
   scores 0, never the reference's solution;
2. copies the manifest's files from ``SUB`` over it; one that does not compile stays the stub and its
   tasks score 0 with the error's first line (``SyntaxError: ... (file, line N)``). So does one that
   :func:`tampering` refuses (a static scan: it imports or reaches the grader, the test framework, the
   import machinery or the tests, walks frames, monkeypatches a module the tests use): it is listed as
   ``<file>: imports common.course.plugin (the grader) at line 1: not graded, left as the handout's``; so does
   one that is a symbolic link (:data:`SYMLINK`: never followed). A task whose tests then ran the stub says so
   (``scored 0: they ran the handout's stub in place of <file>``), not "not implemented yet".
   Every other file of ``SUB`` that differs from both the handout and the reference (its own
   ``conftest.py``, edits to given files) is ignored and listed;
3. runs, per lab, the graded tests of the lab's tasks (``--graded``, the reference's test files, hidden
   ones included; ``--task``: only those tasks) with ``--hypothesis-seed=0`` (the plugin's ``course-grade``
   profile: shrinking bounded to :data:`~common.course.plugin.GRADE_SHRINK_SECONDS` per failing property) and
   ``--timeout`` seconds per test (pytest-timeout's *thread* method: the signal method raises inside the
   test, where Hypothesis catches it as a failure and replays the hanging example with no timer left), in a
   fresh interpreter (:func:`common.course.runner.run_pytest`). A test that ends the process (a segfault, a
   per-test timeout, ``os._exit``) scores 0 with how it ended (``crashed the test process (SIGSEGV, signal
   11)``, ``timed out (over the 120 s limit per test)``) and the tests that had not reported run again in a
   new process without it, until all reported, all runs of the lab together within :func:`lab_limit_s`;
4. writes ``<out>/<lab>/results.json`` and ``<out>/<lab>/results.md`` atomically
   (:func:`common.results.atomic_write`), even when nothing imports; a grade narrowed by ``--task`` writes
   ``results-<task ids>.json`` and ``.md`` beside them (:func:`report_name`), so it never replaces the lab's
   full report. ``--out`` is checked before any test runs.

Code under test runs in the process that writes the report, beside the grading tree; two checks keep it from
grading itself: each run's report is signed with a fresh key the plugin reads from a pipe and closes before any
test module is imported (:func:`~common.course.integrity.read_report` stops at the first record it did not sign), and the tree is
compared with its :func:`~common.course.integrity.manifest` after every run, the test modules also as pytest imported them.
A lab whose report or tree was altered scores 0, with what was altered, for a human to review; the tree is laid
out again for the next lab.

``results.json`` (Gradescope's format)::

    {"score": 43, "execution_time": 12.3, "output": "...", "output_format": "text",
     "visibility": "visible", "stdout_visibility": "hidden",
     "extra_data": {"lab", "hypothesis_seed", "timeout_s", "ignored": [...], "review": [...], "run_exit_status",
                    "run_exit_statuses": [first run, each resume]},
     "tests": [{"name": "1.1 Fuse consecutive Reshapes (lab01.reshape)", "number": "1.1", "score": 20,
                "max_score": 20, "status": "passed", "output": "...", "tags": ["lab01", "lab01.reshape"],
                "visibility": "visible", "extra_data": {"task", "hypothesis_seed", "replay",
                                                        "tests": [{"nodeid", "points", "outcome"}]}}]}

``review`` (:attr:`LabGrade.review`): one line per reason a human must look at the lab's grade, ``[]`` when none:
``not graded: <what was altered> (every task scores 0)`` when code under test altered its report or grading tree
(:attr:`LabGrade.tampered`), ``<file>: <why>`` per task file of the lab the intake refused (:func:`tampering`,
:data:`SYMLINK`), and :data:`NO_TASK_FILE` when the submission holds none of the lab's task files (an empty or
misplaced upload, graded a silent 0). Files ``ignored`` are not by themselves a reason (the class summary,
:mod:`common.course.summary`, counts them beside it).

One entry per task (its score: the points of its graded tests that passed; its maximum: ``points`` of
``tasks.toml``); status ``passed`` only with full marks. Its ``output``: the score, one line per test that
did not pass (a failed property: also its failing example on that line, ``falsifying example: test_f(x=3)``,
and for a public test without a counterexample block the command that replays it), then for up to
:data:`MAX_FEEDBACK_TESTS` failed tests that raised a :class:`~common.course.feedback.Counterexample` the whole
report (Lab 01: the shrunk ONNX graph, expected and actual outputs, the first diverging node) and the command
that replays it. ``extra_data``: the run's
``hypothesis_seed``, ``replay`` (the first failed test's command, ``.venv/bin/python -m pytest <nodeid> --hypothesis-seed=0
--hypothesis-profile=course-grade`` for a property; None when nothing failed), and per failed test its
``replay`` and ``hidden`` (a hidden test: its command runs in the reference only).

Run inside a handout (``make grade SUB=.`` there), the tree graded against is the handout itself: the
public graded tests only, a preview of the grade; a student file the submission lacks, or that does not
compile, is the stub of the handout's first commit, as in the course's grade (:meth:`Reference.load`). ``results.md`` holds the same per task, sorted by
number, then the counterexample reports, and no time or date. The command prints each lab's score and its tasks',
then one ``warning: <lab>: <reason>`` line on stderr per reason of the lab's ``review``. Exit code of the command:
0 (a grade was written; the score is in the files), also when a lab needs review (the grade was made: the
``warning:`` lines and ``extra_data.review`` flag it), 2 for bad input (no such ``SUB``, a bad course, an unknown
task).
"""
from __future__ import annotations

import importlib.util
import json
import re
import secrets
import shlex
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from common.cli import writable_folder
from common.errors import UserError
from common.results import atomic_write

from . import content, lint, sources
from .cliargs import clear_of_reference, submission_folder
from .intake import packages, tampering
from .markers import HIDDEN, stub_raise
from .integrity import altered, manifest, read_report, sources_changed
from .plugin import GRADE_PROFILE
from .runner import Run, run_pytest
from .tasks import PYTEST, Course, Lab, Task, load_course

#: Top-level folders of the reference the grading copy leaves out (big, and no graded test reads them).
NOT_COPIED = ("results/", "data/")
HYPOTHESIS_SEED = 0
DEFAULT_TIMEOUT_S = 120
#: Failed tests per task whose counterexample report is printed in full (the others: their first line).
MAX_FEEDBACK_TESTS = 2
#: Why a task file that is a symbolic link is not graded (:func:`prepare`).
SYMLINK = "is a symbolic link (not followed)"
#: Characters and lines of a task's notes in its results.md row (the whole text is in results.json's output).
MAX_NOTES_CHARS = 2000
MAX_NOTES_LINES = 8
#: The review reason of a lab whose graded task files the submission all lacks (:attr:`LabGrade.review`).
NO_TASK_FILE = "no task file of this lab in the submission"


@dataclass
class TaskGrade:
    """The grade of one task: ``score`` (points of its passed graded tests), ``items`` (one pytest record per
    graded test: ``nodeid``, ``points``, ``outcome``, ``message``, ...) and ``notes`` (lines shown under the score)."""

    task: Task
    score: int = 0
    items: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: its files the submission has but the grade replaced by the handout's stub (they do not compile, were refused)
    replaced: list[str] = field(default_factory=list)
    #: points in hidden tests this tree does not hold (a handout's self-grade; 0 where the course grades)
    hidden_unrun: int = 0

    @property
    def status(self) -> str:
        """``passed`` with full marks, or, in a handout, with every point its tests can give (the rest is in hidden
        tests it does not hold); ``failed`` otherwise."""
        return "passed" if self.score + self.hidden_unrun == self.task.points else "failed"

    def output(self) -> str:
        """The summary lines, then the feedback blocks (see :meth:`feedback_blocks`)."""
        return "\n\n".join([self.summary(), *self.feedback_blocks()])

    def failed(self) -> list[dict]:
        """The records of ``items`` whose outcome is ``failed``."""
        return [r for r in self.items if r["outcome"] == "failed"]

    def feedback_blocks(self) -> list[str]:
        """One block per failed graded test that carries a counterexample (at most :data:`MAX_FEEDBACK_TESTS`,
        properties first): its node id, the report (:mod:`common.course.feedback`, indented, no blank line),
        and the command that replays it."""
        shown = sorted((r for r in self.failed() if r.get("feedback")), key=lambda r: not r.get("hypothesis"))
        blocks = []
        for r in shown[:MAX_FEEDBACK_TESTS]:
            replay = ("a hidden test (not in your handout): the case above is the one it found" if r.get("hidden")
                      else f"replay: {r['replay']}")
            body = "\n".join("    " + ln for ln in r["feedback"].splitlines() if ln.strip())  # no blank line
            blocks.append(f"{r['nodeid']} ({r['points']} pt) failed:\n{body}\n{replay}")
        if len(shown) > MAX_FEEDBACK_TESTS:
            blocks.append(f"({len(shown) - MAX_FEEDBACK_TESTS} more failed test(s) with a counterexample: "
                          "their first lines are above)")
        return blocks

    def extra_data(self) -> dict:
        """The task entry's ``extra_data``: its tests (replay command and hidden flag for failed ones), the
        Hypothesis seed of the run, and ``replay``: the command of the first failed test (None if none)."""
        tests = []
        for r in self.items:
            t = {k: r[k] for k in ("nodeid", "points", "outcome")}
            if r["outcome"] == "failed" and "replay" in r:
                t.update(replay=r["replay"], hidden=bool(r.get("hidden")))
            tests.append(t)
        failed = sorted(self.failed(), key=lambda r: (not r.get("feedback"), not r.get("hypothesis")))
        return {"task": self.task.id, "tests": tests, "hypothesis_seed": HYPOTHESIS_SEED,
                "replay": failed[0].get("replay") if failed else None}

    def summary(self) -> str:
        """The score, the counts per outcome, the notes, and one line per test that did not pass."""
        counts: dict[str, int] = {}
        for r in self.items:
            counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        parts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(counts.items()))
        lines = [f"{self.score}/{self.task.points} points" + (f" ({len(self.items)} graded tests: {parts})"
                                                             if self.items else " (no graded test ran)")]
        lines += self.notes
        todo = [r for r in self.items if r["outcome"] == "not_implemented"]
        if todo and self.replaced:  # the student wrote code: it was not graded, the stub was (the notes say why)
            lines.append(f"- {len(todo)} graded test(s), {sum(r['points'] for r in todo)} points, scored 0: they ran "
                         f"the handout's stub in place of {', '.join(self.replaced)} (see above), which raises "
                         "NotImplementedTask")
        elif todo:
            lines.append(f"- not implemented yet: {len(todo)} graded test(s), {sum(r['points'] for r in todo)} points "
                         f"(the stub raised NotImplementedTask; see {self.task.lab}/TASKS.md)")
        for r in self.items:
            if r["outcome"] not in ("passed", "not_implemented"):
                msg = f": {r['message']}" if r["message"] else ""
                lines.append(f"- {r['nodeid']} ({r['points']} pt): {r['outcome']}{msg}{self._example(r)}")
        return "\n".join(lines)

    @staticmethod
    def _example(r: dict) -> str:
        """A failed property's failing example, and how to replay a failed public test when no feedback block
        below shows it."""
        text = f"; {r['example']}" if r.get("example") else ""
        if r["outcome"] == "failed" and not r.get("feedback") and r.get("replay") and not r.get("hidden"):
            text += f"; replay: {r['replay']}"
        return text


@dataclass
class LabGrade:
    """The grade of one lab: its task grades, the first pytest run, and the files of the submission the grade
    ignored (one line each, as the report lists them); ``seconds`` is the time of all its runs together."""

    lab: Lab
    tasks: list[TaskGrade]
    run: Run | None
    ignored: list[str]
    seconds: float = 0.0
    timeout_s: int | None = None
    #: every pytest run of the lab: the first (``run``), then one per resume after a test ended the process
    runs: list[Run] = field(default_factory=list)
    #: where its report was written, without suffix (``.json`` and ``.md``); None when not written
    report: Path | None = None
    #: what code under test altered in its report or grading tree (None: nothing), see :func:`_run_lab`
    tampered: str | None = None
    #: the task files of its graded tasks that the intake refused, ``"<file>: <why>"`` (:func:`prepare`'s ``flagged``)
    refused: list[str] = field(default_factory=list)
    #: whether the submission holds none of the task files of its graded tasks (an empty or misplaced upload)
    no_task_file: bool = False

    @property
    def review(self) -> list[str]:
        """One line per reason a human must look at this grade (``extra_data.review`` of results.json, the
        ``warning:`` lines of the command; ``[]`` when none): the lab was not graded (:attr:`tampered`), a task
        file was refused (:attr:`refused`), the submission holds no task file of the lab (:data:`NO_TASK_FILE`)."""
        out = [f"not graded: {' '.join(self.tampered.split())} (every task scores 0)"] if self.tampered else []
        out += [" ".join(r.split()) for r in self.refused]
        if self.no_task_file:
            out.append(NO_TASK_FILE)
        return out

    @property
    def score(self) -> int:
        """Points scored, summed over the lab's graded tasks."""
        return sum(t.score for t in self.tasks)

    @property
    def max_score(self) -> int:
        """Points the lab's graded tasks are worth."""
        return sum(t.task.points for t in self.tasks)

    def scores(self) -> dict[str, int]:
        """Task id -> points scored."""
        return {t.task.id: t.score for t in self.tasks}


def _copy_tree(course: Course, dest: Path, files: Iterable[str], scan: content.Scan,
               stubs: dict[str, str] | None = None) -> None:
    """The course's files into ``dest``, each student file as its stub (``stubs``' text when given: a handout's
    first commit; else :func:`content.handout_text`)."""
    stubbed = set(course.student_files)
    stubs = stubs or {}
    for rel in sorted(stubbed.intersection(stubs).difference(files)):  # deleted from the handout: its stub
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(stubs[rel])
    for rel in files:
        if rel.startswith(NOT_COPIED):
            continue
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if rel in stubbed:
            p.write_text(stubs[rel] if rel in stubs else content.handout_text(course, rel, scan))
        else:
            shutil.copyfile(course.root / rel, p)


def _ignored(course: Course, sub: Path, scan: content.Scan, files: list[str]) -> list[str]:
    """Files of ``sub`` that are not student files and differ from the handout and the reference."""
    known = set(files)
    manifest = set(course.student_files)
    out = []
    for rel in sources.source_files(sub, git=False):  # every file, git never run on a submission (its config)
        if rel in manifest or rel.startswith(NOT_COPIED) or sources.is_binary_result(rel):
            continue
        data = (sub / rel).read_bytes()
        if rel in known:
            ref = (course.root / rel).read_bytes()
            if data == ref:
                continue
            if rel in scan.blocks and lint.strip_noqa(data.decode(errors="replace")) == \
                    lint.strip_noqa(content.handout_text(course, rel, scan)):
                continue  # the handout's version (its text, with or without the linter's noqa comments)
            out.append(f"{rel} (differs from the course's copy, which is used)")
        elif rel.endswith(".py") or rel.endswith((".toml", ".cfg", ".ini")):
            out.append(f"{rel} (not a student file)")
    return out


_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


def _untaken_imports(records: list[dict], ignored: list[str]) -> dict[str, int]:
    """``{file: failures}``: the failed tests (and collection errors) whose message is Python's ``No module named
    'a.b'`` for a module the submission holds as a file the grade does not take (``a/b.py`` in ``ignored`` as
    "not a student file"): a task file that imports a helper the student added."""
    untaken = {i.split(" (")[0] for i in ignored if i.endswith("(not a student file)")}
    out: dict[str, int] = {}
    for r in records:
        if r.get("outcome", "failed") != "failed":
            continue
        for module in _NO_MODULE.findall(r.get("message") or ""):
            rel = next((f for f in (module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py")
                        if f in untaken), None)
            if rel:
                out[rel] = out.get(rel, 0) + 1
    return out


#: What pytest-timeout's thread method prints before it ends the process (a test ran past ``--timeout``).
_TIMEOUT_BANNER = re.compile(r"\+{5,} Timeout \+{5,}")
#: Worst first: of two item records of one test, the grade keeps the worse (a record is never worth more twice).
_RANK = {"failed": 0, "not_implemented": 1, "skipped": 2, "passed": 3}


def _ended_how(run: Run, timeout_s: int) -> str:
    """Why a run ended inside a test: a per-test timeout, a signal (named), the lab's limit, an exit status."""
    if _TIMEOUT_BANNER.search(run.output):
        return f"timed out (over the {timeout_s} s limit per test)"
    if run.timed_out:
        return "ran when the lab's time limit ran out"
    if run.rc < 0:
        try:
            name = signal.Signals(-run.rc).name
        except ValueError:
            name = "a signal"
        return f"crashed the test process ({name}, signal {-run.rc})"
    return f"ended the test process (exit status {run.rc})"


@dataclass
class _Runs:
    """A lab's pytest runs: the first, then one more after each test that ended the process early."""

    runs: list[Run] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    finished: bool = False
    died_in: str | None = None  # the test the last run ended in, when it did not finish
    out_of_time: bool = False
    #: how a run's report or test modules were altered while it ran (None: they were not): the lab scores 0
    tampered: str | None = None


def _run_lab(tree: Path, args: list[str], *, runner: Callable[..., Run], env: dict, work: Path, name: str,
             limit_s: float, timeout_s: int, laid_out: dict[str, str] | None = None) -> _Runs:
    """Run ``args`` (a lab's pytest arguments, no report) until every test reported: after a run that ended
    in a test (a crash, a per-test timeout, ``os._exit``), that test scores 0 (a failed record saying how it
    ended) and the tests that did not report run again without it, until a run finishes, one ends before
    any test, or ``limit_s`` seconds (all runs together) are spent."""
    deadline = time.monotonic() + limit_s
    exclude = work / f"{name}.exclude"
    done: list[str] = []
    out = _Runs()
    while True:
        report = work / f"{name}.{len(out.runs)}.jsonl"
        report.unlink(missing_ok=True)
        extra = [f"--task-exclude={exclude}"] if done else []
        remaining = deadline - time.monotonic()
        key = secrets.token_bytes(32)  # a new one per run: a record of one run is no record of another
        for cache in list(tree.rglob("__pycache__")):  # no run writes bytecode: what is there, someone planted
            shutil.rmtree(cache, ignore_errors=True)
        run = runner(tree, [*args, *extra, f"--task-report={report}"], env=env, timeout_s=max(1.0, remaining),
                     key=key)
        out.runs.append(run)
        records, out.tampered = read_report(report, key)
        out.records += [r for r in records if r.get("kind") != "collect_error" or not done]  # reported once
        if laid_out is not None and not out.tampered and (what := altered(tree, laid_out)):
            out.tampered = f"{what} in the grading tree while the lab's tests ran"
        if not out.tampered and (planted := next(iter(tree.rglob("__pycache__/*")), None)):
            out.tampered = (f"{planted.relative_to(tree)} appeared in the grading tree while the lab's tests ran "
                            "(runs write no bytecode: a compiled module put there is run instead of its source)")
        out.tampered = out.tampered or sources_changed(tree, records)
        if out.tampered:
            return out
        out.finished = any(r.get("kind") == "session" for r in records)
        out.died_in = None if out.finished else _died_in(records)
        out.out_of_time = run.timed_out or time.monotonic() >= deadline
        if out.finished or out.died_in is None or out.died_in in done:
            return out
        start = next(r for r in reversed(records) if r.get("kind") == "start" and r.get("nodeid") == out.died_in)
        how = _ended_how(run, timeout_s)
        if "task" in start:
            out.records.append({"kind": "item", "nodeid": out.died_in, "task": start["task"],
                                "points": start.get("points", 0), "outcome": "failed", "message": how,
                                "line": start.get("line", 0), "ended_run": True,
                                "replay": f"{PYTEST} {shlex.quote(out.died_in)}"})
        else:
            out.records.append({"kind": "ungraded", "nodeid": out.died_in, "outcome": "failed", "message": how})
        done += [r["nodeid"] for r in records if r.get("kind") in ("item", "ungraded")] + [out.died_in]
        listed = next((r["nodeids"] for r in records if r.get("kind") == "collected"), None)
        if listed is not None and set(listed) <= set(done):  # it ended in the last test: nothing left to run
            out.finished, out.died_in = True, None
            return out
        if out.out_of_time:
            return out
        exclude.write_text("".join(f"{n}\n" for n in dict.fromkeys(done)))


def _hidden(lab: Lab, scan: content.Scan | None, record: dict) -> bool:
    """Whether a graded test is hidden from the handout (a hidden file, or its ``def`` in a hidden block)."""
    path = record["nodeid"].split("::", 1)[0]
    line = record.get("line", 0)
    return path in lab.hidden_tests or scan is not None and any(
        b.kind == HIDDEN and b.begin < line < b.end for b in scan.blocks.get(path, ()))


def lab_limit_s(timeout_s: int) -> int:
    """Seconds all pytest runs of one lab may take together (the first and every resume after a crash)."""
    return max(600, 20 * timeout_s)


def grade_lab(course: Course, lab: Lab, tree: Path, *, runner: Callable[..., Run], timeout_s: int,
              broken: dict[str, str], missing: set[str], ignored: list[str], work: Path,
              tasks: Collection[str] | None = None, scan: content.Scan | None = None,
              flagged: dict[str, str] | None = None, laid_out: dict[str, str] | None = None,
              unstubbed: Collection[str] = ()) -> LabGrade:
    """Run one lab's graded tests in ``tree`` and score its tasks (only ``tasks``, ids, when given).

    A test that ends the pytest process (a segfault, ``os._exit``, a per-test timeout: pytest-timeout's
    thread method, which also stops a Hypothesis property) scores 0 with how it ended, and the tests after it
    run in a new process (:func:`_run_lab`), all within :func:`lab_limit_s`."""
    flagged = flagged or {}
    chosen = [t for t in lab.tasks if tasks is None or t.id in tasks]
    files = [f for f in lab.graded_files if (tree / f).is_file()]
    only = [f"--task={t.id}" for t in chosen] if tasks is not None else []
    args = [*files, "--graded", *only, f"--hypothesis-seed={HYPOTHESIS_SEED}", f"--hypothesis-profile={GRADE_PROFILE}",
            f"--timeout={timeout_s}", "--timeout-method=thread", "-p", "no:cacheprovider", "-q", "--tb=line",
            "--continue-on-collection-errors"]  # a test file that does not import costs its own tests only
    env = {"MLC_RESULTS_DIR": str(work / "results" / lab.dir)}
    runs = _run_lab(tree, args, runner=runner, env=env, work=work, name=lab.dir, limit_s=lab_limit_s(timeout_s),
                    timeout_s=timeout_s, laid_out=laid_out)
    grades = {t.id: TaskGrade(t) for t in chosen}
    items: dict[str, dict] = {}
    for r in runs.records:  # one record per test, the worse of two (a test reports once per run)
        if r.get("kind") == "item" and r.get("task") in grades and isinstance(r.get("points"), int):
            old = items.get(r["nodeid"])
            if old is None or _RANK.get(r["outcome"], 0) < _RANK.get(old["outcome"], 0):
                items[r["nodeid"]] = r
    for r in items.values():
        if r["outcome"] == "failed":
            r["hidden"] = _hidden(lab, scan, r)
        g = grades[r["task"]]
        g.items.append(r)
        if r["outcome"] == "passed" and not runs.tampered:
            g.score += r["points"]
    errors = list({(r["nodeid"], r["message"]): r for r in runs.records if r.get("kind") == "collect_error"}.values())
    run = runs.runs[-1]
    for g in grades.values():
        if runs.tampered:
            g.notes.append(f"not graded: {runs.tampered}, so code under test wrote to what the grader reads; every "
                           "task of the lab scores 0 (review the submission)")
        for f in g.task.files:
            kept = ("graded as this handout's own file: no first commit holds its stub" if f in unstubbed
                    else "graded as the handout's stub")
            if f in broken:
                g.notes.append(f"{f} does not compile: {broken[f]} ({kept})")
            elif f in flagged:
                g.notes.append(f"{f} is not graded: it {flagged[f]} ({kept})")
            elif f in missing:
                g.notes.append(f"{f} is not in the submission ({kept})")
            if (f in broken or f in flagged) and f not in unstubbed:
                g.replaced.append(f)
        mine = [e for e in errors
                if any(e["nodeid"].startswith(t) for t in (*g.task.tests, *lab.hidden_tests)) or not e["nodeid"]]
        for e in mine:
            g.notes.append(f"collection error in {e['nodeid'] or 'the run'}: {e['message']}")
        for rel, n in _untaken_imports(g.items + mine, ignored).items():
            g.notes.append(f"{n} test(s) failed importing {rel}, a file of the submission that is not a task file: the "
                           f"grade takes only task files ({', '.join(g.task.files)}), so put that code in them")
        if not runs.finished and not runs.tampered:
            g.notes.append(f"the test run ended early (exit status {run.rc}"
                           + (f", the lab's time limit of {lab_limit_s(timeout_s)} s" if runs.out_of_time else "")
                           + (f", in {runs.died_in}" if runs.died_in else "") + "): tests that did not report score 0")
        unrun = g.task.points - sum(r["points"] for r in g.items)
        if runs.finished and unrun > 0 and mine:
            g.notes.append(f"{unrun} of the {g.task.points} points are in graded tests that did not run: a file "
                           "holding them did not import (the collection error above); they score 0")
        elif runs.finished and unrun > 0:  # the reference runs every point; a handout lacks the hidden tests
            g.hidden_unrun = unrun
            g.notes.append(f"{unrun} of the {g.task.points} points are in graded tests that did not run here: hidden "
                           "tests, which a handout does not hold (the course's grade runs them)")
        g.score = min(g.score, g.task.points)
    graded_files = list(dict.fromkeys(f for t in chosen for f in t.files))
    return LabGrade(lab, list(grades.values()), runs.runs[0], ignored, sum(r.seconds for r in runs.runs), timeout_s,
                    runs=runs.runs, tampered=runs.tampered,
                    refused=[f"{f}: {flagged[f]}" for f in graded_files if f in flagged],
                    no_task_file=bool(graded_files) and all(f in missing for f in graded_files))


def _died_in(records: list[dict]) -> str | None:
    """The test a run that never finished was in: the last one started that reported no outcome."""
    done = {r.get("nodeid") for r in records if r.get("kind") in ("item", "ungraded")}
    started = [r["nodeid"] for r in records if r.get("kind") == "start"]
    return started[-1] if started and started[-1] not in done else None


def results_json(g: LabGrade) -> dict:
    """The Gradescope ``results.json`` object of one lab (see the module docstring)."""
    tests = [{"name": f"{t.task.number} {t.task.title} ({t.task.id})", "number": t.task.number, "score": t.score,
              "max_score": t.task.points, "status": t.status, "output": t.output(),
              "tags": [g.lab.dir.split("_")[0], t.task.id], "visibility": "visible", "extra_data": t.extra_data()}
             for t in sorted(g.tasks, key=lambda t: t.task.sort_key)]
    summary = [f"{g.lab.title}: {g.score}/{g.max_score} points"]
    if g.tampered:
        summary.append(f"Not graded: {g.tampered}, so code under test wrote to what the grader reads; every task "
                       "scores 0 whatever its tests did (review the submission)")
    if g.ignored:
        summary.append("Ignored (not part of the grade): " + "; ".join(g.ignored))
    return {"score": g.score, "execution_time": round(g.seconds, 1), "output": "\n".join(summary),
            "output_format": "text", "visibility": "visible", "stdout_visibility": "hidden",
            "extra_data": {"lab": g.lab.dir, "hypothesis_seed": HYPOTHESIS_SEED, "timeout_s": g.timeout_s,
                           "ignored": g.ignored, "review": g.review,
                           "run_exit_status": g.run.rc if g.run else None,
                           "run_exit_statuses": [r.rc for r in g.runs]},
            "tests": tests}


def results_md(g: LabGrade) -> str:
    """The Markdown table of one lab: one row per task by number, the total; no time or date."""
    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", "<br>")

    lines = [f"# {g.lab.title}: grade", "", "| # | task | score | max | status | notes |",
             "| --- | --- | ---: | ---: | --- | --- |"]
    ordered = sorted(g.tasks, key=lambda t: t.task.sort_key)
    for t in ordered:
        notes = t.summary().splitlines()[1:]
        if len(notes) > MAX_NOTES_LINES:  # one cell per task: the rest is in results.json's output
            notes = [*notes[:MAX_NOTES_LINES - 1], f"... {len(notes) - MAX_NOTES_LINES + 1} more (results.json)"]
        lines.append(f"| {t.task.number} | {t.task.title} (`{t.task.id}`) | {t.score} | {t.task.points} | {t.status} "
                     f"| {cell('; '.join(notes)[:MAX_NOTES_CHARS])} |")
    lines.append(f"| | **total** | **{g.score}** | **{g.max_score}** | | |")
    if g.tampered:
        lines += ["", f"**Not graded**: {g.tampered}, so code under test wrote to what the grader reads; every task "
                      "scores 0 whatever its tests did (review the submission)."]
    lines += ["", "Ignored files (not part of the grade): " + ("; ".join(g.ignored) if g.ignored else "none"), ""]
    for t in ordered:
        blocks = t.feedback_blocks()
        if blocks:
            lines += [f"## {t.task.number} {t.task.title}: counterexamples", ""]
            for b in blocks:
                lines += ["```text", b, "```", ""]
    return "\n".join(lines)


@dataclass
class Intake:
    """What :func:`prepare` took from a submission: ``broken`` (file -> its SyntaxError line), ``missing``
    files, ``flagged`` (file -> why :func:`tampering` refused it), ``ignored`` (the report's list)."""

    broken: dict[str, str]
    missing: set[str]
    ignored: list[str]
    flagged: dict[str, str] = field(default_factory=dict)


def prepare(course: Course, sub: Path, dest: Path, scan: content.Scan | None = None,
            files: list[str] | None = None, stubs: dict[str, str] | None = None) -> Intake:
    """Fill ``dest`` with the grading tree of ``sub`` (see the module docstring): a student file that does not
    compile, or that :func:`tampering` refuses, stays the handout's stub (``stubs``: see :func:`_copy_tree`)."""
    files = sources.source_files(course.root) if files is None else files
    scan = content.check(course, files) if scan is None else scan
    _copy_tree(course, dest, files, scan, stubs)
    own = packages(course.root)
    intake = Intake({}, set(), [])
    for rel in course.student_files:
        src = sub / rel
        if src.is_symlink():  # never followed: it could point at the reference's solution
            intake.flagged[rel] = SYMLINK
            continue
        if not src.is_file():
            intake.missing.add(rel)
            continue
        data = src.read_bytes()
        try:  # as Python reads a source file: a BOM or a coding line decides the encoding
            compile(data, rel, "exec")
            text = importlib.util.decode_source(data)
        except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
            why = f"{exc.msg} ({rel}, line {exc.lineno})" if isinstance(exc, SyntaxError) else str(exc)
            intake.broken[rel] = f"{type(exc).__name__}: {why}"
            continue
        if rel.endswith(".py"):
            why = tampering(text, rel, own, course.native(rel))
            if why:
                more = f" (and {len(why) - 1} more)" if len(why) > 1 else ""
                intake.flagged[rel] = why[0] + more
                continue
        (dest / rel).write_bytes(data)  # the bytes as handed in: the same encoding, the same code
    intake.ignored = [f"{rel}: {why}: not graded, left as the handout's" for rel, why in intake.flagged.items()]
    intake.ignored += _ignored(course, sub, scan, files)
    return intake


@dataclass
class Reference:
    """The reference read once: its course, its files and the marker scan (reused by many grades)."""

    course: Course
    files: list[str]
    scan: content.Scan
    #: a handout's stubs, from its first commit (its own student files may hold a student's work): rel -> text
    stubs: dict[str, str] = field(default_factory=dict)
    #: a handout's student files with no stub there (not the git repository ``make student`` wrote)
    unstubbed: tuple[str, ...] = ()

    @classmethod
    def load(cls, root: str | Path) -> Reference:
        """Read ``root``, one of three trees, told apart by the hidden test files (a handout never has them; by
        the solution blocks in a course that has none):

        - the reference: solutions and hidden tests (``make grade``);
        - the autograder's copy of it: stubs and hidden tests (:mod:`common.course.autograder`);
        - a handout: stubs, no hidden tests; it grades with its public tests (a student's preview). Its student
          files may hold the student's work, so a file a submission lacks, or that does not compile, is taken
          from the handout's first commit (the stubs ``make student`` wrote), as the course's grade would
          take the stub; a handout that is no such git repository keeps its own file, and the notes say so.
        """
        course = load_course(root, student_files=False)  # a handout may lack one (its stub is in git)
        files = sources.source_files(course.root)
        has_solutions = any(f in course.student_files and "### BEGIN SOLUTION" in (course.root / f).read_text()
                            for f in files)
        hidden = course.hidden_files
        full = all((course.root / f).is_file() for f in hidden) if hidden else has_solutions
        if full:  # the reference, or its autograder copy: every student file is there
            course = load_course(root)
        scan = content.check(course, files, reference=full, solutions=full and has_solutions)
        if full:
            return cls(course, files, scan)
        def is_stub(rel: str, text: str) -> bool:  # what make student wrote: each task of the file raises
            return all(stub_raise(t.id) in text for t in course.owner_of(rel))

        stubs = sources.first_commit_texts(course.root, course.student_files, is_stub)
        return cls(course, files, scan, stubs, tuple(f for f in course.student_files if f not in stubs))


def grade(reference: str | Path | Reference, submission: str | Path, out: str | Path | None = None, *,
          labs: Iterable[str] | None = None, tasks: Iterable[str] | None = None, timeout_s: int = DEFAULT_TIMEOUT_S,
          runner: Callable[..., Run] = run_pytest) -> list[LabGrade]:
    """Grade ``submission`` against ``reference`` (see the module docstring); writes to ``out`` if given.

    ``labs`` (folder or ``lab01``) and ``tasks`` (ids or numbers) narrow the grade: with ``tasks``, only
    their labs and, in each, only those tasks (the lab's ``score`` and ``max_score`` count them alone).

    Raises:
        UserError: no such submission folder, a bad course, an unknown lab or task.
    """
    ref = reference if isinstance(reference, Reference) else Reference.load(reference)
    course = ref.course
    sub = submission_folder(submission).resolve()
    chosen, wanted = select(course, labs, tasks)
    if out is not None:
        clear_of_reference(course.root, out, ref.files, what="the graded course tree")
    for lab in chosen if out is not None else ():  # before the tests run, not after
        writable_folder(Path(out) / lab.dir, "--out's lab folder")
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        work = Path(tmp)
        tree = work / "tree"
        intake = prepare(course, sub, tree, ref.scan, ref.files, ref.stubs)
        laid_out = manifest(tree)
        results = []
        for lab in chosen:
            results.append(grade_lab(course, lab, tree, runner=runner, timeout_s=timeout_s, broken=intake.broken,
                                     missing=intake.missing, ignored=intake.ignored, work=work, tasks=wanted,
                                     scan=ref.scan, flagged=intake.flagged, laid_out=laid_out,
                                     unstubbed=ref.unstubbed))
            if results[-1].tampered:  # its runs were checked; the next lab gets the tree as laid out
                shutil.rmtree(tree)
                prepare(course, sub, tree, ref.scan, ref.files, ref.stubs)
    if out is not None:
        for g in results:
            g.report = Path(out) / g.lab.dir / report_name(None if wanted is None else [t.task.id for t in g.tasks])
            atomic_write(g.report.parent / f"{g.report.name}.json", json.dumps(results_json(g), indent=2) + "\n")
            atomic_write(g.report.parent / f"{g.report.name}.md", results_md(g))
    return results


def select(course: Course, labs: Iterable[str] | None = None, tasks: Iterable[str] | None = None
           ) -> tuple[list[Lab], set[str] | None]:
    """``(the labs graded, the task ids graded or None for all)`` of a grade narrowed by ``labs`` and ``tasks``
    (see :func:`grade`); UserError for an unknown lab or task, or tasks none of ``labs`` holds."""
    labs = list(labs or [])
    wanted = {course.task(key).id for key in tasks} if tasks else None
    chosen = list(dict.fromkeys(course.lab(name) for name in labs)) if labs else list(course.labs)
    if wanted is not None:
        chosen = [lab for lab in chosen if any(t.id in wanted for t in lab.tasks)]
        if not chosen:
            raise UserError(f"no lab of --lab {', '.join(labs)} holds the tasks {', '.join(sorted(wanted))}")
    return chosen, wanted


def task_files(chosen: Iterable[Lab], wanted: Collection[str] | None = None) -> list[str]:
    """The student files of the tasks a grade covers (:func:`select`), in task order, each once."""
    return list(dict.fromkeys(f for lab in chosen for t in lab.tasks if wanted is None or t.id in wanted
                              for f in t.files))


def report_name(tasks: Iterable[str] | None) -> str:
    """The stem of a lab's report files: ``results`` for the whole lab; ``results-<task ids>`` for a grade narrowed
    to some tasks, so a one-task regrade never overwrites the lab's full report (what a summary reads)."""
    return "results" if tasks is None else "results-" + "-".join(sorted(tasks))
