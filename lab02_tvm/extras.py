"""Steps 8-14 of the Lab 02 pipeline: cross-compile, RPC, the custom TIR pass, roofline, peers, layout
assignment, AutoTVM-style template vs MetaSchedule's space.

Called from :func:`lab02_tvm.pipeline.main`; every function takes the parsed ``args``, prints
``[N step]`` lines and raises :class:`common.gates.GateError` when its check fails.
"""
from __future__ import annotations

import math

from common.budget import pick
from common.cli import step
from common.gates import GateReport

from . import LAB


def step8_cross(ims: dict, passes: dict, args) -> list[dict]:
    """Step 8: cross-compile each model for AArch64 Cortex-A55; tar always, .so with a cross gcc; ELF check."""
    from common.results import results_dir, write_table
    from .cross import AARCH64_TARGET, cross_compile
    from .config import env
    rows = []
    for name in ims:
        res = cross_compile(passes[name].fused_mod, results_dir(LAB) / "cross", name)
        machines = sorted(set(res.machines.values()))
        step(8, "cross", f"{name}: {AARCH64_TARGET['mtriple']}/{AARCH64_TARGET['mcpu']} in {res.build_s:.1f} s -> "
                         f"{res.tar_path.name} ({res.tar_bytes / 1e3:.0f} kB)"
                         f"{', ' + res.so_path.name if res.so_path else ''}; ELF machine {machines} - {res.note}")
        rows.append({"model": name, "target": str(AARCH64_TARGET), "build_s": round(res.build_s, 2),
                     "tar_bytes": res.tar_bytes, "so_bytes": res.so_bytes, "elf_machines": ", ".join(machines),
                     "objects": len(res.machines), "note": res.note})
    write_table(LAB, "cross", rows, title="Lab 02 step 8: cross-compilation for AArch64 (Cortex-A55)",
                env=env(args), notes="Weights are not in the library: they stay runtime inputs of main().")
    return rows


def rpc_failure(res: dict) -> str | None:
    """The first thing wrong with an RPC tuning result, or ``None``: every trial must have come back
    over RPC with a finite positive latency, and the tracker and servers must be gone."""
    times = res.get("run_ms", [])
    if res["servers_registered"] < res["servers"]:
        return f"{res['servers_registered']} of {res['servers']} RPC servers registered"
    if res["trials"] < 1 or res["measured"] != res["trials"]:
        return f"{res['measured']} of {res['trials']} trials came back measured over RPC"
    if len(times) != res["trials"] or not all(math.isfinite(t) and t > 0 for t in times):
        return f"latencies not all finite and positive: {times[:8]}"
    if not res["cleaned_up"]:
        return "tracker/server processes still alive"
    return None


def step9_rpc(bound: dict, target: dict, args) -> dict:
    """Step 9: MetaSchedule tuning of the hottest kernel through an RPC tracker + 2 servers on loopback."""
    from common.results import write_table
    from . import rpc
    from .config import env
    name = next(iter(bound))
    res = rpc.tune_over_rpc(bound[name], target, None, n_servers=2, top_k=1)
    step(9, "rpc", f"{name}: tracker :{res['tracker_port']} with {res['servers_registered']}/{res['servers']} "
                   f"servers, {res['trials']} trials on {', '.join(res['tasks'])}, {res['measured']} measured over "
                   f"RPC, best {res['best_ms'] or float('nan'):.3f} ms, {res['seconds']:.0f} s; cleaned up: "
                   f"{res['cleaned_up']}")
    row = {"model": name, **{k: (", ".join(map(str, v)) if isinstance(v, list) else v)
                             for k, v in res.items() if k not in ("work_dir", "run_ms")}}
    GateReport(stage="rpc", rows=[row], first_failure=rpc_failure(res)).raise_if_failed()
    write_table(LAB, "rpc", [row], title="Lab 02 step 9: MetaSchedule over an RPC tracker (loopback)", env=env(args))
    return res


def step10_tir_pass(ims: dict, passes: dict, untuned: dict, target: dict, args) -> list[dict]:
    """Step 10: the custom loop-reordering TIR pass in the lowering pipeline: TIR shown, gated, timed."""
    from common.results import write_table
    from common.timing import interleaved
    from . import tir_pass
    from .build import build_and_check
    from .config import budgets, env
    rows = []
    for name, im in ims.items():
        fused = passes[name].fused_mod
        st = tir_pass.ReorderStats()
        run = build_and_check(im, fused, target, stage="tvm_untuned_loop_reorder", tir_pipeline=tir_pass.register(st))
        example = _example_reorder(fused)
        if example and args.verbose >= 1:
            gv, before, after = example
            step(10, "tir-pass", f"{name}: {gv} loop nest before -> after ReorderReductionLoops:\n{before}\n  ->\n{after}")
        reps = budgets(args, name)["untuned_repeats"]
        stats = interleaved({"untuned": untuned[name]["run"].runner, "loop_reorder": run.runner},
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
                env=env(args), notes="Both builds untuned (no schedule); the only difference is the pass.")
    return rows


def _example_reorder(fused_mod):
    """``(kernel name, loop nest before, after)`` for the smallest PrimFunc the pass changes."""
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
                best = (size, gv.name_hint, tir_pass.loop_nest(func, 40), tir_pass.loop_nest(new, 40))
    return best[1:] if best else None


def step11_roofline(ims: dict, passes: dict, untuned: dict, tuned: dict) -> list[dict]:
    """Step 11: per-kernel roofline of the untuned and tuned builds (:func:`lab02_tvm.roofline.roofline`)."""
    from . import roofline
    summary = []
    for name in ims:
        builds = {}
        if name in untuned:
            r = untuned[name]["run"].runner
            builds["untuned"] = (r, r.args, passes[name].fused_mod)
        if name in tuned:
            r = tuned[name]["runner"]
            builds["tuned"] = (r, r.args, tuned[name]["fused"])  # in the records' method and build target
        if not builds:
            continue
        res = roofline.roofline(name, builds, repeats=pick(2, 1))
        for s in res["summary"]:
            step(11, "roofline", f"{name} {s['build']}: {s['whole_ms']} ms, {s['gflops']} GFLOP/s "
                                 f"({s['pct_peak']}% of peak), {s['lost_ms']} ms above the roof")
        summary += res["summary"]
    return summary


def step12_peers(bundles: dict, tuned: dict, args) -> list[dict]:
    """Step 12: PyTorch eager, torch.compile, ONNX Runtime and TVM tuned, gated and interleaved (:mod:`lab02_tvm.peers`)."""
    from . import peers
    rows = []
    for name, bundle in bundles.items():
        tvm_fns, notes = {}, {}
        if name in tuned:
            label = "tvm_tuned_records" if tuned[name]["how"] != "tuned here" else "tvm_tuned_this_run"
            tvm_fns[label] = tuned[name]["runner"]
            notes[label] = f"{tuned[name]['built'].line()}; {tuned[name]['trials']} trials; {tuned[name]['records']}"
        got = peers.compare_peers(bundle, label=name, tvm=tvm_fns, notes=notes,
                                  repeats=args.repeats or pick(20, 3), progress=True)
        step(12, "peers", ", ".join(f"{r['peer']} {r['median_ms']} ms ({r['vs_eager']}x)" if r["median_ms"]
                                    else f"{r['peer']} {r['status'][:60]}" for r in got))
        rows += got
    peers.write_peers(rows, name="peers_quick" if args.quick else "peers")
    failed = [f"{r['model']}/{r['peer']}: {r['status']}" for r in rows if r["status"].startswith("gate failed")]
    GateReport(stage="peers", rows=[], first_failure="; ".join(failed) or None).raise_if_failed()
    return rows


def step13_layout(ims: dict, bound: dict, args) -> dict | None:
    """Step 13: layout assignment on ResNet-50 (NCHW vs NHWC: transforms counted, built, gated, timed;
    the hottest convs tuned per layout) — :func:`lab02_tvm.layout.compare_layouts`."""
    from . import layout
    if "resnet50" not in ims:
        return None
    trials = 0 if args.quick else pick(16, 4)
    res = layout.compare_layouts(ims["resnet50"], top_k=1, trials=trials, repeats=1 if args.quick else 2,
                                 base=bound.get("resnet50"))
    blocked = layout.blocked_layout_status(bound["resnet50"]) if "resnet50" in bound else ""
    for r in res["rows"]:
        step(13, "layout", f"resnet50 {r['layout']}: {r['transforms_after_convert']} transforms ({r['where']}), "
                           f"untuned {r['median_ms']} ms ({r['speedup_vs_nchw']}x NCHW)")
    layout.write_layout(res, name="layout_quick" if args.quick else "layout", blocked=blocked)
    return res


def step14_search_space(bound: dict, target: dict, args) -> dict | None:
    """Step 14: AutoTVM-style template vs MetaSchedule's generated space on the hottest kernel, same
    budget — :func:`lab02_tvm.search_space.hottest_kernel_spaces`."""
    from . import search_space
    name = "resnet50" if "resnet50" in bound else next(iter(bound), None)
    if name is None:
        return None
    res = search_space.hottest_kernel_spaces(bound[name], target, model=name, trials=pick(32, 4),
                                             name="search_space_quick" if args.quick else "search_space")
    for r in res["rows"]:
        step(14, "spaces", f"{name} {res['kernel'].name}: " + ", ".join(f"{k} {v}" for k, v in r.items()
                                                                       if k in ("space", "best_ms_search", "median_ms")))
    return res
