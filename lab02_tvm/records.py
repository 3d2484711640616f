"""Shipped tuning records, the way TVM's TopHub shipped AutoTVM logs (``python -m lab02_tvm.records``).

A MetaSchedule database is two JSON-lines files (``database_workload.json``: one line per kernel,
``[structural hash, base64 IRModule]``; ``database_tuning_record.json``: one line per measured
candidate, ``[workload index, [trace, run seconds, target, argument info]]``). The lab ships one
database per model and target under ``results/lab02/tuning/<target key>/<model>/``, where the
target key names what the schedules were measured on (``llvm-znver3-1c``: LLVM for ``-mcpu=znver3``,
one core). Each shipped database is *pruned* to the best record per kernel (a few hundred kB,
no per-task logs) and has a ``PROVENANCE.json`` beside it: target, trials, wall time, date, command,
TVM version.

What :func:`choose` does with them (and the pipeline prints as one line):

* records for the host target: used as they are (``exact``);
* records of another CPU whose instructions the host has, or with which it shares an x86-64
  level: used, built for that CPU or level (``compatible``; the line says which);
* records for no usable target: one line naming the targets found, then tuning from scratch
  into ``build/lab02/tuning/<key>/<model>`` (git-ignored; ``tuned here``);
* a corrupt or truncated database file: :class:`CorruptDatabase`, one line naming the file and
  the line; nothing is overwritten (the pipeline then tunes from scratch in ``build/``).

Each database's provenance records its tuning method (:mod:`lab02_tvm.method`: layout, weight
layout rewrite); a build from it follows that method, since another method's kernels are other
workloads.

The long documented run that produced the shipped records is not part of ``make run``::

    python -m lab02_tvm.records tune --model all --trials 1800,1100 --minutes 55,35

(1 thread, 1 core; the database grows under ``results/lab02/tuning/<key>/<model>`` as it goes,
MetaSchedule's per-task logs go to ``build/lab02/logs``; at the end each database is pruned and its
provenance written). ``python -m lab02_tvm.records prune`` prunes without tuning.
"""
from __future__ import annotations

import datetime
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

from common.errors import UserError, run_cli
from common.results import atomic_write

REPO_ROOT = Path(__file__).resolve().parents[1]
SHIPPED_ROOT = REPO_ROOT / "results" / "lab02" / "tuning"
SCRATCH_ROOT = REPO_ROOT / "build" / "lab02" / "tuning"
LOG_ROOT = REPO_ROOT / "build" / "lab02" / "logs"
WORKLOADS, RECORDS, PROVENANCE = "database_workload.json", "database_tuning_record.json", "PROVENANCE.json"
#: MetaSchedule stores 1e10 s as the run time of a candidate that failed to run.
FAILED_RUN_S = 1e9


class CorruptDatabase(UserError):
    """A database file does not parse (truncated write, hand edit, merge conflict)."""


def _target_dict(target) -> dict:
    """``{"kind", "mcpu", "num-cores"}`` of a Target, dict or string (``None`` values dropped)."""
    if isinstance(target, dict) and "kind" in target:
        d = target
    else:
        from .tuning import as_target
        d = dict(as_target(target).export())
    cores = int(d.get("num-cores", 1) or 1)
    return {"kind": str(d.get("kind")), "mcpu": d.get("mcpu") or "generic", "num-cores": cores}


def target_key(target) -> str:
    """Directory name for a target: ``<kind>-<mcpu>-<cores>c``, e.g. ``llvm-znver3-1c``."""
    d = _target_dict(target)
    return f"{d['kind']}-{d['mcpu']}-{d['num-cores']}c"


def shipped_dir(model: str, target, root: Path | None = None) -> Path:
    """``results/lab02/tuning/<target key>/<model>`` (the shipped records of one model)."""
    return Path(root or SHIPPED_ROOT) / target_key(target) / model


def scratch_dir(model: str, target, root: Path | None = None) -> Path:
    """``build/lab02/tuning/<target key>/<model>`` (git-ignored; tuning from scratch or top-ups)."""
    return Path(root or SCRATCH_ROOT) / target_key(target) / model


# --------------------------------------------------------------------------------------------
# Reading and checking a database without MetaSchedule (so a bad file is one clear line)
# --------------------------------------------------------------------------------------------
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


@dataclass
class DatabaseFiles:
    """The parsed lines of a database folder (no TVM objects): workloads and records."""

    path: Path
    workloads: list
    records: list

    @property
    def targets(self) -> list[dict]:
        """The distinct targets of the records (as ``_target_dict``), in first-seen order."""
        seen = {}
        for r in self.records:
            d = _target_dict(r[1][2])
            seen.setdefault(json.dumps(d, sort_keys=True), d)
        return list(seen.values())

    def best_per_workload(self) -> dict[int, tuple[float, list]]:
        """``{workload index: (best mean run seconds, record)}`` over successfully run records."""
        best: dict[int, tuple[float, list]] = {}
        for r in self.records:
            secs = [float(s) for s in (r[1][1] or [])]
            if not secs or max(secs) >= FAILED_RUN_S:
                continue
            mean = sum(secs) / len(secs)
            if r[0] not in best or mean < best[r[0]][0]:
                best[r[0]] = (mean, r)
        return best


def read_database(work_dir: str | os.PathLike) -> DatabaseFiles:
    """Parse and check both files of a database folder.

    Raises:
        UserError: the folder has no records file.
        CorruptDatabase: a line does not parse, or a record points at a missing workload
            (one line naming the file and the line; nothing is written).
    """
    wd = Path(work_dir)
    wl_path, rec_path = wd / WORKLOADS, wd / RECORDS
    if not rec_path.is_file() or not wl_path.is_file():
        raise UserError(f"no MetaSchedule database in {wd}")
    workloads = _read_lines(wl_path, _check_workload)
    records = _read_lines(rec_path, _check_record)
    for n, r in enumerate(records, 1):
        if not 0 <= r[0] < len(workloads):
            raise CorruptDatabase(f"corrupt tuning database file {rec_path} (line {n}: workload {r[0]} of "
                                  f"{len(workloads)}); nothing was overwritten")
    return DatabaseFiles(wd, workloads, records)


def same_target(a, b) -> bool:
    """True when two targets agree on kind, ``mcpu`` and ``num-cores`` (what a schedule depends on)."""
    return _target_dict(a) == _target_dict(b)


# --------------------------------------------------------------------------------------------
# Pruning and provenance
# --------------------------------------------------------------------------------------------
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
        CorruptDatabase / UserError: as :func:`read_database` (nothing written then).
    """
    db = read_database(work_dir)
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


def write_provenance(work_dir: str | os.PathLike, info: dict) -> Path:
    """Write ``PROVENANCE.json`` (sorted keys) beside a database."""
    return atomic_write(Path(work_dir) / PROVENANCE, json.dumps(info, indent=1, sort_keys=True) + "\n")


def read_provenance(work_dir: str | os.PathLike) -> dict:
    """``PROVENANCE.json`` of a database folder (``{}`` when absent)."""
    p = Path(work_dir) / PROVENANCE
    return json.loads(p.read_text()) if p.is_file() else {}


#: What a top-up keeps of each earlier run in ``earlier_runs`` (the per-task counts are dropped).
RUN_KEYS = ("date_utc", "command", "trials_this_run", "minutes", "seconds_per_trial", "note")


def run_totals(prov: dict) -> tuple[int, float]:
    """``(trials, minutes)`` of every run behind a database (this one and ``earlier_runs``)."""
    runs = [prov, *prov.get("earlier_runs", [])]
    trials = prov.get("trials_all_runs", prov.get("trials", 0))
    return int(trials or 0), float(sum(float(r.get("minutes") or 0) for r in runs))


def earlier_runs(prev: dict) -> list[dict]:
    """The runs behind a database before this one: ``prev``'s own ``earlier_runs`` and ``prev`` itself.

    A top-up tunes into the same folder, so its records start from the best of every earlier run;
    the provenance keeps each run's date, command, trials and minutes (``[]`` for a new folder).
    """
    if not prev:
        return []
    this = {k: prev[k] for k in RUN_KEYS if k in prev}
    this.setdefault("trials_this_run", prev.get("trials", 0))
    return [*prev.get("earlier_runs", []), this]


# --------------------------------------------------------------------------------------------
# Choosing the records a build uses
# --------------------------------------------------------------------------------------------
#: How a build's records were obtained, as the tables say it.
HOW = {"exact": "exact", "compatible": "compatible", "other-target": "tuned here", "none": "tuned here",
       "corrupt": "tuned here"}


@dataclass
class Choice:
    """Which database a model is built from, and why (``line`` is what the pipeline prints).

    Attributes:
        status: ``"exact"`` (records measured on this target), ``"compatible"`` (records of another
            CPU whose instructions this host has), ``"other-target"``, ``"none"`` or ``"corrupt"``;
            for the last three the caller tunes into ``work_dir`` with this run's budget.
        work_dir: the database folder to build from (shipped) or to tune into (scratch).
        records: records in the shipped database (0 otherwise).
        line: one human line.
        build_target: the target dict to build (and tune) with: the host's for ``exact`` and
            scratch, the records' ``-mcpu`` (or the common x86-64 level) for ``compatible``.
        method: the :class:`lab02_tvm.method.Method` the records were tuned with (scratch: the
            method a tuning from scratch uses).
        source: the target key of the records used (``""`` when tuned here).
    """

    status: str
    work_dir: Path
    records: int
    line: str
    build_target: dict | None = None
    method: object = None
    source: str = ""

    @property
    def shipped(self) -> bool:
        return self.status in ("exact", "compatible")

    @property
    def how(self) -> str:
        """``exact``, ``compatible`` or ``tuned here`` (the tables' words)."""
        return HOW[self.status]

    def label(self) -> str:
        """The tables' ``records`` cell: portable (no absolute path), e.g. ``compatible: llvm-znver3-1c, built
        for x86-64-v3`` or ``tuned here``."""
        if self.status == "exact":
            return f"exact: {self.source}"
        if self.status == "compatible":
            return f"compatible: {self.source}, built for {self.build_target.get('mcpu')}"
        return "tuned here"


@dataclass
class _Candidate:
    tier: int  # 0 exact, 1 every instruction of the records' CPU on the host, 2 a common x86-64 level
    work_dir: Path
    key: str
    cpu: str
    build_cpu: str
    records: int
    prov: dict
    method: object
    why: str  # the compatibility clause of the line


def _candidate(folder: Path, host: dict, have: frozenset) -> tuple[_Candidate | None, str]:
    """One shipped folder judged for ``host``: ``(candidate or None, why not)`` (never raises)."""
    from common import isa
    from .method import Method
    try:
        db = read_database(folder)
    except (CorruptDatabase, UserError) as exc:
        return None, str(exc)
    if not db.records:
        return None, f"{rel(folder)} holds no records"
    try:
        targets = db.targets
        cpus = {t["mcpu"] for t in targets}
        unknown = sorted(c for c in cpus if c != "generic" and not isa.is_valid_cpu(c))
    except (UserError, ValueError, TypeError, KeyError) as exc:
        return None, f"records in {rel(folder / RECORDS)} have a target that does not parse ({exc})"
    if unknown:
        return None, f"records in {rel(folder / RECORDS)} name an unknown LLVM CPU {unknown[0]!r}"
    if len(targets) != 1 or target_key(targets[0]) != folder.parent.name:
        return None, f"records in {rel(folder)} are for {targets[0]}, not {folder.parent.name}"
    t = targets[0]
    if t["kind"] != host["kind"] or t["num-cores"] != host["num-cores"]:
        return None, f"records in {rel(folder)} are for {target_key(t)} ({t['num-cores']} cores, {t['kind']})"
    prov = read_provenance(folder)
    try:
        method = Method.from_provenance(prov)
    except UserError as exc:
        return None, f"{rel(folder / PROVENANCE)}: {exc}"
    key, cpu = target_key(t), t["mcpu"]
    if key == target_key(host):
        return _Candidate(0, folder, key, cpu, host["mcpu"], len(db.records), prov, method, ""), ""
    if cpu == "generic":
        return None, f"{key}: records for a generic CPU"
    missing = isa.missing_on(cpu, have)
    if not missing:
        return _Candidate(1, folder, key, cpu, cpu, len(db.records), prov, method,
                          f"compatible ISA, building for {cpu}"), ""
    level = isa.x86_level(isa.isa_features(cpu) & have)
    shown = ", ".join(missing[:4]) + (", ..." if len(missing) > 4 else "")
    vectors = isa.widest_vectors(isa.isa_features(cpu))
    if level is None or isa.widest_vectors(isa.isa_features(level)) != vectors:  # schedules chose tiles for them
        return None, f"{key}: this host lacks {cpu}'s {shown} and no common x86-64 level keeps its {vectors}"
    return _Candidate(2, folder, key, cpu, level, len(db.records), prov, method,
                      f"{cpu}'s {shown} absent here, common ISA {level}: building for {level}"), ""


def choose(model: str, target, *, root: Path | None = None, scratch_root: Path | None = None) -> Choice:
    """The shipped records of ``model`` to build with on ``target`` (the host), or a scratch folder and why.

    In order, the way TVM's TopHub fell back to the nearest target family:

    1. records measured on this exact target (``target_key`` equal);
    2. records of a CPU every one of whose instructions the host has (:func:`common.isa.missing_on`
       on LLVM's feature lists: ``znver3``'s AVX2 records on a ``znver4`` host): built for the
       records' ``-mcpu``, so the code is what was measured;
    3. records of a CPU with instructions the host lacks but a common x86-64 level that keeps the
       records' widest vectors (``znver3``'s AVX2 records on an AVX2 Intel: AMD's ``sse4a`` is absent,
       ``x86-64-v3`` is common): built for that level (the schedules' tiles were measured for those vectors);
    4. otherwise tuning from scratch with the run's budget.

    Among several candidates of one rank: the widest vectors of the build CPU, then the most trials. The host's
    instruction set is the real one for the host's own CPU name, else that CPU's (a simulated host,
    ``MLC_CPU``). Never raises on bad records: a corrupt file, a target that does not parse or an
    unknown method becomes a line (the file is left as it is) and the folder is passed over.
    """
    from common import isa
    from .method import FIELD
    root = Path(root or SHIPPED_ROOT)
    host = _target_dict(target)
    key = target_key(host)
    scratch = scratch_dir(model, host, scratch_root)
    have = isa.features_of_host(host["mcpu"]) if host["mcpu"] != "generic" else isa.isa_features("x86-64")
    folders = sorted(p.parent for p in root.glob(f"*/{model}/{RECORDS}")) if root.is_dir() else []
    cands, reasons = [], []
    for folder in folders:
        c, why = _candidate(folder, host, have)
        if c is not None:
            cands.append(c)
        else:
            reasons.append(why)
            if folder.parent.name == key and "corrupt" in why:  # this host's own records are damaged
                return Choice("corrupt", scratch, 0, f"{why}; tuning from scratch in {rel(scratch)}", host, FIELD)
    if cands:
        width = {name: i for i, (_, name) in enumerate(isa.VECTOR_ISAS)}  # 0 = the widest
        best = min(cands, key=lambda c: (c.tier, width.get(isa.widest_vectors(isa.isa_features(c.build_cpu)), 99),
                                         -run_totals(c.prov)[0]))
        trials, minutes = run_totals(best.prov)
        made = f", {trials} trials in {minutes:.0f} min" if "trials" in best.prov else ""
        what = f"{best.records} kernels{made}, {best.method}"
        if best.tier == 0:
            return Choice("exact", best.work_dir, best.records, f"shipped records {rel(best.work_dir)} ({what})",
                          host, best.method, best.key)
        return Choice("compatible", best.work_dir, best.records,
                      f"records for {best.key} on this {host['mcpu']} host: {best.why} ({rel(best.work_dir)}, {what})",
                      {**host, "mcpu": best.build_cpu}, best.method, best.key)
    if folders:
        return Choice("other-target", scratch, 0,
                      f"shipped records of {model} are for {', '.join(f.parent.name for f in folders)}, none usable "
                      f"on this host ({key}: {'; '.join(reasons)}): tuning from scratch in {rel(scratch)}",
                      host, FIELD)
    return Choice("none", scratch, 0, f"no shipped records of {model}: tuning from scratch in {rel(scratch)}",
                  host, FIELD)


def rel(p: Path) -> str:
    """``p`` relative to the repository root when it is inside it (for one-line messages)."""
    try:
        return str(Path(p).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def copy_records(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Copy a (checked) database to ``dst`` so a run can top it up without touching the shipped one."""
    read_database(src)
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    for name in (WORKLOADS, RECORDS):
        atomic_write(dst / name, (Path(src) / name).read_bytes())
    return dst


# --------------------------------------------------------------------------------------------
# The long documented run (not part of `make run`)
# --------------------------------------------------------------------------------------------
MODELS = ("resnet50", "bert", "llama_tiny_s32", "llama_tiny_s128")


def _per_model(text: str, names: Sequence[str], what: str, cast) -> dict:
    """``"1800,1100"`` -> ``{"resnet50": 1800, "bert": 1100}`` (one value: the same for all)."""
    try:
        vals = [cast(v) for v in str(text).split(",")]
    except ValueError:
        raise UserError(f"{what} must be a number or a comma-separated list (got {text!r})") from None
    if len(vals) == 1:
        vals = vals * len(names)
    if len(vals) != len(names) or min(vals) <= 0:
        raise UserError(f"{what} needs one positive value or one per model {list(names)} (got {text!r})")
    return dict(zip(names, vals))


def _plan_text(deep_top_k: int, deep_share: float, only_missing: bool, ranked_by_roof: bool) -> str:
    """The provenance's one-line description of how a run spent its trials."""
    which = "only the kernels without a record, " if only_missing else ""
    if not deep_top_k:
        return which + "every trial spread over the tasks, hottest first (lab02_tvm.tuning.plan_budget)"
    rank = "ranked by ms lost against the roof in the model" if ranked_by_roof else "slowest"
    return (f"{which}{1 - deep_share:.0%} of the trials over every task, {deep_share:.0%} on the {deep_top_k} "
            f"{rank} (lab02_tvm.tuning.plan_budget)")


def tune_records(model: str, trials: int, minutes: float, *, command: str, root: Path | None = None,
                 deep_top_k: int = 8, progress: bool = True, only_missing: bool = False,
                 deep_share: float = 2 / 3, deep_cost: dict[str, float] | None = None,
                 method=None) -> dict:
    """Tune one full-size model (1 core) into its shipped folder, prune it, write its provenance.

    Budget: ``1 - deep_share`` of ``trials`` (default a third) spread over every task (hottest
    first), ``deep_share`` over the ``deep_top_k`` tasks that take the most time after that (weight x best ms;
    :func:`lab02_tvm.tuning.plan_budget`, ``deep_by_time``);
    ``minutes`` caps the wall time (checked between tasks). ``only_missing``: tune only the
    kernels without a record yet (after a pass changed some workloads, e.g. :mod:`lab02_tvm.fast_gelu`).
    ``deep_cost``: rank the deep phase by it (``{task: ms lost against the roof}``) instead of the database.
    ``method``: a :class:`lab02_tvm.method.Method` (default: the method of the records already in the
    folder, else :data:`lab02_tvm.method.FIELD`); a top-up must keep the folder's method, since
    records of another method are other workloads.

    Raises:
        UserError: ``method`` differs from the method of the records already in the folder.

    Returns:
        the provenance dict written beside the pruned database.
    """
    import tvm

    from common.timing import set_torch_threads, tvm_threads
    from . import tuning
    from .build import host_target
    from .config import build_bundles
    from .relax_import import import_torch, tuning_module

    set_torch_threads(1)
    target = {**host_target(), "num-cores": 1}
    from .method import FIELD, Method
    work = shipped_dir(model, target, root)
    prev = read_provenance(work)
    have = Method.from_provenance(prev) if (work / RECORDS).is_file() else None
    method = method or have or FIELD
    if have is not None and method != have:
        raise UserError(f"{rel(work)} holds records tuned {have}; a top-up with {method} would add other "
                        "workloads: tune into another folder (--root) or keep the folder's method")
    earlier = earlier_runs(prev)
    with tvm_threads(1):
        mod = method.module(tuning_module(import_torch(build_bundles([model], quick=False)[model])))
        t0 = time.time()
        report = tuning.tune(mod, target, work, max_trials_global=trials, tune_minutes=minutes,
                             deep_top_k=deep_top_k, deep_trials=int(trials * deep_share), progress=progress, deep_by_time=True,
                             log_dir=LOG_ROOT / target_key(target) / model, only_missing=only_missing,
                             deep_cost=deep_cost, layout_rewrite=method.layout_rewrite)
        cov = tuning.database_coverage(mod, target, work, method.layout_rewrite)
    pruned = prune(work)
    info = {"model": model, "target": str(tuning.as_target(target)), "target_key": target_key(target),
            "trials": report.trials_in_db, "trials_this_run": report.trials,
            "minutes": round((time.time() - t0) / 60, 1),
            "seconds_per_trial": round(report.seconds_per_trial or 0, 2),
            "stopped_by_time": report.stopped_by_time, "build_errors": report.build_errors,
            "tasks": cov["tasks"], "tasks_in_db": cov["tasks_in_db"],
            "records_before_prune": pruned["records_before"], "records": pruned["records"],
            "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
            "command": command, "tvm": tvm.__version__, "threads": 1,
            "plan": _plan_text(deep_top_k, deep_share, only_missing, ranked_by_roof=deep_cost is not None),
            "method": method.as_dict(), "layout_rewrite": method.layout_rewrite,
            "trials_per_task": {r["task"]: r["records"] for r in report.tasks},
            "trials_all_runs": report.trials + sum(int(r.get("trials_this_run") or 0) for r in earlier),
            "earlier_runs": earlier}
    write_provenance(work, info)
    (work / "tuning_summary.json").unlink(missing_ok=True)  # its numbers are in the provenance
    return info


def main(argv: Sequence[str] | None = None) -> int:
    """``tune`` (the long run, then prune + provenance) or ``prune`` (shipped folders in place)."""
    from common.cli import parser
    p = parser("python -m lab02_tvm.records", __doc__)
    p.add_argument("action", choices=["tune", "prune"], help="tune (long run) or prune the shipped databases")
    p.add_argument("--model", default="all", choices=[*MODELS, "all"],
                   help="all = resnet50 and bert (the long run); LLaMA-tiny one sequence at a time")
    p.add_argument("--trials", default="1800,1100", help="trials per model (one value or resnet50,bert)")
    p.add_argument("--minutes", default="55,35", help="wall-clock cap per model, minutes (checked between tasks)")
    p.add_argument("--deep-top-k", type=int, default=8, help="hottest tasks that get two thirds of the trials")
    p.add_argument("--deep-share", type=float, default=2 / 3,
                   help="share of the trials for the deep phase (default 2/3; 0.95 for a top-up of the slowest kernels)")
    p.add_argument("--deep-by-roofline", action="store_true",
                   help="rank the deep phase by the ms each kernel loses against the roof in the model "
                        "(results/lab02/roofline_<model>.json) instead of the database's best times")
    p.add_argument("--only-missing", action="store_true",
                   help="tune only the kernels that have no record yet (after a pass changed their workload)")
    p.add_argument("--layout", choices=["NCHW", "NHWC"], default=None,
                   help="data layout to tune in (default: the folder's method, else NHWC)")
    p.add_argument("--layout-rewrite", choices=["on", "off"], default=None,
                   help="weight layout rewrite (default: the folder's method, else on)")
    p.add_argument("--root", type=Path, default=None,
                   help="folder of target folders to tune into (default results/lab02/tuning; copy a finished "
                        "run there)")
    args = p.parse_args(argv)
    names = list(MODELS[:2]) if args.model == "all" else [args.model]
    if args.action == "prune":
        for d in sorted(SHIPPED_ROOT.glob(f"*/{'*' if args.model == 'all' else args.model}")):
            if (d / RECORDS).is_file():
                print(f"{rel(d)}: {prune(d)}")
        return 0
    if not 0 <= args.deep_share <= 1:
        raise UserError(f"--deep-share must be in [0, 1] (got {args.deep_share})")
    trials = _per_model(args.trials, names, "--trials", int)
    minutes = _per_model(args.minutes, names, "--minutes", float)
    command = "python -m lab02_tvm.records " + " ".join(sys.argv[1:] if argv is None else argv)
    from .method import FIELD, Method
    method = None
    if args.layout or args.layout_rewrite:
        method = Method(args.layout or FIELD.layout,
                        FIELD.layout_rewrite if args.layout_rewrite is None else args.layout_rewrite == "on")
    for name in names:
        cost = None
        if args.deep_by_roofline:
            from common.results import results_dir
            from .roofline import lost_ms_by_kernel
            cost = lost_ms_by_kernel(results_dir("lab02") / f"roofline_{name}.json")
        info = tune_records(name, trials[name], minutes[name], command=command, deep_top_k=args.deep_top_k,
                            only_missing=args.only_missing, deep_share=args.deep_share, deep_cost=cost,
                            method=method, root=args.root)
        print(f"{name}: {info['trials']} trials, {info['minutes']} min, {info['tasks_in_db']}/{info['tasks']} "
              f"tasks, pruned {info['records_before_prune']} -> {info['records']} records", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
