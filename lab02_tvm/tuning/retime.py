"""Re-time the best records of a tuning database on this host, interleaved, so runs on hosts of different speed compare.

A MetaSchedule database keeps each candidate's run time as measured when it was tuned, and the build
takes the record with the lowest time per kernel (``JSONDatabase.query_tuning_record``). A folder that
accumulates across runs (:mod:`lab02_tvm.tuning.longrun`: a top-up tunes into the shipped folder)
mixes times taken on different days; on a shared host (a VM whose neighbours change) the same
schedule's time moves by 20-30 % between days (``common.roof.host_check``). A top-up on a slow day
then cannot win: its candidates would have to beat the old best by the whole difference in host
speed, and the old record keeps its place whatever the new ones are worth.

:func:`retime` re-measures each workload's ``top_k`` best records in one pass on this host, as the
tuning runner times them (:func:`lab02_tvm.tuning.harness.make_runner`, cold or warm as the folder's
records were), in ``rounds`` interleaved rounds (every candidate once per round, in a rotated order,
so a change of host speed during the pass reaches every candidate alike), and rewrites the records
file with those times (each record's ``run_secs`` = its per-round medians; the database ranks by their
mean). Another record replaces the stored best only if it runs ``min_gain`` (3 %) faster in this pass:
closer than that, two passes over the same records disagree. Records below the ``top_k`` of their
workload, or within ``min_gain`` of the stored best, are dropped: their times are from another day, or
would rank against the stored best's on noise. A workload whose stored best does not build or run now keeps its
records unchanged (its row says ``retimed`` 0): dropping the record the model is built from, on a
failure of this pass, could only make the build slower. Records timed on another machine
(:mod:`lab02_tvm.tuning.seed`: ``keep_untimed=False``) keep only what was timed here.

In a top-up the record to beat is the one the folder was built with before it (``incumbents``), timed in the
same pass whatever its stored time: ranked by stored times alone, a shipped record stored at 4.61 ms (timed on
a slower day) fell out of the ``top_k`` below four new BERT-base FFN records stored at 4.09-4.6 ms; none of the
four re-timed under 4.32 ms, and the shipped one, never re-timed, was pruned, though it ran 3.84 ms a call in
the model against the kept record's 4.74 (``retime_bert_b5``, ``pick_bert_b5``). ``python -m lab02_tvm.tuning.longrun retime`` runs it on a
folder; ``longrun tune`` runs it before pruning (``--retime K``, default 4).
"""
from __future__ import annotations

import json
import os
import statistics
from pathlib import Path
from typing import Any

from common.errors import UserError
from common.results import atomic_write

from .database import database_paths, mean_run_s, read_database, target_dict

#: Records re-timed per workload by default: the stored best and the next three.
TOP_K = 4
#: Interleaved rounds by default (each a full cold measurement: ``harness.COLD_REPEATS`` runs).
ROUNDS = 5
#: Least gain (fraction) by which another record must beat the stored best to replace it: two passes over the
#: same pair of ResNet-50 records (3 rounds each) disagreed on the faster for 12 of 29 kernels, by 1.2-2.5 % on
#: the four hottest of them.
MIN_GAIN = 0.03


def _ms(x: float) -> float:
    """Milliseconds to 4 significant digits (a 2 us kernel and a 5 ms one alike)."""
    return float(f"{x:.4g}")


def _decode(db, picks: dict[int, list[int]]) -> dict[int, Any]:
    """``{record line index: TuningRecord}`` for every picked record whose trace still applies to its workload
    (``TuningRecord.from_json`` replays it; the tiles are registered first)."""
    from tvm.s_tir import meta_schedule as ms

    from ..lowering.intrin import register_named_tiles
    register_named_tiles(json.dumps([db.records[i][1] for idx in picks.values() for i in idx]))
    out = {}
    for w, idx in picks.items():
        workload = ms.database.Workload.from_json(db.workloads[w])
        for i in idx:
            try:
                out[i] = ms.database.TuningRecord.from_json(db.records[i][1], workload)
            except Exception:  # noqa: BLE001 - a trace that no longer applies (ScheduleError, TVMError)
                continue
    return out


def _measure(recs: dict[int, Any], target, *, rounds: int, cache_flush: bool, builder=None, runner=None,
             progress: bool = True) -> dict[int, list[float]]:
    """``{record line index: [median run seconds of each round]}``; a record that fails to build gets ``[]``,
    one that fails in a round misses that round."""
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.utils import remove_build_dir
    from tqdm.auto import tqdm

    from .harness import cpu_tensor_intrinsics, make_builder, make_runner, tuning_environment
    from .tasks import as_target

    tgt = as_target(target)
    device = {"llvm": "cpu"}.get(tgt.kind.name, tgt.kind.name)  # MetaSchedule's runner wants a device name
    order = list(recs)
    times: dict[int, list[float]] = {i: [] for i in order}
    with tuning_environment(tgt), cpu_tensor_intrinsics(tgt):
        builder = builder or make_builder()  # in the environment its workers start in (harness.worker_pool)
        runner = runner or make_runner(cache_flush)
        # the arguments of the *scheduled* kernel, as the tuner measured it (a weight layout rewrite inside the
        # schedule changes them; a record's stored args_info may predate that: tuning.epilogue wrote such records)
        cands = {i: recs[i].as_measure_candidate() for i in order}
        built = builder.build([ms.builder.BuilderInput(cands[i].sch.mod, tgt) for i in order])
        ok = [(i, b.artifact_path) for i, b in zip(order, built) if b.error_msg is None]
        bar = tqdm(total=rounds * len(ok), desc="retime", unit="run", disable=not progress)
        try:
            for r in range(rounds):
                shift = (r * len(ok)) // rounds  # rotated order: no candidate always runs first
                batch = ok[shift:] + ok[:shift]
                futures = runner.run([ms.runner.RunnerInput(path, device, cands[i].args_info) for i, path in batch])
                for (i, _), f in zip(batch, futures):
                    res = f.result()
                    if res.error_msg is None and res.run_secs:
                        times[i].append(statistics.median(float(s) for s in res.run_secs))
                    bar.update(1)
        finally:
            bar.close()
            for _, path in ok:  # the build folder, as MetaSchedule's RemoveBuildArtifact callback removes it
                remove_build_dir(path)  # (the export writes more than artifact_path: a .so beside the .tar)
    return times


def retime(work_dir: str | os.PathLike, target, *, top_k: int = TOP_K, rounds: int = ROUNDS, min_gain: float = MIN_GAIN,
           cache_flush: bool = True, keep_untimed: bool = True, incumbents: dict[str, str] | None = None,
           names: dict[str, str] | None = None, progress: bool = True, builder=None, runner=None) -> list[dict]:
    """Re-measure the ``top_k`` best records of every workload of ``work_dir`` on this host and rewrite their times.

    Args:
        work_dir: a database folder (:mod:`lab02_tvm.tuning.database`); its records file is rewritten
            atomically, the workloads file is not touched.
        target: this host's target (a dict or ``Target``); the records must be of that target.
        top_k: records re-timed per workload (>= 1); the others of that workload are dropped.
        rounds: interleaved measurement rounds (>= 1); ``run_secs`` gets one median per round.
        min_gain: another record replaces the stored best only if it runs at least this fraction faster now;
            the records in between are dropped (kept, the database would rank them on noise).
        cache_flush: time cold (operands flushed before every run, as ``longrun --timing cold``) or warm.
        keep_untimed: a workload whose stored best does not build or run now keeps its records as they were
            (default: the build would otherwise lose its schedule); ``False`` (:mod:`lab02_tvm.tuning.seed`:
            records timed on another machine) keeps only the records timed now, and drops the workloads
            with none, whose stored times say nothing about this host.
        incumbents: ``{workload structural hash: trace}`` (:func:`incumbents`): the record each workload was built
            with before a top-up. It is re-timed whatever its stored time (besides the ``top_k``) and is the one
            that stays unless another beats it by ``min_gain``: its stored time is from an earlier pass, and a
            top-up's new records, stored below it, would otherwise push it out of the ``top_k`` unmeasured. An
            incumbent that no longer builds or runs has no claim: the records timed now replace the workload's.
        names: ``{workload structural hash: kernel name}`` for the rows (default ``"workload <index>"``).
        builder, runner: MetaSchedule builder and runner (default :func:`harness.make_builder`,
            :func:`harness.make_runner`).
    Returns:
        one row per workload with valid records: ``kernel, retimed`` (records measured now),
        ``stored_ms`` (the stored best's stored mean), ``stored_now_ms`` (that record re-timed),
        ``best_now_ms`` (the best kept), ``fastest_other_ms`` (the fastest of the other records, kept or not),
        ``host_ratio`` (stored_now / stored: > 1 = this host is slower
        than the one that timed it), ``changed`` (another record beat the stored best by
        ``min_gain``), ``gain_pct`` (how much faster the best kept is than the stored best, both timed now). Times in ms per call.
    Raises:
        UserError: ``top_k`` or ``rounds`` < 1; no database in ``work_dir``; records of another target.
        CorruptDatabase: a database line does not parse (nothing is written).
    """
    if top_k < 1 or rounds < 1 or not 0 <= min_gain < 1:
        raise UserError(f"retime: top_k and rounds must be >= 1 and min_gain in [0, 1) (got {top_k}, {rounds}, {min_gain})")
    db = read_database(work_dir)
    here = target_dict(target)
    other = [t for t in db.targets if t != here]
    if other:
        raise UserError(f"{work_dir} holds records of {other[0]}; timing them on {here} says nothing about "
                        "that machine: re-time them there")
    picks = db.ranked_per_workload(top_k)
    if not picks:  # nothing measured: re-timing would write an empty records file
        raise UserError(f"{work_dir} holds no successfully measured record: nothing to re-time (nothing was written)")
    inc = _incumbent_lines(db, incumbents or {})
    for w, i in inc.items():  # first: the record to beat
        picks[w] = [i, *[j for j in picks[w] if j != i]]
    recs = _decode(db, picks)
    times = _measure(recs, target, rounds=rounds, cache_flush=cache_flush, builder=builder, runner=runner,
                     progress=progress)
    keep: dict[int, list] = {}  # record line index -> line to write
    rows = []
    for w, idx in picks.items():
        timed = [i for i in idx if times.get(i)]
        name = (names or {}).get(db.workloads[w][0], f"workload {w}")
        if idx[0] not in timed:  # the stored best does not build or run now: keep what the workload had
            as_was = keep_untimed and not (w in inc and timed)  # an incumbent that fails now has no claim
            kept = {i: db.records[i] for i, r in enumerate(db.records) if r[0] == w} if as_was else \
                {i: [w, [db.records[i][1][0], times[i], *db.records[i][1][2:]]] for i in timed}
            keep.update(kept)
            other_now = [1e3 * sum(times[i]) / len(times[i]) for i in timed]
            rows.append({"kernel": name, "retimed": 0 if as_was else len(timed),
                         "stored_ms": _ms(1e3 * mean_run_s(db.records[idx[0]][1][1])), "stored_now_ms": None,
                         "best_now_ms": None if as_was or not other_now else _ms(min(other_now)),
                         "fastest_other_ms": _ms(min(other_now)) if other_now else None, "host_ratio": None,
                         "changed": bool(other_now) and not as_was, "gain_pct": None})
            continue
        now = {i: 1e3 * sum(times[i]) / len(times[i]) for i in timed}
        first_now = now[idx[0]]
        # the stored best stays unless another record beats it by min_gain: closer than that is the pass's noise
        winners = [i for i in timed if i == idx[0] or now[i] <= (1 - min_gain) * first_now]
        for i in winners:
            keep[i] = [w, [db.records[i][1][0], times[i], *db.records[i][1][2:]]]
        best = min(winners, key=now.__getitem__)
        stored = 1e3 * mean_run_s(db.records[idx[0]][1][1])
        rows.append({"kernel": name, "retimed": len(timed), "stored_ms": _ms(stored), "stored_now_ms": _ms(first_now),
                     "best_now_ms": _ms(now[best]), "fastest_other_ms": _ms(min(others)) if (others := [now[i] for i in timed if i != idx[0]]) else None,
                     "host_ratio": round(first_now / stored, 3), "changed": best != idx[0],
                     "gain_pct": round(100 * (1 - now[best] / first_now), 1)})
    for i, r in enumerate(db.records):  # workloads without a valid record (all failed) keep theirs
        if r[0] not in picks and keep_untimed:
            keep[i] = r
    _, rec_path = database_paths(work_dir)
    atomic_write(rec_path, "".join(json.dumps(keep[i]) + "\n" for i in sorted(keep)))
    return sorted(rows, key=lambda r: -(r["best_now_ms"] or 0))


def incumbents(work_dir: str | os.PathLike) -> dict[str, str]:
    """``{workload structural hash: trace}`` of each workload's best record in ``work_dir`` now (``{}`` without a
    database): what a top-up hands to :func:`retime` once it has tuned into the folder."""
    if not database_paths(work_dir)[1].is_file():
        return {}
    db = read_database(work_dir)
    return {db.workloads[w][0]: json.dumps(r[1][0]) for w, (_, r) in db.best_per_workload().items()}


def _incumbent_lines(db, incumbents: dict[str, str]) -> dict[int, int]:
    """``{workload index: record line index}`` of the measured record whose trace ``incumbents`` names."""
    out = {}
    for i, r in enumerate(db.records):
        t = incumbents.get(db.workloads[r[0]][0])
        if t is not None and r[0] not in out and mean_run_s(r[1][1]) is not None and json.dumps(r[1][0]) == t:
            out[r[0]] = i
    return out


def kernel_names(infos) -> dict[str, str]:
    """``{workload structural hash (as the database stores it): task name}`` of :func:`tasks.extract_tasks`' tasks."""
    import tvm_ffi
    return {str(tvm_ffi.structural_hash(ti.task.dispatched[0])): ti.name for ti in infos}


def summary(rows: list[dict], *, top_k: int, rounds: int, seconds: float, min_gain: float = MIN_GAIN) -> dict:
    """What a provenance keeps of a re-timing (``"retimed"``): when, how, and what it changed.

    ``host_ratio_median``: median over kernels of (stored best re-timed / stored best as stored), the
    factor by which this host ran slower (> 1) or faster than the hosts that timed the records.
    """
    import datetime
    ratios = [r["host_ratio"] for r in rows if r["host_ratio"] is not None]
    return {"date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"), "top_k": top_k,
            "rounds": rounds, "min_gain": min_gain, "seconds": round(seconds, 1), "kernels": len(rows),
            "host_ratio_median": round(statistics.median(ratios), 3) if ratios else None,
            "changed": [r["kernel"] for r in rows if r["changed"]]}


def write_table(model: str, rows: list[dict], summ: dict, folder: str | os.PathLike, stem: str | None = None) -> dict:
    """``results/lab02/retime_<model>.{md,csv,json}`` (or ``stem``): the rows of :func:`retime` with its :func:`summary`."""
    notes = ("Each kernel's best records re-timed on this host in one pass (interleaved rounds, timed as the "
             "folder's records were): stored_ms = the stored best (or the incumbent, the folder's record before "
             "a top-up) as stored; stored_now_ms = that record now; "
             "best_now_ms = the fastest record now; host_ratio = stored_now / stored (> 1: this host ran slower "
             "than the one that timed it); changed = another record is the best now.")
    return pass_table(stem or f"retime_{model}", rows, summ, folder, title=f"Lab 02: {model}'s records re-timed on this host",
                      notes=notes, listed="changed")


def pass_table(stem: str, rows: list[dict], summ: dict, folder: str | os.PathLike, *, title: str, notes: str,
               listed: str) -> dict:
    """A pass over a records folder as a Lab 02 results table: ``rows``, the environment with ``summ`` (but its
    ``listed`` kernel list, which goes to the table's setup) and the folder. Used by re-timing and the climb."""
    from common.results import write_table as write
    from common.timing import environment

    from .. import LAB
    from .records import rel
    return write(LAB, stem, rows, title=title, notes=notes,
                 env=environment(threads=1, folder=rel(Path(folder)), **{k: v for k, v in summ.items() if k != listed}),
                 meta={listed: summ[listed]})
