"""Every step of the Lab 02 pipeline, one small function each (their table: :data:`lab02_tvm.pipeline.run.STEPS`).

Each step takes the run's :class:`~lab02_tvm.pipeline.settings.Settings` and the run's
:class:`Products` so far, prints ``[N step]`` lines, writes its table under ``results/lab02/`` and
raises :class:`common.gates.GateError` when its check fails. The work itself lives in the modules
of the lab's folders (``graph/``, ``build.py``, ``profile.py``, ``lowering/``, ``schedule/``, ``tuning/``,
``measure/``, ``targets/``); a step calls them and says what they did.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from common.roof import host_speed
from common.cli import step
from common.gates import GateReport, structural

from .. import LAB

if TYPE_CHECKING:
    from .settings import Settings


@dataclass
class Products:
    """What the steps of one run have made so far (each step fills its part)."""

    bundles: dict = field(default_factory=dict)   # {model: common.models.ModelBundle}
    ims: dict = field(default_factory=dict)       # {model: relax.frontend.ImportedModel}
    onnx_row: dict | None = None                  # step 1b's row of the import table
    passes: dict = field(default_factory=dict)    # {model: relax.passes.PassResult}
    untuned: dict = field(default_factory=dict)   # {model: {"run": BuildRun, "stats": TimingStats}}
    choices: dict = field(default_factory=dict)   # {model: tuning.records.Choice}
    kernel_rows: list = field(default_factory=list)  # step 5's rows
    tuned: dict = field(default_factory=dict)     # {model: step 6's dict (runner, built, records, ...)}
    _bound: dict = field(default_factory=dict)

    def bound(self, name: str):
        """The model's tuning module (weights bound, BatchNorm folded; ``relax.passes.tuning_module``), made once."""
        if name not in self._bound:
            from ..graph.passes import tuning_module
            self._bound[name] = tuning_module(self.ims[name])
        return self._bound[name]


# ---------------------------------------------------------------------------------------------
# Steps 1-4: import, struct info, passes, untuned build
# ---------------------------------------------------------------------------------------------

def import_models(s: Settings, p: Products) -> None:
    """Step 1: each model (``lab02_tvm.models``, batch 1) into Relax via torch.export: the full-size model from the
    bundle built here (the peers time it too), a reduced one (``--quick``) as :func:`lab02_tvm.models.imported`
    keeps it for the process (a second run in one process, as the tests make, reuses it and its tuning module)."""
    from common.cli import want_ir
    from ..graph.frontend import import_torch
    from ..models import build_bundles, imported
    p.bundles = build_bundles(s.models, s.quick)
    for name, bundle in p.bundles.items():
        p.ims[name] = im = imported(name, quick=True) if s.quick else import_torch(bundle)
        if want_ir(s):
            print(im.mod.script(show_meta=False))
        step(1, "import", f"{name}: torch.export + from_exported_program in {im.import_s:.1f} s, "
                          f"{len(im.params)} weight tensors, inputs "
                          f"{', '.join(f'{k}{list(v.shape)}' for k, v in im.inputs.items())}")


def import_onnx(s: Settings, p: Products) -> None:
    """Step 1b: Lab 01's LLaMA-tiny ONNX → Relax (from_onnx) → build → gate against ONNX Runtime."""
    from common.cli import want_ir
    from common.models import build_llama_tiny
    from ..build import build_and_check, gate_for
    from ..graph.frontend import import_onnx, lab01_llama_onnx
    from ..graph.struct_info import summarize
    path, note = lab01_llama_onnx()
    im = import_onnx(path, build_llama_tiny().numpy_inputs(), name="llama_tiny_onnx", verbose=want_ir(s))
    run = build_and_check(im, im.mod, s.target, stage="tvm_from_onnx")  # raises GateError on mismatch
    sm, words = summarize(im), gate_for(im.reference)[1]
    step(1, "onnx", f"llama_tiny ONNX ({note}; {im.meta['note']}): {sm['relax_ops']} Relax ops; TVM vs ONNX Runtime "
                    f"max |d| {run.errors['max_abs']:.2e} - gate {words} ok")
    p.onnx_row = {**sm, "source": str(path), "note": f"{note}; {im.meta['note']}", "build_s": round(run.build_s, 2),
                  "max_abs": run.errors["max_abs"], "rel_to_scale": run.errors["rel_to_scale"],
                  "reference": "onnxruntime", "gate": words}


def struct_info(s: Settings, p: Products) -> None:
    """Step 2: every binding typed (shape + dtype), ``well_formed`` holds; ops / params / bytes."""
    from common.results import write_table
    from ..graph.struct_info import summarize
    rows = []
    for name, im in p.ims.items():
        sm = summarize(im)
        step(2, "types", f"{name}: well_formed={sm['well_formed']}, untyped bindings {sm['untyped_bindings']}, "
                         f"{sm['relax_ops']} ops ({sm['top_ops']}), {sm['params']} weights = "
                         f"{sm['param_bytes'] / 2**20:.1f} MiB")
        bad = not sm["well_formed"] or sm["untyped_bindings"]
        structural(f"{name}/struct_info", f"{name}: Relax module not well formed or has untyped bindings" if bad
                   else None, [{"model": name, "well_formed": sm["well_formed"],
                                "untyped_bindings": sm["untyped_bindings"]}])
        rows.append({"model": name, **sm, "import_s": round(im.import_s, 2), "reference": im.reference_name})
    write_table(LAB, "import", rows + ([p.onnx_row] if p.onnx_row else []),
                title="Lab 02 steps 1-2: import and struct info", env=s.env)


def relax_passes(s: Settings, p: Products) -> None:
    """Step 3: standard Relax passes; table of Relax ops / functions / TIR PrimFuncs after each."""
    from common.cli import want_ir
    from common.results import write_table
    from ..graph.passes import PASS_TABLE_NOTES, run_standard_passes
    rows = []
    for name, im in p.ims.items():
        p.passes[name] = pr = run_standard_passes(im.mod, verbose=want_ir(s), progress=True)
        rows += [{"model": name, **r} for r in pr.rows]
        legal, final = next(r for r in pr.rows if r["stage"] == "LegalizeOps"), pr.rows[-1]
        step(3, "passes", f"{name}: {pr.rows[0]['main_calls']} Relax op calls -> {legal['call_tir']} call_tir into "
                          f"{legal['tir_primfuncs']} PrimFuncs after LegalizeOps -> {final['call_tir']} calls into "
                          f"{final['tir_primfuncs']} fused PrimFuncs after FuseTIR "
                          f"({sum(r['seconds'] for r in pr.rows):.1f} s)")
        fused = final["tir_primfuncs"] < legal["tir_primfuncs"] and final["call_tir"] < legal["call_tir"]
        structural(f"{name}/fusion", None if fused else f"{name}: FuseOps/FuseTIR fused nothing", [legal, final])
    write_table(LAB, "relax_passes", rows, title="Lab 02 step 3: Relax passes, counts after each",
                notes=PASS_TABLE_NOTES)


def untuned_build(s: Settings, p: Products) -> None:
    """Step 4: untuned build of the fused module, Relax VM run, gate vs PyTorch, tiny timing; the CUDA path."""
    from common.results import write_table
    from common.roof import rate_columns
    from common.timing import TimingStats, measure
    from ..build import UNTUNED_NOTES, build_and_check, cuda_rows, gate_for
    rows = []
    for name, im in p.ims.items():
        run = build_and_check(im, p.passes[name].fused_mod, s.target, stage="tvm_untuned")
        reps = s.budget(name).untuned_repeats
        more = measure(run.runner, warmup=0, repeats=reps - 1).samples_ms if reps > 1 else []
        stats = TimingStats.from_samples([t / 1e3 for t in [run.first_run_ms, *more]])
        p.untuned[name] = {"run": run, "stats": stats}
        e, words = run.errors, gate_for(im.reference)[1]
        step(4, "untuned", f"{name}: tvm.compile {run.build_s:.1f} s, {stats.median_ms:.0f} ms/inference "
                           f"(n={stats.n}, naive loops); vs PyTorch max |d| {e['max_abs']:.2e} (max|ref| "
                           f"{e['max_ref']:.3g}) - gate {words} ok")
        rows.append({"model": name, "target": str(s.target), "build_s": round(run.build_s, 2),
                     "median_ms": round(stats.median_ms, 1), **rate_columns(im.flops, stats.median_ms),
                     "n": stats.n, "max_abs": e["max_abs"],
                     "max_ref": e["max_ref"], "rel_to_scale": e["rel_to_scale"], "gate": words})
    rows += cuda_rows(p.ims, p.passes, lambda line: step(4, "cuda", line))
    write_table(LAB, "untuned", rows, title="Lab 02 step 4: untuned build vs PyTorch", env=s.env, notes=UNTUNED_NOTES)


# ---------------------------------------------------------------------------------------------
# Steps 5-7: the tuned side
# ---------------------------------------------------------------------------------------------

def choose_records(s: Settings, p: Products) -> None:
    """Step 6a: per model, the shipped records for this host target, or a scratch folder and why."""
    from ..tuning import records
    for name in p.ims:
        p.choices[name] = c = records.quick_choice(name, s.target) if s.quick else records.choose(name, s.target)
        step(6, "records", f"{name}: {c.line}")


def manual_schedule(s: Settings, p: Products) -> None:
    """Step 5: naive vs hand-scheduled vs tuned hottest kernel of ResNet-50 and BERT (:mod:`lab02_tvm.schedule.manual`).

    The kernel is the hottest of the plain (NCHW, no layout rewrite) module. The tuned point comes
    from the model's database when its records were tuned that way; otherwise the kernel is tuned
    alone into a scratch folder.
    """
    from common.results import write_table
    from ..models import GROUPS
    from ..schedule.manual import run_three_point
    from ..tuning import records
    from ..tuning.method import PLAIN
    for name in (n for n in p.ims if n in GROUPS["big"]):  # LLaMA-tiny's kernels are tiny
        c = p.choices[name]
        work = c.work_dir if c.method == PLAIN else records.scratch_dir(f"{name}_hottest_kernel", s.target)
        r = run_three_point(p.bound(name), s.target, tuned_work_dir=work, verbose=s.verbose >= 1, threads=s.threads)
        line = ", ".join(f"{v['schedule']} {v['median_ms']:.3f} ms ({v['speedup_vs_naive']:.1f}x)" for v in r)
        step(5, "schedule", f"{name}: hottest kernel {r[0]['kernel']} ({r[0]['share_pct']:.1f}% of FLOPs): {line} "
                            "- outputs match naive")
        p.kernel_rows += [{"model": name, **row} for row in r]
    if p.kernel_rows:
        write_table(LAB, "manual_schedule", p.kernel_rows, env=s.env,
                    title="Lab 02 step 5: hottest kernel, naive vs manual vs tuned")


def tune_and_build(s: Settings, p: Products) -> None:
    """Step 6: records (shipped) or tuning (scratch, this run's budget), build, coverage + numeric gates.

    With shipped records and no ``--trials``, nothing is tuned; ``--trials N`` tops a *copy* of
    them up in ``build/lab02/tuning/<target>/<model>`` (the shipped files are never written).
    """
    from common.results import write_table
    from ..tuning.serve import KERNEL_TABLE_NOTES, serve
    for name, im in p.ims.items():
        b = s.budget(name)
        p.tuned[name] = t = serve(name, im, p.bound(name), p.choices[name], trials=b.trials, top_up=s.trials is not None,
                                  tune_minutes=b.tune_minutes, verbose=s.verbose >= 2)  # MetaSchedule's log: -vv
        step(6, "tune", f"{name}: {t['how_line']}; {t['built'].line()}; build {t['build_s']:.1f} s; max |d| "
                        f"{t['errors']['max_abs']:.1e} ({t['gate']}) - gates ok")
        write_table(LAB, f"tuning_{name}", t["kernel_rows"], title=f"Lab 02 step 6: kernels of {name} in the tuning "
                    "records", meta=t["kernel_meta"], env=s.env, notes=KERNEL_TABLE_NOTES)


def compare(s: Settings, p: Products) -> None:
    """Step 7: PyTorch eager vs TVM untuned vs TVM tuned — table (median, p90, speedups) and plot.

    Eager and tuned are interleaved in one run (their ratio is the result); untuned is step 4's
    timing (tiny repeats). The step-5 rows of the hottest kernel join with ``scope="hottest kernel"``.
    """
    from common.budget import ci
    from common.results import write_table
    from ..measure.compare import COMPARE_NOTES, kernel_rows, model_rows, plot_compare
    rows = []
    with host_speed(s.host_check_s) as host:
        for name, im in p.ims.items():
            got = model_rows(name, im, p.bundles[name], p.untuned.get(name), p.tuned.get(name),
                             repeats=s.budget(name).repeats)
            step(7, "compare", f"{name}: " + ", ".join(f"{r['variant']} {r['median_ms']:.1f} ms "
                                                       f"({r['speedup_vs_eager']:.2f}x)" for r in got))
            rows += got + kernel_rows(name, p.kernel_rows)
    write_table(LAB, "compare", rows, title="Lab 02 step 7: PyTorch eager vs TVM untuned vs TVM tuned",
                env={**s.env, **host}, meta={"threads": s.threads, "trials": s.trials, "ci": ci()}, notes=COMPARE_NOTES)
    plot_compare(rows)


# ---------------------------------------------------------------------------------------------
# Steps 8-14
# ---------------------------------------------------------------------------------------------

def cross(s: Settings, p: Products) -> None:
    """Step 8: cross-compile each model for AArch64 Cortex-A55; tar always, .so with a cross gcc; ELF check."""
    from common.results import results_dir, write_table
    from ..targets.cross import AARCH64_TARGET, cross_compile
    rows = []
    for name in p.ims:
        res = cross_compile(p.passes[name].fused_mod, results_dir(LAB) / "cross", name)
        machines = sorted(set(res.machines.values()))
        step(8, "cross", f"{name}: {AARCH64_TARGET['mtriple']}/{AARCH64_TARGET['mcpu']} in {res.build_s:.1f} s -> "
                         f"{res.tar_path.name} ({res.tar_bytes / 1e3:.0f} kB)"
                         f"{', ' + res.so_path.name if res.so_path else ''}; ELF machine {machines} - {res.note}")
        rows.append({"model": name, "target": str(AARCH64_TARGET), "build_s": round(res.build_s, 2),
                     "tar_bytes": res.tar_bytes, "so_bytes": res.so_bytes, "elf_machines": ", ".join(machines),
                     "objects": len(res.machines), "note": res.note})
    write_table(LAB, "cross", rows, title="Lab 02 step 8: cross-compilation for AArch64 (Cortex-A55)",
                env=s.env, notes="Weights are not in the library: they stay runtime inputs of main().")


def rpc(s: Settings, p: Products) -> None:
    """Step 9: MetaSchedule tuning of the hottest kernel through an RPC tracker + 2 servers on loopback."""
    from common.results import write_table
    from ..tuning.rpc import rpc_failure, tune_over_rpc
    name = next(iter(p.ims))
    res = tune_over_rpc(p.bound(name), s.target, None, n_servers=2, top_k=1)
    step(9, "rpc", f"{name}: tracker :{res['tracker_port']} with {res['servers_registered']}/{res['servers']} "
                   f"servers, {res['trials']} trials on {', '.join(res['tasks'])}, {res['measured']} measured over "
                   f"RPC, best {res['best_ms'] or float('nan'):.3f} ms, {res['seconds']:.0f} s; cleaned up: "
                   f"{res['cleaned_up']}")
    row = {"model": name, **{k: (", ".join(map(str, v)) if isinstance(v, list) else v)
                             for k, v in res.items() if k not in ("work_dir", "run_ms")}}
    GateReport(stage="rpc", rows=[row], first_failure=rpc_failure(res)).raise_if_failed()
    write_table(LAB, "rpc", [row], title="Lab 02 step 9: MetaSchedule over an RPC tracker (loopback)", env=s.env)


def tir_pass(s: Settings, p: Products) -> None:
    """Step 10: the custom loop-reordering TIR pass in the lowering pipeline: TIR shown, gated, timed."""
    from common.results import write_table
    from common.timing import interleaved
    from ..build import build_and_check
    from ..schedule import tir_pass as tp
    rows = []
    for name, im in p.ims.items():
        fused, st = p.passes[name].fused_mod, tp.ReorderStats()
        run = build_and_check(im, fused, s.target, stage="tvm_untuned_loop_reorder", tir_pipeline=tp.register(st))
        example = tp.example_reorder(fused)
        if example and s.verbose >= 1:
            gv, before, after = example
            step(10, "tir-pass", f"{name}: {gv} loop nest before -> after ReorderReductionLoops:\n{before}\n  ->\n{after}")
        reps = s.budget(name).untuned_repeats
        stats = interleaved({"untuned": p.untuned[name]["run"].runner, "loop_reorder": run.runner},
                            warmup=0, repeats=reps)
        speedup = stats["untuned"].median_ms / stats["loop_reorder"].median_ms
        step(10, "tir-pass", f"{name}: {len(st.reordered)} blocks interchanged in {st.funcs_seen} PrimFuncs; "
                             f"{stats['untuned'].median_ms:.0f} -> {stats['loop_reorder'].median_ms:.0f} ms "
                             f"({speedup:.1f}x, interleaved n={reps}); max |d| {run.errors['max_abs']:.1e} - gate ok")
        rows.append({"model": name, "blocks_reordered": len(st.reordered), "primfuncs": st.funcs_seen,
                     "skipped": "; ".join(f"{k}: {v}" for k, v in sorted(st.skipped.items())),
                     "untuned_ms": round(stats["untuned"].median_ms, 1),
                     "loop_reorder_ms": round(stats["loop_reorder"].median_ms, 1), "n": reps,
                     "speedup": round(speedup, 2), "max_abs": run.errors["max_abs"],
                     "rel_to_scale": run.errors["rel_to_scale"]})
    write_table(LAB, "tir_pass", rows, title="Lab 02 step 10: custom TIR pass ReorderReductionLoops",
                env=s.env, notes="Both builds untuned (no schedule); the only difference is the pass.")


def roofline(s: Settings, p: Products) -> None:
    """Step 11: per-kernel roofline of the untuned and tuned builds (:func:`lab02_tvm.measure.roofline.roofline`),
    then the GEMM shapes of each studied model in the BLAS libraries (:mod:`lab02_tvm.measure.gemm_ceiling`)."""
    from ..measure.gemm_ceiling import measure_gemms, model_gemms, summary_line, write_ceiling
    from ..measure.roofline import roofline as profile_builds
    from ..models import MODELS
    for name in p.ims:
        builds = {}
        if name in p.untuned:
            r = p.untuned[name]["run"].runner
            builds["untuned"] = (r, r.args, p.passes[name].fused_mod)
        if name in p.tuned:
            r = p.tuned[name]["runner"]
            builds["tuned"] = (r, r.args, p.tuned[name]["fused"])  # in the records' method and build target
        if not builds:
            continue
        res = profile_builds(name, builds, repeats=s.roofline_repeats, host_check_s=s.host_check_s)
        for sm in res["summary"]:
            step(11, "roofline", f"{name} {sm['build']}: {sm['whole_ms']} ms, {sm['gflops']} GFLOP/s "
                                 f"({sm['pct_peak']}% of peak); its kernels, timed one by one (the instrumented "
                                 f"run): {sm['kernel_sum_ms']} ms, {sm['lost_ms']} ms of it above the roof")
    for name in p.ims:  # what the BLAS libraries reach on the same GEMM shapes: the roof a real kernel meets
        if MODELS[name].hot_op is None or name not in p.bundles:
            continue
        bundle = p.bundles[name]
        with host_speed(s.host_check_s) as host:
            rows = measure_gemms(model_gemms(bundle.model, bundle.inputs), repeats=s.ceiling_repeats,
                                 desc=f"gemm ceiling {name}")
        write_ceiling(name, rows, repeats=s.ceiling_repeats, quick=s.quick, extra_env=host)
        step(11, "gemm-ceiling", f"{name}: {summary_line(rows[0])}")


def peers(s: Settings, p: Products) -> None:
    """Step 12: PyTorch eager, torch.compile, ONNX Runtime and TVM tuned, gated and interleaved (:mod:`lab02_tvm.measure.peers`)."""
    from ..measure.peers import compare_peers, write_peers
    rows = []
    with host_speed(s.host_check_s) as host:
        for name, bundle in p.bundles.items():
            tvm_fns, notes = {}, {}
            if name in p.tuned:
                t = p.tuned[name]
                label = "tvm_tuned_records" if t["how"] != "tuned here" else "tvm_tuned_this_run"
                tvm_fns[label] = t["runner"]
                notes[label] = f"{t['built'].line()}; {t['trials']} trials; {t['records']}"
            got = compare_peers(bundle, label=name, tvm=tvm_fns, notes=notes, repeats=s.peer_repeats, progress=True)
            step(12, "peers", f"{name}: " + ", ".join(f"{r['peer']} {r['median_ms']} ms ({r['vs_eager']}x)" if r["median_ms"]
                                        else f"{r['peer']} {r['status'][:60]}" for r in got))
            rows += got
    write_peers(rows, name="peers_quick" if s.quick else "peers", extra_env=host)
    failed = [f"{r['model']}/{r['peer']}: {r['status']}" for r in rows if r["status"].startswith("gate failed")]
    GateReport(stage="peers", rows=[], first_failure="; ".join(failed) or None).raise_if_failed()


def vs_ort(s: Settings, p: Products) -> None:
    """Step 15: ResNet-50 convolution by convolution, the tuned build against ONNX Runtime, interleaved
    (:mod:`lab02_tvm.measure.vs_ort`): where the gap of step 12's ResNet-50 row is."""
    from ..measure.vs_ort import compare_model, write_vs_ort
    if "resnet50" not in p.tuned:
        step(15, "vs-ort", "skipped: no tuned ResNet-50 build in this run")
        return
    t = p.tuned["resnet50"]
    with host_speed(s.host_check_s) as host:
        res = compare_model(p.bundles["resnet50"], t["runner"], t["fused"], rounds=s.vs_ort_rounds)
    write_vs_ort(res, model="resnet50", name="vs_ort_resnet50_quick" if s.quick else "vs_ort_resnet50", extra_env=host)
    tot = res["totals"]
    step(15, "vs-ort", f"resnet50 convolutions: TVM {tot['tvm']['convs_ms']:.1f} ms, ONNX Runtime {tot['ort']['convs_ms']:.1f} "
                       f"ms; most lost: " + (", ".join(f"{r['conv']} ({r['lost_vs_ort_ms']:+.2f} ms)" for r in res["rows"][:3]
                                                   if r["lost_vs_ort_ms"] > 0) or "none, TVM is faster on every shape"))


def layout(s: Settings, p: Products) -> None:
    """Step 13: layout assignment on ResNet-50 (NCHW vs NHWC: transforms counted, built, gated, timed;
    the hottest convs tuned per layout) — :func:`lab02_tvm.measure.layout.compare_layouts`."""
    from ..measure import layout as lay
    if "resnet50" not in p.ims:
        step(13, "layout", "skipped: ResNet-50 is not among this run's models")
        return
    base = p.bound("resnet50")
    res = lay.compare_layouts(p.ims["resnet50"], top_k=1, trials=s.layout_trials, repeats=s.layout_repeats, base=base)
    for r in res["rows"]:
        step(13, "layout", f"resnet50 {r['layout']}: {r['transforms_after_convert']} transforms ({r['where']}), "
                           f"untuned {r['median_ms']} ms ({r['speedup_vs_nchw']}x NCHW)")
    lay.write_layout(res, name="layout_quick" if s.quick else "layout", blocked=lay.blocked_layout_status(base))


def search_spaces(s: Settings, p: Products) -> None:
    """Step 14: AutoTVM-style template vs MetaSchedule's generated space on the hottest kernel, same
    budget — :func:`lab02_tvm.schedule.search_space.hottest_kernel_spaces`."""
    from ..schedule.search_space import hottest_kernel_spaces
    name = "resnet50" if "resnet50" in p.ims else next(iter(p.ims))
    res = hottest_kernel_spaces(p.bound(name), s.target, model=name, trials=s.space_trials,
                                name="search_space_quick" if s.quick else "search_space")
    for r in res["rows"]:
        step(14, "spaces", f"{name} {res['kernel'].name}: " + ", ".join(f"{k} {v}" for k, v in r.items()
                                                                       if k in ("space", "best_ms_search", "median_ms")))
