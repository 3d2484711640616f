"""Lab 02 pipeline: PyTorch / ONNX → Relax → TIR → MetaSchedule → native code (``python -m lab02_tvm.pipeline``).

Steps (one function each, called in order from :func:`main`; each prints ``[N step]`` lines and checks a gate):

1. import ResNet-50, BERT-base and LLaMA-tiny (sequence 32 and 128) with torch.export → Relax, and
   Lab 01's LLaMA-tiny ONNX (from_onnx, gated against ONNX Runtime);
2. struct info / well-formedness summary;
3. standard Relax passes with a before/after counts table;
4. untuned build for the host CPU (``llvm`` + host ``mcpu``), gated against PyTorch; the ``cuda``
   path, skipped with the reason when there is no GPU;
5. manual schedule of the hottest kernel (naive vs manual vs tuned) — :mod:`lab02_tvm.schedules`;
6. tuning records: the shipped ones for this host target (``results/lab02/tuning/<target>/<model>``),
   else MetaSchedule tuning with this run's budget; build from them, coverage and numeric gates —
   :mod:`lab02_tvm.records`, :mod:`lab02_tvm.tuning`, :mod:`lab02_tvm.tuned`;
7. comparison table + plot: PyTorch eager vs TVM untuned vs TVM tuned;
8. cross-compile for AArch64 Cortex-A55, ELF check;
9. tuning over an RPC tracker on loopback — :mod:`lab02_tvm.rpc`;
10. extension: the custom TIR loop-reordering pass in the lowering pipeline, measured;
11. roofline: every kernel of the untuned and tuned builds under the machine's roof — :mod:`lab02_tvm.roofline`;
12. peers: PyTorch eager, torch.compile, ONNX Runtime and TVM tuned in one run — :mod:`lab02_tvm.peers`;
13. layout assignment on ResNet-50, NCHW vs NHWC — :mod:`lab02_tvm.layout`;
14. AutoTVM-style template vs MetaSchedule's space on the hottest kernel — :mod:`lab02_tvm.search_space`.

Timings: 1 thread by default (``--threads``), PyTorch eager and TVM tuned interleaved in one run.
Untuned TVM runs naive single-threaded loops (ResNet-50 ~4 s, BERT-base ~25 s per inference), so
its repeats are tiny (``--untuned-repeats``); those numbers are a baseline, not a benchmark.
"""
from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence

from common.budget import ci
from common.cli import parser, positive, step, want_ir
from common.errors import run_cli
from common.gates import structural

from . import LAB
from .config import (DEFAULT_TRIALS, DEFAULT_TUNE_MINUTES, GROUPS, MODELS, STEPS,  # noqa: F401
                     UNTUNED_REPEATS, budgets, build_bundles, env)

def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command line (``common.cli`` convention): ``--model``, budgets, ``-v``/``-vv``, ``--quick``, ``--skip-<step>``.

    Raises:
        UserError: an unknown option or choice, or a budget/count below its minimum.
    """
    doc = __doc__.split("\n\n")
    p = parser("python -m lab02_tvm.pipeline", __doc__, steps=STEPS, epilog="steps:\n" + doc[1],
               quick="reduced models for a quick check (BERT 2 layers/128 hidden, ResNet depths 1-1-1-1 at "
                     "64x64, LLaMA-tiny sequence 16)")
    p.add_argument("--model", default="all", choices=[*MODELS, *GROUPS],
                   help="model(s) to compile (default: all; 'big' = ResNet-50 + BERT-base, 'llama' = both "
                        "LLaMA-tiny sequences)")
    p.add_argument("--trials", type=int, default=None,
                   help="MetaSchedule trials per model: tuning from scratch when no shipped records match this "
                        f"host (default {DEFAULT_TRIALS}; CI: 16), or a top-up of a copy of the shipped ones")
    p.add_argument("--tune-minutes", type=float, default=None,
                   help=f"wall-clock cap on tuning per model, minutes (default {DEFAULT_TUNE_MINUTES})")
    p.add_argument("--threads", type=int, default=1, help="threads for PyTorch and TVM timings (default 1)")
    p.add_argument("--untuned-repeats", type=int, default=None,
                   help="timed runs of the untuned build (default: resnet50 2, bert 1, llama 3)")
    p.add_argument("--repeats", type=int, default=None, help="timed rounds for eager vs tuned (default 20; CI 5)")
    args = p.parse_args(argv)
    for opt in ("trials", "tune_minutes", "threads", "untuned_repeats", "repeats"):
        positive("--" + opt.replace("_", "-"), getattr(args, opt))
    return args


def _check(stage: str, failure: str | None, rows: list[dict]) -> None:
    """Raise :class:`common.gates.GateError` (exit 1 through ``run_cli``) when ``failure`` is set."""
    structural(stage, failure, rows)


# ---------------------------------------------------------------------------------------------
# Steps 1-4
# ---------------------------------------------------------------------------------------------

def step1_import(bundles: dict, args) -> dict:
    """Step 1: import each model (common.models, batch 1) into Relax via torch.export."""
    from .relax_import import import_torch
    ims = {}
    for name, bundle in bundles.items():
        ims[name] = im = import_torch(bundle, verbose=want_ir(args))
        step(1, "import", f"{name}: torch.export + from_exported_program in {im.import_s:.1f} s, "
                          f"{len(im.params)} weight tensors, inputs "
                          f"{', '.join(f'{k}{list(v.shape)}' for k, v in im.inputs.items())}")
    return ims


def step1_onnx(target: dict, args) -> dict:
    """Step 1b: Lab 01's LLaMA-tiny ONNX → Relax (from_onnx) → build → gate against ONNX Runtime."""
    from common.models import build_llama_tiny
    from .build import build_and_check, gate_for
    from .relax_import import import_onnx, lab01_llama_onnx, summarize
    path, note = lab01_llama_onnx()
    im = import_onnx(path, build_llama_tiny().numpy_inputs(), name="llama_tiny_onnx", verbose=want_ir(args))
    run = build_and_check(im, im.mod, target, stage="tvm_from_onnx")  # raises GateError on mismatch
    s = summarize(im)
    words = gate_for(im.reference)[1]
    step(1, "onnx", f"llama_tiny ONNX ({note}; {im.meta['note']}): {s['relax_ops']} Relax ops; TVM vs ONNX Runtime "
                    f"max |d| {run.errors['max_abs']:.2e} - gate {words} ok")
    return {**s, "source": str(path), "note": f"{note}; {im.meta['note']}", "build_s": round(run.build_s, 2),
            "max_abs": run.errors["max_abs"], "rel_to_scale": run.errors["rel_to_scale"],
            "reference": "onnxruntime", "gate": words}


def step2_struct_info(ims: dict) -> list[dict]:
    """Step 2: every binding typed (shape + dtype), ``well_formed`` holds; ops / params / bytes."""
    from .relax_import import summarize
    rows = []
    for name, im in ims.items():
        s = summarize(im)
        step(2, "types", f"{name}: well_formed={s['well_formed']}, untyped bindings {s['untyped_bindings']}, "
                         f"{s['relax_ops']} ops ({s['top_ops']}), {s['params']} weights = "
                         f"{s['param_bytes'] / 2**20:.1f} MiB")
        bad = not s["well_formed"] or s["untyped_bindings"]
        _check(f"{name}/struct_info", f"{name}: Relax module not well formed or has untyped bindings" if bad else None,
               [{"model": name, "well_formed": s["well_formed"], "untyped_bindings": s["untyped_bindings"]}])
        rows.append({"model": name, **s, "import_s": round(im.import_s, 2), "reference": im.reference_name})
    return rows


def step3_passes(ims: dict, args) -> dict:
    """Step 3: standard Relax passes; table of Relax ops / functions / TIR PrimFuncs after each."""
    from common.results import write_table
    from .relax_import import run_standard_passes
    results, rows = {}, []
    for name, im in ims.items():
        pr = run_standard_passes(im.mod, verbose=want_ir(args), progress=True)
        results[name] = pr
        rows += [{"model": name, **r} for r in pr.rows]
        legal = next(r for r in pr.rows if r["stage"] == "LegalizeOps")
        final = pr.rows[-1]
        step(3, "passes", f"{name}: {pr.rows[0]['main_calls']} Relax op calls -> {legal['call_tir']} call_tir into "
                          f"{legal['tir_primfuncs']} PrimFuncs after LegalizeOps -> {final['call_tir']} calls into "
                          f"{final['tir_primfuncs']} fused PrimFuncs after FuseTIR "
                          f"({sum(r['seconds'] for r in pr.rows):.1f} s)")
        fused = final["tir_primfuncs"] < legal["tir_primfuncs"] and final["call_tir"] < legal["call_tir"]
        _check(f"{name}/fusion", None if fused else f"{name}: FuseOps/FuseTIR fused nothing", [legal, final])
    write_table(LAB, "relax_passes", rows, title="Lab 02 step 3: Relax passes, counts after each",
                notes="main_calls: calls executed by main (operators, call_tir, fused functions); call_tir: "
                      "calls into TIR kernels in main; relax_ops: operator calls in all Relax functions "
                      "(fused groups included); relax_functions: FuseOps groups before FuseTIR; "
                      "tir_primfuncs: TIR kernels in the module.")
    return results


def step4_untuned(ims: dict, passes: dict, target: dict, args) -> dict:
    """Step 4: untuned build of the fused module, Relax VM run, gate vs PyTorch, tiny timing."""
    from common.results import write_table
    from common.roof import rate_columns
    from common.timing import TimingStats, measure
    from .build import build_and_check, build_cuda, cuda_reason, gate_for
    out, rows = {}, []
    for name, im in ims.items():
        run = build_and_check(im, passes[name].fused_mod, target, stage="tvm_untuned")
        reps = budgets(args, name)["untuned_repeats"]
        more = measure(run.runner, warmup=0, repeats=reps - 1).samples_ms if reps > 1 else []
        stats = TimingStats.from_samples([s / 1e3 for s in [run.first_run_ms, *more]])
        out[name] = {"run": run, "stats": stats}
        e, words = run.errors, gate_for(im.reference)[1]
        step(4, "untuned", f"{name}: tvm.compile {run.build_s:.1f} s, {stats.median_ms:.0f} ms/inference "
                           f"(n={stats.n}, naive loops); vs PyTorch max |d| {e['max_abs']:.2e} (max|ref| "
                           f"{e['max_ref']:.3g}) - gate {words} ok")
        rows.append({"model": name, "target": str(target), "build_s": round(run.build_s, 2),
                     "median_ms": round(stats.median_ms, 1), **rate_columns(im.flops, stats.median_ms),
                     "n": stats.n, "max_abs": e["max_abs"],
                     "max_ref": e["max_ref"], "rel_to_scale": e["rel_to_scale"], "gate": words})
    reason = cuda_reason()
    if reason:
        step(4, "cuda", f"skipped: {reason}")
        rows.append({"model": "all", "target": "cuda", "note": f"skipped: {reason}"})
    else:
        for name, im in ims.items():
            run = build_cuda(im, passes[name].fused_mod)
            step(4, "cuda", f"{name}: build {run.build_s:.1f} s, first run {run.first_run_ms:.1f} ms, "
                            f"max |d| {run.errors['max_abs']:.1e} - gate ok")
            rows.append({"model": name, "target": "cuda", "build_s": round(run.build_s, 2),
                         "median_ms": round(run.first_run_ms, 1), "n": 1, "max_abs": run.errors["max_abs"],
                         "max_ref": run.errors["max_ref"], "rel_to_scale": run.errors["rel_to_scale"],
                         "gate": gate_for(im.reference)[1]})
    write_table(LAB, "untuned", rows, title="Lab 02 step 4: untuned build vs PyTorch", env=env(args),
                notes="Untuned TIR = naive single-threaded loop nests; n is tiny on purpose (seconds per run). "
                      "gflops / pct_peak: FLOPs counted by PyTorch (matmul/conv/attention) over the median, "
                      "against the measured FMA peak (common.roof; GPU rows: no roof). "
                      "gate: absolute 1e-4 where the output scale allows, relative (named) on ResNet-50's "
                      "logits; max_abs is the measured absolute error.")
    return out


# ---------------------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    """Run the Lab 02 steps in order; returns 0 (a gate raises ``GateError``: exit 1 through ``run_cli``)."""
    args = parse_args(argv)
    t_start = time.perf_counter()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import tvm  # noqa: F401  (import before torch threads are fixed)
    from common.results import write_table
    from common.timing import set_torch_threads, tvm_threads
    from . import extras, tuned as tuned_steps
    from .build import host_target
    from .relax_import import tuning_module

    set_torch_threads(args.threads)
    names = list(GROUPS.get(args.model, (args.model,)))
    if args.quick:  # both LLaMA-tiny entries would be the same sequence-16 model
        names = [n for n in names if n != "llama_tiny_s128"]
    skip = args.skip
    target = {**host_target(), "num-cores": args.threads}
    step(0, "setup", f"Lab 02 - TVM {tvm.__version__}, target {target}, {args.threads} thread(s), models {names}"
                     f"{' (CI budgets)' if ci() else ''}{' (quick)' if args.quick else ''}"
                     f"{', skipping ' + ', '.join(sorted(skip)) if skip else ''}")
    with tvm_threads(args.threads):
        bundles = build_bundles(names, args.quick)
        ims = step1_import(bundles, args)
        onnx_row = None if "onnx" in skip else step1_onnx(target, args)
        summary = step2_struct_info(ims)
        write_table(LAB, "import", summary + ([onnx_row] if onnx_row else []),
                    title="Lab 02 steps 1-2: import and struct info", env=env(args))
        passes = {} if "passes" in skip else step3_passes(ims, args)
        skip |= {"untuned", "cross", "tir-pass"} if not passes else set()  # they build the fused module
        untuned = {} if "untuned" in skip else step4_untuned(ims, passes, target, args)
        tuned, kernel_rows, bound = {}, [], {}
        if "tuning" not in skip:
            bound = {n: tuning_module(im) for n, im in ims.items()}  # weights bound, BN folded
            choices = tuned_steps.choose_records(ims, target, args)
            big = {n: im for n, im in ims.items() if n in GROUPS["big"]}  # LLaMA-tiny's kernels are tiny
            if "schedule" not in skip and big:
                kernel_rows = tuned_steps.step5_manual_schedule(big, bound, target, args, choices)
            tuned = tuned_steps.step6_tune(ims, bound, target, args, choices, budgets)
        tuned_steps.step7_compare(bundles, ims, untuned, tuned, kernel_rows, args)
        if "cross" not in skip:
            extras.step8_cross(ims, passes, args)
        if "tuning" not in skip and "rpc" not in skip:
            extras.step9_rpc(bound, target, args)
        if "tir-pass" not in skip and untuned:
            extras.step10_tir_pass(ims, passes, untuned, target, args)
        if "roofline" not in skip and (untuned or tuned):
            extras.step11_roofline(ims, passes, untuned, tuned)
        if "peers" not in skip:
            extras.step12_peers(bundles, tuned, args)
        if "layout" not in skip:
            extras.step13_layout(ims, bound, args)
        if "spaces" not in skip and "tuning" not in skip:
            extras.step14_search_space(bound, target, args)
    step(15, "done", f"Lab 02 in {(time.perf_counter() - t_start) / 60:.1f} min: tables and plots under results/lab02/")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
