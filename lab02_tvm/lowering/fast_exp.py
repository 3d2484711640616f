"""FastExp: a TIR pass that computes float32 ``exp`` and ``sigmoid`` with multiply-adds, not libm.

The rewrite (every float32 call in every PrimFunc, run first in the TIR lowering pipeline, after
MetaSchedule's schedule is applied)::

    T.exp(x)      ->  fast_exp(x)
    T.sigmoid(x)  ->  1 / (1 + fast_exp(-x))

    fast_exp(x): xc = clamp(x, -88.376, 88.376)
                 n  = min(floor(xc * log2(e) + 1/2), 127)  # exp(xc) = 2^n * exp(f)
                 f  = xc - n * ln(2)                        # |f| <= ln(2) / 2
                 y  = 1 + f + f^2 * P(f)                    # P: degree 5, Cephes' expf coefficients
                 return max(reinterpret<float32>((int32(n) + 127) << 23) * y, x)

which is TOPI's ``fast_exp_float32`` (``include/tvm/topi/elemwise.h``: the range reduction and the
polynomial of Cephes' ``expf``, S. Moshier) written on TIR expressions, so it can run after scheduling,
with one fix: TOPI's ``n`` reaches 128 at the clamp, whose exponent bits are ``inf``; here it stops at
127 (``f`` then reaches ``ln(2) / 2``, the edge of the polynomial's interval).

Why: TVM 0.27's LLVM backend lowers ``exp`` to ``llvm.exp``, and with no vector math library
LLVM expands a vector ``llvm.exp.v16f32`` into sixteen scalar calls of libm's ``expf``: the
schedule's vectorized loop runs one libm call per element. LLaMA-tiny's softmax and SiLU kernels
stayed under 1 % of the FMA peak after tuning for that reason (``roofline_llama_tiny_*.md``). The
polynomial is multiply-adds, a ``floor``, a shift and a reinterpret, which vectorize for the
host's widest vectors: on a 65,536-element exp + sigmoid kernel vectorized by 16, 12.6x faster
(0.419 -> 0.033 ms, AVX-512 Intel kind).

Why in TIR, after scheduling, and not in the graph (Relax's ``FastMathTransform`` rewrites
``exp`` and softmax there): MetaSchedule keys its records by the structural hash of each kernel
*before* scheduling (:mod:`lab02_tvm.tuning.method`). A graph-level rewrite makes every softmax a
new workload that no shipped record covers; this pass leaves the workloads, and therefore every
machine's records, as they are, and changes only the code the schedule's loops run.

Accuracy: an approximation, not an identity. Cephes documents ``expf``'s polynomial at 1.7e-7 peak
relative error; the one-constant range reduction adds ``|x| (2.75e-9 + 2^-24)`` (``ln 2``'s float32
rounding times ``n``, and, without FMA contraction, the rounding of ``n * ln 2``). ``test_fast_exp.py``
holds every x86-64 level the host executes to that bound against NumPy's float64 ``exp`` on [-87, 87]
(measured: 3.0e-7 relative at worst with FMA, 4.1e-6 at ``|x| = 87`` without), and sigmoid to a quarter
of it plus two roundings (measured 8.8e-8 absolute). float64 and float16 calls are left as they are.
The ends, where it differs from libm: above 88.376 (``127.5 ln 2``) the result is ``exp(88.376)`` =
2.4e38, not up to FLT_MAX (``exp(88.72)``) and then ``inf``; below -87.68 (``2^n`` leaves the normal
range) it is 0, not a subnormal. ``inf`` gives ``inf`` and NaN gives NaN (the final ``max`` with
``x``). Softmax (inputs <= 0 after the max is subtracted) and sigmoid never see the upper end.
"""
from __future__ import annotations

import functools

import tvm
from tvm import tirx

#: the registered TIR pipeline: :func:`FastExp`, then TVM's default ``s_tir`` lowering
PIPELINE_NAME = "lab02_fast_exp"

_EXP, _SIGMOID = tvm.ir.Op.get("tirx.exp"), tvm.ir.Op.get("tirx.sigmoid")
#: Cephes ``expf`` polynomial (``expf.c``), highest degree first; TOPI's ``fast_exp_float32`` uses the same
_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
_X_MAX = 88.3762626647950  # 127.5 ln 2: n = 127 at most, so 2^n is a finite float32
_LOG2E, _LN2 = 1.44269504088896341, 0.6931471805599453


def _f32(v: float):
    return tirx.const(v, "float32")


def fast_exp(x):
    """``exp(x)`` for a float32 TIR expression, as range reduction + polynomial (module docstring).

    Args:
        x: a float32 ``PrimExpr`` (scalar; the lowering vectorizes it with its loop).
    Returns:
        a float32 ``PrimExpr`` of multiply-adds, ``floor``, a shift and a reinterpret (``Let``-bound
        temporaries, so ``x`` is evaluated once).
    """
    xv, xc, n, f = (tirx.Var(name, "float32") for name in ("x", "xc", "n", "f"))
    y = _f32(_P[0])
    for c in _P[1:]:
        y = y * f + _f32(c)
    y = y * f * f + f + _f32(1.0)
    two_n = tirx.reinterpret("float32", tirx.shift_left(tirx.Cast("int32", n + _f32(127.0)), tirx.const(23, "int32")))
    body = tirx.max(two_n * y, xv)
    body = tirx.Let(f, xc - n * _f32(_LN2), body)
    body = tirx.Let(n, tirx.min(tirx.floor(xc * _f32(_LOG2E) + _f32(0.5)), _f32(127.0)), body)
    body = tirx.Let(xc, tirx.max(tirx.min(xv, _f32(_X_MAX)), _f32(-_X_MAX)), body)
    return tirx.Let(xv, x, body)


def _rewrite_call(call, mutator):
    """``structural_mutate`` callback: a float32 exp / sigmoid call -> its polynomial form."""
    if str(call.ty) == "float32" and (call.op.same_as(_EXP) or call.op.same_as(_SIGMOID)):
        arg = mutator.mutate(call.args[0])
        if call.op.same_as(_EXP):
            return fast_exp(arg)
        return _f32(1.0) / (_f32(1.0) + fast_exp(-arg))
    return mutator.default_mutate(call)


@tvm.tirx.transform.prim_func_pass(opt_level=0, name="FastExp")
def FastExp(func, _mod, _ctx):
    """The TIR pass: every float32 ``exp`` / ``sigmoid`` call of a PrimFunc rewritten (module docstring)."""
    import tvm_ffi

    return tvm_ffi.structural_mutate(func, [(tvm.ir.expr.Call, _rewrite_call)])


@functools.cache
def register() -> str:
    """Register the ``"lab02_fast_exp"`` TIR pipeline = :func:`FastExp` -> default ``s_tir`` lowering, once
    per process (the tuner's builder asks for it on every candidate).

    Returns:
        the pipeline's name, for ``relax.build(..., tir_pipeline=name)`` or ``tvm.compile``.
    """
    def factory():
        base, fin_host, fin_dev = tvm.tirx.get_tir_pipeline("s_tir")
        return tvm.transform.Sequential([FastExp, base], name=PIPELINE_NAME), fin_host, fin_dev

    tvm.tirx.register_tir_pipeline(PIPELINE_NAME, factory)
    return PIPELINE_NAME
