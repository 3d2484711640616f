"""Steps 1-3: import models into Relax, check struct info, run the standard Relax passes.

Two front ends, one IR:

- PyTorch → ``torch.export.export`` (an ATen-level ``ExportedProgram``) →
  ``tvm.relax.frontend.torch.from_exported_program`` (Relay's ``relay.frontend.from_pytorch`` is
  gone in TVM 0.27; TorchScript tracing is replaced by ``torch.export``).
- ONNX → ``tvm.relax.frontend.onnx.from_onnx`` (Lab 01's LLaMA-tiny file), checked against ONNX
  Runtime on the same inputs.

Weights stay function parameters (``keep_params_as_input=True``) and are detached with
``relax.frontend.detach_params``: the module is small to print and MetaSchedule sees the same
kernels either way. Calling convention of every :class:`ImportedModel`:
``vm["main"](*inputs_in_order, *params)``.

Relay's type checker is replaced by Relax *struct info*: every binding carries its shape and dtype
(``var.ty``, a ``relax.TensorType``: TVM 0.27's Python name for ``TensorStructInfo``), and
``relax.analysis.well_formed`` raises on the first violation (``tvm/relax/analysis/analysis.py``).
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Mapping

import numpy as np

from common.errors import UserError, require



@dataclass
class ImportedModel:
    """A model in Relax plus everything needed to run and check it.

    Attributes:
        name: ``"resnet50"``, ``"bert"``, ``"llama_tiny_onnx"``, …
        mod: ``tvm.IRModule`` with one Relax function ``main(*inputs, *params)``
            (attribute ``num_input`` = number of data inputs).
        params: weights in ``main``'s parameter order (``tvm.runtime.Tensor``, float32).
        inputs: ordered ``{name: np.ndarray}`` data inputs (float32 images, int64 token ids).
        output_names: names of ``main``'s outputs, in order.
        reference: ``{output_name: np.ndarray}`` from an independent runtime (PyTorch eager or
            ONNX Runtime) on :attr:`inputs`.
        reference_name: ``"pytorch"`` or ``"onnxruntime"``.
        import_s: seconds spent in export + import (wall clock).
        meta: source, config, notes.
        flops: FLOPs of one run on :attr:`inputs` (:meth:`common.models.ModelBundle.flops`:
            matmul/conv/attention, 2 per multiply-add); ``None`` when imported from ONNX.
    """

    name: str
    mod: object
    params: list
    inputs: dict[str, np.ndarray]
    output_names: list[str]
    reference: dict[str, np.ndarray]
    reference_name: str
    import_s: float
    meta: dict = field(default_factory=dict)
    flops: float | None = None

    def vm_args(self, device=None, *, with_params: bool = True) -> list:
        """``[*inputs, *params]`` as TVM tensors on ``device`` (default CPU), in ``main``'s order.

        ``with_params=False`` gives the inputs only, for a module built from :func:`bind_params`.
        """
        import tvm
        dev = device or tvm.cpu()
        ins = [tvm.runtime.tensor(a, dev) for a in self.inputs.values()]
        if not with_params:
            return ins
        if device is None or device.dlpack_device_type() == tvm.cpu().dlpack_device_type():
            return ins + list(self.params)
        return ins + [tvm.runtime.tensor(p.numpy(), dev) for p in self.params]


# ---------------------------------------------------------------------------------------------
# Step 1: import
# ---------------------------------------------------------------------------------------------

def _unsupported_torch_ops(message: str) -> str | None:
    """The op list inside the Relax torch front end's "Unsupported function types [...]" assertion."""
    marker = "Unsupported function types"
    return message.split(marker, 1)[1].strip() if marker in message else None


def import_torch(bundle, *, verbose: bool = False) -> ImportedModel:
    """Export a :class:`common.models.ModelBundle` with ``torch.export`` and import it into Relax.

    Args:
        bundle: model + example inputs (batch 1, ResNet 224×224 float32, BERT int64 [1, 128]).
        verbose: print the Relax module.

    Returns:
        :class:`ImportedModel` whose reference outputs come from PyTorch eager (``bundle.run()``).

    Raises:
        UserError: ``torch.export`` fails, or the graph holds ATen ops the Relax importer cannot
            convert (the message lists them).
    """
    import torch
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            ep = torch.export.export(bundle.model, args=(), kwargs=dict(bundle.inputs))
    except Exception as exc:  # torch raises many types here; the user needs one line
        raise UserError(f"torch.export failed for {bundle.name}: {str(exc).splitlines()[0]}") from exc
    try:
        mod = from_exported_program(ep, keep_params_as_input=True, unwrap_unit_return_tuple=True)
    except AssertionError as exc:
        ops = _unsupported_torch_ops(str(exc))
        if ops is None:
            raise
        raise UserError(f"{bundle.name}: PyTorch ops not supported by TVM's Relax importer: {ops}; "
                        "rewrite them in the model or register a custom_convert_map") from exc
    mod, params = relax.frontend.detach_params(mod)
    seconds = time.perf_counter() - t0
    if verbose:
        print(mod.script(show_meta=False))
    return ImportedModel(
        name=bundle.name, mod=mod, params=list(params.get("main", [])), inputs=bundle.numpy_inputs(),
        output_names=list(bundle.output_names), reference=bundle.run(), reference_name="pytorch",
        import_s=seconds, meta={"source": "torch.export + relax.frontend.torch.from_exported_program",
                                **bundle.meta}, flops=bundle.flops())


def lab01_llama_onnx() -> tuple[Path, str]:
    """Path of Lab 01's LLaMA-tiny ONNX file; exports the same file here if Lab 01 has not run.

    Returns:
        ``(path, note)``: ``results/lab01/llama_tiny.onnx`` when present; otherwise the file Lab 01
        would write (the shared TorchScript exporter, ``common.onnx_utils.export_torchscript``),
        written to ``results/lab02/llama_tiny_fallback.onnx``, and a note saying so (run
        ``python -m lab01_onnx.pipeline`` first to use Lab 01's file).
    """
    from common.models import build_llama_tiny
    from common.onnx_utils import export_torchscript
    from common.results import results_dir

    lab01 = results_dir("lab01") / "llama_tiny.onnx"
    if lab01.exists():
        return lab01, f"Lab 01 file {lab01}"
    out = results_dir("lab02") / "llama_tiny_fallback.onnx"
    b = build_llama_tiny(batch=2, seq=16, seed=0)
    export_torchscript(b, out)
    return out, (f"{lab01} not found (run `python -m lab01_onnx.pipeline` first); "
                 f"exported LLaMA-tiny with Lab 01's TorchScript exporter to {out}")


def import_onnx(path: str | Path, inputs: Mapping[str, np.ndarray], *, name: str = "onnx_model",
                verbose: bool = False) -> ImportedModel:
    """Import an ONNX file into Relax with ``relax.frontend.onnx.from_onnx``; reference = ONNX Runtime.

    Dynamic axes (``batch``, ``sequence``) are pinned to the shapes of ``inputs``. When TVM's
    importer rejects the raw graph (TVM 0.27 fails on TorchScript's ``Shape→Gather`` idiom), the
    graph is simplified with onnxsim at those shapes and imported again; ``meta["note"]`` says so.
    ONNX Runtime always runs the *original* file.

    Args:
        path: ``.onnx`` file (single file, no external data required).
        inputs: ``{graph_input_name: array}`` (LLaMA-tiny: int64 [2, 16] ids and mask).

    Raises:
        UserError: missing file, ONNX ops the Relax importer does not support (listed), or a graph
            the importer rejects even after simplification.
    """
    import onnx
    import onnxruntime as ort
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx
    from common.timing import ort_session_options

    path = Path(path)
    if not path.exists():
        raise UserError(f"ONNX file {path} does not exist; run `python -m lab01_onnx.pipeline` to write it")
    t0 = time.perf_counter()
    model = onnx.load(str(path))
    graph_inputs = [i.name for i in model.graph.input]
    missing = [n for n in graph_inputs if n not in inputs]
    if missing:
        raise UserError(f"{path.name} needs inputs {missing}; got {list(inputs)}")
    feed = {n: np.asarray(inputs[n]) for n in graph_inputs}
    shapes = {k: list(v.shape) for k, v in feed.items()}

    def convert(m):
        # Initializers stay constants (keep_params_in_input=False): shape initializers feeding
        # Reshape must be constants, or the importer emits data-dependent shapes (an impure
        # vm.builtin.tensor_to_shape call that fails well_formed).
        return from_onnx(m, shape_dict=shapes, dtype_dict={k: str(v.dtype) for k, v in feed.items()},
                         keep_params_in_input=False)

    note = "imported as is"
    try:
        mod = convert(model)
    except tvm.error.OpNotImplemented as exc:
        raise UserError(f"{path.name}: {str(exc).strip().splitlines()[-1]}") from exc
    except Exception as exc:  # noqa: BLE001 - the importer raises bare InternalErrors on some idioms
        # TVM 0.27's Gather converter rejects a Shape value as data (TorchScript's Shape→Gather
        # idiom). With the input shapes pinned, onnxsim folds those sub-graphs to constants.
        first = next((ln.strip() for ln in str(exc).splitlines() if "Check failed" in ln or "Error" in ln),
                     type(exc).__name__)
        onnxsim = require("onnxsim", "onnxsim", "simplifying ONNX graphs TVM's importer rejects")
        simplified, ok = onnxsim.simplify(model, overwrite_input_shapes=shapes)
        if not ok:
            raise UserError(f"{path.name}: TVM's ONNX importer failed ({first}) and onnxsim could not "
                            "simplify the graph") from exc
        try:
            mod = convert(simplified)
        except Exception as exc2:  # noqa: BLE001
            raise UserError(f"{path.name}: TVM's ONNX importer failed on the raw and the simplified "
                            f"graph: {str(exc2).strip().splitlines()[-1][:200]}") from exc2
        note = (f"raw graph rejected by TVM's importer ({first[:120]}); imported the onnxsim-simplified "
                f"graph with pinned input shapes ({len(model.graph.node)} → {len(simplified.graph.node)} nodes)")
    mod, params = relax.frontend.detach_params(mod)
    seconds = time.perf_counter() - t0
    if verbose:
        print(mod.script(show_meta=False))
    sess = ort.InferenceSession(str(path), sess_options=ort_session_options(1), providers=["CPUExecutionProvider"])
    out_names = [o.name for o in sess.get_outputs()]
    ref = dict(zip(out_names, sess.run(None, feed)))
    return ImportedModel(name=name, mod=mod, params=list(params.get("main", [])), inputs=feed,
                         output_names=out_names, reference=ref, reference_name="onnxruntime",
                         import_s=seconds, meta={"source": f"relax.frontend.onnx.from_onnx({path.name})",
                                                 "opset": [o.version for o in model.opset_import],
                                                 "note": note})


def bind_params(im: ImportedModel, mod=None):
    """``mod`` (default ``im.mod``) with the weights bound as constants: ``main(*inputs)`` only.

    What MetaSchedule's ``compile_relax`` flow expects; ``FoldConstant`` can then precompute
    weight-only sub-graphs (BERT's weight transposes, BatchNorm scale/shift).
    """
    from tvm import relax
    mod = im.mod if mod is None else mod
    func = mod["main"]
    n_in = len(im.inputs)
    weights = dict(zip(list(func.params)[n_in:], im.params))
    return relax.transform.BindParams("main", weights)(mod) if weights else mod


def tuning_module(im: ImportedModel):
    """The unfused, weights-bound module MetaSchedule tunes and ``tuning.build_tuned`` compiles.

    Weights bound as constants (:func:`bind_params`), then ``FoldBatchnormToConv2D`` (scales each
    conv2d's weights and bias by its BatchNorm — possible only once weights are constants), then
    the graph-level passes of step 3, then :mod:`lab02_tvm.fast_gelu` (GELU lowered with
    ``fast_erf``, which vectorizes, instead of libm's scalar ``erff``). ResNet-50 then has 28 tuning
    tasks (8.2 GFLOP per image) instead of 39 with the BatchNorm arithmetic left in every conv
    epilogue; BERT-base's GELU kernel goes from 20.5 ms a call (tuned, scalar ``erff``) to a
    vectorized one.
    """
    from tvm import relax

    from .fast_gelu import fast_gelu
    mod = relax.transform.FoldBatchnormToConv2D()(bind_params(im))
    by_name = {name: factory for name, factory, _ in standard_passes()}
    for name in GRAPH_LEVEL:
        mod = by_name[name]()(mod)
    mod, _ = fast_gelu(mod)
    relax.analysis.well_formed(mod)
    return mod


# ---------------------------------------------------------------------------------------------
# Step 2: struct info / well-formedness summary
# ---------------------------------------------------------------------------------------------

def _fully_known(ty) -> bool:
    """True when ``ty`` is a tensor (or tuple of tensors) type with known shape and dtype.

    TVM 0.27 renamed Relax *struct info* to *types* in Python: ``relax.TensorType(shape, dtype)``
    (formerly ``TensorStructInfo``), ``relax.TupleType``, ``relax.ShapeType``; a binding's is ``var.ty``.
    """
    import tvm
    from tvm import relax
    if isinstance(ty, relax.TupleType):
        return all(_fully_known(f) for f in ty.fields)
    if isinstance(ty, relax.TensorType):
        return ty.shape is not None and ty.ndim >= 0 and str(ty.dtype) not in ("", "void")
    return isinstance(ty, (relax.ShapeType, relax.ObjectType, tvm.ir.PrimType))


def bindings_without_struct_info(mod) -> list[str]:
    """Names of the Relax bindings whose struct info lacks a shape or dtype (empty = all typed).

    This is the Relax counterpart of Relay's ``InferType`` check: every binding in every Relax
    function must carry a ``relax.TensorType`` (struct info) with a known shape and dtype (or a
    tuple of those).
    """
    from tvm import relax
    bad: list[str] = []
    for gv, func in mod.functions.items():
        if not isinstance(func, relax.Function):
            continue
        for p in func.params:
            if not _fully_known(p.ty):
                bad.append(f"{gv.name_hint}:{p.name}")
        body = func.body
        for block in getattr(body, "blocks", []):
            for b in block.bindings:
                if not _fully_known(b.var.ty):
                    bad.append(f"{gv.name_hint}:{b.var.name}")
    return bad


def relax_op_counts(mod) -> Counter:
    """``Counter`` of Relax operator names (``relax.nn.conv2d``, ``relax.call_tir``, …) over all Relax functions."""
    import tvm
    from tvm import relax
    ops: Counter = Counter()

    def visit(e):
        if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.Op):
            ops[e.op.name] += 1

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return ops


def module_counts(mod) -> dict:
    """Sizes that show what a pass did.

    Returns:
        ``{"main_calls": calls in ``main`` — to Relax operators, TIR kernels (``call_tir``) or fused
        Relax functions, i.e. the steps the VM executes; "call_tir": ``call_tir`` in ``main``;
        "relax_ops": operator calls in all Relax functions, fused ones included;
        "relax_functions": Relax functions (FuseOps' groups before FuseTIR); "tir_primfuncs": TIR
        PrimFuncs}``.
    """
    import tvm
    from tvm import relax
    main_calls: Counter = Counter()

    def visit(e):
        if isinstance(e, relax.Call):
            main_calls["call_tir" if isinstance(e.op, tvm.ir.Op) and e.op.name == "relax.call_tir" else
                       "op" if isinstance(e.op, tvm.ir.Op) else "function"] += 1

    relax.analysis.post_order_visit(mod["main"].body, visit)
    funcs = list(mod.functions.values())
    return {
        "main_calls": int(sum(main_calls.values())),
        "call_tir": int(main_calls["call_tir"]),
        "relax_ops": int(sum(relax_op_counts(mod).values())),
        "relax_functions": sum(isinstance(f, relax.Function) for f in funcs),
        "tir_primfuncs": sum(isinstance(f, tvm.tirx.PrimFunc) for f in funcs),
    }


def embedded_constants(mod) -> list[np.ndarray]:
    """The tensors embedded as ``relax.Constant`` in the Relax functions (ONNX initializers, BN stats)."""
    import tvm
    from tvm import relax
    found: list = []

    def visit(e):
        if isinstance(e, tvm.ir.expr.Constant) and hasattr(e.value, "numpy") \
                and not any(e.same_as(f) for f in found):
            found.append(e)

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return [e.value.numpy() for e in found]


def summarize(im: ImportedModel) -> dict:
    """Step 2 summary: well-formedness, struct-info coverage, ops, parameter count and bytes.

    Returns:
        ``{"model", "well_formed": bool, "untyped_bindings": int, "relax_ops": int,
        "distinct_ops": int, "top_ops": "name×n, …", "params": int (weight tensors: function
        parameters plus embedded constants), "param_elements": int, "param_bytes": int (bytes),
        "inputs": "name:shape:dtype, …"}``.
    """
    from tvm import relax
    ops = relax_op_counts(im.mod)
    arrays = [p.numpy() for p in im.params] + embedded_constants(im.mod)
    untyped = bindings_without_struct_info(im.mod)
    return {
        "model": im.name,
        "well_formed": bool(relax.analysis.check_well_formed(im.mod)),
        "untyped_bindings": len(untyped),
        "relax_ops": int(sum(ops.values())),
        "distinct_ops": len(ops),
        "top_ops": ", ".join(f"{k.removeprefix('relax.')}×{v}" for k, v in ops.most_common(4)),
        "params": len(arrays),
        "param_elements": int(sum(a.size for a in arrays)),
        "param_bytes": int(sum(a.nbytes for a in arrays)),
        "inputs": ", ".join(f"{k}:{'x'.join(map(str, v.shape))}:{v.dtype}" for k, v in im.inputs.items()),
    }


# ---------------------------------------------------------------------------------------------
# Step 3: standard Relax passes
# ---------------------------------------------------------------------------------------------

def standard_passes() -> list[tuple[str, Callable, str]]:
    """The step-3 pass list, in order: ``(name, pass factory, what it rewrites)``.

    Graph-level passes first (they keep Relax operators), then lowering (LegalizeOps turns each
    operator into a ``call_tir`` of a TIR PrimFunc), then fusion (FuseOps groups call_tir's by
    their TIR op pattern — injective, broadcast, reduction, out-EWise-fusible — into Relax
    sub-functions; FuseTIR merges each group into one PrimFunc). Source: ``tvm.relax.transform``
    docstrings and ``relax.pipeline.zero_pipeline``.
    """
    from tvm import relax
    T = relax.transform
    return [
        ("DecomposeOpsForInference", T.DecomposeOpsForInference,
         "batch_norm (inference) → its arithmetic; exposes constant folding of running stats"),
        ("FoldConstant", T.FoldConstant, "evaluate sub-graphs whose inputs are all constants"),
        ("EliminateCommonSubexpr", T.EliminateCommonSubexpr, "one binding per identical expression (CSE)"),
        ("DeadCodeElimination", lambda: T.DeadCodeElimination(["main"]), "drop unused bindings and functions"),
        ("LegalizeOps", T.LegalizeOps, "each Relax op → call_tir of a TIR PrimFunc (TOPI compute)"),
        ("AnnotateTIROpPattern", T.AnnotateTIROpPattern, "tag each PrimFunc injective/reduction/…"),
        ("FuseOps", T.FuseOps, "group call_tir's into fused Relax functions by op pattern"),
        ("FuseTIR", T.FuseTIR, "merge each fused group into a single TIR PrimFunc"),
    ]


GRAPH_LEVEL = ("DecomposeOpsForInference", "FoldConstant", "EliminateCommonSubexpr", "DeadCodeElimination")


@dataclass
class PassResult:
    """Output of :func:`run_standard_passes`.

    Attributes:
        graph_mod: the module after the graph-level passes, still *unfused* Relax operators — what
            MetaSchedule tuning and ``tvm.compile`` want (they legalize and fuse themselves).
        fused_mod: after LegalizeOps → FuseTIR: Relax calling fused TIR PrimFuncs.
        rows: one row per stage: ``{"stage", "relax_ops", "call_tir", "relax_functions",
            "tir_primfuncs", "main_calls", "relax_ops", "seconds", "well_formed"}`` (see
            :func:`module_counts`); the first row is the import.
    """

    graph_mod: object
    fused_mod: object
    rows: list[dict]


def run_standard_passes(mod, *, verbose: bool = False, progress: bool = False) -> PassResult:
    """Run :func:`standard_passes` one at a time, counting after each and checking well-formedness.

    Raises:
        AssertionError: a pass produced a module that is not well formed (names the pass).
    """
    from tvm import relax
    rows = [{"stage": "imported", **module_counts(mod), "seconds": 0.0,
             "well_formed": bool(relax.analysis.check_well_formed(mod))}]
    graph_mod = None
    steps = standard_passes()
    if progress:
        from tqdm import tqdm
        steps = tqdm(steps, desc="relax passes", leave=False)
    for name, factory, _ in steps:
        t0 = time.perf_counter()
        mod = factory()(mod)
        seconds = time.perf_counter() - t0
        ok = bool(relax.analysis.check_well_formed(mod))
        if not ok:
            raise AssertionError(f"module is not well formed after {name}")
        rows.append({"stage": name, **module_counts(mod), "seconds": round(seconds, 3), "well_formed": ok})
        if name == GRAPH_LEVEL[-1]:
            graph_mod = mod
        if verbose:
            print(f"---- after {name} ----")
            print(mod.script(show_meta=False))
    return PassResult(graph_mod=graph_mod, fused_mod=mod, rows=rows)
