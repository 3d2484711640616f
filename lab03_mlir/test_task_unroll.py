"""Graded tests of Task 3.2 (``lab03.unroll``): the Python ``AffineLoopUnroll`` pass.

Through the pass's public contract only (``unroll.unroll``, ``AffineLoopUnroll``, ``UnrollStats``; the
module docstring of ``lab03_mlir/unroll.py``): after a run every innermost constant-bound loop has the
trip count and step the rewrite defines (read with the walker of ``lab03_mlir/testing.py``), loops left with one
iteration are gone, and the kernel, lowered and JIT-compiled, computes what the loop computes in the
loop's own order (float32 sums compared bitwise with a sequential NumPy loop). Where upstream's
``affine-loop-unroll`` (run through the PassManager) does the same rewrite, the loops it leaves are the
reference too; the diagnostic's text and ``UnrollStats.errors`` are checked against the contract's string.

Run: ``.venv/bin/python -m pytest --task lab03.unroll``.
"""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from mlir.passmanager import PassManager

from common.errors import UserError
from lab03_mlir import unroll
from lab03_mlir.testing import DYNAMIC, check_numbers, kernel, loops, loops_message, module, run_kernel

pytestmark = pytest.mark.lab03

FIB = """
func.func @fib(%out: memref<1xf32>) {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1.0 : f32
  %r:2 = affine.for %i = 0 to 10 iter_args(%a = %c0, %b = %c1) -> (f32, f32) {
    %s = arith.addf %a, %b : f32
    affine.yield %b, %s : f32, f32
  }
  affine.store %r#0, %out[0] : memref<1xf32>
  return
}
"""
OUTER = """
func.func @outer(%out: memref<2xf32>) {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1.0 : f32
  %r:2 = affine.for %i = 0 to 8 iter_args(%a = %c0, %b = %c0) -> (f32, f32) {
    %s = arith.addf %a, %c1 : f32
    affine.yield %s, %c1 : f32, f32
  }
  affine.store %r#0, %out[0] : memref<2xf32>
  affine.store %r#1, %out[1] : memref<2xf32>
  return
}
"""
NEST = """
func.func @nest(%m: memref<4x8xf32>) {
  %z = arith.constant 1.0 : f32
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 8 { affine.store %z, %m[%i, %j] : memref<4x8xf32> }
  }
  return
}
"""
THREE = """
func.func @three(%a: memref<16xf32>, %b: memref<10xf32>, %c: memref<3xf32>) {
  %z = arith.constant 1.0 : f32
  affine.for %i = 0 to 16 { affine.store %z, %a[%i] : memref<16xf32> }
  affine.for %i = 0 to 10 { affine.store %z, %b[%i] : memref<10xf32> }
  affine.for %i = 0 to 3 { affine.store %z, %c[%i] : memref<3xf32> }
  return
}
"""


@pytest.mark.task("lab03.unroll", points=1)
@pytest.mark.parametrize("lb, ub, step, factor", [(0, 16, 1, 4), (0, 12, 1, 3), (2, 18, 2, 2)])
def test_divisible_trip_count_unrolls_by_the_factor(lb, ub, step, factor):
    mod = module(kernel(lb, ub, step))
    unroll.unroll(mod, factor)
    trip = -(-(ub - lb) // step)
    assert loops(mod) == [(lb, step * factor, trip // factor, 0)], \
        loops_message(f"unrolling `for i = {lb} to {ub} step {step}` (trip count {trip}) by {factor}")
    assert mod.operation.verify()
    check_numbers(lb, ub, step, factor)


@pytest.mark.task("lab03.unroll", points=2)
@pytest.mark.parametrize("lb, ub, step, factor, want", [
    (0, 10, 1, 4, [(0, 4, 2, 0), (8, 1, 2, 0)]),   # remainder loop runs i = 8, 9
    (3, 20, 2, 4, [(3, 8, 2, 0)]),                 # T = 9: the one-iteration remainder is promoted
    (1, 30, 3, 3, [(1, 9, 3, 0)]),                 # T = 10: likewise
])
def test_remainder_runs_the_last_iterations(lb, ub, step, factor, want):
    mod = module(kernel(lb, ub, step))
    unroll.unroll(mod, factor)
    assert loops(mod) == want, \
        loops_message(f"unrolling `for i = {lb} to {ub} step {step}` by {factor} (main loop, then remainder)")
    check_numbers(lb, ub, step, factor)


@pytest.mark.task("lab03.unroll", points=1)
def test_single_iteration_loops_are_promoted():
    mod = module(kernel(0, 5, 1))  # T = 5, factor 4: one main iteration + one remainder iteration
    unroll.unroll(mod, 4)
    assert loops(mod) == [], loops_message("unrolling `for i = 0 to 5` by 4: both loops have one "
                                           "iteration and must be promoted (none left)")
    assert mod.operation.verify()
    check_numbers(0, 5, 1, 4)


@pytest.mark.task("lab03.unroll", points=1)
@pytest.mark.parametrize("lb, ub, factor", [(3, 4, 1), (0, 4, 4)], ids=["factor-1-trip-1", "trip-equals-factor"])
def test_a_loop_of_one_iteration_after_unrolling_is_promoted(lb, ub, factor):
    """Factor 1 on a one-iteration loop still promotes it; a trip count equal to the factor is one unrolled
    iteration, promoted too (neither is a short loop left alone)."""
    mod = module(kernel(lb, ub, 1))
    unroll.unroll(mod, factor)
    assert loops(mod) == [], loops_message(f"unrolling `for i = {lb} to {ub}` by {factor}: one iteration, promoted")
    assert mod.operation.verify()
    check_numbers(lb, ub, 1, factor)


@pytest.mark.task("lab03.unroll", points=1)
def test_short_loop_is_left_alone():
    mod = module(kernel(0, 3, 1))
    before = str(mod)
    unroll.unroll(mod, 4)
    assert str(mod) == before


@pytest.mark.task("lab03.unroll", points=2)
def test_only_innermost_loops_unroll():
    mod = module(NEST)
    unroll.unroll(mod, 4)
    assert loops(mod) == [(0, 1, 4, 0), (0, 4, 2, 1)], \
        loops_message("unrolling NEST (i < 4 around j < 8) by 4: only the innermost j loop changes")
    (m,) = run_kernel(NEST, 4, None, "nest")
    np.testing.assert_array_equal(m, np.ones((4, 8), np.float32))


@pytest.mark.task("lab03.unroll", points=1)
@pytest.mark.parametrize("factor", [3, 4])
def test_iter_args_chain_through_the_copies(factor):
    # yield %b, %a + %b: copy j reads what copy j - 1 yielded, positions swapped
    (out,) = run_kernel(FIB, factor, None, "fib")
    np.testing.assert_array_equal(out, [55.0])  # fib(10)


@pytest.mark.task("lab03.unroll", points=1)
def test_a_yield_of_a_value_defined_outside_the_loop_is_kept():
    # the second iter_arg is yielded %c1, defined above the loop: no copy maps it, each copy yields it as it is
    (out,) = run_kernel(OUTER, 4, None, "outer")
    np.testing.assert_array_equal(out, [8.0, 1.0])


@pytest.mark.task("lab03.unroll", points=1)
def test_stats_count_what_the_pass_did():
    stats = unroll.unroll(module(THREE), 4)
    assert (stats.innermost_loops, stats.unrolled, stats.remainder_loops, stats.skipped_short, stats.promoted) == \
        (3, 2, 1, 1, 0), ("UnrollStats (innermost_loops, unrolled, remainder_loops, skipped_short, promoted) after "
                          "unrolling THREE (trip counts 16, 10, 3) by 4 (got == want)")


PROMOTING = """
func.func @promoting(%a: memref<16xf32>) {
  %z = arith.constant 1.0 : f32
  affine.for %i = 0 to 4 { affine.store %z, %a[%i] : memref<16xf32> }
  affine.for %i = 0 to 9 { affine.store %z, %a[%i] : memref<16xf32> }
  affine.for %i = 0 to 8 { }
  return
}
"""


@pytest.mark.task("lab03.unroll", points=1)
def test_stats_count_promotions_and_leave_an_empty_body_uncounted():
    """The counters of ``UnrollStats``'s docstring by 4: trip 4 is unrolled and its one iteration promoted; trip 9
    is unrolled, its remainder of one iteration split off and promoted; a body of only the yield is left alone,
    counted nowhere, also when its trip count is below the factor (``skipped_short``: "an empty body is not
    counted"; step 1 of the module docstring: both leave the loop alone)."""
    mod = module(PROMOTING)
    stats = unroll.unroll(mod, 4)
    assert (stats.innermost_loops, stats.unrolled, stats.remainder_loops, stats.skipped_short, stats.promoted) == \
        (3, 2, 1, 0, 2), ("UnrollStats (innermost_loops, unrolled, remainder_loops, skipped_short, promoted) after "
                          "unrolling trip counts 4, 9 and an empty body by 4 (got == want)")
    assert loops(mod) == [(0, 4, 2, 0), (0, 1, 8, 0)], loops_message("the two loops left: 9's main loop (0 to 8 by 4), the empty one")
    short = module(PROMOTING.replace("affine.for %i = 0 to 8 { }", "affine.for %i = 0 to 2 { }"))
    stats = unroll.unroll(short, 4)
    assert (stats.innermost_loops, stats.skipped_short) == (3, 0), (
        f"(innermost_loops, skipped_short) = {(stats.innermost_loops, stats.skipped_short)} after unrolling trip counts "
        "4, 9 and an empty body of 2 iterations by 4, want (3, 0): a body of only the yield is counted nowhere, "
        "whatever its trip count")
    assert loops(short) == [(0, 4, 2, 0), (0, 1, 2, 0)], loops_message("the two loops left: 9's main loop, the empty one")


@pytest.mark.task("lab03.unroll", points=1)
def test_factor_one_changes_no_loop_of_several_iterations():
    mod = module(kernel(0, 10, 1))
    unroll.unroll(mod, 1)
    assert loops(mod) == [(0, 1, 10, 0)], loops_message("unrolling `for i = 0 to 10` by 1 (factor 1 only promotes one-iteration loops)")
    check_numbers(0, 10, 1, 1)


@pytest.mark.task("lab03.unroll", points=1)
def test_stats_under_factor_one_count_only_promotions():
    """``UnrollStats``'s docstring: ``promoted`` counts "under ``F == 1`` a one-iteration loop"; ``unrolled`` only
    loops whose body was replicated (``F > 1``). THREE plus a one-iteration loop, by 1: one promotion, nothing
    unrolled, split or skipped."""
    text = THREE.replace("  return\n}", "  affine.for %i = 5 to 6 { affine.store %z, %c[0] : memref<3xf32> }\n  return\n}")
    mod = module(text)
    stats = unroll.unroll(mod, 1)
    assert (stats.innermost_loops, stats.unrolled, stats.remainder_loops, stats.skipped_short, stats.promoted) == \
        (4, 0, 0, 0, 1), ("UnrollStats (innermost_loops, unrolled, remainder_loops, skipped_short, promoted) after "
                          "unrolling THREE and a one-iteration loop by 1 (got == want)")
    assert loops(mod) == [(0, 1, 16, 0), (0, 1, 10, 0), (0, 1, 3, 0)], loops_message("factor 1: only the one-iteration loop goes")


@pytest.mark.task("lab03.unroll", points=1)
def test_non_constant_trip_count_fails_the_pass():
    mod = module(DYNAMIC)
    with pytest.raises(UserError) as err:
        unroll.unroll(mod, 4)
    assert mod.operation.verify()
    # the error diagnostic on the loop's location (loop.location.emit_error), which the pass manager reports
    assert "at loc(" in str(err.value) and ":4:3" in str(err.value), (
        f"want the diagnostic emitted on the loop's location (line 4, column 3 of DYNAMIC), got: {err.value}")


@pytest.mark.task("lab03.unroll", points=1)
def test_a_short_loop_is_counted_in_iterations_not_in_index_span():
    """``for i = 0 to 6 step 3`` has T = 2 iterations, below the factor 4 (though its index span 6 is not): left as
    it is, counted as short; the numbers against the sequential NumPy loop."""
    mod = module(kernel(0, 6, 3))
    before = str(mod)
    stats = unroll.unroll(mod, 4)
    assert (stats.unrolled, stats.remainder_loops, stats.promoted, stats.skipped_short) == (0, 0, 0, 1)
    assert str(mod) == before
    check_numbers(0, 6, 3, 4)


#: An innermost loop whose body holds a region (``affine.if``, no loop): the induction variable and the iter_arg
#: are used *inside* the region, so a copy must remap the operands of the ops nested in it too.
GUARDED = """
#from5 = affine_set<(d0) : (d0 - 5 >= 0)>
func.func @guarded(%x: memref<16xf32>, %y: memref<16xf32>, %s: memref<1xf32>) {
  %z = arith.constant 0.0 : f32
  %m1 = arith.constant -1.0 : f32
  %r = affine.for %i = 0 to 14 iter_args(%acc = %z) -> f32 {
    %t = affine.if #from5(%i) -> f32 {
      %v = affine.load %x[%i] : memref<16xf32>
      affine.store %v, %y[%i] : memref<16xf32>
      %a = arith.addf %acc, %v : f32
      affine.yield %a : f32
    } else {
      affine.store %m1, %y[%i] : memref<16xf32>
      affine.yield %acc : f32
    }
    affine.yield %t : f32
  }
  affine.store %r, %s[0] : memref<1xf32>
  return
}
"""


@pytest.mark.task("lab03.unroll", points=1)
def test_values_used_inside_a_nested_region_of_the_body_are_remapped():
    """Step 3: copy ``j`` sees the induction variable as ``i + j*s`` and the iter_args as copy ``j - 1``'s values
    wherever the body uses them, inside the regions of its ops (an ``affine.if``) too. For i = 0..13, by 4 (a main
    loop of 3 iterations, a remainder of 2): ``y[i] = x[i]`` for i >= 5, else -1, and ``s = x[5] + ... + x[13]``
    summed in the loop's order; compared bitwise with a sequential NumPy loop. Step 4 likewise: for i = 0..12 the
    remainder of one iteration (i = 12) is promoted, its induction variable (used only inside the ``affine.if``)
    replaced by the constant 12 there too."""
    x = (np.arange(16, dtype=np.float32) * 0.37 - 5) / 7
    for ub, want_loops in ((14, [(0, 4, 3, 0), (12, 1, 2, 0)]), (13, [(0, 4, 3, 0)])):
        text = GUARDED.replace("affine.for %i = 0 to 14", f"affine.for %i = 0 to {ub}")
        mod = module(text)
        unroll.unroll(mod, 4)
        assert mod.operation.verify()
        assert loops(mod) == want_loops, loops_message(f"unrolling GUARDED (i < {ub}) by 4")
        want_y, acc = np.zeros(16, np.float32), np.float32(0)
        for i in range(ub):
            want_y[i] = x[i] if i >= 5 else np.float32(-1)
            acc = np.float32(acc + x[i]) if i >= 5 else acc
        y, s = run_kernel(text, 4, x, "guarded")
        np.testing.assert_array_equal(y[:ub], want_y[:ub])
        np.testing.assert_array_equal(s, [acc])


@pytest.mark.task("lab03.unroll", points=1)
def test_a_loop_of_zero_iterations_is_left_alone():
    """``for i = 5 to 5``: T = 0 is a compile-time constant (not a diagnostic) and not one iteration (no promotion,
    whose body would then run once), by factor 1 and by 4; the sequential NumPy loop runs no iteration. By 4 it is
    short (``T < F``); by 1 nothing is unrolled, so nothing is short (the ``UnrollStats`` docstring)."""
    for factor in (1, 4):
        mod = module(kernel(5, 5, 1))
        stats = unroll.unroll(mod, factor)
        assert loops(mod) == [(5, 1, 0, 0)], loops_message(f"unrolling `for i = 5 to 5` by {factor}")
        got = (stats.unrolled, stats.remainder_loops, stats.promoted, stats.skipped_short)
        assert got == (0, 0, 0, int(factor > 1)), \
            f"(unrolled, remainder_loops, promoted, skipped_short) = {got} unrolling `for i = 5 to 5` by {factor}"
        check_numbers(5, 5, 1, factor)


def upstream_loops(text: str, factor: int) -> list[tuple[int, int, int, int]]:
    """:func:`loops` of ``text`` after upstream's ``affine-loop-unroll{unroll-factor=factor}`` (no cleanup after it)."""
    mod = module(text)
    PassManager.parse(f"builtin.module(func.func(affine-loop-unroll{{unroll-factor={factor}}}))",
                      context=mod.context).run(mod.operation)
    return loops(mod)


@pytest.mark.task("lab03.unroll", points=1)
def test_a_remainder_of_several_iterations_keeps_the_original_step():
    """Step 2 with a step above 1 and a remainder of more than one iteration: ``for i = 2 to 31 step 3`` (T = 10) by
    4 is a main loop from 2 of 2 iterations at step 12 and a remainder from ``2 + 8*3 = 26`` of ``T % F = 2``
    iterations at the original step 3 (what upstream's pass leaves too); the numbers against the sequential
    NumPy loop."""
    mod = module(kernel(2, 31, 3))
    unroll.unroll(mod, 4)
    want = upstream_loops(kernel(2, 31, 3), 4)
    assert want == [(2, 12, 2, 0), (26, 3, 2, 0)]
    assert loops(mod) == want, loops_message("unrolling `for i = 2 to 31 step 3` (T = 10) by 4")
    check_numbers(2, 31, 3, 4)


@pytest.mark.task("lab03.unroll", points=1)
def test_a_one_iteration_loop_below_the_factor_is_short_not_promoted():
    """Step 1: T = 1 < F = 4 is a short loop, left as it is and counted in ``skipped_short`` (step 4 promotes a loop
    *left* with one iteration by the rewrite, which a short loop never gets); upstream's pass leaves it too."""
    text = kernel(3, 4, 1)
    mod = module(text)
    before = str(mod)
    stats = unroll.unroll(mod, 4)
    assert upstream_loops(text, 4) == [(3, 1, 1, 0)]
    assert str(mod) == before, "unrolling `for i = 3 to 4` (T = 1) by 4 must leave the loop as it is"
    assert (stats.unrolled, stats.remainder_loops, stats.promoted, stats.skipped_short) == (0, 0, 0, 1), (
        f"(unrolled, remainder_loops, promoted, skipped_short) = "
        f"{(stats.unrolled, stats.remainder_loops, stats.promoted, stats.skipped_short)}, want (0, 0, 0, 1)")
    check_numbers(3, 4, 1, 4)


#: Two one-iteration loops whose body is only the ``affine.yield`` (one passes an iter_arg through).
EMPTY_ONE_ITERATION = """
func.func @empty(%out: memref<1xf32>) {
  %c = arith.constant 2.5 : f32
  %r = affine.for %i = 3 to 4 iter_args(%a = %c) -> f32 {
    affine.yield %a : f32
  }
  affine.for %i = 7 to 8 { }
  affine.store %r, %out[0] : memref<1xf32>
  return
}
"""


@pytest.mark.task("lab03.unroll", points=1)
def test_an_empty_one_iteration_loop_is_promoted_by_factor_one_only():
    """Step 1: ``F = 1`` promotes a loop of exactly one iteration, "an empty body too" (upstream's
    ``loopUnrollByFactor`` begins with that case); under ``F > 1`` a body of only the yield is left alone and counted
    nowhere (not promoted, not short). Both as upstream's pass leaves the loops; the stored value against 2.5."""
    for factor in (1, 4):
        mod = module(EMPTY_ONE_ITERATION)
        stats = unroll.unroll(mod, factor)
        assert mod.operation.verify()
        want = upstream_loops(EMPTY_ONE_ITERATION, factor)
        assert want == ([] if factor == 1 else [(3, 1, 1, 0), (7, 1, 1, 0)])
        assert loops(mod) == want, loops_message(f"unrolling two empty one-iteration loops by {factor}")
        got = (stats.unrolled, stats.remainder_loops, stats.promoted, stats.skipped_short)
        assert got == ((0, 0, 2, 0) if factor == 1 else (0, 0, 0, 0)), \
            f"(unrolled, remainder_loops, promoted, skipped_short) = {got} by {factor}"
        (out,) = run_kernel(EMPTY_ONE_ITERATION, factor, None, "empty")
        np.testing.assert_array_equal(out, [2.5])


#: A loop that yields its own induction variable (the last index it ran), used by nothing else, and counts its
#: iterations in a second iter_arg.
LAST_INDEX = """
func.func @last(%out: memref<2xf32>) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c100 = arith.constant 100 : index
  %r:2 = affine.for %i = 1 to 13 iter_args(%last = %c100, %n = %zero) -> (index, f32) {
    %n1 = arith.addf %n, %one : f32
    affine.yield %i, %n1 : index, f32
  }
  %ri = arith.index_cast %r#0 : index to i32
  %rf = arith.sitofp %ri : i32 to f32
  affine.store %rf, %out[0] : memref<2xf32>
  affine.store %r#1, %out[1] : memref<2xf32>
  return
}
"""


@pytest.mark.task("lab03.unroll", points=1)
def test_a_yielded_induction_variable_is_the_last_copys():
    """Step 3: "the yield returns the last copy's values", and copy ``j`` sees the induction variable as
    ``%i + j*s`` (the yield is a use of it too): a loop that yields ``%i`` returns the last index it ran, 12 for
    ``i = 1 .. 12`` (T = 12, no remainder by 3 or 4), not the first index of the last unrolled iteration; its
    second iter_arg counts 12 iterations. The reference is the sequential loop (Python), not upstream's IR (this
    MLIR's pass keeps copy 0's induction variable in the yield)."""
    last, n = 100, 0.0
    for i in range(1, 13):
        last, n = i, n + 1.0
    for factor in (3, 4):
        (out,) = run_kernel(LAST_INDEX, factor, None, "last")
        np.testing.assert_array_equal(out, np.array([last, n], np.float32),
                                      err_msg=f"(last index, iteration count), unrolled by {factor}")


#: Two loops with a dynamic trip count (``%n``): one with a body of only the yield, one that stores.
TWO_DYNAMIC = """
func.func @dyn2(%m: memref<?xf32>, %n: index) {
  %z = arith.constant 1.0 : f32
  affine.for %i = 0 to %n { }
  affine.for %i = 0 to %n { affine.store %z, %m[%i] : memref<?xf32> }
  return
}
"""


def _run_pass(text: str, factor: int):
    """Run ``AffineLoopUnroll(factor)`` through a PassManager: ``(the pass, the MLIRError or None)``."""
    mod = module(text)
    p = unroll.AffineLoopUnroll(factor)
    pm = PassManager("builtin.module", context=mod.context)
    p.add_to(pm)
    try:
        pm.run(mod.operation)
    except ir.MLIRError as exc:
        return p, exc
    return p, None


@pytest.mark.task("lab03.unroll", points=1)
def test_the_diagnostic_names_the_pass_and_is_recorded_per_loop():
    """The contract's diagnostic text, ``f"{PASS_NAME}: {NOT_CONSTANT_TRIP}"``, as the MLIR error of the loop at
    line 4 of DYNAMIC, and the same text in ``stats.errors``, once per loop without a constant trip count."""
    msg = f"{unroll.PASS_NAME}: {unroll.NOT_CONSTANT_TRIP}"
    p, exc = _run_pass(DYNAMIC, 4)
    assert exc is not None, "a loop `for i = 0 to %n` must fail the pass"
    diags = [(d.message, str(d.location)) for d in exc.error_diagnostics]
    assert len(diags) == 1 and diags[0][0] == msg and ":4:3" in diags[0][1], \
        f"want one error diagnostic {msg!r} on line 4, column 3, got {diags}"
    assert p.stats.errors == [msg], f"stats.errors = {p.stats.errors}, want [{msg!r}]"
    with pytest.raises(UserError) as err:
        unroll.unroll(module(DYNAMIC), 4)
    assert str(err.value).startswith(msg), f"unroll(): want the diagnostic {msg!r} first, got {err.value}"


@pytest.mark.task("lab03.unroll", points=1)
def test_a_dynamic_trip_count_is_a_diagnostic_whatever_the_factor_or_body():
    """The preconditions are checked first, on every innermost loop: a dynamic trip count is an error diagnostic
    under factor 1 too (which unrolls nothing) and for a body of only the yield too (which step 1 leaves alone);
    both loops of TWO_DYNAMIC (lines 4 and 5) get one, in ``stats.errors`` as well."""
    msg = f"{unroll.PASS_NAME}: {unroll.NOT_CONSTANT_TRIP}"
    for factor in (1, 4):
        p, exc = _run_pass(TWO_DYNAMIC, factor)
        assert exc is not None, f"two loops `for i = 0 to %n` must fail the pass (factor {factor})"
        lines = sorted(str(d.location) for d in exc.error_diagnostics if d.message == msg)
        assert len(lines) == 2 and ":4:3" in lines[0] and ":5:3" in lines[1], \
            f"want the diagnostic {msg!r} on lines 4 and 5 (factor {factor}), got {lines}"
        assert p.stats.errors == [msg, msg], f"stats.errors = {p.stats.errors} (factor {factor}), want two"
