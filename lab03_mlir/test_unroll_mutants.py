"""Tests that kill the mutants of ``lab03_mlir/unroll.py`` the older tests let survive (``python -m common.mutation``).

Each test pins one documented behaviour of the Python ``AffineLoopUnroll`` pass: which bounds are
compile-time constants (a ``min`` map or an SSA bound is not), the trip count of an empty loop,
the exact :class:`~lab03_mlir.unroll.UnrollStats` of a run (promotions counted once each), the
default factor 4 of every entry point, and where :func:`~lab03_mlir.unroll.with_unroll` puts its
stage. Loop counts are exact by construction; numbers are checked against NumPy through the JIT
(absolute 0: the unrolled sum adds in the loop's own order).
"""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

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
    with pytest.raises(UserError, match="trip count is not a compile-time constant"):
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
    assert stats.promoted == 1 and unroll.innermost_trip_counts(m) == []


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
