"""The MetaSchedule tuning database: its files, its records, the best record per kernel, pruning.

A database is two JSON-lines files in one folder (``tvm.s_tir.meta_schedule.database.JSONDatabase``):
``database_workload.json``, one line per kernel, ``[structural hash, base64 IRModule]``; and
``database_tuning_record.json``, one line per measured candidate, ``[workload index, [trace, run
seconds, target, argument info]]``. This module is the one place that knows those names, the
failed-run marker and what "best" means; :mod:`lab02_tvm.tuning.records` ships such folders and
:mod:`lab02_tvm.tuning.tune` fills them.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tvm
from tvm.s_tir import meta_schedule as ms

from common.errors import UserError
from common.results import atomic_write

from .tasks import extract_tasks

WORKLOADS, RECORDS = "database_workload.json", "database_tuning_record.json"
#: MetaSchedule stores 1e10 s as the run time of a candidate that failed to run.
FAILED_RUN_S = 1e9


def target_dict(target) -> dict:
    """``{"kind", "mcpu", "num-cores"}`` of a Target, dict or string (``None`` values dropped)."""
    if isinstance(target, dict) and "kind" in target:
        d = target
    else:
        from .tasks import as_target
        d = dict(as_target(target).export())
    cores = int(d.get("num-cores", 1) or 1)
    return {"kind": str(d.get("kind")), "mcpu": d.get("mcpu") or "generic", "num-cores": cores}


class CorruptDatabase(UserError):
    """A database file does not parse (truncated write, hand edit, merge conflict)."""


def database_paths(work_dir: str | os.PathLike) -> tuple[Path, Path]:
    """The two JSON-lines files of a MetaSchedule ``JSONDatabase`` in ``work_dir``."""
    wd = Path(work_dir)
    return wd / WORKLOADS, wd / RECORDS


def open_database(work_dir: str | os.PathLike) -> ms.database.JSONDatabase:
    """Open (creating if needed) the JSON database under ``work_dir``.

    The register tiles its records name are registered first (:func:`lab02_tvm.lowering.intrin.register_named_tiles`):
    records tuned with them (``longrun --tile``) name them in their traces, and the load decodes every trace.
    """
    from ..lowering.intrin import register_named_tiles
    _, records = database_paths(work_dir)
    if records.is_file():
        register_named_tiles(records.read_text())
    Path(work_dir).mkdir(parents=True, exist_ok=True)
    return ms.database.JSONDatabase(work_dir=str(work_dir), module_equality="structural")


def load_database(work_dir: str | os.PathLike) -> ms.database.JSONDatabase:
    """Open an existing, non-empty tuning database.

    Raises:
        UserError: ``work_dir`` holds no database or it has no tuning record.
    """
    _, records = database_paths(work_dir)
    if not records.is_file() or records.stat().st_size == 0:
        raise UserError(f"no MetaSchedule database in {work_dir}: run the tuning step first "
                        "(python -m lab02_tvm.pipeline --trials N) or point to its work dir")
    return open_database(work_dir)


def task_records(db: ms.database.Database, task: Any) -> list:
    """Tuning records of one task (all measured candidates, best first)."""
    mod = task.dispatched[0]
    if not db.has_workload(mod):
        return []
    return list(db.get_top_k(db.commit_workload(mod), 1 << 20))


def scheduled_record(sch: Any, like: Any, run_secs: Any) -> Any:
    """A ``TuningRecord`` of ``sch`` (a post-processed schedule of ``like``'s workload): ``like``'s workload and
    target, ``run_secs`` (``None``: not measured yet), and the arguments of the scheduled kernel
    (``ArgInfo.from_entry_func``, as MetaSchedule's task scheduler records them): with weight layout rewrite a new
    schedule repacks the weights anew, and a runner given ``like``'s argument shapes could not call the kernel."""
    return ms.database.TuningRecord(sch.trace, like.workload, run_secs, like.target,
                                    ms.arg_info.ArgInfo.from_entry_func(sch.mod, remove_preproc=True))


def mean_run_s(run_secs) -> float | None:
    """Mean of one record's measured run times, seconds; ``None`` for a candidate that failed to run.

    The one rule for "a valid measurement" (MetaSchedule stores 1e10 s for a failed run: anything
    at or above :data:`FAILED_RUN_S` is one; a time at or below 0 is none), used on TVM records and on
    parsed database lines alike.
    """
    secs = [float(s) for s in (run_secs or [])]
    if not secs or max(secs) >= FAILED_RUN_S or min(secs) <= 0:  # no run takes no time
        return None
    return sum(secs) / len(secs)


def best_ms_of(records: list) -> float | None:
    """Best mean run time (ms) among TVM tuning records with a valid measurement (:func:`mean_run_s`)."""
    means = [m for m in (mean_run_s(r.run_secs) for r in records) if m is not None]
    return 1e3 * min(means) if means else None


def _read_lines(path: Path, check) -> list:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                check(row)
            except (ValueError, TypeError, IndexError, KeyError) as exc:
                raise CorruptDatabase(
                    f"corrupt tuning database file {path} (line {n}: {str(exc)[:80] or type(exc).__name__}); "
                    "nothing was overwritten: restore it (git checkout -- <file>) or delete the folder") from None
            rows.append(row)
    return rows


def _check_workload(row) -> None:
    if not (isinstance(row, list) and len(row) == 2 and all(isinstance(x, str) for x in row)):
        raise ValueError("not [hash, module]")


def _check_record(row) -> None:
    if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], int)
            and isinstance(row[1], list) and len(row[1]) >= 3 and isinstance(row[1][2], dict)):
        raise ValueError("not [workload index, [trace, run_secs, target, ...]]")
    secs = row[1][1]
    if not (secs is None or (isinstance(secs, list)
                             and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in secs))):
        raise ValueError("run_secs is not a list of numbers")


@dataclass
class DatabaseFiles:
    """The parsed lines of a database folder (no TVM objects): workloads and records."""

    path: Path
    workloads: list
    records: list

    @property
    def targets(self) -> list[dict]:
        """The distinct targets of the records (as :func:`target_dict`), in first-seen order."""
        seen = {}
        for r in self.records:
            d = target_dict(r[1][2])
            seen.setdefault(json.dumps(d, sort_keys=True), d)
        return list(seen.values())

    def ranked_per_workload(self, k: int | None = None) -> dict[int, list[int]]:
        """``{workload index: record line indices}``: its successfully run records, fastest mean first (the first
        ``k``; ties in file order); workloads without one are absent."""
        ranked: dict[int, list[tuple[float, int]]] = {}
        for i, r in enumerate(self.records):
            mean = mean_run_s(r[1][1])
            if mean is not None:
                ranked.setdefault(r[0], []).append((mean, i))
        return {w: [i for _, i in sorted(v)[:k]] for w, v in ranked.items()}

    def best_per_workload(self) -> dict[int, tuple[float, list]]:
        """``{workload index: (best mean run seconds, record)}`` over successfully run records."""
        return {w: (mean_run_s(self.records[i][1][1]), self.records[i]) for w, (i,) in self.ranked_per_workload(1).items()}


def read_database(work_dir: str | os.PathLike) -> DatabaseFiles:
    """Parse and check both files of a database folder.

    Raises:
        UserError: the folder has no records file.
        CorruptDatabase: a line does not parse, or a record points at a missing workload
            (one line naming the file and the line; nothing is written).
    """
    wd = Path(work_dir)
    wl_path, rec_path = database_paths(wd)
    if not rec_path.is_file() or not wl_path.is_file():
        raise UserError(f"no MetaSchedule database in {wd}")
    workloads = _read_lines(wl_path, _check_workload)
    records = _read_lines(rec_path, _check_record)
    for n, r in enumerate(records, 1):
        if not 0 <= r[0] < len(workloads):
            raise CorruptDatabase(f"corrupt tuning database file {rec_path} (line {n}: workload {r[0]} of "
                                  f"{len(workloads)}); nothing was overwritten")
    return DatabaseFiles(wd, workloads, records)


def prune(work_dir: str | os.PathLike, out_dir: str | os.PathLike | None = None) -> dict:
    """Keep only the best measured record of each workload.

    A workload whose every candidate failed to run keeps one (failed) record, so a build can
    say "every candidate failed" instead of "never tuned"; workloads without records are dropped.

    Args:
        work_dir: the database folder to read.
        out_dir: where to write the pruned database (default: ``work_dir``, rewritten atomically).
    Returns:
        ``{"workloads_before", "records_before", "workloads", "records", "bytes"}``.
    Raises:
        CorruptDatabase / UserError: as :func:`read_database`, or no record at all (nothing written then).
    """
    db = read_database(work_dir)
    if not db.records:  # pruning would drop every workload
        raise UserError(f"{work_dir} holds no tuning record: nothing to prune (nothing was written)")
    best = db.best_per_workload()
    for r in db.records:  # failed-only workloads: keep their first record
        best.setdefault(r[0], (float("inf"), r))
    order = sorted(best)  # keep the original workload order
    new_index = {old: i for i, old in enumerate(order)}
    wl_text = "".join(json.dumps(db.workloads[i]) + "\n" for i in order)
    rec_text = "".join(json.dumps([new_index[i], best[i][1][1]]) + "\n" for i in order)
    out = Path(out_dir or work_dir)
    atomic_write(out / WORKLOADS, wl_text)
    atomic_write(out / RECORDS, rec_text)
    return {"workloads_before": len(db.workloads), "records_before": len(db.records),
            "workloads": len(order), "records": len(order), "bytes": len(wl_text) + len(rec_text)}


def database_coverage(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike,
                      layout_rewrite: bool | None = None) -> dict:
    """How much of a model the database covers.

    Returns:
        ``{"tasks": n, "tasks_in_db": k, "share_covered": fraction of weighted FLOPs whose
        kernel has a measured record, "records": total records}``.
    """
    infos = extract_tasks(mod, target, layout_rewrite)
    db = load_database(work_dir)
    hit = [ti for ti in infos if best_ms_of(task_records(db, ti.task)) is not None]
    return {"tasks": len(infos), "tasks_in_db": len(hit),
            "share_covered": sum(ti.share for ti in hit),
            "records": len(db.get_all_tuning_records())}


def kernel_table(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike,
                 peak_gflops: float | None = None, layout_rewrite: bool | None = None) -> list[dict]:
    """Per-kernel table from a database: where the tuned model spends its time, against the FMA peak.

    Times are the records' best measured latencies (1 core, cache warm, as MetaSchedule measured
    them), not a profile of the whole model; ``weighted_ms`` = calls per inference x best ms.

    Args:
        mod: unfused Relax IRModule with parameters bound.
        target: the records' target.
        work_dir: the database folder.
        peak_gflops: the measured single-thread FMA peak (``common.roof``); ``None`` leaves the
            %-of-peak and lost-time columns empty.
        layout_rewrite: as :func:`fuse_for_tasks` (the records' method).
    Returns:
        Rows sorted by ``lost_ms`` (or ``weighted_ms``), largest first: ``task, weight,
        mflop_per_call, best_ms, weighted_ms, time_share_pct, gflops, pct_peak, lost_ms``
        (``lost_ms`` = ``weighted_ms`` minus the time at the peak), ``records``.
    """
    infos = extract_tasks(mod, target, layout_rewrite)
    db = load_database(work_dir)
    rows = []
    for ti in infos:
        recs = task_records(db, ti.task)
        best = best_ms_of(recs)
        w_ms = None if best is None else ti.weight * best
        gf = None if not best else ti.flops / (best * 1e-3) / 1e9
        rows.append({"task": ti.name, "weight": ti.weight, "mflop_per_call": round(ti.flops / 1e6, 3),
                     "best_ms": None if best is None else round(best, 4),
                     "weighted_ms": None if w_ms is None else round(w_ms, 3),
                     "gflops": None if gf is None else round(gf, 1),
                     "pct_peak": None if gf is None or not peak_gflops else round(100 * gf / peak_gflops, 1),
                     "lost_ms": None if w_ms is None or not peak_gflops else
                     round(w_ms - ti.weighted_flops / (peak_gflops * 1e9) * 1e3, 3),
                     "records": len(recs)})
    total = sum(r["weighted_ms"] or 0 for r in rows) or 1.0
    for r in rows:
        r["time_share_pct"] = None if r["weighted_ms"] is None else round(100 * r["weighted_ms"] / total, 1)
    key = "lost_ms" if peak_gflops else "weighted_ms"
    return sorted(rows, key=lambda r: -(r[key] or 0))
