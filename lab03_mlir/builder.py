"""Step 1: build ``relu(A @ B + bias)`` as linalg on tensors with the MLIR Python builder API.

The function (float32, shapes fixed at build time)::

    func.func @matmul_bias_relu(%A: tensor<MxKxf32>, %B: tensor<KxNxf32>, %bias: tensor<Nxf32>)
        -> tensor<MxNxf32>
      %C0 = linalg.fill 0.0 -> tensor<MxNxf32>
      %C  = linalg.matmul ins(%A, %B) outs(%C0)              // C[i,j] += A[i,k] * B[k,j]
      %Y  = linalg.generic {maps (i,j)->(i,j), (i,j)->(j), (i,j)->(i,j); parallel, parallel}
              ins(%C, %bias) { max(c + b, 0.0) }              // bias broadcast over rows, ReLU

It is built op by op (``func.FuncOp.from_py_func``, ``linalg.fill``, ``linalg.matmul``,
``linalg.generic``), never parsed from text, and verified. The ``arith.maximumf`` ReLU follows
IEEE-754 2019 ``maximum`` (NaN-propagating), like ``np.maximum``.
Reference semantics: ``np.maximum(A @ B + bias, 0)``.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, func, linalg, tensor

from common.errors import UserError

FUNC_NAME = "matmul_bias_relu"


def check_shape(m, n, k) -> tuple[int, int, int]:
    """Return ``(m, n, k)`` as ints or raise :class:`UserError` unless all are positive integers."""
    for name, v in (("m", m), ("n", n), ("k", k)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise UserError(f"matrix size --{name} must be a positive integer, got {v!r}")
    return int(m), int(n), int(k)


def build_kernel(m: int, n: int, k: int, body, *, context: ir.Context | None = None,
                 func_name: str = FUNC_NAME) -> ir.Module:
    """Build and verify a module with one public ``func.func (A[m,k], B[k,n], bias[n]) -> [m,n]``.

    Args:
        m, n, k: positive sizes (rows of A, columns of B, reduction length).
        body: ``body(a, b, bias, m, n, k) -> result value`` emitting the ops (float32 tensors),
            called inside the function with the MLIR context and an unknown location active.
        context: MLIR context to build in (a new one if None; the module keeps it alive).
        func_name: symbol name of the function.

    Raises:
        UserError: a non-positive or non-integer size.
    """
    m, n, k = check_shape(m, n, k)
    ctx = context or ir.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        t = ir.RankedTensorType.get
        with ir.InsertionPoint(module.body):

            @func.FuncOp.from_py_func(t([m, k], f32), t([k, n], f32), t([n], f32), name=func_name)
            def _kernel(a, b, bias):
                return body(a, b, bias, m, n, k)

        module.operation.verify()
    return module


def _linalg_body(a, b, bias, m: int, n: int, k: int):
    """``linalg.fill`` + ``linalg.matmul``, then bias + ReLU as one ``linalg.generic``."""
    ### BEGIN SOLUTION lab03.build
    f32 = ir.F32Type.get()
    zero = arith.constant(f32, 0.0)
    acc = linalg.fill(zero, outs=[tensor.empty([m, n], f32)])
    mm = linalg.matmul(a, b, outs=[acc])
    d0, d1 = ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)
    maps = [ir.AffineMap.get(2, 0, [d0, d1]), ir.AffineMap.get(2, 0, [d1]), ir.AffineMap.get(2, 0, [d0, d1])]

    @linalg.generic([mm, bias], [tensor.empty([m, n], f32)], maps, [linalg.IteratorType.parallel] * 2)
    def bias_relu(c, b_j, _out):
        return arith.maximumf(arith.addf(c, b_j), zero)

    return bias_relu
    ### END SOLUTION


def build_matmul_bias_relu(m: int, n: int, k: int, *, context: ir.Context | None = None,
                           func_name: str = FUNC_NAME) -> ir.Module:
    """Build and verify the linalg-on-tensors module for ``relu(A[m,k] @ B[k,n] + bias[n])``.

    Args:
        m, n, k: positive sizes (rows of A, columns of B, reduction length).
        context: MLIR context to build in (a new one if None; the module keeps it alive).
        func_name: symbol name of the function.

    Returns:
        A verified ``builtin.module`` holding one public ``func.func`` (float32 tensors).

    Raises:
        UserError: a non-positive or non-integer size.
    """
    return build_kernel(m, n, k, _linalg_body, context=context, func_name=func_name)


def reference(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """NumPy reference ``max(a @ b + bias, 0)``: ``a`` (m, k), ``b`` (k, n), ``bias`` (n,) float32 -> (m, n)
    float32. ``np.maximum`` propagates NaN, as the kernel's ``arith.maximumf`` (IEEE-754 2019 ``maximum``)."""
    return np.maximum(a @ b + bias, np.float32(0)).astype(np.float32)


def random_inputs(m: int, n: int, k: int, seed: int = 0) -> list[np.ndarray]:
    """Seeded float32 inputs ``[A (m,k), B (k,n), bias (n,)]`` drawn from N(0, 1)."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s, dtype=np.float32) for s in ((m, k), (k, n), (n,))]
