"""Step 1: import models into Relax (PyTorch through torch.export, ONNX through from_onnx).

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
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping

import numpy as np

from common.errors import UserError, require

#: torch 2.13's own ``ExportedProgram.run_decompositions`` (which ``from_exported_program`` calls) deep-copies
#: the module call graph and its deprecated ``LeafSpec`` warns on every import (torch/export/exported_program.py,
#: ``_get_updated_module_call_graph``): noise a user cannot act on, silenced here and in the suite (pyproject.toml)
LEAFSPEC_WARNING = r".*isinstance\(treespec, LeafSpec\).*"

#: topi's ``take`` in mode ``"fast"`` (the mode both importers give an embedding lookup, ``R.take(..., mode="fast")``)
#: logs this on stderr each time it is legalized (``include/tvm/topi/transform.h``, ``take``): 3-4 lines per
#: BERT or LLaMA build, 12 in the fp16 study. The indices this course feeds are token ids drawn below the
#: vocabulary size (``common.models``), so the line says nothing a user can act on; :func:`quiet_take_legalization`
#: drops it and passes every other native line on.
TAKE_FAST_WARNING = "Fast mode segfaults when there are out-of-bounds indices"


@dataclass(eq=False)
class ImportedModel:
    """A model in Relax plus everything needed to run and check it (read-only once made; equal and hashed by
    identity, so a pass's result can be kept per imported model: :func:`lab02_tvm.graph.passes.tuning_module`).

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


def quiet_take_legalization() -> None:
    """Legalize ``relax.take`` with TVM's own rule, less topi's :data:`TAKE_FAST_WARNING` line.

    Registered over ``tvm.relax.transform.legalize_ops.index._take`` (priority 11 over its 10): the same TIR,
    so the same MetaSchedule workloads and records. Idempotent.
    """
    global _TAKE_QUIET
    if _TAKE_QUIET:
        return
    import tvm
    from tvm.relax.transform.legalize_ops.index import _take

    from common.native_output import without_lines

    def take(bb, call):
        with without_lines(2, TAKE_FAST_WARNING):
            return _take(bb, call)

    tvm.ir.register_op_attr("relax.take", "FLegalize", take, level=11)
    _TAKE_QUIET = True


_TAKE_QUIET = False


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
    quiet_take_legalization()

    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            ep = torch.export.export(bundle.model, args=(), kwargs=dict(bundle.inputs))
    except Exception as exc:  # torch raises many types here; the user needs one line
        raise UserError(f"torch.export failed for {bundle.name}: {str(exc).splitlines()[0]}") from exc
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", LEAFSPEC_WARNING, FutureWarning)
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
        ``python -m lab01_onnx.pipeline`` first to use Lab 01's file; with ``--quick`` when this run's
        results are the quick ones, ``build/results-quick/``).
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
    # a --quick run reads build/results-quick/lab01, which only Lab 01's own --quick run writes
    from common.cli import QUICK_RESULTS
    run = "python -m lab01_onnx.pipeline" + (" --quick" if lab01.parent.parent == QUICK_RESULTS else "")
    return out, (f"{lab01} not found (run `{run}` first); "
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
    quiet_take_legalization()
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


