"""Step 6: make it fast with the transform dialect (tile, decompose, vectorize, hoist, lower vectors).

The schedule is a transform-dialect script built op by op from Python (``mlir.dialects.transform``)
and applied by the transform interpreter to the linalg-on-tensors module *before* bufferization,
one script per step of :data:`SCHEDULE_STEPS` so that the IR after each step can be saved
(``save_dir``) or printed. Before the script: NCHW/FHWC convolutions go channels-last
(:mod:`lab03_mlir.conv`, whose module docstring describes the convolution schedule: tile,
``transform.structured.decompose`` to 1-D convolutions, vectorize), transposes of constants are
computed at compile time (:mod:`lab03_mlir.consteval`) and chains of elementwise generics are
fused (``linalg-fuse-elementwise-ops``). Transposes are tiled in 16 x 16 blocks of the input's and
the output's contiguous dimensions. For the matmul:

1. Cache tiles, ``cache_tile = (MC, NC, KC)`` (0 = not tiled; default :data:`CACHE_TILE`,
   ``(0, 256, 256)`` with AVX-512: a 256 x 256 float32 panel of B (256 KiB) stays in the L2 cache
   while every row block of C is updated against it, ``(0, 64, 256)`` (64 KiB) with AVX2; Goto &
   van de Geijn 2008, "Anatomy of high-performance matrix multiplication").
   M and N are tiled with ``structured.tile_using_forall`` (an ``scf.forall`` whose C slices go
   back through ``tensor.parallel_insert_slice``; with ``tile_using_for`` the vectorizer would
   turn the ``tensor.insert_slice`` of each C slice into one huge ``vector<M x NC>`` copy), K
   with ``structured.tile_using_for`` (a reduction cannot be an ``scf.forall``). An M/N tile is
   applied only where it divides the extent (no dynamic-shaped remainder tile, which the
   vectorizer would leave scalar). ``linalg.batch_matmul`` (what ``tosa.matmul`` becomes) gets
   the same schedule with a leading tile size 1 on its batch loop.
2. Tile the result again by ``(MR, NR, 1)`` (default :data:`REGISTER_TILE`: ``(8, 32)`` with
   AVX-512, 8 rows x 2 zmm registers; ``(6, 16)`` with AVX2, 6 rows x 2 ymm): an MR x NR block of
   C stays in vector registers while k runs.
3. Tile every other static linalg op (``linalg.fill``, the bias + ReLU ``linalg.generic``,
   transposes...) by ``(..., 1, MR, NR)`` on its last two loops so that nothing becomes one giant
   vector. A Python walk tags each op with ``lab03.tile_group = i`` (ops tiled alike share a
   group) and the script matches on that attribute; the tag is removed afterwards. Tile loops
   whose extent the tile does not divide are peeled (``loop.peel``). Convolutions and pooling are
   left alone (the vectorizer skips them; they lower to scalar loops).
4. ``structured.vectorize_children_and_apply_patterns``: every static-shaped linalg op becomes
   ``vector.transfer_read`` / ``vector.contract`` / ``vector.transfer_write``.
5. ``loop.hoist_loop_invariant_subsets`` on every ``scf.for``: the C tile is read once
   before the k loop and written once after it, living in registers in between (an ``iter_args``
   vector).
6. Vector lowering patterns: ``vector.contract`` -> ``vector.outerproduct`` -> FMAs of a
   broadcast A element with a row of B; transfer permutations folded.

After :func:`tile_and_vectorize` the module is still on tensors; :data:`FAST_STAGES` then
bufferizes it with the same one-shot-bufferize stage as the naive path, lowers the remaining n-D
vector transfers to 1-D (``convert-vector-to-scf``), turns the ``scf.forall`` into a sequential
``scf.for`` (``scf-forall-to-for``: one thread) and goes to LLVM (``convert-vector-to-llvm``).
Sizes that the tiles do not divide: each tile loop is *peeled* (``loop.peel``) right after
tiling, so full tiles run in a main loop with static shapes (vectorized) and the partial last tile
in a remainder loop with dynamic shapes, which the vectorizer leaves as scalar code (correct,
slower).

Source: MLIR docs "Transform Dialect" tutorial (Ch. 1-4) and
``mlir/test/Dialect/LLVM/transform-e2e.mlir``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mlir import ir
from mlir.dialects import transform
from mlir.dialects.transform import loop as tloop
from mlir.dialects.transform import structured, vector as tvector
from mlir.dialects.transform import interpreter

from common.errors import UserError
from common.isa import host_features
from common.results import atomic_write

from . import consteval, conv
from .lowering import BUFFERIZE, SCF_TO_CF, as_module, mlir_error_line, parse_pipeline

#: True when the host has AVX-512F (LLVM's host detection: CPUID and what the OS saves, :mod:`common.isa`).
AVX512 = "avx512f" in host_features()

#: Cache-level tile (MC, NC, KC) and register tile (MR, NR) for f32, by the host's widest vectors.
#: AVX-512 (32 zmm registers): 8 x 32 accumulators = 16 zmm (0.83-0.95x NumPy's time at 256^3-1024^3
#: on Zen 4). AVX2 (16 ymm registers): 8 x 32 would need 32 ymm and spills (2.0-2.9x NumPy's time,
#: measured on Zen 3); 6 x 16 = 12 ymm accumulators with a 64-column cache tile measured 0.99x /
#: 0.83x / 1.46x NumPy's time at 256^3 / 512^3 / 1024^3 there (1 thread, same run as NumPy).
CACHE_TILE = (0, 256, 256) if AVX512 else (0, 64, 256)
REGISTER_TILE = (8, 32) if AVX512 else (6, 16)

LINALG_TO_LOOPS = "builtin.module(func.func(convert-linalg-to-loops), scf-forall-to-for, lower-affine)"
VECTOR_TO_SCF = ("builtin.module(func.func(convert-vector-to-scf{full-unroll=true target-rank=1}), "
                 "canonicalize, cse)")
VECTOR_TO_LLVM = (
    "builtin.module("
    "convert-bufferization-to-memref, expand-strided-metadata, lower-affine, "
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct}, "
    "finalize-memref-to-llvm, convert-to-llvm, reconcile-unrealized-casts)"
)
#: Before the schedule: fuse chains of elementwise ``linalg.generic``s (bias add, then ReLU) into one
FUSE_ELEMENTWISE = "builtin.module(func.func(linalg-fuse-elementwise-ops), canonicalize, cse)"
#: Stages for a module that went through :func:`tile_and_vectorize`.
FAST_STAGES: list[tuple[str, str]] = [
    ("bufferize", BUFFERIZE),
    ("vector", VECTOR_TO_SCF),
    ("loops", LINALG_TO_LOOPS),
    ("cf", SCF_TO_CF),
    ("llvm", VECTOR_TO_LLVM),
]


def _check_tiles(cache_tile, register_tile) -> None:
    for name, t, low in (("cache_tile", cache_tile or (0, 0, 0), 0), ("register_tile", register_tile, 1)):
        if not all(isinstance(v, int) and v >= low for v in t):
            raise UserError(f"{name} sizes must be integers >= {low} (0 = do not tile), got {t!r}")
    if len(cache_tile or (0, 0, 0)) != 3 or len(register_tile) != 2:
        raise UserError("cache_tile is (MC, NC, KC) and register_tile is (MR, NR)")


TILE_GROUP_ATTR = "lab03.tile_group"
_SKIP = ("linalg.conv", "linalg.pooling", "linalg.depthwise", "linalg.yield", "linalg.index")

#: The schedule's steps, applied one transform script each; ``save_dir`` gets the IR after each.
SCHEDULE_STEPS = ("tile", "decompose", "vectorize", "hoist", "lower_vectors")


@dataclass(frozen=True)
class TileGroup:
    """Ops tiled alike: first by ``cache_sizes`` (empty: no cache-level tiling), then by ``sizes``;
    ``peel[i]`` says whether loop ``i`` of the second tiling needs a remainder loop. ``kind`` is
    ``"matmul"`` (the (batch) matmul schedule), ``"conv"`` (tiled, then decomposed to 1-D
    convolutions, :mod:`lab03_mlir.conv`) or ``"other"``."""

    kind: str
    sizes: tuple
    peel: tuple
    cache_sizes: tuple = ()


def _loop_count(op) -> int:
    if "iterator_types" in op.attributes:
        return len(ir.ArrayAttr(op.attributes["iterator_types"]))
    return ir.RankedTensorType(op.results[0].type).rank


def _group_of(op, cache_tile, register_tile, conv_tile) -> TileGroup | None:
    """The tile group of one linalg op, or None to leave it alone (see :func:`tag_tile_groups`)."""
    mr, nr = register_tile
    name = op.name
    if not name.startswith("linalg.") or not len(op.results):
        return None
    types = [r.type for r in op.results]
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return None
    shape = list(ir.RankedTensorType(types[0]).shape)
    if name == conv.NHWC:
        channels = ir.RankedTensorType(op.operands[0].type).shape[-1]
        sizes = conv.conv_tile_sizes(shape, channels, conv_tile)
        return TileGroup("conv", sizes, (False,) * len(sizes))
    if name.startswith(_SKIP):
        return None
    perm = _permutation(op)
    if perm is not None:
        return _transpose_group(perm, shape)
    if name in ("linalg.matmul", "linalg.batch_matmul"):
        # batch_matmul (e.g. from tosa.matmul): the same schedule with a leading tile size 1 on
        # the batch loop, so each tile is an ordinary 2-D MR x NR register block.
        batch = (1,) if name == "linalg.batch_matmul" else ()
        m, n = shape[-2:]
        mc, nc, kc = cache_tile or (0, 0, 0)
        # an M/N cache tile is used only where it divides the extent (no dynamic-shaped
        # remainder tile, which the vectorizer would leave scalar); KC is free: k is then tiled by 1
        mc, nc = (t if 0 < t < d and d % t == 0 else 0 for t, d in ((mc, m), (nc, n)))
        inner_m, inner_n = (mc or m), (nc or n)
        cache = (mc, nc, kc)
        return TileGroup("matmul", batch + (mr, nr, 1),
                         (False,) * len(batch) + (inner_m % mr != 0, inner_n % nr != 0),
                         batch + cache if any(cache) else ())
    r = _loop_count(op)
    if r == 0:
        return None
    sizes = (nr,) if r == 1 else (1,) * (r - 2) + (mr, nr)
    if r != len(shape):  # reductions: loop extents are not the output shape; tile without peeling
        return TileGroup("other", sizes, (False,) * len(sizes))
    return TileGroup("other", sizes, tuple(d % t != 0 for d, t in zip(shape, sizes)))


#: block side of a transpose tile (16 x 16 float32: one zmm register per row)
TRANSPOSE_TILE = 16


def _permutation(op) -> list[int] | None:
    """``perm`` (output dim ``j`` reads input dim ``perm[j]``) of a ``linalg.transpose``, or of an
    all-parallel ``linalg.generic`` with one input read through a non-identity permutation and an
    identity output (a transpose with an elementwise body, e.g. the ReLU fused into the transpose
    of a channels-last convolution's result); ``None`` for anything else."""
    if op.name == "linalg.transpose":
        return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    if op.name != "linalg.generic" or len(op.operands) != 2:
        return None
    if any("reduction" in str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])):
        return None
    in_map, out_map = (ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"]))
    if not (in_map.is_permutation and out_map.is_permutation) or in_map == out_map:
        return None
    if [ir.AffineDimExpr(e).position for e in out_map.results] != list(range(out_map.n_dims)):
        return None
    dims = [ir.AffineDimExpr(e).position for e in in_map.results]  # input dim k is loop dims[k]
    return [dims.index(j) for j in range(len(dims))]


def _transpose_group(perm: list[int], shape) -> TileGroup:
    """Tile a transpose so that each tile is a square block in the plane of the input's and the
    output's contiguous dimensions: both are then read and written a row at a time
    (``[1, ..., 16, ..., 16]``; a permutation that keeps the last dimension in place gets rows)."""
    inner_out, inner_in = len(shape) - 1, perm.index(len(shape) - 1)  # output dims of the two
    sizes = [1] * len(shape)
    for d in {inner_out, inner_in}:
        sizes[d] = conv.largest_divisor(shape[d], TRANSPOSE_TILE)
    if inner_out == inner_in and len(shape) > 1:
        sizes[-2] = conv.largest_divisor(shape[-2], 8)
    return TileGroup("other", tuple(sizes), (False,) * len(sizes))


def tag_tile_groups(module: ir.Module, cache_tile=CACHE_TILE, register_tile=REGISTER_TILE,
                    conv_tile=conv.CONV_TILE) -> list[TileGroup]:
    """Tag each static linalg op with ``lab03.tile_group = i``; return the groups.

    ``linalg.matmul`` -> the matmul schedule; ``linalg.conv_2d_nhwc_hwcf`` -> the convolution
    schedule (:func:`lab03_mlir.conv.conv_tile_sizes`); any other op with ``r`` loops -> sizes
    ``[1] * (r - 2) + [MR, NR]`` (``[NR]`` when ``r == 1``). Other convolutions, pooling, ops
    with dynamic shapes or without tensor results are not tagged (left as they are).
    """
    groups: list[TileGroup] = []
    tagged = []

    def visit(op):
        g = _group_of(op, cache_tile, register_tile, conv_tile)
        if g is not None:
            if g not in groups:
                groups.append(g)
            tagged.append((op, groups.index(g)))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    with module.context:
        for op, g in tagged:
            op.attributes[TILE_GROUP_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), g)
    return groups


def _untag(module: ir.Module) -> None:
    def visit(op):
        if TILE_GROUP_ATTR in op.attributes:
            del op.attributes[TILE_GROUP_ATTR]
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)


def _match_group(root, g: int):
    i64 = ir.IntegerType.get_signless(64)
    return structured.MatchOp(transform.AnyOpType.get(), root, op_attrs=ir.DictAttr.get(
        {TILE_GROUP_ATTR: ir.IntegerAttr.get(i64, g)})).result


def _step_tile(root, groups: list[TileGroup]) -> None:
    """Cache tiles (matmul), register tiles (every group), peeling where a tile does not divide."""
    any_op = transform.AnyOpType.get()
    for g, group in enumerate(groups):
        ops = _match_group(root, g)
        if any(group.cache_sizes[:-1]):  # M/N cache tiles: an scf.forall (see module doc)
            parallel = list(group.cache_sizes[:-1]) + [0]
            ops = structured.TileUsingForallOp(any_op, any_op, ops, tile_sizes=parallel).tiled_op
        if group.cache_sizes and group.cache_sizes[-1]:  # KC: a reduction, so an scf.for
            reduction = [0] * (len(group.cache_sizes) - 1) + [group.cache_sizes[-1]]
            ops = structured.TileUsingForOp(ops, sizes=reduction).tiled_linalg_op
        tiled = structured.TileUsingForOp(ops, sizes=list(group.sizes))
        # peel innermost first; only loops whose extent the tile does not divide
        for loop, peel in reversed(list(zip(tiled.loops, group.peel))):
            if peel:
                tloop.LoopPeelOp(any_op, any_op, loop)
    _canonicalize(_func(root))


def _step_decompose(root, groups: list[TileGroup]) -> None:
    """Each conv tile (``oh = kh = 1``) -> ``linalg.conv_1d_nwc_wcf`` on rank-reduced slices."""
    for g, group in enumerate(groups):
        if group.kind == "conv":
            structured.DecomposeOp(_match_group(root, g))
    _canonicalize(_func(root))


def _step_vectorize(root, groups: list[TileGroup]) -> None:
    func = structured.VectorizeChildrenAndApplyPatternsOp(_func(root)).result
    if any(group.kind == "conv" for group in groups):
        # vector<1x8x16> (read) vs vector<1x1x8x16> (write) of the conv accumulator -> both
        # vector<8x16>, so that the hoisting step can pair them
        patterns = transform.ApplyPatternsOp(func)
        with ir.InsertionPoint(patterns.patterns):
            tvector.ApplyCastAwayVectorLeadingOneDimPatternsOp()
            transform.ApplyCanonicalizationPatternsOp()
    _canonicalize(func)


def _step_hoist(root, groups: list[TileGroup]) -> None:
    func = _func(root)
    tloop.HoistLoopInvariantSubsetsOp(structured.MatchOp.match_op_names(func, ["scf.for"]).result)
    _canonicalize(func)


def _step_lower_vectors(root, groups: list[TileGroup]) -> None:
    patterns = transform.ApplyPatternsOp(_func(root))
    with ir.InsertionPoint(patterns.patterns):
        tvector.ApplyLowerContractionPatternsOp(lowering_strategy=tvector.VectorContractLowering.OuterProduct)
        tvector.ApplyTransferPermutationPatternsOp()
        tvector.ApplyLowerOuterProductPatternsOp()
        transform.ApplyCanonicalizationPatternsOp()


_STEP_BUILDERS = {"tile": _step_tile, "decompose": _step_decompose, "vectorize": _step_vectorize,
                  "hoist": _step_hoist, "lower_vectors": _step_lower_vectors}


def _func(root):
    return structured.MatchOp.match_op_names(root, ["func.func"]).result


def _check_steps(steps) -> None:
    unknown = [s for s in steps if s not in _STEP_BUILDERS]
    if unknown:
        raise UserError(f"unknown schedule step(s) {unknown}; the steps are {', '.join(SCHEDULE_STEPS)}")


def build_schedule(groups: list[TileGroup], *, context: ir.Context,
                   steps=SCHEDULE_STEPS) -> tuple[ir.Module, ir.OpView]:
    """Build the transform script of ``steps`` (in order); returns ``(transform module, its named sequence)``.

    ``groups[i]`` says how to tile the ops tagged ``lab03.tile_group = i``.

    Raises:
        UserError: a step that is not one of :data:`SCHEDULE_STEPS`.
    """
    _check_steps(steps)
    with context, ir.Location.unknown():
        tmod = ir.Module.create()
        tmod.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
        with ir.InsertionPoint(tmod.body):
            seq = transform.NamedSequenceOp("__transform_main", [transform.AnyOpType.get()], [],
                                            arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
            with ir.InsertionPoint(seq.body):
                for name in steps:
                    _STEP_BUILDERS[name](seq.bodyTarget, groups)
                transform.YieldOp([])
    return tmod, seq


def _canonicalize(target) -> None:
    patterns = transform.ApplyPatternsOp(target, apply_cse=True)
    with ir.InsertionPoint(patterns.patterns):
        transform.ApplyCanonicalizationPatternsOp()
        structured.ApplyTilingCanonicalizationPatternsOp()


def tile_and_vectorize(module_or_text, cache_tile=CACHE_TILE, register_tile=REGISTER_TILE, *,
                       conv_tile=conv.CONV_TILE, context: ir.Context | None = None,
                       save_dir: str | Path | None = None, verbose: bool = False,
                       steps=SCHEDULE_STEPS) -> ir.Module:
    """Apply the tiling + vectorization schedule to a copy of a linalg-on-tensors module.

    Args:
        module_or_text: ``ir.Module`` (not mutated) or MLIR text (a matmul, a convolution, ...).
        cache_tile: (MC, NC, KC) outer tile sizes in elements, ints >= 0 (0 = that loop not
            tiled; default by host, :data:`CACHE_TILE`); register_tile: (MR, NR) inner tile sizes of
            the matmul, ints >= 1 (:data:`REGISTER_TILE`); conv_tile: (OW_t, F_t, C_t) targets of the
            convolution, ints >= 1 (:func:`lab03_mlir.conv.conv_tile_sizes`).
        save_dir: if given, the IR before the schedule and after each step is written there as
            ``s00_input.mlir``, ``s01_tile.mlir``, ... (one file per :data:`SCHEDULE_STEPS` entry).
        verbose: print the IR after each step.
        steps: the steps to apply, in order (a prefix of :data:`SCHEDULE_STEPS`, or with one left
            out, to see what each step buys).

    Returns:
        A new module on tensors with ``scf.for`` tile loops and ``vector`` ops; lower it with
        ``lowering.lower(module, stages=FAST_STAGES)``.

    Raises:
        UserError: text that does not parse, bad tile sizes (``conv_tile`` only checked when the
            module holds a convolution) or step names, a failing ``linalg-fuse-elementwise-ops``
            pre-pass, or the transform interpreter failed (first diagnostic).
        CannotWrite: a step file cannot be written under ``save_dir``.
    """
    module = as_module(module_or_text, context)
    _check_tiles(cache_tile, register_tile)
    _check_steps(steps)
    conv.to_channels_last(module)
    consteval.fold_constant_transposes(module)
    _run(FUSE_ELEMENTWISE, module)
    groups = tag_tile_groups(module, cache_tile, register_tile, conv_tile)
    save = Path(save_dir) if save_dir is not None else None
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
    _show(module, 0, "input", save, verbose)
    for i, name in enumerate(steps, start=1):
        tmod, seq = build_schedule(groups, context=module.context, steps=(name,))
        try:
            interpreter.apply_named_sequence(module, seq, tmod)
        except (ir.MLIRError, ValueError) as exc:
            raise UserError(f"transform schedule step {name!r} failed: {mlir_error_line(exc)}") from None
        if i == len(steps):
            _untag(module)
        _show(module, i, name, save, verbose)
    if not steps:
        _untag(module)
    return module


def _run(pipeline: str, module: ir.Module) -> None:
    try:
        parse_pipeline(pipeline, module.context, "fuse").run(module.operation)
    except ir.MLIRError as exc:
        raise UserError(f"{pipeline}: {mlir_error_line(exc)}") from None


def _show(module, index: int, name: str, save: Path | None, verbose: bool) -> None:
    if save is None and not verbose:
        return
    text = str(module)
    if save is not None:
        atomic_write(save / f"s{index:02d}_{name}.mlir", text)
    if verbose:
        print(f"// ----- IR after schedule step {index:02d} {name}\n{text.split('{-#', 1)[0]}")
