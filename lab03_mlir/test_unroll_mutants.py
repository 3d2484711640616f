"""Tests that kill the mutants of ``lab03_mlir/unroll.py`` the older tests let survive (``python -m common.mutation``).

Each test pins one documented behaviour of the Python ``AffineLoopUnroll`` pass: which bounds are
compile-time constants (a ``min`` map or an SSA bound is not), the trip count of an empty loop,
the exact :class:`~lab03_mlir.unroll.UnrollStats` of a run (promotions counted once each), the
default factor 4 of every entry point, and where :func:`~lab03_mlir.unroll.with_unroll` puts its
stage. Loop counts are exact by construction; numbers are checked against NumPy through the JIT
(absolute 0: the unrolled sum adds in the loop's own order).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from mlir import ir
from mlir.passmanager import PassManager

from common.errors import UserError
from lab03_mlir import jit, lowering, unroll

pytestmark = pytest.mark.lab03


def loop(bounds: str, n: int = 16) -> str:
    """One innermost loop ``affine.for %i = <bounds>`` storing 1.0 into a memref of ``n`` floats."""
    return f"""
func.func @f(%m: memref<{n}xf32>, %n: index) {{
  %z = arith.constant 1.0 : f32
  affine.for %i = {bounds} {{ affine.store %z, %m[%i] : memref<{n}xf32> }}
  return
}}
"""


def sum_loop(ub: int) -> str:
    """``out[0] = sum(m[0:ub])`` with an ``iter_args`` accumulator (the order of the loop)."""
    return f"""
func.func @sum(%m: memref<{ub}xf32>, %out: memref<1xf32>) {{
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to {ub} iter_args(%acc = %z) -> f32 {{
    %v = affine.load %m[%i] : memref<{ub}xf32>
    %s = arith.addf %acc, %v : f32
    affine.yield %s : f32
  }}
  affine.store %r, %out[0] : memref<1xf32>
  return
}}
"""


def module(text: str) -> ir.Module:
    return lowering.as_module(text, ir.Context())


@pytest.mark.parametrize("bounds", ["0 to min affine_map<() -> (10, 12)>()",
                                    "0 to affine_map<(d0) -> (8)>(%n)",
                                    "%n to 10"])
def test_bounds_that_are_not_one_constant_map_are_a_diagnostic(bounds):
    # a min of constants, a map with an operand, an SSA lower bound: no compile-time trip count
    with pytest.raises(UserError, match=re.escape(unroll.NOT_CONSTANT_TRIP)):
        unroll.unroll(module(loop(bounds)), 4)


def test_empty_loop_has_trip_count_zero():
    assert unroll.innermost_trip_counts(module(loop("5 to 5"))) == [0]


def test_factor_one_leaves_an_empty_loop_alone():
    m = module(loop("5 to 5"))
    before = str(m)
    stats = unroll.unroll(m, 1)
    assert stats.promoted == 0 and str(m) == before


def test_stats_of_a_remainder_of_two_iterations():
    # 10 = 2 x 4 + 2: the main loop keeps 2 iterations and the cleanup 2; nothing is promoted
    stats = unroll.unroll(module(sum_loop(10)), 4)
    assert stats == unroll.UnrollStats(innermost_loops=1, unrolled=1, remainder_loops=1, promoted=0,
                                       skipped_short=0)


def test_stats_count_a_promoted_one_iteration_remainder():
    # 9 = 2 x 4 + 1: the cleanup loop has one iteration and is promoted
    m = module(sum_loop(9))
    stats = unroll.unroll(m, 4)
    assert (stats.unrolled, stats.remainder_loops, stats.promoted) == (1, 1, 1)
    assert unroll.innermost_trip_counts(m) == [2]  # only the main loop is left


def test_factor_one_promotes_a_one_iteration_loop():
    m = module(loop("3 to 4"))
    stats = unroll.unroll(m, 1)
    assert (stats.promoted, stats.unrolled) == (1, 0) and unroll.innermost_trip_counts(m) == []


def test_unroll_default_factor_is_4():
    m = module(sum_loop(8))
    stats = unroll.unroll(m)
    assert stats.remainder_loops == 0 and unroll.innermost_trip_counts(m) == [2]


def test_compare_with_builtin_default_factor_is_4():
    ours, theirs, stats = unroll.compare_with_builtin(sum_loop(10))
    assert stats.remainder_loops == 1 and ours == theirs  # 10 % 4 = 2 (10 % 5 would leave none)


def test_with_unroll_puts_the_stage_right_after_affine_with_factor_4():
    stages = unroll.with_unroll()
    assert [n for n, _ in stages] == ["bufferize", "affine", "unroll", "scf", "cf", "llvm"]
    assert str(stages[2][1].__self__) == "python AffineLoopUnroll{factor=4}"


def test_with_unroll_after_an_unknown_stage_names_the_stages():
    with pytest.raises(UserError, match=r"no stage 'nope' to unroll after; stages: \['bufferize', 'affine'"):
        unroll.with_unroll(4, after="nope")


def test_unrolled_sum_with_promoted_remainder_equals_the_sequential_sum():
    x = (np.arange(1, 10, dtype=np.float32) / 7).astype(np.float32)
    stages = [(unroll.UNROLL_STAGE, unroll.AffineLoopUnroll(4).add_to), *lowering.STAGES[2:]]
    got = jit.run_with_engine(lowering.lower(sum_loop(9), stages=stages), "sum", [x])[0]
    expect = np.float32(0)
    for v in x:  # the loop's order, in float32 (atol = rtol = 0)
        expect = np.float32(expect + v)
    np.testing.assert_array_equal(got, [expect])


def loops(*trips: int) -> str:
    """One function with one innermost loop per trip count, in that order."""
    body = "\n".join(f"  affine.for %i{j} = 0 to {t} {{ affine.store %z, %m[%i{j}] : memref<16xf32> }}"
                     for j, t in enumerate(trips))
    return f"func.func @f(%m: memref<16xf32>) {{\n  %z = arith.constant 1.0 : f32\n{body}\n  return\n}}\n"


def test_stats_count_every_loop_of_a_run():
    # 9 -> main (2 iterations) + promoted 1-iteration remainder; 4 -> one iteration, promoted; 3 -> too short
    m = module(loops(9, 9, 4, 4, 3, 3))
    stats = unroll.unroll(m, 4)
    assert stats == unroll.UnrollStats(innermost_loops=6, unrolled=4, remainder_loops=2, promoted=4, skipped_short=2)
    assert unroll.innermost_trip_counts(m) == [2, 2, 3, 3]


def test_factor_one_counts_each_promotion_and_leaves_longer_loops():
    m = module(loops(1, 8, 1))
    stats = unroll.unroll(m, 1)
    assert (stats.promoted, stats.unrolled) == (2, 0) and unroll.innermost_trip_counts(m) == [8]


def test_loop_with_an_empty_body_is_left_alone():
    m = module("func.func @f() {\n  affine.for %i = 0 to 8 {\n  }\n  return\n}\n")
    before = str(m)
    stats = unroll.unroll(m, 4)
    assert stats.unrolled == 0 and str(m) == before


def test_one_bad_loop_fails_the_pass_even_when_a_later_loop_unrolls():
    text = loops(8).replace("  return", "  affine.for %k = 0 to %n { affine.store %z, %m[%k] : memref<16xf32> }\n"
                                           "  affine.for %j = 0 to 8 { affine.store %z, %m[%j] : memref<16xf32> }\n"
                                           "  return").replace("(%m: memref<16xf32>)", "(%m: memref<16xf32>, %n: index)")
    with pytest.raises(UserError, match="trip count is not a compile-time constant"):
        unroll.unroll(module(text), 4)


def test_failed_run_records_the_error_in_stats():
    m = module(loop("0 to %n"))
    p = unroll.AffineLoopUnroll(4)
    pm = PassManager("builtin.module", context=m.context)
    p.add_to(pm)
    with pytest.raises(ir.MLIRError):
        pm.run(m.operation)
    assert p.stats.errors == [f"{unroll.PASS_NAME}: {unroll.NOT_CONSTANT_TRIP}"]


def test_pass_object_defaults():
    p = unroll.AffineLoopUnroll()
    assert p.factor == 4 and p.stats == unroll.UnrollStats()


def test_pass_is_registered_under_its_argument():
    with ir.Context():
        pm = PassManager("builtin.module")
        unroll.AffineLoopUnroll(4).add_to(pm)
        assert str(pm) == "builtin.module(py-affine-loop-unroll)"


def test_loop_yielding_an_outer_value_keeps_it():
    text = """
func.func @g(%m: memref<8xf32>, %out: memref<1xf32>) {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 8 iter_args(%acc = %z) -> f32 {
    %v = affine.load %m[%i] : memref<8xf32>
    affine.store %v, %out[0] : memref<1xf32>
    affine.yield %z : f32
  }
  affine.store %r, %out[0] : memref<1xf32>
  return
}
"""
    ours, theirs, stats = unroll.compare_with_builtin(text, 4)
    assert stats.unrolled == 1 and ours == theirs


FIB = """
func.func @fib(%out: memref<2xf32>) {
  %one = arith.constant 1.0 : f32
  %r:2 = affine.for %i = 0 to 8 iter_args(%a = %one, %b = %one) -> (f32, f32) {
    %s = arith.addf %a, %b : f32
    affine.yield %b, %s : f32, f32
  }
  affine.store %r#0, %out[0] : memref<2xf32>
  affine.store %r#1, %out[1] : memref<2xf32>
  return
}
"""


def test_unrolled_fibonacci_equals_the_loop():
    # a yield that rotates iter_args (yield %b, %a + %b): fixed in unroll.py (operands remapped by
    # position, all at once; an iter_arg yielded at another position follows its copy); upstream
    # affine-loop-unroll in MLIR 22 gets this loop wrong
    plain = jit.run_with_engine(lowering.lower(FIB, stages=lowering.STAGES[2:]), "fib", [])[0]
    stages = [(unroll.UNROLL_STAGE, unroll.AffineLoopUnroll(4).add_to), *lowering.STAGES[2:]]
    got = jit.run_with_engine(lowering.lower(FIB, stages=stages), "fib", [])[0]
    np.testing.assert_array_equal(plain, [34.0, 55.0])  # (1, 1) -> 8 Fibonacci steps, exact in float32
    np.testing.assert_array_equal(got, plain)
