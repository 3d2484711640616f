"""Tests for lab02_tvm.fast_gelu: the rewrite, its accuracy against PyTorch, and the libm call it removes."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import tvm
from tvm import relax
from tvm.script import relax as R

from lab02_tvm.fast_gelu import FastGelu, fast_gelu

N = 20001  # [-10, 10] in steps of 1e-3: both tails (clamped by fast_erf at |x / sqrt 2| = 4) and the middle


def _gelu_module(dtype: str = "float32"):
    @tvm.script.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((N,), dtype)):
            with R.dataflow():
                y = R.nn.gelu(x)
                z = R.add(y, y)
                R.output(z)
            return z
    return Mod


def _build(mod):
    ex = tvm.compile(mod, target="llvm")
    return ex, relax.VirtualMachine(ex, tvm.cpu())


def test_rewrite_matches_pytorchs_exact_gelu_within_1e_6():
    mod, n = fast_gelu(_gelu_module())
    assert n == 1
    assert "nn.gelu" not in mod.script() and "fast_gelu" in mod.script()
    x = np.linspace(-10, 10, N, dtype=np.float32)
    _, vm = _build(mod)
    got = vm["main"](tvm.runtime.tensor(x)).numpy()
    ref = 2 * torch.nn.functional.gelu(torch.from_numpy(x), approximate="none").numpy()  # z = y + y
    err = np.abs(got - ref)
    assert err.max() <= 2e-6, float(err.max())  # 2 x (fast_erf's ~1e-7 + rounding); atol 2e-6, rtol 0
    # and the unrewritten module (libm erf) is within the same bound: both are GELU
    _, vm0 = _build(_gelu_module())
    np.testing.assert_allclose(vm0["main"](tvm.runtime.tensor(x)).numpy(), ref, atol=2e-6, rtol=0)


def test_rewrite_removes_the_scalar_erf_call():
    """The reason for the pass: the plain lowering calls libm's erff per element, the rewrite does not."""
    def calls_erff(mod) -> bool:
        lib = tvm.compile(mod, target="llvm").mod
        srcs = [lib.inspect_source("ll")] + [m.inspect_source("ll") for m in lib.imports]
        return any("@erff" in s for s in srcs)

    assert calls_erff(_gelu_module())
    assert not calls_erff(fast_gelu(_gelu_module())[0])


def test_other_dtypes_and_models_without_gelu_are_left_alone():
    f16 = _gelu_module("float16")
    out, n = fast_gelu(f16)
    assert n == 0 and out is f16

    @tvm.script.ir_module
    class NoGelu:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return R.nn.relu(x)
    out, n = fast_gelu(NoGelu)
    assert n == 0 and out is NoGelu


def test_module_pass_form_is_the_same_rewrite():
    a = fast_gelu(_gelu_module())[0]
    b = FastGelu()(_gelu_module())
    tvm.ir.assert_structural_equal(a, b)


@pytest.mark.slow
def test_bert_small_tuning_module_has_fast_gelu_and_passes_the_gate():
    """In the lab's tuning module (weights bound, graph passes, FastGelu): every GELU rewritten, and
    the untuned build of the test-size BERT within absolute 1e-4 of PyTorch."""
    from common.models import build_bert
    from lab02_tvm.relax_import import import_torch, tuning_module

    im = import_torch(build_bert(small=True))
    mod = tuning_module(im)
    assert "nn.gelu" not in mod.script() and mod.script().count("fast_gelu") >= 2  # 2 layers
    ex = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](*im.vm_args(with_params=False))
    outs = [o.numpy() for o in out] if not hasattr(out, "numpy") else [out.numpy()]
    for name, got in zip(im.output_names, outs):
        np.testing.assert_allclose(got, im.reference[name], atol=1e-4, rtol=0)
