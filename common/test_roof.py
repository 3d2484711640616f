"""Tests for common.roof: the FMA kernel's answer, peak vs sgemm in one run, the cache, helpers."""
from __future__ import annotations

import json
import platform

import numpy as np
import pytest

from common import roof
from common.errors import run_cli
from common.isa import executable_levels

#: 200 steps of x <- x * 0.999 + 0.001 from x0 in [0, 2) (x stays below 2): each rounding errs by <=
#: half an ulp of a value < 2 (6e-8) and earlier errors shrink by 0.999, so |float32 - exact| <= 200 *
#: r * 6e-8 with r roundings a step: 1 with FMA (1.2e-5), 2 where the CPU has none and the kernel is a
#: mul + add (x86-64-v2: 2.4e-5; measured 9.5e-6 there, 1.8e-6 with FMA on x86-64-v4).
ITERS, HALF_ULP_BELOW_2 = 200, 2.0 ** -24  # ulp of [1, 2) is 2^-23
#: (lanes, accumulators, has FMA) of the FMA kernel per x86-64 level: fma_shape()'s rule for its vectors
LEVELS = {"x86-64-v2": (4, 12, False), "x86-64-v3": (8, 12, True), "x86-64-v4": (16, 24, True)}
TARGETS = ["host", *(lv for lv in (executable_levels() if platform.machine() in ("x86_64", "AMD64") else []) if lv in LEVELS)]


@pytest.mark.parametrize("cpu", TARGETS)
def test_fma_kernel_matches_closed_form_and_is_fma_on_registers(cpu):
    if cpu == "host":
        (lanes, n_acc), fma = roof.fma_shape(), roof.host_isa()[0] in ("avx2", "avx512")
        lib = roof.build_fma(lanes, n_acc)
    else:
        lanes, n_acc, fma = LEVELS[cpu]
        lib = roof.build_fma(lanes, n_acc, target={"kind": "llvm", "mcpu": cpu})
    init = np.random.default_rng(0).uniform(0.0, 2.0, lanes * n_acc).astype(np.float32)
    got = roof.run_fma(lib, init, ITERS)
    atol = ITERS * (1 if fma else 2) * HALF_ULP_BELOW_2
    np.testing.assert_allclose(got, roof.fma_reference(init, ITERS), rtol=0, atol=atol)
    np.testing.assert_array_equal(roof.run_fma(lib, init, 0), init)  # zero steps: a copy
    if fma:  # FMA hardware: the inner loop is n_acc vfmadd at least
        assert roof.fma_asm(lib).count("vfmadd") >= n_acc


def test_peak_is_at_least_the_sgemm_rate_in_one_interleaved_run():
    fma, sgemm = roof.measure_compute(seconds=1.5)
    assert fma["samples"] == sgemm["samples"] >= 5
    # best of interleaved samples; 10 % tolerance for the noise of a shared machine. No absolute GFLOP/s
    # figure: only that the roof is a roof (sgemm, at 1 thread, cannot beat the FMA throughput), which
    # holds on any CPU whose widest FMA vectors host_isa() reports (both sides use them)
    assert fma["best_gflops"] >= 0.9 * sgemm["best_gflops"], (fma, sgemm)
    assert fma["p10_gflops"] <= fma["median_gflops"] <= fma["p90_gflops"] <= fma["best_gflops"]


def test_bandwidth_measures_copy_and_add():
    bw = roof.measure_bandwidth(seconds=0.2, nbytes=16 << 20)
    assert bw["copy"]["samples"] >= 3 and bw["best_gbs"] >= bw["copy"]["best_gbs"] > 0


def _fake_roof(cpu: str) -> dict:
    return {"cpu": cpu, "peak_gflops": 100.0, "bandwidth_gbs": 20.0, "sgemm_gflops": 90.0}


def test_cache_round_trips_and_rejects_other_cpu_corrupt_and_missing(results_dir):
    from common.timing import cpu_model
    r = _fake_roof(cpu_model())
    path = roof.save_roof(r)
    assert path == results_dir / roof.ROOF_FILE
    assert roof.cached_roof() == r
    roof.save_roof(_fake_roof("Some Other CPU"))
    assert roof.cached_roof() is None
    roof.save_roof({**r, "fma": {"isa": "some-other-isa"}})  # same name, another CPU generation
    assert roof.cached_roof() is None
    roof.save_roof(_fake_roof("Some Other CPU"))
    assert roof.cached_roof(any_cpu=True)["cpu"] == "Some Other CPU"
    path.write_text("{ truncated")
    assert roof.cached_roof() is None
    path.unlink()
    assert roof.cached_roof() is None and roof.percent_of_peak(50.0) is None


def test_gflops_and_percent_of_peak():
    assert roof.gflops(2e9, 1000.0) == pytest.approx(2.0)
    assert roof.gflops(8.2e9, 100.0) == pytest.approx(82.0)
    assert roof.percent_of_peak(25.0, {"peak_gflops": 100.0}) == pytest.approx(25.0)
    assert roof.roof_time_ms(1e9, 1e6, _fake_roof("x")) == pytest.approx(10.0)  # compute-bound
    assert roof.roof_time_ms(1e6, 2e8, _fake_roof("x")) == pytest.approx(10.0)  # memory-bound
    with pytest.raises(ValueError):
        roof.gflops(1e9, 0.0)


def test_rate_columns_per_thread_and_unknowns():
    peak = {"peak_gflops": 50.0}
    assert roof.rate_columns(2e9, 100.0, peak) == {"gflops": 20.0, "pct_peak": 40.0}
    assert roof.rate_columns(2e9, 100.0, peak, threads=2) == {"gflops": 20.0, "pct_peak": 20.0}  # 2 x peak
    assert roof.rate_columns(2e9, 100.0, {}) == {"gflops": 20.0, "pct_peak": None}  # no roof: no percentage
    for flops, ms in ((None, 1.0), (0.0, 1.0), (1e9, None), (1e9, 0.0), (1e9, -1.0)):
        assert roof.rate_columns(flops, ms, peak) == {"gflops": None, "pct_peak": None}


def test_theoretical_peak_formula_and_unknown_cpu():
    th = roof.theoretical_peak("znver3", ghz=2.0)
    lanes = roof.host_isa()[1]
    assert th["gflops"] == pytest.approx(2.0 * lanes * 2 * 2)
    th = roof.theoretical_peak("some-future-cpu", ghz=2.0)
    assert th["gflops"] is None and "unknown" in th["note"]


def test_theoretical_below_measured_is_flagged():
    th = {"gflops": 83.2, "ghz": 2.6, "lanes": 16, "ports": 1, "note": "nominal"}
    assert roof.below_measured(th, 85.0, "rocketlake") is th  # within 5 %: the formula stands
    flagged = roof.below_measured(th, 240.7, "rocketlake")
    assert flagged["below_measured"] and "2.9x" in flagged["note"] and "rocketlake" in flagged["note"]
    assert roof.below_measured({"gflops": None, "note": "unknown"}, 240.7, "x")["gflops"] is None


def test_cli_writes_and_shows(results_dir, capsys):
    assert run_cli(roof._main, ["--show"]) == 2  # nothing cached yet: one error line
    assert run_cli(roof._main, ["--quick", "--seconds", "0.3"]) == 0
    doc = json.loads((results_dir / roof.ROOF_FILE).read_text())
    assert doc["peak_gflops"] > 0 and doc["cpu"] and doc["date"]
    assert run_cli(roof._main, ["--show"]) == 0
    assert "FMA peak" in capsys.readouterr().out


def test_host_check_gives_the_fma_rate_and_the_bandwidth_and_the_line_reads_them_against_the_roof():
    got = roof.host_check(0.1)
    assert got["fma_gflops"] >= got["fma_median_gflops"] > 0  # best of the samples >= their median
    assert 0.1 < got["stream_gbs"] < 2000  # GB/s: 128 MiB arrays stream from memory, not from a cache
    line = roof.host_speed_line({"fma_gflops": 238.1, "fma_median_gflops": 223.7, "stream_gbs": 25.1},
                                {"fma_gflops": 216.7, "fma_median_gflops": 192.3, "stream_gbs": 22.0},
                                {"peak_gflops": 240.7, "bandwidth_gbs": 25.7})
    assert line == ("FMA 238.1 GFLOP/s (median 223.7) before, 216.7 (192.3) after: "
                    "99 % and 90 % of the roof's 240.7; STREAM 25.1 GB/s before, 22.0 after: "
                    "98 % and 86 % of the roof's 25.7")
    no_roof = roof.host_speed_line(got, got, None)  # no roof cached: no percentages
    assert no_roof.endswith(f"STREAM {got['stream_gbs']:.1f} GB/s before, {got['stream_gbs']:.1f} after")
    assert "%" not in no_roof
    # a check taken before the bandwidth was part of it (an older table's): the FMA part alone
    assert roof.host_speed_line({"fma_gflops": 238.1, "fma_median_gflops": 223.7}, got, None).endswith("after")


def test_roof_env_carries_the_roofs_figures_a_table_needs():
    full = {"peak_gflops": 240.7, "sgemm_gflops": 200.9, "bandwidth_gbs": 16.1, "date": "d", "fma": {"x": 1}}
    assert roof.roof_env(full) == {"peak_gflops": 240.7, "sgemm_gflops": 200.9, "bandwidth_gbs": 16.1, "date": "d"}
    assert roof.roof_env({"peak_gflops": 1.0})["bandwidth_gbs"] is None  # a missing figure is named, not dropped
