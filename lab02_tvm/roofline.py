"""Roofline of a built Relax model: every kernel's FLOPs, bytes and measured time under the roof.

The Relax VM of TVM 0.27 has no ``profile=True`` (``tvm/runtime/vm.py``: the ``VirtualMachine``
constructor takes an executable, devices and a memory config only); it has an *instrument hook*,
``vm.set_instrument(f)``, called before and after every ``Call`` instruction as
``f(func, func_symbol, before_run, ret_value, *args)`` (return 0 = run normally). This module
times each call between its "before" and "after" callbacks (``perf_counter``; the callback's own
cost, a few microseconds, is inside every kernel's time and is reported as the difference
between the kernel sum and an un-instrumented whole-model run).

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

import json
import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from common.errors import UserError

LAB = "lab02"
#: Fraction by which the instrumented kernel sum may differ from the whole-model run (tests).
SUM_TOLERANCE = 0.25


@dataclass
class KernelInfo:
    """Static facts of one PrimFunc: FLOPs per call and bytes of its buffer parameters."""

    name: str
    flops: float
    nbytes: int


def kernel_infos(mod) -> dict[str, KernelInfo]:
    """``{PrimFunc name: KernelInfo}`` for every TIR function of ``mod``.

    Args:
        mod: an IRModule holding the kernels as TIR PrimFuncs (e.g. the fused module the build
            compiled: ``relax_import.run_standard_passes(...).fused_mod`` or
            ``tuning.fuse_for_tasks(bound_mod, target)``).
    Returns:
        FLOPs from ``estimate_tir_flops`` (float, per call) and bytes = sum over buffer parameters
        of ``prod(shape) * itemsize`` (shapes must be static; dynamic ones count 0).
    """
    import tvm
    from tvm.s_tir.analysis import estimate_tir_flops

    out = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        try:
            flops = float(estimate_tir_flops(tvm.IRModule({"main": func})))
        except Exception:  # noqa: BLE001 - some extern/opaque kernels cannot be estimated
            flops = float("nan")
        nbytes = 0
        for p in func.params:
            shape = getattr(p, "shape", None)
            if shape is None:
                continue
            try:
                dims = [int(d) for d in shape]
            except TypeError:
                continue
            nbytes += int(np.prod(dims, dtype=np.int64)) * np.dtype(str(p.dtype)).itemsize
        out[gv.name_hint] = KernelInfo(gv.name_hint, flops, nbytes)
    return out


def _is_kernel(symbol: str) -> bool:
    return not symbol.startswith("vm.")


def profile_vm(vm, args: Sequence[Any], *, func: str = "main", repeats: int = 3) -> dict:
    """Time every kernel call of ``vm[func](*args)`` with the VM's instrument hook.

    Args:
        vm: a ``relax.VirtualMachine`` (or anything with ``.vm``, e.g. ``build.VMRunner``).
        args: the arguments of ``func`` (TVM tensors).
        repeats: instrumented runs (after one warm-up run); also the un-instrumented runs timed.
    Returns:
        ``{"kernels": {name: {"calls": per run, "ms": median over runs of the summed time,
        "arg_bytes": bytes of the runtime arguments of one call}}, "kernel_sum_ms": median of
        the per-run sums, "whole_ms": median un-instrumented run, "sum_frac": fastest kernel
        sum / fastest plain run (rounds interleave one plain and one instrumented run; on a shared
        machine noise only slows a run, so the fastest of each is the stable pair), "repeats"}``.
    """
    vm = getattr(vm, "vm", vm)
    main = vm[func]
    main(*args)
    whole: list[float] = []
    per_run: list[dict[str, float]] = []
    calls: dict[str, int] = defaultdict(int)
    arg_bytes: dict[str, int] = {}
    state: dict = {}

    def instrument(_f, symbol, before, _ret, *a):
        now = time.perf_counter()
        if not _is_kernel(symbol):
            return 0
        if before:
            if symbol not in arg_bytes:
                arg_bytes[symbol] = int(sum(int(np.prod(x.shape, dtype=np.int64)) * np.dtype(str(x.dtype)).itemsize
                                            for x in a if hasattr(x, "shape") and hasattr(x, "dtype")))
            state["t"] = time.perf_counter()
        else:
            state["run"][symbol] += now - state["t"]
            if state["first"]:
                calls[symbol] += 1
        return 0

    try:
        for r in range(repeats):  # interleaved: a plain run, then an instrumented one
            _clear_instrument(vm)
            t0 = time.perf_counter()
            main(*args)
            whole.append(time.perf_counter() - t0)
            vm.set_instrument(instrument)
            state.update(run=defaultdict(float), first=r == 0)
            main(*args)
            per_run.append(dict(state["run"]))
    finally:
        _clear_instrument(vm)
    kernels = {n: {"calls": calls[n], "ms": 1e3 * float(np.median([run.get(n, 0.0) for run in per_run])),
                   "arg_bytes": arg_bytes.get(n, 0)} for n in calls}
    sums = [sum(r.values()) for r in per_run]
    return {"kernels": kernels, "kernel_sum_ms": 1e3 * float(np.median(sums)),
            "whole_ms": 1e3 * float(np.median(whole)),
            "sum_frac": float(min(sums) / min(whole)), "repeats": repeats}


def _clear_instrument(vm) -> None:
    """Remove the hook (``None``); where the FFI refuses ``None``, a no-op hook."""
    try:
        vm.set_instrument(None)
    except Exception:  # noqa: BLE001 - the FFI may reject None
        vm.set_instrument(lambda *a: 0)


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
        info = infos.get(name) or infos.get(name.removesuffix("_prepacked"))  # weight layout rewrite's name
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


def roofline(model: str, builds: dict[str, tuple], *, roof: dict | None = None, repeats: int = 3,
             name: str | None = None, write: bool = True, progress: bool = False) -> dict:
    """Profile several builds of one model and write the per-kernel table and the roofline plot.

    Args:
        model: model name for titles and file names (``resnet50``, ``bert``, ...).
        builds: ``{label: (vm, args, kernel_mod)}``: a ``relax.VirtualMachine`` (or
            ``build.VMRunner``), the arguments of ``main`` (``VMRunner.args``) and the IRModule
            whose PrimFuncs give FLOPs and bytes (:func:`kernel_infos`), e.g.
            ``{"untuned": (run.runner, run.runner.args, passes.fused_mod),
            "tuned": (runner, runner.args, tuning.fuse_for_tasks(bound, target))}``.
        roof: a roof dict (default ``common.roof.cached_roof()``, else measured now, briefly).
        repeats: instrumented runs per build (the untuned ResNet-50 takes ~8 s a run).
        name: file stem (default ``roofline_<model>``); the plot is ``<name>.png``.
        write: write ``results/lab02/<name>.{md,csv,json,png}``.
    Returns:
        ``{"rows": all kernel rows (every build, each sorted by lost_ms), "summary": one row per
        build (whole_ms, kernel_sum_ms, kernels, flop share at >= 70 % of peak ...), "paths"}``.
    Raises:
        UserError: ``builds`` is empty.
    """
    from common import roof as roof_mod
    from common.results import save_plot, write_table
    from common.timing import environment, tvm_threads

    if not builds:
        raise UserError("roofline needs at least one build: {label: (vm, args, kernel_mod)}")
    roof = roof or roof_mod.cached_roof() or roof_mod.measure_roof(2.0, 1.0)
    by_build, summary = {}, []
    for label, (vm, args, kmod) in builds.items():
        if progress:
            print(f"  profiling {model} {label} ({repeats} runs)", flush=True)
        with tvm_threads(1):
            prof = profile_vm(vm, args, repeats=repeats)
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
            "repeats": repeats,
        })
    all_rows = [r for rows in by_build.values() for r in rows]
    paths = {}
    if write:
        stem = name or f"roofline_{model}"
        env = environment(threads=1, roof={k: roof.get(k) for k in ("peak_gflops", "sgemm_gflops",
                                                                        "bandwidth_gbs", "date")},
                          machine_note="shared 2-core machine; timings at 1 thread")
        notes = ("Per kernel: time = median over runs of its summed calls (Relax VM instrument hook); "
                 "FLOPs = estimate_tir_flops of the unscheduled PrimFunc; bytes = its buffer parameters "
                 "(inputs + outputs once); roof_ms = max(FLOPs / FMA peak, bytes / bandwidth); "
                 "lost_ms = ms - roof_ms; rows sorted by lost_ms within each build.\n\n"
                 "Per build:\n\n" + _md(summary))
        paths = write_table(LAB, stem, all_rows, title=f"Roofline per kernel: {model}", notes=notes, env=env)
        fig = plot_roofline(by_build, roof, title=f"{model}: kernels under the roof (1 thread)")
        paths["png"] = save_plot(fig, LAB, stem)
    return {"rows": all_rows, "summary": summary, "paths": paths}


def _md(rows: list[dict]) -> str:
    from common.gates import rows_to_markdown
    return rows_to_markdown(rows)


# ---------------------------------------------------------------------------------------------
# CLI: untuned and tuned-from-records builds of one model
# ---------------------------------------------------------------------------------------------
def model_builds(im, *, work_dir=None, untuned: bool = True, progress: bool = True,
                 choice=None) -> tuple[dict, dict]:
    """Build an imported model untuned and (when ``work_dir`` holds records) tuned, both gated.

    Args:
        im: :class:`lab02_tvm.relax_import.ImportedModel` (its PyTorch outputs are the reference).
        work_dir: a MetaSchedule database folder or ``None``; tuned with this host's target and the
            plain method (:data:`lab02_tvm.method.PLAIN`) unless ``choice`` says otherwise.
        untuned: also build the untuned (``LegalizeOps`` + fusion, no schedule) version.
        choice: a :class:`lab02_tvm.records.Choice` (``records.choose``): its ``work_dir``, build
            target and method are used (its records are built as they were tuned).
    Returns:
        ``(builds, notes)``: ``{"untuned": (VMRunner, args, fused_mod), "tuned": (...)}``, the form
        :func:`roofline` takes (a ``VMRunner`` is also a zero-argument callable for peers), and
        ``{"tuned": "k/n kernels from <work_dir>"}``.
    Raises:
        common.gates.GateError: a build's outputs differ from PyTorch (``build.gate_for``).
    """
    from common.cli import step

    from . import tuning
    from .build import VMRunner, build_and_check, gate_outputs, host_target
    from .method import PLAIN
    from .relax_import import run_standard_passes, tuning_module

    target = {**host_target(), "num-cores": 1}
    method, tuned_target = PLAIN, target
    if choice is not None:
        work_dir, method, tuned_target = choice.work_dir, choice.method, choice.build_target
    builds, notes = {}, {}
    if untuned:
        passes = run_standard_passes(im.mod)
        run = build_and_check(im, passes.fused_mod, target, stage="tvm_untuned")
        builds["untuned"] = (run.runner, run.runner.args, passes.fused_mod)
        if progress:
            step(2, "untuned", f"{im.name}: built and gated ({run.build_s:.0f} s)")
    if work_dir is not None and tuning.database_paths(work_dir)[1].is_file():
        bound = method.module(tuning_module(im))
        tb = tuning.build_from_database(bound, tuned_target, work_dir, layout_rewrite=method.layout_rewrite)
        runner = VMRunner(tb.executable, im, with_params=False)
        gate_outputs(im, runner.outputs(), stage="tvm_tuned")
        builds["tuned"] = (runner, runner.args, tuning.fuse_for_tasks(bound, tuned_target, method.layout_rewrite))
        notes["tuned"] = (f"{tb.kernels_tuned}/{tb.kernels_total} kernels from "
                          f"{choice.label() if choice is not None else _rel(work_dir)}")
        if progress:
            step(2, "tuned", f"{im.name}: built and gated, {notes['tuned']}")
    return builds, notes


def _rel(path) -> str:
    """``path`` relative to the repository when inside it (for tables), else as given."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    p = Path(path).resolve()
    return str(p.relative_to(root)) if p.is_relative_to(root) else str(path)


def _shipped(model: str):
    """The shipped records of ``model`` usable on this host (``records.choose``), else ``None`` (printed why)."""
    from .build import host_target
    from .records import choose
    ch = choose(model, {**host_target(), "num-cores": 1})
    if not ch.shipped:
        print(f"  no tuned build: {ch.line.split(': tuning from scratch')[0]}")
    return ch if ch.shipped else None


def lost_ms_by_kernel(path: str | os.PathLike, build: str = "tuned") -> dict[str, float]:
    """``{kernel: ms above the roof}`` of one build from a roofline table (``roofline_<model>.json``).

    Raises:
        UserError: the file is missing, does not parse, or has no row of ``build``.
    """
    try:
        rows = json.loads(Path(path).read_text())["rows"]
    except (OSError, ValueError, KeyError) as exc:
        raise UserError(f"cannot read the roofline table {path}: {exc}; run python -m lab02_tvm.roofline first") from None
    out = {r["kernel"]: float(r["lost_ms"]) for r in rows if r.get("build") == build}
    if not out:
        raise UserError(f"{path} has no '{build}' rows")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.roofline --model resnet50``: profile, table, plot."""
    from common.cli import parser, positive, step
    from common.models import MODEL_NAMES
    p = parser("python -m lab02_tvm.roofline", __doc__, steps=["untuned"],
               quick="test-size model, 1 run per build")
    p.add_argument("--model", default="resnet50", choices=MODEL_NAMES)
    p.add_argument("--repeats", type=int, default=None, help="instrumented runs per build (default 3)")
    p.add_argument("--work-dir", default=None,
                   help="tuning database for the tuned build (default: the shipped records for this host, "
                        "lab02_tvm.records.choose)")
    args = p.parse_args(argv)
    positive("--repeats", args.repeats)
    choice = None if args.work_dir else _shipped(args.model)
    wd = args.work_dir or (choice.work_dir if choice else None)
    step(1, "build", f"{args.model}: untuned{'' if 'untuned' not in args.skip else ' (skipped)'}"
                     f" + tuned from {choice.line if choice else wd}")
    from common.models import build_model

    from .relax_import import import_torch
    small = {"small": True} if args.quick and args.model != "llama_tiny" else {}
    im = import_torch(build_model(args.model, **small))
    builds, _ = model_builds(im, work_dir=None if args.quick else wd, untuned="untuned" not in args.skip,
                             choice=None if args.quick else choice)
    if not builds:
        raise UserError(f"nothing to profile: untuned skipped and no tuning database in {wd}")
    res = roofline(args.model, builds, repeats=args.repeats or (1 if args.quick else 3),
                   name=f"roofline_{args.model}" + ("_quick" if args.quick else ""), progress=True)
    for s in res["summary"]:
        step(3, "roofline", f"{s['build']}: {s['whole_ms']} ms, {s['gflops']} GFLOP/s ({s['pct_peak']}% of peak), "
                            f"{s['lost_ms']} ms above the roof; kernel sum {s['kernel_sum_frac']:.2f} of the run")
    step(4, "write", ", ".join(str(v) for v in res["paths"].values()))
    return 0


if __name__ == "__main__":
    from common.errors import run_cli
    raise SystemExit(run_cli(main))
