"""Step 7's measurement: PyTorch eager vs TVM untuned vs TVM tuned, one model at a time, and its plot.

Eager and tuned are timed interleaved in one run (:func:`common.timing.interleaved`): their ratio
is the result, the absolute milliseconds swing with the machine. Untuned is step 4's timing of
naive single-threaded TIR with tiny repeats, a baseline only.
"""
from __future__ import annotations

from pathlib import Path

from .. import LAB
VARIANTS = ("pytorch_eager", "tvm_untuned", "tvm_tuned")
#: The notes of ``compare.md``.
COMPARE_NOTES = (
    "pytorch_eager and tvm_tuned are interleaved in one run at 1 thread (ratios comparable; absolute ms "
    "swing with the load, load_avg in the environment); tvm_untuned is the step-4 timing of naive single-threaded "
    "TIR with tiny repeats (n), a baseline only. records: which tuning records the build used and how: 'exact: "
    "<target>' = results/lab02/tuning/<target>/<model> measured on this CPU, 'compatible: <target>, built for "
    "<cpu>' = records of another CPU whose instructions this host has (or a common x86-64 level), 'tuned here' = "
    "tuned in this run (trials = trials behind them); method: the records' layout and weight layout rewrite; "
    "built_for: the -mcpu of the build. gate: the numeric gate against PyTorch, absolute where the output scale "
    "allows, relative (named) on ResNet-50's logits; max_abs = the measured absolute error. kernel_* rows: "
    "step 5 (naive / manual / tuned hottest kernel; speedup_vs_untuned = over the naive kernel). "
    "gflops / pct_peak: FLOPs counted by PyTorch's FlopCounterMode (matmul/conv/attention, 2 per "
    "multiply-add) over the median, against the measured single-thread FMA peak (common.roof).")


def model_rows(name: str, im, bundle, untuned: dict | None, tuned: dict | None, *, repeats: int) -> list[dict]:
    """Time eager (and tuned, when built) interleaved; one row per variant, untuned from step 4.

    Args:
        name: the model's key. im: its ``ImportedModel`` (inputs, FLOPs, reference).
        bundle: the model's ``common.models.ModelBundle`` (eager runs on ``im.inputs``). untuned: step 4's ``{"run", "stats"}`` or ``None``.
        tuned: step 6's dict (``runner``, ``errors``, ``built``, ``trials``, ``records``, ``method``,
            ``build_target``) or ``None``. repeats: interleaved rounds.
    Returns:
        Rows ``model, scope="model", variant, median_ms, p90_ms, n, gflops, pct_peak,
        speedup_vs_eager, speedup_vs_untuned, trials, records, method, built_for, kernels_tuned,
        max_abs, gate`` (times in ms).
    """
    from common.roof import rate_columns
    from common.timing import interleaved

    from ..build import gate_for
    fns = {"pytorch_eager": bundle.eager(im.inputs), **({"tvm_tuned": tuned["runner"]} if tuned else {})}
    stats = interleaved(fns, warmup=3, repeats=repeats, progress=True)
    if untuned:
        stats["tvm_untuned"] = untuned["stats"]
    eager_ms = stats["pytorch_eager"].median_ms
    untuned_ms = stats["tvm_untuned"].median_ms if "tvm_untuned" in stats else None
    rows = []
    for variant in (v for v in VARIANTS if v in stats):
        s, t = stats[variant], (tuned or {}) if variant == "tvm_tuned" else {}
        err = t.get("errors") or (untuned["run"].errors if variant == "tvm_untuned" else {})
        rows.append({"model": name, "scope": "model", "variant": variant, "median_ms": round(s.median_ms, 3),
                     "p90_ms": round(s.p90_ms, 3), "n": s.n, **rate_columns(im.flops, s.median_ms),
                     "speedup_vs_eager": round(eager_ms / s.median_ms, 3),
                     "speedup_vs_untuned": round(untuned_ms / s.median_ms, 3) if untuned_ms else None,
                     "trials": t.get("trials", 0), "records": t.get("records", ""),
                     "method": t.get("method", ""), "built_for": t.get("build_target", ""),
                     "kernels_tuned": f"{t['built'].kernels_tuned}/{t['built'].kernels_total}" if t else "",
                     "max_abs": err.get("max_abs"),
                     "gate": "" if variant == "pytorch_eager" else gate_for(im.reference)[1]})
    return rows


def kernel_rows(name: str, schedule_rows: list[dict]) -> list[dict]:
    """Step 5's hottest-kernel rows of ``name`` in the compare table's columns (``scope="hottest kernel ..."``)."""
    return [{"model": name, "scope": f"hottest kernel {k['kernel']}", "variant": f"kernel_{k['schedule']}",
             "median_ms": k["median_ms"], "p90_ms": k["p90_ms"], "n": None, "speedup_vs_eager": None,
             "speedup_vs_untuned": k["speedup_vs_naive"], "trials": k["trials"]}
            for k in schedule_rows if k["model"] == name]


def plot_compare(rows: list[dict]) -> Path:
    """``results/lab02/compare.png``: median latency per model and variant (log scale)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from common.results import save_plot
    rows = [r for r in rows if r.get("scope") == "model"]
    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, ax = plt.subplots(figsize=(7, 3.5))
    width = 0.8 / len(VARIANTS)
    for i, v in enumerate(VARIANTS):
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
