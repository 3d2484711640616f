"""The release gate: proof that the handout is clean and that the tests grade.

``python -m common.course gate [--all] [--json FILE]`` (and the suite's ``common/course/test_gate.py``)
runs, on a :class:`~common.course.runner.WarmRunner` (one warm interpreter, a fork per run):

(a) **handout**: builds it (:func:`common.course.release.build`) and runs the task test files (and
    :data:`HANDOUT_ALSO`) *in the handout*: every graded test must report ``not implemented``; every
    other test there must pass or skip (a skip names the task it needs; :data:`HANDOUT_SKIP` leaves out
    the ones that export a model). Then grades the handout as a submission: every task 0 and every
    graded test, hidden ones included, ``not implemented``.
(b) **reference**: grades the reference as a submission: every task full marks, every graded test
    passed, and each task's graded tests add up to its ``points`` exactly.
(c) **one task stubbed at a time**: for every task of the first lab (``--all``: of every lab), a
    submission that is the reference with only that task stubbed: that task 0, every other task of the
    lab full marks.
(d) **leak scan**: :func:`common.course.leaks.leak_scan` on the handout finds nothing, and ruff finds
    nothing either (:func:`common.course.lint.findings`: the stubs' unused imports carry their own ``# noqa``).
(e) **wrong submissions**: every ``common/course/wrong/*.toml`` (see its README) applied to the
    reference: its task loses points (graded alone, ``TASK=``-style: the suite's budget); with ``--all``
    the whole lab is graded and every other task of it keeps full marks. Every task has at least one.

Returns (and ``--json`` writes) ``{"scenarios": [{"name", "lab", "scores", "max", "seconds"}],
"problems": [one line each], "seconds"}``; the command exits 1 when ``problems`` is not empty.
"""
from __future__ import annotations

import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from common.errors import UserError

from . import grade as grading
from . import content, integrity, leaks, lint, release
from .markers import SOLUTION
from .runner import WarmRunner
from .tasks import Course

WRONG_DIR = Path(__file__).resolve().parent / "wrong"
GATE_TIMEOUT_S = 60
#: Ungraded tests of the task test files the handout run leaves out: they export a model first (seconds
#: each) and then skip on the missing passes anyway (``-k`` expression).
HANDOUT_SKIP = "not export and not bisect and not int8_quantization_gate and not latency"
#: Ungraded test files beyond the tasks' ``tests`` that run the student's code: in the handout they too
#: must pass or skip naming the task (a harness that folds the stub's error into a table or an exit
#: status must not make them fail).
HANDOUT_ALSO = ("lab01_onnx/test_passes_conformance.py",)


@dataclass(frozen=True)
class Wrong:
    """One known-wrong submission: its file, task, why, and ``[(file, old, new)]`` edits."""

    name: str
    task: str
    why: str
    edits: tuple[tuple[str, str, str], ...]

    def texts(self, root: Path) -> dict[str, str]:
        """``{file: the reference's text with this submission's edits applied, in order}``."""
        out: dict[str, str] = {}
        for f, old, new in self.edits:
            out[f] = out.get(f, (root / f).read_text()).replace(old, new, 1)
        return out


def load_wrong(ref: grading.Reference, folder: Path = WRONG_DIR) -> list[Wrong]:
    """Every ``*.toml`` of ``folder``, checked: a known task, files of that task, each ``old`` found exactly
    once and inside a solution block of the task, and every edited Python file still compiles (a submission
    must lose its points by what it computes, not by a SyntaxError that fails the whole file). Raises UserError
    (one line) otherwise."""
    course = ref.course
    out = []
    for path in sorted(folder.glob("*.toml")):
        rel = path.name
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise UserError(f"wrong/{rel}: not valid TOML: {exc}") from None
        task = data.get("task")
        if task not in course.tasks:
            raise UserError(f"wrong/{rel}: unknown task {task!r}")
        edits = []
        for e in data.get("edit", []):
            f, old, new = e.get("file"), e.get("old"), e.get("new")
            if f not in course.tasks[task].files or not isinstance(old, str) or not isinstance(new, str) or not old:
                raise UserError(f"wrong/{rel}: each [[edit]] needs file (one of {list(course.tasks[task].files)}), "
                                "old and new")
            text = (course.root / f).read_text()
            if text.count(old) != 1:
                raise UserError(f"wrong/{rel}: the old text occurs {text.count(old)} times in {f}, not once")
            start = text[:text.index(old)].count("\n") + 1
            end = start + old.count("\n") - (1 if old.endswith("\n") else 0)
            if not any(b.kind == SOLUTION and b.task == task and b.begin < start and end < b.end
                       for b in ref.scan.blocks.get(f, [])):
                raise UserError(f"wrong/{rel}: the edit (lines {start}-{end} of {f}) is not inside a solution "
                                f"block of {task}")
            edits.append((f, old, new))
        if not edits:
            raise UserError(f"wrong/{rel}: no [[edit]]")
        wrong = Wrong(path.stem, task, str(data.get("why", "")), tuple(edits))
        for f, text in wrong.texts(course.root).items():
            if not f.endswith(".py"):
                continue
            try:
                compile(text, f, "exec")
            except SyntaxError as exc:
                raise UserError(f"wrong/{rel}: the edited {f} does not compile ({exc.msg}, line {exc.lineno}): "
                                "fix the edit so the file imports and only its rule is wrong") from None
        out.append(wrong)
    return out


def _submission(course: Course, dest: Path, texts: dict[str, str] | None = None) -> Path:
    """A submission folder: every student file of the reference, some replaced by ``texts``."""
    for rel in course.student_files:
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text((texts or {}).get(rel, (course.root / rel).read_text()))
    return dest


class _Gate:
    def __init__(self, root: Path, runner):
        self.ref = grading.Reference.load(root)
        self.course = self.ref.course
        self.runner = runner
        self.scenarios: list[dict] = []
        self.problems: list[str] = []

    def grade(self, name: str, sub: Path, labs=None, tasks=None) -> list[grading.LabGrade]:
        results = grading.grade(self.ref, sub, labs=labs, tasks=tasks, timeout_s=GATE_TIMEOUT_S, runner=self.runner)
        for g in results:
            self.scenarios.append({"name": name, "lab": g.lab.dir, "scores": g.scores(),
                                   "max": {t.task.id: t.task.points for t in g.tasks},
                                   "seconds": round(g.seconds, 1)})
        return results

    def problem(self, line: str) -> None:
        self.problems.append(line)

    # (a) + (d)
    def handout(self, tmp: Path) -> None:
        out = tmp / "handout"
        release.build(self.course.root, out, leak_check=False, warn=None)  # (d) records the leaks instead
        for line in leaks.leak_scan(self.course.root, out, course=self.course, files=self.ref.files,
                                      scan=self.ref.scan):
            self.problem(f"leak: {line}")
        for line in lint.findings(out):
            self.problem(f"lint: {line}")
        files = [f for t in self.course.tasks.values() for f in t.tests] + list(HANDOUT_ALSO)
        files = [f for f in dict.fromkeys(files) if (out / f).is_file()]
        report = tmp / "handout.jsonl"
        t0 = time.perf_counter()
        run = self.runner(out, [*files, f"--task-report={report}", "--hypothesis-seed=0", "-p", "no:cacheprovider",
                                "-q", f"--timeout={GATE_TIMEOUT_S}", "-k", HANDOUT_SKIP],
                          env={"MLC_RESULTS_DIR": str(tmp / "results")}, timeout_s=900)
        records, _ = integrity.read_report(report)  # the handout run of the gate itself: unsigned
        graded = [r for r in records if r.get("kind") == "item"]
        ungraded = [r for r in records if r.get("kind") == "ungraded"]
        self.scenarios.append({"name": "handout: its own tests", "lab": "all", "seconds": round(time.perf_counter() - t0, 1),
                               "scores": {}, "max": {}, "graded": len(graded), "ungraded": len(ungraded),
                               "ungraded_outcomes": {k: sum(r["outcome"] == k for r in ungraded)
                                                     for k in sorted({r["outcome"] for r in ungraded})}})
        if not any(r.get("kind") == "session" for r in records):
            self.problem(f"handout: the test run did not finish (exit {run.rc}): {run.output.strip()[-300:]}")
        for r in records:
            if r.get("kind") == "collect_error":
                self.problem(f"handout: {r['nodeid']} does not import: {r['message']}")
        for r in graded:
            if r["outcome"] != "not_implemented":
                self.problem(f"handout: graded {r['nodeid']} is {r['outcome']}, not 'not implemented' "
                             f"(a graded test must reach the task's code) {r['message']}".rstrip())
        for r in ungraded:
            if r["outcome"] not in ("passed", "skipped", "needs_task"):
                self.problem(f"handout: ungraded {r['nodeid']} is {r['outcome']}: {r['message']}")
        for g in self.grade("handout as a submission", out):
            for t in g.tasks:
                if t.score != 0:
                    self.problem(f"handout graded: {t.task.id} scores {t.score}, not 0")
                for r in t.items:
                    if r["outcome"] != "not_implemented":
                        self.problem(f"handout graded: {r['nodeid']} is {r['outcome']}, not 'not implemented'")
            if g.ignored:
                self.problem(f"handout graded: files ignored although unchanged: {g.ignored}")

    # (b)
    def reference(self) -> None:
        for g in self.grade("reference", self.course.root):
            for t in g.tasks:
                got = sum(r["points"] for r in t.items)
                if got != t.task.points:
                    self.problem(f"reference: the graded tests of {t.task.id} add up to {got} points, its "
                                 f"tasks.toml says {t.task.points}")
                if t.score != t.task.points:
                    self.problem(f"reference: {t.task.id} scores {t.score}/{t.task.points}: {t.output()[:300]}")
            if g.ignored:
                self.problem(f"reference graded: files ignored: {g.ignored}")

    # (c)
    def stub_one(self, tmp: Path, labs) -> None:
        for lab in labs:
            for t in lab.tasks:
                texts = {f: content.handout_text(self.course, f, self.ref.scan, stub={t.id}) for f in t.files}
                sub = _submission(self.course, tmp / f"stub-{t.id}", texts)
                (g,) = self.grade(f"{t.id} stubbed", sub, labs=[lab.dir])
                self._only(f"{t.id} stubbed", g, t.id, lambda score, task: score == 0, "0")

    # (e)
    def wrong(self, tmp: Path, whole_lab: bool = False) -> None:
        wrongs = load_wrong(self.ref)
        for tid in self.course.tasks:
            if not any(w.task == tid for w in wrongs):
                self.problem(f"wrong: task {tid} has no known-wrong submission in common/course/wrong/")
        for w in wrongs:
            sub = _submission(self.course, tmp / f"wrong-{w.name}", w.texts(self.course.root))
            lab = self.course.tasks[w.task].lab
            (g,) = self.grade(f"wrong: {w.name}", sub, labs=[lab], tasks=None if whole_lab else [w.task])
            self._only(f"wrong {w.name}", g, w.task, lambda score, task: score < task.points, "less than full")

    def _only(self, name: str, g: grading.LabGrade, task_id: str, ok, want: str) -> None:
        for t in g.tasks:
            if t.task.id == task_id:
                if not ok(t.score, t.task):
                    self.problem(f"{name}: {task_id} scores {t.score}/{t.task.points}, want {want}")
            elif t.score != t.task.points:
                self.problem(f"{name}: {t.task.id} scores {t.score}/{t.task.points}, want full marks "
                             f"(tasks must not depend on each other): {t.output()[:200]}")


def run_gate(root: str | Path, *, all_tasks: bool = False, runner=None) -> dict:
    """Run (a)-(e) of the module docstring; returns the findings (never raises for a failed check)."""
    t0 = time.perf_counter()
    runner = runner or WarmRunner()
    gate = _Gate(Path(root).resolve(), runner)
    labs = list(gate.course.labs) if all_tasks else list(gate.course.labs[:1])
    with tempfile.TemporaryDirectory(prefix="course-gate-") as tmp:
        tmp_path = Path(tmp)
        gate.handout(tmp_path)
        gate.reference()
        gate.stub_one(tmp_path, labs)
        gate.wrong(tmp_path, whole_lab=all_tasks)
    return {"scenarios": gate.scenarios, "problems": gate.problems, "seconds": round(time.perf_counter() - t0, 1),
            "stubbed_labs": [lab.dir for lab in labs]}


def summary(findings: dict) -> str:
    """A plain table: one line per graded scenario and lab with each task's score, then the problems."""
    lines = [f"release gate: {len(findings['scenarios'])} runs in {findings['seconds']} s; "
             f"{len(findings['problems'])} problem(s)"]
    for s in findings["scenarios"]:
        if s["scores"]:
            cells = ", ".join(f"{k} {v}/{s['max'][k]}" for k, v in s["scores"].items())
        else:
            cells = f"{s.get('graded', 0)} graded tests, ungraded outcomes {s.get('ungraded_outcomes', {})}"
        lines.append(f"  {s['name']} [{s['lab']}] ({s['seconds']} s): {cells}")
    lines += [f"  problem: {p}" for p in findings["problems"]]
    return "\n".join(lines)
