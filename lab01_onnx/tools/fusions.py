"""Find the fusions in the node-count diff: ResNet-50 and BERT-base through onnxsim and ORT levels.

Run::

    python -m lab01_onnx.tools.fusions [--models resnet50,bert] [--quick] [--keep] [-v]

Steps, one function each, each followed by its numeric gate against PyTorch:

1. :func:`export_raw` -- TorchScript exporter, opset 17, dynamic axes, *exporter constant folding
   off*: the exporter's eval-mode peephole would otherwise fold BatchNormalization into Conv itself
   and hide the fusion this tool is looking for.
2. :func:`simplify` -- onnxsim (shape inference + constant folding with ORT + onnxoptimizer's
   fusion passes, offline).
3. :func:`ort_levels` -- ONNX Runtime at each graph optimization level (DISABLE_ALL, BASIC,
   EXTENDED, ALL), each optimized graph saved with ``SessionOptions.optimized_model_filepath``
   and run again as saved (``DISABLE_ALL``) for the gate.
4. :func:`find_fusions` -- the op-type diff of every stage against the raw export, and the
   fingerprint of :mod:`lab01_onnx.tools.fingerprint` (whatran): where Conv+BatchNormalization became one Conv, and
   where the exact GELU subgraph ``x * 0.5 * (1 + erf(x / sqrt(2)))`` (Div, Erf, Add, Mul, Mul)
   became ``com.microsoft.Gelu`` / ``BiasGelu``.

Writes ``results/lab01/fusions.{md,csv,json}`` (one row per model and stage),
``fusions_ops_<model>`` (op-type x stage counts), ``fusions_gates`` and ``fusions.png``.
ORT's level semantics: https://onnxruntime.ai/docs/performance/model-optimizations/graph-optimizations.html
(Conv+BN fusion is a BASIC-level rewrite; GELU, BiasGelu, FusedConv, attention fusions are
EXTENDED; NCHWc layout transformation is ALL/layout level on x86 CPUs).
"""
from __future__ import annotations

import collections
import re
import tempfile
import time
from pathlib import Path
from collections.abc import Sequence

import onnx

from common.cli import parser, step
from common.errors import UserError, require, run_cli
from common.onnx_utils import ORT_LEVELS, export_torchscript, load_model, op_counts, ort_optimize, ort_run, print_ir, save_model

from .fingerprint import fingerprint, pattern_of

LAB = "lab01"
ATOL = 1e-5  # times max|reference| per output (scale_atol_by_ref): fp32 reassociation in fused kernels
GELU_OPS = ("Div", "Erf", "Add", "Mul", "Mul")


def build(name: str, small: bool):
    """The :class:`common.models.ModelBundle` for ``resnet50`` or ``bert`` (batch 2 keeps axes dynamic).

    Raises:
        UserError: ``name`` is neither ``resnet50`` nor ``bert``.
    """
    from common.models import build_bert, build_resnet50

    if name == "resnet50":
        return build_resnet50(batch=2, image=64 if small else 224, small=small)
    if name == "bert":
        return build_bert(batch=2, seq=16 if small else 32, small=small)
    raise UserError(f"unknown model {name!r} for the fusions tool; choose resnet50 or bert")


def export_raw(bundle, workdir: Path) -> Path:
    """Step 1: raw TorchScript export (opset 17, exporter constant folding off)."""
    t = time.perf_counter()
    path = export_torchscript(bundle, workdir / f"fusions_{bundle.name}_raw.onnx")
    step(1, "export", f"{bundle.name}: raw graph ({len(load_model(path).graph.node)} nodes) "
          f"in {time.perf_counter() - t:.1f} s -> {path}")
    return path


def simplify(raw: Path) -> Path:
    """Step 2: onnxsim on the raw export; returns the simplified model's path.

    Raises:
        UserError: onnxsim reports that it could not validate its result.
        MissingDependency: ``onnxsim`` is not installed.
    """
    onnxsim = require("onnxsim", "onnxsim", "the fusions tool")
    t = time.perf_counter()
    model, ok = onnxsim.simplify(str(raw))
    if not ok:
        raise UserError(f"onnxsim could not validate its simplification of {raw}")
    out = raw.with_name(raw.stem.removesuffix("_raw") + "_onnxsim" + raw.suffix)  # never the input's own name
    save_model(model, out)
    step(2, "onnxsim", f"{len(model.graph.node)} nodes in {time.perf_counter() - t:.1f} s")
    return out


def ort_levels(raw: Path) -> dict[str, Path]:
    """Step 3: ORT at each optimization level; returns ``{level: saved optimized model path}``."""
    out = {}
    for level in ORT_LEVELS:
        t = time.perf_counter()
        path = raw.with_name(raw.name.replace("_raw", f"_ort_{level.lower()}"))
        m = ort_optimize(raw, path, level)
        step(3, "ort", f"{level}: {len(m.graph.node)} nodes in {time.perf_counter() - t:.1f} s")
        out[f"ort_{level.lower()}"] = path
    return out


def gate_stage(chain, stage: str, path: Path, feeds) -> dict:
    """Run the saved model as it is (ORT DISABLE_ALL) and gate it against PyTorch."""
    outputs = ort_run(path, feeds, level="DISABLE_ALL")
    rep = chain.check(stage, outputs)
    step(4, "gate", f"{stage}: max abs {rep.max_abs():.3g} (atol {ATOL:g} x max|ref|) -> ok")
    return {"gate_max_abs": rep.max_abs(), "gate": "pass"}


def find_fusions(raw_model: onnx.ModelProto, model: onnx.ModelProto) -> dict:
    """Step 4: how many Conv+BN and GELU patterns were fused, and into which ops (from whatran)."""
    fp = fingerprint(raw_model, model)
    conv_bn, gelu, other = collections.Counter(), collections.Counter(), collections.Counter()
    for f in fp.findings:
        if f.kind != "vertical fusion":
            continue
        for d in f.details:
            pat = pattern_of(d)
            src, _, dst = pat.partition(" -> ")
            dst = dst.split(" (")[0]  # drop notes such as "(+10 constant-only nodes added ...)"
            if "BatchNormalization" in src and "Conv" in src:
                conv_bn[dst] += _count(src, "BatchNormalization")
            elif "Erf" in src:
                gelu[dst] += _count(src, "Erf")
            else:
                other[pat] += 1
    return {
        "conv_bn_fused": sum(conv_bn.values()), "conv_bn_into": "; ".join(f"{_first_op(k)} ({v})" for k, v in conv_bn.items()),
        "gelu_fused": sum(gelu.values()), "gelu_into": "; ".join(f"{_first_op(k)} ({v})" for k, v in gelu.items()),
        "other_fusions": "; ".join(f"{v}x {k}" for k, v in other.most_common(4)),
        "kinds": ", ".join(f.kind for f in fp.findings),
    }


def _first_op(side: str) -> str:
    """Main op of a pattern side: ``"com.microsoft.nchwc.Convx53, ..."`` -> ``"com.microsoft.nchwc.Conv"``."""
    return re.sub(r"x\d+$", "", side.split(", ")[0])


def _count(side: str, op: str) -> int:
    """Occurrences of ``op`` in a pattern side: ``"Conv+BatchNormalization"`` or ``"Convx17, BatchNormalizationx17"``."""
    if "," in side or f"{op}x" in side:
        for part in side.split(", "):
            name, _, k = part.partition("x")
            if name == op:
                return int(k) if k.isdigit() else 1
    return side.split("+").count(op)


def run_model(name: str, small: bool, workdir: Path, verbose: int) -> tuple[list[dict], list[dict], dict]:
    """All steps for one model; returns (summary rows, gate rows, op counts per stage)."""
    from common.gates import GateChain

    bundle = build(name, small)
    label = f"{name}{'_small' if small else ''}"
    reference = bundle.run()
    feeds = bundle.numpy_inputs()
    chain = GateChain("pytorch", reference, atol=ATOL, scale_atol_by_ref=True)
    raw = export_raw(bundle, workdir)
    stages = {"raw": raw, "onnxsim": simplify(raw), **ort_levels(raw)}
    raw_model = load_model(raw)
    counts, rows = {}, []
    n_raw = len(raw_model.graph.node)
    for stage, path in stages.items():
        m = load_model(path)
        counts[stage] = op_counts(m)
        row = {"model": label, "stage": stage, "nodes": len(m.graph.node),
               "reduction_pct": round(100.0 * (1 - len(m.graph.node) / n_raw), 1),
               "BatchNormalization": counts[stage].get("BatchNormalization", 0), "Erf": counts[stage].get("Erf", 0)}
        row.update(gate_stage(chain, f"{label}:{stage}", path, feeds))
        if stage != "raw":
            row.update(find_fusions(raw_model, m))
            step(5, "fusions", f"{stage}: Conv+BN fused {row['conv_bn_fused']} ({row['conv_bn_into'] or '-'}), "
                  f"GELU fused {row['gelu_fused']} ({row['gelu_into'] or '-'})")
        if verbose >= 2:
            print_ir(f"{label}:{stage}", m)
        if verbose:
            print(f"  ops: {dict(counts[stage].most_common())}")
        rows.append(row)
    return rows, chain.rows, counts


def op_table(counts: dict[str, collections.Counter]) -> list[dict]:
    """Op type x stage counts, changed op types first (the diff a student reads)."""
    stages = list(counts)
    ops = sorted({op for c in counts.values() for op in c})
    rows = [{"op_type": op, **{s: counts[s].get(op, 0) for s in stages}} for op in ops]
    rows.sort(key=lambda r: (len({r[s] for s in stages}) == 1, r["op_type"]))
    rows.append({"op_type": "TOTAL", **{s: sum(counts[s].values()) for s in stages}})
    return rows


def plot(all_counts: dict[str, dict[str, collections.Counter]]):
    """Grouped bars: nodes per stage per model, with the BatchNormalization / Erf counts stacked in."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from common.results import save_plot

    fig, axes = plt.subplots(1, len(all_counts), figsize=(6 * len(all_counts), 4), squeeze=False)
    for ax, (label, counts) in zip(axes[0], all_counts.items()):
        stages = list(counts)
        tot = [sum(c.values()) for c in counts.values()]
        bn = [c.get("BatchNormalization", 0) for c in counts.values()]
        erf = [c.get("Erf", 0) * len(GELU_OPS) for c in counts.values()]
        ax.bar(stages, tot, color="lightgray", label="all nodes")
        ax.bar(stages, bn, color="tab:blue", label="BatchNormalization")
        ax.bar(stages, erf, bottom=bn, color="tab:orange", label="GELU subgraph nodes (5 per Erf)")
        for x, v in enumerate(tot):
            ax.text(x, v, str(v), ha="center", va="bottom", fontsize=8)
        ax.set_title(f"{label}: nodes per stage")
        ax.tick_params(axis="x", rotation=30)
        ax.legend(fontsize=7)
    return save_plot(fig, LAB, "fusions")


def main(argv: Sequence[str] | None = None) -> int:
    ap = parser("python -m lab01_onnx.tools.fusions", __doc__,
                quick="small configs: ResNet depths 1-1-1-1 at 64x64, 2-layer BERT (what the tests run)")
    ap.add_argument("--models", default="resnet50,bert", help="comma list of resnet50, bert (default both)")
    ap.add_argument("--keep", action="store_true",
                    help="keep every stage's .onnx under results/lab01/fusions_models/ (BERT-base: ~0.4 GB each)")
    args = ap.parse_args(argv)
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    for n in names:
        if n not in ("resnet50", "bert"):
            raise UserError(f"unknown model {n!r} in --models; choose from resnet50, bert")

    from common.results import results_dir, write_table
    from common.timing import environment

    rows, gates, all_counts = [], [], {}
    tmp = tempfile.TemporaryDirectory(prefix="fusions_")
    workdir = results_dir(LAB) / "fusions_models" if args.keep else Path(tmp.name)
    workdir.mkdir(parents=True, exist_ok=True)
    for n in names:
        r, g, counts = run_model(n, args.quick, workdir, args.verbose)  # a failed gate raises GateError: exit 1
        rows += r
        gates += g
        label = f"{n}{'_small' if args.quick else ''}"
        all_counts[label] = counts
        write_table(LAB, f"fusions_ops_{label}", op_table(counts),
                    title=f"{label}: node count per op type and stage (changed op types first)",
                    meta={"stages": "raw = TorchScript export, opset 17, exporter constant folding off; onnxsim; "
                                    "ort_<level> = ORT optimized model saved at that level"})
    env = environment(threads=1)
    meta = {"tolerance": f"|ort - torch| <= {ATOL:g} * max|torch| per output", "inputs": "the bundles' seeded example inputs",
            "models": ", ".join(all_counts)}
    paths = write_table(LAB, "fusions", rows, title="Fusions found per stage (Conv+BatchNormalization, Erf GELU)",
                        env=env, meta=meta,
                        notes="conv_bn_fused / gelu_fused count the pattern instances that whatran attributes to a "
                              "vertical fusion versus the raw export; *_into names the op they became.")
    write_table(LAB, "fusions_gates", gates, title="Numeric gate after every stage (reference: PyTorch)", env=env, meta=meta)
    png = plot(all_counts)
    tmp.cleanup()
    step(6, "tables", f"wrote {paths['md']} and {png}")
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
