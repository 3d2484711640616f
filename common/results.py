"""Results tables: Markdown for people, CSV and JSON for machines, written atomically.

Every table lives at ``results/<lab>/<name>.{md,csv,json}`` (the root is ``results/`` beside this
package, or ``$MLC_RESULTS_DIR``). The Markdown and JSON carry the environment the numbers were
measured in (CPU, threads, package versions, budgets, seeds, data source); the CSV holds the rows
alone so any spreadsheet reads it. Writes go to a temporary file in the same folder and are
renamed into place, so a crash never leaves a half-written table. :func:`markdown_table` is the
project's one Markdown table writer (``common.gates.rows_to_markdown`` is the same function).

``python -m common.results_diff A B`` compares two results folders or tables: :mod:`common.results_diff`.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Sequence

from .errors import CannotWrite, UserError

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
    mode :func:`_file_mode` says (the one it had, else as ``open`` would create it), not ``mkstemp``'s 0600.

    Raises:
        common.errors.CannotWrite: the file system refuses the folder or the file (a file in the way, read-only,
            full): one line naming ``path``; no temporary file is left.
    """
    path = Path(path)
    raw = data.encode() if isinstance(data, str) else data
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _cannot_write(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), _file_mode(path))
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _cannot_write(path, exc) from exc
        raise
    return path


def _cannot_write(path: Path, exc: OSError):
    """The one-line :class:`common.errors.CannotWrite` for ``path`` (``exc`` itself when it already is one)."""
    if isinstance(exc, CannotWrite):
        return exc
    err = CannotWrite(f"cannot write {path}: {exc.strerror or exc}")
    err.errno, err.strerror, err.filename = exc.errno, exc.strerror, exc.filename
    return err


def swap_folder(new: str | os.PathLike, out: str | os.PathLike) -> Path:
    """Rename the folder ``new`` to ``out`` (same file system), the folder already at ``out`` renamed aside first,
    removed only once ``new`` is in its place, and put back if that rename fails: ``out`` is always the old tree
    or the new one, never half of either (most writers want :func:`new_folder`, which makes ``new`` and calls this).

    Raises:
        common.errors.CannotWrite: a rename failed (an ``OSError`` too, errno kept).
    """
    new, out = Path(new), Path(out)
    old = out.with_name(f".{out.name}.old-{os.getpid()}") if out.exists() else None
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(out, old)
        except OSError as exc:
            raise _cannot_write(out, exc) from exc
    try:
        os.replace(new, out)
    except OSError as exc:
        if old is not None:
            os.replace(old, out)
        raise _cannot_write(out, exc) from exc
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return out


@contextlib.contextmanager
def new_folder(out: str | os.PathLike) -> Iterator[Path]:
    """The folder ``out`` written whole: yields an empty folder beside it (the same file system, so the rename is
    atomic; mode 0755 as ``mkdir`` makes one, not ``mkdtemp``'s 0700) to fill; when the block ends,
    :func:`swap_folder` puts it at ``out``; when the block raises, it is removed and ``out`` stays as it was.

    Raises:
        common.errors.CannotWrite: ``out``'s parent cannot hold a new folder (a file in the way, a read-only
            file system), or the swap fails.
    """
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise _cannot_write(out, exc) from exc
    try:
        tmp.chmod(0o755)
        yield tmp
        swap_folder(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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


def table_cell(v: Any) -> str:
    """A cell for people: floats to 4 significant digits (3 in scientific notation), None (no value) as ``-``."""
    if v is None:
        return "-"
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
    out += ["| " + " | ".join(table_cell(r.get(c, "")) for c in cols) + " |" for r in rows]
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


TABLE_SUFFIXES = (".json", ".csv", ".md")


def read_table(path: str | os.PathLike) -> dict:
    """Read a table written by :func:`write_table` (its ``.json``; ``.md``/``.csv`` paths map to it).

    Raises:
        UserError: the file is missing or not a results table (JSON of a dict whose ``rows`` is a list of
            dicts); the message names ``path`` as given.
    """
    given = Path(path)
    if given.suffix not in TABLE_SUFFIXES:
        raise UserError(f"{given} is not a results table; give a .json written by common.results (or its .csv/.md), "
                        f"or a results folder")
    p = given.with_suffix(".json")
    where = given if p == given else f"{given} (read from {p.name} beside it)"
    try:
        doc = json.loads(p.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UserError(f"{where} is not a readable results table ({reason})") from None
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise UserError(f"{where} is not a results table (no list of rows under 'rows')")
    return doc


def save_plot(fig, lab: str, name: str) -> Path:
    """Save a matplotlib figure as ``results/<lab>/<name>.png`` (atomically, 120 dpi) and close it."""
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return atomic_write(results_dir(lab) / f"{name}.png", buf.getvalue())
