"""Roofline of a built Relax model: every kernel's FLOPs, bytes and measured time under the roof.

The times come from :mod:`lab02_tvm.profile` (the Relax VM's per-kernel instrument).

Per kernel (a TIR PrimFunc the VM calls; ``vm.builtin.*`` calls are VM bookkeeping):

* **FLOPs** -- ``tvm.s_tir.analysis.estimate_tir_flops`` of the *unscheduled* PrimFunc of the same
  name (multiply + add = 2; a ``[M,K] x [K,N]`` matmul is ``2MKN``);
* **bytes moved** -- the sizes of its buffer parameters (inputs + outputs, each once): the least
  traffic to and from memory, as the roofline model counts it (Williams, Waterman, Patterson,
  "Roofline", CACM 2009);
* **time** -- the median over ``repeats`` model runs of its summed calls per run.

The roof comes from :mod:`common.roof` (measured FMA peak and STREAM bandwidth): a kernel cannot
beat ``max(flops / peak, bytes / bandwidth)``; ``lost_ms`` is its time above that bound, and the
table is sorted by it (where the time goes that the machine would not force).
"""
from __future__ import annotations


import numpy as np

from common.errors import UserError

from ..tuning.method import task_of_kernel
from ..profile import KernelInfo, kernel_infos, profile_vm

from .. import LAB
#: Fraction by which the instrumented kernel sum may differ from the whole-model run (tests).
SUM_TOLERANCE = 0.25


def kernel_rows(profile: dict, infos: dict[str, KernelInfo], roof: dict, *, label: str) -> list[dict]:
    """Per-kernel roofline rows, sorted by ``lost_ms`` (largest first).

    Each row: build label, kernel, calls, ms (per model run), mflop, mbytes (MB moved), intensity
    (FLOP/byte), gflops, pct_peak, roof_ms (= max(flops/peak, bytes/bandwidth)), lost_ms (= ms -
    roof_ms), bound (``compute`` or ``memory``: which roof limits it). A kernel missing from
    ``infos`` uses its runtime argument bytes and no FLOP count (``mflop`` None).
    """
    from common.roof import gflops, roof_time_ms

    rows = []
    for name, k in profile["kernels"].items():
        info = infos.get(name) or infos.get(task_of_kernel(name))  # weight layout rewrite's name
        flops = (info.flops if info and np.isfinite(info.flops) else 0.0) * k["calls"]
        nbytes = (info.nbytes if info and info.nbytes else k["arg_bytes"]) * k["calls"]
        ms = k["ms"]
        bound_ms = roof_time_ms(flops, nbytes, roof)
        compute = flops / (roof["peak_gflops"] * 1e9) >= nbytes / (roof["bandwidth_gbs"] * 1e9)
        g = gflops(flops, ms) if ms > 0 else 0.0
        rows.append({
            "build": label, "kernel": name, "calls": k["calls"], "ms": round(ms, 4),
            "mflop": None if info is None else round(flops / 1e6, 3), "mbytes": round(nbytes / 1e6, 3),
            "intensity": round(flops / nbytes, 3) if nbytes else None,
            "gflops": round(g, 2), "pct_peak": round(100 * g / roof["peak_gflops"], 1),
            "gbs": round(nbytes / (ms * 1e-3) / 1e9, 2) if ms > 0 else None,
            "roof_ms": round(bound_ms, 4), "lost_ms": round(ms - bound_ms, 4),
            "bound": "compute" if compute else "memory",
        })
    return sorted(rows, key=lambda r: -r["lost_ms"])


def plot_roofline(rows_by_build: dict[str, list[dict]], roof: dict, title: str = ""):
    """A log-log roofline figure: roofs from ``roof``, one point per kernel with FLOPs, one colour
    per build. Returns the matplotlib figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5))
    peak, bw = roof["peak_gflops"], roof["bandwidth_gbs"]
    xs = np.logspace(-2, 3, 200)
    ax.plot(xs, np.minimum(peak, xs * bw), "k-", lw=2, label=f"roof: {peak:.0f} GFLOP/s, {bw:.1f} GB/s")
    sgemm = roof.get("sgemm_gflops")
    if sgemm:
        ax.axhline(sgemm, color="grey", ls="--", lw=1, label=f"NumPy sgemm {sgemm:.0f} GFLOP/s")
    colours = ["tab:red", "tab:blue", "tab:green", "tab:orange"]
    for (label, rows), c in zip(rows_by_build.items(), colours):
        pts = [(r["intensity"], r["gflops"], r["ms"]) for r in rows
               if r["intensity"] and r["gflops"] > 0]
        if not pts:
            continue
        x, y, ms = map(np.asarray, zip(*pts))
        size = 15 + 200 * ms / ms.max()
        ax.scatter(x, y, s=size, c=c, alpha=0.6, edgecolors="k", linewidths=0.3,
                   label=f"{label} ({len(pts)} kernels; size = time)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / byte of buffer parameters)")
    ax.set_ylabel("GFLOP/s (1 thread)")
    ax.set_title(title or "Roofline")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def roofline(model: str, builds: dict[str, tuple], *, roof: dict | None = None,
             repeats: int | dict[str, int] = 3, host_check_s: float | None = None,
             name: str | None = None, write: bool = True, progress: bool = False) -> dict:
    """Profile several builds of one model and write the per-kernel table and the roofline plot.

    Args:
        model: model name for titles and file names (``resnet50``, ``bert``, ...).
        builds: ``{label: (vm, args, kernel_mod)}``: a ``relax.VirtualMachine`` (or
            ``build.VMRunner``), the arguments of ``main`` (``VMRunner.args``) and the IRModule
            whose PrimFuncs give FLOPs and bytes (:func:`kernel_infos`), e.g.
            ``{"untuned": (run.runner, run.runner.args, passes.fused_mod),
            "tuned": (runner, runner.args, tuning.tasks.fuse_for_tasks(bound, target))}``.
        roof: a roof dict (default ``common.roof.cached_roof()``, else measured now, briefly).
        repeats: instrumented runs per build, or ``{label: runs}`` (the untuned ResNet-50 takes ~8 s a run,
            the tuned one ~0.06 s, so a tuned build can afford the runs that steady its per-kernel medians).
        host_check_s: re-measure the FMA peak for about this many seconds before and after the profiling
            (:func:`common.roof.host_check`), given in the table's environment as ``host_speed``; ``None``: no check.
        name: file stem (default ``roofline_<model>``); the plot is ``<name>.png``.
        write: write ``results/lab02/<name>.{md,csv,json,png}``.
    Returns:
        ``{"rows": all kernel rows (every build, each sorted by lost_ms), "summary": one row per
        build (whole_ms, kernel_sum_ms, kernels, flop share at >= 70 % of peak ...), "paths"}``.
    Raises:
        UserError: ``builds`` is empty, or ``repeats`` is a dict without a count for one of them.
    """
    from common import roof as roof_mod
    from common.results import save_plot, write_table
    from common.timing import environment

    if not builds:
        raise UserError("roofline needs at least one build: {label: (vm, args, kernel_mod)}")
    roof = roof or roof_mod.cached_roof() or roof_mod.measure_roof(2.0, 1.0)
    runs = repeats if isinstance(repeats, dict) else dict.fromkeys(builds, repeats)
    if missing := sorted(set(builds) - set(runs)):
        raise UserError(f"roofline repeats name no count for build(s) {', '.join(missing)}: give one per build")
    with roof_mod.host_speed(host_check_s, roof) as host:
        by_build, summary = _profile_builds(model, builds, runs, roof, progress)
    all_rows = [r for rows in by_build.values() for r in rows]
    paths = {}
    if write:
        stem = name or f"roofline_{model}"
        env = environment(threads=1, roof=roof_mod.roof_env(roof), machine_note="timings at 1 thread",
                          **host)
        notes = ("Per kernel: time = median over runs of its summed calls (Relax VM instrument hook); "
                 "FLOPs = estimate_tir_flops of the unscheduled PrimFunc; bytes = its buffer parameters "
                 "(inputs + outputs once); roof_ms = max(FLOPs / FMA peak, bytes / bandwidth); "
                 "lost_ms = ms - roof_ms; rows sorted by lost_ms within each build.\n\n"
                 "Per build:\n\n" + _md(summary))
        paths = write_table(LAB, stem, all_rows, title=f"Roofline per kernel: {model}", notes=notes, env=env)
        fig = plot_roofline(by_build, roof, title=f"{model}: kernels under the roof (1 thread)")
        paths["png"] = save_plot(fig, LAB, stem)
    return {"rows": all_rows, "summary": summary, "paths": paths}


def _profile_builds(model: str, builds: dict, runs: dict, roof: dict, progress: bool) -> tuple[dict, list]:
    """``({label: kernel rows}, [summary row per build])``: each build profiled ``runs[label]`` times."""
    from common import roof as roof_mod
    from common.timing import tvm_threads
    by_build, summary = {}, []
    for label, (vm, args, kmod) in builds.items():
        if progress:
            print(f"  profiling {model} {label} ({runs[label]} runs)", flush=True)
        with tvm_threads(1):
            prof = profile_vm(vm, args, repeats=runs[label])
        rows = kernel_rows(prof, kernel_infos(kmod), roof, label=label)
        by_build[label] = rows
        total_flops = sum((r["mflop"] or 0) for r in rows) * 1e6
        near = sum((r["mflop"] or 0) for r in rows if r["pct_peak"] >= 70) * 1e6
        summary.append({
            "model": model, "build": label, "whole_ms": round(prof["whole_ms"], 3),
            "kernel_sum_ms": round(prof["kernel_sum_ms"], 3),
            "kernel_sum_frac": round(prof["sum_frac"], 3),
            "kernels": len(rows), "gflop": round(total_flops / 1e9, 3),
            "gflops": round(roof_mod.gflops(total_flops, prof["whole_ms"]), 2),
            "pct_peak": round(100 * roof_mod.gflops(total_flops, prof["whole_ms"]) / roof["peak_gflops"], 1),
            "roof_ms": round(sum(r["roof_ms"] for r in rows), 3),
            "lost_ms": round(sum(r["lost_ms"] for r in rows), 3),
            "flop_share_at_70pct_peak": round(near / total_flops, 3) if total_flops else None,
            "repeats": runs[label],
        })
    return by_build, summary


def _md(rows: list[dict]) -> str:
    from common.gates import rows_to_markdown
    return rows_to_markdown(rows)


