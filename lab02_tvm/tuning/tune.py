"""Tune a Relax model with MetaSchedule on a trial and time budget (:func:`tune`).

The tuning log is the *database* (:mod:`lab02_tvm.tuning.database`), the modern form of the
AutoTVM/Ansor tuning records. :func:`tune` extracts the tasks (:mod:`lab02_tvm.tuning.tasks`),
plans the trials (:mod:`lab02_tvm.tuning.budget`: shallow over every task, then deep on the
hottest) and tops each task up to its planned record count: tasks already in the database are not
re-tuned, so a second run with the same budget spends zero trials and a larger one only tops up.

Measured on the 2-core machine this lab was built on: with :mod:`lab02_tvm.tuning.harness`'s
builder (no ``tensor_intrin`` import per worker, persistent workers) ResNet-50 tuning cost 2.45 s
per trial with 0 % build errors (128 trials, 2 loaded cores), against ~20 s with MetaSchedule's
default builder. The method (layout, weight layout rewrite) is the caller's: see
:mod:`lab02_tvm.tuning.method`.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Sequence

import tvm
from tvm.s_tir import meta_schedule as ms

from common.errors import UserError
from common.results import atomic_write

from .budget import SHALLOW_MIN_TRIALS, deep_plan_by_time, plan_budget
from .database import best_ms_of, open_database, task_records
from .harness import (ProgressCallback, cpu_tensor_intrinsics, make_builder, make_runner, quiet_ms_console, release,
                      tuning_environment)
from .retime import kernel_names
from .tasks import TaskInfo, as_target, extract_tasks

#: Candidates per search iteration (MetaSchedule's default is 64; small batches keep the
#: progress bar and the time budget responsive on 2 cores).
TRIALS_PER_ITER = 16
#: Under a cap a task runs in pieces of at most this many trials, the cap checked between them: a task sized at
#: its pace when it started still stops near the cap when the pace falls (a Zen 4 BERT-base top-up's one deep
#: task, sized at 1.5 s a trial, ran 36 min past its 60-minute cap once its runner ran the machine out of memory).
CHUNK_TRIALS = 128



@dataclass
class TuneReport:
    """What one :func:`tune` call spent and reached.

    Attributes:
        model: name of the work dir (``results/lab02/tuning/<model>``).
        work_dir: where the database and logs are.
        trials: candidates measured by this call (0 when everything was reused).
        trials_in_db: tuning records in the database after the call (all runs together).
        minutes: wall time of this call's tuning, minutes.
        seconds_per_trial: wall seconds per measured candidate (this call, or the run that
            wrote the database when this call reused it; ``None`` when unknown).
        tasks_total / tasks_tuned: tasks extracted / tasks with at least one measured record.
        share_covered: weighted-FLOP share (0..1) of the tasks with a measured record.
        build_errors / run_errors: candidates that failed to build / to run, this call.
        build_error_rate: ``build_errors / trials`` (0 when no trial).
        est_minutes_100_per_task: estimated wall minutes for 100 trials per task at
            ``seconds_per_trial``.
        command_100: the command that spends 100 trials per task.
        reused: True when the call spent no trial because the database already held the plan.
        stopped_by_time: True when ``tune_minutes`` ran out before the plan was done.
        plan: trials planned per task name (cumulative target in the database).
        tasks: per-task rows (name, weight, MFLOP, share, records, best ms).
        workloads: ``{workload structural hash: task name}`` of every extracted task
            (:func:`lab02_tvm.tuning.retime.kernel_names`), so a re-timing after the run need not extract again.
    """

    model: str
    work_dir: str
    trials: int
    trials_in_db: int
    minutes: float
    seconds_per_trial: float | None
    tasks_total: int
    tasks_tuned: int
    share_covered: float
    build_errors: int
    run_errors: int
    build_error_rate: float
    est_minutes_100_per_task: float | None
    command_100: str
    reused: bool
    stopped_by_time: bool
    plan: dict = field(default_factory=dict, repr=False)
    tasks: list = field(default_factory=list, repr=False)
    workloads: dict = field(default_factory=dict, repr=False)

    def summary(self) -> dict:
        """Flat dict for tables (without the per-task rows, the plan and the workload names)."""
        d = asdict(self)
        for key in ("tasks", "plan", "workloads"):
            d.pop(key)
        return d

    def line(self) -> str:
        """One human line: trials, minutes, coverage, build errors, the 100-trials estimate."""
        spt = f"{self.seconds_per_trial:.2f} s/trial" if self.seconds_per_trial else "s/trial n/a"
        if self.reused and self.seconds_per_trial:
            spt += " when it was tuned"
        est = (f"~{self.est_minutes_100_per_task:.0f} min" if self.est_minutes_100_per_task
               else "n/a")
        what = "reused the database (0 new trials)" if self.reused else f"{self.trials} trials"
        if self.stopped_by_time:
            what += " (time budget reached before the plan)"
        return (f"{what} in {self.minutes:.1f} min ({spt}), {self.tasks_tuned}/{self.tasks_total} "
                f"tasks tuned covering {100 * self.share_covered:.1f}% of FLOPs, build errors "
                f"{100 * self.build_error_rate:.1f}%; 100 trials/task: `{self.command_100}` ({est})")


def _summary_path(work_dir: str | os.PathLike) -> Path:
    return Path(work_dir) / "tuning_summary.json"


def search_strategy(trials: int) -> Any:
    """Evolutionary search sized to the trials of one task.

    MetaSchedule's defaults (population 512, 4 genetic rounds) cost ~20 s of search per
    iteration on 2 loaded cores, which dominates when a task gets a handful of trials. A
    population of 64 per 4 trials (128..512) with 2 rounds keeps the search at a few seconds.
    """
    pop = int(min(512, max(128, 16 * trials)))
    return ms.search_strategy.EvolutionarySearch(population_size=pop, init_min_unmeasured=min(50, pop // 4),
                                                 genetic_num_iters=2 if trials <= 16 else 3)


def _tune_one(info: TaskInfo, trials: int, *, work_dir: str, builder, runner, database,
              cost_model, callback: ProgressCallback, seed: int, verbose: bool,
              space: Any = "post-order-apply") -> None:
    """Tune one task for ``trials`` more candidates into ``database`` (MetaSchedule logs in ``work_dir``)."""
    quiet_ms_console(verbose)
    ctxs, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(
        [info.task], work_dir, space=space, strategy=search_strategy(trials),
        num_threads=os.cpu_count() or 1, seed=seed)
    callback.stats["task"] = info.name
    callback.stats["best_ms"] = None  # best_ms is per task
    ms.tune_tasks(
        tasks=ctxs, task_weights=weights, work_dir=work_dir,
        max_trials_global=trials, max_trials_per_task=trials,
        num_trials_per_iter=min(TRIALS_PER_ITER, trials),
        builder=builder, runner=runner, database=database, cost_model=cost_model,
        measure_callbacks=[*ms.MeasureCallback.create("default"), callback],
        task_scheduler="round-robin")


def trials_that_fit(todo: int, left_s: float, trials_done: int, elapsed_s: float,
                    pace_s: float | None = None, phase_left: int | None = None) -> int:
    """Trials of the next task that fit in its share of the ``left_s`` seconds before the cap, at this run's pace.

    The pace is ``elapsed_s / trials_done`` once the run has timed trials, else ``pace_s`` (seconds per
    trial), else unknown (all ``todo``). The task's share of the time left is ``todo / phase_left``, with
    ``phase_left`` the trials its phase still wants (this task's ``todo`` included; default ``todo``: all of
    it): a cap the phase does not fit in trims each of its tasks alike, instead of the first one taking
    the whole time and the others none (a deep phase of five kernels at 5 s a trial under a 55-minute cap).
    A trimmed task keeps at least :data:`~lab02_tvm.tuning.budget.SHALLOW_MIN_TRIALS` (fewer teach the cost
    model nothing) while it fits. The caller passes the task's own pace once it has timed it
    (:func:`tune_tasks_plan`): a pace from cheaper tasks overestimates what fits.

    Returns:
        0 when no time is left (the run stops), else between 1 and ``todo``.
    """
    if left_s <= 0:
        return 0
    pace = elapsed_s / trials_done if trials_done else pace_s
    if not pace:
        return todo
    share = int(left_s * todo / max(todo, phase_left or todo) / pace)
    return max(1, min(todo, max(share, min(SHALLOW_MIN_TRIALS, int(left_s / pace)))))


def tune_tasks_plan(infos: Sequence[TaskInfo], plan: dict[str, int] | Sequence[dict[str, int]],
                    target: Any, work_dir: str | os.PathLike, *, tune_minutes: float | None = None,
                    num_workers: int | None = None, runner: Any = None, seed: int = 0,
                    progress: bool = True, verbose: bool = False, desc: str = "tune",
                    log_dir: str | os.PathLike | None = None, space: Any = None, cache_flush: bool = False,
                    pace_s: float | None = None) -> dict:
    """Top every task up to its planned record count; the engine behind :func:`tune` and ``rpc``.

    ``plan`` is ``{task name: records wanted in the database}``, or a list of such dicts run as
    successive phases (shallow, then deep) with one builder, runner and cost model. In each
    phase tasks are visited in the order of ``infos``; a task whose database already holds the
    wanted records is skipped (reused). ``tune_minutes`` is checked before each task, which is trimmed
    to the trials that fit in its share of the time left (:func:`trials_that_fit`: its trials over those
    its phase still wants), so a long deep task neither runs past the cap by its whole length nor takes
    the time of the tasks after it; and between pieces of :data:`CHUNK_TRIALS` trials of a task, so a task
    whose pace falls after it was sized stops within one piece of the cap. Each task of more than one batch
    runs one batch of :data:`TRIALS_PER_ITER` first, which times *it*: its share is then sized at its own
    pace, not at the run's. With no pace at all (``pace_s`` None, nothing timed) that batch is also the run's
    first. Why: a ResNet-50 top-up's deep phase
    opened on a Winograd convolution at about 4 s a trial with the shallow phase's 1.4 s as the pace, and it
    took most of the phase's time (Zen 5, 2026-12-07).

    Args:
        infos: the tasks (from :func:`extract_tasks`).
        plan: records wanted per task name, or a list of phases.
        target: the target.
        work_dir: database + logs directory.
        tune_minutes: wall-clock cap (minutes), checked before each task (and between its pieces of
            :data:`CHUNK_TRIALS`), which gets the trials that fit
            in its share of the time left.
        pace_s: seconds a trial is assumed to take until this call has timed its own (``tune`` passes the
            shallow phase's pace to the deep phase); ``None``: the first task runs one batch first, which times it.
        num_workers: build processes.
        runner: a MetaSchedule runner (default :func:`make_runner`; ``rpc.py`` passes an
            ``RPCRunner``, which the caller then shuts down).
        cache_flush: the default runner times every candidate cold
            (:func:`lab02_tvm.tuning.harness.evaluator_config`); ignored when ``runner`` is given.
        seed: base seed (task ``i`` in phase ``p`` uses ``seed + 1000 p + i``).
        progress: tqdm bar over trials; ``desc`` is its label.
        verbose: MetaSchedule's console log at INFO.
        log_dir: where MetaSchedule writes its per-task logs (default ``work_dir/logs``).
        space: ``TaskInfo -> space generator`` for each task (default: the target's rules,
            ``"post-order-apply"``); the method study's tile arm passes
            :func:`lab02_tvm.lowering.intrin.tile_space_for`.
    Returns:
        ``{"trials", "build_errors", "run_errors", "seconds", "stopped_by_time", "best_ms" (of the
        last task tuned, ms), "first_build_error"}`` for this call.
    """
    from tqdm import tqdm

    target = as_target(target)
    work_dir = str(work_dir)
    phases = [plan] if isinstance(plan, dict) else list(plan)
    db = open_database(work_dir)
    have = {ti.name: len(task_records(db, ti.task)) for ti in infos}
    final = {ti.name: max([p.get(ti.name, 0) for p in phases] + [0]) for ti in infos}
    total = sum(max(0, final[n] - have[n]) for n in final)
    stats = {"trials": 0, "build_errors": 0, "run_errors": 0, "best_ms": None,
             "first_build_error": None, "stopped_by_time": False, "seconds": 0.0}
    if total == 0:
        return stats
    start = time.perf_counter()
    deadline = None if tune_minutes is None else start + 60.0 * tune_minutes
    with cpu_tensor_intrinsics(target), tuning_environment(target, verbose):
        builder = make_builder(num_workers)
        own_runner = runner is None
        runner = runner or make_runner(cache_flush)
        cost_model = ms.CostModel.create("xgb", num_tuning_cores=os.cpu_count() or 1,
                                         tree_method="auto")
        bar = tqdm(total=total, desc=desc, unit="trial", disable=not progress, leave=True)
        callback = ProgressCallback(bar, stats)
        try:
            def wanted(phase: dict[str, int], info: TaskInfo) -> int:
                return phase.get(info.name, 0) - len(task_records(db, info.task))

            def run(p: int, ti: TaskInfo, trials: int, piece: int = 0) -> None:
                _tune_one(ti, trials, work_dir=str(log_dir or work_dir), builder=builder, runner=runner,
                          database=db, cost_model=cost_model, callback=callback,
                          seed=seed + 1000 * p + ti.index + 100_000 * piece, verbose=verbose,
                          space=space(ti) if space is not None else "post-order-apply")

            def run_in_pieces(p: int, ti: TaskInfo, trials: int) -> bool:
                """``trials`` of ``ti``: under a cap in pieces of :data:`CHUNK_TRIALS`, False once the cap passed
                between two (the tasks left get nothing); without one, all at once."""
                size = trials if deadline is None else CHUNK_TRIALS
                for piece, done in enumerate(range(0, trials, size)):
                    if done and time.perf_counter() >= deadline:
                        stats["stopped_by_time"] = True
                        return False
                    run(p, ti, min(size, trials - done), piece)
                return True

            def fits(phase: dict[str, int], k: int, todo: int, timed: tuple[int, float]) -> int | None:
                """:func:`trials_that_fit` for ``infos[k]`` at the pace of ``timed`` (trials, seconds), its share
                taken of what it and the tasks after it want (one trimmed before has had its turn); None: no pace."""
                if not timed[0] and pace_s is None:
                    return None
                return trials_that_fit(todo, deadline - time.perf_counter(), *timed, pace_s,
                                       phase_left=sum(max(0, wanted(phase, i)) for i in infos[k:]))

            for p, phase, (k, ti) in ((p, phase, kti) for p, phase in enumerate(phases) for kti in enumerate(infos)):
                todo = wanted(phase, ti)
                if todo <= 0:
                    continue
                if deadline is not None:
                    fit = fits(phase, k, todo, (stats["trials"], time.perf_counter() - start))
                    if todo > TRIALS_PER_ITER and (fit is None or fit > TRIALS_PER_ITER):
                        # one batch times this task first: its share is sized at its own pace, not at the run's
                        t0, n0 = time.perf_counter(), stats["trials"]
                        run(p, ti, TRIALS_PER_ITER)
                        todo = wanted(phase, ti)
                        if todo <= 0:
                            continue
                        own = (stats["trials"] - n0, time.perf_counter() - t0)
                        fit = fits(phase, k, todo, own if own[0] else (stats["trials"], time.perf_counter() - start))
                    fit = todo if fit is None else fit
                    stats["stopped_by_time"] |= fit < todo  # trimmed to its share of the time left, or none left
                    if fit == 0:  # time is up: the tasks left get nothing
                        break
                    todo = fit
                if not run_in_pieces(p, ti, todo):
                    break
        finally:
            bar.close()
            builder.close()
            if own_runner:
                release(runner.pool)
    stats["seconds"] = time.perf_counter() - start
    return stats


def pipeline_command(work_dir_name: str, trials: int) -> str:
    """The pipeline command that tunes this model's folder with ``trials`` trials: ``bert`` ->
    ``--model bert``, ``bert_quick`` (the folder of ``--quick``) -> ``--model bert --quick``."""
    model = work_dir_name.removesuffix("_quick")
    quick = " --quick" if work_dir_name.endswith("_quick") else ""
    return f"python -m lab02_tvm.pipeline --model {model}{quick} --trials {trials}"


def tune(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike, *, max_trials_global: int,
         tune_minutes: float | None = None, deep_top_k: int = 6, deep_trials: int | None = None,
         num_workers: int | None = None, seed: int = 0, progress: bool = True,
         verbose: bool = False, log_dir: str | os.PathLike | None = None,
         layout_rewrite: bool | None = None, deep_by_time: bool = False, only_missing: bool = False,
         deep_cost: dict[str, float] | None = None, space: Any = None, cache_flush: bool = False) -> TuneReport:
    """Tune a Relax model with MetaSchedule on a trial (and optional time) budget.

    Args:
        mod: unfused Relax IRModule with parameters bound.
        target: compilation target; its ``num-cores`` sets the threads candidates run with.
        work_dir: database + logs directory, by convention ``results/lab02/tuning/<model>``.
        max_trials_global: total trials (candidates measured) for the plan, see :func:`plan_budget`.
        tune_minutes: wall-clock cap; checked before each task, which is trimmed to the trials that fit
            in its share of the time left at the run's pace (:func:`trials_that_fit`); a task in flight finishes.
        deep_top_k: number of hottest tasks (weighted-FLOP share) tuned deeper.
        deep_trials: trials of the deep phase in total (default ``max_trials_global // 3``).
        num_workers: build processes (default: CPU count).
        seed: base random seed (see :func:`tune_tasks_plan`: task ``i`` of phase ``p`` uses
            ``seed + 1000 p + i``; with ``deep_by_time`` the deep phase's base is ``seed + 1000``).
        progress: show a tqdm bar over trials.
        verbose: let MetaSchedule log its per-task tables on the console.
        log_dir: MetaSchedule's per-task logs (default ``work_dir/logs``).
        layout_rewrite: as :func:`fuse_for_tasks`.
        deep_by_time: pick the deep phase's tasks by measured time after the shallow phase
            (``weight x best ms``) instead of by FLOPs: an elementwise kernel with few FLOPs
            (BERT's GELU) can cost more time than a matmul.
        only_missing: spend the budget on the tasks that have no record in ``work_dir`` yet (a
            kernel a pass changed: its workload is new; a task whose candidates all failed to run
            has records and is not retried); the report still lists every task.
        deep_cost: with ``deep_by_time``, rank the deep phase's tasks by this ``{task name: cost}``
            instead of weight x best ms in the database (e.g. :func:`lab02_tvm.tuning.longrun.lost_ms_by_kernel`:
            ms each kernel loses against the roof in the model, timed alone on a quiet core).
        space: as :func:`tune_tasks_plan` (``longrun --tile``: :func:`lab02_tvm.lowering.intrin.tile_space_for`).
        cache_flush: time every candidate cold (``longrun --timing cold``; :func:`tune_tasks_plan`).
    Returns:
        A :class:`TuneReport`. The database is in ``work_dir``; ``tuning_summary.json`` there keeps
        the seconds per trial of the run that wrote it, so a reusing run can still estimate.
    Raises:
        UserError: bad budget, or no task to tune.
    """
    if tune_minutes is not None and tune_minutes <= 0:
        raise UserError(f"--tune-minutes must be > 0 (got {tune_minutes})")
    target = as_target(target)
    work_dir = Path(work_dir)
    all_infos = infos = extract_tasks(mod, target, layout_rewrite)
    if only_missing:
        known = open_database(work_dir)
        infos = [ti for ti in infos if not known.has_workload(ti.task.dispatched[0])]  # never tuned
        if not infos:
            raise UserError(f"every task of the model already has a measured record in {work_dir}: nothing missing")
    shallow_plan, plan = plan_budget(infos, max_trials_global, deep_top_k=deep_top_k,
                                     deep_trials=deep_trials, phases=True)
    # shallow phase over all tasks (hottest first), then the deep phase on the hottest: if time
    # runs out, every task has had its shallow share before any task went deep.
    kw = {"num_workers": num_workers, "progress": progress, "verbose": verbose,
          "desc": f"tune {work_dir.name}", "log_dir": log_dir, "space": space, "cache_flush": cache_flush}
    if deep_by_time:
        stats = tune_tasks_plan(infos, shallow_plan, target, work_dir, tune_minutes=tune_minutes,
                                seed=seed, **kw)
        left = None if tune_minutes is None else tune_minutes - stats["seconds"] / 60
        plan = deep_plan_by_time(infos, shallow_plan, plan, work_dir, deep_top_k, deep_cost)
        if left is None or left > 0:
            pace = stats["seconds"] / stats["trials"] if stats["trials"] else None
            more = tune_tasks_plan(infos, plan, target, work_dir, tune_minutes=left, seed=seed + 1000,
                                   pace_s=pace, **kw)
            for key in ("trials", "build_errors", "run_errors", "seconds"):
                stats[key] += more[key]
            stats.update(stopped_by_time=more["stopped_by_time"], best_ms=more["best_ms"],
                         first_build_error=stats["first_build_error"] or more["first_build_error"])
        else:
            stats["stopped_by_time"] = True
    else:
        stats = tune_tasks_plan(infos, [shallow_plan, plan], target, work_dir,
                                tune_minutes=tune_minutes, seed=seed, **kw)
    trials, seconds = stats["trials"], stats["seconds"]
    build_errors, run_errors = stats["build_errors"], stats["run_errors"]
    stopped = bool(stats["stopped_by_time"])

    summary_file = _summary_path(work_dir)
    previous = json.loads(summary_file.read_text()) if summary_file.is_file() else {}
    if trials:
        total_trials = previous.get("trials", 0) + trials
        total_seconds = previous.get("seconds", 0.0) + seconds
        atomic_write(summary_file, json.dumps({"trials": total_trials, "seconds": total_seconds,
                                               "seconds_per_trial": total_seconds / total_trials}, indent=1))
        spt = total_seconds / total_trials
    else:
        spt = previous.get("seconds_per_trial")

    db = open_database(work_dir)
    rows, tuned_share, tuned = [], 0.0, 0
    for ti in all_infos:
        recs = task_records(db, ti.task)
        best = best_ms_of(recs)
        if best is not None:
            tuned += 1
            tuned_share += ti.share
        rows.append({**ti.row(), "planned": plan.get(ti.name, 0), "records": len(recs),
                     "best_ms": None if best is None else round(best, 4)})
    n = len(all_infos)
    model = work_dir.name
    return TuneReport(
        model=model, work_dir=str(work_dir), trials=trials,
        trials_in_db=len(db.get_all_tuning_records()), minutes=seconds / 60,
        seconds_per_trial=spt, tasks_total=n, tasks_tuned=tuned, share_covered=tuned_share,
        build_errors=build_errors, run_errors=run_errors,
        build_error_rate=build_errors / trials if trials else 0.0,
        est_minutes_100_per_task=None if spt is None else spt * 100 * n / 60,
        command_100=pipeline_command(model, 100 * n),
        reused=trials == 0 and tuned > 0, stopped_by_time=stopped, plan=plan, tasks=rows,
        workloads=kernel_names(all_infos))
