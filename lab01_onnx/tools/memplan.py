"""Memory planning for an ONNX graph: liveness, greedy best-fit buffer reuse, bounds, orders.

Run::

    python -m lab01_onnx.tools.memplan                                  # LLaMA-tiny, ResNet-50, BERT-base
    python -m lab01_onnx.tools.memplan MODEL.onnx --dims batch=1,sequence=128

Prints, per model, the naive size, the best-fit plan, the offset plan and the lower bound (bytes)
under each operator order, and writes the tables ``results/lab01/memplan`` (or ``memplan_<model>``)
and ``memplan_tensors_<model>`` and the plot ``memplan.png``. The rules: static shapes and steps of
an ONNX graph in :mod:`lab01_onnx.tools.onnx_plan`, liveness, plans, bound and orders in
:mod:`lab01_onnx.tools.planning`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx

from common.cli import parser, step
from common.errors import run_cli
from common.onnx_dims import add_dims_argument
from common.onnx_utils import export_torchscript, load_model, print_ir

from .onnx_plan import OnnxMemoryReport, plan_onnx, tensor_rows
from .planning import ORDERS

LAB = "lab01"


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB"


def _report_model(label: str, model: onnx.ModelProto, dims: Mapping[str, int], verbose: int) -> tuple[list[dict], OnnxMemoryReport]:
    if verbose >= 2:
        print_ir(label, model)
    rep = plan_onnx(model, dims)
    rows = []
    for order, plan in rep.plans.items():
        rows.append({"model": label, "order": order, "nodes": len(rep.steps[order]), **plan.summary()})
    g = rep.plans["given"]
    step(2, "plan", f"{label}: {len(g.lives)} intermediate tensors over {len(rep.steps['given'])} steps: "
          f"naive {g.naive_bytes} B ({_mib(g.naive_bytes)}), planned {g.planned_bytes} B ({_mib(g.planned_bytes)}, "
          f"{len(g.buffers)} buffers), offset plan {g.offset_plan_bytes} B, lower bound {g.lower_bound_bytes} B ({_mib(g.lower_bound_bytes)}) at step "
          f"{g.peak_step} ({rep.steps['given'][g.peak_step].op})")
    for order in ORDERS[1:]:
        p = rep.plans[order]
        print(f"  order {order:6s}: lower bound {p.lower_bound_bytes} B ({p.lower_bound_bytes / max(g.lower_bound_bytes, 1):.2f}x given), "
              f"planned {p.planned_bytes} B ({p.planned_bytes / max(g.planned_bytes, 1):.2f}x given)")
    if verbose:
        for r in sorted(tensor_rows(rep), key=lambda r: -r["bytes"])[:15]:
            print(f"    {r['bytes']:>12} B  {r['shape']:>18} {r['dtype']:8} steps {r['first_step']}..{r['last_step']} "
                  f"buffer {r['buffer']:3d}  {r['op']} -> {r['tensor']}")
    # Invariants of any plan; a failure here is a bug in the planner, not in the model.
    for p in rep.plans.values():
        assert p.lower_bound_bytes <= min(p.planned_bytes, p.offset_plan_bytes) <= p.naive_bytes, p.summary()
    return rows, rep


def _plot(reports: dict[str, OnnxMemoryReport], name: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from common.results import save_plot

    fig, axes = plt.subplots(1, len(reports), figsize=(5.5 * len(reports), 4.6), squeeze=False)
    for ax, (label, rep) in zip(axes[0], reports.items()):
        for order, style in [("given", "-"), ("bfs", ":"), ("greedy", "--")]:
            p = rep.plans[order]
            ax.plot(np.arange(len(p.live_bytes)), p.live_bytes / 2**20, style, lw=1, label=f"live set, {order} order")
        g = rep.plans["given"]
        ax.axhline(g.planned_bytes / 2**20, color="k", lw=1, label="best-fit buffer plan (given order)")
        ax.axhline(g.offset_plan_bytes / 2**20, color="tab:red", lw=1, ls="-.", label="greedy-by-size offset plan")
        ax.set_title(f"{label}: naive {g.naive_bytes / 2**20:.0f} MiB")
        ax.set_xlabel("step (node index in the order)")
        ax.set_ylabel("MiB")
    # one legend under the plots, so it never hides a curve
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return save_plot(fig, LAB, name)


def _default_models() -> dict[str, tuple[onnx.ModelProto, dict]]:
    import tempfile

    from common.models import build_bert, build_llama_tiny, build_resnet50

    # LLaMA-tiny: the raw TorchScript export Lab 01's pipeline optimizes (exporter constant folding
    # off); ResNet-50 and BERT-base with the exporter's constant folding, as a deployed model is.
    specs = [("llama_tiny", lambda: build_llama_tiny(batch=2, seq=16), {"batch": 1, "sequence": 128}, False),
             ("resnet50", lambda: build_resnet50(batch=2), {"batch": 1}, True),
             ("bert_base", lambda: build_bert(batch=2, seq=16), {"batch": 1, "sequence": 128}, True)]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, build, dims, folding in specs:
            path = export_torchscript(build(), Path(tmp) / f"{label}.onnx", constant_folding=folding)
            out[label] = (load_model(path), dims)
            step(1, "export", f"{label} (TorchScript, exporter constant folding {'on' if folding else 'off'}): "
                 f"{len(out[label][0].graph.node)} nodes; planning at {dims}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = parser("python -m lab01_onnx.tools.memplan", __doc__)
    ap.add_argument("model", nargs="?", help="an .onnx file (default: export LLaMA-tiny, ResNet-50, BERT-base)")
    add_dims_argument(ap, help="sizes of the dynamic axes (sequence=128 or input_ids:1=128)")
    args = ap.parse_args(argv)
    dims = args.dims

    from common.results import write_table
    from common.timing import environment

    if args.model:
        model = load_model(args.model, dataflow=True)
        label = Path(args.model).stem
        models = {label: (model, dims)}
    else:
        models = _default_models()
    rows, reports = [], {}
    for label, (model, d) in models.items():
        r, rep = _report_model(label, model, d, args.verbose)
        rows += [{**x, "dims": " ".join(f"{k}={v}" for k, v in d.items())} for x in r]
        reports[label] = rep
        write_table(LAB, f"memplan_tensors_{label}", tensor_rows(rep),
                    title=f"Memory plan of {label}: every intermediate tensor (bytes, lifetime in steps, buffer)",
                    meta={"dims": d, "order": "given (file order)", "units": "bytes; steps are node indices"})
    name = "memplan" if not args.model else f"memplan_{Path(args.model).stem}"
    paths = write_table(LAB, name, rows, title="Memory plans: naive vs greedy best-fit vs lower bound, per operator order",
                        env=environment(threads=1),
                        meta={"units": "bytes", "plan": "best-fit buffer reuse in execution order, no in-place, no alignment",
                              "lower_bound": "largest live set for that order", "dims": {k: v[1] for k, v in models.items()}},
                        notes="naive = one buffer per tensor; planned = sum of buffer capacities of the best-fit plan; "
                              "offset_plan = arena of the greedy-by-size offset plan; "
                              "lower_bound = max over steps of bytes live at that step (a tensor is live from the step "
                              "that writes it through the last step that reads it).")
    png = _plot(reports, name)
    step(3, "tables", f"wrote {paths['md']} and {png}")
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
