"""Step 6 — MetaSchedule: extract tuning tasks, tune them on a budget, build from the database.

MetaSchedule (``tvm.s_tir.meta_schedule``, the successor of AutoTVM and Ansor; Shao et al.,
"Tensor Program Optimization with Probabilistic Programs", NeurIPS 2022) tunes one TIR PrimFunc
per *task*. A task is a fused kernel of the Relax graph; its *weight* is how many times the
graph calls it. The tuning log is the *database* (two JSON-lines files under ``work_dir``:
``database_workload.json`` and ``database_tuning_record.json``), the modern form of the
AutoTVM/Ansor tuning records.

Budget policy (what :func:`tune` does):

1. *shallow* — every task (hottest first, by weighted-FLOP share) gets the same small number of
   trials, so no kernel stays a naive loop nest;
2. *deep* — the ``deep_top_k`` tasks with the largest weighted-FLOP share get ``deep_trials``
   more trials between them (split evenly, hottest first); with ``deep_by_time`` the deep tasks
   are the ones that take the most *time* after the shallow phase (weight x best ms), which puts
   BERT's GELU (few FLOPs, slow ``erf``) among them.

Tasks already in the database are not re-tuned: a second run with the same budget spends zero
trials (the records are reused), a larger budget only tops tasks up.

Three facts measured on the 2-core machine this lab was built on shape the code:

* MetaSchedule's default builder function imports ``tvm.s_tir.tensor_intrin`` in every
  build worker (25-55 s), so with its 30 s timeout about half the candidates "failed to build"
  and a trial cost ~20 s. :func:`fast_build` is the same build without that import (the
  tensor intrinsics are only needed for tensorized int8/fp16 schedules, which the fp32 CPU
  rules do not generate): a trial costs 1-2 s.
* MetaSchedule's ``TuneContext`` imports the whole ``tvm.s_tir.tensor_intrin`` package in the
  tuning process too (70 s here, 55 s of it CUDA intrinsics):
  :func:`cpu_tensor_intrinsics` loads only the x86/Arm sets for CPU targets, and
  :class:`PooledBuilder` keeps its build workers alive between batches. With these, ResNet-50
  tuning cost 2.45 s per trial with 0 % build errors (128 trials, 2 loaded cores).
* ``compile_relax`` legalizes and fuses the module itself before looking kernels up in the
  database; :func:`build_from_database` does the same steps (:func:`fuse_for_tasks`, so the
  database keys — structural hashes of the fused PrimFuncs — match) and counts the kernels it
  took from the database, so a build that falls back to untuned loop nests is visible and gated.

Weight layout rewrite (TVM's ``cpu_weight_prepack``, :data:`LAYOUT_REWRITE`) is supported but off:
probed on ResNet-50's hottest conv (64 trials each, 1 core, loaded machine) it reached 11.4 ms
against 6.7 ms without it, and a flow change would invalidate the shipped records.

Entry points (used by ``pipeline.py``, ``tuned.py``, ``records.py``, ``schedules.py`` and ``rpc.py``):
:func:`extract_tasks`, :func:`tune`, :func:`build_from_database`, :func:`build_tuned`,
:func:`database_coverage`, :func:`load_database`.
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
from tvm import relax
from tvm.s_tir import meta_schedule as ms

from common.errors import UserError
from common.results import atomic_write

from .ms_setup import (BUILD_TIMEOUT_S, REPO_ROOT, PooledBuilder, ProgressCallback, best_ms_of,  # noqa: F401
                       cpu_tensor_intrinsics, database_paths, evaluator_config, fast_build, load_database,
                       make_builder, make_runner, open_database, quiet_ms_console, target_cores,
                       task_records, tuning_environment)
#: Candidates per search iteration (MetaSchedule's default is 64; small batches keep the
#: progress bar and the time budget responsive on 2 cores).
TRIALS_PER_ITER = 16
#: Fewest trials a task gets in the shallow phase (fewer teach the cost model nothing).
SHALLOW_MIN_TRIALS = 4
#: Let MetaSchedule rewrite the layout of weights (Ansor's layout rewrite, TVM's
#: ``cpu_weight_prepack``): kernels get ``layout_free_buffers`` before tuning, and after the
#: database is applied the weight transforms are split out and folded at compile time. It changes
#: every workload key, so records tuned with and without it do not mix.
LAYOUT_REWRITE = False


# --------------------------------------------------------------------------------------------
# Targets and task extraction
# --------------------------------------------------------------------------------------------
def as_target(target: Any) -> tvm.target.Target:
    """``tvm.target.Target`` from a Target, a dict (``{"kind": "llvm", "mcpu": ..., "num-cores": N}``)
    or a string.

    Raises:
        UserError: TVM rejects the description.
    """
    if isinstance(target, tvm.target.Target):
        return target
    try:
        return tvm.target.Target(target)
    except Exception as exc:  # TVM raises a bare TVMError / ValueError with a long message
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(f"invalid TVM target {target!r}: {first}") from exc


def fuse_for_tasks(mod: tvm.IRModule, target: Any, layout_rewrite: bool | None = None) -> tvm.IRModule:
    """Legalize and fuse an unfused Relax module exactly as ``compile_relax`` does.

    Passes (in the order of ``tvm.s_tir.meta_schedule.relax_integration.compile_relax``):
    library dispatch for the target, ``LegalizeOps``, ``AnnotateTIROpPattern``, ``FoldConstant``,
    ``FuseOps``, ``FuseTIR``. Task extraction must see the same fused PrimFuncs the compiler
    later looks up, otherwise the database keys do not match and the build stays untuned.
    With ``layout_rewrite`` (default :data:`LAYOUT_REWRITE`), ``AttachAttrLayoutFreeBuffers``
    last: the weights of each kernel become layout-free buffers MetaSchedule may repack.

    Args:
        mod: Relax IRModule with ``main``, parameters bound as constants, not yet legalized.
        target: the compilation target.
        layout_rewrite: mark weights layout-free (see :data:`LAYOUT_REWRITE`).
    Returns:
        The fused IRModule (Relax ``main`` calling fused TIR PrimFuncs).
    """
    target = as_target(target)
    try:
        dispatch = relax.pipeline.library_dispatch_passes(target)
    except (ValueError, AttributeError):
        dispatch = []
    seq = tvm.transform.Sequential([
        *dispatch,
        relax.transform.LegalizeOps(),
        relax.transform.AnnotateTIROpPattern(),
        relax.transform.FoldConstant(),
        relax.transform.FuseOps(),
        relax.transform.FuseTIR(),
        *([relax.transform.AttachAttrLayoutFreeBuffers()] if _layout(layout_rewrite) else []),
    ])
    with target, tvm.transform.PassContext(opt_level=3):
        return seq(mod)


def _layout(flag: bool | None) -> bool:
    return LAYOUT_REWRITE if flag is None else bool(flag)


@dataclass
class TaskInfo:
    """One MetaSchedule tuning task.

    Attributes:
        index: position in MetaSchedule's extraction order.
        name: task name (the fused PrimFunc, e.g. ``fused_conv2d3_add3_relu2``).
        weight: how many times the graph calls the kernel.
        flops: floating-point operations of one call (``s_tir.analysis.estimate_tir_flops``).
        share: ``weight * flops`` as a fraction of the whole model's weighted FLOPs (0..1).
        task: the ``ms.ExtractedTask`` (its ``dispatched[0]`` is the PrimFunc module).
    """

    index: int
    name: str
    weight: int
    flops: float
    share: float
    task: Any = field(default=None, repr=False, compare=False)

    @property
    def weighted_flops(self) -> float:
        """``weight * flops`` (FLOPs per model inference spent in this kernel)."""
        return self.weight * self.flops

    def row(self) -> dict:
        """Table row: index, name, weight, MFLOP per call, weighted GFLOP, share %."""
        return {"index": self.index, "task": self.name, "weight": self.weight,
                "mflop_per_call": round(self.flops / 1e6, 3),
                "weighted_gflop": round(self.weighted_flops / 1e9, 4),
                "share_pct": round(100 * self.share, 2)}


def extract_tasks(mod: tvm.IRModule, target: Any, layout_rewrite: bool | None = None) -> list[TaskInfo]:
    """MetaSchedule tasks of an unfused Relax module, with weights, FLOPs and shares.

    Args:
        mod: unfused Relax IRModule, parameters bound (what ``relax.frontend.torch`` produces).
        target: compilation target (Target, dict or string).
        layout_rewrite: as :func:`fuse_for_tasks`.
    Returns:
        Tasks sorted by weighted-FLOP share, largest first. ResNet-50 (batch 1, 224x224) has
        about 8.2 GFLOP per image (multiply + add = 2 FLOPs); the task count depends on the
        import: 43 here, where ``batch_norm`` stays its own operator (28 once BatchNorm is folded into the
        convolutions, as :func:`lab02_tvm.relax_import.tuning_module` does).
    Raises:
        UserError: the module has no ``main`` or yields no task.
    """
    target = as_target(target)
    if "main" not in [gv.name_hint for gv in mod.get_global_vars()]:
        raise UserError("extract_tasks needs a Relax IRModule with a 'main' function")
    fused = fuse_for_tasks(mod, target, layout_rewrite)
    tasks = ms.relax_integration.extract_tasks(fused, target)
    if not tasks:
        raise UserError("MetaSchedule extracted no task: the module has no TIR kernel to tune")
    from tvm.s_tir.analysis import estimate_tir_flops

    flops = [float(estimate_tir_flops(t.dispatched[0])) for t in tasks]
    total = sum(f * int(t.weight) for f, t in zip(flops, tasks)) or 1.0
    infos = [TaskInfo(index=i, name=t.task_name, weight=int(t.weight), flops=f,
                      share=f * int(t.weight) / total, task=t)
             for i, (t, f) in enumerate(zip(tasks, flops))]
    return sorted(infos, key=lambda ti: -ti.weighted_flops)


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


# --------------------------------------------------------------------------------------------
# Tuning
# --------------------------------------------------------------------------------------------
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

    def summary(self) -> dict:
        """Flat dict for tables (without the per-task rows and the plan)."""
        d = asdict(self)
        d.pop("tasks")
        d.pop("plan")
        return d

    def line(self) -> str:
        """One human line: trials, minutes, coverage, build errors, the 100-trials estimate."""
        spt = f"{self.seconds_per_trial:.2f} s/trial" if self.seconds_per_trial else "s/trial n/a"
        est = (f"~{self.est_minutes_100_per_task:.0f} min" if self.est_minutes_100_per_task
               else "n/a")
        what = "reused the database (0 new trials)" if self.reused else f"{self.trials} trials"
        if self.stopped_by_time:
            what += " (time budget reached before the plan)"
        return (f"{what} in {self.minutes:.1f} min ({spt}), {self.tasks_tuned}/{self.tasks_total} "
                f"tasks tuned covering {100 * self.share_covered:.1f}% of FLOPs, build errors "
                f"{100 * self.build_error_rate:.1f}%; 100 trials/task: `{self.command_100}` ({est})")


def plan_budget(infos: Sequence[TaskInfo], max_trials_global: int, *, deep_top_k: int = 6,
                deep_trials: int | None = None, phases: bool = False) -> Any:
    """Trials per task: shallow over all tasks, then deep on the hottest.

    Args:
        infos: tasks sorted by weighted-FLOP share, largest first (as :func:`extract_tasks` gives).
        max_trials_global: total trials (>= 1).
        deep_top_k: how many of the hottest tasks get the deep phase (0 disables it).
        deep_trials: trials of the deep phase in total (split evenly over the ``deep_top_k``
            tasks, remainder to the hottest); default a third of ``max_trials_global`` when
            ``deep_top_k > 0``.
    Returns:
        ``{task name: trials}`` with ``sum == max_trials_global``. The shallow phase gives every
        task the same count, but at least ``SHALLOW_MIN_TRIALS``: when the budget is too small
        for that, only the hottest tasks are covered (the report's ``share_covered`` says how
        much of the FLOPs they carry) and the coldest (elementwise) kernels stay untuned.
    Raises:
        UserError: ``max_trials_global < 1`` or negative ``deep_top_k``/``deep_trials``.
    """
    if max_trials_global < 1:
        raise UserError(f"--trials must be >= 1 (got {max_trials_global})")
    if deep_top_k < 0 or (deep_trials is not None and deep_trials < 0):
        raise UserError("deep_top_k and deep_trials must be >= 0")
    k = min(deep_top_k, len(infos))
    if deep_trials is None:
        deep_trials = max_trials_global // 3 if k else 0
    deep = min(deep_trials, max_trials_global) if k else 0
    shallow = max_trials_global - deep
    plan = {ti.name: 0 for ti in infos}
    n = len(infos)
    if shallow:
        per = max(shallow // n, min(SHALLOW_MIN_TRIALS, shallow))
        covered = min(n, shallow // per)
        for ti in infos[:covered]:
            plan[ti.name] += per
        for i in range(shallow - per * covered):  # remainder: one more each, hottest first
            plan[infos[i % covered].name] += 1
    shallow_plan = dict(plan)
    if deep:
        per, rest = divmod(deep, k)
        for i, ti in enumerate(infos[:k]):
            plan[ti.name] += per + (1 if i < rest else 0)
    if phases:
        return shallow_plan, plan
    return plan


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
              cost_model, callback: ProgressCallback, seed: int, verbose: bool) -> None:
    """Tune one task for ``trials`` more candidates into ``database`` (MetaSchedule logs in ``work_dir``)."""
    quiet_ms_console(verbose)
    ctxs, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(
        [info.task], work_dir, strategy=search_strategy(trials),
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


def tune_tasks_plan(infos: Sequence[TaskInfo], plan: dict[str, int] | Sequence[dict[str, int]],
                    target: Any, work_dir: str | os.PathLike, *, tune_minutes: float | None = None,
                    num_workers: int | None = None, runner: Any = None, seed: int = 0,
                    progress: bool = True, verbose: bool = False, desc: str = "tune",
                    log_dir: str | os.PathLike | None = None) -> dict:
    """Top every task up to its planned record count; the engine behind :func:`tune` and ``rpc``.

    ``plan`` is ``{task name: records wanted in the database}``, or a list of such dicts run as
    successive phases (shallow, then deep) with one builder, runner and cost model. In each
    phase tasks are visited in the order of ``infos``; a task whose database already holds the
    wanted records is skipped (reused). ``tune_minutes`` is checked before each task.

    Args:
        infos: the tasks (from :func:`extract_tasks`).
        plan: records wanted per task name, or a list of phases.
        target: the target.
        work_dir: database + logs directory.
        tune_minutes: wall-clock cap (minutes), checked between tasks.
        num_workers: build processes.
        runner: a MetaSchedule runner (default :func:`make_runner`; ``rpc.py`` passes an
            ``RPCRunner``, which the caller then shuts down).
        seed: base seed (task ``i`` in phase ``p`` uses ``seed + 1000 p + i``).
        progress: tqdm bar over trials; ``desc`` is its label.
        verbose: MetaSchedule's console log at INFO.
        log_dir: where MetaSchedule writes its per-task logs (default ``work_dir/logs``).
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
        runner = runner or make_runner()
        cost_model = ms.CostModel.create("xgb", num_tuning_cores=os.cpu_count() or 1,
                                         tree_method="auto")
        bar = tqdm(total=total, desc=desc, unit="trial", disable=not progress, leave=True)
        callback = ProgressCallback(bar, stats)
        try:
            for p, phase in enumerate(phases):
                for ti in infos:
                    todo = phase.get(ti.name, 0) - len(task_records(db, ti.task))
                    if todo <= 0:
                        continue
                    if deadline is not None and time.perf_counter() > deadline:
                        stats["stopped_by_time"] = True
                        break
                    _tune_one(ti, todo, work_dir=str(log_dir or work_dir), builder=builder, runner=runner,
                              database=db, cost_model=cost_model, callback=callback,
                              seed=seed + 1000 * p + ti.index, verbose=verbose)
                if stats["stopped_by_time"]:
                    break
        finally:
            bar.close()
            builder.close()
            if own_runner:
                runner.pool.shutdown()
    stats["seconds"] = time.perf_counter() - start
    return stats


def _deep_plan_by_time(infos: Sequence[TaskInfo], shallow: dict, plan: dict, work_dir, k: int,
                       cost: dict[str, float] | None = None) -> dict:
    """``plan``'s deep trials moved to the ``k`` tasks with the most measured time (weight x best ms),
    or the largest ``cost[task name]`` when given (e.g. ms lost against the roof in the model)."""
    if cost is None:
        db = open_database(work_dir)
        cost = {ti.name: ti.weight * (best_ms_of(task_records(db, ti.task)) or 0.0) for ti in infos}
    cost = {ti.name: float(cost.get(ti.name, 0.0)) for ti in infos}
    ranked = sorted(infos, key=lambda ti: -cost[ti.name])
    extra = sorted((plan[n] - shallow[n] for n in plan), reverse=True)
    out = dict(shallow)
    for ti, more in zip(ranked[:k], extra):
        out[ti.name] += more
    return out


def tune(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike, *, max_trials_global: int,
         tune_minutes: float | None = None, deep_top_k: int = 6, deep_trials: int | None = None,
         num_workers: int | None = None, seed: int = 0, progress: bool = True,
         verbose: bool = False, log_dir: str | os.PathLike | None = None,
         layout_rewrite: bool | None = None, deep_by_time: bool = False, only_missing: bool = False,
         deep_cost: dict[str, float] | None = None) -> TuneReport:
    """Tune a Relax model with MetaSchedule on a trial (and optional time) budget.

    Args:
        mod: unfused Relax IRModule with parameters bound.
        target: compilation target; its ``num-cores`` sets the threads candidates run with.
        work_dir: database + logs directory, by convention ``results/lab02/tuning/<model>``.
        max_trials_global: total trials (candidates measured) for the plan, see :func:`plan_budget`.
        tune_minutes: wall-clock cap; checked between tasks, so a task in flight finishes.
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
            instead of weight x best ms in the database (e.g. :func:`lab02_tvm.roofline.lost_ms_by_kernel`:
            ms each kernel loses against the roof in the model, timed alone on a quiet core).
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
          "desc": f"tune {work_dir.name}", "log_dir": log_dir}
    if deep_by_time:
        stats = tune_tasks_plan(infos, shallow_plan, target, work_dir, tune_minutes=tune_minutes,
                                seed=seed, **kw)
        left = None if tune_minutes is None else tune_minutes - stats["seconds"] / 60
        plan = _deep_plan_by_time(infos, shallow_plan, plan, work_dir, deep_top_k, deep_cost)
        if left is None or left > 0:
            more = tune_tasks_plan(infos, plan, target, work_dir, tune_minutes=left, seed=seed + 1000, **kw)
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
        command_100=f"python -m lab02_tvm.pipeline --model {model} --trials {100 * n}",
        reused=trials == 0 and tuned > 0, stopped_by_time=stopped, plan=plan, tasks=rows)


# --------------------------------------------------------------------------------------------
# Build from the database
# --------------------------------------------------------------------------------------------
@dataclass
class TunedBuild:
    """A model compiled from a tuning database, and how much of it the database covered.

    Attributes:
        executable: the ``relax.VMExecutable``.
        kernels_total: fused TIR kernels of the model.
        kernels_tuned: kernels whose schedule came from the database (``tirx.is_scheduled``).
        missing: names of the kernels compiled as untuned loop nests; of those,
        absent: kernels the database has no workload for (never tuned), and
        failed_only: kernels whose every recorded candidate failed to run (e.g. an embedding
            gather measured with random out-of-range indices): no schedule to take.
    """

    executable: Any
    kernels_total: int
    kernels_tuned: int
    missing: list[str]
    absent: list[str] = field(default_factory=list)
    failed_only: list[str] = field(default_factory=list)

    def line(self) -> str:
        """``"28/28 kernels from the database"`` (+ the missing names, at most 4, and why)."""
        def names(ks: list[str]) -> str:
            return ", ".join(ks[:4]) + (", ..." if len(ks) > 4 else "")
        more = []
        if self.failed_only:
            more.append(f"every candidate failed to run: {names(self.failed_only)}")
        other = [k for k in self.missing if k not in self.failed_only]
        if other:
            more.append(f"untuned: {names(other)}")
        return (f"{self.kernels_tuned}/{self.kernels_total} kernels from the database"
                + (f" ({'; '.join(more)})" if more else ""))


def _scheduled(mod: tvm.IRModule) -> tuple[list[str], list[str]]:
    """(names of scheduled PrimFuncs, names of the other PrimFuncs) of a fused module."""
    done, todo = [], []
    for gv, func in mod.functions.items():
        if isinstance(func, tvm.tirx.PrimFunc):
            attrs = func.attrs or {}
            (done if bool(attrs.get("tirx.is_scheduled", False)) else todo).append(gv.name_hint)
    return done, todo


def build_from_database(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike,
                        layout_rewrite: bool | None = None) -> TunedBuild:
    """Compile a Relax model with the kernels recorded in the tuning database; no tuning.

    The steps of ``meta_schedule.relax_integration.compile_relax``, with a count in the middle:
    :func:`fuse_for_tasks` (so the database keys match), ``MetaScheduleApplyDatabase`` (each fused
    kernel found in the database is replaced by its best schedule and marked
    ``tirx.is_scheduled``), then Relax's lowering and finalization passes.

    Args:
        mod: the *unfused* Relax IRModule, parameters bound (the same one given to :func:`tune`).
        target: the target used for tuning.
        work_dir: the tuning work dir holding the database.
        layout_rewrite: as :func:`fuse_for_tasks` (must match the tuning).
    Returns:
        A :class:`TunedBuild`: run ``.executable`` with ``relax.VirtualMachine(ex, tvm.cpu())``;
        ``kernels_tuned < kernels_total`` means some kernels stayed naive loop nests.
    Raises:
        UserError: no database in ``work_dir``.
    """
    from tvm.relax import pipeline as rp

    target = as_target(target)
    db = load_database(work_dir)
    layout_rewrite = _layout(layout_rewrite)
    fused = fuse_for_tasks(mod, target, layout_rewrite)
    with target, db, tvm.transform.PassContext(opt_level=3):
        applied = relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(fused)
    done, todo = _scheduled(applied)
    absent, failed_only = [], []
    if todo:  # why each kernel was left untuned: no workload, or only failed candidates
        for t in ms.relax_integration.extract_tasks(fused, target):
            if t.task_name in todo:  # get_top_k skips failed records: a workload with only those has none
                if not db.has_workload(t.dispatched[0]):
                    absent.append(t.task_name)
                elif best_ms_of(task_records(db, t)) is None:
                    failed_only.append(t.task_name)
    if layout_rewrite:  # weight repacking split out, then folded (weights are constants)
        with target, tvm.transform.PassContext(opt_level=3):
            applied = tvm.transform.Sequential([relax.transform.SplitLayoutRewritePreproc(),
                                                relax.transform.LiftTransformParams(),
                                                relax.transform.FoldConstant()])(applied)
    if target.kind.name == "llvm":  # relax.pipeline's dispatcher misses the CPU module's functions
        from tvm.relax.backend.cpu_generic import pipeline as rp
    lower = tvm.transform.Sequential([*rp.dataflow_lower_passes(target), *rp.finalize_passes(target)])
    with target, tvm.transform.PassContext(opt_level=3):
        ex = relax.build(applied, target=target, relax_pipeline=lower)
    return TunedBuild(ex, len(done) + len(todo), len(done), sorted(todo), sorted(absent), sorted(failed_only))


def build_tuned(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike) -> Any:
    """:func:`build_from_database` without the counts: the ``relax.VMExecutable`` only."""
    return build_from_database(mod, target, work_dir).executable


def query_tuned_primfunc(db: ms.database.Database, prim_mod: tvm.IRModule, target: Any):
    """The best scheduled version of one kernel from a database, or ``None``.

    Args:
        prim_mod: IRModule holding the kernel as ``main`` (an extracted task's ``dispatched[0]``).
    Returns:
        The scheduled IRModule (``tirx.is_scheduled``) or ``None`` when the database lacks it.
    """
    return db.query_ir_module(prim_mod, as_target(target), "main")
