"""The instructor's diff of two results folders or tables (``python -m common.results_diff``, README
"For instructors: diffing results"), over the tables :mod:`common.results` writes.

Instructor's command::

    python -m common.results_diff A B [--threshold 0.10] [--tol 1e-4] [--all] [-v]

compares two results folders (every table present in both, matched by relative path) or two tables
(a ``.json``, or its ``.csv``/``.md`` twin: the diff reads the ``.json`` beside it and says so), cell by
cell; A is the reference, B the run under review.

Rows are matched by a key (:func:`key_columns`) among the columns that can identify a row: text
columns (model, stage, backend) and integer columns named in ``KEY_NAMES`` (batch, seq, threads, m, n,
k), then other integer columns (a partition number); the shortest prefix of them that makes the rows
unique in both tables, less the columns uniqueness does not need. Rows are labelled by it
(``[seq=32, backend=ort_cuda]``); a row on one side only is one line (``row [...] only in B``). A
duplicated row does not hide the key (:func:`match_key`): the key is then chosen on the rows with
exact repeats dropped, else on A's rows alone (or B's) when they are unique; a key that a side holds
more often than the other is one line (``row [...] appears 2 times in B, 1 in A``), its first
occurrences are compared, and every other row is still matched by key. When no key makes the rows
unique, rows are matched by position (``[#3]``, 1-based) and one note says so.

By default only what travels between machines is compared; the class of a column is decided from
its name, split into lower-case words at every non-alphanumeric character (``median_ms_b1_s128`` ->
median, ms, b1, s128):

- **text** cells (gate verdicts, statuses, names, error messages, booleans): compared exactly, except
  that a machine-kind results folder in a path is ignored (``results/znver4/lab02/x.md`` equals
  ``results/rocketlake/lab02/x.md`` and ``results/lab02/x.md``; shown with ``-v``, not flagged).
- **error** columns, a word in ``ERROR_WORDS`` (abs, err, diff, rel: ``max_abs``, ``max_abs_err``,
  ``rel_to_scale``, ``torch_cuda_rel_err``): compared as the verdict "within tolerance" (value <=
  the row's ``atol`` column for absolute errors, the row's ``rtol`` when > 0 for relative ones; in a row
  without those, the verdict the row records of its own check (a ``status``/``gate`` cell ``ok``,
  ``pass``, ``FAIL: ...``), or the absolute limit it states (``absolute |d| <= 0.0001``); else
  ``--tol``, default 1e-4, the seed's absolute gate); flagged when the verdict differs. A row whose own
  check is stated relative (``relative |d| <= 0.0001*max|ref|``) without a verdict gets none for its
  absolute errors (the scale is not in the table), and a row whose ``rtol`` is 0 (its check bounds
  ``|d|`` by ``atol`` alone) none for its relative errors (``max_rel``: no part of its check): not
  judged, shown with ``-v``, compared as a number with ``--all``.
- An empty cell and a missing one (``""``, ``None``, a column a row lacks) are the same: no difference. A
  machine column empty on one side only is machine-dependent like its values: compared with ``--all``.
- **machine** columns, a word in ``MACHINE_WORDS`` (ms, s, us, seconds, minutes, gflops, gbs,
  port: ``median_ms``, ``build_s``, ``seconds_per_trial``, ``gflops``, ``tracker_port``): absolute
  times and rates that depend on the machine; not compared unless ``--all``.
- **portable** numbers, every other numeric column (ratios, speedups, x-factors, % of peak, node /
  op / case counts, bytes of planned memory): flagged when the signed relative change
  ``(b - a) / |a|`` exceeds the threshold in size. The threshold is a fraction (0.10 = 10%).

``--all`` compares every numeric cell by its relative change (machine columns, and error columns as
numbers); ``-v`` also prints the differences that were not flagged. Changes are printed signed
(36.59 -> 32.11 is ``-12.2%``). Rows and tables present on one side only are flagged, and so is a
table one folder cannot read (a ``.json`` beside its ``.csv``/``.md``, or at the path of the other
side's table, that is not valid JSON or not a table): one line each, the rest is still compared; a table only
in A that never reaches a student (``results/mutation``, :data:`common.course.sources.INSTRUCTOR_ONLY`) is a
note, not a difference. A cell a row lacks prints as ``(absent)``.
Exit code: 0 nothing flagged, 1 something flagged, 2 bad input (one ``error:`` line: a path that does
not exist, a path that is neither a folder nor a file (``/dev/null``), a file that is not a readable
table, a folder against a file, a threshold or tolerance that is negative, NaN or infinite, no tables
in a folder).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Sequence

from .errors import UserError, run_cli
from .results import read_table

ERROR_WORDS = frozenset({"abs", "err", "diff", "rel"})
MACHINE_WORDS = frozenset({"ms", "s", "us", "ns", "sec", "seconds", "minutes", "gflops", "gbs", "port"})
DEFAULT_TOL = 1e-4
#: Integer columns that identify a row (sizes, shapes, thread counts) rather than measure it: key candidates.
KEY_NAMES = frozenset({"batch", "batch_size", "seq", "seq_len", "threads", "m", "n", "k"})
#: ``results/<machine kind>/`` in a path (``results/znver4/lab02/x.md``): the folder of one machine's tables.
_KIND_FOLDER = re.compile(r"\bresults/(?!lab\d)[\w.+-]+/(?=lab\d|roof)")


def column_class(column: str) -> str:
    """``"error"``, ``"machine"`` or ``"portable"`` for a numeric column, from the words of its name.

    See the module docstring: ``ERROR_WORDS`` first, then ``MACHINE_WORDS``, else portable.
    """
    words = set(re.split(r"[^a-z0-9]+", column.lower()))
    if words & ERROR_WORDS:
        return "error"
    if words & MACHINE_WORDS:
        return "machine"
    return "portable"


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def _key_tier(column: str, values: list) -> int | None:
    """0: text (no value numeric) or an integer column named in ``KEY_NAMES``; 1: another integer column of the
    portable class (a partition number, also a count); None: not a key candidate (floats, missing values)."""
    if all(isinstance(v, str) and _num(v) is None for v in values):
        return 0
    if all(type(v) is int for v in values):
        return 0 if column.lower() in KEY_NAMES else 1 if column_class(column) == "portable" else None
    return None


def key_columns(a: list[dict], b: list[dict]) -> list[str] | None:
    """The columns whose values identify every row of both row lists, or None when no candidates do.

    Candidates, in column order: text columns (a non-numeric string in every row of both) and integer columns
    named in ``KEY_NAMES`` (batch, seq, threads, m, n, k), then the other integer columns of the portable class.
    The key is the shortest prefix of the candidates whose values are unique within each list, less every
    column of it that uniqueness does not need (a constant batch, a status between two identifiers); never empty.
    """
    rows = a + b
    tiers = {c: _key_tier(c, [r.get(c) for r in rows]) for c in dict.fromkeys(k for r in rows for k in r)}
    candidates = sorted((c for c, t in tiers.items() if t is not None), key=tiers.__getitem__)

    def unique(key: list[str]) -> bool:
        return all(len({tuple(r[c] for c in key) for r in t}) == len(t) for t in (a, b))

    key = next((candidates[:n] for n in range(1, len(candidates) + 1) if unique(candidates[:n])), None)
    for c in list(key or []):
        rest = [k for k in key if k != c]
        if rest and unique(rest):
            key = rest
    return key


def _content(row: dict) -> str:
    """The row's cells as one string (column order aside): two rows are repeats when these are equal."""
    return json.dumps(row, sort_keys=True, default=repr)


def match_key(a: list[dict], b: list[dict]) -> list[str] | None:
    """The key :func:`diff_tables` matches rows by: :func:`key_columns` of the two row lists, else (a row
    repeated) of the lists with exact repeats dropped, else of A's rows alone, else of B's rows alone (a side
    then holds some key more than once: :func:`diff_tables` reports it); None when none of these has a key."""
    key = key_columns(_distinct(a), _distinct(b))
    return key if key is not None else key_columns(a, a) or key_columns(b, b)


def _distinct(rows: list[dict]) -> list[dict]:
    """``rows`` without exact repeats (the first of each kept, in order)."""
    first: dict[str, dict] = {}
    for r in rows:
        first.setdefault(_content(r), r)
    return list(first.values())


def _key_value(row: dict, key: list[str]) -> tuple:
    """The row's values in the key's columns (a column it lacks: None; an unhashable value: its repr)."""
    def hashable(v: Any) -> Any:
        try:
            hash(v)
        except TypeError:
            return repr(v)
        return v
    return tuple(hashable(row.get(c)) for c in key)


#: Columns where a row records the verdict of its own tolerance check (``status``: ``ok`` or ``FAIL: ...``; ``gate``:
#: ``pass``/``fail``, or the check itself, ``absolute |d| <= 0.0001``), and the words of a verdict.
VERDICT_COLUMNS = ("status", "gate")
_WITHIN = frozenset({"ok", "pass", "passed"})
_BEYOND = re.compile(r"^(fail|gate failed|values$)", re.IGNORECASE)
_STATED_ABS = re.compile(r"absolute\b.*?<=\s*([0-9.eE+-]+)|<=\s*([0-9.eE+-]+)\s*\(absolute\)")


def _own_verdict(row: dict) -> str | None:
    """What the row says of its own check: ``"within"``/``"beyond"`` (a verdict cell), ``"relative"`` (a stated
    relative check without a verdict: its scale is not in the table), ``"<= X"`` (a stated absolute limit), else None."""
    for col in VERDICT_COLUMNS:
        text = row.get(col)
        if not isinstance(text, str) or not text.strip():
            continue
        text = text.strip()
        if text.lower() in _WITHIN:
            return "within"
        if _BEYOND.match(text):
            return "beyond"
        if m := _STATED_ABS.search(text):
            return f"<= {m.group(1) or m.group(2)}"
        if "relative" in text.lower():
            return "relative"
    return None


def _is_relative(column: str) -> bool:
    """Whether an error column holds a relative error (a name with ``rel`` and without ``abs``)."""
    words = set(re.split(r"[^a-z0-9]+", column.lower()))
    return "rel" in words and "abs" not in words


def _unjudged(column: str, row: dict) -> str | None:
    """Why no tolerance verdict can be given for the error column ``column`` of ``row`` (None: one can): an absolute
    error under a check of the row's own stated relative to a scale the table does not record, or a relative error
    in a row whose own check bounds the absolute error only (``rtol`` 0: ``|d| <= atol``; the relative error is
    then no part of it, whatever its size, and ``--tol`` would call a passing row's ``max_rel`` "beyond")."""
    if _is_relative(column):
        rtol = _num(row.get("rtol"))
        if rtol == 0 and _num(row.get("atol")) is not None:
            return "the row's own check bounds the absolute error only (rtol 0)"
        return None
    if "atol" not in row and "rtol" not in row and _own_verdict(row) == "relative":
        return "the row's own check is relative to a scale the table does not record"
    return None


def _verdict(column: str, value: float, row: dict, tol: float) -> str | None:
    """``"within"`` / ``"beyond"`` tolerance for an error cell (``"nan"`` when the value is NaN; None for an absolute
    error when the row's own check is relative to a scale the table does not record: no verdict can be given).

    The limit is the row's ``atol`` for an absolute error, its ``rtol`` (when > 0) for a relative one
    (a name with ``rel`` and without ``abs``); a row without these columns that records its own check's
    verdict (:data:`VERDICT_COLUMNS`: ``ok``, ``pass``, ``FAIL: ...``) has that verdict, one that states an
    absolute limit (``absolute |d| <= 0.0001``) that limit; else ``tol``.
    """
    if math.isnan(value):
        return "nan"
    if _unjudged(column, row):  # |d| against a scale the table does not hold, or a relative error under rtol 0
        return None
    relative = _is_relative(column)
    own = _num(row.get("rtol" if relative else "atol"))
    if own is None and "atol" not in row and "rtol" not in row and (stated := _own_verdict(row)) is not None:
        if stated in ("within", "beyond"):
            return stated
        own = None if relative or stated == "relative" else _num(stated.removeprefix("<= "))  # a limit of |d|
    limit = own if own is not None and not math.isnan(own) and (own > 0 or not relative) else tol
    return "within" if value <= limit else "beyond"


def _rel(na: float, nb: float) -> float:
    """Signed relative change ``(b - a) / |a|`` (``±inf`` from 0)."""
    if na == 0:
        return 0.0 if nb == 0 else math.copysign(math.inf, nb)
    return (nb - na) / abs(na)


def _without_kind(text: str) -> str:
    """``text`` with every machine-kind results folder dropped from its paths (``results/znver4/lab02`` ->
    ``results/lab02``)."""
    return _KIND_FOLDER.sub("results/", text)


def _cell(col: str, va: Any, vb: Any, ra: dict, rb: dict, threshold: float, all_columns: bool, tol: float) -> dict:
    na, nb = _num(va), _num(vb)
    if (na is None) != (nb is None) and (va if na is None else vb) in (None, "") \
            and column_class(col) == "machine":  # a time or rate on one side only: the machine's, as its value
        return {"kind": "machine", "rel_change": None, "compared": all_columns, "flagged": all_columns,
                "note": "empty on one side"}
    if na is None or nb is None:
        same = isinstance(va, str) and isinstance(vb, str) and _without_kind(va) == _without_kind(vb)
        note = {"note": "machine folder only"} if same else {}
        return {"kind": "text", "rel_change": None, "flagged": not same, **note}
    kind = column_class(col)
    rel = _rel(na, nb) if not (math.isnan(na) or math.isnan(nb)) else math.nan
    if kind == "error" and not all_columns:
        if why := _unjudged(col, ra) or _unjudged(col, rb):  # no tolerance of the row's own applies to it
            return {"kind": kind, "rel_change": rel, "compared": False, "flagged": False, "note": why}
        vd_a, vd_b = _verdict(col, na, ra, tol), _verdict(col, nb, rb, tol)
        return {"kind": kind, "rel_change": rel, "verdict": f"{vd_a} -> {vd_b}", "flagged": vd_a != vd_b}
    compared = all_columns or kind == "portable"
    flagged = compared and (math.isnan(rel) or abs(rel) > threshold)
    return {"kind": kind, "rel_change": rel, "compared": compared, "flagged": flagged}


def diff_tables(a: dict, b: dict, threshold: float, *, all_columns: bool = False, tol: float = DEFAULT_TOL
                ) -> list[dict]:
    """Cell-by-cell differences between two table documents (as read by :func:`read_table`).

    Rows are matched by :func:`match_key` (by position when it finds no key). Rows of the same key are
    paired in order; a key held a different number of times on the two sides (a duplicated row) is one
    dict, and the rows paired are still compared.

    Args:
        a, b: the two tables (``{"rows": [...]}``).
        threshold: flag portable numbers whose signed relative change exceeds this fraction in size (0.10 = 10%).
        all_columns: compare every numeric cell by its relative change (machine and error columns too).
        tol: tolerance of error verdicts when the row has no ``atol``/``rtol`` (module docstring).

    Returns:
        One dict per differing cell: row (its label, ``batch=1, seq=32`` or ``#3``), column, a, b, kind (text /
        error / machine / portable / row / duplicate), rel_change (signed ``(b - a) / |a|``, None for text),
        flagged; error cells also carry ``verdict`` ("within -> beyond"), machine cells ``compared``, text cells that differ
        only in a machine-kind results folder ``note``. A row on one side only is one dict of kind row, column
        ``*``, a and b ``present`` / ``missing``; a key held more often on one side than on the other is one
        dict of kind duplicate, column ``*``, a and b the number of rows of that key in A and in B (the rows
        paired in order are compared all the same; a later pair's label ends ``(occurrence 2)``).
    """
    key = match_key(a["rows"], b["rows"])

    def index(rows: list[dict]) -> dict[Any, list[dict]]:
        out: dict[Any, list[dict]] = {}
        for i, r in enumerate(rows):
            out.setdefault(_key_value(r, key) if key else i, []).append(r)
        return out

    rows_a, rows_b = index(a["rows"]), index(b["rows"])
    out = []
    for k in dict.fromkeys([*rows_a, *rows_b]):
        la, lb = rows_a.get(k, []), rows_b.get(k, [])
        label = ", ".join(f"{c}={v}" for c, v in zip(key, k)) if key else f"#{k + 1}"
        if not la or not lb:
            out.append({"row": label, "column": "*", "a": "missing" if not la else "present", "kind": "row",
                        "b": "missing" if not lb else "present", "rel_change": None, "flagged": True})
            continue
        if len(la) != len(lb):
            out.append({"row": label, "column": "*", "a": len(la), "b": len(lb), "kind": "duplicate",
                        "rel_change": None, "flagged": True})
        for j, (ra, rb) in enumerate(zip(la, lb)):
            out += _row_cells(label if j == 0 else f"{label} (occurrence {j + 1})", ra, rb, threshold, all_columns,
                              tol)
    return out


def _row_cells(label: str, ra: dict, rb: dict, threshold: float, all_columns: bool, tol: float) -> list[dict]:
    """The differing cells of two matched rows (:func:`diff_tables`)."""
    out = []
    for col in dict.fromkeys([*ra, *rb]):
        va, vb = ra.get(col), rb.get(col)
        na, nb = _num(va), _num(vb)
        if va == vb or (na is not None and nb is not None and math.isnan(na) and math.isnan(nb)):
            continue
        if va in (None, "") and vb in (None, ""):  # an empty cell and a missing one say the same: nothing
            continue
        out.append({"row": label, "column": col, "a": va, "b": vb,
                    **_cell(col, va, vb, ra, rb, threshold, all_columns, tol)})
    return out


def _scan(root: Path) -> tuple[dict[str, dict | str], dict[str, dict | str]]:
    """Every ``*.json`` under ``root``, by relative path without suffix, as its table or why it is not one (the
    :func:`read_table` message): (tables: each valid table and each .json beside a .csv/.md of its name, the
    other JSON files: tuning databases, ``roof.json``)."""
    tables: dict[str, dict | str] = {}
    other: dict[str, dict | str] = {}
    for p in sorted(root.rglob("*.json")):
        try:
            doc: dict | str = read_table(p)
        except UserError as exc:
            doc = str(exc)
        twin = any(p.with_suffix(s).is_file() for s in (".csv", ".md"))
        (tables if isinstance(doc, dict) or twin else other)[str(p.relative_to(root).with_suffix(""))] = doc
    return tables, other


class PathsDiff(NamedTuple):
    """What :func:`diff_paths` found."""
    cells: list[dict]  #: differing cells and rows on one side only (:func:`diff_tables`), each with ``table``
    problems: list[str]  #: flagged lines: a table on one side only, a table one side cannot read
    notes: list[str]  #: unflagged lines: rows matched by position, a .csv/.md given and its .json read
    compared: int  #: tables compared


def diff_paths(a: str | os.PathLike, b: str | os.PathLike, threshold: float = 0.10, *, all_columns: bool = False,
               tol: float = DEFAULT_TOL) -> PathsDiff:
    """Diff two results folders (tables matched by relative path) or two tables (a .json, or its .csv/.md);
    keyword arguments as for :func:`diff_tables`.

    In folders, a table one side cannot read (see the module docstring) is a flagged problem, and the other
    tables are still compared; a table given by name that cannot be read is bad input.

    Raises:
        UserError: a threshold or tolerance that is negative, NaN or infinite, a path that does not exist or
            is neither a folder nor a file (``/dev/null``), a file that is not a readable results table, a
            folder against a file, a folder without any results table.
    """
    for name, v, unit in (("threshold", threshold, "a fraction: 0.10 flags changes over 10%"),
                          ("tol", tol, "an absolute error, e.g. 1e-4")):
        if not (math.isfinite(v) and v >= 0):  # NaN and inf too
            raise UserError(f"--{name} must be a finite number >= 0 ({unit}), not {v:g}")
    pa, pb = Path(a), Path(b)
    for p in (pa, pb):
        if not p.exists():
            raise UserError(f"{p} does not exist; give two results folders or two tables")
        if not (p.is_file() or p.is_dir()):  # a device (/dev/null), a named pipe, a socket
            raise UserError(f"{p} is not a folder or a table (neither a folder nor a regular file); "
                            f"give two results folders or two tables")
    notes: list[str] = []
    if pa.is_file() or pb.is_file():
        docs = [read_table(p) for p in (pa, pb) if p.is_file()]  # a file that is no table: UserError naming it
        if len(docs) == 1:
            raise UserError(f"{pa if pa.is_file() else pb} is a table and {pb if pa.is_file() else pa} a folder; "
                            f"give two results folders or two tables")
        notes += [f"note: {side} is {p.name}: comparing {p.with_suffix('.json').name}, the table's JSON beside it"
                  for side, p in (("A", pa), ("B", pb)) if p.suffix != ".json"]
        (ta, oa), (tb, ob) = ({pa.stem: docs[0]}, {}), ({pa.stem: docs[1]}, {})
    else:
        (ta, oa), (tb, ob) = _scan(pa), _scan(pb)
        for p, tables in ((pa, ta), (pb, tb)):
            if not tables:
                raise UserError(f"no results tables (*.json written by common.results) found in {p}")
    cells, problems, compared = [], [], 0
    for name in sorted(ta.keys() | tb.keys()):
        da, db = ta.get(name, oa.get(name)), tb.get(name, ob.get(name))
        if isinstance(da, dict) and isinstance(db, dict):
            compared += 1
            if match_key(da["rows"], db["rows"]) is None and max(len(da["rows"]), len(db["rows"])) > 1:
                notes.append(f"note: {name}: no columns identify its rows in both tables; rows matched by position")
            cells += [{"table": name, **d} for d in diff_tables(da, db, threshold, all_columns=all_columns, tol=tol)]
        elif isinstance(da, str) or isinstance(db, str):
            problems += [f"table {name} in {side}: {d}" for side, d in (("A", da), ("B", db)) if isinstance(d, str)]
        elif da is not None and _never_shipped(pa, name):
            notes.append(f"note: table {name} only in A: instructor-only (common/course/sources.py INSTRUCTOR_ONLY), "
                         "never in a student's handout or run")
        else:
            problems.append(f"table {name} only in {'B' if da is None else 'A'}")
    return PathsDiff(cells, problems, notes, compared)


def _never_shipped(folder: Path, name: str) -> bool:
    """Whether the table ``name`` of the results folder ``folder`` lies under a ``results/...`` prefix of
    :data:`common.course.sources.INSTRUCTOR_ONLY` (``results/mutation``: the mutation-testing tables, which quote
    solution lines): the reference has it, a student's results never do, so its absence there is no difference."""
    from common.course.sources import INSTRUCTOR_ONLY

    path = (folder / name).resolve().as_posix() + "/"
    return any(f"/{prefix.rstrip('/')}/" in path for prefix in INSTRUCTOR_ONLY if prefix.startswith("results/"))


def format_cell(c: dict) -> str:
    """One line for a differing cell: ``! table [row] column: a -> b  (-12.2%)`` (``!`` when flagged),
    ``! table row [row] only in A`` for a row on one side only, or ``! table row [row] appears 2 times in B,
    1 in A`` for a key held more often on one side."""
    if c["kind"] == "row":
        return f"! {c['table']} row [{c['row']}] only in {'A' if c['a'] == 'present' else 'B'}"
    if c["kind"] == "duplicate":
        (more, n), (fewer, m) = sorted((("A", c["a"]), ("B", c["b"])), key=lambda side: -side[1])
        return f"! {c['table']} row [{c['row']}] appears {n} times in {more}, {m} in {fewer}"
    rel = c.get("rel_change")
    if c.get("verdict") and c["flagged"]:
        note = f"  (error {c['verdict']} tolerance)"
    elif rel is None or math.isnan(rel):
        note = f"  ({c['note']})" if c.get("note") else ""
    else:
        note = f"  ({rel:+.1%})" if math.isfinite(rel) else "  (from 0)"
    if c.get("compared") is False:
        note += ("  [machine-dependent: compared with --all]" if c["kind"] == "machine"
                 else f"  [{c.get('note', 'not compared')}: compared with --all]")
    return (f"{'!' if c['flagged'] else ' '} {c['table']} [{c['row']}] {c['column']}: {_shown(c['a'])} -> "
            f"{_shown(c['b'])}{note}")


def _shown(v: Any) -> str:
    """A cell as printed: ``(absent)`` for a column the row lacks or a null (``None``), ``""`` for an empty text."""
    return "(absent)" if v is None else '""' if v == "" else str(v)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m common.results_diff A B``: print the flagged differences (all with ``-v``) and a summary; exit
    codes in the module docstring (0 nothing flagged, 1 something flagged, 2 bad input)."""
    d = argparse.ArgumentParser(prog="python -m common.results_diff",
                                description="Compare two results folders or tables cell by cell (README: 'For "
                                            "instructors: diffing results').")
    d.add_argument("a", metavar="A", help="the reference: a results folder, or one table (.json, or its .csv/.md)")
    d.add_argument("b", metavar="B", help="the run to review: a folder or a table, as A")
    d.add_argument("--threshold", type=float, default=0.10,
                   help="flag portable numbers whose relative change exceeds this fraction, >= 0 "
                        "(default 0.10 = 10%%; 1 = 100%%)")
    d.add_argument("--tol", type=float, default=DEFAULT_TOL,
                   help="tolerance of error verdicts when a row has no atol/rtol (default 1e-4)")
    d.add_argument("--all", action="store_true",
                   help="compare every numeric cell, absolute times (ms) and error magnitudes included")
    d.add_argument("-v", "--verbose", action="store_true", help="also print the differences that were not flagged")
    args = d.parse_args(argv)
    res = diff_paths(args.a, args.b, args.threshold, all_columns=args.all, tol=args.tol)
    if args.threshold > 1:
        print(f"note: --threshold is a fraction: {args.threshold:g} flags changes over {args.threshold:.0%}")
    print(*res.notes, sep="\n", end="\n" if res.notes else "")
    flagged = [c for c in res.cells if c["flagged"]]
    for c in res.cells if args.verbose else flagged:
        print(format_cell(c))
    for line in res.problems:
        print(f"! {line}")
    skipped = sum(c.get("compared") is False and c["kind"] == "machine" for c in res.cells)
    unjudged = sum(c.get("compared") is False and c["kind"] == "error" for c in res.cells)
    scope = "every numeric cell" if args.all else (
        f"portable cells only; {skipped} machine-dependent cells not compared (--all)"
        + (f"; {unjudged} error cells not judged (no tolerance of their row's own check applies to them: -v says "
           "why)" if unjudged else ""))
    print(f"{len(flagged)} flagged of {len(res.cells)} differing cells in {len({c['table'] for c in res.cells})} of "
          f"{res.compared} tables compared (threshold {args.threshold:.0%}, {scope}); "
          f"{len(res.problems)} tables on one side only or unreadable")
    return 1 if flagged or res.problems else 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
