"""Tests for lab02_tvm.lowering.fast_exp: the rewrite, its accuracy against a float64 ``exp`` on every ISA
this host executes, the libm call it removes, and that it leaves tuning workloads alone.

The reference is NumPy's float64 ``exp`` (and ``1 / (1 + exp(-x))``): NumPy picks a SIMD routine by CPU,
but every one is within a few float64 ulp (~1e-15 relative), nil at float32 scale, so the verdict does
not depend on the CPU. Each build is held to the a-priori bound
:func:`_exp_bound` (derived below), the same for every ``-mcpu``: ISAs only change whether FMA
contraction removes the rounding of ``n * ln 2``.
"""
from __future__ import annotations

import platform

import numpy as np
import pytest
import tvm
from tvm import te

from lab02_tvm.lowering import fast_exp as fx

LO, HI = -87.6, 88.376  # float32's exp range where 2^n is normal (n >= -126) and finite (n <= 127)
N = 351_953  # [LO, HI] in steps of 5e-4

#: float32 unit roundoff (half an ulp of 1)
U = 2.0 ** -24
#: |x|-independent part of the relative error: Cephes documents expf's polynomial at 1.7e-7 peak relative
#: error on [-87, 88] (IEEE single, cephes/single/expf.c), plus 2U for the rounding of y and of 2^n * y
#: (2^n exact). Measured: 5.7e-8 beyond the |x| term below, on every level from plain llvm to x86-64-v4.
EXP_CONST = 1.7e-7 + 2 * U
#: per |x|: the reduced argument f = x - n * fl(ln 2), n ~ x / ln 2, carries n * |fl(ln 2) - ln 2|
#: (1.9e-9 * |x| / ln 2 = 2.75e-9 |x|) and, without FMA contraction (plain llvm, x86-64-v2), the
#: rounding of the product n * fl(ln 2) (U |x|); an error d in f is a relative error d in exp(f).
#: Measured: 4.1e-6 relative at |x| = 87 without FMA, 3.0e-7 with it.
EXP_PER_X = 2.75e-9 + U


def _exp_bound(x64: np.ndarray) -> np.ndarray:
    """Per-element bound on the *relative* error of fast_exp(x)."""
    return EXP_CONST + EXP_PER_X * np.abs(x64)


def _targets() -> list[str]:
    """Plain ``llvm`` (generic x86-64: SSE2, no FMA) and every x86-64 level this host executes."""
    from common.isa import executable_levels
    return ["llvm", *(executable_levels() if platform.machine() in ("x86_64", "AMD64") else [])]


def _kernel(n: int = N):
    """``E = exp(A)``, ``S = sigmoid(A)``, ``D = exp(float64(A))``, each loop vectorized by 16 as a schedule would."""
    a = te.placeholder((n,), name="A")
    e = te.compute((n,), lambda i: te.exp(a[i]), name="E")
    s = te.compute((n,), lambda i: te.sigmoid(a[i]), name="S")
    d = te.compute((n,), lambda i: te.exp(a[i].astype("float64")), name="D")
    sch = tvm.s_tir.Schedule(tvm.IRModule({"main": te.create_prim_func([a, e, s, d])}))
    for b in ("E", "S", "D"):
        (loop,) = sch.get_loops(sch.get_sblock(b))
        sch.vectorize(sch.split(loop, [None, 16])[1])
    return sch.mod


def _run(cpu: str, pipeline: str):
    x = np.linspace(LO, HI, N, dtype=np.float32)
    target = "llvm" if cpu == "llvm" else tvm.target.Target({"kind": "llvm", "mcpu": cpu})
    lib = tvm.compile(_kernel(), target, tir_pipeline=pipeline)
    outs = [tvm.runtime.tensor(np.zeros(N, dt)) for dt in ("float32", "float32", "float64")]
    lib(tvm.runtime.tensor(x), *outs)
    return x.astype(np.float64), [o.numpy().astype(np.float64) for o in outs]


def test_rewrite_replaces_float32_exp_and_sigmoid_and_leaves_float64():
    before = _kernel().script()
    after = fx.FastExp(_kernel()).script()
    assert before.count("T.exp(") == 2 and before.count("T.sigmoid(") == 1
    assert after.count("T.exp(") == 1 and "T.sigmoid(" not in after  # only the float64 exp is left
    assert after.count("T.reinterpret(") == 2 and after.count("T.floor(") == 2  # one fast_exp each for E and S


@pytest.mark.parametrize("cpu", _targets())
def test_fast_exp_and_sigmoid_within_their_bound_of_float64(cpu):
    x64, (e, s, d) = _run(cpu, fx.register())
    ref = np.exp(x64)
    rel = np.abs(e - ref) / ref
    bound = _exp_bound(x64)  # <= 5.8e-6 at |x| = 88.4
    assert (rel <= bound).all(), (cpu, float(rel.max()), float(x64[np.argmax(rel - bound)]))
    # sigmoid = 1 / (1 + E), E = fast_exp(-x): d sigmoid = -s (1 - s) dE / E, s (1 - s) <= 1/4, then two roundings
    sref = 1 / (1 + np.exp(-x64))
    assert (np.abs(s - sref) <= 0.25 * bound + 2 * U).all(), (cpu, float(np.abs(s - sref).max()))
    np.testing.assert_allclose(d, ref, rtol=1e-14, atol=0)  # float64 kept libm's exp: both a few ulp (2.2e-16) off


def test_the_ends_of_the_range_are_finite_zero_inf_and_nan_as_documented():
    """Past the range: exp(88.376) (not inf) above it, 0 (not a subnormal) below -87.68; inf, -inf and NaN
    pass through as exp's own values (the final max with x)."""
    xs = np.array([88.376, 88.5, 100.0, -88.0, -1000.0, np.inf, -np.inf, np.nan, 0.0], dtype=np.float32)
    lib = tvm.compile(_kernel(xs.size), "llvm", tir_pipeline=fx.register())
    outs = [tvm.runtime.tensor(np.zeros(xs.size, dt)) for dt in ("float32", "float32", "float64")]
    lib(tvm.runtime.tensor(xs), *outs)
    e, s = outs[0].numpy(), outs[1].numpy()
    top = np.exp(np.float64(np.float32(fx._X_MAX)))  # the clamp: 2.4e38, below FLT_MAX (3.4e38)
    rtol = _exp_bound(np.float64(fx._X_MAX))
    assert np.allclose(e[0], np.exp(np.float64(xs[0])), rtol=rtol) and np.allclose(e[1:3], top, rtol=rtol)
    assert (e[3:5] == 0).all() and e[5] == np.inf and e[6] == 0 and np.isnan(e[7]) and e[8] == 1
    assert s[5] == 1 and s[6] == 0 and np.isnan(s[7]) and s[8] == 0.5


def test_the_bound_tells_a_cruder_exp_apart():
    """The bound can fail: a Taylor polynomial of degree 4 on the same range reduction (no Cephes fit)
    is off by up to 5.6e-5 relative."""
    x64 = np.linspace(LO, HI, 2001)
    n = np.floor(x64 / np.log(2) + 0.5)
    f = x64 - n * np.log(2)
    crude = np.ldexp(1 + f + f ** 2 / 2 + f ** 3 / 6 + f ** 4 / 24, n.astype(int))
    assert (np.abs(crude - np.exp(x64)) / np.exp(x64) > _exp_bound(x64)).any()


def test_rewrite_removes_the_scalar_expf_call():
    """The reason for the pass: the default lowering calls libm's expf per element (LLVM expands the
    vector ``llvm.exp.v16f32`` into scalar calls), the rewrite does not; float64 keeps libm's ``exp``."""
    import re

    def calls(pipeline: str) -> set[str]:
        asm = tvm.compile(_kernel(64), "llvm", tir_pipeline=pipeline).mod.inspect_source("asm")
        return set(re.findall(r"call\w*\s+(expf?)@", asm))

    assert calls("default") == {"expf", "exp"}
    assert calls(fx.register()) == {"exp"}

