"""INT8 static quantization in QDQ format with onnxruntime.quantization, and its gate.

``quantize_static`` (https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html)
runs the fp32 model on calibration inputs, records activation ranges (MinMax), and inserts
QuantizeLinear/DequantizeLinear pairs around the quantized ops (QDQ format). Here: MatMul
weights as signed int8 per output channel (stored as int8 initializers), activations as unsigned
int8 (the U8S8 recipe ORT recommends for x86 CPUs). ORT then fuses DQ->MatMul->Q into integer
kernels.

The gate is task-level, not elementwise: int8 logits are not within 1e-4 of fp32, so it checks
**next-token top-1 agreement** (argmax over the vocabulary at every position, int8 vs fp32) and
reports the max abs logit difference beside it: :func:`accuracy_gate` (Task 1.5, ``lab01.gate``;
lab01_onnx/TASKS.md) is the rule, the pipeline's step 7 runs both models and calls it.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common.errors import UserError, require
from common.onnx_utils import calibration_reader, load_model, opset, ort_session, quiet_logging


def quantize_int8(model_path: str | os.PathLike, out_path: str | os.PathLike,
                  calibration: Iterable[Mapping[str, np.ndarray]], op_types: tuple[str, ...] = ("MatMul",),
                  prefold: bool = True) -> Path:
    """Write an INT8 QDQ model calibrated on ``calibration`` feeds (each ``{input_name: array}``).

    ``prefold``: first let ORT's BASIC level (constant folding, no contrib-op fusions) rewrite the
    model and quantize what it saves. The TorchScript export feeds each MatMul through a
    ``Transpose`` of its weight; unfolded, quantize_static sees that as an *activation* (a Q/DQ
    pair at run time, fp32 weights kept in the file) instead of an int8 weight initializer.

    Weights are per output channel when the model's opset is >= 13 (``DequantizeLinear``'s
    ``axis`` attribute appeared in opset 13), per tensor otherwise (see :func:`per_channel_ok`).

    Raises:
        MissingDependency: onnxruntime.quantization is unavailable.
        UserError: no calibration feeds, or an opset below 10 (no ``QuantizeLinear``).
    """
    q = require("onnxruntime.quantization", "onnxruntime", "INT8 quantization")
    feeds = list(calibration)
    if not feeds:
        raise UserError("INT8 calibration needs at least one input batch")
    version = opset(load_model(model_path, load_external_data=False))
    if version < 10:
        raise UserError(f"INT8 QDQ quantization needs opset >= 10 (QuantizeLinear), the model has {version}; "
                        "export with --opset 13 or newer")

    out = Path(out_path).resolve()
    tmp = out.with_name(out.stem + ".tmp.onnx")
    src = Path(model_path).resolve()
    if prefold:
        src = out.with_name(out.stem + ".folded.tmp.onnx")
        ort_session(model_path, level="BASIC", optimized_model_path=src)
    try:
        # quantize_static logs a pre-processing hint on the root logger, and its symbolic shape
        # inference dumps "sym_shape_infer_temp.onnx" into the working directory when it gives up.
        with quiet_logging(""), tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch):
            q.quantize_static(str(src), str(tmp), calibration_reader(feeds), quant_format=q.QuantFormat.QDQ,
                              activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8,
                              per_channel=per_channel_ok(version),
                              op_types_to_quantize=list(op_types), calibrate_method=q.CalibrationMethod.MinMax)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
        if prefold:
            src.unlink(missing_ok=True)
    return out


def per_channel_ok(opset: int) -> bool:
    """Per-channel weights need ``DequantizeLinear(axis=...)``, which exists from opset 13 on."""
    return opset >= 13


@dataclass(frozen=True)
class AccuracyGate:
    """The verdict of :func:`accuracy_gate`.

    Attributes:
        agreement: agreeing positions / counted positions (a float in [0, 1]).
        positions: counted positions (those the mask keeps).
        disagreements: counted positions whose top-1 token differs (``positions * (1 - agreement)``).
        first_disagreement: index (over the leading axes, C order) of the first counted position that
            disagrees, or None.
        max_abs: the largest ``|candidate - reference|`` over the counted positions (``inf`` when a
            candidate logit there is not finite).
        min_top1: the threshold the verdict used; ``passed``: ``agreement >= min_top1``.
    """

    agreement: float
    positions: int
    disagreements: int
    first_disagreement: tuple[int, ...] | None
    max_abs: float
    min_top1: float
    passed: bool

    def line(self) -> str:
        """One line for the pipeline's output and a failed gate's message."""
        # int(): a rule may give NumPy integers, which NumPy 2 prints as np.int64(3) inside a list
        where = f"; first at {[int(i) for i in self.first_disagreement]}" if self.first_disagreement is not None else ""
        return (f"next-token top-1 agreement {self.agreement:.4f} ({self.positions - self.disagreements}/"
                f"{self.positions} positions{where}), max abs logit diff {self.max_abs:.4g}, "
                f"{'>=' if self.passed else '<'} {self.min_top1:g}")


def accuracy_gate(reference: np.ndarray, candidate: np.ndarray, *, min_top1: float,
                  mask: np.ndarray | None = None) -> AccuracyGate:
    """The INT8 gate's rule: does ``candidate`` predict the same next token as ``reference`` often enough?

    Task 1.5 (``lab01.gate``). At every position (every index of the leading axes) the top-1 token is
    the argmax over the last axis (the vocabulary), the first maximal index on ties (NumPy's
    ``argmax`` convention). A position is counted unless ``mask`` is 0 there (padding: its prediction
    means nothing); it agrees when both top-1 tokens are equal and every candidate logit at that
    position is finite (a NaN or inf logit never agrees, whatever its argmax).

    Args:
        reference: float logits ``[..., V]`` of the model being approximated (fp32), all finite, V >= 1.
        candidate: float logits of the same shape (the quantized or otherwise optimized model).
        min_top1: the threshold in [0, 1]; the gate passes when agreement >= it (equality passes).
        mask: optional array of the leading shape ``reference.shape[:-1]`` (an attention mask, any
            numeric or bool dtype); non-zero = counted.

    Returns:
        :class:`AccuracyGate` (agreement, counts, first disagreement, max abs difference, verdict).

    Raises:
        UserError (one line): the shapes differ, ``reference`` has no axis or an empty last axis,
            ``mask`` has another shape than the leading axes, no position is counted, ``min_top1`` is
            outside [0, 1], or a reference logit is not finite.
    """
    ### BEGIN SOLUTION lab01.gate
    ref, cand = np.asarray(reference), np.asarray(candidate)
    if ref.shape != cand.shape:
        raise UserError(f"logit shapes differ: reference {ref.shape} vs candidate {cand.shape}")
    if ref.ndim == 0 or ref.shape[-1] == 0:
        raise UserError(f"logits need a vocabulary axis of size >= 1, got shape {ref.shape}")
    if not 0.0 <= min_top1 <= 1.0:
        raise UserError(f"min_top1 must lie in [0, 1], got {min_top1}")
    if not np.isfinite(ref).all():
        raise UserError("the reference logits hold NaN or inf: gate against a finite reference")
    keep = np.ones(ref.shape[:-1], dtype=bool)
    if mask is not None:
        m = np.asarray(mask)
        if m.shape != ref.shape[:-1]:
            raise UserError(f"mask shape {m.shape} is not the logits' leading shape {ref.shape[:-1]}")
        keep = m != 0
    positions = int(keep.sum())
    if positions == 0:
        raise UserError("no position to compare: the mask is 0 everywhere or the logits are empty")
    finite = np.isfinite(cand).all(axis=-1)
    agree = (ref.argmax(-1) == cand.argmax(-1)) & finite
    bad = keep & ~agree
    disagreements = int(bad.sum())
    first = tuple(int(i) for i in np.argwhere(bad)[0]) if disagreements else None
    with np.errstate(invalid="ignore"):
        diff = np.abs(cand.astype(np.float64) - ref.astype(np.float64))[keep]
    max_abs = float("inf") if not finite[keep].all() else float(diff.max())
    agreement = (positions - disagreements) / positions
    return AccuracyGate(agreement, positions, disagreements, first, max_abs, float(min_top1),
                        agreement >= min_top1)
    ### END SOLUTION


def top1_agreement(ref_logits: np.ndarray, q_logits: np.ndarray) -> float:
    """Fraction of positions whose argmax over the last axis (next-token prediction) agrees
    (:func:`accuracy_gate` with every position counted)."""
    return accuracy_gate(ref_logits, q_logits, min_top1=0.0).agreement
