"""Tests of lab02_tvm.schedule.search_space: the template is a valid schedule, and both spaces (template and
MetaSchedule's generated one) tuned with the same tiny budget give kernels that match NumPy.

Kernel: ``D = relu(A @ B + bias)``, fp32, 64 x 64 x 64, as a TE PrimFunc. Reference: NumPy in
float64; tolerance ``|d| <= 1e-4 * max|ref| + 1e-4 |ref|`` (search_space's gate; sums of 64
products of N(0,1) values, magnitude ~10-30).
"""
from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import s_tir, te

from common.errors import UserError
from lab02_tvm.schedule import search_space as ss
from lab02_tvm.lowering.blocks import sblocks
from lab02_tvm.build import host_target
from lab02_tvm.schedule.manual import build_kernel, kernel_args, run_kernel

pytestmark = pytest.mark.lab02

M = K = N = 64
TRIALS = 4  # per space: enough for the search to run and record, tiny for CI


def dense_relu():
    a = te.placeholder((M, K), name="A")
    b = te.placeholder((K, N), name="B")
    bias = te.placeholder((N,), name="bias")
    k = te.reduce_axis((0, K), name="k")
    c = te.compute((M, N), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    d = te.compute((M, N), lambda i, j: te.max(c[i, j] + bias[j], tvm.tirx.const(0, "float32")), name="D")
    return tvm.IRModule({"main": te.create_prim_func([a, b, bias, d])})


def numpy_ref(ins):
    a, b, bias = (x.astype(np.float64) for x in ins)
    return [np.maximum(a @ b + bias, 0.0)]


def test_template_is_a_valid_schedule_with_fused_epilogue():
    mod = dense_relu()
    sch = s_tir.Schedule(mod, seed=1)
    ss.template_schedule(sch)
    names = [b.name_hint for _, b in sblocks(sch)]
    assert "D" not in names and any(n.endswith("_local") for n in names)  # relu+bias in the write-back
    arrays, outs = kernel_args(mod)
    call, read = run_kernel(build_kernel(sch.mod, {**host_target(), "num-cores": 1}), arrays, outs)
    call()
    np.testing.assert_allclose(read()[0], numpy_ref([arrays[0], arrays[1], arrays[2]])[0], rtol=1e-4, atol=1e-3)


def test_both_spaces_same_budget_and_correct_vs_numpy():
    res = ss.compare_spaces(dense_relu(), {**host_target(), "num-cores": 1}, trials=TRIALS,
                            reference=numpy_ref, repeats=3)
    by = {r["space"]: r for r in res["rows"]}
    assert set(by) == set(ss.SPACES)
    for sp, r in by.items():
        assert r["trials"] == TRIALS and r["valid_trials"] >= 1, r
        assert r["status"] == "ok" and r["max_abs_err"] <= 1e-4 * 100, r
        curve = res["curves"][sp]
        assert len(curve) == TRIALS and all(x >= y for x, y in zip(curve, curve[1:]))  # best-so-far
        assert r["best_ms_search"] == pytest.approx(min(curve), abs=1e-4)  # rounded to 4 decimals
    assert res["flops"] == 2 * M * K * N + 2 * M * N  # matmul + bias add + relu (max)


def test_bad_space_and_budget():
    with pytest.raises(UserError):
        ss.tune_space(dense_relu(), "llvm", "autotvm", 4)
    with pytest.raises(UserError):
        ss.tune_space(dense_relu(), "llvm", "template", 0)
