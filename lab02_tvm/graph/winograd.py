"""Winograd convolution as a graph rewrite: each 3x3 stride-1 NHWC conv2d becomes F(m x m, 3 x 3).

The minimal-filtering algorithm of Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks"
(CVPR 2016, arXiv:1509.09308), eq. (8): an m x m output tile ``Y`` of a 3 x 3 filter ``g`` over an
``alpha x alpha`` input tile ``d`` (``alpha = m + 2``) is

    Y = A^T [ (G g G^T) (.) (B^T d B) ] A

with ``(.)`` the element-wise product, summed over input channels. Per tile and channel pair it takes
``alpha^2`` multiplies instead of ``9 m^2`` (F(4x4, 3x3): 36 instead of 144); the transforms cost adds,
and the transformed filter ``U = G g G^T`` is ``alpha^2 / 9`` times the filter's size (4x for F(4, 3)).

The rewrite follows the field's TVM path: TOPI's ``_conv2d_winograd_nhwc_impl`` (the compute Ansor and
MetaSchedule tune on x86: Relay's ``conv2d_nhwc.winograd`` strategy) with its block names and
``schedule_rule`` attributes, so MetaSchedule's CPU rules ``conv2d_nhwc_winograd_data_pack`` and
``conv2d_nhwc_winograd_inverse`` schedule the two transforms (their constant-matrix loops unrolled,
so the multiplies by 0 and 1 fold away) and multi-level tiling schedules the batched GEMM. One
difference: ``U`` is computed here, once, with NumPy from the constant weights (TOPI's in-kernel
``kernel_pack`` would redo it at every call), and enters the kernel as a constant the weight layout
rewrite may repack like any other weight. The transform matrices are TOPI's Cook-Toom ones
(``tvm.topi.nn.winograd_util``).
"""
from __future__ import annotations

import numpy as np

from common.errors import UserError


#: The measured policy ``{out_h: m}``: F(4, 3) on 56 x 56 (ResNet-50's conv2 stage, 64 channels) and on
#: 28 x 28 (conv3, 128 channels), F(2, 3) on 14 x 14 (conv4, 256 channels), the three shapes measured on the
#: AVX-512 Intel kind faster than the tuned direct conv alone in one interleaved re-time pass each
#: (``retime_resnet50_winograd.md``: 1.363 against 1.483 ms and 1.298 against 1.739 ms, about 200 trials
#: each; ``retime_resnet50_winograd28.md``: 0.816 against 1.543 ms, 320 trials). The whole model: 1.081x with
#: the 56 x 56 and 14 x 14 ones (``records_ab_resnet50_winograd56.md``; the 14 x 14 one alone tied,
#: ``records_ab_resnet50_winograd.md``), 1.034x more with 28 x 28 added (``records_ab_resnet50_winograd28.md``).
#: 7 x 7 (conv5, 512 channels) stays direct: F(2, 3) ran 2.839 against 2.342 ms after 240 trials
#: (``retime_resnet50_winograd7.md``): there the weights dominate a conv's bytes (9.4 MB, each used by 49
#: outputs), and F(2, 3)'s transformed filter is 16/9 of their size (F(4, 3)'s 4x). For the same reason
#: 14 x 14 keeps F(2, 3): F(4, 3) there ran 1.693 ms against F(2, 3)'s 1.340 after about 200 trials
#: (``retime_resnet50_winograd14f4.md``).
TILES = {56: 4, 28: 4, 14: 2}
#: The policy ``"winograd": true`` meant in provenance written before policies were recorded (the first
#: one shipped, 2026-12-04 17:01 UTC).
FIRST_TILES = {56: 4, 14: 2}
#: The output tiles a policy may use: those ``test_winograd.py`` checks against PyTorch's direct conv (a
#: larger tile's Cook-Toom points, and with them its float32 rounding error, grow with ``m``).
TILE_SIZES = (2, 4)


def tile_for(out_h: int) -> int | None:
    """The output tile ``m`` :data:`TILES` gives an ``out_h x out_h`` output map, or ``None``: keep the direct conv."""
    return TILES.get(out_h)


def policy(spec) -> tuple[tuple[int, int], ...]:
    """A Winograd tile policy as ``((out_h, m), ...)`` pairs, largest map first, from any form it is written in.

    ``spec``: ``False``, ``None`` or empty (no conv rewritten); ``True`` (:data:`TILES`); a mapping
    ``{out_h: m}`` (JSON's string keys accepted, as in a provenance's ``"method"``); the command line's
    ``"56:4,28:4"``; or the pairs themselves.

    Raises:
        UserError: a malformed entry, or a tile ``m`` outside :data:`TILE_SIZES` (one line naming it).
    """
    if spec is True:
        spec = TILES
    if not spec:
        return ()
    if isinstance(spec, str):
        spec = [item.split(":", 1) for item in spec.split(",")]
    pairs = spec.items() if isinstance(spec, dict) else spec
    try:
        out = {int(h): int(m) for h, m in pairs}
    except (TypeError, ValueError):
        raise UserError(f"Winograd policy {spec!r}: write it out_h:m,... (e.g. 56:4,14:2)") from None
    bad = {h: m for h, m in out.items() if m not in TILE_SIZES or h < 1}
    if bad:
        raise UserError(f"Winograd policy {bad}: tiles m are one of {TILE_SIZES} on a positive map size")
    return tuple(sorted(out.items(), reverse=True))


def matrices(m: int, r: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A, B, G)`` of F(m, r) as float64 arrays: ``A`` is ``alpha x m``, ``B`` ``alpha x alpha``,
    ``G`` ``alpha x r`` with ``alpha = m + r - 1`` (TOPI's Cook-Toom points, ``winograd_util``)."""
    from tvm.topi.nn.winograd_util import _cook_toom_convolution, _interpolation_points
    return _cook_toom_convolution(_interpolation_points(m + r - 2), m, r)


def transform_weight(w_ohwi: np.ndarray, m: int) -> np.ndarray:
    """``U = G g G^T`` for every (output, input) channel pair.

    Args:
        w_ohwi: float32 filter ``[CO, 3, 3, CI]`` (OHWI, the NHWC conv's kernel layout).
        m: output tile.
    Returns:
        float32 ``[alpha, alpha, CO, CI]``, computed in float64 and rounded once.
    """
    _, _, G = matrices(m)
    return np.einsum("ek,ul,okli->euoi", G, G, w_ohwi.astype(np.float64)).astype(np.float32)


def winograd_nhwc(data, u, m: int):
    """TE of a 3x3, stride-1, pad-1 NHWC convolution by F(m x m, 3 x 3), the transformed filter given.

    The stages and names of TOPI's ``_conv2d_winograd_nhwc_impl``: ``data_pad`` -> ``input_tile``
    (``[alpha, alpha, P, CI]``, ``P`` = batch x tiles) -> ``data_pack`` (``B^T d B``) -> ``bgemm`` (for each of
    the ``alpha^2`` points, a ``P x CI`` by ``CI x CO`` GEMM against ``u``) -> ``inverse`` (``A^T M A``) ->
    ``conv2d_winograd`` (the tiles back to ``[N, H, W, CO]``, the last partial tile cropped).

    Args:
        data: float32 TE tensor ``[N, H, W, CI]``.
        u: float32 TE tensor ``[alpha, alpha, CO, CI]`` (:func:`transform_weight`).
        m: output tile (2 or 4).
    Returns:
        float32 ``[N, H, W, CO]``.
    """
    from tvm import te
    from tvm.topi.nn.pad import pad
    from tvm.topi.nn.winograd_util import winograd_transform_matrices

    n, h, w, ci_ = (int(v) for v in data.shape)
    alpha, _, co_, _ = (int(v) for v in u.shape)
    A, B, _ = winograd_transform_matrices(m, 3, "float32")  # const_matrix: Select chains MetaSchedule unrolls
    n_h, n_w = (h + m - 1) // m, (w + m - 1) // m
    P = n * n_h * n_w
    data_pad = pad(data, (0, 1, 1, 0), (0, 1 + n_h * m - h, 1 + n_w * m - w, 0), name="data_pad",
                   attrs={"schedule_rule": "None"})
    input_tile = te.compute((alpha, alpha, P, ci_), lambda eps, nu, p, ci: data_pad[
        p // (n_h * n_w), (p // n_w) % n_h * m + eps, p % n_w * m + nu, ci],
        name="input_tile", attrs={"schedule_rule": "None"})
    r_a, r_b = te.reduce_axis((0, alpha), "r_a"), te.reduce_axis((0, alpha), "r_b")
    data_pack = te.compute((alpha, alpha, P, ci_), lambda eps, nu, p, ci: te.sum(
        input_tile[r_a, r_b, p, ci] * B[r_a, eps] * B[r_b, nu], axis=[r_a, r_b]),
        name="data_pack", attrs={"schedule_rule": "conv2d_nhwc_winograd_data_pack"})
    k = te.reduce_axis((0, ci_), "ci")
    bgemm = te.compute((alpha, alpha, P, co_), lambda eps, nu, p, co: te.sum(
        data_pack[eps, nu, p, k] * u[eps, nu, co, k], axis=[k]),
        name="bgemm", attrs={"meta_schedule.write_cache_level": [2]})  # as TOPI's conv2d_winograd_nhwc
    r_a, r_b = te.reduce_axis((0, alpha), "r_a"), te.reduce_axis((0, alpha), "r_b")
    inverse = te.compute((m, m, P, co_), lambda vh, vw, p, co: te.sum(
        bgemm[r_a, r_b, p, co] * A[r_a, vh] * A[r_b, vw], axis=[r_a, r_b]),
        name="inverse", attrs={"schedule_rule": "conv2d_nhwc_winograd_inverse"})
    return te.compute((n, h, w, co_), lambda b, y, x, co: inverse[
        y % m, x % m, b * n_h * n_w + y // m * n_w + x // m, co], name="conv2d_winograd")


def _eligible(call) -> bool:
    """A float32 3x3 conv2d, stride 1, dilation 1, one group, pad 1, NHWC data, OHWI constant weight."""
    from tvm.ir.expr import Constant  # TVM 0.27's home of relax.Constant
    if getattr(call.op, "name", "") != "relax.nn.conv2d" or not isinstance(call.args[1], Constant):
        return False
    a = call.attrs
    w = call.args[1].value.shape
    return (a.data_layout == "NHWC" and a.kernel_layout == "OHWI" and a.out_layout == "NHWC"
            and [int(v) for v in a.strides] == [1, 1] and [int(v) for v in a.dilation] == [1, 1]
            and int(a.groups) == 1 and [int(v) for v in a.padding] == [1, 1, 1, 1]
            and tuple(w[1:3]) == (3, 3) and str(call.args[1].value.dtype) == "float32"
            and (a.out_dtype is None or str(a.out_dtype) in ("", "float32")))


def winograd_conv2d(mod, tile=tile_for):
    """Rewrite every eligible conv2d of ``main`` into F(m x m, 3 x 3) (:func:`winograd_nhwc` via ``call_te``).

    Eligible: float32, 3x3, stride 1, dilation 1, one group, pad 1 on every side, NHWC data and OHWI
    weights bound as a constant (``lab02_tvm.graph.passes.convert_layout(mod, "NHWC")`` gives that);
    every other conv2d (ResNet-50's 1x1 and stride-2 ones, any NCHW conv) is left as it was.

    Args:
        mod: an unfused Relax module with weights bound, its entry function ``main``.
        tile: ``out_h -> m or None`` (default :func:`tile_for`; ``None`` keeps that conv direct), or an int
            for every eligible conv.
    Returns:
        A new module; each rewritten conv is one ``call_tir`` of a PrimFunc named ``conv2d_winograd``
        whose second argument is the constant ``U`` (:func:`transform_weight`).
    """
    from tvm import relax

    from .mutate import rewrite_main

    def rewrite(self, call):
        if not _eligible(call):
            return call
        m = tile if isinstance(tile, int) else tile(int(call.ty.shape[1]))
        if m is None:
            return call
        u = relax.const(transform_weight(call.args[1].value.numpy(), m))
        return self.builder_.call_te(lambda d, w: winograd_nhwc(d, w, m), call.args[0], u,
                                     primfunc_name_hint="conv2d_winograd")

    return rewrite_main(mod, rewrite)
