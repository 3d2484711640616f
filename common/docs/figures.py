"""README figures and tables generated from the committed results tables.

A number quoted in a Markdown file is written between two HTML comments (invisible when rendered)
that say which cell of which table it is::

    INT8 keeps <!--fig lab01/quantization[model=int8*].top1_agreement|.1%-->94.3%<!--/fig--> of ...

- ``lab01/quantization``: the table ``results/lab01/quantization.json``: always the committed
  reference tables beside this package, never ``$MLC_RESULTS_DIR``;
- ``[model=int8*]`` (optional): the rows whose ``model`` cell matches the glob (``fnmatch``, on the
  cell as text); several conditions are separated by ``;``; ``[3]`` is the row at index 3; without
  a selector, every row;
- ``.top1_agreement``: the column;
- `` max`` (optional): how the matching rows become one figure: ``one`` (the default: exactly one
  row must match), ``first``, ``last``, ``min``, ``max``, ``sum``, ``count``, ``list`` (every
  value, joined by ``, ``);
- ``|.1%`` (optional): a ``format()`` spec; exponents lose their padding zeros (``6.6e-07`` ->
  ``6.6e-7``). Without one, the tables' own formatting (:func:`common.results.markdown_table`).
  Inside a Markdown table row the bar is written ``\|``: GitHub splits a row into cells at every
  unescaped ``|``, comments included (GFM spec, "Tables": "include a pipe in a cell's content by
  escaping it"); :func:`bars_in_table_rows` finds the ones that are not.

A whole table (some columns of some rows) goes between ``<!--table lab01/latency[backend=ort_cpu]
cols=batch,seq,speedup_vs_eager-->`` and ``<!--/table-->``.

``python -m common.docs`` (:mod:`common.docs.__main__`) rewrites them; ``common/test_docs.py`` fails
on a stale one.
"""
from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import UserError
from ..results import ROOT as RESULTS_ROOT, atomic_write, markdown_table, read_table
from . import REPO, doc_files

FIG_RE = re.compile(r"<!--\s*fig\s+(?P<spec>.*?)\s*-->(?P<body>.*?)<!--\s*/fig\s*-->", re.S)
TABLE_RE = re.compile(r"<!--\s*table\s+(?P<spec>.*?)\s*-->(?P<body>.*?)<!--\s*/table\s*-->", re.S)
_SPEC_RE = re.compile(r"^(?P<table>[\w-]+(?:/[\w-]+)*)(?:\[(?P<sel>[^\]]*)\])?\.(?P<col>\w+)"
                      r"(?:\s+(?P<agg>[a-z]+))?\s*(?:\\?\|(?P<fmt>.*))?$")
_TABLE_SPEC_RE = re.compile(r"^(?P<table>[\w-]+(?:/[\w-]+)*)(?:\[(?P<sel>[^\]]*)\])?\s+cols=(?P<cols>[\w,]+)$")
AGGREGATES = ("one", "first", "last", "min", "max", "sum", "count", "list")


@cache
def _table(results: Path, name: str) -> dict:
    return read_table(results / f"{name}.json")


def _rows(results: Path, table: str, sel: str | None) -> list[dict]:
    rows = _table(results, table)["rows"]
    sel = (sel or "").strip()
    if not sel:
        return rows
    if re.fullmatch(r"-?\d+", sel):
        try:
            return [rows[int(sel)]]
        except IndexError:
            raise UserError(f"{table}: no row {sel} (the table has {len(rows)})") from None
    conds = []
    for part in sel.split(";"):
        col, eq, pattern = part.partition("=")
        if not eq:
            raise UserError(f"{table}[{sel}]: a condition is column=glob, got {part!r}")
        conds.append((col.strip(), pattern.strip()))
    for col, _ in conds:
        if rows and not any(col in r for r in rows):
            raise UserError(f"{table}[{sel}]: no column {col!r}")
    return [r for r in rows if all(fnmatch.fnmatchcase(_text(r.get(c)), p) for c, p in conds)]


def _text(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return "" if v is None else str(v)


def format_value(v, fmt: str | None) -> str:
    """``v`` with ``format(v, fmt)`` (exponent padding dropped: ``6.6e-7``), or as the tables print it."""
    if fmt is None or fmt == "":
        from ..results import table_cell
        return table_cell(v)
    out = format(v, fmt)
    return re.sub(r"e([+-])0*(\d)", lambda m: f"e{'-' if m.group(1) == '-' else ''}{m.group(2)}", out)


def figure(spec: str, results: Path = RESULTS_ROOT) -> str:
    """The text of one figure, ``TABLE[SEL].COLUMN [AGG] [|FMT]`` (the module docstring).

    Raises:
        UserError: a malformed spec, a missing table or column, or rows that do not fit ``AGG``.
    """
    m = _SPEC_RE.match(spec.strip())
    if not m:
        raise UserError(f"figure spec {spec!r} is not TABLE[SELECTOR].COLUMN [AGGREGATE] [|FORMAT]")
    table, col, agg, fmt = m["table"], m["col"], m["agg"] or "one", m["fmt"]
    if agg not in AGGREGATES:
        raise UserError(f"figure {spec!r}: unknown aggregate {agg!r}; use one of {', '.join(AGGREGATES)}")
    rows = _rows(results, table, m["sel"])
    if agg == "count":
        return format_value(len(rows), fmt)
    if not rows:
        raise UserError(f"figure {spec!r}: no row matches")
    if any(col not in r for r in rows):
        raise UserError(f"figure {spec!r}: no column {col!r} in {table}")
    values = [r[col] for r in rows]
    if agg == "one":
        if len(values) != 1:
            raise UserError(f"figure {spec!r}: {len(values)} rows match; narrow the selector or name an aggregate")
        return format_value(values[0], fmt)
    if agg in ("first", "last"):
        return format_value(values[0 if agg == "first" else -1], fmt)
    if agg == "list":
        return ", ".join(format_value(v, fmt) for v in values)
    nums = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v)]
    if len(nums) != len(values):
        raise UserError(f"figure {spec!r}: {agg} needs numbers, got {values}")
    v = {"min": min, "max": max, "sum": sum}[agg](nums)
    return format_value(int(v) if all(isinstance(x, int) for x in values) else v, fmt)


def table_block(spec: str, results: Path = RESULTS_ROOT) -> str:
    """The Markdown table of ``TABLE[SEL] cols=a,b,c`` (between blank lines).

    Raises:
        UserError: ``spec`` is not ``TABLE[SEL] cols=...``, the table is not a readable results table
            (:func:`common.results.read_table`), the selector is bad or matches no row, or a column is in no row.
    """
    m = _TABLE_SPEC_RE.match(spec.strip())
    if not m:
        raise UserError(f"table spec {spec!r} is not TABLE[SELECTOR] cols=a,b,c")
    rows = _rows(results, m["table"], m["sel"])
    cols = m["cols"].split(",")
    missing = [c for c in cols if not any(c in r for r in rows)]
    if not rows or missing:
        raise UserError(f"table {spec!r}: {'no row matches' if not rows else f'no column {missing}'}")
    return "\n\n" + markdown_table([{c: r.get(c, "") for c in cols} for r in rows]) + "\n"


def render(text: str, results: Path = RESULTS_ROOT) -> str:
    """``text`` with every figure and table span regenerated from ``results``."""
    def swap(m: re.Match, body: str) -> str:
        whole, start = m.group(0), m.start()
        return whole[:m.start("body") - start] + body + whole[m.end("body") - start:]

    text = FIG_RE.sub(lambda m: swap(m, figure(m["spec"], results)), text)
    return TABLE_RE.sub(lambda m: swap(m, table_block(m["spec"], results)), text)


def spans(text: str) -> Iterator[tuple[str, str, str]]:
    """``(kind, spec, body)`` of every figure and table span in ``text``."""
    for m in FIG_RE.finditer(text):
        yield "fig", m["spec"], m["body"]
    for m in TABLE_RE.finditer(text):
        yield "table", m["spec"], m["body"]


def bars_in_table_rows(path: Path) -> list[str]:
    """``"<file>:<line>: <spec>"`` for every figure in a Markdown table row whose spec has an unescaped ``|``
    (it would split the row's cell on GitHub; write ``\\|``)."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("|"):
            out += [f"{path.name}:{n}: {m['spec']}" for m in FIG_RE.finditer(line)
                    if re.search(r"(?<!\\)\|", m["spec"])]
    return out


@dataclass
class Stale:
    """A figure or table span of a doc (``kind``: ``"fig"`` or ``"table"``) whose text ``shown`` differs from
    ``table_says``, what the results table gives for ``spec``."""

    path: Path
    kind: str
    spec: str
    shown: str
    table_says: str

    def line(self, root: Path = REPO) -> str:
        """One line naming the span, its file relative to ``root`` (as given when outside it) and, for a figure,
        both values."""
        rel = self.path.relative_to(root) if self.path.is_relative_to(root) else self.path
        if self.kind == "table":
            return f"{rel}: table {self.spec!r} differs from the results table"
        return f"{rel}: figure {self.spec!r} shows {self.shown!r}, the table says {self.table_says!r}"


def stale(files: Iterable[Path] | None = None, results: Path = RESULTS_ROOT) -> list[Stale]:
    """Every figure or table span whose text is not what the results tables say."""
    out = []
    for path in doc_files() if files is None else files:
        text = path.read_text(encoding="utf-8")
        for kind, spec, body in spans(text):
            want = figure(spec, results) if kind == "fig" else table_block(spec, results)
            if body != want:
                out.append(Stale(path, kind, spec, body, want))
    return out


def update(files: Iterable[Path] | None = None, results: Path = RESULTS_ROOT) -> list[Path]:
    """Rewrite the stale spans in place (atomically); returns the files changed."""
    changed = []
    for path in doc_files() if files is None else files:
        text = path.read_text(encoding="utf-8")
        new = render(text, results)
        if new != text:
            atomic_write(path, new)
            changed.append(path)
    return changed
