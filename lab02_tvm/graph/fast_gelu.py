"""FastGelu: a Relax pass that lowers ``nn.gelu`` with TOPI's ``fast_erf`` instead of ``erf``.

The rewrite (every ``relax.nn.gelu(x)`` call with a float32 ``x``, in every Relax function)::

    nn.gelu(x)  ->  call_tir(fast_gelu, x)
    fast_gelu(x) = x * (0.5 + 0.5 * fast_erf(x * 1/sqrt(2)))

which is LegalizeOps' own lowering of ``nn.gelu`` (``tvm/relax/transform/legalize_ops/nn.py``) with
``topi.erf`` replaced by ``topi.fast_erf``.

Why: TVM 0.27's LLVM backend lowers ``erf`` to one scalar call of libm's ``erff`` per element,
which no schedule can vectorize. In the BERT-base tuning records the GELU kernel (128 x 3072
elements, 12 calls per inference) took 20.5 ms a call after tuning, more than BERT's FFN
matmuls. ``fast_erf`` (``topi/elemwise.h``: Eigen's ``generic_fast_erf_float``, the input clamped
to [-4, 4], a degree-13 odd polynomial over a degree-6 even one) is multiply-adds and one
division, which LLVM vectorizes for the host's widest vectors.

Preconditions: run before ``LegalizeOps`` (afterwards no ``nn.gelu`` is left to match); float16 /
bfloat16 GELUs are left as they are. Relax's ``FastMathTransform`` does the same for ``erf``,
``exp``, ``tanh`` and softmax at once; this pass touches GELU only, so every other kernel's
workload, and therefore its tuning records, stays as it was.

Accuracy: an approximation, not an identity. TOPI's ``fast_erf`` is a rational approximation
clamped at ``|t| = 4``, 6.9e-8 from ``erf`` at worst (its coefficients evaluated in float64); with
float32 rounding that bounds ``|fast_gelu(x) - gelu(x)|`` by ``|x|/2 (7e-8 + 35 u) + u |gelu(x)|``
(u = 2^-24). ``test_fast_gelu.py`` holds the kernel, built for every x86-64 level the host can
execute, to that bound against a float64 GELU (SciPy's ``erf``: a reference that does not depend
on the CPU, unlike PyTorch's vectorized float32 GELU); measured: within 1.97e-6 of it over
[-10, 10]. Lab 02's end-to-end gate still holds BERT-base at absolute 1e-4.
"""
from __future__ import annotations

from typing import Any

import tvm
from tvm import relax, te, tirx, topi

#: the Relax operator rewritten, and the PrimFunc name the rewrite gives its kernel
OP, KERNEL = "relax.nn.gelu", "fast_gelu"


def fast_gelu_te(x: te.Tensor) -> te.Tensor:
    """``x * (0.5 + 0.5 * fast_erf(x / sqrt 2))`` as a TE compute (float32 in, float32 out, same shape)."""
    half = tirx.const(0.5, x.dtype)
    return x * (half + topi.fast_erf(x * tirx.const(0.5 ** 0.5, x.dtype)) * half)


@relax.expr_functor.mutator
class _FastGeluMutator(relax.PyExprMutator):
    def __init__(self, mod: tvm.IRModule) -> None:
        super().__init__(mod)
        self.rewritten = 0

    def visit_call_(self, call: relax.Call) -> relax.Expr:
        call = super().visit_call_(call)
        if isinstance(call.op, tvm.ir.Op) and call.op.name == OP and str(getattr(call.args[0].ty, "dtype", "")) == "float32":
            self.rewritten += 1
            return self.builder_.call_te(fast_gelu_te, call.args[0], primfunc_name_hint=KERNEL)
        return call


def fast_gelu(mod: tvm.IRModule) -> tuple[tvm.IRModule, int]:
    """Apply the rewrite to every Relax function of ``mod``.

    Returns:
        ``(module, rewritten)``: the new module (``mod`` itself is not changed) and the number of
        GELU calls rewritten (0 for a model without GELU: the module comes back unchanged).
    """
    m = _FastGeluMutator(mod)
    for gv, func in mod.functions_items():
        if isinstance(func, relax.Function):
            m.builder_.update_func(gv, m.visit_expr(func))
    return (m.builder_.get() if m.rewritten else mod), m.rewritten


@tvm.transform.module_pass(opt_level=0, name="FastGelu")
class FastGelu:
    """The rewrite as a module pass (for a ``tvm.transform.Sequential``); see the module docstring."""

    def transform_module(self, mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        """The module with every float32 GELU rewritten (:func:`fast_gelu`; ``ctx`` is unused)."""
        return fast_gelu(mod)[0]
