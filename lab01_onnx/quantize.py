"""INT8 static quantization in QDQ format with onnxruntime.quantization, and its gate.

``quantize_static`` (https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html)
runs the fp32 model on calibration inputs, records activation ranges (MinMax), and inserts
QuantizeLinear/DequantizeLinear pairs around the quantized ops (QDQ format). Here: MatMul
weights as signed int8 per output channel (stored as int8 initializers), activations as unsigned
int8 (the U8S8 recipe ORT recommends for x86 CPUs). ORT then fuses DQ->MatMul->Q into integer
kernels.

The gate is task-level, not elementwise: int8 logits are not within 1e-4 of fp32, so it checks
**next-token top-1 agreement** (argmax over the vocabulary at every position, int8 vs fp32) and
reports the max abs logit difference beside it.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from collections.abc import Iterable, Mapping

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


def top1_agreement(ref_logits: np.ndarray, q_logits: np.ndarray) -> float:
    """Fraction of positions whose argmax over the last axis (next-token prediction) agrees."""
    if ref_logits.shape != q_logits.shape:
        raise UserError(f"logit shapes differ: {ref_logits.shape} vs {q_logits.shape}")
    return float((ref_logits.argmax(-1) == q_logits.argmax(-1)).mean())
