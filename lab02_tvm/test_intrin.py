"""The fp32 register-tile ``TensorIntrin`` (``lab02_tvm.lowering.intrin``): numerics, vector FMAs of the
host's width, idempotent registration, "not applicable" on a non-matmul block.

Runs on both kinds of host: the tile and the expected registers follow the ISA the code was built for
(``zmm`` and a (8, 32) tile on AVX-512, ``ymm`` and (6, 16) on AVX2), and every host here can also build
and run for ``haswell`` (AVX2), so the AVX2 path is run everywhere. The checks that run nothing (the
tile's mapping, the tile chosen per kernel, the search space) take both ISAs on every host, so no
verdict depends on the CPU (an 8 x 32 tile maps onto 64 rows, a 6 x 16 one does not).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import tvm  # a required dependency: missing is a failure, not a skip

from lab02_tvm.build import host_target
from lab02_tvm.lowering import intrin

pytestmark = pytest.mark.lab02

#: fp32 matmul vs NumPy's (OpenBLAS sgemm): each output is a sum of K = 64 products of N(0, 1) values
#: (|C| up to ~30), accumulated in a different order (and FMA contraction) than the BLAS; the rounding
#: error of such a sum is a few ulps of the partial sums, ~1e-6 relative, so rtol 1e-5 with an atol
#: of 1e-5 x max|C| (for entries near 0, where cancellation makes rtol meaningless).
RTOL = 1e-5
ATOL_SCALE = 1e-5

AVX2_TARGET = {"kind": "llvm", "mcpu": "haswell"}


AVX512_TARGET = {"kind": "llvm", "mcpu": "skylake-avx512"}


def _targets():
    """Targets to build *and run* for: the host, and AVX2 on an AVX-512 host."""
    host = host_target()
    return [host] if intrin.vector_width(host) == 8 else [host, AVX2_TARGET]


def _analysis_targets():
    """Targets for checks that only analyse or schedule (nothing runs): both ISAs on every host."""
    return [AVX2_TARGET, AVX512_TARGET]


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


@pytest.mark.parametrize("target", _analysis_targets(), ids=lambda t: t.get("mcpu", "generic"))
def test_not_applicable_on_a_non_matmul_block(target):
    from tvm import s_tir, te
    mr, nr = intrin.default_tile(target)
    name = intrin.register_fp32_tile(target=target)

    # extents that are multiples of the host's tile (6 x 16 on AVX2, 8 x 32 on AVX-512): it maps
    mm = s_tir.Schedule(intrin.matmul_module(4 * mr, 2 * nr, 64))
    assert intrin.why_not(mm, mm.get_sblock("C"), name) is None
    # a row extent the tile's MR does not divide: no mapping (the mapping does not pad)
    odd = s_tir.Schedule(intrin.matmul_module(4 * mr + 1, 2 * nr, 64))
    assert "do not map" in intrin.why_not(odd, odd.get_sblock("C"), name)

    a = te.placeholder((64, 64), "float32", name="A")
    c = te.compute((64, 64), lambda i, j: a[i, j] + 1.0, name="C")
    sch = s_tir.Schedule(tvm.IRModule({"main": te.create_prim_func([a, c])}))
    blk = sch.get_sblock("C")
    assert intrin.why_not(sch, blk, name).startswith("not applicable:")
    reason = intrin.try_tensorize(sch, sch.get_loops(blk)[0], name)
    assert reason is not None and reason.startswith("not applicable:") and "\n" not in reason


@pytest.mark.parametrize("target", _analysis_targets(), ids=lambda t: t.get("mcpu", "generic"))
def test_tile_for_picks_a_tile_that_divides_the_kernel(target):
    """BERT's dense layers are 128 rows x 768 or 3072 columns: 6 does not divide 128, so AVX2 takes 4 x 24;
    AVX-512's first choice, 8 x 48, divides both; ResNet-50's 64-2048 channels are no multiple of 48, so
    AVX-512 falls back to 8 x 32 there (AVX2 to 4 x 16: 24 does not divide 256). An elementwise kernel has no tile."""
    from tvm import te
    name, tile = intrin.tile_for(intrin.matmul_module(128, 768, 64), target)
    assert tile == ("8x48" if intrin.vector_width(target) == 16 else "4x24")
    _, narrow = intrin.tile_for(intrin.matmul_module(128, 256, 64), target)
    assert narrow == ("8x32" if intrin.vector_width(target) == 16 else "4x16")
    assert name == intrin.intrin_name(*map(int, tile.split("x")), width=intrin.vector_width(target))
    a = te.placeholder((64, 64), "float32", name="A")
    c = te.compute((64, 64), lambda i, j: a[i, j] + 1.0, name="C")
    name, why = intrin.tile_for(tvm.IRModule({"main": te.create_prim_func([a, c])}), target)
    assert name is None and why.startswith("not applicable:")


@pytest.mark.parametrize("target", _analysis_targets(), ids=lambda t: t.get("mcpu", "generic"))
def test_tile_space_marks_the_matmul_for_the_tile(target):
    """The tile space's design spaces (MetaSchedule's sketches before sampling) tile the matmul for the
    intrin: at least one sketch annotates a block ``meta_schedule.auto_tensorize`` with its name (what
    ``RewriteTensorize`` later replaces by the impl); the default space has no such sketch."""
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning.harness import cpu_tensor_intrinsics
    cpu = tvm.target.Target({**target, "num-cores": 1})
    mod = intrin.matmul_module(128, 768, 64)
    name, _ = intrin.tile_for(mod, target)

    def sketches(space):
        with cpu_tensor_intrinsics(cpu):  # TuneContext would otherwise parse every backend's intrinsics (~1 min)
            ctx = ms.TuneContext(mod=mod, target=cpu, space_generator=space, task_name="mm")
            return [str(s.trace) for s in ctx.generate_design_space()]

    assert any(name in t and "auto_tensorize" in t for t in sketches(intrin.tile_space(name)))
    assert not any("auto_tensorize" in t for t in sketches(intrin.tile_space(None)))


def test_the_readme_shows_the_tile_as_tvm_prints_it():
    """The Lab 02 README's TVMScript of the 8 x 32 desc and its AVX-512 impl is TVM's own printout of them
    (so the lab's answer to "how does a compiler reach the roof" cannot drift from the code)."""
    from pathlib import Path
    readme = (Path(intrin.__file__).parents[1] / "README.md").read_text()
    for func in (intrin.make_desc(8, 32), intrin.make_impl(8, 32, width=16)):
        assert f"```python\n{intrin.tvmscript(func)}\n```" in readme


def test_every_tile_a_record_names_is_registered_at_both_widths():
    """Records tuned with the tile on either ISA open anywhere: every tile's name, for 8 and 16 lanes, found in a
    records text (here each named twice, amid other text) is registered, and only those are returned."""
    want = [intrin.intrin_name(m, n, width=w) for w, tiles in intrin.TILES.items() for m, n in tiles]
    text = " ".join(f'"sch.tensorize(b3, {n})" {n},' for n in want) + ' "mlc_fp32_tile_" "T_add"'
    names = intrin.register_named_tiles(text)
    assert names == sorted(want)
    assert [n for n in names if n.endswith("_w8")] == sorted(intrin.intrin_name(m, n, width=8) for m, n in intrin.TILES[8])
    assert all(tvm.s_tir.TensorIntrin.get(n) is not None for n in names)
    assert intrin.register_named_tiles("no tile here") == []


def test_records_tuned_with_a_tile_open_in_a_fresh_process(tmp_path):
    """A record whose trace tensorizes with the tile opens where nothing registered the tile yet.

    ``JSONDatabase`` decodes every trace when it opens its files, so an unregistered tile name failed the
    whole load ("TensorIntrin ... is not registered") before ``build_from_database`` could register it;
    ``open_database`` now registers every tile (both widths) first. The fresh process is the check: this
    one has the tiles registered already.
    """
    import subprocess
    import sys

    from tvm.s_tir import meta_schedule as ms

    from lab02_tvm.tuning.database import open_database
    for width, target in ((8, AVX2_TARGET), (16, AVX512_TARGET)):
        mr, nr = intrin.TILES[width][0]
        name = intrin.register_fp32_tile(mr, nr, target=target)
        mod = intrin.matmul_module(2 * mr, 2 * nr, 16)
        sch = intrin.tensorize_matmul(mod, mr, nr, name)
        assert name in str(sch.trace)
        db = open_database(tmp_path / f"w{width}")
        wl = db.commit_workload(mod)
        db.commit_tuning_record(ms.database.TuningRecord(sch.trace, wl, [1e-3], tvm.target.Target(target)))
        code = ("import sys; from lab02_tvm.tuning.database import load_database; "
                "print(len(load_database(sys.argv[1]).get_all_tuning_records()))")
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / f"w{width}")],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip().splitlines()[-1] == "1"


def _nhwc_conv(weights: str):
    """A 1x1 NHWC conv, 2 x 56 pixels, 64 -> 64 channels, its weights ``"OHWI"`` or ``"HWIO"`` (TE)."""
    from tvm import te
    x = te.placeholder((1, 2, 56, 64), "float32", name="x")
    w = te.placeholder((64, 1, 1, 64) if weights == "OHWI" else (1, 1, 64, 64), "float32", name="w")
    rc = te.reduce_axis((0, 64), name="rc")
    pick = (lambda o, c: w[o, 0, 0, c]) if weights == "OHWI" else (lambda o, c: w[0, 0, c, o])
    y = te.compute((1, 2, 56, 64), lambda n, h, v, o: te.sum(x[n, h, v, rc] * pick(o, rc), axis=rc), name="conv")
    return tvm.IRModule({"main": te.create_prim_func([x, w, y])})


@pytest.mark.parametrize("target", _analysis_targets(), ids=lambda t: t.get("mcpu", "generic"))
def test_a_conv_whose_weights_are_n_by_k_is_not_applicable(target):
    """The loops of an NHWC conv map onto the tile whatever its weight layout, but the tile reads ``B[k, n]`` rows:
    with ``OHWI`` weights (``[N, K]``) tensorize fails, which the search's ``RewriteTensorize`` only logs; ``tile_for``
    says so up front. With ``HWIO`` weights (``[K, N]``) the same conv takes the tile that divides it."""
    name, why = intrin.tile_for(_nhwc_conv("OHWI"), target)
    assert name is None and why.startswith("not applicable:") and "maps onto the loops" in why and "\n" not in why
    name, tile = intrin.tile_for(_nhwc_conv("HWIO"), target)
    assert tile == ("8x32" if intrin.vector_width(target) == 16 else "4x16") and name is not None
