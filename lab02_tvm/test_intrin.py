"""The fp32 register-tile ``TensorIntrin`` (``lab02_tvm.schedule.intrin``): numerics, vector FMAs of the
host's width, idempotent registration, "not applicable" on a non-matmul block.

Runs on both kinds of host: the tile and the expected registers follow the ISA the code was built for
(``zmm`` and a (8, 32) tile on AVX-512, ``ymm`` and (6, 16) on AVX2), and every host here can also build
and run for ``haswell`` (AVX2), so the AVX2 path is checked everywhere.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import tvm  # a required dependency: missing is a failure, not a skip

from lab02_tvm.build import host_target
from lab02_tvm.schedule import intrin

pytestmark = pytest.mark.lab02

#: fp32 matmul vs NumPy's (OpenBLAS sgemm): each output is a sum of K = 64 products of N(0, 1) values
#: (|C| up to ~30), accumulated in a different order (and FMA contraction) than the BLAS; the rounding
#: error of such a sum is a few ulps of the partial sums, ~1e-6 relative, so rtol 1e-5 with an atol
#: of 1e-5 x max|C| (for entries near 0, where cancellation makes rtol meaningless).
RTOL = 1e-5
ATOL_SCALE = 1e-5

AVX2_TARGET = {"kind": "llvm", "mcpu": "haswell"}


def _targets():
    host = host_target()
    return [host] if intrin.vector_width(host) == 8 else [host, AVX2_TARGET]


@pytest.mark.parametrize("target", _targets(), ids=lambda t: t.get("mcpu", "generic"))
def test_tensorized_matmul_matches_numpy_and_uses_vector_fma(target):
    got, ref, lib = intrin.tensorized_matmul(96, 64, 64, target=target)
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=ATOL_SCALE * float(np.abs(ref).max()))

    asm = lib.mod.inspect_source("asm")
    width = intrin.vector_width(target)
    reg = "zmm" if width == 16 else "ymm"
    fmas = re.findall(rf"vfmadd\d+ps\s+[^\n]*%{reg}", asm)
    mr, nr = intrin.default_tile(target)
    # one tensorized call: K_TILE x MR x NR/W FMAs (unrolled over MR and NR/W; k may stay a loop)
    assert len(fmas) >= mr * nr // width, f"expected >= {mr * nr // width} vfmadd*ps on {reg}, got {len(fmas)}"
    if width == 8:
        assert "zmm" not in asm, "AVX2 build must not use 512-bit registers"


def test_register_twice_is_fine():
    a = intrin.register_fp32_tile(8, 32)
    b = intrin.register_fp32_tile(8, 32)
    assert a == b and tvm.s_tir.TensorIntrin.get(a) is not None


def test_not_applicable_on_a_non_matmul_block():
    from tvm import s_tir, te
    name = intrin.register_fp32_tile()

    mm = s_tir.Schedule(intrin.matmul_module(64, 64, 64))
    assert intrin.applicable(mm, mm.get_sblock("C"), name)

    a = te.placeholder((64, 64), "float32", name="A")
    c = te.compute((64, 64), lambda i, j: a[i, j] + 1.0, name="C")
    sch = s_tir.Schedule(tvm.IRModule({"main": te.create_prim_func([a, c])}))
    blk = sch.get_sblock("C")
    assert not intrin.applicable(sch, blk, name)
    reason = intrin.try_tensorize(sch, sch.get_loops(blk)[0], name)
    assert reason is not None and reason.startswith("not applicable:") and "\n" not in reason
