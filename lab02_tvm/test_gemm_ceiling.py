"""The GEMM ceiling (``lab02_tvm.measure.gemm_ceiling``): the shapes it reads off a model, the products it times.

References: PyTorch's own ``conv2d`` and ``F.unfold`` (the implicit GEMM of a convolution) and float64 NumPy
(each library's product).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from lab02_tvm.measure import gemm_ceiling as gc


class _Tiny(torch.nn.Module):
    """A linear layer used twice, a strided padded conv, a grouped conv (not a GEMM) and a second linear."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 16)
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.dw = torch.nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.head = torch.nn.Linear(16, 5)

    def forward(self, x, img):
        y = self.head(self.fc(self.fc.weight.new_ones(2, 3, 8)) + self.fc(x))
        return y, self.dw(self.conv(img))


def test_model_gemms_reads_linear_and_conv_shapes_and_counts_calls():
    torch.manual_seed(0)
    gemms = gc.model_gemms(_Tiny().eval(), {"x": torch.randn(2, 3, 8), "img": torch.randn(1, 3, 9, 9)})
    # (9 + 2 - 3) // 2 + 1 = 5: the conv's output is 5 x 5; the grouped conv is not a GEMM and is left out
    assert [(g.op, g.m, g.k, g.n, g.calls) for g in gemms] == [
        ("linear 8->16", 6, 8, 16, 2), ("linear 16->5", 6, 16, 5, 1), ("conv 3x3 3->4 stride 2 at 5x5", 25, 27, 4, 1)]
    assert gemms[2].flops == 2 * 25 * 27 * 4


def test_a_batch_multiplies_m():
    conv = torch.nn.Conv2d(3, 4, 1)
    (g,) = gc.model_gemms(conv, {"input": torch.randn(2, 3, 5, 5)})
    assert (g.m, g.k, g.n) == (2 * 5 * 5, 3, 4)


def test_a_convolution_is_its_implicit_gemm():
    """The rule the conv rows rest on: conv2d(x, W) == W.view(Cout, Cin kh kw) @ unfold(x), M = Ho Wo columns."""
    torch.manual_seed(1)
    conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False)
    x = torch.randn(1, 3, 9, 9)
    (g,) = gc.model_gemms(conv, {"input": x})
    cols = torch.nn.functional.unfold(x, 3, padding=1, stride=2)  # [1, K, M]
    assert tuple(cols.shape[1:]) == (g.k, g.m)
    gemm = (conv.weight.view(g.n, g.k) @ cols[0]).view(1, g.n, 5, 5)
    # float32 sums over K = 27 terms of unit-scale products: 1e-5 is ~100 ulps of the outputs' scale
    torch.testing.assert_close(gemm, conv(x), atol=1e-5, rtol=1e-5)


def test_every_library_computes_the_product_and_a_wrong_one_is_caught():
    g = gc.Gemm("test", 5, 7, 3)
    fns, ref = gc.library_calls(g)
    assert set(fns) == set(gc.LIBRARIES)
    for lib, fn in fns.items():
        out = fn()
        assert out.shape == (5, 3) and out.dtype == np.float32
        assert gc.check_against(ref, out, lib) <= gc.RTOL
    with pytest.raises(AssertionError, match="max \\|d\\|"):
        gc.check_against(ref, fns["numpy"]() + 1e-2 * np.abs(ref).max(), "shifted")


def test_time_gemm_row_is_consistent():
    g = gc.Gemm("test", 32, 64, 48, calls=3)
    row = gc.time_gemm(g, repeats=2, peak_gflops=100.0, evict=gc.evictor(1 << 20))
    flops = 2 * 32 * 64 * 48
    for lib in gc.LIBRARIES:
        for run in ("", "_cold"):
            ms = row[f"{lib}{run}_ms"]
            assert ms > 0
            # % of a 100 GFLOP/s peak = GFLOP/s = 2 M K N / ms; ms is kept to 4 significant digits (5e-4
            # relative) and the % to 0.1
            expected = flops / ms / 1e6
            assert abs(row[f"{lib}{run}_pct_peak"] - expected) <= 5e-4 * expected + 0.051
    assert row["best"] == min(gc.LIBRARIES, key=lambda lib: row[f"{lib}_ms"])
    assert row["best_cold"] == min(gc.LIBRARIES, key=lambda lib: row[f"{lib}_cold_ms"])
    assert row["best_gflops"] == pytest.approx(row["best_pct_peak"], abs=0.11)
    assert row["max_rel_err"] <= gc.RTOL and row["inner"] >= 1


def _clocked(seconds: dict[str, float], monkeypatch):
    """Stand-ins for the libraries that take a known time on a fake clock and return the right product: each call
    moves ``time.perf_counter`` (the clock :mod:`common.timing` and the module read) on by its library's seconds, so
    the timings are exact whatever the machine's load (a sleep overshoots by the scheduler's latency)."""
    import time
    clock = {"now": 1000.0}
    monkeypatch.setattr(time, "perf_counter", lambda: clock["now"])
    real_calls = gc.library_calls

    def calls(g, seed=0):
        fns, ref = real_calls(g, seed)
        out = fns["numpy"]()

        def make(lib):
            def fn():
                clock["now"] += seconds[lib]
                return out
            return fn
        return {lib: make(lib) for lib in gc.LIBRARIES}, ref
    return calls


def test_time_gemm_reports_ms_per_call(monkeypatch):
    """Warm samples repeat the call ``inner`` times; the row's ms is per call (stand-ins of 2, 3, 4 ms on a fake
    clock: exact, so a missing division by ``inner`` would read 10x)."""
    monkeypatch.setattr(gc, "library_calls", _clocked({"numpy": 2e-3, "torch": 3e-3, "onnxruntime": 4e-3}, monkeypatch))
    monkeypatch.setattr(gc, "SAMPLE_S", 20e-3)
    row = gc.time_gemm(gc.Gemm("test", 4, 4, 4), repeats=3, peak_gflops=None, evict=lambda: None)
    assert row["inner"] == 10  # SAMPLE_S (20 ms) over the first call's 2 ms
    for lib, ms in (("numpy", 2.0), ("torch", 3.0), ("onnxruntime", 4.0)):
        # 4 significant digits kept (time_gemm's rounding): 1e-9 relative leaves only float summation error
        assert row[f"{lib}_ms"] == pytest.approx(ms, rel=1e-9) and row[f"{lib}_cold_ms"] == pytest.approx(ms, rel=1e-9), (lib, row)
        assert row[f"{lib}_pct_peak"] is None
    assert row["best"] == row["best_cold"] == "numpy"
    assert gc.summary_line(row).endswith("ms (warm / cold)")  # no roof: ms, not "None %"


def test_measure_gemms_times_every_library_at_one_thread(monkeypatch):
    from threadpoolctl import threadpool_info
    seen = []

    def calls(g, seed=0):
        fns, ref = real(g, seed)

        def probe(fn):
            def run():
                seen.append((torch.get_num_threads(),
                             {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}))
                return fn()
            return run
        return {lib: probe(fn) for lib, fn in fns.items()}, ref
    real = gc.library_calls
    torch.set_num_threads(2)
    monkeypatch.setattr(gc, "library_calls", calls)
    gc.measure_gemms([gc.Gemm("test", 8, 8, 8)], repeats=1, progress=False)
    assert seen and all(t == 1 and blas == {1} for t, blas in seen)


def test_numpy_blas_is_numpys_own():
    """Against NumPy's own build record (its OpenBLAS version), not the first BLAS loaded (SciPy's, once imported)."""
    import scipy.linalg  # noqa: F401  (loads SciPy's OpenBLAS beside NumPy's)
    version = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["version"]
    assert gc.blas_names()["numpy_blas"].endswith(" " + version)


def test_cold_run_evicts_before_every_call_and_runs_each_once_a_round():
    log = []
    fns = {k: (lambda k=k: log.append(k)) for k in "abc"}
    stats = gc.cold_run(fns, repeats=4, evict=lambda: log.append("evict"))
    assert {k: s.n for k, s in stats.items()} == {"a": 4, "b": 4, "c": 4}
    assert log[0::2] == ["evict"] * 12 and sorted(log[1::2]) == sorted("abc" * 4)
    assert all(sorted(log[1::2][i:i + 3]) == list("abc") for i in range(0, 12, 3))


def test_evictor_touches_its_whole_buffer():
    evict = gc.evictor(4096)
    evict()
    evict()
    (buf,) = [c.cell_contents for c in evict.__closure__]
    assert buf.nbytes == 4096 and np.all(buf == 3.0)


def test_main_writes_the_table_slowest_first(results_dir):
    assert gc.main(["--model", "llama_tiny_s32", "--repeats", "1"]) == 0
    doc = json.loads((results_dir / "lab02" / "gemm_ceiling_llama_tiny_s32.json").read_text())
    rows = doc["rows"]
    assert rows and all(r["op"].startswith("linear") for r in rows)
    totals = [r["best_cold_total_ms"] for r in rows]
    assert totals == sorted(totals, reverse=True)
    for r in rows:  # the sort key: calls x the fastest library's cold ms
        assert r["best_cold_total_ms"] == pytest.approx(r["calls"] * r[f"{r['best_cold']}_cold_ms"], abs=1e-3)
        assert r[f"{r['best_cold']}_cold_ms"] == min(r[f"{lib}_cold_ms"] for lib in gc.LIBRARIES)
    assert doc["env"]["threads"] == 1 and "numpy_blas" in doc["env"]


def test_main_quick_writes_its_own_table(results_dir):
    assert gc.main(["--model", "llama_tiny_s32", "--quick", "--repeats", "1"]) == 0
    doc = json.loads((results_dir / "lab02" / "gemm_ceiling_llama_tiny_s32_quick.json").read_text())
    assert doc["meta"]["quick"] is True and "(reduced)" in doc["title"]
    assert not (results_dir / "lab02" / "gemm_ceiling_llama_tiny_s32.json").exists()


def test_main_names_an_unwritable_results_folder_before_timing(tmp_path, monkeypatch):
    from common.errors import UserError
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("MLC_RESULTS_DIR", str(tmp_path / "file" / "sub"))
    monkeypatch.setattr(gc, "measure_model", lambda *a, **k: pytest.fail("timed before checking the folder"))
    with pytest.raises(UserError, match="cannot create the results folder .*MLC_RESULTS_DIR"):
        gc.main(["--model", "bert"])


def test_main_rejects_a_bad_name(results_dir):
    from common.errors import UserError
    with pytest.raises(UserError, match="--name"):
        gc.main(["--model", "bert", "--name", "../x"])


def test_pipeline_step_11_writes_the_ceiling_of_each_studied_model(results_dir, capsys, monkeypatch):
    """Step 11 with no builds to profile still measures the studied models' GEMMs (LLaMA-tiny has no hot op)."""
    from lab02_tvm.models import build_bundle
    from lab02_tvm.pipeline import steps
    from lab02_tvm.pipeline.run import settings
    monkeypatch.setenv("CI", "true")  # 2 rounds a shape
    s = settings(["--quick", "--model", "all"])
    p = steps.Products(bundles={m: build_bundle(m, quick=True) for m in ("bert", "llama_tiny_s32")})
    p.ims = dict.fromkeys(p.bundles)
    steps.roofline(s, p)
    assert "[11 gemm-ceiling] bert: linear" in capsys.readouterr().out
    doc = json.loads((results_dir / "lab02" / "gemm_ceiling_bert_quick.json").read_text())
    # the reduced BERT (hidden 128, 2 layers, sequence 128): Q, K, V, O and the MLP's two, per layer
    assert {(r["m"], r["k"], r["n"]) for r in doc["rows"] if r["calls"] > 1} >= {(128, 128, 128)}
    assert doc["meta"]["repeats"] == 2 and "host_speed" in doc["env"]
    assert not (results_dir / "lab02" / "gemm_ceiling_llama_tiny_s32_quick.json").exists()
