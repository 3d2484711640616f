"""Graded tests of Task 3.1 (``lab03.build``): ``relu(A @ B + bias)`` built as linalg on tensors.

Through the public contract only (``builder.build_matmul_bias_relu`` and the module docstring of
``lab03_mlir/builder.py``): a verified module with one public ``func.func`` of the documented
signature, ops of the func/linalg/arith/tensor dialects on tensors only (no buffers, no loops yet),
and, compiled and run by IREE (an independent compiler of linalg on tensors, so this task is graded
without the lowering of Task 3.4), exactly ``max(A @ B + bias, 0)``: the inputs are multiples of 1/16,
so every sum is exact in any order and the check is bitwise against float64.

Run: ``.venv/bin/python -m pytest --task lab03.build``.
"""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from lab03_mlir import builder
from lab03_mlir.ladder.iree_anchor import IreeModule, iree_compile

pytestmark = pytest.mark.lab03


def op_names(module: ir.Module) -> list[str]:
    names: list[str] = []

    def visit(op):
        names.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return names


def exact_inputs(m: int, n: int, k: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.clip(np.round(rng.standard_normal(s) * 16) / 16, -7.9375, 7.9375).astype(np.float32)
            for s in ((m, k), (k, n), (n,))]


@pytest.mark.task("lab03.build", points=2)
def test_module_verifies_with_the_documented_signature():
    module = builder.build_matmul_bias_relu(8, 6, 4)
    assert module.operation.verify()
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    assert len(funcs) == 1
    f = funcs[0]
    assert ir.StringAttr(f.attributes["sym_name"]).value == builder.FUNC_NAME
    ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    assert [str(t) for t in ftype.inputs] == ["tensor<8x4xf32>", "tensor<4x6xf32>", "tensor<6xf32>"]
    assert [str(t) for t in ftype.results] == ["tensor<8x6xf32>"]


@pytest.mark.task("lab03.build", points=2)
def test_ops_are_linalg_on_tensors():
    names = op_names(builder.build_matmul_bias_relu(5, 3, 7))
    dialects = {n.split(".")[0] for n in names}
    assert dialects <= {"builtin", "func", "linalg", "arith", "tensor"}, sorted(set(names))
    assert sum(n.startswith("linalg.") for n in names) >= 2, sorted(set(names))  # the matmul and the epilogue


@pytest.mark.task("lab03.build", points=2)
@pytest.mark.parametrize("m, n, k", [(8, 6, 4), (5, 7, 13), (1, 16, 3)])
def test_compiled_and_run_it_computes_matmul_bias_relu(m, n, k, tmp_path):
    inputs = exact_inputs(m, n, k, seed=m + n + k)
    expected = np.maximum(inputs[0].astype(np.float64) @ inputs[1].astype(np.float64) + inputs[2], 0.0)
    iree_compile(str(builder.build_matmul_bias_relu(m, n, k)), tmp_path / "kernel.vmfb")
    out = IreeModule(tmp_path / "kernel.vmfb", builder.FUNC_NAME)(*inputs)
    assert out.shape == (m, n) and out.dtype == np.float32
    np.testing.assert_array_equal(out, expected.astype(np.float32))
    assert (out == 0).any() and (out > 0).any()  # the ReLU clipped some and kept some


@pytest.mark.task("lab03.build", points=1)
def test_a_nan_passes_through_the_relu(tmp_path):
    """The ReLU is ``np.maximum(y, 0)``: a NaN in A makes its row NaN, not 0 (``arith.maximumf`` propagates NaN;
    a compare-and-select or ``maxnumf`` returns the 0). The other rows are exact as above."""
    m, n, k = 3, 4, 5
    inputs = exact_inputs(m, n, k, seed=11)
    inputs[0][1, 0] = np.nan
    expected = np.maximum(inputs[0].astype(np.float64) @ inputs[1].astype(np.float64) + inputs[2], 0.0)  # NaN stays
    iree_compile(str(builder.build_matmul_bias_relu(m, n, k)), tmp_path / "kernel.vmfb")
    out = IreeModule(tmp_path / "kernel.vmfb", builder.FUNC_NAME)(*inputs)
    assert np.isnan(out[1]).all(), f"row 1 holds a NaN of A: want NaN everywhere (as np.maximum), got {out[1]}"
    np.testing.assert_array_equal(out, expected.astype(np.float32))
