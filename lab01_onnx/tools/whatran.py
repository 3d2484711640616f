"""Fingerprint a graph transformation: which classic optimizations turned BEFORE into AFTER?

Run::

    python -m lab01_onnx.tools.whatran BEFORE.onnx AFTER.onnx [-v]
    python -m lab01_onnx.tools.whatran            # demo: known transformations on small BERT / ResNet

Prints each optimization :func:`lab01_onnx.tools.fingerprint.fingerprint` detects (constant folding,
CSE, DCE, vertical / horizontal fusion, layout change, no-op elimination; how it tells them apart is
that module's docstring) with its evidence, and writes the table ``results/lab01/whatran_<before>__<after>``
(the demo: ``whatran`` and ``whatran.png``, one row per transformation and kind).
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import onnx

from common.cli import parser, step, want_ir
from common.errors import UserError, require, run_cli
from common.onnx_utils import export_torchscript, load_model, ort_optimize, print_ir

from .fingerprint import KINDS, Fingerprint, fingerprint

LAB = "lab01"


def print_fingerprint(fp: Fingerprint, verbose: bool = False, prefix: str = " ") -> None:
    """Print ``fp``: node and initializer counts before -> after, the op-type delta, each finding with its
    evidence (its first 3 details, all with ``verbose``), and the kinds not detected; each line starts with ``prefix``.
    """
    print(f"{prefix} nodes {fp.nodes_before} -> {fp.nodes_after}, initializers {fp.initializers_before} -> "
          f"{fp.initializers_after}; op-type delta: " + (", ".join(f"{k} {v:+d}" for k, v in fp.op_delta.items()) or "none"))
    for f in fp.findings:
        print(f"{prefix} {f.kind} ({f.instances}): {f.evidence}")
        for d in (f.details if verbose else f.details[:3]):
            print(f"{prefix}     {d}")
        if not verbose and len(f.details) > 3:
            print(f"{prefix}     ... {len(f.details) - 3} more (-v lists all)")
    missing = [k for k in KINDS if k not in fp.kinds()]
    print(f"{prefix} not detected: {', '.join(missing) or 'none'}")


def fingerprint_rows(label: str, fp: Fingerprint) -> list[dict]:
    """One table row per detected kind (and one 'none' row if nothing was detected)."""
    base = {"transformation": label, "nodes_before": fp.nodes_before, "nodes_after": fp.nodes_after,
            "initializers_before": fp.initializers_before, "initializers_after": fp.initializers_after}
    rows = [{**base, "optimization": f.kind, "instances": f.instances, "evidence": f.evidence} for f in fp.findings]
    return rows or [{**base, "optimization": "none", "instances": 0, "evidence": "graphs are equivalent node for node"}]


def _plot(rows: list[dict]):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from common.results import save_plot

    labels = list(dict.fromkeys(r["transformation"] for r in rows))
    kinds = list(KINDS) + ["op rewrite"]
    grid = np.zeros((len(labels), len(kinds)))
    for r in rows:
        if r["optimization"] in kinds:
            grid[labels.index(r["transformation"]), kinds.index(r["optimization"])] = r["instances"]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(labels) + 2))
    ax.imshow(np.log1p(grid), cmap="Blues", aspect="auto")
    ax.set_xticks(range(len(kinds)), kinds, rotation=30, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for y in range(len(labels)):
        for x in range(len(kinds)):
            if grid[y, x]:
                ax.text(x, y, int(grid[y, x]), ha="center", va="center", fontsize=8)
    ax.set_title("whatran: optimizations detected per transformation (instances)")
    return save_plot(fig, LAB, "whatran")


def demo_pairs(workdir: Path) -> list[tuple[str, onnx.ModelProto, onnx.ModelProto]]:
    """``(label, before, after)`` made by known transformations on small exports (BERT-small, ResNet-small)."""
    import onnxoptimizer

    from common.models import build_bert, build_resnet50

    from lab01_onnx.passes import run_passes

    onnxsim = require("onnxsim", "onnxsim", "the whatran demo")

    pairs = []
    for name, bundle in [("bert_small", build_bert(batch=2, seq=16, small=True)),
                         ("resnet_small", build_resnet50(batch=2, image=64, small=True))]:
        raw = export_torchscript(bundle, workdir / f"{name}.onnx")
        before = load_model(raw)
        for level in ("BASIC", "EXTENDED", "ALL"):
            after = ort_optimize(raw, workdir / f"{name}_{level}.onnx", level)
            pairs.append((f"{name}: ORT {level}", before, after))
        for p in (["eliminate_identity", "eliminate_deadend"], ["fuse_bn_into_conv"]):
            pairs.append((f"{name}: onnxoptimizer {'+'.join(p)}", before, onnxoptimizer.optimize(before, p)))
        pairs.append((f"{name}: onnxsim", before, onnxsim.simplify(before)[0]))
        pairs.append((f"{name}: Lab 01 passes", before, run_passes(before)[0]))
    return pairs


def main(argv: Sequence[str] | None = None) -> int:
    ap = parser("python -m lab01_onnx.tools.whatran", __doc__)
    ap.add_argument("before", nargs="?", help="the model before the transformation (.onnx)")
    ap.add_argument("after", nargs="?", help="the model after the transformation (.onnx)")
    args = ap.parse_args(argv)

    from common.results import write_table
    from common.timing import environment

    if (args.before is None) != (args.after is None):
        raise UserError("give two models (BEFORE.onnx AFTER.onnx), or none for the demo")
    if args.before:
        before, after = load_model(args.before, dataflow=True), load_model(args.after, dataflow=True)
        if want_ir(args):
            print_ir(f"BEFORE {args.before}", before)
            print_ir(f"AFTER {args.after}", after)
        fp = fingerprint(before, after)
        step(1, "fingerprint", f"{Path(args.before).name} -> {Path(args.after).name}")
        print_fingerprint(fp, args.verbose)
        label = f"{Path(args.before).stem} -> {Path(args.after).stem}"
        write_table(LAB, f"whatran_{Path(args.before).stem}__{Path(args.after).stem}", fingerprint_rows(label, fp),
                    title=f"whatran: {label}", meta={"before": args.before, "after": args.after})
        return 0
    import tempfile
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, before, after in demo_pairs(Path(tmp)):
            fp = fingerprint(before, after)
            step(1, "fingerprint", label)
            print_fingerprint(fp, args.verbose)
            rows += fingerprint_rows(label, fp)
    paths = write_table(LAB, "whatran", rows, title="whatran: optimizations detected in known transformations",
                        env=environment(threads=1),
                        meta={"models": "BERT-small (batch 2, seq 16), ResNet-small (depths 1-1-1-1, 64x64), TorchScript exporter, constant folding off"})
    png = _plot(rows)
    step(2, "tables", f"wrote {paths['md']} and {png}")
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
