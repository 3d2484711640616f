"""Lab 02 pipeline: PyTorch / ONNX → Relax → TIR → MetaSchedule → native code (``python -m lab02_tvm.pipeline``).

Steps (one function each, called in order from :func:`main`; each prints one line and checks a gate):

1. import ResNet-50 / BERT-base (torch.export → Relax) and Lab 01's LLaMA-tiny ONNX (from_onnx, gated
   against ONNX Runtime);
2. struct info / well-formedness summary;
3. standard Relax passes with a before/after counts table;
4. untuned build for the host CPU (``llvm`` + host ``mcpu``), gated against PyTorch (1e-4 of the
   output scale); the ``cuda`` path, skipped with the reason when there is no GPU;
5. manual schedule of the hottest kernel (naive vs manual vs tuned) — :mod:`lab02_tvm.schedules`;
6. MetaSchedule tuning and build from the database — :mod:`lab02_tvm.tuning`;
7. comparison table + plot: PyTorch eager vs TVM untuned vs TVM tuned;
8. cross-compile for AArch64 Cortex-A55, ELF check;
9. tuning over an RPC tracker on loopback — :mod:`lab02_tvm.rpc`;
10. extension: the custom TIR loop-reordering pass in the lowering pipeline, measured.

Timings: 1 thread by default (``--threads``), PyTorch eager and TVM tuned interleaved in one run.
Untuned TVM runs naive single-threaded loops (ResNet-50 ~4 s, BERT-base ~25 s per inference), so
its repeats are tiny (``--untuned-repeats``, default 2 for ResNet-50 and 1 for BERT-base); those
numbers are a baseline, not a benchmark.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from collections.abc import Sequence

from common.budget import ci, pick
from common.errors import UserError, run_cli

from . import LAB

MODELS = ("resnet50", "bert")
#: default MetaSchedule trials per model (shallow over all tasks, then deep on the hottest);
#: sized so that `make run` (all labs) stays within ~30 minutes on 2 cores: measured ~1 s per
#: trial on a quiet machine (768 + 384 planned, 506 + 220 run within the caps: 21.5 min for the whole
#: Lab 02 run); the minute caps
#: bound the tuning when a loaded machine makes trials several times slower.
DEFAULT_TRIALS = {"resnet50": 768, "bert": 384}
DEFAULT_TUNE_MINUTES = {"resnet50": 12.0, "bert": 6.0}
UNTUNED_REPEATS = {"resnet50": 2, "bert": 1}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one ``UserError`` line (``run_cli`` prints it, exit 2)."""

    def error(self, message: str):
        raise UserError(f"{message} (see --help)")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command line: ``--model``, ``--trials``, ``--tune-minutes``, ``--threads``, ``-v``, skips.

    Raises:
        UserError: an unknown option or choice, or a budget/count below its minimum.
    """
    p = _Parser(prog="python -m lab02_tvm.pipeline", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="steps:\n" + __doc__.split("\n\n")[2])
    p.add_argument("--model", default="all", choices=[*MODELS, "all"], help="model(s) to compile (default: all)")
    p.add_argument("--trials", type=int, default=None,
                   help=f"MetaSchedule trials per model (default: resnet50 {DEFAULT_TRIALS['resnet50']}, "
                        f"bert {DEFAULT_TRIALS['bert']}; CI: 16)")
    p.add_argument("--tune-minutes", type=float, default=None,
                   help="wall-clock cap on tuning per model, minutes (default: resnet50 "
                        f"{DEFAULT_TUNE_MINUTES['resnet50']:g}, bert {DEFAULT_TUNE_MINUTES['bert']:g})")
    p.add_argument("--threads", type=int, default=1, help="threads for PyTorch and TVM timings (default 1)")
    p.add_argument("--untuned-repeats", type=int, default=None,
                   help="timed runs of the untuned build (default: resnet50 2, bert 1; each takes seconds)")
    p.add_argument("--repeats", type=int, default=None, help="timed rounds for eager vs tuned (default 20; CI 5)")
    p.add_argument("--skip-tuning", action="store_true", help="skip steps 5, 6 and 9 (no MetaSchedule)")
    p.add_argument("--skip-onnx", action="store_true", help="skip the LLaMA-tiny ONNX import of step 1")
    p.add_argument("--small", action="store_true",
                   help="reduced configs for a quick check (BERT 2 layers/128 hidden, ResNet depths 1-1-1-1 at 64x64)")
    p.add_argument("-v", "--verbose", action="store_true", help="print the IR at each stage")
    args = p.parse_args(argv)
    if args.trials is not None and args.trials < 1:
        raise UserError(f"--trials must be >= 1 (got {args.trials})")
    if args.tune_minutes is not None and args.tune_minutes <= 0:
        raise UserError(f"--tune-minutes must be > 0 (got {args.tune_minutes})")
    if args.threads < 1:
        raise UserError(f"--threads must be >= 1 (got {args.threads})")
    if args.untuned_repeats is not None and args.untuned_repeats < 1:
        raise UserError(f"--untuned-repeats must be >= 1 (got {args.untuned_repeats})")
    if args.repeats is not None and args.repeats < 1:
        raise UserError(f"--repeats must be >= 1 (got {args.repeats})")
    return args


def budgets(args: argparse.Namespace, model: str) -> dict:
    """Effective budgets for one model: command line, else defaults, shrunk under ``CI=true``.

    Returns:
        ``{"trials": MetaSchedule trials, "tune_minutes": wall-clock cap (minutes),
        "untuned_repeats": timed untuned runs, "repeats": timed eager/tuned rounds}``.
    """
    return {
        "trials": args.trials or pick(DEFAULT_TRIALS[model], 16),
        "tune_minutes": args.tune_minutes or pick(DEFAULT_TUNE_MINUTES[model], 1.0),
        "untuned_repeats": args.untuned_repeats or pick(UNTUNED_REPEATS[model], 1),
        "repeats": args.repeats or pick(20, 5),
    }


def _env(args, **extra) -> dict:
    from common.timing import environment
    return environment(threads=args.threads, **extra)


# ---------------------------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------------------------

def step1_import(bundles: dict, verbose: bool) -> dict:
    """Step 1: import each model (common.models, batch 1) into Relax via torch.export."""
    from .relax_import import import_torch
    ims = {}
    for name, bundle in bundles.items():
        im = import_torch(bundle, verbose=verbose)
        ims[name] = im
        print(f"[1] import   {name}: torch.export + from_exported_program in {im.import_s:.1f} s, "
              f"{len(im.params)} weight tensors, inputs {', '.join(f'{k}{list(v.shape)}' for k, v in im.inputs.items())}")
    return ims


def step1_onnx(target: dict, verbose: bool) -> dict:
    """Step 1b: Lab 01's LLaMA-tiny ONNX → Relax (from_onnx) → build → gate against ONNX Runtime."""
    from common.models import build_llama_tiny
    from .build import build_and_check
    from .relax_import import import_onnx, lab01_llama_onnx, summarize
    path, note = lab01_llama_onnx()
    im = import_onnx(path, build_llama_tiny().numpy_inputs(), name="llama_tiny_onnx", verbose=verbose)
    run = build_and_check(im, im.mod, target, stage="tvm_from_onnx")  # raises GateError on mismatch
    s = summarize(im)
    print(f"[1] import   llama_tiny ONNX ({note}; {im.meta['note']}): {s['relax_ops']} Relax ops; TVM vs ONNX Runtime "
          f"max |Δ| {run.errors['max_abs']:.2e} ({run.errors['rel_to_scale']:.1e} of scale) — gate 1e-4 ok")
    return {**s, "source": str(path), "note": f"{note}; {im.meta['note']}", "build_s": round(run.build_s, 2),
            "max_abs": run.errors["max_abs"], "rel_to_scale": run.errors["rel_to_scale"],
            "reference": "onnxruntime"}


def step2_struct_info(ims: dict) -> list[dict]:
    """Step 2: every binding typed (shape + dtype), ``well_formed`` holds; ops / params / bytes."""
    from .relax_import import summarize
    rows = []
    for name, im in ims.items():
        s = summarize(im)
        print(f"[2] types    {name}: well_formed={s['well_formed']}, untyped bindings {s['untyped_bindings']}, "
              f"{s['relax_ops']} ops ({s['top_ops']}), {s['params']} weights = {s['param_bytes'] / 2**20:.1f} MiB")
        if not s["well_formed"] or s["untyped_bindings"]:
            raise AssertionError(f"{name}: Relax module not well formed or has untyped bindings")
        rows.append({**s, "import_s": round(im.import_s, 2), "reference": im.reference_name})
    return rows


def step3_passes(ims: dict, verbose: bool) -> dict:
    """Step 3: standard Relax passes; table of Relax ops / functions / TIR PrimFuncs after each."""
    from common.results import write_table
    from .relax_import import run_standard_passes
    results, rows = {}, []
    for name, im in ims.items():
        pr = run_standard_passes(im.mod, verbose=verbose, progress=True)
        results[name] = pr
        rows += [{"model": name, **r} for r in pr.rows]
        legal = next(r for r in pr.rows if r["stage"] == "LegalizeOps")
        final = pr.rows[-1]
        print(f"[3] passes   {name}: {pr.rows[0]['main_calls']} Relax op calls → {legal['call_tir']} call_tir into "
              f"{legal['tir_primfuncs']} PrimFuncs after LegalizeOps → {final['call_tir']} calls into "
              f"{final['tir_primfuncs']} fused PrimFuncs after FuseTIR ({sum(r['seconds'] for r in pr.rows):.1f} s)")
        if not final["tir_primfuncs"] < legal["tir_primfuncs"] or not final["call_tir"] < legal["call_tir"]:
            raise AssertionError(f"{name}: FuseOps/FuseTIR fused nothing")
    write_table(LAB, "relax_passes", rows, title="Lab 02 step 3: Relax passes, counts after each",
                notes="main_calls: calls executed by main (operators, call_tir, fused functions); call_tir: "
                      "calls into TIR kernels in main; relax_ops: operator calls in all Relax functions "
                      "(fused groups included); relax_functions: FuseOps groups before FuseTIR; "
                      "tir_primfuncs: TIR kernels in the module.")
    return results


def step4_untuned(ims: dict, passes: dict, target: dict, args) -> dict:
    """Step 4: untuned build of the fused module, Relax VM run, gate vs PyTorch, tiny timing."""
    from common.results import write_table
    from common.timing import TimingStats, measure
    from .build import REL_TOL, build_and_check, build_cuda, cuda_reason
    out, rows = {}, []
    for name, im in ims.items():
        run = build_and_check(im, passes[name].fused_mod, target, stage="tvm_untuned")
        reps = budgets(args, name)["untuned_repeats"]
        more = measure(run.runner, warmup=0, repeats=reps - 1).samples_ms if reps > 1 else []
        stats = TimingStats.from_samples([s / 1e3 for s in [run.first_run_ms, *more]])
        out[name] = {"run": run, "stats": stats}
        e = run.errors
        print(f"[4] untuned  {name}: tvm.compile {run.build_s:.1f} s, {stats.median_ms:.0f} ms/inference "
              f"(n={stats.n}, naive loops); vs PyTorch max |Δ| {e['max_abs']:.2e} = {e['rel_to_scale']:.1e} "
              f"of max|ref| {e['max_ref']:.3g} — gate {REL_TOL:g} ok")
        rows.append({"model": name, "target": str(target), "build_s": round(run.build_s, 2),
                     "median_ms": round(stats.median_ms, 1), "n": stats.n, "max_abs": e["max_abs"],
                     "max_ref": e["max_ref"], "rel_to_scale": e["rel_to_scale"], "gate": f"{REL_TOL:g}·max|ref|"})
    reason = cuda_reason()
    if reason:
        print(f"[4] cuda     skipped: {reason}")
        rows.append({"model": "all", "target": "cuda", "note": f"skipped: {reason}"})
    else:
        for name, im in ims.items():
            run = build_cuda(im, passes[name].fused_mod)
            print(f"[4] cuda     {name}: build {run.build_s:.1f} s, first run {run.first_run_ms:.1f} ms, "
                  f"rel err {run.errors['rel_to_scale']:.1e} — gate ok")
            rows.append({"model": name, "target": "cuda", "build_s": round(run.build_s, 2),
                         "median_ms": round(run.first_run_ms, 1), "n": 1, "max_abs": run.errors["max_abs"],
                         "max_ref": run.errors["max_ref"], "rel_to_scale": run.errors["rel_to_scale"],
                         "gate": f"{REL_TOL:g}·max|ref|"})
    write_table(LAB, "untuned", rows, title="Lab 02 step 4: untuned build vs PyTorch", env=_env(args),
                notes="Untuned TIR = naive single-threaded loop nests; n is tiny on purpose (seconds per run).")
    return out


def step5_manual_schedule(ims: dict, bound: dict, target: dict, args) -> list[dict]:
    """Step 5: naive vs hand-scheduled vs tuned for the hottest kernel (:mod:`lab02_tvm.schedules`).

    The tuned point is tuned into the model's database (``results/lab02/tuning/<model>``), so step 6
    counts those trials toward the kernel's plan instead of repeating them.
    """
    from common.results import results_dir, write_table
    from . import schedules
    rows = []
    for name in ims:
        r = schedules.run_three_point(bound[name], target, tuned_work_dir=results_dir(LAB) / "tuning" / name,
                                      verbose=args.verbose, threads=args.threads)
        by = {row["schedule"]: row for row in r}
        line = ", ".join(f"{k} {v['median_ms']:.3f} ms ({v['speedup_vs_naive']:.1f}x)" for k, v in by.items())
        print(f"[5] schedule {name}: hottest kernel {r[0]['kernel']} ({r[0]['share_pct']:.1f}% of FLOPs): {line} "
              f"— outputs match naive")
        rows += [{"model": name, **row} for row in r]
    write_table(LAB, "manual_schedule", rows, title="Lab 02 step 5: hottest kernel, naive vs manual vs tuned",
                env=_env(args))
    return rows


def step6_tune(ims: dict, bound: dict, target: dict, args) -> dict:
    """Step 6: MetaSchedule tuning (budgeted), database under results/lab02/tuning/<model>, tuned build."""
    from common.results import results_dir, write_table
    from . import tuning
    from .build import VMRunner, error_summary, gate_outputs
    out = {}
    for name, im in ims.items():
        mod = bound[name]
        work = results_dir(LAB) / "tuning" / name
        trials, minutes = budgets(args, name)["trials"], budgets(args, name)["tune_minutes"]
        report = tuning.tune(mod, target, work, max_trials_global=trials, tune_minutes=minutes,
                             verbose=args.verbose)
        t0 = time.perf_counter()
        ex = tuning.build_tuned(mod, target, work)
        build_s = time.perf_counter() - t0
        runner = VMRunner(ex, im, with_params=False)
        runner()
        outs = runner.outputs()
        errors = error_summary(im.reference, outs)
        gate_outputs(im, outs, stage="tvm_tuned")
        out[name] = {"report": report, "runner": runner, "build_s": build_s, "errors": errors,
                     "trials": trials, "minutes": minutes}
        print(f"[6] tune     {name}: {report.line()}; tuned build {build_s:.1f} s, "
              f"rel err {errors['rel_to_scale']:.1e} — gate ok")
        write_table(LAB, f"tuning_{name}", report.tasks, title=f"Lab 02 step 6: MetaSchedule tasks, {name}",
                    meta={**report.summary(), "target": target}, env=_env(args))
    return out


def step7_compare(bundles: dict, ims: dict, untuned: dict, tuned: dict, kernel_rows: list[dict], args) -> list[dict]:
    """Step 7: PyTorch eager vs TVM untuned vs TVM tuned — table (median, p90, speedups) and plot.

    The step-5 rows of the hottest kernel (naive / manual / tuned) join the table with
    ``scope="hottest kernel"``; their ``speedup_vs_untuned`` is the speedup over the naive kernel.
    """
    import torch
    from common.results import write_table
    from common.timing import interleaved
    rows = []
    for name, im in ims.items():
        feed = {k: torch.from_numpy(v) for k, v in im.inputs.items()}
        model = bundles[name].model

        def eager(model=model, feed=feed):
            with torch.no_grad():
                return model(**feed)

        fns = {"pytorch_eager": eager}
        if name in tuned:
            fns["tvm_tuned"] = tuned[name]["runner"]
        stats = interleaved(fns, warmup=3, repeats=budgets(args, name)["repeats"], progress=True)
        stats["tvm_untuned"] = untuned[name]["stats"]
        eager_ms, untuned_ms = stats["pytorch_eager"].median_ms, stats["tvm_untuned"].median_ms
        for variant in ("pytorch_eager", "tvm_untuned", "tvm_tuned"):
            if variant not in stats:
                continue
            s = stats[variant]
            rows.append({"model": name, "scope": "model", "variant": variant, "median_ms": round(s.median_ms, 3),
                         "p90_ms": round(s.p90_ms, 3), "n": s.n,
                         "speedup_vs_eager": round(eager_ms / s.median_ms, 3),
                         "speedup_vs_untuned": round(untuned_ms / s.median_ms, 3),
                         "trials": tuned[name]["report"].trials_in_db if variant == "tvm_tuned" else 0,
                         "tuning_minutes": round(tuned[name]["report"].minutes, 2) if variant == "tvm_tuned" else 0.0})
        line = ", ".join(f"{r['variant']} {r['median_ms']:.1f} ms" for r in rows if r["model"] == name)
        print(f"[7] compare  {name}: {line}")
        for k in (k for k in kernel_rows if k["model"] == name):
            rows.append({"model": name, "scope": f"hottest kernel {k['kernel']}", "variant": f"kernel_{k['schedule']}",
                         "median_ms": k["median_ms"], "p90_ms": k["p90_ms"], "n": None, "speedup_vs_eager": None,
                         "speedup_vs_untuned": k["speedup_vs_naive"], "trials": k["trials"], "tuning_minutes": None})
    notes = ("pytorch_eager and tvm_tuned are interleaved in one run (ratios comparable); tvm_untuned is "
             "the step-4 timing of naive single-threaded TIR with tiny repeats (n), a baseline only. "
             "kernel_* rows: step 5 (naive / manual / tuned hottest kernel, interleaved; speedup_vs_untuned = "
             "over the naive kernel).")
    write_table(LAB, "compare", rows, title="Lab 02 step 7: PyTorch eager vs TVM untuned vs TVM tuned",
                env=_env(args), meta={"threads": args.threads, "trials": args.trials, "ci": ci()}, notes=notes)
    _plot_compare(rows)
    return rows


def _plot_compare(rows: list[dict]) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from common.results import save_plot
    rows = [r for r in rows if r.get("scope") == "model"]
    models = list(dict.fromkeys(r["model"] for r in rows))
    variants = ["pytorch_eager", "tvm_untuned", "tvm_tuned"]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.8 / len(variants)
    for i, v in enumerate(variants):
        xs, ys = [], []
        for j, m in enumerate(models):
            r = next((r for r in rows if r["model"] == m and r["variant"] == v), None)
            if r:
                xs.append(j + i * width)
                ys.append(r["median_ms"])
        ax.bar(xs, ys, width, label=v)
    ax.set_yscale("log")
    ax.set_xticks([j + width for j in range(len(models))], models)
    ax.set_ylabel("median latency, ms (log)")
    ax.set_title("Lab 02: latency per inference, batch 1")
    ax.legend(fontsize=8)
    return save_plot(fig, LAB, "compare")


def step8_cross(ims: dict, passes: dict, args) -> list[dict]:
    """Step 8: cross-compile each model for AArch64 Cortex-A55; tar always, .so with a cross gcc; ELF check."""
    from common.results import results_dir, write_table
    from .cross import AARCH64_TARGET, cross_compile
    rows = []
    for name in ims:
        res = cross_compile(passes[name].fused_mod, results_dir(LAB) / "cross", name)
        machines = sorted(set(res.machines.values()))
        print(f"[8] cross    {name}: {AARCH64_TARGET['mtriple']}/{AARCH64_TARGET['mcpu']} in {res.build_s:.1f} s → "
              f"{res.tar_path.name} ({res.tar_bytes / 1e3:.0f} kB){', ' + res.so_path.name if res.so_path else ''}; "
              f"ELF machine {machines} — {res.note}")
        rows.append({"model": name, "target": str(AARCH64_TARGET), "build_s": round(res.build_s, 2),
                     "tar_bytes": res.tar_bytes, "so_bytes": res.so_bytes, "elf_machines": ", ".join(machines),
                     "objects": len(res.machines), "note": res.note})
    write_table(LAB, "cross", rows, title="Lab 02 step 8: cross-compilation for AArch64 (Cortex-A55)",
                env=_env(args), notes="Weights are not in the library: they stay runtime inputs of main().")
    return rows


def step9_rpc(bound: dict, target: dict, args) -> dict:
    """Step 9: MetaSchedule tuning of the hottest kernel through an RPC tracker + 2 servers on loopback."""
    from common.results import write_table
    from . import rpc
    name = next(iter(bound))
    res = rpc.tune_over_rpc(bound[name], target, None, n_servers=2, top_k=1)
    print(f"[9] rpc      {name}: tracker :{res['tracker_port']} with {res['servers_registered']}/{res['servers']} "
          f"servers, {res['trials']} trials on {', '.join(res['tasks'])}, {res['measured']} measured over RPC, "
          f"best {res['best_ms'] or float('nan'):.3f} ms, {res['seconds']:.0f} s; cleaned up: {res['cleaned_up']}")
    if res["measured"] < 1:
        raise AssertionError("RPC tuning measured no candidate")
    write_table(LAB, "rpc", [{"model": name, **{k: (", ".join(v) if isinstance(v, list) else v)
                                                for k, v in res.items() if k != "work_dir"}}],
                title="Lab 02 step 9: MetaSchedule over an RPC tracker (loopback)", env=_env(args))
    return res


def step10_tir_pass(ims: dict, passes: dict, untuned: dict, target: dict, args) -> list[dict]:
    """Step 10: the custom loop-reordering TIR pass in the lowering pipeline: TIR shown, gated, timed."""
    from common.results import write_table
    from common.timing import interleaved
    from . import tir_pass
    from .build import build_and_check
    rows = []
    for name, im in ims.items():
        fused = passes[name].fused_mod
        st = tir_pass.ReorderStats()
        run = build_and_check(im, fused, target, stage="tvm_untuned_loop_reorder", tir_pipeline=tir_pass.register(st))
        example = _example_reorder(fused)
        if example:
            gv, before, after = example
            print(f"[10] TIR     {name}: {gv} loop nest before → after ReorderReductionLoops:\n{before}\n  →\n{after}")
        reps = budgets(args, name)["untuned_repeats"]
        stats = interleaved({"untuned": untuned[name]["run"].runner, "loop_reorder": run.runner},
                            warmup=0, repeats=reps)
        speedup = stats["untuned"].median_ms / stats["loop_reorder"].median_ms
        print(f"[10] reorder {name}: {len(st.reordered)} blocks interchanged in {st.funcs_seen} PrimFuncs; "
              f"{stats['untuned'].median_ms:.0f} → {stats['loop_reorder'].median_ms:.0f} ms ({speedup:.1f}x, "
              f"interleaved n={reps}); rel err {run.errors['rel_to_scale']:.1e} — gate ok")
        rows.append({"model": name, "blocks_reordered": len(st.reordered), "primfuncs": st.funcs_seen,
                     "skipped": "; ".join(f"{k}: {v}" for k, v in sorted(st.skipped.items())),
                     "untuned_ms": round(stats["untuned"].median_ms, 1),
                     "loop_reorder_ms": round(stats["loop_reorder"].median_ms, 1), "n": reps,
                     "speedup": round(speedup, 2), "max_abs": run.errors["max_abs"],
                     "rel_to_scale": run.errors["rel_to_scale"]})
    write_table(LAB, "tir_pass", rows, title="Lab 02 step 10: custom TIR pass ReorderReductionLoops",
                env=_env(args), notes="Both builds untuned (no schedule); the only difference is the pass.")
    return rows


def _example_reorder(fused_mod):
    """``(kernel name, loop nest before, after)`` for the biggest PrimFunc the pass changes."""
    import tvm
    from . import tir_pass
    best = None
    for gv, func in fused_mod.functions.items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        st = tir_pass.ReorderStats()
        new = tir_pass.reorder_prim_func(func, gv.name_hint, st)
        if st.reordered:
            size = len(func.script())
            if best is None or size < best[0]:  # the smallest changed kernel reads best
                best = (size, gv.name_hint, tir_pass.loop_nest(func), tir_pass.loop_nest(new))
    return best[1:] if best else None


# ---------------------------------------------------------------------------------------------

def build_bundles(names: Sequence[str], small: bool) -> dict:
    """``{name: common.models.ModelBundle}`` at batch 1 (ResNet 224×224, BERT sequence 128; or small)."""
    from common.models import build_model
    small_kw = {"resnet50": {"small": True, "image": 64}, "bert": {"small": True}}
    return {n: build_model(n, **(small_kw[n] if small else {})) for n in names}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the Lab 02 steps in order; returns 0 (gates raise on failure)."""
    args = parse_args(argv)
    t_start = time.perf_counter()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import tvm  # noqa: F401  (import before torch threads are fixed)
    from common.results import write_table
    from common.timing import set_torch_threads, tvm_threads
    from .build import host_target
    from .relax_import import tuning_module

    set_torch_threads(args.threads)
    names = list(MODELS) if args.model == "all" else [args.model]
    target = {**host_target(), "num-cores": args.threads}
    print(f"Lab 02 — TVM {tvm.__version__}, target {target}, {args.threads} thread(s), models {names}"
          f"{' (CI budgets)' if ci() else ''}")
    with tvm_threads(args.threads):
        bundles = build_bundles(names, args.small)
        ims = step1_import(bundles, args.verbose)
        onnx_row = None if args.skip_onnx else step1_onnx(target, args.verbose)
        summary = step2_struct_info(ims)
        write_table(LAB, "import", summary + ([onnx_row] if onnx_row else []),
                    title="Lab 02 steps 1-2: import and struct info", env=_env(args))
        passes = step3_passes(ims, args.verbose)
        untuned = step4_untuned(ims, passes, target, args)
        tuned, kernel_rows = {}, []
        if not args.skip_tuning:
            bound = {n: tuning_module(im) for n, im in ims.items()}  # weights bound, BN folded
            kernel_rows = step5_manual_schedule(ims, bound, target, args)
            tuned = step6_tune(ims, bound, target, args)
        step7_compare(bundles, ims, untuned, tuned, kernel_rows, args)
        step8_cross(ims, passes, args)
        if not args.skip_tuning:
            step9_rpc(bound, target, args)
        step10_tir_pass(ims, passes, untuned, target, args)
    print(f"Lab 02 done in {(time.perf_counter() - t_start) / 60:.1f} min: tables and plots under results/lab02/")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
