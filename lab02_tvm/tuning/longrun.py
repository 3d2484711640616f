"""The documented long run behind the shipped records (``python -m lab02_tvm.tuning.longrun``).

Not part of ``make run``: it tunes one full-size model at a time on one core into its shipped
folder (:mod:`lab02_tvm.tuning.records`), the database growing as it goes, MetaSchedule's
per-task logs under ``build/lab02/logs``; at the end the database is pruned to the best record per
kernel and its provenance written, chained to the runs before it. Example (one core beside other
work; ``TVM_BIND_THREADS=0`` keeps TVM from pinning its thread)::

    TVM_BIND_THREADS=0 taskset -c 1 python -m lab02_tvm.tuning.longrun tune --model resnet50 \
        --trials 1200 --minutes 25 --root build/lab02/records-next --layout NHWC --layout-rewrite on

``python -m lab02_tvm.tuning.longrun prune`` prunes the shipped folders without tuning;
``python -m lab02_tvm.tuning.longrun retime --model bert`` re-times a folder's records on this host
(:mod:`lab02_tvm.tuning.retime`), as ``tune`` does before it prunes (``--retime K``, 0 = off): the records
of earlier runs were timed on hosts of other speeds, and the build picks the lowest stored time.
``python -m lab02_tvm.tuning.longrun climb --model resnet50`` times the one-step neighbours of each kernel's
best record and keeps a faster one (:mod:`lab02_tvm.tuning.climb`).
``python -m lab02_tvm.tuning.longrun harvest --model bert --root build/lab02/harvest`` gathers every record the
shipped folder's committed versions held and re-times them all against the shipped ones (:mod:`lab02_tvm.tuning.history`).

All of these time a kernel alone. A top-up into a copy of the shipped folder then goes through
``python -m lab02_tvm.tuning.pick --model M SHIPPED TOPUP OUT`` (each of its new records kept only where it runs
faster in the model) and ``python -m lab02_tvm.measure.records_ab`` (the whole model, both orders) before it ships.
"""
from __future__ import annotations

import datetime
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from common.errors import UserError, run_cli
from common.results import read_table

from ..models import MODELS
from .database import RECORDS, prune, read_database
from .method import FIELD, KERNEL_LAYOUTS, Method, task_of_kernel
from .climb import STEP_ROUNDS
from .retime import MIN_GAIN, ROUNDS, TOP_K, incumbents
from .records import (LOG_ROOT, SHIPPED_ROOT, TIMINGS, carried_over, earlier_runs, read_provenance, rel, shipped_dir, target_key,
                      timing_of, write_provenance)


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



def _plan_text(deep_top_k: int, deep_share: float, only_missing: bool, ranked_by: str | None) -> str:
    """The provenance's one-line description of how a run spent its trials (``ranked_by``: a key of
    :data:`RANKINGS`, or None for the slowest)."""
    which = "only the kernels without a record, " if only_missing else ""
    if not deep_top_k:
        return which + "every trial spread over the tasks, hottest first (lab02_tvm.tuning.budget.plan_budget)"
    rank = RANKINGS[ranked_by][2] if ranked_by else "slowest"
    return (f"{which}{1 - deep_share:.0%} of the trials over every task, {deep_share:.0%} on the {deep_top_k} "
            f"{rank} (lab02_tvm.tuning.budget.plan_budget)")



def tune_records(model: str, trials: int, minutes: float, *, command: str, root: Path | None = None,
                 deep_top_k: int = 8, progress: bool = True, only_missing: bool = False,
                 deep_share: float = 2 / 3, deep_cost: dict[str, float] | None = None,
                 method=None, tile: bool = False, timing: str | None = None, retime_top_k: int = TOP_K,
                 retime_rounds: int = ROUNDS, retime_min_gain: float = MIN_GAIN, ranked_by: str | None = None,
                 keep_all: bool = False, retime_table: str | None = None) -> dict:
    """Tune one full-size model (1 core) into its shipped folder, prune it, write its provenance.

    Budget: ``1 - deep_share`` of ``trials`` (default a third) spread over every task (hottest
    first), ``deep_share`` over the ``deep_top_k`` tasks that take the most time after that (weight x best ms;
    :func:`lab02_tvm.tuning.budget.plan_budget`, ``deep_by_time``);
    ``minutes`` caps the wall time (checked before each task, which gets the trials that fit). ``only_missing``: tune only the
    kernels without a record yet (after a pass changed some workloads, e.g. :mod:`lab02_tvm.graph.fast_gelu`).
    ``deep_cost``: rank the deep phase by it (``{task: ms lost against the roof}``) instead of the database.
    ``method``: a :class:`lab02_tvm.tuning.method.Method` (default: the method of the records already in the
    folder, else :data:`lab02_tvm.tuning.method.FIELD`); a top-up must keep the folder's method, since
    records of another method are other workloads, or extend it (:meth:`Method.extends`: the folder's method
    with the parallel matmuls combined, whose other kernels keep their workloads). ``tile``: search with the fp32 register tile
    (:func:`lab02_tvm.lowering.intrin.tile_space_for`; the workloads are the same, so its records join the
    folder's, and the build picks the fastest of either kind per kernel); recorded as ``"space"`` in the run.
    A folder that holds tile records is always topped up with the tile (:func:`folder_tiles`): its records seed
    the search, and a tile trace replayed in the default space fails inside MetaSchedule (``RewriteTensorize``).
    ``timing``: ``"cold"`` (every candidate timed with its operands flushed from the caches, one run per
    repeat: :func:`lab02_tvm.tuning.harness.evaluator_config`) or ``"warm"`` (back-to-back runs, as every
    folder tuned before 2026-12-02 was: provenance without ``"timing"`` means warm); default: the
    folder's, else cold. The build takes the fastest record per kernel, so one folder's records must be
    timed one way: warm times are lower, and a warm record would win over a faster-in-the-model cold one.
    ``retime_top_k``: before pruning, re-time each kernel's best ``retime_top_k`` records on this host in
    ``retime_rounds`` interleaved rounds, a record replacing the stored best only ``retime_min_gain`` faster
    (:func:`lab02_tvm.tuning.retime.retime`; 0 = keep the stored times),
    so the records of earlier runs, timed on other days, compete with this run's on today's host; the
    table ``retime_<model>`` (``retime_table``: another name) and the provenance's ``"retimed"`` say what it changed.
    ``keep_all``: neither re-time nor prune: every record the search measured stays (each kernel's candidates
    for :mod:`lab02_tvm.tuning.pick` ``--top-k``, which times them in the model); such a folder is a scratch
    one, never shipped as it is.

    Raises:
        UserError: ``method`` or ``timing`` differs from that of the records already in the folder.

    Returns:
        the provenance dict written beside the pruned database.
    """
    import tvm

    from common.timing import set_torch_threads, tvm_threads
    from ..build import host_target
    from .tasks import as_target
    from ..lowering.intrin import tile_space_for
    from .tune import tune

    set_torch_threads(1)
    target = {**host_target(), "num-cores": 1}
    work = shipped_dir(model, target, root)
    prev = read_provenance(work)
    have = folder_method(work)
    method = method or have or FIELD
    if have is not None and method != have and not method.extends(have):
        raise UserError(f"{rel(work)} holds records tuned {have}; a top-up with {method} would add other "
                        "workloads: tune into another folder (--root) or keep the folder's method")
    had_timing = timing_of(prev) if have is not None else None
    timing = timing or had_timing or "cold"
    if timing not in TIMINGS:
        raise UserError(f"unknown timing {timing!r}: choose one of {', '.join(TIMINGS)}")
    if had_timing is not None and timing != had_timing:
        raise UserError(f"{rel(work)} holds records timed {had_timing}; a top-up timed {timing} would compare "
                        f"times taken two ways: tune into another folder (--root) or keep --timing {had_timing}")
    earlier = earlier_runs(prev)
    before = incumbents(work)  # each kernel's record before this run: re-timed against the new ones
    if not tile and folder_tiles(work):
        tile = True
        print(f"{rel(work)} holds register-tile records: topped up in the register-tile space, as they were tuned",
              flush=True)
    with tvm_threads(1):
        mod = method.model_module(model)
        t0 = time.time()
        report = tune(mod, target, work, max_trials_global=trials, tune_minutes=minutes,
                             deep_top_k=deep_top_k, deep_trials=int(trials * deep_share), progress=progress, deep_by_time=True,
                             log_dir=LOG_ROOT / target_key(target) / model, only_missing=only_missing,
                             deep_cost=deep_cost, layout_rewrite=method.layout_rewrite,
                             space=tile_space_for(target) if tile else None, cache_flush=timing == "cold")
        retimed = _retime(model, report.workloads, target, work, timing, retime_top_k, retime_rounds,
                          retime_min_gain, incumbents=before, table=retime_table) if retime_top_k and not keep_all else None
    pruned = prune(work) if not keep_all else {"records_before": len(read_database(work).records),
                                                "records": len(read_database(work).records)}
    info = {"model": model, "target": str(as_target(target)), "target_key": target_key(target),
            "trials": report.trials_in_db, "trials_this_run": report.trials,
            "minutes": round((time.time() - t0) / 60, 1),
            "seconds_per_trial": round(report.seconds_per_trial or 0, 2),
            "stopped_by_time": report.stopped_by_time, "build_errors": report.build_errors,
            "tasks": report.tasks_total, "tasks_in_db": report.tasks_tuned,
            "records_before_prune": pruned["records_before"], "records": pruned["records"],
            "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
            "command": command, "tvm": tvm.__version__, "threads": 1,
            "plan": _plan_text(deep_top_k, deep_share, only_missing, ranked_by=ranked_by or ("roofline" if deep_cost is not None else None)),
            "method": method.as_dict(), "layout_rewrite": method.layout_rewrite,
            "space": "register tile (intrin.tile_space)" if tile else "default", "timing": timing,
            "trials_per_task": {r["task"]: r["records"] for r in report.tasks},
            "trials_all_runs": report.trials + sum(int(r.get("trials_this_run") or 0) for r in earlier),
            "earlier_runs": earlier, **carried_over(prev)}
    if keep_all:
        info["kept_all"] = "every measured record kept (longrun tune --keep-all): not re-timed, not pruned"
    if retimed:
        info["retimed"] = retimed
    write_provenance(work, info)
    (work / "tuning_summary.json").unlink(missing_ok=True)  # its numbers are in the provenance
    return info



def _step_rows(path: str | os.PathLike, step: str) -> tuple[list[dict], str]:
    """The rows of a pipeline step's results table and the hint naming that step (for the caller's errors).

    Raises:
        UserError: the file is missing or does not parse; the message says which step writes it.
    """
    hint = f"run python -m lab02_tvm.pipeline --only {step} first"
    try:
        return read_table(path)["rows"], hint
    except UserError as exc:
        raise UserError(f"{exc}: {hint}") from None


def lost_ms_by_kernel(path: str | os.PathLike, build: str = "tuned") -> dict[str, float]:
    """``{task: ms above the roof}`` of one build from a roofline table (``roofline_<model>.json``).

    A kernel the weight layout rewrite renamed (``<task>_prepacked``) counts for its task
    (:func:`~lab02_tvm.tuning.method.task_of_kernel`): the plan ranks tasks, and the tuned build's hot
    kernels are exactly the renamed ones.

    Raises:
        UserError: the file is missing, does not parse, or has no row of ``build``.
    """
    rows, hint = _step_rows(path, "roofline")
    out: dict[str, float] = {}
    for r in rows:
        if r.get("build") == build:
            task = task_of_kernel(r["kernel"])
            out[task] = out.get(task, 0.0) + float(r["lost_ms"])
    if not out:
        raise UserError(f"{path} has no '{build}' rows: {hint}")
    return out



def lost_ms_vs_ort(path: str | os.PathLike) -> dict[str, float]:
    """``{task: ms lost against ONNX Runtime}`` from a per-convolution table (``vs_ort_<model>.json``,
    :mod:`lab02_tvm.measure.vs_ort`): each row's ``lost_vs_ort_ms`` (tuned TVM's ms minus ONNX Runtime's
    for one convolution shape) split evenly over the TVM kernels of that shape (the table times the
    shape, not its kernels: two epilogues of one shape are two kernels). Rows where TVM wins count 0.

    Raises:
        UserError: the file is missing, does not parse, or has no convolution row.
    """
    rows, hint = _step_rows(path, "vs-ort")
    out: dict[str, float] = {}
    for r in rows:
        kernels = str(r.get("tvm_kernels") or "").split()
        for k in kernels:
            task = task_of_kernel(k)
            out[task] = out.get(task, 0.0) + max(float(r["lost_vs_ort_ms"]), 0.0) / len(kernels)
    if not out:
        raise UserError(f"{path} has no convolution rows: {hint}")
    return out



#: what the deep phase can be ranked by besides the database's best times: ``{key: (the results table's
#: stem, its reader, the provenance's words)}``
RANKINGS = {"roofline": ("roofline", lost_ms_by_kernel, "ranked by ms lost against the roof in the model"),
            "ort": ("vs_ort", lost_ms_vs_ort, "ranked by ms lost against ONNX Runtime's kernels of the same shape")}



def _retime(model: str, names: dict[str, str], target: dict, work: Path, timing: str, top_k: int, rounds: int,
            min_gain: float = MIN_GAIN, incumbents: dict[str, str] | None = None, table: str | None = None) -> dict:
    """Re-time ``work``'s records (:func:`lab02_tvm.tuning.retime.retime`), write the table ``retime_<model>``,
    and return the provenance's ``"retimed"``. ``names``: ``{workload hash: task name}``
    (:func:`lab02_tvm.tuning.retime.kernel_names`) for the table's rows; ``incumbents``: the folder's best
    records before a top-up (:func:`lab02_tvm.tuning.retime.incumbents`), each the record to beat; ``table``: the
    table's name (default ``retime_<model>``)."""
    from . import retime as rt
    t0 = time.time()
    rows = rt.retime(work, target, top_k=top_k, rounds=rounds, min_gain=min_gain, cache_flush=timing == "cold",
                     names=names, incumbents=incumbents)
    summ = rt.summary(rows, top_k=top_k, rounds=rounds, seconds=time.time() - t0, min_gain=min_gain)
    if incumbents:
        summ["incumbents"] = "each kernel's record before this run (or --incumbents) re-timed too, the record to beat"
    paths = rt.write_table(model, rows, summ, work, stem=table)
    print(f"{model}: re-timed {summ['kernels']} kernels on this host (stored best now x{summ['host_ratio_median']} "
          f"its stored time, median); another record is the best now for {len(summ['changed'])}: "
          f"{', '.join(summ['changed']) or 'none'} ({rel(paths['md'])})", flush=True)
    return summ


def _folder_tasks(model: str, root: Path | None, what: str) -> tuple[dict, Path, list]:
    """This host's 1-core target, the model's folder under ``root`` and the model's tasks in the folder's method.

    Raises:
        UserError: the folder holds no measured record (checked before the model loads; ``what`` names the action).
    """
    from common.timing import set_torch_threads, tvm_threads
    from ..build import host_target
    from .tasks import extract_tasks

    set_torch_threads(1)
    target = {**host_target(), "num-cores": 1}
    work = shipped_dir(model, target, root)
    method = folder_method(work)
    if method is None or not read_database(work).best_per_workload():  # bad input fails before the model loads
        raise UserError(f"{rel(work)} holds no records to {what}: tune it first (longrun tune --model {model})")
    with tvm_threads(1):
        mod = method.model_module(model)
        return target, work, extract_tasks(mod, target, method.layout_rewrite)


def retime_folder(model: str, *, root: Path | None = None, top_k: int = TOP_K, rounds: int = ROUNDS,
                  min_gain: float = MIN_GAIN, incumbents_from: Path | None = None, table: str | None = None) -> dict:
    """``longrun retime``: re-time a folder's records on this host, prune to the best, note it in the provenance.

    ``incumbents_from``: a records folder (the shipped one a top-up was copied from) whose best record of each
    kernel is re-timed too and is the record to beat (:func:`lab02_tvm.tuning.retime.retime`'s ``incumbents``):
    how a top-up re-times since 2026-12-05, for a folder tuned with ``--keep-all`` or before then.

    Raises:
        UserError: the folder holds no records, ``incumbents_from`` holds no database (or see
            :func:`lab02_tvm.tuning.retime.retime`).
    """
    from common.timing import tvm_threads
    from .retime import kernel_names

    before = None
    if incumbents_from is not None:
        read_database(incumbents_from)  # one line, before the model loads
        before = incumbents(incumbents_from)
    target, work, infos = _folder_tasks(model, root, "re-time")
    prov = read_provenance(work)
    earlier = [*prov.get("retimed_earlier", []), *([prov["retimed"]] if "retimed" in prov else [])]
    with tvm_threads(1):
        summ = _retime(model, kernel_names(infos), target, work, timing_of(prov), top_k, rounds, min_gain,
                       incumbents=before, table=table)
    pruned = prune(work)
    write_provenance(work, {**prov, "retimed": summ, "records": pruned["records"],
                            **({"retimed_earlier": earlier} if earlier else {})})
    return summ


def climb_model(model: str, *, command: str, root: Path | None = None, top_k: int | None = None,
                ranked_by: str | None = None, minutes: float | None = None, rounds: int = ROUNDS,
                min_gain: float = MIN_GAIN, step_rounds: int = STEP_ROUNDS, table: str | None = None) -> dict:
    """``longrun climb``: hill-climb the kernels of a folder (:mod:`lab02_tvm.tuning.climb`), prune, note it.

    Kernels are climbed in the order of the time they take in the model (calls x stored best time), or of
    ``ranked_by`` (:data:`RANKINGS`: the ms each loses against the roof or ONNX Runtime), the first ``top_k``
    (all when ``None``); ``minutes`` caps the wall time (checked before each kernel). Writes the table
    ``climb_<model>`` (``table``: another name, so that an earlier pass's rows stay) and the provenance's
    ``"climbed"`` (earlier climbs move to ``"climbed_earlier"``); ``step_rounds`` as
    :func:`lab02_tvm.tuning.climb.climb_record`.

    Raises:
        UserError: the folder holds no records, or see :func:`lab02_tvm.tuning.climb.climb_folder`.
    """
    from common.results import results_dir
    from common.timing import tvm_threads
    from tqdm.auto import tqdm

    from . import climb
    from .database import mean_run_s
    from .retime import kernel_names

    target, work, infos = _folder_tasks(model, root, "climb")
    prov = read_provenance(work)
    names, weight = kernel_names(infos), {ti.name: ti.weight for ti in infos}
    db = read_database(work)
    best = {names.get(db.workloads[w][0]): mean_run_s(r[1][1]) for w, (_, r) in db.best_per_workload().items()}
    if ranked_by:
        stem, read_cost, _ = RANKINGS[ranked_by]
        cost = read_cost(results_dir("lab02") / f"{stem}_{model}.json")
    else:
        cost = {k: weight.get(k, 1) * t for k, t in best.items() if k}
    order = [k for k in sorted(cost, key=cost.__getitem__, reverse=True) if k in best and cost[k] > 0][:top_k]
    bar = tqdm(total=len(order), desc=f"climb {model}", unit="kernel")
    t0 = time.time()
    with tvm_threads(1):
        got = climb.climb_folder(work, target, order=order, names=names, cache_flush=timing_of(prov) == "cold",
                                 minutes=minutes, rounds=rounds, min_gain=min_gain,
                                 step_rounds=step_rounds,
                                 on_kernel=lambda c: (bar.update(1), bar.write(f"  {c.line_text()}")))
    bar.close()
    rows = [c.row(weight.get(c.kernel)) for c in got]
    summ = climb.summary(got, rows, command=command, seconds=time.time() - t0, rounds=rounds, min_gain=min_gain,
                         ranked_by=ranked_by or "time in the model", step_rounds=step_rounds)
    climb.write_table(model, rows, summ, work, name=table)
    pruned = prune(work)
    earlier = [*prov.get("climbed_earlier", []), *([prov["climbed"]] if "climbed" in prov else [])]
    write_provenance(work, {**prov, "climbed": summ, "records": pruned["records"],
                            **({"climbed_earlier": earlier} if earlier else {})})
    return summ


def folder_method(work: Path) -> Method | None:
    """The method of the records in ``work`` (its ``PROVENANCE.json``), ``None`` when it holds no records."""
    return Method.from_provenance(read_provenance(work)) if (work / RECORDS).is_file() else None


def folder_tiles(work: Path) -> bool:
    """Whether a record in ``work`` schedules its kernel with the fp32 register tile (its trace names one:
    :data:`lab02_tvm.lowering.intrin.NAME_PREFIX`); such traces replay only in the tile space."""
    from ..lowering.intrin import NAME_PREFIX
    f = work / RECORDS
    return f.is_file() and NAME_PREFIX in f.read_text()


def _on(flag: str | None) -> bool | None:
    return None if flag is None else flag == "on"


def _winograd(flag: str | None):
    """``--winograd``'s value as a policy (:func:`lab02_tvm.graph.winograd.policy`), ``None`` when not given."""
    from ..graph.winograd import policy
    return None if flag is None else policy({"on": True, "off": False}.get(flag, flag))


def _method_with(flags: dict, model: str, root: Path | None):
    """The method a run asks for: the folder's (else :data:`FIELD`) with the command line's ``flags``
    changed; ``None`` without flags (:func:`tune_records` then keeps the folder's)."""
    if not flags:
        return None
    from ..build import host_target
    return replace(folder_method(shipped_dir(model, {**host_target(), "num-cores": 1}, root)) or FIELD, **flags)


def harvest(model: str, root: Path, *, rounds: int = ROUNDS, min_gain: float = MIN_GAIN) -> dict:
    """``longrun harvest``: every record the shipped folder of ``model`` ever held (:func:`lab02_tvm.tuning.history.union`)
    into ``root``'s folder, all re-timed here with the shipped records as the ones to beat, then pruned; the table
    ``retime_<model>_history``.

    Returns:
        the re-timing's provenance entry (:func:`retime_folder`), with ``"history"`` (versions, records).
    Raises:
        UserError: ``root`` is the shipped root, the shipped folder has no history, ``root``'s folder is not empty.
    """
    from ..build import host_target
    from . import history
    if root is None or Path(root).resolve() == SHIPPED_ROOT.resolve():
        raise UserError("longrun harvest writes a scratch folder: name it with --root (e.g. build/lab02/harvest)")
    target = {**host_target(), "num-cores": 1}
    src, dst = shipped_dir(model, target), shipped_dir(model, target, root)
    info = history.union(src, dst)
    print(f"{model}: {info['records']} records of {info['workloads']} workloads from {info['versions']} committed "
          f"versions of {rel(src)}", flush=True)
    summ = retime_folder(model, root=root, top_k=history.most_per_workload(dst), rounds=rounds, min_gain=min_gain,
                         incumbents_from=src, table=f"retime_{model}_history")
    return {**summ, "history": info}


def _table(given: str | None, names: Sequence[str], model: str) -> str | None:
    """The table name ``--name`` gives ``model``'s pass: as given for one model, ``<name>_<model>`` for several
    (``None``: the action's default)."""
    return given and (given if len(names) == 1 else f"{given}_{model}")


def _merge(names: list[str], source: Path | None, root: Path | None) -> int:
    """``longrun merge --from ROOT``: join each model's folder under ``source`` into the one under ``root``."""
    from ..build import host_target
    from .merge import merge_folders
    if source is None:
        raise UserError("longrun merge: name the folder of target folders to merge in with --from ROOT")
    target = {**host_target(), "num-cores": 1}
    for name in names:
        dst = shipped_dir(name, target, root)
        info = merge_folders(shipped_dir(name, target, source), dst)
        print(f"{name}: {info['workloads_added']} workloads and {info['records_added']} records joined "
              f"{rel(dst)} ({info['records']} after pruning, {info['trials_all_runs']} trials in all runs; "
              f"method {Method.from_provenance(info)})", flush=True)
    return 0


#: ``--deep-share``'s default: two thirds of a run's trials deep, a third over every task (:mod:`.budget`).
DEEP_SHARE = 2 / 3


def main(argv: Sequence[str] | None = None) -> int:
    """``tune`` (the long run, then prune + provenance), ``prune`` (shipped folders in place), ``retime``
    (re-time a folder's records on this host), ``merge`` (join another root's folder into one), ``climb``
    (hill-climb each kernel's best record, :func:`climb_model`) or ``harvest`` (:func:`harvest`)."""
    from common.cli import command_line, parser, table_name
    p = parser("python -m lab02_tvm.tuning.longrun", __doc__)
    p.add_argument("action", choices=["tune", "prune", "retime", "merge", "climb", "harvest"],
                   help="tune (long run), prune the shipped databases, re-time a folder's records on this host, "
                        "merge two folders, hill-climb each kernel's best record (tuning/climb.py), or harvest "
                        "every record the shipped folder's git history holds (tuning/history.py)")
    p.add_argument("--model", default="all", choices=[*MODELS, "all"],
                   help="all = resnet50 and bert (the long run); LLaMA-tiny one sequence at a time")
    p.add_argument("--trials", default="1800,1100", help="trials per model (one value or resnet50,bert)")
    p.add_argument("--minutes", default=None, help="wall-clock cap per model, minutes (tune: checked before each "
                   "task, which is trimmed to the trials that fit at the run's pace; default 55,35; climb: checked "
                   "before each kernel, default none)")
    p.add_argument("--deep-top-k", type=int, default=8, help="tune: hottest tasks that get two thirds of the trials; "
                   "climb: kernels climbed (0 = all)")
    p.add_argument("--deep-share", type=float, default=DEEP_SHARE,
                   help="share of the trials for the deep phase (default 2/3; 0.95 for a top-up of the slowest kernels)")
    p.add_argument("--deep-by-roofline", action="store_true",
                   help="rank the deep phase by the ms each kernel loses against the roof in the model "
                        "(results/lab02/roofline_<model>.json) instead of the database's best times")
    p.add_argument("--deep-by-ort", action="store_true",
                   help="rank the deep phase by the ms each convolution loses against ONNX Runtime's "
                        "(results/lab02/vs_ort_<model>.json; resnet50) instead of the database's best times")
    p.add_argument("--only-missing", action="store_true",
                   help="tune only the kernels that have no record yet (after a pass changed their workload)")
    p.add_argument("--layout", choices=["NCHW", "NHWC"], default=None,
                   help="data layout to tune in (default: the folder's method, else NHWC)")
    p.add_argument("--kernel-layout", choices=KERNEL_LAYOUTS["NHWC"], default=None,
                   help="the NHWC convs' weight layout (HWIO: the register tile tensorizes the convs; default: the "
                        "folder's method, else OHWI); a folder of the other one is refused: port it first "
                        "(python -m lab02_tvm.tuning.port, or topup --kernel-layout)")
    p.add_argument("--layout-rewrite", choices=["on", "off"], default=None,
                   help="weight layout rewrite (default: the folder's method, else on)")
    p.add_argument("--combine-matmul", choices=["on", "off"], default=None,
                   help="merge the matmuls that share an input, BERT's Q/K/V (default: the folder's method, else off)")
    p.add_argument("--winograd", default=None, metavar="on|off|OUT_H:M,...",
                   help="the 3x3 stride-1 convs rewritten as Winograd F(m, 3), NHWC only: on (graph/winograd.TILES), "
                        "off, or a tile policy such as 56:4,28:4,14:2,7:2 (default: the folder's method, else off)")
    p.add_argument("--tile", action="store_true",
                   help="search with the fp32 register-tile TensorIntrin (lowering/intrin.py) where it maps")
    p.add_argument("--timing", choices=TIMINGS, default=None,
                   help="time candidates warm (back to back) or cold (caches flushed before each run); "
                        "default: the folder's (warm for folders tuned before the option), else cold")
    p.add_argument("--retime", type=int, default=TOP_K, metavar="K",
                   help=f"re-time each kernel's K best records on this host before pruning (default {TOP_K}; 0 = off)")
    p.add_argument("--keep-all", action="store_true",
                   help="tune: keep every measured record (no re-timing, no pruning), for tuning.pick --top-k")
    p.add_argument("--rounds", type=int, default=ROUNDS,
                   help=f"interleaved rounds of the re-timing and of the climb's confirmation pass (default {ROUNDS})")
    p.add_argument("--step-rounds", type=int, default=STEP_ROUNDS,
                   help=f"climb: interleaved rounds per candidate in each step (default {STEP_ROUNDS})")
    p.add_argument("--name", default=None,
                   help="climb: the results table's name (default climb_<model>; one per pass keeps each pass's rows); "
                        "tune and retime: the re-timing table's (default retime_<model>)")
    p.add_argument("--min-gain", type=float, default=MIN_GAIN,
                   help=f"least gain (fraction) for a re-timed record to replace the stored best (default {MIN_GAIN})")
    p.add_argument("--incumbents", type=Path, default=None, metavar="FOLDER",
                   help="retime: also re-time FOLDER's best record of each kernel (the shipped folder a top-up "
                        "was copied from), the record to beat")
    p.add_argument("--from", dest="source", type=Path, default=None, metavar="ROOT",
                   help="merge: the folder of target folders whose records join --root's (tuning/merge.py)")
    p.add_argument("--root", type=Path, default=None,
                   help="folder of target folders to tune into (default results/lab02/tuning; copy a finished "
                        "run there)")
    args = p.parse_args(argv)
    names = list(MODELS)[:2] if args.model == "all" else [args.model]
    if args.action == "prune":
        for d in sorted(SHIPPED_ROOT.glob(f"*/{'*' if args.model == 'all' else args.model}")):
            if (d / RECORDS).is_file():
                print(f"{rel(d)}: {prune(d)}")
        return 0
    if args.retime < 0 or args.rounds < 1 or not 0 <= args.min_gain < 1:
        raise UserError(f"--retime must be >= 0, --rounds >= 1 and --min-gain in [0, 1) "
                        f"(got {args.retime}, {args.rounds}, {args.min_gain})")
    if args.action == "merge":
        return _merge(names, args.source, args.root)
    if args.action == "harvest":
        from ..build import host_target
        from .records import require_empty
        if args.root is not None:  # every destination checked before the first (long) re-timing
            for name in names:
                require_empty(shipped_dir(name, {**host_target(), "num-cores": 1}, args.root), "harvest")
        for name in names:
            harvest(name, args.root, rounds=args.rounds, min_gain=args.min_gain)
        return 0
    if args.incumbents is not None and len(names) > 1:
        raise UserError("--incumbents names one model's records folder: pass --model too")
    if args.action == "retime":
        if args.retime < 1:
            raise UserError("longrun retime: --retime K must be >= 1 (the records re-timed per kernel)")
        table_name("--name", args.name)
        for name in names:
            retime_folder(name, root=args.root, top_k=args.retime, rounds=args.rounds, min_gain=args.min_gain,
                          incumbents_from=args.incumbents,
                          table=_table(args.name, names, name))
        return 0
    if args.deep_by_roofline and args.deep_by_ort:
        raise UserError("--deep-by-roofline and --deep-by-ort rank the deep phase two ways: pick one")
    ranked_by = "ort" if args.deep_by_ort else "roofline" if args.deep_by_roofline else None
    command = command_line("lab02_tvm.tuning.longrun", argv)
    if args.action == "climb":
        if args.deep_top_k < 0:
            raise UserError(f"longrun climb: --deep-top-k is the number of kernels to climb, 0 for all (got {args.deep_top_k})")
        if args.step_rounds < 1:
            raise UserError(f"longrun climb: --step-rounds must be >= 1 (got {args.step_rounds})")
        table_name("--name", args.name)
        for name in names:
            summ = climb_model(name, command=command, root=args.root, top_k=args.deep_top_k or None, ranked_by=ranked_by,
                               minutes=args.minutes and _per_model(args.minutes, names, "--minutes", float)[name],
                               rounds=args.rounds, min_gain=args.min_gain, step_rounds=args.step_rounds,
                               table=_table(args.name, names, name))
            print(f"{name}: climbed {summ['kernels']} kernels in {summ['minutes']} min ({summ['measured']} "
                  f"candidates measured); written {len(summ['written'])}: {', '.join(summ['written']) or 'none'}; "
                  f"{summ['saved_ms_per_inference']} ms saved per inference in the confirmation passes", flush=True)
        return 0
    if not 0 <= args.deep_share <= 1:
        raise UserError(f"--deep-share must be in [0, 1] (got {args.deep_share})")
    table_name("--name", args.name)
    trials = _per_model(args.trials, names, "--trials", int)
    minutes = _per_model(args.minutes or "55,35", names, "--minutes", float)
    flags = {key: value for key, value in (("layout", args.layout), ("kernel_layout", args.kernel_layout),
                                           ("layout_rewrite", _on(args.layout_rewrite)),
                                           ("combine_matmul", _on(args.combine_matmul)),
                                           ("winograd", _winograd(args.winograd))) if value is not None}
    for name in names:
        method = _method_with(flags, name, args.root)
        cost = None
        if ranked_by:
            from common.results import results_dir
            stem, read_cost, _ = RANKINGS[ranked_by]
            cost = read_cost(results_dir("lab02") / f"{stem}_{name}.json")
        info = tune_records(name, trials[name], minutes[name], command=command, deep_top_k=args.deep_top_k,
                            only_missing=args.only_missing, deep_share=args.deep_share, deep_cost=cost,
                            method=method, root=args.root, tile=args.tile, timing=args.timing,
                            retime_top_k=args.retime, retime_rounds=args.rounds, retime_min_gain=args.min_gain,
                            ranked_by=ranked_by, keep_all=args.keep_all,
                            retime_table=_table(args.name, names, name))
        print(f"{name}: {info['trials_this_run']} trials measured ({info['trials_all_runs']} in all runs), "
              f"{info['minutes']} min, {info['tasks_in_db']}/{info['tasks']} "
              f"tasks, pruned {info['records_before_prune']} -> {info['records']} records", flush=True)
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
