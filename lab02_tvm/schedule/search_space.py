"""AutoTVM vs Ansor in today's TVM: a hand-written search space against a generated one.

TVM 0.27 has neither AutoTVM nor Ansor; MetaSchedule (Shao et al., NeurIPS 2022) subsumes both,
and the two ideas survive as two ways of giving it a *design space*:

* **template** (AutoTVM's idea, Chen et al., "Learning to Optimize Tensor Programs", NeurIPS
  2018; the MLC course's "stochastic schedule" chapter): a person writes one parameterized
  schedule -- here :func:`template_schedule`: tile every spatial loop in two
  (``sch.sample_perfect_tile``), split the largest reduction loop, order the loops
  ``spatial-outer | reduction | spatial-inner``, accumulate the tile in a ``local`` buffer with the
  elementwise epilogue (bias, ReLU) fused into its write-back, vectorize the innermost loop and
  sample an unroll depth -- and the search only picks the sampled numbers
  (``ms.space_generator.ScheduleFn``);
* **generated** (Ansor's idea, Zheng et al., OSDI 2020): MetaSchedule derives the space from the
  kernel itself by its target's schedule rules (``space="post-order-apply"``: multi-level tiling
  ``SSRSRS``, auto-inline, parallel-vectorize-unroll, random compute location).

Both spaces get the *same* trial budget, the same evolutionary search, cost model, builder and
runner (``lab02_tvm.tuning``'s), and every measured candidate's latency is recorded in order, so
one plot shows the best latency found after each trial. The best schedule of each space is then
built, checked against a reference and timed interleaved at 1 thread.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from common.errors import UserError

from .. import LAB
from ..lowering.blocks import anchor_name
SPACES = ("template", "generated")
UNROLL_STEPS = [0, 16, 64, 512]  # candidate values of meta_schedule.unroll_explicit
RTOL, ATOL_SCALED = 1e-4, 1e-4  # best schedules vs the reference: |d| <= 1e-4 max|ref| + 1e-4 |ref|


# --------------------------------------------------------------------------------------------
# The template (the hand-written, parameterized space)
# --------------------------------------------------------------------------------------------
def template_schedule(sch, *, max_inner: int = 16) -> None:
    """The AutoTVM-style template: one fixed loop structure, sampled tile sizes and unroll depth.

    Knobs (each a MetaSchedule random variable, so the evolutionary search mutates it):
    every spatial loop ``s`` -> ``sample_perfect_tile(s, n=2, max_innermost_factor=max_inner)``;
    the largest reduction loop -> ``sample_perfect_tile(r, n=2, max_innermost_factor=max_inner)``;
    unroll -> ``sample_categorical(UNROLL_STEPS)``. Structure: pad/producer blocks inlined where
    possible; loops ``spatial-outer, reduction-outer, other reductions, reduction-inner,
    spatial-inner``; the accumulator tile in a ``local`` buffer (``cache_write``) written back under
    the last spatial-outer loop with the epilogue inlined into the write-back; innermost spatial
    loop vectorized; zero-init hoisted (``decompose_reduction``).
    """
    name = anchor_name(sch)
    block = sch.get_sblock(name)
    for prod in sch.get_producers(block):  # padding of a conv: compute it inside the conv
        try:
            sch.compute_inline(prod)
        except Exception:  # noqa: BLE001 - not inlinable (e.g. a reduction): keep its own loops
            pass
    anchor = sch.get(block)
    kinds = [int(iv.iter_type) for iv in anchor.iter_vars]
    loops = sch.get_loops(block)
    spatial = [lp for lp, k in zip(loops, kinds) if k == 0]
    reduce_ = [lp for lp, k in zip(loops, kinds) if k == 2]
    s_out, s_in = [], []
    for lp in spatial:
        o, i = sch.split(lp, factors=sch.sample_perfect_tile(lp, n=2, max_innermost_factor=max_inner))
        s_out.append(o)
        s_in.append(i)
    big = max(range(len(reduce_)), key=lambda j: int(sch.get(reduce_[j]).extent))
    r_o, r_i = sch.split(reduce_[big], factors=sch.sample_perfect_tile(reduce_[big], n=2,
                                                                         max_innermost_factor=max_inner))
    others = [r for j, r in enumerate(reduce_) if j != big]
    sch.reorder(*s_out, r_o, *others, r_i, *s_in)
    wb = sch.cache_write(block, 0, "local")
    while True:  # epilogue (bias add, ReLU, ...) into the write-back
        consumers = sch.get_consumers(wb)
        if len(consumers) != 1:
            break
        try:
            sch.reverse_compute_inline(consumers[0])
        except Exception:  # noqa: BLE001 - not injective: it keeps its own loop nest
            break
    sch.reverse_compute_at(wb, s_out[-1], preserve_unit_loops=True)
    sch.vectorize(s_in[-1])
    sch.vectorize(sch.get_loops(wb)[-1])
    unroll = sch.sample_categorical(candidates=UNROLL_STEPS, probs=[1.0 / len(UNROLL_STEPS)] * len(UNROLL_STEPS))
    sch.annotate(sch.get_sblock("root"), "meta_schedule.unroll_explicit", unroll)
    sch.decompose_reduction(block, r_o)


# --------------------------------------------------------------------------------------------
# Tuning one space and recording every trial
# --------------------------------------------------------------------------------------------
def _trial_recorder(bar=None):
    """A MetaSchedule measure callback appending each candidate's latency (ms; inf on error) and
    advancing the tqdm ``bar`` (if any)."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    @derived_object
    class TrialRecorder(PyMeasureCallback):
        def __init__(self) -> None:
            super().__init__()
            self.ms: list[float] = []

        def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
            for b, r in zip(builder_results, runner_results):
                ok = b.error_msg is None and r.error_msg is None and r.run_secs
                self.ms.append(1e3 * float(np.mean([float(s) for s in r.run_secs])) if ok else float("inf"))
            if bar is not None:
                bar.update(len(runner_results))
                finite = [t for t in self.ms if np.isfinite(t)]
                if finite:
                    bar.set_postfix(best_ms=f"{min(finite):.3f}", refresh=False)

    return TrialRecorder()


@dataclass
class SpaceResult:
    """One space's search: latencies in trial order (ms), the best schedule, the work dir."""

    space: str
    trials_ms: list[float] = field(default_factory=list)
    best_mod: Any = None
    best_ms: float | None = None

    def best_so_far(self) -> list[float]:
        """Best latency after each trial (ms; inf until a candidate ran)."""
        return [float(x) for x in np.minimum.accumulate(np.asarray(self.trials_ms, dtype=float))]


def tune_space(prim_mod, target, space: str, trials: int, *, seed: int = 0, work_dir: str | None = None,
               progress: bool = False) -> SpaceResult:
    """Search one design space of a single-kernel module for ``trials`` candidates.

    Args:
        prim_mod: IRModule with the kernel as ``main`` (e.g. an extracted task's ``dispatched[0]``).
        target: TVM target (its ``num-cores`` sets the runner's threads).
        space: ``"template"`` (:func:`template_schedule` as ``ScheduleFn``) or ``"generated"``
            (``post-order-apply``).
        trials: candidates measured (``max_trials_global``).
    Returns:
        :class:`SpaceResult` (trial latencies, best scheduled module and its latency).
    Raises:
        UserError: unknown space or ``trials < 1``.
    """
    from tvm.s_tir import meta_schedule as ms

    from ..tuning.apply import query_tuned_primfunc
    from ..tuning.harness import (cpu_tensor_intrinsics, make_builder, make_runner, quiet_ms_console, release,
                                  tuning_environment)
    from ..tuning.tasks import as_target
    from ..tuning.tune import TRIALS_PER_ITER, search_strategy
    if space not in SPACES:
        raise UserError(f"unknown space {space!r}; choose from {', '.join(SPACES)}")
    if trials < 1:
        raise UserError(f"--trials must be >= 1 (got {trials})")
    target = as_target(target)
    gen = ms.space_generator.ScheduleFn(template_schedule) if space == "template" else "post-order-apply"
    from tqdm import tqdm
    bar = tqdm(total=trials, desc=f"space {space}", unit="trial", disable=not progress, leave=True)
    recorder = _trial_recorder(bar)
    with tempfile.TemporaryDirectory(prefix=f"space_{space}_") as tmp, \
            cpu_tensor_intrinsics(target), tuning_environment(target):
        wd = work_dir or tmp
        builder = make_builder()
        runner = make_runner()
        quiet_ms_console(False)  # handlers left by an earlier tuning call break tune_tir's dictConfig
        try:
            db = ms.tune_tir(prim_mod, target, wd, max_trials_global=trials,
                             num_trials_per_iter=min(TRIALS_PER_ITER, trials), builder=builder,
                             runner=runner, space=gen, strategy=search_strategy(trials),
                             measure_callbacks=[*ms.MeasureCallback.create("default"), recorder],
                             num_tuning_cores=os.cpu_count() or 1, seed=seed)
        finally:
            bar.close()
            builder.close()
            release(runner.pool)
        best_mod = query_tuned_primfunc(db, prim_mod, target)
    finite = [t for t in recorder.ms if np.isfinite(t)]
    return SpaceResult(space=space, trials_ms=list(recorder.ms), best_mod=best_mod,
                       best_ms=min(finite) if finite else None)


def compare_spaces(prim_mod, target, *, trials: int, flops: float | None = None,
                   reference: Callable[[list[np.ndarray]], list[np.ndarray]] | None = None,
                   repeats: int = 10, seed: int = 0, progress: bool = False) -> dict:
    """Both spaces with the same budget; best schedules built, checked and timed interleaved.

    Args:
        prim_mod: the kernel (IRModule with ``main``).
        target: TVM target.
        trials: trials per space (the same for both).
        flops: FLOPs per call (default ``estimate_tir_flops``).
        reference: ``reference(input arrays) -> expected output arrays`` (e.g. NumPy); default:
            the unscheduled kernel built by TVM (then the check is "schedule did not change the result").
        repeats: interleaved timing rounds of the two best schedules.
    Returns:
        ``{"rows": one per space (trials, valid trials, best_ms in search, median_ms re-timed,
        gflops, pct_peak, max_abs_err, status), "curves": {space: best-so-far list (ms)},
        "trials_ms": {space: every candidate's latency in measurement order (ms, inf = failed)},
        "flops"}``.
    Raises:
        common.gates.GateError: a best schedule's outputs differ from the reference
            (``|d| <= 1e-4 max|ref| + 1e-4 |ref|``).
    """
    from tvm.s_tir.analysis import estimate_tir_flops

    from common.gates import compare
    from common.roof import rate_columns
    from common.timing import interleaved, tvm_threads

    from .manual import build_kernel, kernel_args, run_kernel

    flops = float(estimate_tir_flops(prim_mod)) if flops is None else flops
    results = {sp: tune_space(prim_mod, target, sp, trials, seed=seed, progress=progress) for sp in SPACES}
    arrays, outs = kernel_args(prim_mod, seed=seed)
    if reference is not None:
        expected = reference([a for i, a in enumerate(arrays) if i not in outs])
    else:
        call, read = run_kernel(build_kernel(prim_mod, target), [a.copy() for a in arrays], outs)
        call()
        expected = read()
    ref = {f"out{i}": e for i, e in enumerate(expected)}
    calls, reports = {}, {}
    with tvm_threads(1):
        for sp, res in results.items():
            if res.best_mod is None:
                continue
            call, read = run_kernel(build_kernel(res.best_mod, target), [a.copy() for a in arrays], outs)
            call()
            reports[sp] = compare(ref, {f"out{i}": r for i, r in enumerate(read())}, atol=ATOL_SCALED,
                                  rtol=RTOL, scale_atol_by_ref=True, stage=sp, check_dtype=False)
            calls[sp] = call
        stats = interleaved(calls, warmup=2, repeats=repeats) if calls else {}
    rows = []
    for sp, res in results.items():
        st = stats.get(sp)
        rep = reports.get(sp)
        rows.append({"space": sp, "trials": len(res.trials_ms),
                     "valid_trials": int(np.isfinite(res.trials_ms).sum()) if res.trials_ms else 0,
                     "best_ms_search": None if res.best_ms is None else round(res.best_ms, 4),
                     "median_ms": None if st is None else round(st.median_ms, 4),
                     "p90_ms": None if st is None else round(st.p90_ms, 4),
                     **rate_columns(flops, st.median_ms if st else None),
                     "max_abs_err": None if rep is None else rep.max_abs(),
                     "status": "no valid candidate" if rep is None else ("ok" if rep.passed else
                                                                        f"FAIL: {rep.first_failure}")})
    for rep in reports.values():
        rep.raise_if_failed()
    return {"rows": rows, "curves": {sp: r.best_so_far() for sp, r in results.items()},
            "trials_ms": {sp: [round(t, 5) for t in r.trials_ms] for sp, r in results.items()}, "flops": flops}


def plot_curves(curves: dict[str, list[float]], title: str):
    """Best latency found vs trials, one line per space. Returns the matplotlib figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for sp, ys in curves.items():
        y = np.asarray(ys, dtype=float)
        ok = np.isfinite(y)
        ax.step(np.arange(1, len(y) + 1)[ok], y[ok], where="post",
                label={"template": "template (AutoTVM idea: hand-written, sampled tiles)",
                       "generated": "generated (Ansor idea: post-order-apply rules)"}.get(sp, sp))
    ax.set_xlabel("trials (candidates measured)")
    ax.set_ylabel("best latency so far (ms, 1 thread)")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def hottest_kernel_spaces(mod, target, *, model: str, trials: int, name: str = "search_space",
                          progress: bool = True) -> dict:
    """The pipeline step: both spaces on the hottest task of ``mod``; writes table and plot.

    Args:
        mod: unfused Relax module, weights bound (``relax.passes.tuning_module(im)``).
        target: TVM target dict (``{**build.host_target(), "num-cores": 1}``).
        model: model name for the table.
        trials: trials per space (the same for both).
        name: file stem: ``results/lab02/<name>.{md,csv,json,png}``.
    Returns:
        ``{"rows", "curves", "kernel": TaskInfo, "paths"}``.
    Raises:
        common.gates.GateError: a best schedule differs from the unscheduled kernel.
    """
    from common.results import save_plot, write_table
    from common.timing import environment

    from ..tuning.tasks import extract_tasks
    info = extract_tasks(mod, target)[0]
    res = compare_spaces(info.task.dispatched[0], target, trials=trials, flops=info.flops, progress=progress)
    rows = [{"model": model, "kernel": info.name, "mflop": round(info.flops / 1e6, 2), **r} for r in res["rows"]]
    notes = (f"Hottest task {info.name}: {info.weight} calls x {info.flops / 1e6:.1f} MFLOP, "
             f"{100 * info.share:.1f}% of the model's FLOPs. Same budget, search strategy, cost model, builder "
             "and runner for both spaces; best_ms_search = fastest candidate during the search; "
             "median_ms/p90_ms = the two best schedules rebuilt and timed interleaved at 1 thread; each checked "
             f"against the unscheduled kernel (|d| <= {ATOL_SCALED:g} max|ref| + {RTOL:g} |ref|).")
    paths = write_table(LAB, name, rows, title="AutoTVM-style template vs MetaSchedule's generated space",
                        notes=notes, meta={"trials_per_space": trials, "trials_ms": res["trials_ms"]}, env=environment(threads=1, trials_per_space=trials))
    paths["png"] = save_plot(plot_curves(res["curves"], f"{model} {info.name}: {trials} trials per space"),
                             LAB, name)
    return {**res, "rows": rows, "kernel": info, "paths": paths}
