"""The instructor's view of a class: the grader's reports of many submissions in one table.

``python -m common.grading summary REPORT... [--out DIR]`` (:mod:`common.grading`). A ``REPORT`` is a
Gradescope ``results.json`` (as :mod:`common.course.grade` writes it) or a grade output folder holding
``<lab>/results.json`` (``make grade``'s ``--out``, one per submission). Each submission is one row,
named after

- a folder REPORT: the folder (every ``<lab>/results.json`` in it joins the row, and a lab's
  ``results-<task ids>.json`` where the lab has no ``results.json``: a grade narrowed by ``--task``; one written
  after its lab's ``results.json``, a regrade of some tasks the table does not show, is named in a ``warning:``
  line and under the table);
- a file ``results.json`` or ``results-<task ids>.json`` (a grade narrowed by ``--task``) in a folder named like
  its lab (``extra_data.lab``): the folder above that (``build/grade/alice/lab04_npu/results-lab04.static.json``:
  alice); Gradescope's ``results/results.json``: the folder above ``results/`` (``subs/alice/results/results.json``:
  alice); any other ``results.json``: its folder; a file of another name: its stem (``alice.json``: alice);
- ``NAME=REPORT`` (when no file or folder is named so): NAME.

One file given twice (the same path twice, the same folder twice, or one file under two names) is an error that
names it. Two reports of one row that score the same task, or the same lab where one of them is the lab's full report, are
an error that names both and how to tell two submissions apart (``NAME=REPORT``, or a folder each); two grades of
one submission narrowed by ``--task`` to the same task: which one to delete. Reports of different labs join the
row, and so do a lab's reports narrowed to different tasks (``make grade TASK=lab01.gate``, then
``TASK=lab01.export``: both ``results-<task ids>.json`` are read).

Columns: one per task (``"<number> <task id>"``, sorted by number; a plain Gradescope test without
``number`` and ``extra_data.task`` is keyed by its ``name``), each with its ``max_score``, then the row's
total. A task some report has and a submission's reports lack (a lab not graded, or graded with ``--task``)
is ``missing`` in that row (never 0): it counts in neither the task's mean and median nor the row's total,
which is then *partial* (``7 (partial)``) and left out of the total's mean, median and histogram (a sum of
fewer tasks is not comparable); :meth:`Summary.warnings` gives one line per such submission naming its
reports and what they lack (``python -m common.grading summary`` prints them on stderr). A lab of the course
that no report grades (:func:`ungraded_labs`, when every report's lab is one of the course's) is in neither the
table nor the total: one more ``warning:`` line and a line under the table name it with its points. Scores are points
(ints or floats).

Review: each row's ``review`` is the union of its reports' ``extra_data.review`` (the grader's reasons a human
must look at a lab's grade: not graded for tampering, a task file the intake refused, no task file of the lab in
the submission; :attr:`common.course.grade.LabGrade.review`; a Gradescope file merged by
:func:`common.course.autograder.merge`: its ``extra_data.labs``' too), then ``"N file(s) ignored"`` when its
reports' ``extra_data.ignored`` list files (edited tests, its own ``conftest.py``, an edited given file, a refused
task file: the union, each counted once). A report without these fields (an older report, a plain Gradescope
file) reads as nothing to review. A row with a review has a last ``review`` cell in the table (its reasons
joined with ``"; "``; blank for the others) and one ``warning: <name>: review: <reasons>`` line from
:meth:`Summary.warnings`.

Output: the table in Markdown on stdout; with ``--out DIR`` also ``summary.md`` (the same),
``summary.csv`` (one line per submission: ``submission``, one column per task key, ``total``, ``missing``,
``review``; a missing task's cell is blank and ``missing`` lists the missing labs and tasks, empty for a complete
row; ``review`` the row's reasons joined with ``"; "``, empty when none), ``summary.json`` (``{"tasks": [{"key",
"number", "id", "lab", "max_score", "n", "mean", "median", "histogram"}], "total": {..., "partial"},
"submissions": [{"name", "scores": {key: points}, "total", "partial", "missing", "sources", "review": [...]}],
"ungraded": [{"lab", "max_score"}]}``) and one histogram per task plus the total (``hist_<number>_<id>.png``,
``hist_total.png``: submissions per score, matplotlib's Agg canvas), every file written atomically
(:func:`common.results.atomic_write`).

Errors (:class:`~common.errors.UserError`: one ``error:`` line, exit 2): a REPORT that does not exist,
a folder without ``<lab>/results.json``, a file that is not JSON or not a Gradescope results.json (an
object whose ``tests`` is a list of objects with numeric ``score`` and ``max_score``), two reports of
the same submission and lab or task, one report given twice, one task with two different ``max_score``, a
``NAME=`` without a name.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from common.errors import UserError
from common.results import atomic_write

FILE = "results.json"


@dataclass(frozen=True)
class Column:
    """One task: ``key`` (``"1.3 lab01.gather"``), ``number`` (``"1.3"``, may be ""), ``id`` (task id or
    test name), ``max_score`` (points)."""

    key: str
    number: str
    id: str
    max_score: float
    lab: str = ""  # the lab of the report it came from (extra_data.lab), "" when the report names none

    @property
    def sort_key(self) -> tuple:
        """Table order: columns numbered like ``"1.3"`` first, by their integer parts, then id; the others after,
        by ``key``."""
        parts = self.number.split(".")
        return (0, tuple(int(p) for p in parts), self.id) if all(p.isdigit() for p in parts) else (1, (), self.key)


@dataclass
class Row:
    """One submission: its ``name``, ``scores`` (column key -> points), ``sources`` (report paths)."""

    name: str
    scores: dict[str, float] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    labs: set[str] = field(default_factory=set)
    #: the labs of its full reports (not narrowed by ``--task``): no other report of the lab may join the row
    full_labs: set[str] = field(default_factory=set)
    #: column key -> the report its score came from
    origin: dict[str, str] = field(default_factory=dict)
    #: its reports' ``extra_data.review`` lines, each once, in order
    flagged: list[str] = field(default_factory=list)
    #: its reports' ``extra_data.ignored`` files, each once, in order
    ignored: list[str] = field(default_factory=list)

    @property
    def review(self) -> list[str]:
        """Why a human must look at this submission (see the module docstring; ``[]``: nothing)."""
        return self.flagged + ([f"{len(self.ignored)} file(s) ignored"] if self.ignored else [])

    @property
    def total(self) -> float:
        """The row's points, summed over the columns it has a score for."""
        return sum(self.scores.values())


@dataclass
class Summary:
    """The table: ``columns`` by task number, ``rows`` in the order the reports were given."""

    columns: list[Column]
    rows: list[Row]
    #: Labs of the course that no report grades (:func:`ungraded_labs`): ``[(lab folder, points)]``; they are in
    #: neither the table nor its total, so :func:`markdown` and :meth:`warnings` name them.
    ungraded: list[tuple[str, float]] = field(default_factory=list)
    #: ``[(row name, path)]``: a grade folder's ``results-<task ids>.json`` written after its lab's ``results.json``
    #: (a regrade of some tasks), which the row does not read (the full report stands): :meth:`warnings` names them.
    unread: list[tuple[str, str]] = field(default_factory=list)

    def missing(self, row: Row) -> list[Column]:
        """The columns ``row`` has no score for."""
        return [c for c in self.columns if c.key not in row.scores]

    def partial(self, row: Row) -> bool:
        """Whether the row's total leaves out a task of the table (see the module docstring)."""
        return bool(self.missing(row))

    def lacks(self, row: Row) -> str:
        """What the row's reports lack: ``"lab02_tvm, lab04_npu; tasks 9.2 lab09.inc"`` ("" if nothing)."""
        gone = self.missing(row)
        labs = sorted({c.lab for c in gone if c.lab and c.lab not in row.labs})
        tasks = [c.key for c in gone if not c.lab or c.lab in row.labs]
        parts = ([", ".join(labs)] if labs else []) + \
                ([f"task{'s' * (len(tasks) > 1)} {', '.join(tasks)}"] if tasks else [])
        return "; ".join(parts)

    def ungraded_text(self) -> str:
        """``"lab02_tvm (108 points), lab03_mlir (80 points)"``: the labs no report grades ("" if none)."""
        return ", ".join(f"{lab} ({_fmt(points)} points)" for lab, points in self.ungraded)

    def warnings(self) -> list[str]:
        """One line per submission with a partial total: its name, its reports, what they lack; one line per
        submission to review (:attr:`Row.review`); then one line naming the course's labs that no report grades (not
        in the table, nor in its total)."""
        out = [f"warning: {r.name} ({', '.join(r.sources)}): no grade for {self.lacks(r)}; its total is partial "
               "(not in the total's mean, median and histogram)" for r in self.rows if self.partial(r)]
        out += [f"warning: {r.name}: review: {'; '.join(r.review)}" for r in self.rows if r.review]
        if self.ungraded:
            out.append(f"warning: no report grades {self.ungraded_text()}: the table and its total "
                       f"(/{_fmt(self.max_total)}) leave them out")
        out += [f"warning: {name}: {path} is newer than its lab's {FILE} and not read (a regrade narrowed by --task; "
                f"the row holds the lab's full report): regrade the whole lab to count it" for name, path in self.unread]
        return out

    def values(self, key: str | None) -> list[float]:
        """The scores of column ``key`` over the rows that have it (``None``: the totals of complete rows)."""
        if key is None:
            return [r.total for r in self.rows if not self.partial(r)]
        return [r.scores[key] for r in self.rows if key in r.scores]

    @property
    def max_total(self) -> float:
        """The points of every column of the table, summed."""
        return sum(c.max_score for c in self.columns)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


class Report(NamedTuple):
    """What :func:`read_report` reads of one results.json."""

    lab: str
    entries: list[tuple[Column, float]]
    #: its ``extra_data.review`` lines (and its merged labs', see the module docstring); [] when it has none
    review: list[str]
    #: its ``extra_data.ignored`` files (likewise)
    ignored: list[str]


def _lines(value) -> list[str]:
    """The strings of a list field of ``extra_data``, each on one line (anything else: nothing)."""
    return [" ".join(v.split()) for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def read_report(path: Path) -> Report:
    """``(lab, [(column, score)], review, ignored)`` of one results.json; UserError (one line) when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not JSON ({exc.msg}, line {exc.lineno}); want a Gradescope results.json") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read it ({exc})") from None
    want = 'want an object whose "tests" is a list of {"score", "max_score", "name"}'
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise UserError(f"{path}: not a Gradescope results.json (no \"tests\" list; {want})")
    extra = data.get("extra_data") if isinstance(data.get("extra_data"), dict) else {}
    out = []
    for i, t in enumerate(data["tests"]):
        if not isinstance(t, dict) or not (_is_number(t.get("score")) and _is_number(t.get("max_score"))):
            raise UserError(f"{path}: not a Gradescope results.json (tests[{i}] has no numeric score and max_score)")
        t_extra = t.get("extra_data") if isinstance(t.get("extra_data"), dict) else {}
        number, tid = str(t.get("number", "") or ""), str(t_extra.get("task") or t.get("name") or f"test {i}")
        lab = str(extra.get("lab") or "")
        out.append((Column(f"{number} {tid}".strip(), number, tid, float(t["max_score"]), lab), float(t["score"])))
    labs = extra.get("labs") if isinstance(extra.get("labs"), dict) else {}  # autograder.merge: one per lab
    parts = [extra, *(v for v in labs.values() if isinstance(v, dict))]
    review = list(dict.fromkeys(r for part in parts for r in _lines(part.get("review"))))
    ignored = list(dict.fromkeys(i for part in parts for i in _lines(part.get("ignored"))))
    return Report(str(extra.get("lab") or ""), out, review, ignored)


def _reports(arg: str) -> list[tuple[str | None, Path]]:
    """``[(submission name, results.json path)]`` of one REPORT argument (see the module docstring)."""
    named, p = None, Path(arg)
    if not p.exists() and "=" in arg:  # NAME=REPORT: the row's name given
        named, _, rest = arg.partition("=")
        if not named.strip() or not rest:
            raise UserError(f"{arg}: NAME=REPORT wants a name and a report (such as alice=subs/alice/results.json)")
        return [(named, path) for _, path in _reports(rest)]
    if p.is_dir():
        if (p / FILE).is_file():  # a lab's folder of a grade: named like a file REPORT
            return [(None, p / FILE)]
        files = sorted(p.glob(f"*/{FILE}"))
        # a lab graded with --task only (make grade TASK=...): its results-<task ids>.json stand for the lab
        files += sorted(f for f in p.glob("*/results-*.json") if not (f.parent / FILE).is_file())
        if not files:
            raise UserError(f"{arg}: no <lab>/{FILE} in this folder (give a {FILE} or a make grade --out folder)")
        return [(p.resolve().name, f) for f in files]
    if not p.is_file():
        raise UserError(f"{arg}: no such file or folder")
    return [(None, p)]  # named once its lab is known


def _narrowed(path: Path) -> bool:
    """Whether ``path`` is a grade narrowed by ``--task`` (``results-<task ids>.json``, :func:`grade.report_name`)."""
    return path.name.startswith("results-") and path.suffix == ".json"


def _name(path: Path, lab: str) -> str:
    """A file REPORT's row name (see the module docstring): the grade folder above ``<lab>/results*.json``, the
    submission folder above Gradescope's ``results/results.json``, a ``results.json``'s folder, else the stem."""
    path = path.resolve()
    graded = path.name == FILE or path.name.startswith("results-") and path.suffix == ".json"
    if graded and lab and path.parent.name == lab or path.name == FILE and path.parent.name == "results":
        return path.parent.parent.name
    return path.parent.name if path.name == FILE else path.stem


def collect(reports: list[str]) -> Summary:
    """Read every REPORT (paths as given on the command line) into one :class:`Summary`.

    Raises:
        UserError: no report, or any error of the module docstring.
    """
    if not reports:
        raise UserError("no report given: python -m common.grading summary REPORT... (results.json files or "
                        "make grade --out folders)")
    rows: dict[str, Row] = {}
    columns: dict[str, tuple[Column, str]] = {}
    unread: list[tuple[str, str]] = []
    given: dict[Path, str] = {}  # a report's real path -> the REPORT argument it was first read from
    for arg in reports:
        unread += _newer_unread(arg)
        for name, path in _reports(arg):
            if (first := given.get(path.resolve())) is not None:  # one file twice: not two submissions
                raise UserError(f"{arg}: the same report given twice: give it once" if first == arg else
                                f"{path}: the same report given twice (as {first} and as {arg}): give it once")
            given[path.resolve()] = arg
            lab, entries, review, ignored = read_report(path)
            name = name or _name(path, lab)
            row = rows.setdefault(name, Row(name))
            lab_key = lab or str(path)
            narrowed = _narrowed(path) and bool(lab)  # one lab's grade of some tasks: more may join it
            twice = next((c.key for c, _ in entries if c.key in row.scores), None)
            lab_twice = lab_key in row.labs and (not narrowed or lab_key in row.full_labs)
            if twice and not lab_twice and narrowed and _narrowed(Path(first := row.origin[twice])):
                raise UserError(f"{path}: task {twice} of submission {name!r} is also graded in {first} (two grades "
                                f"narrowed by --task): delete the stale one, or grade the whole lab (its results.json "
                                f"is then read alone)")
            if lab_twice or twice:
                first = row.origin[twice] if twice and not lab_twice else row.sources[-1]
                raise UserError(f"{path}: a second report of submission {name!r} for "
                                f"{lab if lab_twice and lab else 'task ' + str(twice)} (the first: {first}); if they "
                                f"are two submissions, name each row: NAME={path} (or give each its own folder)")
            row.labs.add(lab_key)
            if not narrowed:
                row.full_labs.add(lab_key)
            row.sources.append(str(path))
            row.flagged += [r for r in review if r not in row.flagged]
            row.ignored += [i for i in ignored if i not in row.ignored]
            for col, score in entries:
                seen = columns.setdefault(col.key, (col, str(path)))
                if seen[0].max_score != col.max_score:
                    raise UserError(f"{path}: task {col.key!r} has max_score {col.max_score:g}, "
                                    f"{seen[0].max_score:g} in {seen[1]} (reports of different course editions?)")
                row.scores[col.key] = score
                row.origin[col.key] = str(path)
    return Summary(sorted((c for c, _ in columns.values()), key=lambda c: c.sort_key), list(rows.values()),
                   unread=unread)


def _newer_unread(arg: str) -> list[tuple[str, str]]:
    """``[(row name, path)]`` of a grade folder REPORT's ``results-<task ids>.json`` files that :func:`_reports` does
    not read (their lab has a ``results.json``) and that were written after it: a regrade the table does not show."""
    named, p = None, Path(arg)
    if not p.exists() and "=" in arg:  # NAME=REPORT
        named, _, rest = arg.partition("=")
        p = Path(rest)
    if not p.is_dir() or (p / FILE).is_file():
        return []
    out = []
    for f in sorted(p.glob("*/results-*.json")):
        full = f.parent / FILE
        try:
            if full.is_file() and f.stat().st_mtime > full.stat().st_mtime:
                out.append((named or p.resolve().name, str(f)))
        except OSError:
            continue
    return out


def ungraded_labs(s: Summary, course) -> list[tuple[str, float]]:
    """``[(lab folder, points)]`` of the labs of ``course`` (a :class:`common.course.tasks.Course`) that no
    report of ``s`` grades; ``[]`` when some report's lab is not one of the course's (reports of another edition:
    the course says nothing about them)."""
    labs = {c.lab for c in s.columns}
    known = {lab.dir for lab in course.labs}
    if not labs or not labs <= known:
        return []
    return [(lab.dir, float(sum(t.points for t in lab.tasks))) for lab in course.labs if lab.dir not in labs]


def stats(values: list[float]) -> dict:
    """``{"n", "mean", "median"}`` of ``values`` (mean and median None when empty)."""
    return {"n": len(values), "mean": statistics.fmean(values) if values else None,
            "median": statistics.median(values) if values else None}


def _fmt(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}".rstrip("0").rstrip(".")


def _cell(s: str) -> str:
    return s.replace("|", "\\|")


def _total(s: Summary, r: Row) -> str:
    return _fmt(r.total) + (" (partial)" if s.partial(r) else "")


def markdown(s: Summary) -> str:
    """The table of the module docstring in Markdown (rows, then mean and median; a last ``review`` column), with a
    count line."""
    head = ["submission", *[f"{c.key} (/{_fmt(c.max_score)})" for c in s.columns], f"total (/{_fmt(s.max_total)})",
            "review"]
    partial = [r for r in s.rows if s.partial(r)]
    lines = [f"# Class summary: {len(s.rows)} submission(s), {len(s.columns)} task(s)", "",
             "| " + " | ".join(_cell(h) for h in head) + " |", "| --- |" + " ---: |" * (len(head) - 2) + " --- |"]
    for r in s.rows:
        cells = [_cell(r.name), *[_fmt(r.scores[c.key]) if c.key in r.scores else "missing" for c in s.columns],
                 _total(s, r), _cell("; ".join(r.review))]
        lines.append("| " + " | ".join(cells) + " |")
    for what in ("mean", "median"):
        cells = [f"**{what}**", *[_fmt(stats(s.values(c.key))[what]) for c in s.columns], _fmt(stats(s.values(None))[what]),
                 ""]
        lines.append("| " + " | ".join(cells) + " |")
    if partial:
        lines += ["", f"{len(partial)} submission(s) lack a task (\"missing\", not 0): their totals are partial, and "
                      "the total's mean and median leave them out: "
                      + "; ".join(f"{_cell(r.name)}: {s.lacks(r)}" for r in partial) + "."]
    if s.ungraded:
        lines += ["", f"Not graded in any report (in neither the table nor its total): {_cell(s.ungraded_text())}."]
    if s.unread:
        lines += ["", f"Not read, newer than their lab's {FILE} (regrades narrowed by --task; the full reports are in "
                      "the table): " + "; ".join(f"{_cell(name)}: {_cell(path)}" for name, path in s.unread) + "."]
    return "\n".join(lines) + "\n"


def csv_text(s: Summary) -> str:
    """One line per submission: ``submission``, one column per task key (blank: missing), ``total``,
    ``missing`` (what a partial row lacks, see :meth:`Summary.lacks`; empty when complete), ``review`` (its reasons,
    :attr:`Row.review`, joined with ``"; "``; empty when none)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["submission", *[c.key for c in s.columns], "total", "missing", "review"])
    for r in s.rows:
        w.writerow([r.name, *[_fmt(r.scores.get(c.key)) for c in s.columns], _fmt(r.total), s.lacks(r),
                    "; ".join(r.review)])
    return buf.getvalue()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "task"


def histogram_name(c: Column | None) -> str:
    """``hist_<number>_<id>.png`` of a column, ``hist_total.png`` for ``None``."""
    return "hist_total.png" if c is None else f"hist_{_slug(c.key)}.png"


def histogram_png(values: list[float], max_score: float, title: str) -> bytes:
    """A PNG (bytes) of how many submissions got each score in ``[0, max_score]``."""
    from matplotlib.figure import Figure  # the Agg canvas, no pyplot state
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(4.5, 3.0))
    ax = fig.subplots()
    top = max([max_score, *values]) if values else max_score
    if top <= 60 and all(float(v).is_integer() for v in values):  # every task's points (the largest is 50)
        bins = [b - 0.5 for b in range(int(top) + 2)]  # one bar per whole point: 48 and 50 are two bars
    else:
        bins = 20
    ax.hist(values, bins=bins, range=None if isinstance(bins, list) else (0, top), color="#4878a8", edgecolor="white")
    ax.set_xlim(-0.5, top + 0.5)
    ax.set_xlabel("score (points)")
    ax.set_ylabel("submissions")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title, fontsize=9)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return buf.getvalue()


def to_json(s: Summary) -> dict:
    """The ``summary.json`` object of the module docstring."""
    tasks = [{"key": c.key, "number": c.number, "id": c.id, "lab": c.lab, "max_score": c.max_score,
              **stats(s.values(c.key)), "histogram": histogram_name(c)} for c in s.columns]
    return {"tasks": tasks, "total": {"max_score": s.max_total, **stats(s.values(None)),
                                      "partial": sum(s.partial(r) for r in s.rows), "histogram": histogram_name(None)},
            "submissions": [{"name": r.name, "scores": r.scores, "total": r.total, "partial": s.partial(r),
                             "missing": [c.key for c in s.missing(r)], "sources": r.sources, "review": r.review}
                            for r in s.rows],
            "ungraded": [{"lab": lab, "max_score": points} for lab, points in s.ungraded]}


def write(s: Summary, out: str | Path) -> list[Path]:
    """Write ``summary.md``, ``summary.csv``, ``summary.json`` and the histograms under ``out`` (atomically)."""
    out = Path(out)
    paths = [atomic_write(out / "summary.md", markdown(s)), atomic_write(out / "summary.csv", csv_text(s)),
             atomic_write(out / "summary.json", json.dumps(to_json(s), indent=2) + "\n")]
    for c in [*s.columns, None]:
        values = s.values(None if c is None else c.key)
        title = (f"total ({len(values)} complete submissions, max {_fmt(s.max_total)})" if c is None
                 else f"{c.key} ({len(values)} submissions, max {_fmt(c.max_score)})")
        png = histogram_png(values, s.max_total if c is None else c.max_score, title)
        paths.append(atomic_write(out / histogram_name(c), png))
    return paths
