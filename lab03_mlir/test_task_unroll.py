"""Graded tests of Task 3.2 (``lab03.unroll``): the Python ``AffineLoopUnroll`` pass.

Through the pass's public contract only (``unroll.unroll``, ``AffineLoopUnroll``, ``UnrollStats``; the
module docstring of ``lab03_mlir/unroll.py``): after a run every innermost constant-bound loop has the
trip count and step the rewrite defines (read with the walker of ``lab03_mlir/testing.py``), loops left with one
iteration are gone, and the kernel, lowered and JIT-compiled, computes what the loop computes in the
loop's own order (float32 sums compared bitwise with a sequential NumPy loop).

Run: ``.venv/bin/python -m pytest --task lab03.unroll``.
"""
from __future__ import annotations

import numpy as np
import pytest

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


@pytest.mark.task("lab03.unroll", points=2)
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


@pytest.mark.task("lab03.unroll", points=2)
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


@pytest.mark.task("lab03.unroll", points=2)
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
    summed in the loop's order; compared bitwise with a sequential NumPy loop."""
    mod = module(GUARDED)
    unroll.unroll(mod, 4)
    assert mod.operation.verify()
    assert loops(mod) == [(0, 4, 3, 0), (12, 1, 2, 0)], loops_message("unrolling GUARDED (i < 14) by 4")
    x = (np.arange(16, dtype=np.float32) * 0.37 - 5) / 7
    want_y, acc = np.zeros(16, np.float32), np.float32(0)
    for i in range(14):
        want_y[i] = x[i] if i >= 5 else np.float32(-1)
        acc = np.float32(acc + x[i]) if i >= 5 else acc
    y, s = run_kernel(GUARDED, 4, x, "guarded")
    np.testing.assert_array_equal(y[:14], want_y[:14])
    np.testing.assert_array_equal(s, [acc])


@pytest.mark.task("lab03.unroll", points=1)
def test_a_loop_of_zero_iterations_is_left_alone():
    """``for i = 5 to 5``: T = 0 is a compile-time constant (not a diagnostic) and not one iteration (no promotion,
    whose body would then run once), by factor 1 and by 4; the sequential NumPy loop runs no iteration."""
    for factor in (1, 4):
        mod = module(kernel(5, 5, 1))
        unroll.unroll(mod, factor)
        assert loops(mod) == [(5, 1, 0, 0)], loops_message(f"unrolling `for i = 5 to 5` by {factor}")
        check_numbers(5, 5, 1, factor)
