"""Graded tests of Task 2.1 (``lab02.reorder``): the plan of the reduction-loop interchange.

Through the pass's public contract (``reorder_prim_func``, ``ReorderStats``, ``register``; the
module docstring of ``lab02_tvm/schedule/tir_pass.py``): an eligible block's innermost spatial loop moves inside
its reduction loops, every other block is left alone (the same PrimFunc object back, or, beside a block that
changes, the same loops), a second run changes nothing, and the built kernel computes what NumPy computes. One
test calls ``_block_plan`` itself, for the one rule the pass cannot show: the plan only reads the schedule. The
loop order is read from the TVMScript text here, not with the lab's own ``loop_nest``.

Run: ``.venv/bin/python -m pytest --task lab02.reorder`` (or ``.venv/bin/python -m pytest lab02_tvm/test_task_reorder.py``).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import tvm

pytestmark = pytest.mark.lab02


_FOR = re.compile(r"^(\s*)for (.+?) in ")
_BLOCK = re.compile(r'^(\s*)with T\.sblock\("([^"]+)"\)')


def block_loops(func) -> dict[str, list[str]]:
    """``{block name: [loop variables, outermost first]}`` read from the TVMScript of ``func``."""
    stack: list[tuple[int, list[str]]] = []
    out: dict[str, list[str]] = {}
    for line in func.script().splitlines():
        m = _FOR.match(line) or _BLOCK.match(line)
        if not m:
            continue
        depth = len(m.group(1))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if line.lstrip().startswith("for "):
            stack.append((depth, [v.strip() for v in m.group(2).split(",")]))
        else:
            out[m.group(2)] = [v for _, vs in stack for v in vs]
    return out


def matmul(m=64, k=96, n=128):
    from tvm import te, topi
    A = te.placeholder((m, k), name="A")
    B = te.placeholder((k, n), name="B")
    return te.create_prim_func([A, B, topi.matmul(A, B)])


def batch_matmul():
    from tvm import te, topi
    X = te.placeholder((2, 8, 12), name="X")
    Y = te.placeholder((2, 12, 16), name="Y")
    return te.create_prim_func([X, Y, topi.nn.batch_matmul(X, Y, transpose_b=False)])


def two_reductions(m=8, k=6, k2=5, n=16):
    """``C[i, j] = sum over (rk, rl) of A[i, rk, rl] * B[rk, rl, j]``: two reduction loops inside the spatial ones."""
    from tvm import te
    A = te.placeholder((m, k, k2), name="A")
    B = te.placeholder((k, k2, n), name="B")
    rk, rl = te.reduce_axis((0, k), name="rk"), te.reduce_axis((0, k2), name="rl")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, rk, rl] * B[rk, rl, j], axis=[rk, rl]), name="C")
    return te.create_prim_func([A, B, C])


def _scheduled(how: str):
    """The matmul after one schedule step that makes its block ineligible."""
    from tvm import s_tir
    sch = s_tir.Schedule(tvm.IRModule({"main": matmul(16, 24, 32)}))
    i, j, k = sch.get_loops(sch.get_sblock("T_matmul"))
    if how == "transposed":        # loops (j, i, k) around C[i, j]: the inner spatial loop is C's first axis
        sch.reorder(j, i, k)
    elif how == "fused":           # one loop for two iterators
        sch.fuse(i, j)
    elif how == "split":           # two loops for one iterator
        sch.split(k, [None, 4])
    elif how == "spatial_inner":   # already interchanged by hand
        sch.reorder(i, k, j)
    elif how == "split_then_fuse":  # loops (i0, i1*32 + j fused, k): three loops for three iterators, but the fused
        _, i1 = sch.split(i, [None, 4])  # loop is bound to both spatial iterators and v_ax0 to two loops
        sch.fuse(i1, j)          # (tvm.s_tir.Schedule.reorder would accept the interchange: the pass must not ask it)
    return sch.mod["main"]


def _extra_loop():
    """A matmul inside one more loop ``t`` that no block iterator is bound to: more loops than iterators."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16, 24), "float32"), B: T.Buffer((24, 32), "float32"), C: T.Buffer((2, 16, 32), "float32")):
        for _t, i, j, k in T.grid(2, 16, 32, 24):  # _t: bound to no iterator
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[0, vi, vj] = T.float32(0)
                C[0, vi, vj] = C[0, vi, vj] + A[vi, vk] * B[vk, vj]
    return f


def _two_iterators_one_loop():
    """Both spatial iterators bound to the loop ``i`` (``C[i, i]``), the loop ``j`` to none."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16, 24), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, _j, k in T.grid(16, 16, 24):  # _j: bound to no iterator
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, i)
                vk = T.axis.reduce(24, k)
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk]
    return f


def _imperfect_nest():
    """Two reduction blocks under the same innermost loop ``k``: the loop's body is both blocks, not one."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16, 24), "float32"), B: T.Buffer((24, 32), "float32"), C: T.Buffer((16, 32), "float32"),
          D: T.Buffer((16, 32), "float32")):
        for i, j, k in T.grid(16, 32, 24):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
            with T.sblock("D"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    D[vi, vj] = T.float32(0)
                D[vi, vj] = D[vi, vj] + A[vi, vk]
    return f


def _shared_outer_loops():
    """Loops ``i, j`` around two blocks (``E``, then ``k`` around the matmul ``C``): ``E``'s innermost loop holds
    more than its block, and ``C``'s interchange is one ``tvm.s_tir.Schedule.reorder`` refuses (``j`` is not a
    single chain); the pass leaves a block the schedule refuses unchanged (the module docstring)."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16, 24), "float32"), B: T.Buffer((24, 32), "float32"), C: T.Buffer((16, 32), "float32"),
          E: T.Buffer((16, 32), "float32")):
        for i, j in T.grid(16, 32):
            with T.sblock("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = T.float32(1)
            for k in range(24):
                with T.sblock("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    return f


def _strided_last_axis():
    """``C[i, 2 * j]``: the inner spatial loop ``j`` is used in the last index but is not that index (after the
    interchange the inner loop would write with stride 2, not 1: precondition 3 fails)."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16, 24), "float32"), B: T.Buffer((24, 32), "float32"), C: T.Buffer((16, 64), "float32")):
        for i, j, k in T.grid(16, 32, 24):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj * 2] = T.float32(0)
                C[vi, vj * 2] = C[vi, vj * 2] + A[vi, vk] * B[vk, vj]
    return f


def _constant_last_index():
    """``C[i, j, 0]`` of a ``(16, 32, 1)`` buffer: the inner spatial loop ``j`` indexes C's second axis; the last
    index is the constant 0, not a loop (precondition 3 names the **last** dimension: not eligible)."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16, 24), "float32"), B: T.Buffer((24, 32), "float32"), C: T.Buffer((16, 32, 1), "float32")):
        for i, j, k in T.grid(16, 32, 24):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj, 0] = T.float32(0)
                C[vi, vj, 0] = C[vi, vj, 0] + A[vi, vk] * B[vk, vj]
    return f


def matvec(m=16, k=24):
    """``y[i] = sum over k of A[i, k] * x[k]``: one spatial loop ``i``, the output's only (so last) axis."""
    from tvm import te
    A = te.placeholder((m, k), name="A")
    x = te.placeholder((k,), name="x")
    rk = te.reduce_axis((0, k), name="k")
    return te.create_prim_func([A, x, te.compute((m,), lambda i: te.sum(A[i, rk] * x[rk], axis=rk), name="y")])


def _decomposed_matmul():
    """The matmul after ``decompose_reduction`` at its outermost loop: a spatial nest ``T_matmul_init`` (the zeros),
    then the perfect nest ``(ax0, ax1, k)`` of ``T_matmul_update``, a reduction block with no ``T.init``."""
    from tvm import s_tir
    sch = s_tir.Schedule(tvm.IRModule({"main": matmul(16, 24, 32)}))
    block = sch.get_sblock("T_matmul")
    sch.decompose_reduction(block, sch.get_loops(block)[0])
    return sch.mod["main"]


def _eligible_beside_transposed():
    """Two matmuls in one PrimFunc, ``C = A @ B`` (eligible) then ``D = C @ E`` with its loops reordered by hand to
    ``(ax1, ax0, k)`` around ``D[ax0, ax1]`` (ineligible: the inner spatial loop ``ax0`` is D's first axis)."""
    from tvm import s_tir, te, topi
    A = te.placeholder((16, 24), name="A")
    B = te.placeholder((24, 32), name="B")
    E = te.placeholder((32, 8), name="E")
    C = topi.matmul(A, B)
    D = topi.matmul(C, E)
    sch = s_tir.Schedule(tvm.IRModule({"main": te.create_prim_func([A, B, E, D])}))
    blocks = sch.get_child_blocks(sch.get_sblock("root"))
    assert len(blocks) == 2
    i, j, k = sch.get_loops(blocks[1])
    sch.reorder(j, i, k)
    return sch.mod["main"], sch.get(blocks[0]).name_hint, sch.get(blocks[1]).name_hint


def _scalar_epilogue():
    """The mean of a vector (TE): a reduction block ``S`` with no spatial loop, then a block ``D`` with no loop at
    all (``D[()] = S[()] / 24``, as a full reduction's epilogue is written)."""
    from tvm import te
    A = te.placeholder((24,), name="A")
    k = te.reduce_axis((0, 24), name="k")
    S = te.compute((), lambda: te.sum(A[k], axis=k), name="S")
    return te.create_prim_func([A, te.compute((), lambda: S() / 24.0, name="D")])


def _matmul_binding(axis: str, of_j):
    """C = A @ B (16x24 @ 24x32) whose second output iterator is ``T.axis.<axis>(32, of_j(j))``: the other two
    bound as a matmul's are (spatial ``vi = i``, reduction ``vk = k``)."""
    from tvm.script import tirx as T
    vj_axis = getattr(T.axis, axis)

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16, 24), "float32"), B: T.Buffer((24, 32), "float32"), C: T.Buffer((16, 32), "float32")):
        for i, j, k in T.grid(16, 32, 24):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                vj = vj_axis(32, of_j(j))
                vk = T.axis.reduce(24, k)
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    return f


def _reversed_binding():
    """``vj = 31 - j``: three loops for three iterators, but ``vj`` is bound to an expression of ``j``, not to the
    loop itself (precondition 2: each loop bound to exactly one iterator; not eligible)."""
    return _matmul_binding("spatial", lambda j: 31 - j)


def _opaque_last_axis():
    """Iterators spatial ``vi``, opaque ``vj``, reduction ``vk`` around ``C[vi, vj]``: an opaque iterator is not a
    spatial one, so the innermost *spatial* loop is ``i``, C's first axis (precondition 3 fails: not eligible)."""
    return _matmul_binding("opaque", lambda j: j)


def _same_named_axes():
    """A TE matmul whose reduction axis is named ``j`` like the output's second axis: loops ``j`` (spatial) and ``j``
    (reduction) are different variables with one name; eligible, the plan moves the *spatial* ``j`` innermost."""
    from tvm import te
    A = te.placeholder((8, 6), name="A")
    B = te.placeholder((6, 16), name="B")
    r = te.reduce_axis((0, 6), name="j")
    return te.create_prim_func([A, B, te.compute((8, 16), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")])


def _same_named_transposed():
    """A TE matmul whose two output axes are both named ``x`` (``varargs_names``), loops reordered by hand to
    ``(x', x, k)`` around ``C[x, x']``: the inner spatial loop ``x`` is C's first axis, although the last index has
    its name (precondition 3 compares variables, not names: not eligible)."""
    from tvm import s_tir, te
    A = te.placeholder((8, 6), name="A")
    B = te.placeholder((6, 16), name="B")
    r = te.reduce_axis((0, 6), name="k")
    C = te.compute((8, 16), lambda *ix: te.sum(A[ix[0], r] * B[r, ix[1]], axis=r), name="C", varargs_names=["x", "x"])
    sch = s_tir.Schedule(tvm.IRModule({"main": te.create_prim_func([A, B, C])}))
    i, j, k = sch.get_loops(sch.get_sblock("C"))
    sch.reorder(j, i, k)
    return sch.mod["main"]


def _ineligible(how: str):
    from tvm import te, topi
    if how == "elementwise":       # no reduction iterator
        A = te.placeholder((8, 8), name="A")
        return te.create_prim_func([A, te.compute((8, 8), lambda i, j: A[i, j] * 2, name="E")])
    if how == "scalar_sum":        # no spatial iterator
        A = te.placeholder((24,), name="A")
        k = te.reduce_axis((0, 24), name="k")
        return te.create_prim_func([A, te.compute((), lambda: te.sum(A[k], axis=k), name="S")])
    if how == "two_outputs":       # TOPI's argmax reduces into two buffers (index, value): no *one* written buffer
        A = te.placeholder((8, 16), name="A")
        return te.create_prim_func([A, topi.argmax(A, axis=0)])
    if how == "extra_loop":
        return _extra_loop()
    if how == "two_iterators_one_loop":
        return _two_iterators_one_loop()
    if how == "imperfect_nest":
        return _imperfect_nest()
    if how == "shared_outer_loops":
        return _shared_outer_loops()
    if how == "strided_last_axis":
        return _strided_last_axis()
    if how == "no_loops":
        return _scalar_epilogue()
    if how == "constant_last_index":
        return _constant_last_index()
    return _scheduled(how)


@pytest.mark.task("lab02.reorder", points=2)
def test_matmul_inner_spatial_loop_moves_inside_the_reduction():
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    f = matmul()
    st = ReorderStats()
    g = reorder_prim_func(f, "mm", st)
    assert st.reordered == ["mm/T_matmul_update: (ax0, ax1, k) -> (ax0, k, ax1)"], (
        f"expected the update block's inner spatial loop ax1 moved inside k; skipped (with your plan's "
        f"reasons): {st.skipped}")
    loops = block_loops(g)
    assert loops["T_matmul_update"] == ["ax0", "k", "ax1"], loops
    assert block_loops(f)["T_matmul"] == ["ax0", "ax1", "k"]  # the input PrimFunc is untouched


@pytest.mark.task("lab02.reorder", points=1)
def test_batch_matmul_keeps_the_outer_loops_in_order():
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    st = ReorderStats()
    g = reorder_prim_func(batch_matmul(), "bmm", st)
    assert st.reordered == ["bmm/T_batch_matmul_NN_update: (b, i, j, k) -> (b, i, k, j)"], (
        f"expected j (the output's last axis) moved inside k, b and i kept in order; skipped: {st.skipped}")
    assert block_loops(g)["T_batch_matmul_NN_update"] == ["b", "i", "k", "j"]


@pytest.mark.task("lab02.reorder", points=1)
def test_two_reduction_loops_keep_their_order_outside_the_moved_loop():
    """The inner spatial loop moves inside *all* reduction loops, which keep their order (swapping the last two
    loops is the same rewrite only when there is one reduction loop)."""
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    st = ReorderStats()
    g = reorder_prim_func(two_reductions(), "k2", st)
    assert st.reordered == ["k2/C_update: (i, j, rk, rl) -> (i, rk, rl, j)"], (
        f"expected j (the output's last axis) moved inside both reduction loops rk, rl, in their order; "
        f"reordered {st.reordered}, skipped: {st.skipped}")
    assert block_loops(g)["C_update"] == ["i", "rk", "rl", "j"]


@pytest.mark.task("lab02.reorder", points=1)
def test_a_hand_reordered_nest_moves_only_the_inner_spatial_loop():
    """Loops ``(rk, i, j, rl)`` around ``C[i, j]`` (reordered by hand, still eligible: one loop per iterator,
    a reduction loop innermost): ``j`` moves to the innermost position and every other loop keeps its place,
    ``(rk, i, rl, j)``; the plan is not "spatial loops, then reduction loops"."""
    from tvm import s_tir

    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    sch = s_tir.Schedule(tvm.IRModule({"main": two_reductions()}))
    i, j, rk, rl = sch.get_loops(sch.get_sblock("C"))
    sch.reorder(rk, i, j, rl)
    st = ReorderStats()
    g = reorder_prim_func(sch.mod["main"], "k2", st)
    got = block_loops(g)
    assert got.get("C_update") == ["rk", "i", "rl", "j"], (
        f"expected C_update's loops (rk, i, rl, j): j moved innermost and rk, i, rl kept in their order; loops per "
        f"block {got}, reordered {st.reordered}, skipped: {st.skipped}")


@pytest.mark.task("lab02.reorder", points=1)
def test_a_one_dimensional_output_is_eligible():
    """A matrix-vector product: loops ``(i, k)`` around ``y[i]``; ``i`` is the innermost spatial loop and indexes
    y's last (only) axis, ``k`` is innermost and a reduction loop, so preconditions 1-3 hold (nothing asks for a
    second spatial loop or three loops) and the plan is ``(k, i)``, worked by hand."""
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    st = ReorderStats()
    g = reorder_prim_func(matvec(), "mv", st)
    assert st.reordered == ["mv/y_update: (i, k) -> (k, i)"], (
        f"expected y's loops (i, k) to become (k, i): i is the inner spatial loop and y's last axis; skipped: "
        f"{st.skipped}")
    assert block_loops(g)["y_update"] == ["k", "i"]


@pytest.mark.task("lab02.reorder", points=1)
def test_a_reduction_block_without_init_is_eligible():
    """After ``decompose_reduction`` at the outermost loop the update block has no ``T.init`` but is still a
    reduction block (iterators S, S, R) in a perfect nest ``(ax0, ax1, k)`` writing ``T_matmul[ax0, ax1]``:
    precondition 1 counts a block with or without an init, so it is planned ``(ax0, k, ax1)`` (by hand); the init
    block (spatial only) is left alone. The built kernel still computes ``A @ B`` (NumPy)."""
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    st = ReorderStats()
    g = reorder_prim_func(_decomposed_matmul(), "d", st)
    assert st.reordered == ["d/T_matmul_update: (ax0, ax1, k) -> (ax0, k, ax1)"], (
        f"expected the init-less update block reordered (an init is no precondition); skipped: {st.skipped}")
    loops = block_loops(g)
    assert loops["T_matmul_update"] == ["ax0", "k", "ax1"] and loops["T_matmul_init"] == ["ax0_init", "ax1_init"], loops
    lib = tvm.tirx.build(tvm.IRModule({"main": g}), target="llvm")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((16, 24), dtype=np.float32), rng.standard_normal((24, 32), dtype=np.float32)
    args = [tvm.runtime.tensor(a), tvm.runtime.tensor(b), tvm.runtime.tensor(np.full((16, 32), 7, np.float32))]
    lib["main"](*args)
    np.testing.assert_allclose(args[2].numpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


@pytest.mark.task("lab02.reorder", points=1)
def test_an_ineligible_block_beside_an_eligible_one_keeps_its_loops():
    """One PrimFunc, two matmul blocks: the first is eligible and reordered ``(ax0, ax1, k) -> (ax0, k, ax1)``;
    the second's loops ``(ax1, ax0, k)`` put its inner spatial loop on D's first axis (precondition 3 fails), so
    it keeps that order and its init (no ``_update`` block of its name) although the PrimFunc does change —
    the plan of a skipped block leaves nothing behind in the schedule (hand-worked loop orders)."""
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    f, first, second = _eligible_beside_transposed()
    st = ReorderStats()
    g = reorder_prim_func(f, "two", st)
    assert st.reordered == [f"two/{first}_update: (ax0, ax1, k) -> (ax0, k, ax1)"], (
        f"expected only the first block reordered; reordered {st.reordered}, skipped: {st.skipped}")
    loops = block_loops(g)
    assert loops.get(second) == ["ax1", "ax0", "k"] and f"{second}_update" not in loops, (
        f"the ineligible block {second} must keep its loops (ax1, ax0, k) and its init; loops per block {loops}")


@pytest.mark.task("lab02.reorder", points=1)
def test_the_plan_only_reads_the_schedule():
    """``_block_plan`` plans, ``reorder_prim_func`` applies (the task's contract): after the plan of each block
    of the matmul, the transposed matmul and ``shared_outer_loops``, the schedule's PrimFunc is structurally equal
    to the one it was made from (``tvm_ffi.structural_equal``). A plan that is returned names the block's loops as
    ``sch.get_loops`` gives them, outermost first; the matmul's new order is ``(ax0, k, ax1)`` (worked by hand);
    the transposed block gets a reason (precondition 3); for the matmul ``C`` of ``shared_outer_loops`` a plan
    (the schedule then refuses it) and a reason are both allowed. Also read through the plan (the schedule would
    refuse or hide these): a binding ``31 - j``, an opaque iterator on C's last axis and a transposed nest whose two
    spatial axes share one name get a reason (preconditions 2 and 3), and a matmul whose reduction loop has its
    spatial loop's name is planned by loop identity, not name."""
    import tvm_ffi
    from tvm import s_tir

    from lab02_tvm.schedule.tir_pass import _block_plan
    extra = {"reversed_binding": _reversed_binding, "opaque_last_axis": _opaque_last_axis,
             "same_named_axes": _same_named_axes, "same_named_transposed": _same_named_transposed}
    for how in ["eligible", "transposed", "shared_outer_loops", *extra]:
        f = matmul(16, 24, 32) if how == "eligible" else extra[how]() if how in extra else _ineligible(how)
        sch = s_tir.Schedule(tvm.IRModule({"main": f}))
        plans = {}
        for block_rv in sch.get_child_blocks(sch.get_sblock("root")):
            name = sch.get(block_rv).name_hint
            plans[name] = plan = _block_plan(sch, block_rv)
            assert tvm_ffi.structural_equal(sch.mod["main"], f), (
                f"{how}: _block_plan changed the schedule while planning block {name}; reorder_prim_func applies a plan")
            if isinstance(plan, str):
                continue
            loops, new_order = plan
            expected = sch.get_loops(block_rv)
            assert len(loops) == len(expected) and all(sch.get(a).same_as(sch.get(b)) for a, b in zip(loops, expected)), (
                f"{how}: the plan's loops for {name} are not sch.get_loops(block), outermost first")
            if how == "same_named_axes":  # (i, j, j') -> (i, j', j): by identity, both loops are named j
                i, j, r = expected
                assert len(new_order) == 3 and all(sch.get(a).same_as(sch.get(b)) for a, b in zip(new_order, [i, r, j])), (
                    f"{how}: expected the spatial loop j moved inside the reduction loop of the same name")
            plans[name] = [sch.get(lv).loop_var.name for lv in new_order]
        if how == "eligible":
            assert plans == {"T_matmul": ["ax0", "k", "ax1"]}, plans
        elif how == "transposed":
            assert isinstance(plans["T_matmul"], str), f"the transposed block is not eligible: {plans}"
        elif how in ("reversed_binding", "opaque_last_axis", "same_named_transposed"):
            assert isinstance(plans["C"], str), f"the {how} block is not eligible: {plans}"
        elif how == "same_named_axes":
            assert not isinstance(plans["C"], str), f"the {how} block is eligible: {plans}"


@pytest.mark.task("lab02.reorder", points=1)
def test_second_run_changes_nothing():
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    g = reorder_prim_func(matmul(), "mm", ReorderStats())
    st = ReorderStats()
    assert reorder_prim_func(g, "mm", st).same_as(g) and not st.reordered, (
        f"a second run over its own output changed it: reordered {st.reordered} (its innermost loop is now spatial, "
        f"so precondition 3 no longer holds), loops per block {block_loops(g)}")


@pytest.mark.task("lab02.reorder", points=1)
@pytest.mark.parametrize("how", ["transposed", "fused", "split", "spatial_inner", "elementwise", "scalar_sum",
                                 "two_outputs", "extra_loop", "two_iterators_one_loop", "imperfect_nest",
                                 "shared_outer_loops", "strided_last_axis", "no_loops", "split_then_fuse",
                                 "constant_last_index"])
def test_ineligible_block_is_left_alone(how):
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    f = _ineligible(how)
    st = ReorderStats()
    assert reorder_prim_func(f, how, st).same_as(f) and not st.reordered, (
        f"the {how} block breaks a precondition of the reorder (TASKS.md, task 2.1) and must be left alone; "
        f"the pass reordered {st.reordered}")
    assert st.blocks_seen >= 1 and sum(st.skipped.values()) >= 1, f"expected a skip reason recorded: {st.skipped}"
    assert all(type(r) is str and r.strip() for r in st.skipped), f"a skip reason that says nothing: {st.skipped}"


@pytest.mark.task("lab02.reorder", points=1)
@pytest.mark.parametrize("make, shapes", [(matmul, [(64, 96), (96, 128), (64, 128)]),
                                          (batch_matmul, [(2, 8, 12), (2, 12, 16), (2, 8, 16)])],
                         ids=["matmul", "batch_matmul"])
def test_built_through_the_registered_pipeline_matches_numpy(make, shapes):
    from lab02_tvm.schedule import tir_pass
    stats = tir_pass.ReorderStats()
    name = tir_pass.register(stats)
    f = make()
    lib = tvm.tirx.build(tvm.IRModule({"main": f}), target="llvm", pipeline=name)
    assert stats.reordered, "the pass did not reorder inside the registered pipeline"
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s, dtype=np.float32) for s in shapes[:2])
    args = [tvm.runtime.tensor(a), tvm.runtime.tensor(b), tvm.runtime.tensor(np.zeros(shapes[2], np.float32))]
    lib["main"](*args)
    np.testing.assert_allclose(args[2].numpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
