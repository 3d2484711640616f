"""Graded tests of Task 3.2 (``lab03.unroll``): the Python ``AffineLoopUnroll`` pass.

Through the pass's public contract only (``unroll.unroll``, ``AffineLoopUnroll``, ``UnrollStats``; the
module docstring of ``lab03_mlir/unroll.py``): after a run every innermost constant-bound loop has the
trip count and step the rewrite defines (read here with a walker of this file), loops left with one
iteration are gone, and the kernel, lowered and JIT-compiled, computes what the loop computes in the
loop's own order (float32 sums compared bitwise with a sequential NumPy loop).

Run: ``pytest --task lab03.unroll``.
"""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from common.errors import UserError
from lab03_mlir import jit, lowering, unroll

pytestmark = pytest.mark.lab03

N = 64


def kernel(lb: int, ub: int, step: int) -> str:
    """``y[i] = x[i] + i`` and ``s[0] = sum(x[i])`` (an iter_args accumulator) for i = lb, lb+step, ... < ub."""
    return f"""
func.func @k(%x: memref<{N}xf32>, %y: memref<{N}xf32>, %s: memref<1xf32>) {{
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = {lb} to {ub} step {step} iter_args(%acc = %z) -> f32 {{
    %v = affine.load %x[%i] : memref<{N}xf32>
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %w = arith.addf %v, %fi : f32
    affine.store %w, %y[%i] : memref<{N}xf32>
    %a = arith.addf %acc, %v : f32
    affine.yield %a : f32
  }}
  affine.store %r, %s[0] : memref<1xf32>
  return
}}
"""


def expected(lb: int, ub: int, step: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = np.zeros(N, np.float32)
    acc = np.float32(0)
    for i in range(lb, ub, step):
        y[i] = x[i] + np.float32(i)
        acc = np.float32(acc + x[i])
    return y, np.array([acc], np.float32)


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
DYNAMIC = """
func.func @dyn(%m: memref<?xf32>, %n: index) {
  %z = arith.constant 1.0 : f32
  affine.for %i = 0 to %n { affine.store %z, %m[%i] : memref<?xf32> }
  return
}
"""


def module(text: str) -> ir.Module:
    return lowering.as_module(text, ir.Context())


def loops(mod: ir.Module) -> list[tuple[int, int, int, int]]:
    """``(lower bound, step, trip count, nesting depth)`` of every ``affine.for``, in IR order."""
    found: list[tuple[int, int, int, int]] = []

    def bound(op, name):
        return ir.AffineConstantExpr(ir.AffineMapAttr(op.attributes[name]).value.results[0]).value

    def visit(op):
        if op.name == "affine.for":
            lb, ub = bound(op, "lowerBoundMap"), bound(op, "upperBoundMap")
            step = ir.IntegerAttr(op.attributes["step"]).value
            depth, parent = 0, op.parent
            while parent is not None and parent.name != "func.func":
                depth += parent.name == "affine.for"
                parent = parent.parent
            found.append((lb, step, max(0, -(-(ub - lb) // step)), depth))
        return ir.WalkResult.ADVANCE

    with mod.context:
        mod.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def run_kernel(text: str, factor: int | None, x: np.ndarray, func: str = "k") -> list[np.ndarray]:
    stages = list(lowering.STAGES[2:])  # the input is affine already
    if factor is not None:
        stages.insert(0, (unroll.UNROLL_STAGE, unroll.AffineLoopUnroll(factor).add_to))
    return jit.run_with_engine(lowering.lower(text, stages=stages), func, [x] if x is not None else [])


X = (np.arange(N, dtype=np.float32) * 0.37 - 5) / 7


def check_numbers(lb: int, ub: int, step: int, factor: int) -> None:
    y, s = run_kernel(kernel(lb, ub, step), factor, X)
    ey, es = expected(lb, ub, step, X)
    np.testing.assert_array_equal(y, ey)
    np.testing.assert_array_equal(s, es)


@pytest.mark.task("lab03.unroll", points=2)
@pytest.mark.parametrize("lb, ub, step, factor", [(0, 16, 1, 4), (0, 12, 1, 3), (2, 18, 2, 2)])
def test_divisible_trip_count_unrolls_by_the_factor(lb, ub, step, factor):
    mod = module(kernel(lb, ub, step))
    unroll.unroll(mod, factor)
    trip = -(-(ub - lb) // step)
    assert loops(mod) == [(lb, step * factor, trip // factor, 0)]
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
    assert loops(mod) == want
    check_numbers(lb, ub, step, factor)


@pytest.mark.task("lab03.unroll", points=2)
def test_single_iteration_loops_are_promoted():
    mod = module(kernel(0, 5, 1))  # T = 5, factor 4: one main iteration + one remainder iteration
    unroll.unroll(mod, 4)
    assert loops(mod) == []
    assert mod.operation.verify()
    check_numbers(0, 5, 1, 4)


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
    assert loops(mod) == [(0, 1, 4, 0), (0, 4, 2, 1)]
    (m,) = run_kernel(NEST, 4, None, "nest")
    np.testing.assert_array_equal(m, np.ones((4, 8), np.float32))


@pytest.mark.task("lab03.unroll", points=2)
@pytest.mark.parametrize("factor", [3, 4])
def test_iter_args_chain_through_the_copies(factor):
    # yield %b, %a + %b: copy j reads what copy j - 1 yielded, positions swapped
    (out,) = run_kernel(FIB, factor, None, "fib")
    np.testing.assert_array_equal(out, [55.0])  # fib(10)


@pytest.mark.task("lab03.unroll", points=2)
def test_stats_count_what_the_pass_did():
    stats = unroll.unroll(module(THREE), 4)
    assert (stats.innermost_loops, stats.unrolled, stats.remainder_loops, stats.skipped_short, stats.promoted) == \
        (3, 2, 1, 1, 0)


@pytest.mark.task("lab03.unroll", points=1)
def test_factor_one_changes_no_loop_of_several_iterations():
    mod = module(kernel(0, 10, 1))
    unroll.unroll(mod, 1)
    assert loops(mod) == [(0, 1, 10, 0)]
    check_numbers(0, 10, 1, 1)


@pytest.mark.task("lab03.unroll", points=1)
def test_non_constant_trip_count_fails_the_pass():
    mod = module(DYNAMIC)
    with pytest.raises(UserError):
        unroll.unroll(mod, 4)
    assert mod.operation.verify()
