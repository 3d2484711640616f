"""The one place the labs load, check, save, export and run ONNX models.

* Files: :func:`load_model` (one-line :class:`UserError` for a missing, empty, truncated or
  non-ONNX file; optionally the data-flow part of the checker), :func:`check_model` (the full
  checker), :func:`check_dataflow`, :func:`save_model` (atomic).
* Export (https://docs.pytorch.org/docs/stable/onnx.html): :func:`export_torchscript`
  (``dynamo=False``, opset :data:`TORCHSCRIPT_OPSET`, exporter constant folding OFF by default so
  the raw graph keeps the shape arithmetic graph passes exist for, and ALWAYS with
  :func:`traceable_masks`, so every tool gets the same LLaMA graph the lab optimizes) and
  :func:`export_dynamo` (``torch.export`` + onnxscript, opset :data:`DYNAMO_OPSET`, optionally a
  custom-op translation table). Both write one self-contained file through a temporary name.
* ONNX Runtime: :func:`ort_session` (threads, graph optimization level by its name in
  :data:`ORT_LEVELS`, providers, optional saved optimized model and custom-op library, and ONE
  log keyword, ``log_level``, that sets this session's severity only: ORT's process-wide logger is
  never touched), :func:`ort_run`, :func:`ort_optimize`, :func:`ort_message` and :func:`is_ort_error`
  (what a failure says, and whose it is).
* Quantization: :func:`calibration_reader` (feeds for ``onnxruntime.quantization.quantize_static``).
* Graph facts: :data:`DEFAULT_DOMAINS`, :func:`opset`, :func:`op_key`, :func:`op_counts`;
  :func:`print_ir` (what ``-vv`` prints after each stage).
"""
from __future__ import annotations

import collections
import contextlib
import logging
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx

from .errors import UserError
from .native_output import silenced
from .results import atomic_output, atomic_write

__all__ = ["DEFAULT_DOMAINS", "ORT_LEVELS", "TORCHSCRIPT_OPSET", "DYNAMO_OPSET", "opset", "op_key", "op_counts",
           "load_model", "check_model", "check_dataflow", "save_model", "export_torchscript", "export_dynamo",
           "check_torchscript_opset", "check_dynamo_opset", "traceable_masks", "quiet_logging", "ort_session",
           "ort_run", "ort_optimize", "ort_message", "calibration_reader", "print_ir"]

#: The default ONNX operator domain, spelled both ways the IR allows (ONNX IR spec, "Operator sets").
DEFAULT_DOMAINS = ("", "ai.onnx")
#: ORT graph optimization levels by the names the labs use, in increasing order; each maps to
#: ``onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL`` / ``ORT_ENABLE_BASIC`` / ``_EXTENDED`` /
#: ``_ALL`` (https://onnxruntime.ai/docs/performance/model-optimizations/graph-optimizations.html).
ORT_LEVELS = ("DISABLE_ALL", "BASIC", "EXTENDED", "ALL")
TORCHSCRIPT_OPSET = 17
DYNAMO_OPSET = 18


# ------------------------------------------------------------------------------------------------
# graph facts
# ------------------------------------------------------------------------------------------------

def opset(model: onnx.ModelProto, domain: str = "") -> int:
    """Opset version ``model`` imports for ``domain`` (``""`` = the default domain); 0 if none."""
    wanted = DEFAULT_DOMAINS if domain in DEFAULT_DOMAINS else (domain,)
    return next((int(o.version) for o in model.opset_import if o.domain in wanted), 0)


def op_key(node: onnx.NodeProto) -> str:
    """``op_type`` for the default domain, else ``"<domain>.<op_type>"`` (``com.microsoft.Gelu``)."""
    return node.op_type if node.domain in DEFAULT_DOMAINS else f"{node.domain}.{node.op_type}"


def op_counts(model: onnx.ModelProto) -> collections.Counter:
    """Node count per :func:`op_key` in the main graph (If/Loop/Scan bodies are not counted)."""
    return collections.Counter(op_key(n) for n in model.graph.node)


def print_ir(title: str, model: onnx.ModelProto, max_elements: int = 16) -> None:
    """Print the main graph in ONNX text syntax (``onnx.printer``) under a title line; initializers
    over ``max_elements`` elements are left out (their names still appear where they are read)."""
    g = onnx.GraphProto()
    g.CopyFrom(model.graph)
    small = [t for t in g.initializer if int(np.prod(t.dims)) <= max_elements]
    dropped = len(g.initializer) - len(small)
    del g.initializer[:]
    g.initializer.extend(small)
    print(f"----- IR: {title} ({len(model.graph.node)} nodes; {dropped} initializers over {max_elements} elements "
          f"not printed) -----")
    print(onnx.printer.to_text(g))


# ------------------------------------------------------------------------------------------------
# files
# ------------------------------------------------------------------------------------------------

def load_model(path: str | os.PathLike, *, dataflow: bool = False, load_external_data: bool = True
               ) -> onnx.ModelProto:
    """``onnx.load`` with one-line errors.

    Args:
        dataflow: also run :func:`check_dataflow` (cheap; the inspection tools want it).

    Raises:
        UserError: the path is missing or a directory; the file is empty, truncated or not a
        serialized ``ModelProto`` (a text file, a PyTorch checkpoint); it parses to no graph; or
        (``dataflow``) a node reads a value nothing defines.
    """
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{p} is a directory; pass the path of an .onnx model file")
    if not p.is_file():
        raise UserError(f"{p}: no such file; pass the path of an .onnx model")
    if p.stat().st_size == 0:
        raise UserError(f"{p} is not an ONNX model (empty file); pass a file written by torch.onnx.export or onnx.save")
    try:
        model = onnx.load(str(p), load_external_data=load_external_data)
    except Exception as exc:  # protobuf DecodeError, missing external data
        raise UserError(f"{p} is not an ONNX model ({type(exc).__name__}: {str(exc)[:120]}); "
                        "pass a file written by torch.onnx.export or onnx.save") from None
    if not model.graph.node and not model.graph.output:
        raise UserError(f"{p} is not an ONNX model (it parses, but holds no graph); pass a real .onnx file")
    if dataflow:
        check_dataflow(model, str(p))
    return model


def check_model(model_or_path: onnx.ModelProto | str | os.PathLike, name: str = "") -> None:
    """``onnx.checker.check_model(full_check=True)`` (checker + strict shape inference).

    Raises:
        UserError: the model fails the checker; one line naming the model and the checker's whole message
            (its node and reason: ``input 'zz' of node: name: abs0 OpType: Abs is not output of any previous
            nodes``), cut at 400 characters.
    """
    label = name or (str(model_or_path) if not isinstance(model_or_path, onnx.ModelProto) else "model")
    target = str(model_or_path) if isinstance(model_or_path, (str, os.PathLike)) else model_or_path
    try:
        onnx.checker.check_model(target, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        msg = " ".join(str(exc).split())  # its lines joined: the first alone cuts "of node: ; ..." off its reason
        msg = msg if len(msg) <= 400 else msg[:400] + "..."
        raise UserError(f"{label} fails onnx.checker: {msg}; re-export it or fix the graph") from exc


def check_dataflow(model: onnx.ModelProto, label: str = "model") -> None:
    """The part of ``onnx.checker`` every tool relies on, cheap enough for any model size.

    ONNX IR spec, "Graphs": nodes are listed in topological order and every value is assigned
    once, so each main-graph node input is empty (an omitted optional input), a graph input, an
    initializer, or an output of an earlier node. (Models saved by ONNX Runtime hold contrib-domain
    ops the full checker does not know, so the tools run only this part.)

    Raises:
        UserError: a node reads a value nothing defines before it, or a value is assigned twice.
    """
    g = model.graph
    defined = {i.name for i in g.input} | {t.name for t in g.initializer}
    for k, node in enumerate(g.node):
        for name in node.input:
            if name and name not in defined:
                raise UserError(f"{label} is not a valid ONNX graph: node {k} {node.name or node.op_type!r} ({node.op_type}) "
                                f"reads {name!r}, which no graph input, initializer or earlier node defines; "
                                "re-export it or fix the graph")
        for name in node.output:
            if name and name in defined:
                raise UserError(f"{label} is not a valid ONNX graph: {name!r} is assigned twice (node {k} "
                                f"{node.name or node.op_type!r}); re-export it or fix the graph")
            defined.add(name)


def check_feeds(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray], label: str = "the model") -> None:
    """Check that ``feeds`` fit ``model``'s graph inputs (the ones no initializer sets) before a runtime sees them
    (:func:`check_values` on those inputs; ONNX Runtime checks the same at ``run`` with a long traceback).

    Raises:
        UserError: one line naming the first input that is missing, extra, of another dtype or rank, or of
            another size on a fixed axis or a named axis seen with two sizes.
    """
    inits = {t.name for t in model.graph.initializer}
    check_values([vi for vi in model.graph.input if vi.name not in inits], feeds, label, "input")


def check_values(declared: Sequence[onnx.ValueInfoProto], values: Mapping[str, np.ndarray], label: str,
                 kind: str = "input") -> None:
    """Check ``values`` (``{name: array}``) against the value infos ``declared`` (a graph's inputs or outputs).

    ONNX IR spec, "Graphs" and "Static tensor shapes": each has an element type and a shape whose dims are a
    size (``dim_value``, which must match) or a name (``dim_param``, any size, the same one wherever the name
    recurs). ``label`` names the model and ``kind`` the values (``input``, ``output``) in the message.

    Raises:
        UserError: one line naming the first value that is missing, extra, of another dtype or rank, or of
            another size on a fixed axis or a named axis seen with two sizes.
    """
    names = [vi.name for vi in declared]
    missing, extra = [n for n in names if n not in values], [n for n in values if n not in names]
    if missing or extra:
        raise UserError(f"{label} has {kind}s {names}; the {kind}s given are {list(values)}")
    sizes: dict[str, int] = {}
    for vi in declared:
        arr, tt = np.asarray(values[vi.name]), vi.type.tensor_type
        want = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type) if tt.elem_type else None
        if want is not None and arr.dtype != want:
            raise UserError(f"{label}'s {kind} {vi.name!r} is {np.dtype(want).name}; the one given is {arr.dtype.name}")
        if not tt.HasField("shape"):
            continue
        dims = tt.shape.dim
        if len(dims) != arr.ndim:
            raise UserError(f"{label}'s {kind} {vi.name!r} has rank {len(dims)}; the one given has shape "
                            f"{list(arr.shape)}")
        for axis, (d, n) in enumerate(zip(dims, arr.shape)):
            if d.HasField("dim_value") and d.dim_value != n:
                raise UserError(f"{label}'s {kind} {vi.name!r} has size {d.dim_value} on axis {axis}; the one given "
                                f"has shape {list(arr.shape)}")
            if d.HasField("dim_param") and sizes.setdefault(d.dim_param, n) != n:
                raise UserError(f"{label}'s dim {d.dim_param!r} is {sizes[d.dim_param]} in one {kind} and {n} on "
                                f"axis {axis} of {vi.name!r}")


def save_model(model: onnx.ModelProto, path: str | os.PathLike) -> Path:
    """Write ``model`` as one file, atomically (:func:`common.results.atomic_write`)."""
    return atomic_write(path, model.SerializeToString())


# ------------------------------------------------------------------------------------------------
# exporters
# ------------------------------------------------------------------------------------------------

def _traceable_sdpa_mask(batch_size, cache_position, kv_length, kv_offset=0, mask_function=None,
                         attention_mask=None, **_):
    """Causal + padding boolean mask ``[B, 1, Q, KV]`` from tensor ops only (TorchScript-traceable).

    transformers >= 4.53 builds masks with ``torch.vmap`` (``sdpa_mask_recent_torch``), which the
    TorchScript tracer cannot trace, and its older fallback bakes the sequence length into a Reshape.
    This computes the same mask as ``causal_mask_function`` AND the 2-D padding mask (what LLaMA
    uses without sliding windows); the labs' gates compare the export with the *unpatched* PyTorch
    model, so any deviation fails there.
    """
    import torch

    kv = torch.arange(kv_length, device=cache_position.device) + kv_offset
    mask = (kv[None, :] <= cache_position[:, None])[None, None]
    if attention_mask is not None:
        return mask & attention_mask[:, None, None, :].bool()
    return mask.expand(batch_size, -1, -1, -1)


@contextlib.contextmanager
def traceable_masks():
    """Route transformers' ``masking_utils.sdpa_mask`` through a traceable equivalent for the block."""
    import transformers.masking_utils as mu

    saved = mu.sdpa_mask
    mu.sdpa_mask = _traceable_sdpa_mask
    try:
        yield
    finally:
        mu.sdpa_mask = saved


@contextlib.contextmanager
def quiet_logging(*names: str, level: int = logging.ERROR):
    """Raise the level of the named loggers (``""`` = root) for the block; restore afterwards."""
    loggers = [logging.getLogger(n) for n in names]
    saved = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(level)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, saved):
            lg.setLevel(lv)


def _check_opset(value: int, lo: int, hi: int, exporter: str, flag: str) -> None:
    import torch

    if not lo <= value <= hi:
        raise UserError(f"opset {value} is not supported by the {exporter} exporter of torch {torch.__version__} "
                        f"(supported {lo}..{hi}); pass {flag} in that range")


def check_torchscript_opset(value: int, flag: str = "--opset") -> None:
    """Raise :class:`UserError` unless torch's TorchScript exporter accepts opset ``value``."""
    from torch.onnx import _constants

    _check_opset(value, _constants.ONNX_MIN_OPSET, _constants.ONNX_TORCHSCRIPT_EXPORTER_MAX_OPSET, "TorchScript", flag)


def check_dynamo_opset(value: int, flag: str = "--dynamo-opset") -> None:
    """Raise :class:`UserError` unless the dynamo exporter accepts opset ``value`` (18 and up)."""
    from torch.onnx import _constants

    _check_opset(value, 18, _constants.ONNX_MAX_OPSET, "dynamo", flag)


def export_torchscript(bundle, path: str | os.PathLike, *, opset: int = TORCHSCRIPT_OPSET,
                       constant_folding: bool = False, inputs: Mapping | None = None,
                       dynamic: bool = True, training=None) -> Path:
    """Export ``bundle`` (:class:`common.models.ModelBundle`) with the TorchScript exporter.

    Always inside :func:`traceable_masks` (a no-op for models that do not build transformers
    masks).

    Args:
        opset: ONNX opset (7..20 for torch 2.13's TorchScript exporter).
        constant_folding: the exporter's own constant folding (and its eval-mode peephole, which
            folds BatchNormalization into Conv). Off by default: the raw graph shows what graph
            passes and ORT have to clean up.
        inputs: example inputs (default ``bundle.inputs``); use batch and sequence >= 2, since a
            size-1 example lets tracing bake that axis.
        dynamic: declare ``bundle.dynamic_axes``.
        training: ``torch.onnx.TrainingMode`` (default: the exporter's EVAL).

    Raises:
        UserError: unsupported opset, or the exporter cannot convert an op at this opset.
    """
    import torch

    check_torchscript_opset(opset)
    feed = dict(bundle.inputs if inputs is None else inputs)
    extra = {} if training is None else {"training": training}
    return _atomic_export(path, lambda tmp: torch.onnx.export(
        bundle.model, tuple(feed.values()), tmp, input_names=list(feed), output_names=list(bundle.output_names),
        dynamic_axes=bundle.dynamic_axes if dynamic else None, opset_version=opset, dynamo=False,
        do_constant_folding=constant_folding, external_data=False, **extra), patch_masks=True)


def export_dynamo(bundle, path: str | os.PathLike, *, opset: int = DYNAMO_OPSET,
                  custom_translation_table: dict | None = None) -> Path:
    """Export with ``torch.onnx.export(..., dynamo=True)`` (torch.export + onnxscript optimizer).

    Args:
        custom_translation_table: ``{torch op overload: onnxscript function}``, the exporter's
            custom-op path (see :mod:`lab01_onnx.tools.customop`).

    Raises:
        UserError: unsupported opset, or the exporter cannot convert an op at this opset.
    """
    import torch

    check_dynamo_opset(opset)
    return _atomic_export(path, lambda tmp: torch.onnx.export(
        bundle.model, (), tmp, kwargs=dict(bundle.inputs), input_names=list(bundle.inputs),
        output_names=list(bundle.output_names), dynamic_axes=bundle.dynamic_axes, opset_version=opset,
        dynamo=True, external_data=False, verbose=False, custom_translation_table=custom_translation_table),
        patch_masks=False)


def _atomic_export(path, fn, patch_masks: bool) -> Path:
    import torch

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.stem + ".tmp.onnx")
    with contextlib.ExitStack() as stack:
        stack.enter_context(quiet_logging("torch", "torch.onnx", "torch.export", "torch._dynamo", "onnxscript"))
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        stack.enter_context(contextlib.redirect_stdout(stack.enter_context(open(os.devnull, "w"))))
        # torch 2.13's TorchScript exporter always enables its C++ ONNX log and, on a failed export, dumps
        # the whole TorchScript graph to the process's stderr; the exception says what matters, in one line
        stack.enter_context(silenced())
        if patch_masks:
            stack.enter_context(traceable_masks())
        try:
            fn(str(tmp))
        except torch.onnx.OnnxExporterError as exc:  # e.g. an op with no symbolic at this opset
            tmp.unlink(missing_ok=True)
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:240]
            raise UserError(f"the exporter failed writing {p.name}: {first}; try another opset "
                            f"(default {TORCHSCRIPT_OPSET} TorchScript, {DYNAMO_OPSET} dynamo)") from exc
        except Exception:
            tmp.unlink(missing_ok=True)
            raise
    os.replace(tmp, p)
    return p


# ------------------------------------------------------------------------------------------------
# ONNX Runtime
# ------------------------------------------------------------------------------------------------

def ort_message(exc: BaseException, limit: int = 240) -> str:
    """First line of an ORT error without its C++ source location (``/onnxruntime_src/...h:46 void f(...)``)."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    first = re.sub(r"/onnxruntime_src/\S+ .*?\)\s*", "", first, count=1)
    return first[:limit]


def is_ort_error(exc: BaseException) -> bool:
    """Whether ``exc`` is ONNX Runtime's own (``onnxruntime.capi.onnxruntime_pybind11_state.Fail``,
    ``InvalidArgument``, ``RuntimeException``, ...: pybind11 classes that derive from ``Exception`` only)."""
    return type(exc).__module__.startswith("onnxruntime")


def ort_session(model: str | os.PathLike | onnx.ModelProto, *, level: str = "DISABLE_ALL", threads: int = 1,
                providers: tuple[str, ...] = ("CPUExecutionProvider",), provider_options=None,
                optimized_model_path: str | os.PathLike | None = None, custom_ops_library: str | None = None,
                log_level: int = 4, profile_prefix: str | os.PathLike | None = None):
    """An ``onnxruntime.InferenceSession``: fixed threads (inter-op 1, sequential), one optimization level.

    Args:
        model: a path or an in-memory model.
        level: one of :data:`ORT_LEVELS` (mapped by :func:`common.timing.ort_session_options`).
        threads: intra-op threads.
        providers, provider_options: as ``InferenceSession`` takes them.
        optimized_model_path: ORT saves its optimized graph there (``optimized_model_filepath``).
        custom_ops_library: a shared library registered with ``register_custom_ops_library``.
        log_level: this session's log severity (0 verbose .. 4 fatal); default 4, since every
            failure also surfaces as an exception. ORT's process-wide default logger is not changed.
        profile_prefix: turn ORT's profiler on (``enable_profiling``): every node run is an event in
            ``<prefix>_<date>.json``, written by ``session.end_profiling()`` (which returns its path).

    Raises:
        UserError: unknown level, or ORT cannot load the model (e.g. an opset newer than this ORT
        implements, an op without a kernel); the message is ORT's first line.
    """
    import onnxruntime as ort

    from .timing import ort_session_options

    if level not in ORT_LEVELS:
        raise UserError(f"unknown ORT optimization level {level!r}; use one of {', '.join(ORT_LEVELS)}")
    so = ort_session_options(threads, level, optimized_model_path=str(optimized_model_path)
                             if optimized_model_path else None)
    so.log_severity_level = log_level
    if profile_prefix is not None:
        so.enable_profiling = True
        so.profile_file_prefix = str(profile_prefix)
    if custom_ops_library:
        so.register_custom_ops_library(custom_ops_library)
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    try:
        return ort.InferenceSession(src, so, providers=list(providers), provider_options=provider_options)
    except Exception as exc:
        raise UserError(f"onnxruntime {ort.__version__} cannot load the model: {ort_message(exc)}") from exc


def ort_run(model_or_session, feeds: Mapping[str, np.ndarray], **session_kw) -> dict[str, np.ndarray]:
    """Run once; returns ``{output_name: value}`` in graph output order.

    ``model_or_session`` is an ``InferenceSession`` or anything :func:`ort_session` takes (then
    ``session_kw`` are its keywords).
    """
    sess = model_or_session if hasattr(model_or_session, "get_outputs") else ort_session(model_or_session, **session_kw)
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, dict(feeds))))


def ort_optimize(src: str | os.PathLike, dst: str | os.PathLike, level: str, *, threads: int = 1) -> onnx.ModelProto:
    """Let ORT optimize ``src`` at ``level``, save the result to ``dst`` and return it loaded.

    The saved graph may hold ORT-only ops (``com.microsoft``, ``com.microsoft.nchwc``); run it
    with ``level="DISABLE_ALL"`` to execute it as saved.
    """
    with atomic_output(dst) as tmp:  # ORT writes the file itself: a temporary name, renamed when complete
        ort_session(src, level=level, threads=threads, optimized_model_path=tmp)
    return onnx.load(str(dst))


def calibration_reader(feeds):
    """An ``onnxruntime.quantization.CalibrationDataReader`` handing out ``feeds`` (``{input: array}``
    dicts) once each, in order, as ``quantize_static`` calibration expects."""
    from onnxruntime.quantization import CalibrationDataReader

    class _Reader(CalibrationDataReader):
        def __init__(self):
            self._it = iter(list(feeds))

        def get_next(self):
            return next(self._it, None)

    return _Reader()
