"""Graded tests of Task 3.1 (``lab03.build``): ``relu(A @ B + bias)`` built as linalg on tensors.

Through the public contract only (``builder.build_matmul_bias_relu`` and the module docstring of
``lab03_mlir/builder.py``): a verified module with one public ``func.func`` of the documented
signature, ops of the func/linalg/arith/tensor dialects on tensors only (no buffers, no loops yet),
none reading the undefined contents of a ``tensor.empty``, and, compiled and run by IREE (an independent compiler of linalg on tensors, so this task is graded
without the lowering of Task 3.4), exactly ``max(A @ B + bias, 0)``: the inputs are multiples of 1/16,
so every sum is exact in any order and the check is bitwise against float64; on general float32
inputs, within float32's rounding error bound of the float64 value (no intermediate narrower than f32).

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


def reads_of_tensor_empty(module: ir.Module) -> list[str]:
    """Names of the linalg ops whose body reads the block argument of a destination (``outs``) that is a
    ``tensor.empty``: its contents are undefined (tensor dialect docs), so a valid kernel never reads them
    (``linalg.matmul`` reads its destination, ``C += A @ B``: it needs a ``linalg.fill`` first)."""
    bad: list[str] = []

    def visit(op):
        if op.name.startswith("linalg.") and len(op.regions) and len(op.regions[0].blocks):
            args = list(op.regions[0].blocks[0].arguments)
            n_out = len(op.results)
            outs = list(op.operands)[len(op.operands) - n_out:] if n_out else []
            for arg, init in zip(args[len(args) - len(outs):], outs):
                maker = getattr(init.owner, "operation", None)  # the defining op (an OpView), None for a block argument
                if maker is not None and maker.name == "tensor.empty" and any(True for _ in arg.uses):
                    bad.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return bad


def exact_inputs(m: int, n: int, k: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.clip(np.round(rng.standard_normal(s) * 16) / 16, -7.9375, 7.9375).astype(np.float32)
            for s in ((m, k), (k, n), (n,))]


@pytest.mark.task("lab03.build", points=1)
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
    module = builder.build_matmul_bias_relu(5, 3, 7)
    names = op_names(module)
    dialects = {n.split(".")[0] for n in names}
    assert dialects <= {"builtin", "func", "linalg", "arith", "tensor"}, sorted(set(names))
    assert sum(n.startswith("linalg.") for n in names) >= 2, sorted(set(names))  # the matmul and the epilogue
    assert reads_of_tensor_empty(module) == [], (
        f"{reads_of_tensor_empty(module)} read a destination that is a tensor.empty (undefined contents): fill it first")


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
def test_general_inputs_are_computed_in_float32_or_better(tmp_path):
    """On N(0, 1) float32 inputs (not exact: every product and sum rounds) the result is within the rounding
    error of *any* float32 evaluation of the sum: ``|out - y| <= (k + 2) * 2**-24 * (|A| @ |B| + |bias|)``,
    with ``y`` the float64 value of ``max(A @ B + bias, 0)`` (Higham's bound ``gamma_{k+1}`` for a dot product plus
    the bias add, in any order, with or without FMA; the ReLU only shrinks errors; ``1e-30`` more for a flushed
    subnormal). The sizes of the exact tests above hide an accumulator narrower than float32 (a ``linalg.matmul``
    into ``tensor<MxNxf16>`` rounds each step to 11 bits: about ``1e-3`` of the scale here, 250x the bound);
    a wider one (float64) is within it."""
    m, n, k = 16, 24, 64
    rng = np.random.default_rng(5)
    a, b, bias = (rng.standard_normal(s, dtype=np.float32) for s in ((m, k), (k, n), (n,)))
    a64, b64, bias64 = a.astype(np.float64), b.astype(np.float64), bias.astype(np.float64)
    y = np.maximum(a64 @ b64 + bias64, 0.0)
    bound = (k + 2) * 2.0**-24 * (np.abs(a64) @ np.abs(b64) + np.abs(bias64)) + 1e-30
    iree_compile(str(builder.build_matmul_bias_relu(m, n, k)), tmp_path / "kernel.vmfb")
    out = IreeModule(tmp_path / "kernel.vmfb", builder.FUNC_NAME)(a, b, bias)
    assert out.shape == (m, n) and out.dtype == np.float32
    err = np.abs(out.astype(np.float64) - y)
    assert (err <= bound).all(), (
        f"max error {err.max():.3g} at {np.unravel_index(np.argmax(err / bound), err.shape)}, "
        f"{(err / bound).max():.3g}x the float32 bound: an intermediate narrower than float32?")


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


@pytest.mark.task("lab03.build", points=1)
def test_every_dimension_that_indexes_the_output_is_parallel():
    """linalg's own rule (Linalg docs, ``linalg.generic``): a loop dimension that appears in the output's indexing
    map is parallel, one that does not is a reduction. The epilogue writes ``out[i, j]``, so both its loops are
    parallel; a ``reduction`` on ``j`` still verifies and computes the same here, but tells every later pass
    (tiling, parallelization, vectorization) that ``j`` carries a dependence it does not."""
    found = []

    def visit(op):
        if op.name == "linalg.generic":
            maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
            iters = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
            out_dims = {int(str(e)[1:]) for e in maps[-1].results if str(e).startswith("d") and str(e)[1:].isdigit()}
            found.append([(d, it) for d, it in enumerate(iters) if ("parallel" in it) != (d in out_dims)])
        return ir.WalkResult.ADVANCE

    builder.build_matmul_bias_relu(5, 3, 7).operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    assert found, "no linalg.generic: the docstring's epilogue (bias and ReLU) is one"
    assert all(bad == [] for bad in found), (
        f"(dimension, iterator type) pairs against the output map: {found}; a dimension of the output is parallel")


@pytest.mark.task("lab03.build", points=1)
def test_the_relu_of_a_negative_sum_is_plus_zero(tmp_path):
    """``max(y, 0)`` of a negative ``y`` is ``+0.0`` (``arith.maximumf`` orders ``-0.0 < +0.0``); the value checks
    above compare ``-0.0 == 0.0`` as equal, so here the sign bits are compared: a ReLU against ``-0.0`` returns
    ``-0.0`` for every negative sum."""
    m, n, k = 6, 5, 4
    inputs = exact_inputs(m, n, k, seed=23)
    iree_compile(str(builder.build_matmul_bias_relu(m, n, k)), tmp_path / "kernel.vmfb")
    out = IreeModule(tmp_path / "kernel.vmfb", builder.FUNC_NAME)(*inputs)
    y = inputs[0].astype(np.float64) @ inputs[1].astype(np.float64) + inputs[2]
    assert (y < 0).any()
    assert not np.signbit(out[y < 0]).any(), f"ReLU of negative sums: want +0.0, got {out[y < 0]}"
