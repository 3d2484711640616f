"""Tests of lab02_tvm.roofline: per-kernel times sum to the whole run, FLOPs and bytes match hand
counts, and the table and plot are written.

Workload: Relax ``main(x, w, b) = relu(x @ w + b) @ w^T`` (fp32, 64 x 64: a run of ~0.4 ms is rarely
preempted on a shared machine), built untuned. The independent reference is NumPy (float64 matmuls, ``rtol=1e-5, atol=1e-3``: sums of 64 products of
N(0,1)-scaled values, magnitudes ~1e2). Hand counts: ``matmul`` ``[M,K] x [K,N]`` = ``2MKN`` FLOP and
``(MK + KN + MN) * 4`` bytes; the fused ``matmul + add + relu`` adds ``2MN`` (one add, one max per
output element).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import tvm
from tvm import relax

from lab02_tvm import roofline, tuning
from lab02_tvm.build import host_target

pytestmark = pytest.mark.lab02

M = K = N = 64
ROOF = {"peak_gflops": 100.0, "bandwidth_gbs": 20.0, "sgemm_gflops": 90.0, "date": "test"}


@pytest.fixture(scope="module")
def built():
    from tvm.script import relax as R

    @tvm.script.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((M, K), "float32"), w: R.Tensor((K, N), "float32"), b: R.Tensor((N,), "float32")):
            with R.dataflow():
                y = R.nn.relu(R.add(R.matmul(x, w), b))
                s = R.matmul(y, R.permute_dims(w))
                R.output(s)
            return s

    target = {**host_target(), "num-cores": 1}
    fused = tuning.fuse_for_tasks(Mod, target)
    vm = relax.VirtualMachine(tvm.compile(fused, tvm.target.Target(target)), tvm.cpu())
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype("float32") for s in [(M, K), (K, N), (N,)]]
    return vm, [tvm.runtime.tensor(a) for a in arrays], fused, arrays


def test_build_matches_numpy(built):
    vm, args, _, (x, w, b) = built
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = np.maximum(x64 @ w64 + b, 0) @ w64.T
    np.testing.assert_allclose(vm["main"](*args).numpy(), ref, rtol=1e-5, atol=1e-3)


def test_kernel_flops_and_bytes_match_hand_count(built):
    infos = roofline.kernel_infos(built[2])
    mm = next(i for n, i in infos.items() if n.startswith("matmul"))
    fused = next(i for n, i in infos.items() if "matmul" in n and "relu" in n)
    assert mm.flops == 2 * M * K * N
    assert mm.nbytes == (M * K + K * N + M * N) * 4
    assert fused.flops == 2 * M * K * N + 2 * M * N
    assert fused.nbytes == (M * K + K * N + N + M * N) * 4


def test_kernel_times_sum_to_the_whole_run(built):
    vm, args, fused, _ = built
    prof = roofline.profile_vm(vm, args, repeats=20)
    names = set(prof["kernels"])
    assert {n for n in names if "matmul" in n} and all(not n.startswith("vm.") for n in names)
    assert all(k["calls"] == 1 for k in prof["kernels"].values())
    frac = prof["sum_frac"]  # fastest instrumented kernel sum / fastest plain run, interleaved
    assert abs(frac - 1.0) <= roofline.SUM_TOLERANCE, prof
    rows = roofline.kernel_rows(prof, roofline.kernel_infos(fused), ROOF, label="untuned")
    assert [r["lost_ms"] for r in rows] == sorted((r["lost_ms"] for r in rows), reverse=True)
    for r in rows:  # the roof bounds every kernel: time >= max(flops/peak, bytes/bw), up to rounding
        assert r["roof_ms"] <= r["ms"] + 1e-4 and r["bound"] in ("compute", "memory")


def test_roofline_writes_table_and_plot(built, results_dir):
    vm, args, fused, _ = built
    res = roofline.roofline("tiny", {"untuned": (vm, args, fused), "again": (vm, args, fused)},
                            roof=ROOF, repeats=2)
    assert {s["build"] for s in res["summary"]} == {"untuned", "again"}
    assert (results_dir / "lab02" / "roofline_tiny.png").stat().st_size > 1000
    assert (results_dir / "lab02" / "roofline_tiny.md").read_text().count("matmul") >= 2


def test_lost_ms_by_kernel_reads_one_build_and_says_what_is_wrong(tmp_path):
    from common.errors import UserError

    path = tmp_path / "roofline_m.json"
    path.write_text(json.dumps({"rows": [{"build": "untuned", "kernel": "k", "lost_ms": 9.0},
                                         {"build": "tuned", "kernel": "k", "lost_ms": 2.5},
                                         {"build": "tuned", "kernel": "j", "lost_ms": 0.5}]}))
    assert roofline.lost_ms_by_kernel(path) == {"k": 2.5, "j": 0.5}
    assert roofline.lost_ms_by_kernel(path, "untuned") == {"k": 9.0}
    with pytest.raises(UserError, match="no 'other' rows"):
        roofline.lost_ms_by_kernel(path, "other")
    with pytest.raises(UserError, match="run python -m lab02_tvm.roofline first"):
        roofline.lost_ms_by_kernel(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{trunc")
    with pytest.raises(UserError, match="cannot read"):
        roofline.lost_ms_by_kernel(tmp_path / "bad.json")
