"""Step 7 (extension): the same ``relu(A @ B + bias)`` written in TOSA, lowered by the same pipeline.

TOSA (Tensor Operator Set Architecture, spec v1.0) is a fixed set of whole-tensor operators, the
level frameworks hand to MLIR (TFLite, torch-mlir's ``tosa`` output). Its rules shape the graph:

* ``tosa.matmul`` is *batched* and 3-D: ``[N, H, C] x [N, C, W] -> [N, H, W]`` with explicit
  zero-point operands ``a_zp``/``b_zp`` (0 for float; spec section 2.3 "MATMUL").
* Elementwise binary ops (``tosa.add``) broadcast only between tensors of *equal rank*, so the bias
  is reshaped to ``[1, 1, N]`` first (spec 2.4, "Broadcasting").
* ``tosa.reshape`` takes its new shape as a ``!tosa.shape`` value from ``tosa.const_shape``.
* ReLU is ``tosa.clamp`` with ``min_val = 0`` and ``max_val = +max float`` (spec 2.5 "CLAMP").

The function has the naive path's signature ``(A[M,K], B[K,N], bias[N]) -> [M,N]`` (reshapes at
the edges), so one JIT harness serves both. :data:`TOSA_STAGES` = ``tosa-to-linalg-pipeline`` (+
``tosa-to-tensor``, ``tosa-to-arith``) followed by :data:`lab03_mlir.lowering.STAGES`.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import tosa

from .builder import FUNC_NAME, build_kernel
from .lowering import STAGES, TOSA_TO_LINALG

#: ``("tosa", tosa -> linalg)`` then the default linalg -> LLVM stages.
TOSA_STAGES: list[tuple[str, str]] = [("tosa", TOSA_TO_LINALG), *STAGES]


def _reshape(x, shape: list[int]):
    f32 = ir.F32Type.get()
    shape_t = ir.Type.parse(f"!tosa.shape<{len(shape)}>")
    idx = ir.DenseElementsAttr.get(np.asarray(shape, dtype=np.int64), type=ir.IndexType.get())
    new_shape = tosa.ConstShapeOp(shape_t, idx).result
    return tosa.ReshapeOp(x, new_shape, results=[ir.RankedTensorType.get(shape, f32)]).result


def _tosa_body(a, b, bias, m: int, n: int, k: int):
    """``tosa.matmul`` on ``[1, m, k] x [1, k, n]``, ``tosa.add`` of ``[1, 1, n]``, ``tosa.clamp`` at 0."""
    f32 = ir.F32Type.get()
    t = ir.RankedTensorType.get
    zp = tosa.ConstOp(ir.DenseElementsAttr.get(np.zeros(1, np.float32), type=t([1], f32))).result
    prod = tosa.MatMulOp(t([1, m, n], f32), _reshape(a, [1, m, k]), _reshape(b, [1, k, n]), zp, zp).result
    biased = tosa.AddOp(t([1, m, n], f32), prod, _reshape(bias, [1, 1, n])).result
    relu = tosa.ClampOp(t([1, m, n], f32), biased, ir.FloatAttr.get(f32, 0.0),
                        ir.FloatAttr.get(f32, float(np.finfo(np.float32).max))).result
    return _reshape(relu, [m, n])


def build_tosa_matmul_bias_relu(m: int, n: int, k: int, *, context: ir.Context | None = None,
                                func_name: str = FUNC_NAME) -> ir.Module:
    """Build and verify ``relu(A @ B + bias)`` with ``tosa.matmul``, ``tosa.add``, ``tosa.clamp``.

    Args / returns / raises: as :func:`lab03_mlir.builder.build_matmul_bias_relu` (float32).
    """
    return build_kernel(m, n, k, _tosa_body, context=context, func_name=func_name)
