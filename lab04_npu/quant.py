"""Quantized for the NPU: QDQ with QNN's own configuration, per-layer accuracy against fp32.

HTP computes in integers; a float model runs there only through fp16. The QNN EP takes a QDQ
model (QuantizeLinear/DequantizeLinear pairs around each op) and maps every ``DQ -> op -> Q`` node
unit onto one quantized HTP op. ONNX Runtime's QNN helpers
(https://onnxruntime.ai/docs/execution-providers/QNN-ExecutionProvider.html#generating-a-quantized-model-x64-only)
write such a model:

1. ``qnn_preprocess_model``: fuses Erf-GELU / ReduceL2 sequences into ops QNN quantizes whole;
2. ``get_qnn_qdq_config``: a ``StaticQuantConfig`` whose tensor-level overrides satisfy QNN's
   rules (e.g. the types LayerNormalization/Softmax/Sigmoid need, ``Convert`` ops where an int8
   and an int16 tensor meet); activations ``QUInt8`` (int8, what HTP runs fastest) or ``QUInt16``
   (int16 activations with uint8 weights, the "A16W8" recipe Qualcomm recommends for transformers),
   and chosen tensors at 16 bits in an 8-bit model (``wide``: mixed precision, e.g. Softmax's input);
3. ``quantize``: MinMax calibration on the given feeds.

Per-layer accuracy (:func:`per_layer`) is read on the HTP itself: every ``Q -> DQ`` output of the
QDQ model becomes a graph output (:func:`dequantized_views`), the model runs on QNN, and each
quantized tensor is compared with the fp32 model's tensor of the same name, with its error relative
to the tensor's fp32 scale (``max|q - f| / max|f|``); the fp32 side comes from Lab 01's ``expose_intermediates``.
Each row also says how much of that error is *clipping* (:func:`calibrated_ranges`): MinMax calibration
fixes every tensor's representable range ``[lo, hi]``, and an fp32 value outside it is off by at least
its distance to the range at any bit width, on any backend; only the rest is rounding (int16 shrinks
it 256x). Lab
01's divergence finder (:func:`lab01_onnx.divergence.onnx_divergence`, both models on the CPU EP)
runs beside it: where the two disagree, the HTP's integer kernels differ from ORT's QDQ emulation.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import onnx

from common.errors import UserError, require
from common.onnx_graph import GraphIndex

#: scale-relative per-layer tolerance per activation type: int8 (A8W8) about 5 grid steps of 1/255;
#: int16 (A16W8) is bounded by its uint8 weights (one MatMul already costs ~0.5-1 % of scale)
LAYER_TOL = {"int8": 2e-2, "int16": 1e-2}
ACTIVATIONS = ("int8", "int16")
#: weight types (``QUInt8``: the A16W8 recipe; ``QUInt16``: A16W16, the arm that shows what the weights cost)
WEIGHTS = ACTIVATIONS


def quantize_for_qnn(model_path: str | os.PathLike, out_path: str | os.PathLike,
                     calibration: Iterable[Mapping[str, np.ndarray]], activations: str = "int16",
                     weights: str = "int8", wide: Iterable[str] = ()) -> Path:
    """Write a QDQ model for the QNN EP (see module doc), atomically.

    Args:
        model_path: a static-shape fp32 model file.
        out_path: where the QDQ model goes (its folder is made if absent).
        calibration: feeds ``{input name: array}`` for MinMax calibration (at least one), each array of
            the input's static shape and dtype (float32 activations, int64 token ids).
        activations: ``int8`` (``QUInt8``) or ``int16`` (``QUInt16``).
        weights: ``int8`` (``QUInt8``, the default) or ``int16`` (``QUInt16``).
        wide: activation tensors quantized as ``QUInt16`` whatever ``activations`` says (mixed precision:
            ``get_qnn_qdq_config``'s ``init_overrides``, whose ``add_qtype_converts`` puts a Convert where a
            tensor changes width, an op QNN runs; e.g. :func:`softmax_inputs` in an A8W8 model).

    Returns:
        The absolute path of the written QDQ model.

    Raises:
        UserError: unknown activation or weight type, or no calibration feeds.
        MissingDependency: ``onnxruntime.quantization`` is absent.
        OSError: ``out_path``'s folder cannot be made or written.
    """
    q = require("onnxruntime.quantization", "onnxruntime", "QDQ quantization for the QNN EP")
    from onnxruntime.quantization.execution_providers.qnn import get_qnn_qdq_config, qnn_preprocess_model

    if activations not in ACTIVATIONS:
        raise UserError(f"unknown activation type {activations!r}; choose one of {', '.join(ACTIVATIONS)}")
    if weights not in WEIGHTS:
        raise UserError(f"unknown weight type {weights!r}; choose one of {', '.join(WEIGHTS)}")
    from common.onnx_utils import calibration_reader

    feeds = list(calibration)
    if not feeds:
        raise UserError("QDQ calibration needs at least one input batch")

    out = Path(out_path).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    src = Path(model_path).resolve()
    act, wt = (q.QuantType.QUInt8 if t == "int8" else q.QuantType.QUInt16 for t in (activations, weights))
    with tempfile.TemporaryDirectory(dir=out.parent) as scratch, contextlib.chdir(scratch):
        pre = Path(scratch) / "preprocessed.onnx"
        if not qnn_preprocess_model(str(src), str(pre)):
            pre = src
        cfg = get_qnn_qdq_config(str(pre), calibration_reader(feeds), activation_type=act, weight_type=wt,
                                 init_overrides={t: [{"quant_type": q.QuantType.QUInt16}] for t in wide} or None)
        tmp = Path(scratch) / "qdq.onnx"
        q.quantize(str(pre), str(tmp), cfg)
        os.replace(tmp, out)
    return out


def softmax_inputs(model: onnx.ModelProto) -> list[str]:
    """The tensors the main graph's Softmax nodes read (attention's ``scores + mask``), in node order."""
    return [n.input[0] for n in model.graph.node if n.op_type == "Softmax"]


#: ln(2^-150): below it ``exp`` rounds to +0 in float32 (half the smallest subnormal, 2^-149; IEEE 754 binary32)
EXP_UNDERFLOW = -103.97
#: What a ``-FLT_MAX`` mask fill becomes (:func:`clamp_mask_fill`). Two rules bound it. (1) Masked positions must
#: still get exactly 0 from Softmax in fp32: Softmax subtracts the row's max first (ONNX Softmax-13), so a masked
#: score ends at ``floor + s - max(s)``, which is below :data:`EXP_UNDERFLOW` while the scores of a row spread less
#: than ``-floor + EXP_UNDERFLOW`` (196 here; LLaMA-tiny's spread about 2). (2) As close to 0 as (1) allows: the
#: calibrated range of ``scores + mask`` runs from about ``floor`` to the top score, so its 16-bit grid step,
#: which every real score is rounded to before Softmax, is about ``-floor / 65535`` (0.0046 here, 0.15 at -1e4).
#: Measured per floor in ``results/lab04/mask_floor``.
MASK_FLOOR = -300.0


def clamp_mask_fill(model: onnx.ModelProto, floor: float = MASK_FLOOR) -> tuple[onnx.ModelProto, int]:
    """A copy of ``model`` whose float32 initializers' ``-FLT_MAX``-like entries (<= -1e30) become ``floor``.

    transformers fills masked attention scores with ``torch.finfo(float32).min``; quantized, that
    one value stretches the grid of the mask tensor (and of ``scores + mask``) to ~3.4e38, so on the
    HTP every real score rounds to 0 and Softmax turns uniform. With ``floor`` below
    ``EXP_UNDERFLOW`` minus the scores' spread, ``exp(floor + s - max)`` underflows to 0 exactly like
    ``exp(-3.4e38)``, so fp32 outputs do not change (checked bitwise by the caller's gate); :data:`MASK_FLOOR`
    says why a floor close to that bound beats a far one.

    Returns:
        ``(model, number of initializers changed)``.

    Raises:
        UserError: ``floor`` is not below :data:`EXP_UNDERFLOW` (no score spread could keep masked positions at 0).
    """
    if not floor < EXP_UNDERFLOW:
        raise UserError(f"mask floor {floor:g} is not below {EXP_UNDERFLOW} (ln 2^-150): Softmax would give masked "
                        f"positions a nonzero weight; choose one below -104 (default {MASK_FLOOR:g})")
    from onnx import numpy_helper

    out = onnx.ModelProto()
    out.CopyFrom(model)
    changed = 0
    for t in out.graph.initializer:
        if t.data_type != onnx.TensorProto.FLOAT:
            continue
        a = numpy_helper.to_array(t)
        if (a <= -1e30).any():
            t.CopyFrom(numpy_helper.from_array(np.where(a <= -1e30, np.float32(floor), a).astype(np.float32), t.name))
            changed += 1
    return out, changed


def dequantized_views(qdq: onnx.ModelProto) -> tuple[onnx.ModelProto, dict[str, str]]:
    """``qdq`` with the output of every ``Q -> DQ`` pair made a graph output.

    A pair is a ``DequantizeLinear`` whose input a ``QuantizeLinear`` writes (ONNX operators
    QuantizeLinear / DequantizeLinear: ``x' = (saturate(round(x / scale) + zp) - zp) * scale``); the first
    such DQ of each fp32 tensor is taken. Added outputs are declared float32 with no shape; ``qdq`` is not
    modified.

    Returns:
        ``(model, {fp32 tensor name: its dequantized twin})``: the twin is what the next op reads,
        the value as the quantized graph holds it, so running the model on the NPU shows the HTP's
        own numbers tensor by tensor.
    """
    out = onnx.ModelProto()
    out.CopyFrom(qdq)
    index = GraphIndex(out.graph)
    present = set(index.outputs)
    views = {}
    for n in index.nodes:
        p = index.producer.get(n.input[0]) if n.op_type == "DequantizeLinear" else None
        q = None if p is None else index.nodes[p]
        if q is not None and q.op_type == "QuantizeLinear" and q.input[0] not in views:
            views[q.input[0]] = n.output[0]
            if n.output[0] not in present:
                out.graph.output.append(onnx.helper.make_tensor_value_info(n.output[0], onnx.TensorProto.FLOAT, None))
                present.add(n.output[0])
    return out, views


#: integer range of a QuantizeLinear output, by the ONNX element type of its zero point
_QRANGE = {onnx.TensorProto.UINT8: (0, 255), onnx.TensorProto.INT8: (-128, 127),
           onnx.TensorProto.UINT16: (0, 65535), onnx.TensorProto.INT16: (-32768, 32767)}


def calibrated_ranges(qdq: onnx.ModelProto) -> dict[str, tuple[float, float]]:
    """``{fp32 tensor name: (lo, hi)}``: the values each per-tensor ``QuantizeLinear`` of ``qdq`` can
    represent, ``((qmin - zp) * scale, (qmax - zp) * scale)`` with ``qmin, qmax`` those of the zero
    point's type; without a zero point, of the node's ``output_dtype`` attribute (QuantizeLinear-21), else
    uint8 (ONNX QuantizeLinear: ``y = saturate(round(x / scale) + zp)``). Tensors quantized per axis, of
    another integer type (int4, float8), or whose scale or zero point is not an initializer, are left out.
    """
    from onnx import numpy_helper

    inits = {t.name: t for t in qdq.graph.initializer}
    out = {}
    for n in qdq.graph.node:
        if n.op_type != "QuantizeLinear" or len(n.input) < 2 or n.input[1] not in inits:
            continue
        zp_name = n.input[2] if len(n.input) > 2 else ""
        if zp_name and zp_name not in inits:
            continue
        zp = inits.get(zp_name)
        scale = numpy_helper.to_array(inits[n.input[1]])
        dtype = zp.data_type if zp is not None else next(
            (a.i for a in n.attribute if a.name == "output_dtype" and a.i), onnx.TensorProto.UINT8)
        if scale.size != 1 or dtype not in _QRANGE:
            continue
        qmin, qmax = _QRANGE[dtype]
        z = int(numpy_helper.to_array(zp).reshape(-1)[0]) if zp is not None else 0
        s = float(scale.reshape(-1)[0])
        out[n.input[0]] = ((qmin - z) * s, (qmax - z) * s)
    return out


def per_layer(fp32: onnx.ModelProto, qdq: onnx.ModelProto, feeds: Mapping[str, np.ndarray], tol: float,
              run=None) -> list[dict]:
    """Error of every quantized tensor against fp32, in ``fp32``'s node order (``index``: the position in
    ``fp32`` of the node that writes the tensor; ``node``/``op``: that node's name and type).

    Args:
        fp32: the float model ``qdq`` was quantized from (same tensor names; run on ORT's CPU EP).
        qdq: its QDQ model (:func:`quantize_for_qnn`).
        feeds: ``{input name: array}`` at the models' static shapes.
        tol: the largest ``rel`` that counts as within (scale-relative, e.g. :data:`LAYER_TOL`).
        run: ``run(model, feeds) -> {name: array}`` for the quantized side (default: ORT's CPU EP;
            pass a QNN runner to read the HTP's own values). The fp32 side runs on the CPU EP.

    Returns:
        rows: index, node, op, tensor, max_abs, scale (``max|fp32|``), rel (max_abs / scale),
        within (rel <= ``tol``); cal_lo, cal_hi (the tensor's calibrated range, :func:`calibrated_ranges`),
        clip (``max`` distance of an fp32 value to that range: the part of max_abs no bit width removes,
        ``clip <= max_abs`` up to float32 rounding) and clip_rel (clip / scale); NaN where the range is unknown.
    """
    from common.onnx_utils import ort_run
    from lab01_onnx.divergence import expose_intermediates

    ref = ort_run(expose_intermediates(fp32), feeds)
    model, views = dequantized_views(qdq)
    got = (run or ort_run)(model, feeds)
    index = GraphIndex(fp32.graph)
    ranges = calibrated_ranges(qdq)
    rows = []
    for t, view in views.items():
        if t not in ref or t not in index.producer or view not in got or ref[t].shape != got[view].shape:
            continue
        i = index.producer[t]
        node = index.nodes[i]
        r = ref[t].astype(np.float64)
        finite = np.isfinite(r)
        err = float(np.max(np.abs(r[finite] - got[view][finite]), initial=0.0))
        scale = float(np.max(np.abs(r[finite]), initial=0.0))
        rel = err / scale if scale > 0 else (0.0 if err == 0 else float("inf"))
        lo, hi = ranges.get(t, (float("nan"), float("nan")))
        clip = float(np.max(np.maximum(lo - r[finite], r[finite] - hi), initial=0.0)) if t in ranges else float("nan")
        clip_rel = clip / scale if scale > 0 else (0.0 if clip == 0 else float("nan"))
        rows.append({"index": i, "node": node.name, "op": node.op_type, "tensor": t, "max_abs": err,
                     "scale": scale, "rel": rel, "within": bool(rel <= tol), "cal_lo": lo, "cal_hi": hi,
                     "clip": clip, "clip_rel": clip_rel})
    return sorted(rows, key=lambda r: r["index"])


def first_out_of_tolerance(rows: list[dict]) -> dict | None:
    """The first row of :func:`per_layer` beyond its tolerance (None when every tensor is within)."""
    return next((r for r in rows if not r["within"]), None)
