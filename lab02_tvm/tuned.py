"""Steps 5-7 of the Lab 02 pipeline: the tuned side (hottest kernel, records or tuning, comparison).

* step 5 — naive vs hand-scheduled vs tuned hottest kernel (:mod:`lab02_tvm.schedules`);
* step 6 — the model's tuning records: the shipped ones for this host target when they exist
  (:mod:`lab02_tvm.records`), else tuning from scratch with this run's budget; then the build from
  the database, with two gates: **coverage** (every kernel the database holds a valid record for was
  taken from it — a build that silently falls back to untuned loop nests fails; with shipped
  records, every kernel of the model must be in them) and **numbers** (outputs against PyTorch,
  :func:`lab02_tvm.build.gate_for`);
* step 7 — PyTorch eager vs TVM untuned vs TVM tuned, eager and tuned interleaved in one run.

Called from :func:`lab02_tvm.pipeline.main`; every function takes the parsed ``args``.
"""
from __future__ import annotations

import time
from pathlib import Path

from common.budget import ci
from common.cli import step
from common.gates import GateReport

from . import LAB


def step5_manual_schedule(ims: dict, bound: dict, target: dict, args, choices: dict) -> list[dict]:
    """Step 5: naive vs hand-scheduled vs tuned for the hottest kernel (:mod:`lab02_tvm.schedules`).

    The kernel is the hottest of the plain (NCHW, no layout rewrite) module. The tuned point comes
    from the model's database when its records were tuned that way (``choices[name]``, a
    :class:`lab02_tvm.records.Choice`: shipped records hold every kernel, so nothing is written
    there); otherwise the kernel is tuned alone into a scratch folder.
    """
    from common.results import write_table
    from . import records, schedules
    from .config import env
    from .method import PLAIN
    rows = []
    for name in ims:
        c = choices[name]
        work = c.work_dir if c.method == PLAIN else records.scratch_dir(f"{name}_hottest_kernel", target)
        r = schedules.run_three_point(bound[name], target, tuned_work_dir=work,
                                      verbose=args.verbose >= 1, threads=args.threads)
        by = {row["schedule"]: row for row in r}
        line = ", ".join(f"{k} {v['median_ms']:.3f} ms ({v['speedup_vs_naive']:.1f}x)" for k, v in by.items())
        step(5, "schedule", f"{name}: hottest kernel {r[0]['kernel']} ({r[0]['share_pct']:.1f}% of FLOPs): {line} "
                            "- outputs match naive")
        rows += [{"model": name, **row} for row in r]
    write_table(LAB, "manual_schedule", rows, title="Lab 02 step 5: hottest kernel, naive vs manual vs tuned",
                env=env(args))
    return rows


def choose_records(names, target: dict, args) -> dict:
    """``{model: records.Choice}``: shipped records for this host target, or a scratch folder and why."""
    from . import records
    choices = {}
    for name in names:
        if args.quick:  # the reduced models have other kernels than the shipped records hold
            from .method import FIELD
            wd = records.scratch_dir(f"{name}_quick", target)
            c = records.Choice("none", wd, 0, f"--quick: reduced model, not the shipped records' one; tuning from "
                                              f"scratch in {records.rel(wd)}", dict(target), FIELD)
        else:
            c = records.choose(name, target)
        choices[name] = c
        step(6, "records", f"{name}: {c.line}")
    return choices


def _coverage_gate(name: str, built, shipped: bool, declared_absent: int = 0) -> None:
    """Fail when a kernel was compiled untuned although the database should have scheduled it.

    Args:
        built: the :class:`lab02_tvm.tuning.TunedBuild`.
        shipped: the records are the shipped ones: then every kernel must be in them, except
            ``declared_absent`` kernels that their provenance says the run did not reach
            (``tasks - tasks_in_db``; the build's line names them).
    """
    silent = [k for k in built.missing if k not in built.failed_only and k not in built.absent]
    holes = silent + (built.absent if shipped and len(built.absent) > declared_absent else [])
    if holes:
        rows = [{"kernel": k, "status": "valid record not applied" if k in silent else "not in the records"}
                for k in holes]
        why = ("the shipped records do not cover the model" if not silent else
               "kernels with valid records were compiled untuned (database keys do not match)")
        GateReport(stage=f"{name}/tvm_tuned", rows=rows,
                   first_failure=f"{name}: {len(holes)} of {built.kernels_total} kernels untuned: {why}"
                   ).raise_if_failed()


def step6_tune(ims: dict, bound: dict, target: dict, args, choices: dict, budgets) -> dict:
    """Step 6: records (shipped) or tuning (scratch, this run's budget), build, coverage + numeric gates.

    With shipped records and no ``--trials``, nothing is tuned; ``--trials N`` tops a *copy* of
    them up in ``build/lab02/tuning/<target>/<model>`` (the shipped files are never written).
    """
    from . import records, tuning
    from .build import VMRunner, error_summary, gate_for, gate_outputs
    out = {}
    for name, im in ims.items():
        choice, report = choices[name], None
        mod, build_target, rewrite = choice.method.module(bound[name]), choice.build_target, choice.method.layout_rewrite
        work, topped = choice.work_dir, bool(choice.shipped and args.trials)
        if topped:
            scratch = records.scratch_dir(name, build_target)
            if not (scratch / records.RECORDS).is_file():
                records.copy_records(work, scratch)
            work = scratch
        if not choice.shipped or args.trials:
            b = budgets(args, name)
            report = tuning.tune(mod, build_target, work, max_trials_global=b["trials"], tune_minutes=b["tune_minutes"],
                                 verbose=args.verbose >= 1, log_dir=Path(work) / "logs", layout_rewrite=rewrite)
        t0 = time.perf_counter()
        built = tuning.build_from_database(mod, build_target, work, layout_rewrite=rewrite)
        build_s = time.perf_counter() - t0
        prov = records.read_provenance(choice.work_dir) if choice.shipped else {}
        _coverage_gate(name, built, choice.shipped and not args.trials,
                       declared_absent=int(prov.get("tasks", 0)) - int(prov.get("tasks_in_db", prov.get("tasks", 0))))
        runner = VMRunner(built.executable, im, with_params=False)
        outs = runner.outputs()
        errors = error_summary(im.reference, outs)
        gate_outputs(im, outs, stage="tvm_tuned")
        shipped_trials, shipped_min = records.run_totals(prov)
        trials = report.trials_in_db if report else shipped_trials
        how = report.line() if report else (f"no tuning: {shipped_trials} trials in {shipped_min:.0f} min behind the "
                                            f"{choice.how} records")
        out[name] = {"report": report, "runner": runner, "build_s": build_s, "errors": errors, "built": built,
                     "trials": trials, "minutes": report.minutes if report else shipped_min,
                     "records": f"{choice.label()} + topped up here" if topped else choice.label(),
                     "how": "tuned here" if topped else choice.how, "method": str(choice.method),
                     "build_target": build_target.get("mcpu", "generic"), "gate": gate_for(im.reference)[1],
                     "fused": tuning.fuse_for_tasks(mod, build_target, rewrite)}
        step(6, "tune", f"{name}: {how}; {built.line()}; build {build_s:.1f} s; max |d| {errors['max_abs']:.1e} "
                        f"({gate_for(im.reference)[1]}) - gates ok")
        _write_kernel_table(name, mod, build_target, work, report.summary() if report else prov, args, rewrite)
    return out


def _write_kernel_table(name: str, mod, target: dict, work, meta: dict, args, layout_rewrite: bool = False) -> None:
    """``tuning_<model>.md``: each kernel's best time in the records against the FMA peak (common.roof)."""
    from common import roof as roof_mod
    from common.results import write_table
    from . import tuning
    from .config import env
    roof = roof_mod.cached_roof()
    peak = roof["peak_gflops"] if roof else None
    rows = tuning.kernel_table(mod, target, work, peak, layout_rewrite=layout_rewrite)
    near = [r for r in rows if (r["pct_peak"] or 0) >= 70]
    write_table(LAB, f"tuning_{name}", rows, title=f"Lab 02 step 6: kernels of {name} in the tuning records",
                meta={**{k: v for k, v in meta.items() if k != "trials_per_task"}, "target": target,
                      "peak_gflops": peak, "kernels_at_70pct_peak": len(near)},
                env=env(args), notes="best_ms: the best latency MetaSchedule measured for the kernel (1 core, "
                "warm cache); weighted_ms = calls per inference x best_ms; pct_peak against the measured "
                "single-thread FMA peak; lost_ms = weighted_ms minus the time at that peak (rows sorted by it).")


def step7_compare(bundles: dict, ims: dict, untuned: dict, tuned: dict, kernel_rows: list[dict], args) -> list[dict]:
    """Step 7: PyTorch eager vs TVM untuned vs TVM tuned — table (median, p90, speedups) and plot.

    Eager and tuned are interleaved in one run (their ratio is the result); untuned is step 4's
    timing (tiny repeats). The step-5 rows of the hottest kernel join with ``scope="hottest kernel"``.
    """
    import torch
    from common.results import write_table
    from common.roof import rate_columns
    from common.timing import interleaved
    from .build import gate_for
    from .config import budgets, env
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
        if name in untuned:
            stats["tvm_untuned"] = untuned[name]["stats"]
        eager_ms = stats["pytorch_eager"].median_ms
        untuned_ms = stats["tvm_untuned"].median_ms if "tvm_untuned" in stats else None
        for variant in ("pytorch_eager", "tvm_untuned", "tvm_tuned"):
            if variant not in stats:
                continue
            s, t = stats[variant], tuned.get(name, {}) if variant == "tvm_tuned" else {}
            err = t.get("errors") or (untuned[name]["run"].errors if variant == "tvm_untuned" else {})
            rows.append({"model": name, "scope": "model", "variant": variant, "median_ms": round(s.median_ms, 3),
                         "p90_ms": round(s.p90_ms, 3), "n": s.n, **rate_columns(im.flops, s.median_ms),
                         "speedup_vs_eager": round(eager_ms / s.median_ms, 3),
                         "speedup_vs_untuned": round(untuned_ms / s.median_ms, 3) if untuned_ms else None,
                         "trials": t.get("trials", 0), "records": t.get("records", ""),
                         "method": t.get("method", ""), "built_for": t.get("build_target", ""),
                         "kernels_tuned": (f"{t['built'].kernels_tuned}/{t['built'].kernels_total}"
                                           if t else ""),
                         "max_abs": err.get("max_abs"), "gate": "" if variant == "pytorch_eager" else
                         gate_for(im.reference)[1]})
        line = ", ".join(f"{r['variant']} {r['median_ms']:.1f} ms ({r['speedup_vs_eager']:.2f}x)"
                         for r in rows if r["model"] == name and r["scope"] == "model")
        step(7, "compare", f"{name}: {line}")
        for k in (k for k in kernel_rows if k["model"] == name):
            rows.append({"model": name, "scope": f"hottest kernel {k['kernel']}", "variant": f"kernel_{k['schedule']}",
                         "median_ms": k["median_ms"], "p90_ms": k["p90_ms"], "n": None, "speedup_vs_eager": None,
                         "speedup_vs_untuned": k["speedup_vs_naive"], "trials": k["trials"]})
    notes = ("pytorch_eager and tvm_tuned are interleaved in one run at 1 thread on a shared 2-core machine "
             "(ratios comparable, absolute ms swing); tvm_untuned is the step-4 timing of naive single-threaded "
             "TIR with tiny repeats (n), a baseline only. records: which tuning records the build used and how: 'exact: <target>' = results/lab02/tuning/<target>/<model> "
             "measured on this CPU, 'compatible: <target>, built for <cpu>' = records of another CPU whose instructions "
             "this host has (or a common x86-64 level), 'tuned here' = tuned in this run (trials = trials behind them); "
             "method: the records' layout and weight layout rewrite; built_for: the -mcpu of the build. gate: the numeric gate against PyTorch, absolute where the output scale "
             "allows, relative (named) on ResNet-50's logits; max_abs = the measured absolute error. kernel_* rows: "
             "step 5 (naive / manual / tuned hottest kernel; speedup_vs_untuned = over the naive kernel). "
             "gflops / pct_peak: FLOPs counted by PyTorch's FlopCounterMode (matmul/conv/attention, 2 per "
             "multiply-add) over the median, against the measured single-thread FMA peak (common.roof).")
    write_table(LAB, "compare", rows, title="Lab 02 step 7: PyTorch eager vs TVM untuned vs TVM tuned",
                env=env(args), meta={"threads": args.threads, "trials": args.trials, "ci": ci()}, notes=notes)
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
    fig, ax = plt.subplots(figsize=(7, 3.5))
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
    ax.set_xticks([j + width for j in range(len(models))], models, fontsize=8)
    ax.set_ylabel("median latency, ms (log)")
    ax.set_title("Lab 02: latency per inference, batch 1, 1 thread")
    ax.legend(fontsize=8)
    return save_plot(fig, LAB, "compare")
