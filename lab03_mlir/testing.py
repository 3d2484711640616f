"""Helpers of the Task 3.2 (``lab03.unroll``) tests: the test kernel, its NumPy reference, a walker reading
every ``affine.for`` (:func:`loops`) and the JIT check of the numbers. This file holds no test.

Used by ``test_task_unroll.py`` and by the instructor's hidden test of the task,
``test_task_unroll_hidden.py`` (``hidden_tests`` in ``lab03_mlir/tasks.toml``): the grader runs it, the
student handout does not contain it.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from lab03_mlir import jit, lowering, unroll

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
    """The NumPy reference of :func:`kernel`: ``(y, s)``, float32 [N] (0 where the loop does not reach) and [1],
    summed in float32 in loop order like the kernel."""
    y = np.zeros(N, np.float32)
    acc = np.float32(0)
    for i in range(lb, ub, step):
        y[i] = x[i] + np.float32(i)
        acc = np.float32(acc + x[i])
    return y, np.array([acc], np.float32)


def module(text: str) -> ir.Module:
    """``text`` parsed into a fresh ``ir.Context`` (:func:`lab03_mlir.lowering.as_module`: UserError if it does
    not parse)."""
    return lowering.as_module(text, ir.Context())


#: What each tuple of :func:`loops` holds: the assertion message of the tests that compare them.
LOOP_FIELDS = "(lower bound, step, trip count, nesting depth)"


def loops_message(what: str) -> str:
    """The message of an ``assert loops(mod) == want``: what the tuples are, then which run they read."""
    return f"every affine.for as {LOOP_FIELDS}, in IR order (got == want), after {what}"


def loops(mod: ir.Module) -> list[tuple[int, int, int, int]]:
    """``(lower bound, step, trip count, nesting depth)`` of every ``affine.for``, in IR order
    (:data:`LOOP_FIELDS`; :func:`loops_message` says so in a failed assertion)."""
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
    """Lower the affine ``text`` through the ``scf``, ``cf`` and ``llvm`` stages (after ``AffineLoopUnroll(factor)``;
    None: no unroll) and run ``func`` once with ExecutionEngine on ``x`` (None: no input argument); returns the
    out-params, freshly zeroed (for :func:`kernel`: ``y`` float32 [N], ``s`` float32 [1]).

    Raises:
        UserError: the text does not parse, a stage or the unroll fails, or the arguments do not match
            (:func:`lab03_mlir.jit.run_with_engine`).
    """
    stages = list(lowering.STAGES[2:])  # the input is affine already
    if factor is not None:
        stages.insert(0, (unroll.UNROLL_STAGE, unroll.AffineLoopUnroll(factor).add_to))
    return jit.run_with_engine(lowering.lower(text, stages=stages), func, [x] if x is not None else [])


X = (np.arange(N, dtype=np.float32) * 0.37 - 5) / 7


def check_numbers(lb: int, ub: int, step: int, factor: int) -> None:
    """Run :func:`kernel` unrolled by ``factor`` on :data:`X` and compare with :func:`expected` bitwise.

    Raises:
        AssertionError: ``y`` or ``s`` differs (``np.testing.assert_array_equal``).
    """
    y, s = run_kernel(kernel(lb, ub, step), factor, X)
    ey, es = expected(lb, ub, step, X)
    np.testing.assert_array_equal(y, ey)
    np.testing.assert_array_equal(s, es)


#: A loop with a dynamic trip count (``%n``): unrolling leaves it as it is and fails with an error diagnostic.
DYNAMIC = """
func.func @dyn(%m: memref<?xf32>, %n: index) {
  %z = arith.constant 1.0 : f32
  affine.for %i = 0 to %n { affine.store %z, %m[%i] : memref<?xf32> }
  return
}
"""
