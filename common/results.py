"""Results tables: Markdown for people, CSV and JSON for machines, written atomically.

Every table lives at ``results/<lab>/<name>.{md,csv,json}`` (the root is ``results/`` beside this
package, or ``$MLC_RESULTS_DIR``). The Markdown and JSON carry the environment the numbers were
measured in (CPU, threads, package versions, budgets, seeds, data source); the CSV holds the rows
alone so any spreadsheet reads it. Writes go to a temporary file in the same folder and are
renamed into place, so a crash never leaves a half-written table. :func:`markdown_table` is the
project's one Markdown table writer (``common.gates.rows_to_markdown`` is the same function).

Instructor's command::

    python -m common.results diff results/ other_student/results/ [--threshold 0.10] [--tol 1e-4] [--all] [-v]

compares every table present in both (matched by relative path), cell by cell. Rows are matched by
their leading text columns (the shortest prefix of the text columns, e.g. model, stage, that is
unique in both tables), else by position. By default only what travels between machines is
compared; the class of a column is decided from its name, split into lower-case words at every
non-alphanumeric character (``median_ms_b1_s128`` -> median, ms, b1, s128):

- **text** cells (gate verdicts, statuses, names, error messages, booleans): compared exactly.
- **error** columns, a word in ``ERROR_WORDS`` (abs, err, diff, rel: ``max_abs``, ``max_abs_err``,
  ``rel_to_scale``, ``torch_cuda_rel_err``): compared as the verdict "within tolerance" (value <=
  the row's ``atol`` column for absolute errors, the row's ``rtol`` when > 0 for relative ones, else
  ``--tol``, default 1e-4, the seed's absolute gate); flagged when the verdict differs.
- **machine** columns, a word in ``MACHINE_WORDS`` (ms, s, us, seconds, minutes, gflops, gbs,
  port: ``median_ms``, ``build_s``, ``seconds_per_trial``, ``gflops``, ``tracker_port``): absolute
  times and rates that depend on the machine; not compared unless ``--all``.
- **portable** numbers, every other numeric column (ratios, speedups, x-factors, % of peak, node /
  op / case counts, bytes of planned memory): flagged when the signed relative change
  ``(b - a) / |a|`` exceeds the threshold in size.

``--all`` compares every numeric cell by its relative change (machine columns, and error columns as
numbers); ``-v`` also prints the differences that were not flagged. Changes are printed signed
(36.59 -> 32.11 is ``-12.2%``). Missing rows and tables present on one side only are flagged.
Exit code: 0 nothing flagged, 1 something flagged, 2 bad input (e.g. no tables found).
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Sequence

from .errors import UserError, run_cli

ROOT = Path(__file__).resolve().parent.parent / "results"


def results_dir(lab: str = "") -> Path:
    """``results/<lab>`` (or ``$MLC_RESULTS_DIR/<lab>``), created if needed.

    Raises:
        UserError: the folder cannot be created (a file in the way, no permission): one line naming it.
    """
    base = Path(os.environ.get("MLC_RESULTS_DIR", ROOT))
    path = base / lab if lab else base
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the results folder {path} ({exc.strerror or exc}); "
                        f"set MLC_RESULTS_DIR to a writable folder") from None
    return path


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore (a moment's window for other threads)
    os.umask(mask)
    return mask


def _file_mode(path: Path) -> int:
    """The mode a file written at ``path`` should have: the existing file's, else 0666 less the umask (0644
    under the usual 022), as ``open`` would create it; ``mkstemp``'s temporary files are 0600."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def atomic_write(path: str | os.PathLike, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder + ``os.replace``; the file gets the
    mode :func:`_file_mode` says (the one it had, else as ``open`` would create it), not ``mkstemp``'s 0600."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), _file_mode(path))
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """For writers that want a file name, not bytes (``export_library``, ORT's optimized model):
    yields a temporary path in the same folder with the same suffix (the writer may pick the format
    by it), renamed to ``path`` with ``os.replace`` when the block ends without an exception;
    removed otherwise. The same guarantee as :func:`atomic_write`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with contextlib.suppress(OSError):  # the writer may have replaced the file: set the mode now
            os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _jsonable(v: Any) -> Any:
    if hasattr(v, "item") and not isinstance(v, (list, dict, str)):
        try:
            return v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return str(v)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
            return f"{v:.3g}"
        return f"{v:.4g}"
    return str(v).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: Sequence[dict]) -> str:
    """Rows as a GitHub Markdown table (columns in first-seen order)."""
    if not rows:
        return "(no rows)\n"
    cols = list(dict.fromkeys(k for r in rows for k in r))
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(out) + "\n"


#: A list longer than this is data for the JSON, not a line for people: the Markdown says how many values.
MD_LIST_MAX = 12


def _long(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > MD_LIST_MAX


def _env_lines(env: dict) -> list[str]:
    lines = []
    for k, v in env.items():
        if isinstance(v, dict) and any(_long(b) for b in v.values()):  # e.g. best-so-far curves per kernel
            v = f"{len(v)} series of up to {max(len(b) for b in v.values() if _long(b))} values (in the JSON)"
        elif isinstance(v, dict):
            v = ", ".join(f"{a} {b}" for a, b in v.items())
        elif _long(v):
            v = f"{len(v)} values (in the JSON)"
        lines.append(f"- **{k}**: {v}")
    return lines


def write_table(lab: str, name: str, rows: Sequence[dict], *, title: str | None = None,
                env: dict | None = None, meta: dict | None = None, notes: str | None = None) -> dict[str, Path]:
    """Write ``rows`` as ``results/<lab>/<name>.md``, ``.csv`` and ``.json`` (atomically).

    Args:
        lab: sub-folder, e.g. ``"lab01"``.
        name: table name (file stem), e.g. ``"latency"``.
        rows: list of flat dicts (one per row); values str / int / float / bool / None.
        title: heading of the Markdown file.
        env: environment (see :func:`common.timing.environment`).
        meta: budgets, seeds, data source, units, anything needed to reproduce.
        notes: free text shown under the table in Markdown (and stored in JSON).

    Returns:
        ``{"md": path, "csv": path, "json": path}``.
    """
    rows = [{str(k): _jsonable(v) for k, v in r.items()} for r in rows]
    folder = results_dir(lab)
    md = [f"# {title or name}", ""]
    if meta:
        md += ["## Setup", "", *_env_lines(meta), ""]
    md += ["## Results", "", markdown_table(rows)]
    if notes:
        md += [notes.strip(), ""]
    if env:
        md += ["## Environment", "", *_env_lines(env), ""]
    cols = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    doc = {"title": title or name, "lab": lab, "name": name, "meta": _jsonable(meta or {}),
           "env": _jsonable(env or {}), "notes": notes, "rows": rows}
    return {
        "md": atomic_write(folder / f"{name}.md", "\n".join(md)),
        "csv": atomic_write(folder / f"{name}.csv", buf.getvalue()),
        "json": atomic_write(folder / f"{name}.json", json.dumps(doc, indent=1, sort_keys=False) + "\n"),
    }


def read_table(path: str | os.PathLike) -> dict:
    """Read a table written by :func:`write_table` (its ``.json``; ``.md``/``.csv`` paths map to it).

    Raises:
        UserError: the file is missing or not a results table.
    """
    p = Path(path).with_suffix(".json")
    try:
        doc = json.loads(p.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{p} is not a readable results table ({exc})") from exc
    if not isinstance(doc, dict) or "rows" not in doc:
        raise UserError(f"{p} is not a results table (no 'rows')")
    return doc


def save_plot(fig, lab: str, name: str) -> Path:
    """Save a matplotlib figure as ``results/<lab>/<name>.png`` (atomically, 120 dpi) and close it."""
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return atomic_write(results_dir(lab) / f"{name}.png", buf.getvalue())


# ---------------------------------------------------------------------------------------------
# diff

ERROR_WORDS = frozenset({"abs", "err", "diff", "rel"})
MACHINE_WORDS = frozenset({"ms", "s", "us", "ns", "sec", "seconds", "minutes", "gflops", "gbs", "port"})
DEFAULT_TOL = 1e-4


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


def _row_keys(rows: list[dict], key_cols: list[str]) -> list[str]:
    return [repr(tuple(r.get(c) for c in key_cols)) if key_cols else f"#{i}" for i, r in enumerate(rows)]


def _key_columns(a: list[dict], b: list[dict]) -> list[str]:
    """The shortest prefix of the text columns whose values identify every row of both tables."""
    rows = a + b
    cols = list(dict.fromkeys(k for r in rows for k in r))
    text = [c for c in cols if all(isinstance(r.get(c), str) and _num(r.get(c)) is None for r in rows)]
    for n in range(1, len(text) + 1):
        if all(len(set(_row_keys(t, text[:n]))) == len(t) for t in (a, b)):
            return text[:n]
    return []


def _verdict(column: str, value: float, row: dict, tol: float) -> str:
    """``"within"`` / ``"beyond"`` tolerance for an error cell (``"nan"`` when the value is NaN).

    The limit is the row's ``atol`` for an absolute error, its ``rtol`` (when > 0) for a relative one
    (a name with ``rel`` and without ``abs``), else ``tol``.
    """
    if math.isnan(value):
        return "nan"
    words = set(re.split(r"[^a-z0-9]+", column.lower()))
    relative = "rel" in words and "abs" not in words
    own = _num(row.get("rtol" if relative else "atol"))
    limit = own if own is not None and not math.isnan(own) and (own > 0 or not relative) else tol
    return "within" if value <= limit else "beyond"


def _rel(na: float, nb: float) -> float:
    """Signed relative change ``(b - a) / |a|`` (``±inf`` from 0)."""
    if na == 0:
        return 0.0 if nb == 0 else math.copysign(math.inf, nb)
    return (nb - na) / abs(na)


def _cell(col: str, va: Any, vb: Any, ra: dict, rb: dict, threshold: float, all_columns: bool, tol: float) -> dict:
    na, nb = _num(va), _num(vb)
    if na is None or nb is None:
        return {"kind": "text", "rel_change": None, "flagged": True}
    kind = column_class(col)
    rel = _rel(na, nb) if not (math.isnan(na) or math.isnan(nb)) else math.nan
    if kind == "error" and not all_columns:
        vd_a, vd_b = _verdict(col, na, ra, tol), _verdict(col, nb, rb, tol)
        return {"kind": kind, "rel_change": rel, "verdict": f"{vd_a} -> {vd_b}", "flagged": vd_a != vd_b}
    compared = all_columns or kind == "portable"
    flagged = compared and (math.isnan(rel) or abs(rel) > threshold)
    return {"kind": kind, "rel_change": rel, "compared": compared, "flagged": flagged}


def diff_tables(a: dict, b: dict, threshold: float, *, all_columns: bool = False, tol: float = DEFAULT_TOL
                ) -> list[dict]:
    """Cell-by-cell differences between two table documents (as read by :func:`read_table`).

    Args:
        a, b: the two tables (``{"rows": [...]}``).
        threshold: flag portable numbers whose signed relative change exceeds this in size.
        all_columns: compare every numeric cell by its relative change (machine and error columns too).
        tol: tolerance of error verdicts when the row has no ``atol``/``rtol`` (module docstring).

    Returns:
        One dict per differing cell: row, column, a, b, kind (text / error / machine / portable /
        row), rel_change (signed ``(b - a) / |a|``, None for text), flagged; error cells also
        carry ``verdict`` ("within -> beyond"), machine cells ``compared``.
    """
    key_cols = _key_columns(a["rows"], b["rows"])
    ka, kb = _row_keys(a["rows"], key_cols), _row_keys(b["rows"], key_cols)
    rows_a, rows_b = dict(zip(ka, a["rows"])), dict(zip(kb, b["rows"]))
    out = []
    for key in dict.fromkeys(ka + kb):
        ra, rb = rows_a.get(key), rows_b.get(key)
        if ra is None or rb is None:
            out.append({"row": key, "column": "*", "a": "present" if ra else "missing", "kind": "row",
                        "b": "present" if rb else "missing", "rel_change": None, "flagged": True})
            continue
        for col in dict.fromkeys(list(ra) + list(rb)):
            va, vb = ra.get(col), rb.get(col)
            na, nb = _num(va), _num(vb)
            if va == vb or (na is not None and nb is not None and math.isnan(na) and math.isnan(nb)):
                continue
            out.append({"row": key, "column": col, "a": va, "b": vb,
                        **_cell(col, va, vb, ra, rb, threshold, all_columns, tol)})
    return out


def _tables(root: Path) -> dict[str, Path]:
    if root.is_file():
        return {root.stem: root.with_suffix(".json")}
    found = {}
    for p in sorted(root.rglob("*.json")):
        try:
            doc = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(doc, dict) and "rows" in doc:
            found[str(p.relative_to(root).with_suffix(""))] = p
    return found


def diff_paths(a: str | os.PathLike, b: str | os.PathLike, threshold: float = 0.10, *, all_columns: bool = False,
               tol: float = DEFAULT_TOL) -> tuple[list[dict], list[str]]:
    """Diff two results folders (or two table files); keyword arguments as for :func:`diff_tables`.

    Returns:
        (cell differences, each with a ``table`` key; names of tables present on one side only).

    Raises:
        UserError: a path does not exist, or neither side holds any results table.
    """
    pa, pb = Path(a), Path(b)
    for p in (pa, pb):
        if not p.exists():
            raise UserError(f"{p} does not exist")
    ta, tb = _tables(pa), _tables(pb)
    if pa.is_file() and pb.is_file():
        tb = {next(iter(ta)): next(iter(tb.values()))}
    if not ta or not tb:
        empty = pa if not ta else pb
        raise UserError(f"no results tables (*.json written by common.results) found in {empty}")
    cells, only = [], sorted(set(ta) ^ set(tb))
    for name in sorted(set(ta) & set(tb)):
        for d in diff_tables(read_table(ta[name]), read_table(tb[name]), threshold, all_columns=all_columns, tol=tol):
            cells.append({"table": name, **d})
    return cells, only


def format_cell(c: dict) -> str:
    """One line for a differing cell: ``! table [row] column: a -> b  (-12.2%)`` (``!`` when flagged)."""
    rel = c.get("rel_change")
    if c.get("verdict") and c["flagged"]:
        note = f"  (error {c['verdict']} tolerance)"
    elif rel is None or math.isnan(rel):
        note = ""
    else:
        note = f"  ({rel:+.1%})" if math.isfinite(rel) else "  (from 0)"
    if c.get("compared") is False:
        note += "  [machine-dependent: compared with --all]"
    return f"{'!' if c['flagged'] else ' '} {c['table']} [{c['row']}] {c['column']}: {c['a']} -> {c['b']}{note}"


def _main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m common.results", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("diff", help="compare two results folders or tables cell by cell (see the module docstring)")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument("--threshold", type=float, default=0.10,
                   help="flag portable numbers whose relative change exceeds this (default 0.10 = 10%%)")
    d.add_argument("--tol", type=float, default=DEFAULT_TOL,
                   help="tolerance of error verdicts when a row has no atol/rtol (default 1e-4)")
    d.add_argument("--all", action="store_true",
                   help="compare every numeric cell, absolute times (ms) and error magnitudes included")
    d.add_argument("-v", "--verbose", action="store_true", help="also print the differences that were not flagged")
    args = ap.parse_args(argv)
    cells, only = diff_paths(args.a, args.b, args.threshold, all_columns=args.all, tol=args.tol)
    flagged = [c for c in cells if c["flagged"]]
    for c in cells if args.verbose else flagged:
        print(format_cell(c))
    for name in only:
        print(f"! table {name} is present on one side only")
    skipped = sum(c.get("compared") is False for c in cells)
    scope = "every numeric cell" if args.all else f"portable cells only; {skipped} machine-dependent cells not compared (--all)"
    print(f"{len(flagged)} flagged of {len(cells)} differing cells in {len({c['table'] for c in cells})} tables "
          f"(threshold {args.threshold:.0%}, {scope}); {len(only)} tables on one side only")
    return 1 if flagged or only else 0


if __name__ == "__main__":
    raise SystemExit(run_cli(_main))
