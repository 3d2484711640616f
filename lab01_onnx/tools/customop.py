"""A custom ONNX operator end to end: LLaMA-tiny with RMSNorm as one ``ai.onnx.contrib::RMSNorm`` node.

Run::

    python -m lab01_onnx.tools.customop [-v]

Steps, one function each:

1. :func:`custom_rmsnorm_model` -- LLaMA-tiny (common.models) with every ``LlamaRMSNorm`` replaced
   by a module that calls one PyTorch custom op, ``mlc::rms_norm(x, weight, eps)``
   (``torch.library.custom_op``, with a fake/meta kernel so ``torch.export`` can trace it).
2. :func:`export_custom` -- ``torch.onnx.export(dynamo=True, custom_translation_table=...)``: the
   exporter's custom-op path maps ``torch.ops.mlc.rms_norm`` to an onnxscript function that emits
   one node of the custom domain ``ai.onnx.contrib`` (opset import ``ai.onnx.contrib`` v1).
3. :func:`run_without_kernel` -- a plain ONNX Runtime session refuses the model when it loads it:
   ``... ai.onnx.contrib:RMSNorm(-1) is not a registered function/op`` (no kernel, no schema).
4. :func:`run_with_python_kernel` -- the same model runs once a kernel exists: a NumPy function
   registered with ``onnxruntime_extensions.onnx_op`` and the extensions library registered in the
   session (``SessionOptions.register_custom_ops_library(get_library_path())``); gated against PyTorch.
5. :func:`run_with_function_fallback` -- the other way to run an op the runtime lacks: ship its
   definition in the model as an ONNX *model-local function* (``ModelProto.functions``, ONNX IR
   spec "Functions") built from standard ops; ORT inlines it, no kernel needed; gated too.

Writes ``results/lab01/customop.{md,csv,json}`` and ``customop.png``.
"""
from __future__ import annotations

import time
from pathlib import Path
from collections.abc import Sequence

import numpy as np
import onnx
import torch

from common.cli import parser, step, want_ir
from common.errors import GateFailed, UserError, require, run_cli
from common.onnx_utils import export_dynamo, load_model, op_counts, ort_run, ort_session, print_ir, save_model

LAB = "lab01"
DOMAIN = "ai.onnx.contrib"  # the domain onnxruntime-extensions' Python ops live in
OP = "RMSNorm"
ATOL = 1e-4  # max abs on logits (fp32; the NumPy kernel and PyTorch reduce in a different order)


# ------------------------------------------------------------------------------------------------
# 1. PyTorch side: one custom op for RMSNorm


@torch.library.custom_op("mlc::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """RMSNorm (Zhang & Sennrich 2019): ``weight * x / sqrt(mean(x^2, -1) + eps)``, float32."""
    xf = x.to(torch.float32)
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * y.to(x.dtype)


@rms_norm.register_fake
def _(x, weight, eps):
    return torch.empty_like(x)


class CustomRMSNorm(torch.nn.Module):
    """Drop-in for ``LlamaRMSNorm`` that calls ``torch.ops.mlc.rms_norm`` (same weight, same eps)."""

    def __init__(self, weight: torch.nn.Parameter, eps: float):
        super().__init__()
        self.weight = weight
        self.eps = float(eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mlc.rms_norm(x, self.weight, self.eps)


def custom_rmsnorm_model(batch: int = 2, seq: int = 16):
    """Step 1: LLaMA-tiny bundle with each ``LlamaRMSNorm`` swapped for :class:`CustomRMSNorm`.

    Returns:
        ``(bundle, reference_outputs, n_replaced)``; the reference is the *original* model's
        logits, so the swap itself is checked too.

    Raises:
        UserError: the model holds no ``LlamaRMSNorm`` module to swap (transformers renamed it).
    """
    from common.models import build_llama_tiny

    bundle = build_llama_tiny(batch=batch, seq=seq)
    reference = bundle.run()
    n = 0
    for parent in list(bundle.model.modules()):
        for name, child in list(parent.named_children()):
            if type(child).__name__ == "LlamaRMSNorm":
                setattr(parent, name, CustomRMSNorm(child.weight, child.variance_epsilon))
                n += 1
    if n == 0:
        raise UserError("no LlamaRMSNorm module found in LLaMA-tiny; transformers changed its module names")
    swapped = bundle.run()
    gap = float(np.max(np.abs(swapped["logits"] - reference["logits"])))
    step(1, "swap", f"replaced {n} LlamaRMSNorm modules by torch.ops.mlc.rms_norm; PyTorch logits moved by {gap:.3g}")
    return bundle, reference, n


# ------------------------------------------------------------------------------------------------
# 2. Export through the exporter's custom-op path


def register_rmsnorm_schema() -> onnx.defs.OpSchema:
    """Declare ``ai.onnx.contrib::RMSNorm`` v1 to ``onnx.defs`` (idempotent) and return it.

    Inputs ``X`` (float [..., D]) and ``W`` (float [D]), output ``Y`` (same shape as ``X``),
    attribute ``epsilon`` (float). The exporter's onnxscript tracer reads the number of outputs
    from this schema; without it an unknown op is built with zero outputs.
    """
    try:
        return onnx.defs.get_schema(OP, 1, DOMAIN)
    except onnx.defs.SchemaError:
        pass
    S = onnx.defs.OpSchema
    schema = S(OP, DOMAIN, 1, doc="RMSNorm over the last axis: Y = W * X / sqrt(mean(X^2, -1) + epsilon)",
               inputs=[S.FormalParameter("X", "T"), S.FormalParameter("W", "T")],
               outputs=[S.FormalParameter("Y", "T")],
               type_constraints=[("T", ["tensor(float)"], "float32 tensors")],
               attributes=[S.Attribute("epsilon", S.AttrType.FLOAT, "added to the mean square")])
    onnx.defs.register_schema(schema)
    return onnx.defs.get_schema(OP, 1, DOMAIN)


def _translation_table() -> dict:
    """``{torch op: onnxscript function}`` emitting one ``ai.onnx.contrib::RMSNorm`` node."""
    onnxscript = require("onnxscript", "onnxscript", "the custom-op export")
    register_rmsnorm_schema()
    contrib = onnxscript.values.Opset(DOMAIN, 1)

    def custom_rms_norm(x, weight, eps: float):
        # traced by the exporter: each call records one node of the custom domain
        return contrib.RMSNorm(x, weight, epsilon=eps)

    return {torch.ops.mlc.rms_norm.default: custom_rms_norm}


def export_custom(bundle, path: Path) -> onnx.ModelProto:
    """Step 2: dynamo export with ``custom_translation_table``; the model holds RMSNorm nodes of :data:`DOMAIN`.

    Raises:
        UserError: the export holds no :data:`DOMAIN` ``::RMSNorm`` node (the translation was not applied), or
            the exporter fails (:func:`common.onnx_utils.export_dynamo`).
        MissingDependency: ``onnxscript`` is not installed.
    """
    t = time.perf_counter()
    export_dynamo(bundle, path, opset=18, custom_translation_table=_translation_table())
    model = load_model(path)
    n = sum(1 for node in model.graph.node if node.domain == DOMAIN and node.op_type == OP)
    # Model-local onnxscript functions are inlined by the exporter; the op must stay one node.
    if n == 0:
        raise UserError(f"the export holds no {DOMAIN}::{OP} node; the custom translation was not applied")
    step(2, "export", f"{path.name}: {len(model.graph.node)} nodes, {n} x {DOMAIN}::{OP}, "
          f"opset imports {[(o.domain or 'ai.onnx', o.version) for o in model.opset_import]} in {time.perf_counter() - t:.1f} s")
    return model


# ------------------------------------------------------------------------------------------------
# 3-5. Runtimes


def run_without_kernel(path: Path) -> str:
    """Step 3: plain ORT (no custom-op library). Returns the one-line error ORT gives at load time.

    Raises:
        GateFailed: ORT accepted the model (then the op is not custom any more).
    """
    try:
        ort_session(path)
    except UserError as exc:  # ORT's own error (Fail / InvalidGraph), first line
        msg = " ".join(str(exc).split())
        step(3, "plain-ort", f"refuses the model: {msg}")
        return msg
    raise GateFailed(f"ONNX Runtime loaded {path} without a kernel for {DOMAIN}::{OP}")


def _register_python_kernel():
    """Register the NumPy RMSNorm as an onnxruntime-extensions Python op (idempotent)."""
    ext = require("onnxruntime_extensions", "onnxruntime-extensions", "the custom-op kernel")
    if getattr(_register_python_kernel, "done", False):
        return ext

    @ext.onnx_op(op_type=OP, inputs=[ext.PyCustomOpDef.dt_float, ext.PyCustomOpDef.dt_float],
                 outputs=[ext.PyCustomOpDef.dt_float], attrs={"epsilon": ext.PyCustomOpDef.dt_float})
    def rms_norm_numpy(x, weight, **attrs):
        """NumPy RMSNorm over the last axis; ``attrs["epsilon"]`` from the node attribute."""
        x = np.asarray(x, dtype=np.float32)
        inv = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(attrs["epsilon"]))
        return (np.asarray(weight, dtype=np.float32) * (x * inv)).astype(np.float32)

    _register_python_kernel.done = True
    return ext


def run_with_python_kernel(path: Path, feeds) -> dict[str, np.ndarray]:
    """Step 4: ORT + onnxruntime-extensions library + the Python RMSNorm kernel."""
    ext = _register_python_kernel()
    return ort_run(path, feeds, level="ALL", custom_ops_library=ext.get_library_path())


def rmsnorm_function(opset: int = 18) -> onnx.FunctionProto:
    """``ai.onnx.contrib::RMSNorm(X, W) -> Y`` as an ONNX function of standard ops (attribute ``epsilon``).

    ``Y = W * X / sqrt(ReduceMean(X*X, axes=[-1], keepdims=1) + epsilon)`` (ReduceMean takes axes
    as an input since opset 18).
    """
    h = onnx.helper
    nodes = [
        h.make_node("Mul", ["X", "X"], ["sq"]),
        h.make_node("Constant", [], ["axes"], value=h.make_tensor("axes", onnx.TensorProto.INT64, [1], [-1])),
        h.make_node("ReduceMean", ["sq", "axes"], ["ms"], keepdims=1),
        h.make_node("Constant", [], ["eps"], value_float=0.0),
        h.make_node("Add", ["ms", "eps"], ["ms_eps"]),
        h.make_node("Sqrt", ["ms_eps"], ["rms"]),
        h.make_node("Div", ["X", "rms"], ["xn"]),
        h.make_node("Mul", ["W", "xn"], ["Y"]),
    ]
    # epsilon is a reference attribute: the Constant takes the caller's value.
    eps_attr = onnx.AttributeProto()
    eps_attr.name = "value_float"
    eps_attr.ref_attr_name = "epsilon"
    eps_attr.type = onnx.AttributeProto.FLOAT
    del nodes[3].attribute[:]
    nodes[3].attribute.append(eps_attr)
    return h.make_function(DOMAIN, OP, ["X", "W"], ["Y"], nodes,
                           opset_imports=[h.make_opsetid("", opset)], attributes=["epsilon"])


def with_function_fallback(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``model`` that carries :func:`rmsnorm_function` as a model-local function."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    opset = next((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), 18)
    m.functions.append(rmsnorm_function(opset))
    return m


def run_with_function_fallback(model: onnx.ModelProto, path: Path, feeds) -> dict[str, np.ndarray]:
    """Step 5: plain ORT on the model with the RMSNorm function body attached."""
    m = with_function_fallback(model)
    onnx.checker.check_model(m)
    save_model(m, path)
    return ort_run(path, feeds, level="ALL")


# ------------------------------------------------------------------------------------------------


def _plot(rows: list[dict]):
    """Horizontal bars: max |logits - PyTorch| per runtime (log scale); a runtime that failed is a red bar."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from common.results import save_plot

    lo, hi = 1e-9, 1e-2
    fig, ax = plt.subplots(figsize=(8, 2.8))
    for y, r in enumerate(rows):
        ok = r["result"] == "pass"
        v = r["max_abs_vs_pytorch"] if ok else hi
        ax.barh(y, v - lo, left=lo, color="tab:green" if ok else "tab:red", alpha=1.0 if ok else 0.35)
        ax.text(lo * 2, y, f"{v:.2g}" if ok else "did not run: " + r["detail"][:70], va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), [r["runtime"] for r in rows], fontsize=8)
    ax.axvline(ATOL, color="k", ls="--", lw=1, label=f"gate atol {ATOL:g}")
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("max |logits - PyTorch| (log scale)")
    ax.set_title(f"LLaMA-tiny with {DOMAIN}::{OP}: which runtime can run it")
    ax.legend(fontsize=7, loc="lower right")
    return save_plot(fig, LAB, "customop")


def main(argv: Sequence[str] | None = None) -> int:
    ap = parser("python -m lab01_onnx.tools.customop", __doc__)
    args = ap.parse_args(argv)

    from common.gates import GateChain
    from common.results import results_dir, write_table
    from common.timing import environment

    out = results_dir(LAB)
    bundle, reference, n_swapped = custom_rmsnorm_model()
    feeds = bundle.numpy_inputs()
    chain = GateChain("pytorch (original LlamaRMSNorm)", reference, atol=ATOL)
    chain.check("pytorch (mlc::rms_norm custom op)", bundle.run())
    path = out / "llama_tiny_customop.onnx"
    model = export_custom(bundle, path)
    if want_ir(args):
        print_ir("custom-op export", model)
    if args.verbose:
        for node in model.graph.node:
            if node.domain == DOMAIN:
                print(f"    {node.domain}::{node.op_type}({', '.join(node.input)}) -> {node.output[0]} "
                      f"epsilon={onnx.helper.get_attribute_value(node.attribute[0])}")
        print(onnx.printer.to_text(rmsnorm_function()))
    rows = []
    err = run_without_kernel(path)
    rows.append({"runtime": "onnxruntime (plain)", "result": "load error", "max_abs_vs_pytorch": float("nan"),
                 "detail": err[err.find(DOMAIN):][:160] if DOMAIN in err else err[:160]})
    outs = run_with_python_kernel(path, feeds)
    rep = chain.check("ORT + onnxruntime-extensions Python op", outs)
    rows.append({"runtime": "onnxruntime + extensions Python op", "result": "pass", "max_abs_vs_pytorch": rep.max_abs(),
                 "detail": "onnx_op(op_type='RMSNorm') + register_custom_ops_library(get_library_path())"})
    step(4, "kernel", f"ORT + Python kernel: gate max abs {rep.max_abs():.3g} <= {ATOL:g} -> ok")
    outs = run_with_function_fallback(model, out / "llama_tiny_customop_function.onnx", feeds)
    rep = chain.check("ORT + model-local function", outs)
    rows.append({"runtime": "onnxruntime (plain) + model-local function", "result": "pass", "max_abs_vs_pytorch": rep.max_abs(),
                 "detail": f"ModelProto.functions holds {DOMAIN}::{OP} built from Mul/ReduceMean/Add/Sqrt/Div"})
    step(5, "function", f"ORT + model-local function: gate max abs {rep.max_abs():.3g} <= {ATOL:g} -> ok")
    counts = op_counts(model)
    meta = {"model": "LLaMA-tiny (common.models), batch 2, seq 16", "custom op": f"{DOMAIN}::{OP} x {counts.get(f'{DOMAIN}.{OP}', 0)}",
            "modules swapped": n_swapped, "tolerance": f"max abs on logits <= {ATOL:g}"}
    env = environment(threads=1)
    paths = write_table(LAB, "customop", rows, title="A custom ONNX op with and without a runtime kernel", env=env, meta=meta)
    write_table(LAB, "customop_gates", chain.rows, title="customop: numeric gates vs PyTorch", env=env, meta=meta)
    png = _plot(rows)
    step(6, "tables", f"wrote {paths['md']} and {png}")
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
