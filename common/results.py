"""Results tables: Markdown for people, CSV and JSON for machines, written atomically.

Every table lives at ``results/<lab>/<name>.{md,csv,json}`` (the root is ``results/`` beside this
package, or ``$MLC_RESULTS_DIR``). The Markdown and JSON carry the environment the numbers were
measured in (CPU, threads, package versions, budgets, seeds, data source); the CSV holds the rows
alone so any spreadsheet reads it. Writes go to a temporary file in the same folder and are
renamed into place, so a crash never leaves a half-written table.

Instructor's command::

    python -m common.results diff results/ other_student/results/ [--threshold 0.10]

compares every table present in both (matched by relative path), cell by cell; rows are matched by
their text columns (e.g. model, stage) when those are unique, else by position. Numbers whose
relative change exceeds the threshold are flagged, as are changed text cells and missing rows.
Exit code: 0 nothing flagged, 1 something flagged, 2 bad input (e.g. no tables found).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from .errors import UserError, run_cli

ROOT = Path(__file__).resolve().parent.parent / "results"


def results_dir(lab: str = "") -> Path:
    """``results/<lab>`` (or ``$MLC_RESULTS_DIR/<lab>``), created if needed."""
    base = Path(os.environ.get("MLC_RESULTS_DIR", ROOT))
    path = base / lab if lab else base
    path.mkdir(parents=True, exist_ok=True)
    return path


def atomic_write(path: str | os.PathLike, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder + ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


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


def _env_lines(env: dict) -> list[str]:
    lines = []
    for k, v in env.items():
        if isinstance(v, dict):
            v = ", ".join(f"{a} {b}" for a, b in v.items())
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


def _row_keys(rows: list[dict]) -> list[str]:
    keys = []
    for i, r in enumerate(rows):
        text = tuple((k, v) for k, v in r.items() if isinstance(v, str) and _num(v) is None)
        keys.append(repr(text) if text else f"#{i}")
    return keys if len(set(keys)) == len(keys) else [f"#{i}" for i in range(len(rows))]


def diff_tables(a: dict, b: dict, threshold: float) -> list[dict]:
    """Cell-by-cell differences between two table documents (as read by :func:`read_table`).

    Returns one dict per differing cell: row, column, a, b, rel_change (for numbers), flagged.
    """
    out = []
    ka, kb = _row_keys(a["rows"]), _row_keys(b["rows"])
    rows_a, rows_b = dict(zip(ka, a["rows"])), dict(zip(kb, b["rows"]))
    for key in list(dict.fromkeys(ka + kb)):
        ra, rb = rows_a.get(key), rows_b.get(key)
        if ra is None or rb is None:
            out.append({"row": key, "column": "*", "a": "present" if ra else "missing",
                        "b": "present" if rb else "missing", "rel_change": None, "flagged": True})
            continue
        for col in dict.fromkeys(list(ra) + list(rb)):
            va, vb = ra.get(col), rb.get(col)
            if va == vb:
                continue
            na, nb = _num(va), _num(vb)
            if na is not None and nb is not None:
                if math.isnan(na) and math.isnan(nb):
                    continue
                rel = abs(nb - na) / max(abs(na), 1e-12) if na != 0 else (0.0 if nb == 0 else math.inf)
                out.append({"row": key, "column": col, "a": va, "b": vb, "rel_change": rel, "flagged": rel > threshold})
            else:
                out.append({"row": key, "column": col, "a": va, "b": vb, "rel_change": None, "flagged": True})
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


def diff_paths(a: str | os.PathLike, b: str | os.PathLike, threshold: float = 0.10) -> tuple[list[dict], list[str]]:
    """Diff two results folders (or two table files).

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
        for d in diff_tables(read_table(ta[name]), read_table(tb[name]), threshold):
            cells.append({"table": name, **d})
    return cells, only


def _main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m common.results", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("diff", help="compare two results folders or tables cell by cell")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument("--threshold", type=float, default=0.10, help="flag relative changes above this (default 0.10 = 10%%)")
    d.add_argument("--all", action="store_true", help="also print unflagged differences")
    args = ap.parse_args(argv)
    cells, only = diff_paths(args.a, args.b, args.threshold)
    flagged = [c for c in cells if c["flagged"]]
    shown = cells if args.all else flagged
    for c in shown:
        rel = "" if c["rel_change"] is None else f"  ({c['rel_change']:+.1%})" if math.isfinite(c["rel_change"]) else "  (from 0)"
        mark = "!" if c["flagged"] else " "
        print(f"{mark} {c['table']} [{c['row']}] {c['column']}: {c['a']} -> {c['b']}{rel}")
    for name in only:
        print(f"! table {name} is present on one side only")
    n_tables = len({c['table'] for c in cells})
    print(f"{len(flagged)} flagged of {len(cells)} differing cells in {n_tables} tables "
          f"(threshold {args.threshold:.0%}); {len(only)} tables on one side only")
    return 1 if flagged or only else 0


if __name__ == "__main__":
    raise SystemExit(run_cli(_main))
