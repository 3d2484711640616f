"""Tests of the convolution schedule (lab03_mlir/conv.py through fast.tile_and_vectorize).

Each schedule is gated against a float64 NumPy convolution (:func:`conv64`; PyTorch's float32 conv2d
picks its kernel, and so its summation order, by CPU) at ABSOLUTE ``1e-5`` (rtol 0), built for the
host and for every x86-64 level it executes: small channel counts and filter values in [-0.2, 0.2]
keep every output's float32 sum within ~1e-6 of exact whatever the summation order. The IR
checks say what the student should see: no ``linalg.conv`` left, ``vector.fma`` on channel
vectors, the accumulator carried in registers through the reduction loops, no scalar multiply or
add left.
"""
from __future__ import annotations

import platform
import re

import numpy as np
import pytest
from mlir import ir

from common.errors import UserError
from common.isa import executable_levels
from lab03_mlir import conv, fast, jit, lowering

pytestmark = pytest.mark.lab03

#: The seed's Lab 03 bound. Error model: float32 sums of C k^2 <= 72 products N(0, 1) x U(-0.2, 0.2)
#: (|terms| ~0.1), random-walk rounding ~sqrt(72) u |partial sums|: measured <= 1.0e-6 against float64
#: on x86-64-v2 (no FMA), v3, v4 and the host.
ATOL = 1e-5
#: "engine": MLIR's ExecutionEngine for the host CPU; each level: llvmlite MCJIT with -mcpu=level
CPUS = ["engine", *(executable_levels() if platform.machine() in ("x86_64", "AMD64") else [])]


def run_for(res, func: str, inputs, cpu: str) -> np.ndarray:
    """``func`` built for ``cpu``: ``"engine"`` = the host (MLIR ExecutionEngine), else llvmlite for
    LLVM's ``-mcpu=cpu`` with that CPU's own features (:class:`lab03_mlir.jit.LlvmliteKernel`)."""
    if cpu == "engine":
        return jit.run_with_engine(res, func, inputs)[0]
    return jit.run_with_llvmlite(res, func, inputs, cpu=cpu)[0]


def conv_module(layout: str, n: int, c: int, h: int, w: int, f: int, k: int, stride: int = 1) -> str:
    """``@conv(x, filter) -> y`` with a zero-filled accumulator, in ``layout`` (``nchw`` or ``nhwc``)."""
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    if layout == "nchw":
        xs, ws, ys, op = f"{n}x{c}x{h}x{w}", f"{f}x{c}x{k}x{k}", f"{n}x{f}x{oh}x{ow}", conv.NCHW
    else:
        xs, ws, ys, op = f"{n}x{h}x{w}x{c}", f"{k}x{k}x{c}x{f}", f"{n}x{oh}x{ow}x{f}", conv.NHWC
    y = f"tensor<{ys}xf32>"
    return f"""func.func @conv(%x: tensor<{xs}xf32>, %w: tensor<{ws}xf32>) -> {y} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {y}
  %i = linalg.fill ins(%z : f32) outs(%e : {y}) -> {y}
  %r = {op} {{dilations = dense<1> : vector<2xi64>, strides = dense<{stride}> : vector<2xi64>}}
         ins(%x, %w : tensor<{xs}xf32>, tensor<{ws}xf32>) outs(%i : {y}) -> {y}
  return %r : {y}
}}"""


def conv64(layout: str, x: np.ndarray, w: np.ndarray, stride: int = 1, bias=None) -> np.ndarray:
    """``conv2d`` (cross-correlation, no padding) in float64: NCHW x FCHW or NHWC x HWCF."""
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    if layout == "nchw":
        x64, w64 = x64.transpose(0, 2, 3, 1), w64.transpose(2, 3, 1, 0)  # to NHWC, HWCF
    k = w64.shape[0]
    win = np.lib.stride_tricks.sliding_window_view(x64, (k, k), axis=(1, 2))[:, ::stride, ::stride]
    y = np.einsum("nhwckl,klcf->nhwf", win, w64) + (0.0 if bias is None else bias.astype(np.float64))
    return y.transpose(0, 3, 1, 2) if layout == "nchw" else y


def test_conv64_is_pytorchs_conv2d():
    """The reference computes what torch.nn.functional.conv2d does (to float32 rounding)."""
    import torch
    for layout, n, c, h, w, f, k, stride in CASES:
        x, filt = inputs(layout, n, c, h, w, f, k)
        tx, tw = torch.from_numpy(x).double(), torch.from_numpy(filt).double()
        if layout == "nhwc":
            tx, tw = tx.permute(0, 3, 1, 2), tw.permute(3, 2, 0, 1)
        y = torch.nn.functional.conv2d(tx, tw, stride=stride)
        y = (y.permute(0, 2, 3, 1) if layout == "nhwc" else y).numpy()
        np.testing.assert_allclose(conv64(layout, x, filt, stride), y, rtol=1e-12, atol=1e-12)  # both float64


def inputs(layout: str, n, c, h, w, f, k, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w) if layout == "nchw" else (n, h, w, c)).astype(np.float32)
    filt = rng.uniform(-0.2, 0.2, (f, c, k, k) if layout == "nchw" else (k, k, c, f)).astype(np.float32)
    return x, filt


# (layout, n, c, h, w, f, k, stride): tile-divisible and not (OW 10 -> tile 5, F 12, C 6), 1x1, stride 2
CASES = [("nchw", 1, 8, 18, 18, 16, 3, 1), ("nhwc", 1, 8, 18, 18, 16, 3, 1), ("nchw", 1, 6, 12, 12, 12, 3, 1),
         ("nhwc", 2, 4, 8, 8, 32, 1, 1), ("nchw", 1, 4, 11, 11, 8, 3, 2)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_conv_schedule_matches_float64_conv(case):
    layout, n, c, h, w, f, k, stride = case
    tiled = fast.tile_and_vectorize(conv_module(layout, n, c, h, w, f, k, stride))
    res = lowering.lower(tiled, stages=fast.FAST_STAGES)
    x, filt = inputs(layout, n, c, h, w, f, k)
    ref = conv64(layout, x, filt, stride)
    for cpu in CPUS:
        y = run_for(res, "conv", [x, filt], cpu)
        assert y.shape == ref.shape
        np.testing.assert_allclose(y, ref, atol=ATOL, rtol=0, err_msg=cpu)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_convolution_became_vector_code(layout, tmp_path):
    text = str(fast.tile_and_vectorize(conv_module(layout, 1, 16, 10, 18, 16, 3), save_dir=tmp_path))
    body = text.split("{-#", 1)[0]
    assert "linalg.conv" not in body and "linalg.generic" not in body
    assert "vector.fma" in body and "vector<16xf32>" in body  # 16 output channels per FMA
    # no scalar multiply-add left: every arith multiply/add works on vectors
    assert not re.search(r"arith\.(mulf|addf) .*: f32$", body, re.M)
    # the accumulator (8 output columns x 16 channels) stays in registers across kh, kw and c:
    # (C = 16 in tiles of 8): the loops kh, kw, c carry it as a vector iter_arg
    assert len(re.findall(r"iter_args\([^)]*\) -> \(vector<8x16xf32>\)", body)) == 3
    # the IR after each schedule step, as the student reads it
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [f"s{i:02d}_{s}.mlir" for i, s in enumerate(("input", *fast.SCHEDULE_STEPS))]
    steps = {p.stem[4:]: p.read_text() for p in tmp_path.iterdir()}
    assert conv.NHWC in steps["tile"] and conv.CONV_1D not in steps["tile"]
    assert conv.CONV_1D in steps["decompose"] and conv.NHWC not in steps["decompose"].split("{-#")[0]
    assert "vector.contract" in steps["vectorize"] and conv.CONV_1D not in steps["vectorize"]
    assert "vector.fma" in steps["lower_vectors"] and "vector.contract" not in steps["lower_vectors"]


def test_nchw_goes_channels_last():
    from mlir import ir
    module = ir.Module.parse(conv_module("nchw", 1, 4, 6, 6, 8, 3), ir.Context())
    assert conv.to_channels_last(module) == 1
    text = str(module)
    assert conv.NCHW not in text and conv.NHWC in text
    perms = re.findall(r"permutation = \[([\d, ]+)\]", text)
    assert perms == ["0, 2, 3, 1", "2, 3, 1, 0", "0, 2, 3, 1"]  # x, filter, init
    # the result goes back to NCHW through a linalg.generic (so that a following ReLU can fuse into it)
    assert "affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>" in text and text.count("linalg.generic") == 1


def test_relu_fuses_into_the_transpose_back():
    # bias broadcast rebuilt in NHWC (no transpose of it), ReLU fused into the NHWC -> NCHW generic
    y = "tensor<1x8x6x6xf32>"
    text = f"""#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> {y} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {y}
  %i = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : {y}) dimensions = [0, 2, 3]
  %c = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}}
         ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%i : {y}) -> {y}
  %r = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
         ins(%c : {y}) outs(%e : {y}) {{
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  }} -> {y}
  return %r : {y}
}}"""
    before = str(fast.tile_and_vectorize(text, steps=()))
    assert "dimensions = [0, 1, 2]" in before and before.count("linalg.generic") == 1
    assert before.count("linalg.transpose") == 2  # input and filter (an argument here, not a constant); no bias, no result
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
    w = rng.uniform(-0.2, 0.2, (8, 4, 3, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    y = jit.run_with_engine(lowering.lower(fast.tile_and_vectorize(text), stages=fast.FAST_STAGES), "conv", [x, w, b])[0]
    ref = np.maximum(conv64("nchw", x, w, bias=b), 0.0)  # bias per output channel
    np.testing.assert_allclose(y, ref, atol=ATOL, rtol=0)


def test_tile_sizes_divide_the_extents():
    assert conv.conv_tile_sizes((1, 56, 56, 64), 64) == (1, 1, 8, 16, 1, 1, 8)
    assert conv.conv_tile_sizes((1, 28, 28, 128), 128) == (1, 1, 7, 16, 1, 1, 8)  # 28: 7 divides, 8 does not
    assert conv.conv_tile_sizes((1, 7, 7, 12), 6, (8, 16, 8)) == (1, 1, 7, 12, 1, 1, 6)
    with pytest.raises(UserError, match="conv_tile"):
        conv.conv_tile_sizes((1, 8, 8, 8), 8, (8, 0, 8))


def test_unknown_schedule_step_is_a_user_error():
    with pytest.raises(UserError, match="unknown schedule step"):
        fast.tile_and_vectorize(conv_module("nhwc", 1, 4, 6, 6, 8, 3), steps=("tile", "fuse"))
    with pytest.raises(UserError, match=r"unknown schedule step\(s\) \['fuse'\]"):  # the script builder alone
        fast.build_schedule([], context=ir.Context(), steps=("tile", "fuse"))


def test_constant_transposes_are_folded_at_compile_time():
    # nn.Linear's weight transpose (dense_resource blob) and a dense constant: folded into new
    # constants with the transposed values; a transpose of a function argument stays
    from mlir import ir
    from lab03_mlir import consteval
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    blob = "0x04000000" + w.tobytes().hex().upper()
    text = f"""func.func @f(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {{
  %w = arith.constant dense_resource<wblob> : tensor<2x3xf32>
  %d = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %a = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %b = linalg.transpose ins(%d : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %c = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %a, %b, %c : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}}
{{-#
  dialect_resources: {{ builtin: {{ wblob: "{blob}" }} }}
#-}}"""
    module = ir.Module.parse(text, ir.Context())
    assert consteval.fold_constant_transposes(module) == 2
    assert str(module).count("linalg.transpose") == 1
    res = lowering.lower(module)
    x = np.ones((2, 3), np.float32)
    a, b, c = jit.run_with_engine(res, "f", [x])
    np.testing.assert_array_equal(a, w.T)
    np.testing.assert_array_equal(b, (w + 1).T)
    np.testing.assert_array_equal(c, x.T)


@pytest.mark.parametrize("shape, perm", [((1, 56, 20, 24), (0, 3, 1, 2)), ((1, 24, 20, 56), (0, 2, 3, 1)),
                                         ((3, 40, 17), (1, 0, 2)), ((33, 18), (1, 0))])
def test_transposes_tile_and_vectorize(shape, perm):
    ts = "x".join(map(str, shape))
    out = "x".join(str(shape[p]) for p in perm)
    text = f"""func.func @t(%x: tensor<{ts}xf32>) -> tensor<{out}xf32> {{
  %e = tensor.empty() : tensor<{out}xf32>
  %r = linalg.transpose ins(%x : tensor<{ts}xf32>) outs(%e : tensor<{out}xf32>) permutation = {list(perm)}
  return %r : tensor<{out}xf32>
}}"""
    tiled = str(fast.tile_and_vectorize(text))
    assert "linalg.transpose" not in tiled and "vector.transfer_read" in tiled
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    y = jit.run_with_engine(lowering.lower(tiled, stages=fast.FAST_STAGES), "t", [x])[0]
    np.testing.assert_array_equal(y, x.transpose(perm))
