"""Graded tests of Task 2.4 (``lab02.manual``): tile and reorder, steps 1-2 of the manual schedule.

Through the public contract only (``tile_and_reorder`` and its docstring, ``manual_schedule``; the module
docstring of ``lab02_tvm/schedule/manual.py``): on small TE matmuls (built here with ``te.create_prim_func``,
no model, no lab pass), the block's loops after the call, read with ``sch.get_loops`` as (extent, kind)
pairs, are the stated order ``*outer, *reduction, *inner`` with the stated split extents; the returned
handles are those loops; and the whole ``manual_schedule`` built with ``tvm.compile`` matches NumPy and
ends vectorised, unrolled and parallel as its docstring says. Loop names are not compared.

Tolerance of the numeric check: float32 sums of K = 64 products, reassociated by the tile (and by the
vector lanes) against NumPy's float64 sum: ``rtol = 1e-5``, ``atol = 1e-5 * max|ref|``.

Run: ``.venv/bin/python -m pytest --task lab02.manual`` (or ``.venv/bin/python -m pytest lab02_tvm/test_task_manual.py``).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import tvm

pytestmark = pytest.mark.lab02

RTOL = 1e-5


def matmul(m: int, k: int, n: int, batch: int | None = None):
    from tvm import te, topi
    if batch is None:
        A = te.placeholder((m, k), name="A")
        B = te.placeholder((k, n), name="B")
        return tvm.IRModule({"main": te.create_prim_func([A, B, topi.matmul(A, B)])})
    X = te.placeholder((batch, m, k), name="X")
    Y = te.placeholder((batch, k, n), name="Y")
    return tvm.IRModule({"main": te.create_prim_func([X, Y, topi.nn.batch_matmul(X, Y, transpose_b=False)])})


def block_loops(mod):
    """(schedule, block, spatial loops, reduction loops) of the one block of ``mod`` (the matmul)."""
    from tvm import s_tir
    sch = s_tir.Schedule(mod)
    (block,) = sch.get_child_blocks(sch.get_sblock("root"))
    kinds = [int(iv.iter_type) for iv in sch.get(block).iter_vars]  # 0 spatial, 2 reduction
    loops = sch.get_loops(block)
    return sch, block, [lp for lp, k in zip(loops, kinds) if k == 0], [lp for lp, k in zip(loops, kinds) if k == 2]


def extents(sch, loops) -> list[int]:
    return [int(sch.get(lp).extent) for lp in loops]


def primitive(name: str) -> str:
    """The primitive a step name starts with (its leading word: ``split`` of ``split(ax1, [3, 8])``, of ``split ax1
    into 3 x 8`` too): the docstring asks for a name *starting with* the primitive, ``split(...)`` being one such."""
    m = re.match(r"[A-Za-z_]+", name)
    return m.group() if m else name


def same_loops(sch, a, b) -> bool:
    return len(a) == len(b) and all(sch.get(x).same_as(sch.get(y)) for x, y in zip(a, b))


@pytest.mark.task("lab02.manual", points=2)
@pytest.mark.parametrize("m, k, n, vec, rb", [(16, 32, 24, 8, 4), (12, 8, 32, 16, 3)])
def test_matmul_tile_order_and_extents(m, k, n, vec, rb):
    _check_matmul_tile(m, k, n, vec, rb, "the block's loops in the order (*outer, *reduction, *inner), the register "
                                         "tile innermost")


def _check_matmul_tile(m: int, k: int, n: int, vec: int, rb: int, why: str) -> None:
    """``tile_and_reorder`` on an M x K x N matmul, block_loop 0: the block's loops are (M/rb, N/vec | K | rb, vec),
    in the order (*outer, *reduction, *inner) it returned; ``why`` ends the extents' message."""
    from lab02_tvm.schedule.manual import tile_and_reorder
    sch, block, spatial, reduction = block_loops(matmul(m, k, n))
    outer, inner = tile_and_reorder(sch, spatial, reduction, vec=vec, block_loop=0, reg_block=rb)
    loops = sch.get_loops(block)
    want = [m // rb, n // vec, k, rb, vec]
    assert extents(sch, loops) == want, (
        f"loop extents {extents(sch, loops)}, want {want} = (M/{rb}, N/{vec} | K | {rb}, {vec}): {why}")
    assert same_loops(sch, loops, [*outer, *reduction, *inner]), "the loops you returned are not the block's loops "\
        "in the order (*outer, *reduction, *inner)"
    assert extents(sch, outer) == [m // rb, n // vec] and extents(sch, inner) == [rb, vec]


@pytest.mark.task("lab02.manual", points=2)
@pytest.mark.parametrize("block_loop, rb", [(None, 4), (0, 1)], ids=["no-block-loop", "reg-block-1"])
def test_without_a_register_block_only_the_vector_loop_splits(block_loop, rb):
    from lab02_tvm.schedule.manual import tile_and_reorder
    sch, block, spatial, reduction = block_loops(matmul(8, 16, 32))
    outer, inner = tile_and_reorder(sch, spatial, reduction, vec=8, block_loop=block_loop, reg_block=rb)
    loops = sch.get_loops(block)
    assert extents(sch, loops) == [8, 4, 16, 8], (
        f"loop extents {extents(sch, loops)}, want [8, 4, 16, 8] = (M, N/8 | K | 8): with no register block only "
        f"the vector loop splits off")
    assert same_loops(sch, loops, [*outer, *reduction, *inner]) and len(inner) == 1, (
        f"want the loops (*outer, *reduction, *inner) with one inner loop (the vector loop); inner has {len(inner)}")


@pytest.mark.task("lab02.manual", points=1)
@pytest.mark.parametrize("m, k, n, vec, rb", [(4, 16, 8, 8, 4), (6, 8, 8, 4, 2)], ids=["as-wide-as-the-loop", "block-of-2"])
def test_a_vector_or_register_block_as_wide_as_its_loop_or_of_2_still_splits(m, k, n, vec, rb):
    """The contract splits whenever ``reg_block > 1`` (and always for the vector loop), by exactly the given
    factors: ``vec == E`` gives ``[1, E]`` and ``reg_block == B`` gives ``[1, B]`` (``manual_schedule`` picks the
    largest divisor <= the lanes / ``reg_block``, which is the whole extent for a short loop), and a register block
    of 2 is a register block. Hand-worked extents: M=4, N=8, vec=8, rb=4 gives (1, 1 | K | 4, 8); M=6, N=8, vec=4,
    rb=2 gives (3, 2 | K | 2, 4). A solution that skips a split whose outer half would have extent 1, caps a factor
    at half the extent, or only blocks from 3 up leaves other extents."""
    _check_matmul_tile(m, k, n, vec, rb, f"split by exactly vec={vec} and reg_block={rb}, even where the outer half "
                                         "has extent 1")


@pytest.mark.task("lab02.manual", points=2)
def test_batch_matmul_blocks_the_chosen_loop():
    from lab02_tvm.schedule.manual import tile_and_reorder
    sch, block, spatial, reduction = block_loops(matmul(12, 10, 16, batch=2))
    outer, inner = tile_and_reorder(sch, spatial, reduction, vec=4, block_loop=1, reg_block=6)
    loops = sch.get_loops(block)
    assert extents(sch, loops) == [2, 2, 4, 10, 6, 4], (
        f"loop extents {extents(sch, loops)}, want [2, 2, 4, 10, 6, 4] = (B, M/6, N/4 | K | 6, 4): block_loop=1 "
        f"(M) is the register-blocked loop")
    assert same_loops(sch, loops, [*outer, *reduction, *inner]), "the loops you returned are not the block's loops "\
        "in the order (*outer, *reduction, *inner)"
    assert extents(sch, outer) == [2, 2, 4] and extents(sch, inner) == [6, 4]


@pytest.mark.task("lab02.manual", points=1)
def test_each_primitive_is_reported():
    from lab02_tvm.schedule.manual import tile_and_reorder
    sch, block, spatial, reduction = block_loops(matmul(16, 8, 16))
    names: list[str] = []
    seen: list[int] = []  # the block's loop count at each call: step(name) runs *after* its primitive
    at: list[list[int]] = []  # the block's loop extents at each call

    def step(name):
        names.append(name)
        seen.append(len(sch.get_loops(block)))
        at.append(extents(sch, sch.get_loops(block)))

    tile_and_reorder(sch, spatial, reduction, vec=8, block_loop=0, reg_block=4, step=step)
    # each report is a str (exactly: an object of another type may define its own split and ==)
    assert all(type(n) is str for n in names), f"step(...) called with non-str: {[type(n).__qualname__ for n in names]}"
    assert [primitive(n) for n in names] == ["split", "split", "reorder"], names
    assert seen == [4, 5, 5], (f"the block had {seen} loops at the three step(...) calls, want [4, 5, 5]: step(name) "
                               "is called after each primitive, so each split has added its loop")
    assert at[-1] == [4, 2, 8, 4, 8], (f"the block's loop extents at step('reorder...') were {at[-1]}, want the "
                                       "reordered [4, 2, 8, 4, 8] (M/4, N/8 | K | 4, 8): step(name) runs after reorder")


@pytest.mark.task("lab02.manual", points=1)
@pytest.mark.parametrize("block_loop, rb", [(None, 4), (0, 1)], ids=["no-block-loop", "reg-block-1"])
def test_without_a_register_block_the_vector_split_and_the_reorder_are_reported(block_loop, rb):
    """With no register block (``block_loop`` None, or ``reg_block`` 1: nothing to split) there are two primitives,
    the vector split and the reorder: each is reported once, after it has run (the loop count and order at each
    call, read with ``sch.get_loops``); no ``split`` is reported for a split that did not happen."""
    from lab02_tvm.schedule.manual import tile_and_reorder
    sch, block, spatial, reduction = block_loops(matmul(16, 12, 16))
    names: list[str] = []
    at: list[list[int]] = []

    def step(name):
        names.append(name)
        at.append(extents(sch, sch.get_loops(block)))

    tile_and_reorder(sch, spatial, reduction, vec=8, block_loop=block_loop, reg_block=rb, step=step)
    assert all(type(n) is str for n in names), f"step(...) called with non-str: {[type(n).__qualname__ for n in names]}"
    assert [primitive(n) for n in names] == ["split", "reorder"], names
    assert at == [[16, 2, 8, 12], [16, 2, 12, 8]], (
        f"the block's loop extents at the step(...) calls were {at}, want [16, 2, 8, 12] (M, N/8, 8, K) after the "
        "split, then [16, 2, 12, 8] (M, N/8 | K | 8) after the reorder")


def conv2d(n=1, c=8, h=10, w=10, o=16, k=3):
    """NCHW conv2d as one TE block: spatial (b, f, y, x), three reduction loops (rc, ry, rx)."""
    from tvm import te
    X = te.placeholder((n, c, h, w), name="X")
    W = te.placeholder((o, c, k, k), name="W")
    rc, ry, rx = te.reduce_axis((0, c), "rc"), te.reduce_axis((0, k), "ry"), te.reduce_axis((0, k), "rx")
    Y = te.compute((n, o, h - k + 1, w - k + 1),
                   lambda b, f, y, x: te.sum(X[b, rc, y + ry, x + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]),
                   name="conv")
    return tvm.IRModule({"main": te.create_prim_func([X, W, Y])})


@pytest.mark.task("lab02.manual", points=2)
def test_conv2d_keeps_every_reduction_loop_in_order_and_the_blocked_loop_in_place():
    """The ResNet kernel's shape: three reduction loops (rc, ry, rx), all between the outer loops and the register
    tile and in their order; the register-blocked loop f (block_loop=1, not the last outer loop) keeps its place."""
    from lab02_tvm.schedule.manual import tile_and_reorder
    sch, block, spatial, reduction = block_loops(conv2d())
    outer, inner = tile_and_reorder(sch, spatial, reduction, vec=4, block_loop=1, reg_block=4)
    loops = sch.get_loops(block)
    want = [1, 16 // 4, 8, 8 // 4, 8, 3, 3, 4, 4]
    assert extents(sch, loops) == want, (
        f"loop extents {extents(sch, loops)}, want {want} = (B, F/4, Y, X/4 | C, KH, KW | 4, 4): every reduction "
        f"loop in order between outer and inner, the blocked loop F in its place among the outer loops")
    assert same_loops(sch, loops[4:7], reduction), "the reduction loops are not rc, ry, rx in their order"
    assert same_loops(sch, loops, [*outer, *reduction, *inner]), "the loops you returned are not the block's loops "\
        "in the order (*outer, *reduction, *inner)"


@pytest.mark.task("lab02.manual", points=1)
def test_reduction_loops_keep_their_order_whatever_their_extents_and_the_callers_lists_stay():
    """A conv2d of 2 input channels and a 3x3 kernel: reduction loops (rc, ry, rx) of extents (2, 3, 3), not in
    decreasing order, stay in their order; ``spatial`` and ``reduction`` are the caller's lists (``manual_schedule``
    reads ``reduction[0]`` after the call for ``decompose_reduction``): they come back as they were given."""
    from lab02_tvm.schedule.manual import tile_and_reorder
    sch, block, spatial, reduction = block_loops(conv2d(c=2))
    given_spatial, given_reduction = list(spatial), list(reduction)
    outer, inner = tile_and_reorder(sch, spatial, reduction, vec=4, block_loop=1, reg_block=4)
    loops = sch.get_loops(block)
    want = [1, 16 // 4, 8, 8 // 4, 2, 3, 3, 4, 4]
    assert extents(sch, loops) == want, (
        f"loop extents {extents(sch, loops)}, want {want} = (B, F/4, Y, X/4 | C, KH, KW | 4, 4): the reduction loops "
        f"in their given order, whatever their extents")
    assert same_loops(sch, loops, [*outer, *given_reduction, *inner])
    assert len(spatial) == len(given_spatial) and all(a is b for a, b in zip(spatial, given_spatial)), \
        "tile_and_reorder changed the caller's spatial list"
    assert len(reduction) == len(given_reduction) and all(a is b for a, b in zip(reduction, given_reduction)), \
        "tile_and_reorder changed the caller's reduction list"


@pytest.mark.task("lab02.manual", points=3)
def test_manual_schedule_matches_numpy_and_is_vectorised_and_parallel():
    from lab02_tvm.schedule.manual import manual_schedule
    m, k, n = 32, 64, 48
    target = tvm.target.Target("llvm")
    result = manual_schedule(matmul(m, k, n), target, reg_block=4)
    script = result.sch.mod.script()
    assert "T.vectorized" in script and "T.parallel" in script and "T.unroll" in script
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    lib = tvm.compile(result.sch.mod, target=target)
    dev = tvm.cpu()
    out = tvm.runtime.tensor(np.zeros((m, n), np.float32), dev)
    lib["main"](tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev), out)
    np.testing.assert_allclose(out.numpy(), ref, rtol=RTOL, atol=RTOL * float(np.abs(ref).max()))
