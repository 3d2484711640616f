"""Step 6b: the convolution schedule (channels-last, tile, decompose to 1-D, vectorize).

The strategy of IREE's llvm-cpu convolution pipeline (``LLVMCPUConvTileAndDecomposeExpert``:
tile, decompose the 2-D convolution into 1-D convolutions, vectorize), in upstream MLIR 22
transform ops, applied by :func:`lab03_mlir.fast.tile_and_vectorize` together with the matmul
schedule:

1. **Channels last** (:func:`to_channels_last`, a Python rewrite before the script runs): every
   static ``linalg.conv_2d_nchw_fchw`` (PyTorch's layout) becomes ``linalg.transpose`` of the
   input (NCHW -> NHWC), of the filter (FCHW -> HWCF) and of the initial value, a
   ``linalg.conv_2d_nhwc_hwcf``, and a transpose of the result back to NCHW. In NHWC the
   channels are the contiguous (vector) dimension of both the input and the filter, so the
   vectorized convolution is an outer product of a row of the input with a row of the filter,
   like the matmul's. (Vectorizing the NCHW form directly, ``conv_1d_ncw_fcw``, puts vector
   transposes of the input, filter and accumulator inside the reduction loop: measured ~2x slower
   than the transposes + NHWC here.)
2. **Tile** ``conv_2d_nhwc_hwcf`` (loops ``n, oh, ow, f, kh, kw, c``) by
   ``[1, 1, OW_t, F_t, 1, 1, C_t]`` (:func:`conv_tile_sizes`; default ``(8, 16, 8)``: an 8 x 16
   block of the output in 8 zmm registers, 8 input channels per step). Each tile size is the
   largest divisor of the extent not above the target, so every tile is full and static. The
   ``kh`` and ``kw`` loops are tiled by 1 (IREE's choice too): each tile is a 1x1 convolution.
3. **Decompose** (``transform.structured.decompose``): a tile with ``oh = kh = 1`` is rewritten
   as ``linalg.conv_1d_nwc_wcf`` on rank-reduced slices (the upstream pattern
   ``DownscaleSizeOneWindowed2DConvolution``; mlir/test/Dialect/Linalg/transform-op-decompose.mlir).
4. **Vectorize** with the matmul's ``vectorize_children_and_apply_patterns``: the 1-D convolution
   becomes ``vector.transfer_read``s and a ``vector.contract`` (Conv1DGenerator), then leading
   unit dimensions are dropped (``apply_patterns.vector.cast_away_vector_leading_one_dim``) so the
   accumulator read before and written after the reduction loops have the same type, and
   ``loop.hoist_loop_invariant_subsets`` keeps it in registers across ``kh``, ``kw`` and ``c``.
5. The matmul's vector lowering turns each ``vector.contract`` into ``vector.fma``s.

Upstream caveat found here (MLIR 22): vectorizing ``conv_1d_ncw_fcw`` with batch 1 and then
applying the patterns of ``vectorize_children_and_apply_patterns`` gives **wrong numbers**: the
fold of ``tensor.insert_slice(vector.transfer_write)`` picks the batch dimension instead of the
height as the rank-reduced unit dimension of ``[1, F, 1, OW]`` and writes the vector transposed
(max error ~37 on the conv block). Another reason to go channels last; the tests gate every
schedule against PyTorch.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from common.errors import UserError

NCHW = "linalg.conv_2d_nchw_fchw"
NHWC = "linalg.conv_2d_nhwc_hwcf"
#: TOSA's layout (``tosa.conv2d`` lowers to it): NHWC input, FHWC filter
FHWC = "linalg.conv_2d_nhwc_fhwc"
#: the 2-D convolution ops the schedule handles (NCHW and FHWC are first rewritten to NHWC/HWCF)
CONV_OPS = (NCHW, FHWC, NHWC)
#: (input, filter, init) permutations to NHWC/HWCF, and the result's back to the op's layout
_TO_HWCF = {NCHW: ([0, 2, 3, 1], [2, 3, 1, 0], [0, 2, 3, 1], [0, 3, 1, 2]),
            FHWC: (None, [1, 2, 3, 0], None, None)}
#: 1-D convolutions left by ``transform.structured.decompose`` of an NHWC tile
CONV_1D = "linalg.conv_1d_nwc_wcf"
#: default (OW_t, F_t, C_t) targets of the register tile
CONV_TILE = (8, 16, 8)


def largest_divisor(extent: int, target: int) -> int:
    """The largest ``t <= target`` that divides ``extent`` (1 when nothing larger does)."""
    for t in range(min(extent, target), 0, -1):
        if extent % t == 0:
            return t
    return 1


def conv_tile_sizes(out_shape, in_channels: int, tile=CONV_TILE) -> tuple[int, ...]:
    """Tile sizes for ``conv_2d_nhwc_hwcf`` loops ``(n, oh, ow, f, kh, kw, c)``.

    Args:
        out_shape: the NHWC output shape ``(N, OH, OW, F)``.
        in_channels: ``C``.
        tile: targets ``(OW_t, F_t, C_t)``; each becomes the largest divisor of its extent.

    Raises:
        UserError: a target that is not a positive integer.
    """
    if len(tile) != 3 or not all(isinstance(t, int) and t > 0 for t in tile):
        raise UserError(f"conv_tile is (OW_t, F_t, C_t), positive integers; got {tile!r}")
    _, _, ow, f = out_shape
    return (1, 1, largest_divisor(ow, tile[0]), largest_divisor(f, tile[1]), 1, 1,
            largest_divisor(in_channels, tile[2]))


def _static(value) -> bool:
    t = value.type
    return isinstance(t, ir.RankedTensorType) and t.has_static_shape


def _transposed(value, perm, generic: bool = False):
    """``linalg.transpose`` of ``value`` (``None``: ``value`` itself); ``generic=True`` writes it as
    the equivalent ``linalg.generic``, which ``linalg-fuse-elementwise-ops`` can then merge with an
    elementwise consumer (the ReLU after the convolution)."""
    if perm is None:
        return value
    t = ir.RankedTensorType(value.type)
    shape = [t.shape[p] for p in perm]
    empty = tensor.EmptyOp(shape, t.element_type).result
    if not generic:
        return _value(linalg.transpose(value, outs=[empty], permutation=perm))
    rank = len(perm)
    inv = [perm.index(k) for k in range(rank)]  # input dim k is output (loop) dim inv[k]
    maps = [ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(inv[k]) for k in range(rank)]),
            ir.AffineMap.get_identity(rank)]
    op = linalg.GenericOp_([value], [empty], ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                           ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * rank))
    with ir.InsertionPoint(op.regions[0].blocks[0]):
        linalg.YieldOp([op.regions[0].blocks[0].arguments[0]])
    return op.results[0]


def _value(x):
    """The single result of a builder's return (an op, a result list or a value)."""
    if isinstance(x, ir.Value):
        return x
    results = x.results if hasattr(x, "results") else x
    return results[0]


def _bias_nhwc(init):
    """A per-channel bias broadcast over NCHW (``linalg.broadcast`` of a ``[F]`` vector, dimensions
    ``[0, 2, 3]``, what torch-mlir emits for ``Conv2d``'s bias) rebuilt directly in NHWC
    (dimensions ``[0, 1, 2]``): one pass over the output instead of a broadcast and a transpose.
    ``None`` when ``init`` is anything else."""
    owner = init.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "linalg.broadcast":
        return None
    if list(ir.DenseI64ArrayAttr(owner.attributes["dimensions"])) != [0, 2, 3]:
        return None
    t = ir.RankedTensorType(init.type)
    n, f, h, w = t.shape
    empty = tensor.EmptyOp([n, h, w, f], t.element_type).result
    return _value(linalg.broadcast(owner.operands[0], outs=[empty], dimensions=[0, 1, 2]))


def to_channels_last(module: ir.Module) -> int:
    """Rewrite every static ``linalg.conv_2d_nchw_fchw`` / ``conv_2d_nhwc_fhwc`` as transposes
    + ``conv_2d_nhwc_hwcf``.

    In place; returns the number of convolutions rewritten. Strides and dilations are kept.
    ``y = conv_nchw(x, w, init)`` becomes ``transpose(conv_nhwc(transpose(x, [0, 2, 3, 1]),
    transpose(w, [2, 3, 1, 0]), transpose(init, [0, 2, 3, 1])), [0, 3, 1, 2])``; TOSA's
    ``conv_2d_nhwc_fhwc`` only needs its filter transposed (FHWC -> HWCF, ``[1, 2, 3, 0]``), as
    upstream's ``transform.structured.transpose_conv2d`` does. A bias broadcast as the initial value
    is rebuilt in NHWC instead of transposed (:func:`_bias_nhwc`).
    """
    convs = []

    def visit(op):
        if op.name in _TO_HWCF and all(_static(v) for v in list(op.operands) + list(op.results)):
            convs.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    with module.context:
        for op in convs:
            px, pw, pinit, pback = _TO_HWCF[op.name]
            with ir.InsertionPoint(op), op.location:
                x, w = (_transposed(v, p) for v, p in zip(op.operands[:2], (px, pw)))
                init = _bias_nhwc(op.operands[2]) if op.name == NCHW else None
                init = init if init is not None else _transposed(op.operands[2], pinit)
                conv = linalg.conv_2d_nhwc_hwcf(
                    x, w, outs=[init], strides=list(ir.DenseIntElementsAttr(op.attributes["strides"])),
                    dilations=list(ir.DenseIntElementsAttr(op.attributes["dilations"])))
                back = _transposed(_value(conv), pback, generic=True)
            op.results[0].replace_all_uses_with(back)
            op.erase()
    return len(convs)
