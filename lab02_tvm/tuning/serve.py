"""A model's tuned build from its records (step 6): top up or tune when asked, build, two gates.

The gates: **coverage** (every kernel the database holds a valid record for was taken from it: a
build that silently falls back to untuned loop nests fails; with shipped records, every kernel of
the model must be in them) and **numbers** (outputs against PyTorch, :func:`lab02_tvm.build.gate_for`).
"""
from __future__ import annotations

import time
from pathlib import Path

from common.gates import GateReport

#: The notes of ``tuning_<model>.md``.
KERNEL_TABLE_NOTES = ("best_ms: the best latency MetaSchedule measured for the kernel (1 core, warm cache); "
                      "weighted_ms = calls per inference x best_ms; pct_peak against the measured single-thread "
                      "FMA peak; lost_ms = weighted_ms minus the time at that peak (rows sorted by it).")


def coverage_gate(name: str, built, shipped: bool, declared_absent: int = 0) -> None:
    """Fail when a kernel was compiled untuned although the database should have scheduled it.

    Args:
        name: the model (for the gate's stage and message).
        built: the :class:`lab02_tvm.tuning.apply.TunedBuild`.
        shipped: the records are the shipped ones: then every kernel must be in them, except
            ``declared_absent`` kernels that their provenance says the run did not reach
            (``tasks - tasks_in_db``; the build's line names them).
    Raises:
        common.gates.GateError: a kernel with a valid record was compiled untuned, or shipped
            records miss more kernels than their provenance declares.
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


def serve(name: str, im, bound, choice, *, trials: int, top_up: bool, tune_minutes: float, verbose: bool = False) -> dict:
    """Build ``im`` from its records ``choice`` (a :class:`lab02_tvm.tuning.records.Choice`), tuning first
    when the records are not shipped ones (``trials``, ``tune_minutes``) or when ``top_up`` asks to top a
    *copy* of the shipped ones up (in ``build/lab02/tuning/<target>/<model>``; shipped files are never written).

    Args:
        name: the model's key in :data:`lab02_tvm.models.MODELS` (its scratch folder, its gate's name).
        im: the :class:`lab02_tvm.graph.frontend.ImportedModel` (its reference outputs gate the build).
        bound: its tuning module (``relax.passes.tuning_module``); the records' method is applied to it.
    Returns:
        ``{"runner": VMRunner, "built": TunedBuild, "report": TuneReport | None, "build_s", "errors",
        "gate", "trials", "minutes", "records", "how", "how_line", "method", "build_target",
        "fused" (the fused module in the records' method, for the roofline), "kernel_rows",
        "kernel_meta"}`` (times in seconds / minutes).
    Raises:
        common.gates.GateError: the coverage or the numeric gate failed.
    """
    from common import roof as roof_mod

    from ..build import VMRunner, error_summary, gate_for, gate_outputs
    from . import records
    from .apply import build_from_database
    from .database import kernel_table
    from .tune import tune
    mod, build_target, rewrite = choice.method.module(bound), choice.build_target, choice.method.layout_rewrite
    work, topped, report = choice.work_dir, bool(choice.shipped and top_up), None
    if topped:
        scratch = records.scratch_dir(name, build_target)
        if not (scratch / records.RECORDS).is_file():
            records.copy_records(work, scratch)
        work = scratch
    if not choice.shipped or top_up:  # a top-up times as the records were timed; a new database, cold
        cold = records.timing_of(records.read_provenance(choice.work_dir)) == "cold" if choice.shipped else True
        report = tune(mod, build_target, work, max_trials_global=trials, tune_minutes=tune_minutes,
                      verbose=verbose, log_dir=Path(work) / "logs", layout_rewrite=rewrite, cache_flush=cold)
    t0 = time.perf_counter()
    built = build_from_database(mod, build_target, work, layout_rewrite=rewrite)
    build_s = time.perf_counter() - t0
    prov = records.read_provenance(choice.work_dir) if choice.shipped else {}
    coverage_gate(name, built, choice.shipped and not top_up,
                  declared_absent=int(prov.get("tasks", 0)) - int(prov.get("tasks_in_db", prov.get("tasks", 0))))
    runner = VMRunner(built.executable, im, with_params=False)
    outs = runner.outputs()
    gate_outputs(im, outs, stage="tvm_tuned")
    shipped_trials, shipped_min = records.run_totals(prov)
    roof = roof_mod.cached_roof()
    peak = roof["peak_gflops"] if roof else None
    rows = kernel_table(mod, build_target, work, peak, layout_rewrite=rewrite)
    meta = report.summary() if report else prov
    return {"runner": runner, "built": built, "report": report, "build_s": build_s,
            "errors": error_summary(im.reference, outs), "gate": gate_for(im.reference)[1],
            "trials": report.trials_in_db if report else shipped_trials,
            "minutes": report.minutes if report else shipped_min,
            "records": f"{choice.label()} + topped up here" if topped else choice.label(),
            "how": "tuned here" if topped else choice.how,
            "how_line": report.line() if report else (f"no tuning: {shipped_trials} trials in {shipped_min:.0f} min "
                                                      f"behind the {choice.how} records"),
            "method": str(choice.method), "build_target": build_target.get("mcpu", "generic"),
            "fused": built.fused, "kernel_rows": rows,
            "kernel_meta": {**{k: v for k, v in meta.items() if k != "trials_per_task"}, "target": build_target,
                            "peak_gflops": peak,
                            "kernels_at_70pct_peak": sum(1 for r in rows if (r["pct_peak"] or 0) >= 70)}}
