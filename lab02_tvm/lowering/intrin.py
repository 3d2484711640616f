"""An fp32 register-tile micro-kernel for x86, registered as a TVM ``TensorIntrin``, and the search space that uses it.

**What the tile is.** The BLIS/GotoBLAS micro-kernel: an ``MR x NR`` block of ``C`` held in vector
registers and updated by a sequence of rank-1 (outer-product) updates, one per ``k``::

    for k in range(K_TILE):
        for i in range(MR):                       # unrolled
            C[i, 0:NR] += broadcast(A[i, k]) * B[k, 0:NR]     # NR/W vector FMAs

``NR`` is a multiple of the host's vector width ``W`` (16 fp32 lanes on AVX-512, 8 on AVX2), so one row
of the tile is ``NR / W`` vector registers and the whole tile ``MR * NR / W`` accumulators:
:func:`default_tile` is ``(8, 32)`` = 16 zmm on AVX-512 (32 registers) and ``(6, 16)`` = 12 ymm on AVX2
(16 registers), the same shapes as Lab 03's ``lab03_mlir.fast.REGISTER_TILE``. Each ``k`` costs one
broadcast of ``A[i, k]`` per row, ``NR / W`` loads of ``B[k, :]`` shared by all rows, and
``MR * NR / W`` independent FMAs: enough independent FMAs to cover the FMA latency (4 cycles x 2 ports
= 8 in flight) with loads well under the two load ports' budget.

**Why.** The issue: Lab 02's hot kernels (BERT's matmuls on the AVX-512 Intel kind) stop at 64-69 % of
FMA peak after tuning, below the 80 % target; MetaSchedule's generic ``MultiLevelTiling`` leaves the
register tile to LLVM's auto-vectorizer. TVM 0.27 ships x86 tensor intrinsics only for int8
(``dot_16x4_vnni``, ``dot_16x4_avx512`` in ``tvm/s_tir/tensor_intrin/x86.py``), none for fp32, so
``MultiLevelTilingWithIntrin`` has nothing to tensorize an fp32 matmul with. This module supplies one,
picks per kernel a tile that divides it (:func:`tile_for`), and gives MetaSchedule a space that tiles
for it (:func:`tile_space`): the method study's ``+ tile`` arms (:mod:`lab02_tvm.measure.method_study`).

**Desc and impl.** A ``TensorIntrin`` is a pair of PrimFuncs with the same buffer signature: the
*desc* is the computation as plain TIR (``sch.tensorize`` / auto-tensorization match a block's loop
nest against it structurally), the *impl* is what replaces the matched subtree. Here (``MR``, ``NR``,
``K_TILE`` are baked in by :func:`make_desc` / :func:`make_impl`; ``A``, ``B``, ``C`` are views of larger
row-major buffers, hence the symbolic row strides; ``offset_factor=1`` lets them start anywhere):
the desc is one ``T.sblock("update")`` over ``T.grid(MR, NR, K_TILE)`` doing
``C[vi, vj] += A[vi, vk] * B[vk, vj]``; the impl loops ``k`` (serial), then ``i`` (unrolled ``MR``),
then ``jo`` (unrolled ``NR / W``) and writes ``C[i, ramp(jo*W, 1, W)]`` with one
``T.call_llvm_pure_intrin("float32xW", "llvm.fmuladd", broadcast(A[i, k]), B[k, ramp], C[i, ramp])``.
Their TVMScript, as TVM prints it: ``make_desc(8, 32).script()`` and ``make_impl(8, 32).script()``.

``llvm.fmuladd`` on ``<W x float>`` is LLVM's "multiply-add, fused where the target can": with the
host target's ``+fma`` it selects ``vfmadd231ps`` on ``zmm`` (W = 16) or ``ymm`` (W = 8).
The accumulators are ``C``'s elements; LLVM keeps them in registers across the unrolled ``k`` steps
of one call. The desc's buffers have the default (``global``) scope, so a schedule that accumulates in
a write cache must make it ``cache_write(block, 0, "global")`` (a ``"local"`` cache fails the match:
"CompareBuffer buffer mismatch: C_local vs C ... scope(): local vs global"), as
:func:`tensorize_matmul` does and as MetaSchedule's CPU ``reuse_write`` (scope ``"global"``) does.

Sources:
  * TVM documentation, "Tensorize" / ``tvm.s_tir.Schedule.tensorize`` and ``TensorIntrin.register``
    (apache/tvm ``python/tvm/s_tir/tensor_intrin/x86.py`` for the desc/impl pattern).
  * F. G. Van Zee and R. A. van de Geijn, "BLIS: A Framework for Rapidly Instantiating BLAS
    Functionality", ACM TOMS 41(3), 2015 (the MR x NR micro-kernel and its register budget).
  * K. Goto and R. A. van de Geijn, "Anatomy of High-Performance Matrix Multiplication",
    ACM TOMS 34(3), 2008 (the rank-1-update inner kernel).
"""
from __future__ import annotations

import re

import numpy as np
import tvm
from tvm import s_tir
from tvm.s_tir import TensorIntrin
from tvm.s_tir.schedule import ScheduleError
from tvm.script import tirx as T

#: The k-extent one tensorized call covers: small (MetaSchedule tiles the rest of K around it), and > 1
#: because a split by 1 leaves a unit reduction loop that the block binding drops (then the desc does
#: not match: "BlockRealizeNode iter_values do not match: (i_1, j_1) vs (i, j, 0)").
K_TILE = 4


def vector_width(target: dict | None = None) -> int:
    """fp32 lanes of the widest vectors of the CPU ``target`` compiles for: 16 (AVX-512F) or 8 (AVX2).

    Uses the project's ISA detection (:mod:`common.isa`): the host's CPUID when the target is the host's
    own CPU, else LLVM's feature list of the named ``mcpu``.
    """
    from common.isa import features_of_host, target_cpu
    cpu = (target or {}).get("mcpu") or target_cpu()
    return 16 if "avx512f" in features_of_host(cpu) else 8


def default_tile(target: dict | None = None) -> tuple[int, int]:
    """``(MR, NR)``: ``(8, 32)`` on AVX-512 (16 zmm accumulators), ``(6, 16)`` on AVX2 (12 ymm)."""
    return (8, 32) if vector_width(target) == 16 else (6, 16)


def make_desc(mr: int, nr: int, kt: int = K_TILE):
    """The desc PrimFunc: ``C[MR, NR] += A[MR, K_TILE] @ B[K_TILE, NR]`` as a plain TIR block."""

    @T.prim_func(s_tir=True)
    def desc(a: T.handle, b: T.handle, c: T.handle) -> None:
        sa, sb, sc = T.int32(), T.int32(), T.int32()
        A = T.match_buffer(a, (mr, kt), "float32", offset_factor=1, strides=[sa, 1])
        B = T.match_buffer(b, (kt, nr), "float32", offset_factor=1, strides=[sb, 1])
        C = T.match_buffer(c, (mr, nr), "float32", offset_factor=1, strides=[sc, 1])
        with T.sblock("root"):
            T.reads(C[0:mr, 0:nr], A[0:mr, 0:kt], B[0:kt, 0:nr])
            T.writes(C[0:mr, 0:nr])
            for i, j, k in T.grid(mr, nr, kt):
                with T.sblock("update"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    return desc


def make_impl(mr: int, nr: int, kt: int = K_TILE, width: int = 16):
    """The impl PrimFunc: per ``k`` and row, ``NR / W`` broadcast-FMAs on ``float32xW`` (``llvm.fmuladd``).

    Raises:
        ValueError: ``nr`` is not a multiple of ``width``.
    """
    if nr % width:
        raise ValueError(f"NR = {nr} is not a multiple of the vector width {width}")
    vt = f"float32x{width}"
    nv = nr // width

    @T.prim_func(s_tir=True)
    def impl(a: T.handle, b: T.handle, c: T.handle) -> None:
        sa, sb, sc = T.int32(), T.int32(), T.int32()
        A = T.match_buffer(a, (mr, kt), "float32", offset_factor=1, strides=[sa, 1])
        B = T.match_buffer(b, (kt, nr), "float32", offset_factor=1, strides=[sb, 1])
        C = T.match_buffer(c, (mr, nr), "float32", offset_factor=1, strides=[sc, 1])
        with T.sblock("root"):
            T.reads(C[0:mr, 0:nr], A[0:mr, 0:kt], B[0:kt, 0:nr])
            T.writes(C[0:mr, 0:nr])
            for k in T.serial(kt):
                for i in T.unroll(mr):
                    for jo in T.unroll(nv):
                        C[i, T.ramp(jo * width, 1, width)] = T.call_llvm_pure_intrin(
                            vt, "llvm.fmuladd",
                            T.broadcast(A[i, k], width),
                            B[k, T.ramp(jo * width, 1, width)],
                            C[i, T.ramp(jo * width, 1, width)])

    return impl


#: what every tile's registry name starts with (a record whose trace names it was tuned in :func:`tile_space`)
NAME_PREFIX = "mlc_fp32_tile_"


def intrin_name(mr: int, nr: int, kt: int = K_TILE, width: int = 16) -> str:
    """``"mlc_fp32_tile_8x32x4_w16"``: the registry name of one tile shape and vector width."""
    return f"{NAME_PREFIX}{mr}x{nr}x{kt}_w{width}"


def register_fp32_tile(mr: int | None = None, nr: int | None = None, *, kt: int = K_TILE,
                       target: dict | None = None) -> str:
    """Register the ``MR x NR x K_TILE`` fp32 tile for ``target``'s vector width; returns its name.

    Idempotent: a name already registered is returned as is (``TensorIntrin.register`` raises on a
    second registration without ``override``). ``mr``/``nr`` default to :func:`default_tile`.
    """
    dm, dn = default_tile(target)
    return _register(mr or dm, nr or dn, kt, vector_width(target))


def _register(mr: int, nr: int, kt: int, width: int) -> str:
    name = intrin_name(mr, nr, kt, width)
    if TensorIntrin.get(name, allow_missing=True) is None:
        TensorIntrin.register(name, make_desc(mr, nr, kt), make_impl(mr, nr, kt, width))
    return name


#: a tile's registry name as :func:`intrin_name` writes it: ``MR``, ``NR``, ``K_TILE``, vector width
NAME_RE = re.compile(re.escape(NAME_PREFIX) + r"(\d+)x(\d+)x(\d+)_w(\d+)")


def register_named_tiles(text: str) -> list[str]:
    """Register every tile ``text`` names (a records file, a trace's JSON); returns their names, sorted.

    A tuning record that used a tile names it in its trace (``sch.tensorize(block, <name>)``), and decoding the
    trace (``JSONDatabase`` opening its files, ``TuningRecord.from_json``) fails on an unregistered name
    ("TensorIntrin ... is not registered"). Each registration parses two TVMScript PrimFuncs (0.2-0.8 s: the
    parser inspects the caller's stack), so only the tiles the records use are registered, whatever their kind
    (an AVX2 kind's records read on an AVX-512 host, or the reverse).
    """
    return sorted({_register(*map(int, m.groups())) for m in NAME_RE.finditer(text)})


def why_not(sch: s_tir.Schedule, block, intrin: str) -> str | None:
    """``None`` when ``intrin`` tensorizes ``block`` once tiled for it, else why not, one line starting
    "not applicable:": what ``MultiLevelTilingWithIntrin`` and ``RewriteTensorize`` will do in the search, checked
    up front so the caller can report it instead.

    Two checks on a copy of ``sch``: ``get_tensorize_loop_mapping``, the one ``MultiLevelTilingWithIntrin`` makes
    before tiling (``None`` when the block's computation is not the desc's: an elementwise add, a conv whose
    reduction does not map, an extent the tile does not divide), and the tensorize itself after
    ``tile_with_tensor_intrin`` (the tiling the rule starts from), ``blockize`` and the init split off: the mapping
    looks at the loops only, while tensorize also needs each operand's tile laid out as the desc's buffer is. An
    NHWC conv whose weights are ``OHWI`` maps (its loops are a matmul's), but reads ``B`` as ``[N, K]`` against the
    desc's ``[K, N]``; ``RewriteTensorize`` then only logs "Tensorize failed" and the candidate runs untensorized
    (TVM's ``rewrite_tensorize.cc``).
    """
    from tvm.s_tir.schedule.analysis import get_tensorize_loop_mapping
    from tvm.s_tir.schedule.transform import tile_with_tensor_intrin
    desc = TensorIntrin.get(intrin).desc
    if get_tensorize_loop_mapping(sch, block, desc) is None:
        return f"not applicable: {intrin}'s loops do not map onto the block (not a matmul, or an extent it does not divide)"
    probe = sch.copy()
    try:
        loop = tile_with_tensor_intrin(probe, probe.get_sblock(sch.get(block).name_hint), intrin)
        if loop is None:
            return f"not applicable: {intrin} cannot tile the block"
        outer = probe.blockize(loop)  # as the search does: blockize, its init split off (RewriteReductionBlock), tensorize
        probe.decompose_reduction(outer, probe.get_loops(outer)[0])
    except ScheduleError as exc:  # the search only logs such a failure and drops the candidate
        return f"not applicable: {intrin} cannot tile the block ({str(exc).strip().splitlines()[-1][:100]})"
    if try_tensorize(probe, outer, intrin) is None:
        return None
    return (f"not applicable: {intrin} maps onto the loops, but tensorize does not match an operand's layout "
            "(the tile reads A as [M, K] and B as [K, N], each row contiguous; OHWI weights are [N, K])")


def try_tensorize(sch: s_tir.Schedule, loop, intrin: str) -> str | None:
    """``sch.tensorize(loop, intrin)`` (``loop``: a loop or a block); ``None`` on success, else the reason as one line ("not applicable: ...").

    ``tensorize`` raises ``tvm.s_tir.schedule.ScheduleError`` (a ``RuntimeError``) with the mismatching TIR; the last
    non-empty line names what did not match (buffer, iterator binding, block structure).
    """
    try:
        sch.tensorize(loop, intrin)
    except ScheduleError as exc:
        lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
        return f"not applicable: {intrin} does not match: {lines[-1] if lines else type(exc).__name__}"
    return None


def matmul_module(m: int, n: int, k: int) -> tvm.IRModule:
    """A plain ``C[m, n] = A[m, k] @ B[k, n]`` fp32 PrimFunc (TE ``create_prim_func``)."""
    from tvm import te
    a = te.placeholder((m, k), "float32", name="A")
    b = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c])})


def tensorize_matmul(mod: tvm.IRModule, mr: int, nr: int, intrin: str, kt: int = K_TILE) -> s_tir.Schedule:
    """Tile ``mod``'s matmul by hand to ``(M/MR, N/NR, K/K_TILE, MR, NR, K_TILE)``, keep the ``MR x NR``
    accumulator in a local buffer, hoist its zero-init and ``tensorize`` the inner ``MR x NR x K_TILE``."""
    sch = s_tir.Schedule(mod)
    blk = sch.get_sblock("C")
    i, j, k = sch.get_loops(blk)
    io, ii = sch.split(i, [None, mr])
    jo, ji = sch.split(j, [None, nr])
    ko, ki = sch.split(k, [None, kt])
    sch.reorder(io, jo, ko, ii, ji, ki)
    cw = sch.cache_write(blk, 0, "global")
    sch.reverse_compute_at(cw, jo)
    sch.decompose_reduction(blk, ko)
    sch.tensorize(ii, intrin)
    return sch


def build(sch: s_tir.Schedule, target: dict | None = None):
    """``tvm.compile`` the scheduled PrimFunc for ``target`` (default the host's)."""
    from lab02_tvm.build import host_target
    return tvm.compile(sch.mod, target=tvm.target.Target(target or host_target()))


def tensorized_matmul(m: int = 96, n: int = 64, k: int = 64, *, target: dict | None = None, seed: int = 0):
    """Tensorize, build and run one ``m x n x k`` matmul; returns ``(result, numpy_reference, lib)``."""
    mr, nr = default_tile(target)
    name = register_fp32_tile(mr, nr, target=target)
    sch = tensorize_matmul(matmul_module(m, n, k), mr, nr, name)
    lib = build(sch, target)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    dev = tvm.cpu()
    ta, tb, tc = (tvm.runtime.tensor(x, dev) for x in (a, b, np.zeros((m, n), np.float32)))
    lib["main"](ta, tb, tc)
    return tc.numpy(), a @ b, lib


#: Register-feasible ``(MR, NR)`` tiles per vector width, in order of preference. A tile needs
#: ``MR * NR / W`` accumulators + ``NR / W`` registers for a row of ``B`` + 1 broadcast of ``A``: within the
#: 16 ymm of AVX2 (6x16: 12 + 2 + 1, 4x24: 12 + 3 + 1, 4x16: 8 + 2 + 1, 7x8: 7 + 1 + 1) and the 32 zmm of
#: AVX-512 (8x48: 24 + 3 + 1, 8x32: 16 + 2 + 1, 4x64: 16 + 4 + 1, 7x32: 14 + 2 + 1, 4x32: 8 + 2 + 1). 8x48 comes
#: first on AVX-512 (24 of the 32 zmm accumulate, against 16 for 8x32): on the AVX-512 Intel kind the 8x48 arm
#: of the method study beat weight layout rewrite alone in the model on all three of BERT's matmuls, where 8x32
#: had lost on two (``results/rocketlake/lab02/method_bert_tile48.md`` against ``method_bert.md``). Over budget, LLVM spills:
#: AVX2 builds of 7x16 (17 registers) and 14x8 (16, none spare) touch the stack 16 and 24 more times
#: than 6x16 does. Several tiles, because ``MR`` and ``NR`` must divide the kernel's row and column
#: extents: BERT's 128 rows take 4 (not 6) on AVX2; ResNet-50's 64-2048 channels take 32, not 48; its 14- and
#: 7-wide NHWC rows take 7.
TILES = {8: ((6, 16), (4, 24), (4, 16), (7, 8)), 16: ((8, 48), (8, 32), (4, 64), (7, 32), (4, 32))}


def tile_for(mod: tvm.IRModule, target: dict | None = None) -> tuple[str | None, str]:
    """The first tile of :data:`TILES` for ``target``'s vector width that tensorizes ``mod``'s reduction block.

    ``mod``: one MetaSchedule task's PrimFunc module. The loop mapping (:func:`why_not`) also requires
    every mapped extent to be a multiple of the tile's (no padding), so BERT's 128 rows take 4x24, not 6x16;
    and the tensorize must match each operand's layout, so an NHWC conv with ``OHWI`` weights takes none.
    Returns ``(registered intrin name, "MRxNR")`` or ``(None, "not applicable: <why>")``.
    """
    from common.errors import UserError

    from .blocks import anchor_name
    sch = s_tir.Schedule(mod)
    try:
        blk = sch.get_sblock(anchor_name(sch))
    except UserError:
        return None, "not applicable: no reduction block"
    tiles = TILES[vector_width(target)]
    reasons = []
    for mr, nr in tiles:
        name = register_fp32_tile(mr, nr, target=target)
        why = why_not(sch, blk, name)
        if why is None:
            return name, f"{mr}x{nr}"
        reasons.append(why.removeprefix("not applicable: "))
    first = next((r for r in reasons if "maps onto the loops" in r), reasons[-1])  # a layout mismatch says most
    return None, f"not applicable: no {'/'.join(f'{m}x{n}' for m, n in tiles)} tile tensorizes the reduction block ({first})"


def tile_space(intrin: str | None):
    """MetaSchedule's CPU search space with ``intrin`` as the register tile (TVM's ``DefaultX86`` recipe).

    The target's default rules (``ScheduleRule.create("llvm")``) with ``MultiLevelTilingWithIntrin(intrin)``
    inserted before ``MultiLevelTiling``, with the same write cache in ``global`` scope, as TVM 0.27
    builds its int8 VNNI rules (``ScheduleRule::DefaultX86``); the
    postprocessors gain ``RewriteTensorize`` (which replaces each marked block by the impl) before
    ``RewriteLayout``. ``vectorize_init_loop=False``: the tile's zero-init stays a loop LLVM vectorizes.
    One change to TVM's recipe: the tiling structure is ``SSRSR``, not ``SSRSRS``: no spatial tile level
    inside the last reduction level, so the loop right around the tile call is a reduction loop, which
    ``RewriteParallelVectorizeUnroll`` does not vectorize. With ``SSRSRS`` it may vectorize the loop over
    whole tiles (``T.vectorized(8)`` around the ``4 x 24`` tile call: vectors of vectors). Such a BERT
    candidate took 71-93 s to compile, past the builder's 60 s timeout, while the same loop nest run
    serially compiled in 0.1 s. In a 16-trial probe of BERT's three hot matmuls on Zen 2, ``SSRSR`` took
    1.3 s a trial with no build errors and reached 54-68 % of the FMA peak; ``SSRSRS`` took 6.1 s a trial,
    5 of 48 failed, and it reached 35-50 %. The elementwise epilogue is still vectorized by the rule.
    ``intrin`` ``None``: the default space (``"post-order-apply"``).
    """
    from tvm.s_tir import meta_schedule as ms
    if intrin is None:
        return "post-order-apply"
    rules = list(ms.ScheduleRule.create("llvm"))
    at = next(i for i, r in enumerate(rules) if type(r).__name__ == "MultiLevelTiling")
    rules.insert(at, ms.schedule_rule.MultiLevelTilingWithIntrin(
        intrin, structure="SSRSR", tile_binds=None, max_innermost_factor=64, vector_load_lens=None,
        reuse_read=None, reuse_write=ms.schedule_rule.ReuseType(req="may", levels=[1, 2], scope="global")))
    posts = list(ms.Postproc.create("llvm"))
    at = next((i for i, p in enumerate(posts) if type(p).__name__ == "RewriteLayout"), len(posts))
    posts.insert(at, ms.postproc.RewriteTensorize(vectorize_init_loop=False))
    return ms.space_generator.PostOrderApply(sch_rules=rules, postprocs=posts, mutator_probs="llvm")


def tile_space_for(target: dict | None = None):
    """``TaskInfo -> space`` for :func:`lab02_tvm.tuning.tune.tune_tasks_plan`: each task's :func:`tile_for` tile
    in :func:`tile_space` (the default space where no tile applies)."""
    def space(info):
        return tile_space(tile_for(info.task.dispatched[0], target)[0])
    return space


def tvmscript(func) -> str:
    """A desc or impl PrimFunc as TVM prints it (``func.script()``), without the import comment lines:
    the text the Lab 02 README shows (a test keeps the two equal)."""
    return "\n".join(ln for ln in func.script().splitlines() if ln.strip() and not ln.startswith("# from"))
