"""The reducer's demonstrations (``python -m debugging.reduce --demo NAME``) and small known cases.

* ``wrong-rewrite``: Lab 01 step 8. LLaMA-tiny (TorchScript export, batch 1 x sequence 8), Lab 01's
  custom passes, then the deliberately wrong rewrite ``wrong_rewrite_neg_as_identity`` (the first
  ``Neg`` dropped as if it were an Identity). Reference = the passes' output; candidate = the
  broken copy; backend ONNX Runtime. Also reduces the correct model (candidate = reference), which
  must end in "no divergence".
* ``fp16``: the precision case of :mod:`debugging.fp16`. ResNet-50 (test size by default:
  ``--demo fp16`` builds every candidate subgraph in TVM, about a second each) exported to ONNX;
  reference = ONNX Runtime fp32; candidate = the same graph through Relax + ``ToMixedPrecision``
  with an fp16 accumulator; the repro is then replayed with the fix (fp32 accumulator).

Each demo writes ``results/debugging/repro_<case>/`` (or ``--out``) and its table,
``results/debugging/reduce_wrong_rewrite`` / ``reduce_fp16``, and returns ``(rows, the table's Markdown path)``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from common.results import results_dir, write_table


def chain_with_neg(n_before: int = 20, n_after: int = 20, width: int = 8) -> onnx.ModelProto:
    """A known case: x[2, width] -> ``n_before // 2`` (Add 0.5, Tanh) pairs -> Neg -> ``n_after // 2`` pairs
    -> Identity -> y (float32, opset 17): ``n_before`` and ``n_after`` count nodes (an odd one rounds down).

    Dropping the Neg changes values only (Tanh is odd: the sign flips downstream).
    """
    nodes, prev, k = [], "x", 0

    def pair(prev):
        nonlocal k
        nodes.append(helper.make_node("Add", [prev, "half"], [f"a{k}"], name=f"add{k}"))
        nodes.append(helper.make_node("Tanh", [f"a{k}"], [f"t{k}"], name=f"tanh{k}"))
        k += 1
        return f"t{k - 1}"

    for _ in range(n_before // 2):
        prev = pair(prev)
    nodes.append(helper.make_node("Neg", [prev], ["neg"], name="neg0"))
    prev = "neg"
    for _ in range(n_after // 2):
        prev = pair(prev)
    nodes.append(helper.make_node("Identity", [prev], ["y"], name="out"))
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, width])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, width])],
                          initializer=[helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def long_dot(k: int = 8192, n: int = 8, extra: int = 6, seed: int = 0) -> tuple[onnx.ModelProto, dict]:
    """A known precision case: x[1, k] -> ``extra`` elementwise nodes -> MatMul(W[k, n]) -> ``extra`` more -> y.

    x and W are U(0, 1) (positive): every partial sum of the dot product grows to ~k/4, where fp16's
    spacing (2 at 2048) swallows terms of ~0.25, so an fp16 accumulator stalls far below the exact
    sum; an fp32 accumulator rounds only the result (2^-11 relative). Returns ``(model, feeds)``.
    """
    rng = np.random.default_rng(seed)
    w = rng.uniform(0, 1, (k, n)).astype(np.float32)
    nodes, prev = [], "x"
    for i in range(extra):
        op = ("Relu", "Abs")[i % 2]
        nodes.append(helper.make_node(op, [prev], [f"pre{i}"], name=f"pre{i}"))
        prev = f"pre{i}"
    nodes.append(helper.make_node("MatMul", [prev, "W"], ["mm"], name="matmul"))
    prev = "mm"
    for i in range(extra):
        nodes.append(helper.make_node("Mul" if i % 2 else "Add", [prev, "c"], [f"post{i}"], name=f"post{i}"))
        prev = f"post{i}"
    nodes.append(helper.make_node("Identity", [prev], ["y"], name="out"))
    g = helper.make_graph(nodes, "long_dot", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
                          initializer=[onnx.numpy_helper.from_array(w, "W"),
                                       helper.make_tensor("c", TensorProto.FLOAT, [], [0.5])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    return model, {"x": rng.uniform(0, 1, (1, k)).astype(np.float32)}


def _row(case: str, red, out: Path, replays: dict) -> dict:
    from .reducer import report_line

    return {"case": case, "nodes_before": red.nodes_before, "nodes_after": red.nodes_after if red.keep else 0,
            "factor": round(red.nodes_before / red.nodes_after, 1) if red.keep else None,
            "evaluations": red.evaluations, "diverging_outputs": ", ".join(red.outputs) or "-",
            "max_abs": red.max_abs if red.keep else 0.0,
            "confirmed_without_extra_outputs": red.confirmed if red.keep else None,
            **replays, "line": report_line(red, out)}


def _table(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "line"} for r in rows]


def _replays(out: Path, backends) -> dict:
    from .replay import replay

    return {f"replay {b}": ("diverges" if not replay(out, b)[0].passed else "agrees") for b in backends}


def wrong_rewrite(out: str | None = None) -> tuple[list[dict], Path]:
    """Lab 01 step 8's wrong rewrite on LLaMA-tiny, reduced; and the correct model (no divergence)."""
    import tempfile

    from common.models import build_llama_tiny
    from common.onnx_utils import export_torchscript
    from lab01_onnx.divergence import make_feeds, wrong_rewrite_neg_as_identity
    from lab01_onnx.passes import run_passes

    from .reducer import ORT_TOL, reduce_to_folder

    with tempfile.TemporaryDirectory() as tmp:
        raw = onnx.load(str(export_torchscript(build_llama_tiny(batch=1, seq=8), Path(tmp) / "llama_tiny.onnx")))
    opt, _ = run_passes(raw)
    faulty, removed = wrong_rewrite_neg_as_identity(opt)
    feeds = make_feeds(opt, {"batch": 1, "sequence": 8}, 0)
    folder = Path(out) if out else results_dir("debugging") / "repro_wrong_rewrite"
    red = reduce_to_folder(opt, faulty, feeds, folder, backend="onnxruntime-noopt", tol=ORT_TOL,
                           confirm="onnxruntime", meta={"case": f"LLaMA-tiny, {removed} dropped as an Identity"})
    rows = [_row(f"LLaMA-tiny, Lab 01 wrong rewrite ({removed} dropped)", red, folder,
                 _replays(folder, ["onnxruntime", "onnxruntime-noopt"]))]
    correct = folder.with_name(folder.name + "_correct")  # written only if the correct model diverged (a bug)
    ok = reduce_to_folder(opt, opt, feeds, correct, backend="onnxruntime-noopt", tol=ORT_TOL)
    rows.append(_row("LLaMA-tiny after the passes (correct)", ok, correct, {}))
    paths = write_table("debugging", "reduce_wrong_rewrite", _table(rows), title="Reducer: Lab 01's wrong rewrite",
                        meta={"tolerance": ORT_TOL, "search": "bisect end, bisect start, remove one at a time"})
    return rows, paths["md"]


def fp16(out: str | None = None, small: bool = True) -> tuple[list[dict], Path]:
    """ResNet-50 (test size unless ``small=False``) in TVM with an fp16 accumulator, reduced; replayed with the fix."""
    import tempfile

    from common.models import build_resnet50
    from common.onnx_utils import export_torchscript

    from .reducer import FP16_TOL, reduce_to_folder

    bundle = build_resnet50(small=small, image=64 if small else 224)
    with tempfile.TemporaryDirectory() as tmp:
        model = onnx.load(str(export_torchscript(bundle, Path(tmp) / "resnet50.onnx")))
    feeds = bundle.numpy_inputs()
    folder = Path(out) if out else results_dir("debugging") / "repro_fp16"
    red = reduce_to_folder(model, model, feeds, folder, backend="tvm-fp16-acc16", tol=FP16_TOL,
                           meta={"case": f"ResNet-50{' (test size)' if small else ''}, TVM fp16 accumulation"})
    rows = [_row(f"ResNet-50{' (test size, 64x64)' if small else ''} in TVM, fp16 accumulation", red, folder,
                 _replays(folder, ["tvm-fp16-acc16", "tvm-fp16-acc32"]) if red.keep else {})]
    paths = write_table("debugging", "reduce_fp16", _table(rows), title="Reducer: fp16 accumulation in TVM",
                        meta={"tolerance": FP16_TOL, "reference": "onnxruntime fp32"})
    return rows, paths["md"]


DEMOS = {"wrong-rewrite": wrong_rewrite, "fp16": fp16}
