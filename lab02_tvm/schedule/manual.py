"""Step 5 — the three-point lesson: naive vs hand-scheduled vs MetaSchedule-tuned, on one kernel.

The kernel is the model's hottest: the MetaSchedule task with the largest weighted FLOPs
(FLOPs per call x calls per inference; for ResNet-50 a 3x3 ``conv2d`` at 14x14, for BERT a
``matmul`` of the feed-forward block). Its TIR (a fused PrimFunc) is scheduled by hand with
``tvm.s_tir.Schedule``, one primitive at a time, the way the MLC course and the TVM tutorials do
(``mlc.ai`` chapter "Tensor Program Abstraction"; TVM "Blitz course to TensorIR"):

1. ``split`` the output's innermost spatial loop into vector-width pieces and a second spatial
   loop (output channels / rows) into a small register block;
2. ``reorder`` so the reduction loops sit between the outer (parallel) loops and the register
   tile;
3. ``cache_write`` the accumulator into a ``local`` buffer written back once per tile
   (``reverse_compute_at``), so partial sums stay in registers; elementwise epilogues (bias,
   ReLU) are folded into that write-back (``reverse_compute_inline``);
4. ``vectorize`` the innermost loop, ``unroll`` the register block;
5. ``parallel`` the fused outer loops;
6. ``decompose_reduction`` to hoist the zero-initialisation out of the reduction.

:func:`tile_and_reorder` does steps 1-2 (Task 2.4, ``lab02.manual``); :func:`manual_schedule` picks the
loops and factors, calls it, and does steps 3-6. :func:`loop_nest` prints the loop structure after each
primitive (``-v``). All three versions
are built for the same target, checked against the naive one (same inputs, ``rtol = 1e-4``,
``atol = 1e-4 * max|naive|``) and timed interleaved at 1 thread in one process.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np
import tvm
from tvm import s_tir

from common.budget import pick
from common.errors import UserError
from common.gates import compare
from common.timing import interleaved, tvm_threads

from ..tuning.apply import query_tuned_primfunc
from ..tuning.database import open_database, task_records
from ..tuning.tasks import TaskInfo, as_target, extract_tasks
from ..tuning.tune import tune_tasks_plan
from .tir_pass import loop_nest

__all__ = ["ManualSchedule", "manual_schedule", "tile_and_reorder", "loop_nest", "kernel_args", "build_kernel", "run_kernel",
           "run_three_point", "vector_lanes"]

#: Tolerances of the numeric check of manual/tuned against naive (fp32, reordered sums).
RTOL = 1e-4
ATOL_SCALED = 1e-4


# --------------------------------------------------------------------------------------------
# Reading TIR: the blocks of a PrimFunc (the loop-nest view is tir_pass.loop_nest)
# --------------------------------------------------------------------------------------------
def _collect_blocks(stmt: Any, out: list) -> None:
    if isinstance(stmt, s_tir.SBlockRealize):
        _collect_blocks(stmt.block, out)
    elif isinstance(stmt, s_tir.SBlock):
        out.append(stmt)
        _collect_blocks(stmt.body, out)
    elif isinstance(stmt, tvm.tirx.SeqStmt):
        for s in stmt.seq:
            _collect_blocks(s, out)
    elif hasattr(stmt, "body") and isinstance(stmt.body, tvm.tirx.Stmt):
        _collect_blocks(stmt.body, out)


def _blocks(func: Any) -> list:
    out: list = []
    _collect_blocks(func.body, out)
    return out


# --------------------------------------------------------------------------------------------
# The hand-written schedule
# --------------------------------------------------------------------------------------------
@dataclass
class ManualSchedule:
    """Result of :func:`manual_schedule`.

    Attributes:
        sch: the schedule (``sch.mod`` is the scheduled IRModule).
        steps: ``(primitive applied, loop nest after it)``, starting with ``("naive", ...)``.
        anchor: name of the reduction block that was scheduled.
        params: the choices made (vector lanes, register block, loops picked).
    """

    sch: s_tir.Schedule
    steps: list[tuple[str, str]] = field(default_factory=list)
    anchor: str = ""
    params: dict = field(default_factory=dict)


def _largest_divisor(n: int, limit: int) -> int:
    """Largest divisor of ``n`` that is <= ``limit`` (1 when ``n`` < 2)."""
    for d in range(min(n, limit), 0, -1):
        if n % d == 0:
            return d
    return 1


def vector_lanes(target: Any, dtype_bits: int = 32) -> int:
    """SIMD lanes for ``dtype_bits`` on ``target`` (LLVM's vector width / element size; >= 4)."""
    from tvm.target import codegen

    try:
        bits = int(codegen.llvm_get_vector_width(as_target(target)))
    except Exception:  # noqa: BLE001 - non-LLVM targets
        bits = 128
    return max(4, bits // dtype_bits)


def _anchor_block(func: Any) -> Any:
    """The block with reduction iterators and the most iterators (the conv/matmul itself)."""
    reds = [b for b in _blocks(func)
            if any(int(iv.iter_type) == 2 for iv in b.iter_vars)]  # 2 = CommReduce
    if not reds:
        raise UserError("manual_schedule needs a kernel with a reduction (conv2d, matmul, dense)")
    return max(reds, key=lambda b: len(b.iter_vars))


def _inline_epilogues(sch: s_tir.Schedule, producer: Any) -> list[str]:
    """``reverse_compute_inline`` each elementwise consumer chain of ``producer`` into it.

    Stops at the first consumer that cannot be inlined (not injective, several consumers, a
    reduction): that one keeps its own loop nest. Returns the inlined block names.
    """
    names = []
    while True:
        consumers = sch.get_consumers(producer)
        if len(consumers) != 1:
            return names
        name = sch.get(consumers[0]).name_hint
        try:
            sch.reverse_compute_inline(consumers[0])
        except (s_tir.ScheduleError, RuntimeError):
            return names
        names.append(name)


def tile_and_reorder(sch: s_tir.Schedule, spatial: list, reduction: list, *, vec: int,
                     block_loop: int | None, reg_block: int,
                     step: Callable[[str], None] | None = None) -> tuple[list, list]:
    """Steps 1-2 of the module docstring: tile the output into a register tile and move the reduction
    loops between the outer loops and that tile.

    Args:
        sch: the schedule; ``spatial`` / ``reduction``: the anchor block's loops (``sch.get_loops``), one
            per iterator, spatial ones and reduction ones each outermost first.
        vec: the vector width: split the innermost spatial loop ``spatial[-1]`` (extent ``E``) into
            ``[E // vec, vec]`` (``vec`` divides ``E``; ``vec == E`` still splits, into ``[1, E]``).
        block_loop: index into ``spatial`` of the register-block loop (never the last one), or ``None``;
            when not ``None`` and ``reg_block > 1``, split that loop (extent ``B``) into
            ``[B // reg_block, reg_block]`` (``reg_block`` divides ``B``; ``reg_block == B`` still splits, into
            ``[1, B]``).
        step: when given, call ``step(name)`` after each primitive, ``name`` starting with the primitive
            (``split(...)``, ``reorder(...)``), once per primitive applied (no report for a split that is not
            made): it records the loop nest (and the tests' checks run there).

    Returns:
        ``(outer, inner)``: ``outer`` the loops above the reduction after the reorder, outermost first:
        the spatial loops with the register-block loop replaced by its outer half, then the vector loop's
        outer half last (``outer[-1]``: where the cache write goes, and all of ``outer`` is fused and run in
        parallel); ``inner`` the register tile below the reduction: ``[block inner, vector inner]``, or
        ``[vector inner]`` without a register block. The block's loop order is then
        ``*outer, *reduction, *inner``.
    """
    note = step or (lambda name: None)
    ### BEGIN SOLUTION lab02.manual
    name, extent = sch.get(spatial[-1]).loop_var, int(sch.get(spatial[-1]).extent)
    v_o, v_i = sch.split(spatial[-1], factors=[None, vec])
    note(f"split({name}, [{extent // vec}, {vec}])")
    outer = list(spatial[:-1])
    inner = [v_i]
    if block_loop is not None and reg_block > 1:
        name, extent = sch.get(spatial[block_loop]).loop_var, int(sch.get(spatial[block_loop]).extent)
        b_o, b_i = sch.split(spatial[block_loop], factors=[None, reg_block])
        outer[block_loop] = b_o
        inner = [b_i, v_i]
        note(f"split({name}, [{extent // reg_block}, {reg_block}])")
    sch.reorder(*outer, v_o, *reduction, *inner)
    note("reorder(outer spatial, reduction, register tile)")
    return [*outer, v_o], inner
    ### END SOLUTION


def manual_schedule(prim_mod: tvm.IRModule, target: Any, *, reg_block: int = 8,
                    verbose: bool = False,
                    check: Callable[[str, tvm.IRModule], None] | None = None) -> ManualSchedule:
    """Schedule a conv2d/matmul-like PrimFunc by hand: tile, reorder, cache write, vectorize, parallel.

    Preconditions: ``prim_mod["main"]`` has one reduction block whose spatial iterators map
    one-to-one onto loops (what ``LegalizeOps`` produces for ``conv2d``/``matmul``/``dense``).
    The innermost spatial loop becomes the vector loop (split by the largest divisor of its
    extent <= the SIMD lanes), the largest other spatial loop is split by ``reg_block`` into a
    register block; the rest of the spatial loops are fused and run in parallel.

    Args:
        prim_mod: IRModule with the kernel as ``main`` (e.g. ``TaskInfo.task.dispatched[0]``).
        target: the target (its vector width sets the lanes).
        reg_block: rows/channels per register tile (the largest divisor <= this is used).
        verbose: print the loop nest after every primitive.
        check: called as ``check(step_name, sch.mod)`` after every primitive (tests build and
            compare there, MLC-course style).
    Returns:
        :class:`ManualSchedule` with the schedule and the loop nest after each step.
    Raises:
        UserError: no reduction block.
    """
    sch = s_tir.Schedule(prim_mod)
    result = ManualSchedule(sch=sch)

    def step(name: str) -> None:
        text = loop_nest(sch.mod)
        result.steps.append((name, text))
        if verbose:
            print(f"--- after {name} ---\n{text}")
        if check is not None:
            check(name, sch.mod)

    step("naive")
    anchor = _anchor_block(sch.mod["main"])
    result.anchor = anchor.name_hint
    block = sch.get_sblock(anchor.name_hint)
    loops = sch.get_loops(block)
    kinds = [int(iv.iter_type) for iv in anchor.iter_vars]
    if len(loops) != len(kinds):
        raise UserError(f"block {anchor.name_hint} has {len(loops)} loops for {len(kinds)} "
                        "iterators; manual_schedule expects one loop per iterator")
    spatial = [lp for lp, k in zip(loops, kinds) if k == 0]
    reduce_ = [lp for lp, k in zip(loops, kinds) if k == 2]
    extents = [int(sch.get(lp).extent) for lp in spatial]

    lanes = vector_lanes(target)
    vec = _largest_divisor(extents[-1], lanes)
    cand = [i for i in range(len(spatial) - 1) if extents[i] > 1]
    blk_i = max(cand, key=lambda i: extents[i]) if cand else None
    rb = _largest_divisor(extents[blk_i], reg_block) if blk_i is not None else 1
    result.params = {"lanes": lanes, "vector": vec, "reg_block": rb,
                     "vector_loop": str(sch.get(spatial[-1]).loop_var),
                     "block_loop": None if blk_i is None else str(sch.get(spatial[blk_i]).loop_var)}

    # 1-2. tile (vector loop, register block) and reorder: outer spatial | reduction | register tile
    outer, inner = tile_and_reorder(sch, spatial, reduce_, vec=vec, block_loop=blk_i, reg_block=rb, step=step)
    v_o, v_i = outer[-1], inner[-1]
    outer = outer[:-1]
    # 3. cache write: accumulate in a local tile, write back once per tile
    wb = sch.cache_write(block, 0, "local")
    sch.reverse_compute_at(wb, v_o, preserve_unit_loops=True)
    step("cache_write(local) + reverse_compute_at")
    # 3b. fuse elementwise epilogues (bias add, ReLU, GELU, ...) into the write-back
    inlined = _inline_epilogues(sch, wb)
    if inlined:
        step(f"reverse_compute_inline({', '.join(inlined)})")
    # 4. vectorize the tile's innermost loop (main block and write-back), unroll the block
    #    (all loop primitives come before decompose_reduction: they need a complete or
    #    reduction block below the loop, and the update block alone is neither)
    sch.vectorize(v_i)
    sch.vectorize(sch.get_loops(wb)[-1])
    step(f"vectorize(innermost, {vec} lanes)")
    if len(inner) == 2:
        sch.unroll(inner[0])
        step(f"unroll(register block {rb})")
    # 5. run the outer loops in parallel
    fused = sch.fuse(*outer, v_o) if outer else v_o
    sch.parallel(fused)
    step("fuse + parallel(outer loops)")
    # 6. hoist the zero-init out of the reduction (last: loop primitives need the block whole;
    #    the init loops keep their vectorize/unroll kinds)
    sch.decompose_reduction(block, reduce_[0])
    step("decompose_reduction")
    return result


# --------------------------------------------------------------------------------------------
# Building and timing one kernel
# --------------------------------------------------------------------------------------------
def kernel_args(prim_mod: tvm.IRModule, seed: int = 0) -> tuple[list[np.ndarray], list[int]]:
    """Random inputs (N(0,1) for a float parameter, integers in [0, 4) otherwise, each in its parameter's
    dtype) and zeroed outputs for a PrimFunc's parameters.

    Returns:
        ``(arrays in parameter order, indices of the output parameters)``; outputs are the
        parameter buffers some block writes.

    Raises:
        UserError: no parameter is written by a block (no output to check).
    """
    func = prim_mod["main"]
    written = {str(w.source) for b in _blocks(func) for w in b.writes}  # region source = buffer
    rng = np.random.default_rng(seed)
    arrays, outputs = [], []
    for i, p in enumerate(func.params):  # TVM 0.27: buffer parameters carry shape and dtype
        shape, dtype = [int(d) for d in p.shape], str(p.dtype)
        if str(p) in written:
            outputs.append(i)
            arrays.append(np.zeros(shape, dtype=dtype))
        elif "float" in dtype:
            arrays.append(rng.standard_normal(shape).astype(dtype))
        else:
            arrays.append(rng.integers(0, 4, size=shape).astype(dtype))
    if not outputs:
        raise UserError("kernel_args found no output buffer (no parameter is written by a block)")
    return arrays, outputs


def build_kernel(prim_mod: tvm.IRModule, target: Any) -> Any:
    """``tvm.compile`` a single-PrimFunc IRModule for ``target``; returns the runtime module."""
    return tvm.compile(prim_mod, target=as_target(target))


def run_kernel(lib: Any, arrays: list[np.ndarray], outputs: list[int]) -> tuple[Callable[[], None], Callable[[], list[np.ndarray]]]:
    """``(call, read)``: ``call()`` runs the kernel on device copies of ``arrays``; ``read()``
    returns the output arrays as NumPy."""
    dev = tvm.cpu()
    args = [tvm.runtime.tensor(a, dev) for a in arrays]
    f = lib["main"]

    def call() -> None:
        f(*args)

    def read() -> list[np.ndarray]:
        return [args[i].numpy() for i in outputs]

    return call, read


def _tuned_kernel(info: TaskInfo, target: Any, work_dir: str | None, trials: int,
                  progress: bool) -> tuple[tvm.IRModule | None, int, int]:
    """The tuned kernel from ``work_dir``'s database, tuning it alone for ``trials`` if absent.

    Returns:
        ``(scheduled kernel or None, records of the kernel in the database, trials spent now)``.
    """
    wd = work_dir or tempfile.mkdtemp(prefix="lab02_kernel_")
    db = open_database(wd)
    found = query_tuned_primfunc(db, info.task.dispatched[0], target)
    spent = 0
    if found is None and trials > 0:
        stats = tune_tasks_plan([info], {info.name: trials}, target, wd,
                                       progress=progress, desc=f"tune {info.name}")
        spent = stats["trials"]
        db = open_database(wd)
        found = query_tuned_primfunc(db, info.task.dispatched[0], target)
    return found, len(task_records(db, info.task)), spent


def run_three_point(mod: tvm.IRModule, target: Any, *, tuned_work_dir: str | os.PathLike | None = None,
                    verbose: bool = False, tune_trials: int | None = None, repeats: int | None = None,
                    threads: int = 1, progress: bool = True) -> list[dict]:
    """Naive vs manual vs tuned for the model's hottest kernel, timed in one interleaved run.

    Args:
        mod: unfused Relax IRModule with parameters bound.
        target: compilation target (Target, dict or string).
        tuned_work_dir: MetaSchedule work dir whose database may already hold the kernel (the
            model's ``results/lab02/tuning/<model>``); when it lacks the kernel, the kernel is tuned
            alone for ``tune_trials`` trials into it (into a temporary dir when ``None``).
        verbose: print the loop nest after every schedule primitive.
        tune_trials: trials for that single-kernel tuning (default 32, 8 with ``CI=true``;
            0 skips the tuned point).
        repeats: timed rounds (default 10, 3 with ``CI=true``).
        threads: TVM runtime threads while timing (1 by default; see common/timing).
        progress: tqdm bars for tuning and timing.
    Returns:
        Rows ``{kernel, schedule (naive|manual|tuned), median_ms, p90_ms, gflops,
        speedup_vs_naive, max_abs_err, atol, rtol, status, weight, share_pct, trials (the
        kernel's measured candidates in the database), tuned_now (of those, spent by this call),
        threads}``.
    Raises:
        UserError: no reduction kernel in the model.
        common.gates.GateError: manual or tuned output differs from naive beyond the tolerance.
    """
    target = as_target(target)
    info = extract_tasks(mod, target)[0]
    prim = info.task.dispatched[0]
    if verbose:
        print(f"hottest kernel: {info.name} ({info.weight} calls x {info.flops / 1e6:.1f} MFLOP, "
              f"{100 * info.share:.1f}% of the model's FLOPs)")
    manual = manual_schedule(prim, target, verbose=verbose)
    tune_trials = pick(32, 8) if tune_trials is None else tune_trials
    tuned_mod, records, spent = (None, 0, 0)
    if tune_trials > 0 or tuned_work_dir is not None:
        tuned_mod, records, spent = _tuned_kernel(info, target, None if tuned_work_dir is None
                                         else str(tuned_work_dir), tune_trials, progress)
    candidates = {"naive": prim, "manual": manual.sch.mod}
    if tuned_mod is not None:
        candidates["tuned"] = tuned_mod

    arrays, outputs = kernel_args(prim)
    runners, results = {}, {}
    with tvm_threads(threads):
        for label, m in candidates.items():
            call, read = run_kernel(build_kernel(m, target), [a.copy() for a in arrays], outputs)
            call()
            runners[label] = call
            results[label] = read()
        stats = interleaved(runners, warmup=1, repeats=repeats or pick(10, 3), progress=progress)
    ref = {f"out{i}": r for i, r in enumerate(results["naive"])}
    rows = []
    for label in candidates:
        rep = compare(ref, {f"out{i}": r for i, r in enumerate(results[label])}, atol=ATOL_SCALED,
                      rtol=RTOL, scale_atol_by_ref=True, stage=label)
        st = stats[label]
        rows.append({
            "kernel": info.name, "schedule": label, "median_ms": round(st.median_ms, 4),
            "p90_ms": round(st.p90_ms, 4),
            "gflops": round(info.flops / (st.median_ms * 1e-3) / 1e9, 2),
            "speedup_vs_naive": round(stats["naive"].median_ms / st.median_ms, 2),
            "max_abs_err": float(max(r["max_abs"] for r in rep.rows)) if rep.rows else 0.0,
            "atol": f"{ATOL_SCALED}*max|ref|", "rtol": RTOL,
            "status": "ok" if rep.passed else f"FAIL: {rep.first_failure}",
            "weight": info.weight, "share_pct": round(100 * info.share, 2),
            "trials": records if label == "tuned" else 0,
            "tuned_now": spent if label == "tuned" else 0, "threads": threads,
        })
        rep.raise_if_failed()
    return rows
