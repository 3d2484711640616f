"""Exporting PyTorch models to ONNX (both exporters), loading/checking files, ORT sessions, and the
three export-bug families the numeric gate must catch.

Exporters (https://docs.pytorch.org/docs/stable/onnx.html):

* ``torch.onnx.export(..., dynamo=True)`` -- ``torch.export`` + onnxscript; its graph is already
  cleaned by the onnxscript optimizer. Default opset here: 18.
* ``torch.onnx.export(..., dynamo=False)`` -- the TorchScript tracer; opset 17 by default. Its raw
  graph (exporter constant folding off) keeps the Shape->Gather->Unsqueeze->Concat shape idioms
  that graph passes exist for.

Both write one self-contained file (``external_data=False``) through a temporary name, so a failed
export never leaves a half-written model.
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
import warnings
from pathlib import Path
from collections.abc import Mapping

import numpy as np
import onnx
import torch

from common.errors import UserError

TORCHSCRIPT_DEFAULT_OPSET = 17
DYNAMO_DEFAULT_OPSET = 18


# ------------------------------------------------------------------------------------------------
# files
# ------------------------------------------------------------------------------------------------

def load_model(path: str | os.PathLike) -> onnx.ModelProto:
    """``onnx.load`` with one-line errors.

    Raises:
        UserError: the file is missing, is a directory, or is not an ONNX ModelProto (e.g. a text
        file or a truncated download).
    """
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{p} is a directory; pass the path of an .onnx model file")
    if not p.is_file():
        raise UserError(f"{p}: no such file; pass the path of an .onnx model")
    try:
        model = onnx.load(str(p))
    except Exception as exc:  # protobuf DecodeError and friends
        raise UserError(f"{p} is not an ONNX model ({type(exc).__name__}: {str(exc)[:120]}); "
                        "pass a file written by torch.onnx.export or onnx.save") from exc
    if not model.graph.node and not model.graph.output:
        raise UserError(f"{p} is not an ONNX model (it parses, but holds no graph); pass a real .onnx file")
    return model


def check(model_or_path: onnx.ModelProto | str | os.PathLike, name: str = "") -> None:
    """``onnx.checker.check_model(full_check=True)`` (checker + strict shape inference).

    Raises:
        UserError: the model fails the checker; the message names the model and the first problem.
    """
    label = name or str(model_or_path if not isinstance(model_or_path, onnx.ModelProto) else "model")
    target = str(model_or_path) if isinstance(model_or_path, (str, os.PathLike)) else model_or_path
    try:
        onnx.checker.check_model(target, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        first = str(exc).strip().splitlines()[0][:200]
        raise UserError(f"{label} fails onnx.checker: {first}; re-export it or fix the graph") from exc


def save_model(model: onnx.ModelProto, path: str | os.PathLike) -> Path:
    """Write ``model`` atomically (temporary file + rename) as one file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    onnx.save(model, str(tmp))
    os.replace(tmp, p)
    return p


def ort_session(model: str | os.PathLike | onnx.ModelProto, *, threads: int = 1, level: str = "DISABLE_ALL",
                providers: tuple[str, ...] = ("CPUExecutionProvider",), provider_options=None,
                optimized_model_path: str | os.PathLike | None = None):
    """An ``onnxruntime.InferenceSession`` with fixed threads and graph optimization level.

    Raises:
        UserError: ORT cannot load the model (e.g. an opset newer than this ORT implements).
    """
    import onnxruntime as ort

    from common.timing import ort_session_options

    ort.set_default_logger_severity(4)  # failures surface as exceptions (and gate rows), not log spam
    so = ort_session_options(threads, level, optimized_model_path=optimized_model_path)
    so.log_severity_level = 4
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    try:
        return ort.InferenceSession(src, so, providers=list(providers), provider_options=provider_options)
    except Exception as exc:
        raise UserError(f"onnxruntime {ort.__version__} cannot load the model: {_ort_message(exc)}") from exc


def _ort_message(exc: Exception, limit: int = 240) -> str:
    """First line of an ORT error without its C++ source location (``/onnxruntime_src/...h:46 void f(...)``)."""
    first = str(exc).strip().splitlines()[0]
    first = re.sub(r"/onnxruntime_src/\S+ .*?\)\s*", "", first, count=1)
    return first[:limit]


def ort_run(session, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run ``session`` and return ``{output_name: array}``."""
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(feeds))))


# ------------------------------------------------------------------------------------------------
# exporters
# ------------------------------------------------------------------------------------------------

def _traceable_sdpa_mask(batch_size, cache_position, kv_length, kv_offset=0, mask_function=None,
                         attention_mask=None, **_):
    """Causal + padding boolean mask ``[B, 1, Q, KV]`` from tensor ops only (TorchScript-traceable).

    transformers >= 4.53 builds masks with ``torch.vmap`` (``sdpa_mask_recent_torch``), which the
    TorchScript tracer cannot trace, and its older fallback bakes the sequence length into a Reshape.
    This computes the same mask as ``causal_mask_function`` AND the 2-D padding mask (what LLaMA
    uses without sliding windows); the validation gate compares the export with the *unpatched*
    PyTorch model, so any deviation would fail there.
    """
    kv = torch.arange(kv_length, device=cache_position.device) + kv_offset
    mask = (kv[None, :] <= cache_position[:, None])[None, None]
    if attention_mask is not None:
        return mask & attention_mask[:, None, None, :].bool()
    return mask.expand(batch_size, -1, -1, -1)


@contextlib.contextmanager
def traceable_masks():
    """Temporarily route transformers' ``sdpa_mask`` through :func:`_traceable_sdpa_mask`."""
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


def _check_opset(opset: int, lo: int, hi: int, exporter: str, flag: str = "--opset") -> None:
    if not lo <= opset <= hi:
        raise UserError(f"opset {opset} is not supported by the {exporter} exporter of torch {torch.__version__} "
                        f"(supported {lo}..{hi}); pass {flag} in that range")


def check_torchscript_opset(opset: int) -> None:
    """Raise :class:`UserError` unless torch's TorchScript exporter accepts ``opset`` (7..20 in torch 2.13)."""
    from torch.onnx import _constants

    _check_opset(opset, _constants.ONNX_MIN_OPSET, _constants.ONNX_TORCHSCRIPT_EXPORTER_MAX_OPSET, "TorchScript")


def check_dynamo_opset(opset: int) -> None:
    """Raise :class:`UserError` unless the dynamo exporter accepts ``opset`` (18..23 in torch 2.13)."""
    from torch.onnx import _constants

    _check_opset(opset, 18, _constants.ONNX_MAX_OPSET, "dynamo", flag="--dynamo-opset")


def export_torchscript(bundle, path: str | os.PathLike, *, opset: int = TORCHSCRIPT_DEFAULT_OPSET,
                       constant_folding: bool = False, inputs: Mapping[str, torch.Tensor] | None = None,
                       dynamic: bool = True, training=None) -> Path:
    """Export ``bundle`` (``common.models.ModelBundle``) with the TorchScript exporter (``dynamo=False``).

    Args:
        opset: ONNX opset (7..20 for torch 2.13's TorchScript exporter).
        constant_folding: the exporter's own constant folding; off by default so the raw graph
            shows what graph passes have to clean up.
        inputs: example inputs (default ``bundle.inputs``); use batch and sequence >= 2, since a
            size-1 example lets tracing bake that axis (see :data:`BUG_FAMILIES`).
        dynamic: declare ``bundle.dynamic_axes``.
        training: ``torch.onnx.TrainingMode`` (default: the exporter's EVAL).

    Raises:
        UserError: unsupported opset, or the exporter cannot convert an op at this opset.
    """
    check_torchscript_opset(opset)
    feed = dict(bundle.inputs if inputs is None else inputs)
    extra = {} if training is None else {"training": training}
    return _atomic_export(path, lambda tmp: torch.onnx.export(
        bundle.model, tuple(feed.values()), tmp, input_names=list(feed), output_names=list(bundle.output_names),
        dynamic_axes=bundle.dynamic_axes if dynamic else None, opset_version=opset, dynamo=False,
        do_constant_folding=constant_folding, external_data=False, **extra), patch_masks=True)


def export_dynamo(bundle, path: str | os.PathLike, *, opset: int = DYNAMO_DEFAULT_OPSET) -> Path:
    """Export with ``torch.onnx.export(..., dynamo=True)`` (torch.export + onnxscript optimizer).

    Raises:
        UserError: unsupported opset, or the exporter cannot convert an op at this opset.
    """
    check_dynamo_opset(opset)
    return _atomic_export(path, lambda tmp: torch.onnx.export(
        bundle.model, (), tmp, kwargs=dict(bundle.inputs), input_names=list(bundle.inputs),
        output_names=list(bundle.output_names), dynamic_axes=bundle.dynamic_axes, opset_version=opset,
        dynamo=True, external_data=False, verbose=False), patch_masks=False)


@contextlib.contextmanager
def _silence_native_output():
    """Point file descriptors 1 and 2 at /dev/null for the block (restored afterwards).

    torch 2.13's TorchScript exporter always enables its C++ ONNX log (``setup_onnx_logging``
    tests the function ``_jit_is_onnx_log_enabled`` instead of calling it) and, on a failed
    export, dumps the whole TorchScript graph to the process's stderr. The exception it raises
    carries the message that matters; the CLI prints that as one line.
    """
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def _atomic_export(path, fn, patch_masks: bool) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.stem + ".tmp.onnx")
    with contextlib.ExitStack() as stack:
        stack.enter_context(quiet_logging("torch.onnx", "torch.export", "torch._dynamo", "onnxscript"))
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        stack.enter_context(contextlib.redirect_stdout(stack.enter_context(open(os.devnull, "w"))))
        stack.enter_context(_silence_native_output())
        if patch_masks:
            stack.enter_context(traceable_masks())
        try:
            fn(str(tmp))
        except torch.onnx.OnnxExporterError as exc:  # e.g. an op with no symbolic at this opset
            tmp.unlink(missing_ok=True)
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:240]
            raise UserError(f"the exporter failed writing {p.name}: {first}; try another opset "
                            f"(default {TORCHSCRIPT_DEFAULT_OPSET} TorchScript, {DYNAMO_DEFAULT_OPSET} dynamo)") from exc
        except Exception:
            tmp.unlink(missing_ok=True)
            raise
    os.replace(tmp, p)
    return p


# ------------------------------------------------------------------------------------------------
# export bug families: each is (broken export, fixed export) of a small module; the gate must
# fail on the first and pass on the second
# ------------------------------------------------------------------------------------------------

class DropoutNet(torch.nn.Module):
    """``Linear(8, 8) -> Dropout(0.5) -> Linear(8, 4)``: dropout is random only in train mode."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc1, self.drop, self.fc2 = torch.nn.Linear(8, 8), torch.nn.Dropout(0.5), torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(self.drop(self.fc1(x)))


class BranchNet(torch.nn.Module):
    """A data-dependent branch: ``fc(x)`` if ``x.sum() > 0`` else ``-fc(x)``.

    ``where=False`` writes it as a Python ``if`` (tracing records only the branch the example
    took); ``where=True`` as ``torch.where`` (both branches in the graph).
    """

    def __init__(self, where: bool):
        super().__init__()
        torch.manual_seed(0)
        self.fc, self.where = torch.nn.Linear(8, 4), where

    def forward(self, x):
        y = self.fc(x)
        if self.where:
            return torch.where(x.sum() > 0, y, -y)
        return y if x.sum() > 0 else -y


class SqueezeNet(torch.nn.Module):
    """``fc(x.squeeze(0))``: PyTorch's ``squeeze(0)`` is a no-op unless dim 0 has size 1.

    Traced with a batch-1 example, the exporter records "dim 0 is 1": a Squeeze and a 2-D Gemm
    that fail at batch 4. Traced with batch 2, it emits an If on the runtime size.
    """

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x.squeeze(0))


def _small_bundle(net, batch: int, seq: int = 5):
    from common.models import ModelBundle

    g = torch.Generator().manual_seed(batch)
    return ModelBundle(name=type(net).__name__, model=net, inputs={"x": torch.randn(batch, seq, 8, generator=g) + 0.5},
                       output_names=["y"], dynamic_axes={"x": {0: "batch", 1: "sequence"}, "y": {0: "batch"}})


def bug_family_exports(family: str, folder: str | os.PathLike) -> dict:
    """Export the broken and the fixed variant of one bug family; return what the gate needs.

    Families:
      * ``no_eval``: module left in train mode and exported as it is (``TrainingMode.PRESERVE``,
        which is what ``torch.export`` does) -> Dropout active in the ONNX graph. Fix: ``.eval()``.
      * ``traced_branch``: a Python ``if`` on data, traced with a positive example -> the negative
        branch is gone. Fix: ``torch.where``.
      * ``static_batch``: ``squeeze(0)`` traced with a batch-1 example -> graph assumes batch 1.
        Fix: a batch-2 example.

    Returns:
        ``{"broken": path, "fixed": path, "reference": fn(feeds)->outputs (the eval-mode PyTorch
        module), "feeds": [feed dicts the gate runs on]}``.

    Raises:
        UserError: unknown family.
    """
    folder = Path(folder)
    if family == "no_eval":
        net = DropoutNet()
        broken = export_torchscript(_small_bundle(net.train(), 2), folder / "no_eval_broken.onnx",
                                    training=torch.onnx.TrainingMode.PRESERVE)
        fixed = export_torchscript(_small_bundle(net.eval(), 2), folder / "no_eval_fixed.onnx")
        ref_net, feeds = net.eval(), [_small_bundle(net, 3).inputs]
    elif family == "traced_branch":
        broken = export_torchscript(_small_bundle(BranchNet(where=False), 2), folder / "traced_branch_broken.onnx")
        fixed = export_torchscript(_small_bundle(BranchNet(where=True), 2), folder / "traced_branch_fixed.onnx")
        ref_net = BranchNet(where=False)
        feeds = [{"x": v} for v in (torch.full((2, 5, 8), 1.0), torch.full((2, 5, 8), -1.0))]
    elif family == "static_batch":
        net = SqueezeNet().eval()
        broken = export_torchscript(_small_bundle(net, 1), folder / "static_batch_broken.onnx")
        fixed = export_torchscript(_small_bundle(net, 2), folder / "static_batch_fixed.onnx")
        ref_net, feeds = net, [_small_bundle(net, b).inputs for b in (2, 4)]
    else:
        raise UserError(f"unknown bug family {family!r}; choose from {BUG_FAMILIES}")

    def reference(feed):
        with torch.no_grad():
            return {"y": ref_net(**feed).numpy()}

    return {"broken": broken, "fixed": fixed, "reference": reference, "feeds": feeds}


BUG_FAMILIES = ("no_eval", "traced_branch", "static_batch")


def gate_exported(path, reference, feeds, atol: float = 1e-4) -> tuple[bool, str]:
    """Run ``path`` in ORT on every feed and gate it against ``reference(feed)``.

    A runtime error counts as a failed gate (the model cannot serve that input).

    Returns:
        ``(passed, first_failure_or_empty)``.
    """
    from common.gates import compare

    sess = ort_session(path)
    for feed in feeds:
        np_feed = {k: v.numpy() for k, v in feed.items()}
        try:
            got = ort_run(sess, np_feed)
        except Exception as exc:
            return False, f"onnxruntime failed at input shape {[v.shape for v in np_feed.values()]}: {str(exc).splitlines()[0][:120]}"
        report = compare(reference(feed), got, atol=atol, stage=Path(path).stem)
        if not report.passed:
            return False, report.first_failure
    return True, ""
