"""Tests for the shared layer: gates, timing statistics, results round-trip and diff, data, models."""
from __future__ import annotations

import json
import math
import os
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from hypothesis.extra import numpy as hnp

from common import budget, data, gates, results, results_diff, timing
from common.errors import MissingDependency, UserError, require, run_cli


# ---- gates -------------------------------------------------------------------------------------

def test_gate_fails_2e4_error_at_atol_1e4_and_passes_5e5():
    ref = {"y": np.zeros((4, 4), np.float32)}
    bad = {"y": ref["y"].copy()}
    bad["y"][1, 2] = 2e-4
    good = {"y": np.full((4, 4), 5e-5, np.float32)}
    with pytest.raises(gates.GateError) as exc:
        gates.gate(ref, bad, atol=1e-4)
    row = exc.value.report.rows[0]
    assert row["mismatches"] == 1 and row["mismatch_frac"] == pytest.approx(1 / 16)
    assert row["max_abs"] == pytest.approx(2e-4, rel=1e-3)
    assert gates.gate(ref, good, atol=1e-4).passed


def test_gate_order_names_then_shapes_then_dtypes():
    ref = {"a": np.zeros(3, np.float32), "b": np.zeros(3, np.float32)}
    r = gates.compare(ref, {"a": np.zeros(3, np.float32)}, atol=1e-4)
    assert not r.passed and "names" in r.first_failure
    r = gates.compare(ref, {"a": np.zeros(4, np.float32), "b": np.zeros(3, np.float32)}, atol=1e-4)
    assert "shape" in r.first_failure
    r = gates.compare(ref, {"a": np.zeros(3, np.float64), "b": np.zeros(3, np.float32)}, atol=1e-4)
    assert "dtype" in r.first_failure


def test_gate_reports_first_failure_in_check_order_not_output_order():
    ref = {"a": np.zeros(3, np.float32), "b": np.zeros(3, np.float32), "c": np.zeros(3, np.float32)}
    values_a = np.ones(3, np.float32)
    # a: wrong values, b: wrong dtype, c: wrong shape -> the shape problem is reported first
    r = gates.compare(ref, {"a": values_a, "b": np.zeros(3, np.float64), "c": np.zeros(4, np.float32)}, atol=1e-4)
    assert r.first_failure.startswith("c: shape")
    assert [row["status"] for row in r.rows] == ["values", "dtype", "shape"]  # rows stay in output order
    # a: wrong values, b: wrong dtype -> dtype before values
    r = gates.compare(ref, {"a": values_a, "b": np.zeros(3, np.float64), "c": ref["c"]}, atol=1e-4)
    assert r.first_failure.startswith("b: dtype")
    # a: wrong shape, c missing, d unexpected -> names before shapes
    r = gates.compare(ref, {"a": np.zeros(2, np.float32), "b": ref["b"], "d": ref["c"]}, atol=1e-4)
    assert r.first_failure == "output names differ: missing ['c'], unexpected ['d']"
    assert [row["status"] for row in r.rows] == ["shape", "ok", "missing", "unexpected"]
    # only values wrong: the first failing output in order, with where it first differs
    bad_b = np.array([0, 0, 1], np.float32)
    r = gates.compare(ref, {"a": values_a, "b": bad_b, "c": ref["c"]}, atol=1e-4)
    assert r.first_failure.startswith("a: 3 of 3 elements") and "first at [0]" in r.first_failure


def test_diff_stats_known_answer():
    ref = np.array([[1.0, 2.0], [3.0, 4.0]])
    cand = np.array([[1.0, 2.5], [3.0, 4.0 + 1e-6]])
    st = gates.diff_stats(ref, cand, atol=1e-3, rtol=0.0)
    assert st["mismatches"] == 1 and st["first_bad"] == (0, 1) and st["mismatch_frac"] == 0.25
    assert st["max_abs"] == pytest.approx(0.5) and st["max_rel"] == pytest.approx(0.25)
    assert (st["atol"], st["rtol"], st["size"]) == (1e-3, 0.0, 4)
    assert gates.diff_stats(ref, cand, atol=0.0, rtol=0.3)["mismatches"] == 0  # 0.5 <= 0.3 * 2
    with pytest.raises(ValueError, match="one shape"):
        gates.diff_stats(ref, ref[0], atol=0.0)
    with pytest.raises(ValueError):
        gates.diff_stats(ref, ref, atol=-1.0)


def test_diff_stats_infinities_integers_and_strings():
    inf = np.inf
    assert gates.diff_stats([inf, -inf], [inf, -inf], atol=0.0)["mismatches"] == 0
    st = gates.diff_stats([inf, 1.0], [-inf, 1.0], atol=0.0)
    assert st["mismatches"] == 1 and st["max_abs"] == inf and st["first_bad"] == (0,)
    # rtol * |inf| is an infinite tolerance: an infinity must still match only itself
    assert gates.diff_stats([inf], [5.0], atol=0.0, rtol=0.1)["mismatches"] == 1
    st = gates.diff_stats(np.array([1, 2, 3]), np.array([1, 2, 5]), atol=10.0)  # integers: exact
    assert (st["mismatches"], st["max_abs"], st["atol"], st["first_bad"]) == (1, 2.0, 0.0, (2,))
    st = gates.diff_stats(np.array(["a", "b"]), np.array(["a", "c"]), atol=0.0)
    assert st["mismatches"] == 1 and st["first_bad"] == (1,) and st["max_abs"] == inf
    assert gates.diff_stats(np.zeros((0, 3)), np.zeros((0, 3)), atol=0.0)["mismatches"] == 0


@settings(max_examples=200)
@given(pairs=hnp.arrays(np.float64, st_.integers(1, 12), elements=st_.floats(allow_nan=True, allow_infinity=True,
                                                                            width=32)).flatmap(
    lambda r: st_.tuples(st_.just(r), hnp.arrays(np.float64, r.shape, elements=st_.floats(width=32)))),
       atol=st_.sampled_from([0.0, 1e-6, 1e-2]), rtol=st_.sampled_from([0.0, 1e-5, 0.1]))
def test_diff_stats_agrees_with_numpy_isclose(pairs, atol, rtol):
    ref, cand = pairs
    cand = np.where(np.arange(ref.size) % 3 == 0, ref, cand)  # many exact matches (and equal NaN / inf)
    expected = ~np.isclose(cand, ref, rtol=rtol, atol=atol, equal_nan=True)  # independent reference
    st = gates.diff_stats(ref, cand, atol=atol, rtol=rtol)
    assert st["mismatches"] == int(expected.sum())
    assert st["first_bad"] == (None if not expected.any() else (int(np.argmax(expected)),))
    with_nan = gates.diff_stats(ref, cand, atol=atol, rtol=rtol, nan_policy="fail")
    assert with_nan["mismatches"] == int((expected | np.isnan(ref) | np.isnan(cand)).sum())


def test_one_markdown_table_writer():
    assert gates.rows_to_markdown is results.markdown_table
    text = results.markdown_table([{"a": 1.23456, "b": "x|y"}, {"a": 2e-5}])
    assert text.splitlines() == ["| a | b |", "|---|---|", "| 1.235 | x\\|y |", "| 2e-05 |  |"]
    rep = gates.compare([1.0], [1.0], atol=0.0)
    assert rep.to_markdown() == results.markdown_table(rep.rows).rstrip("\n")


def test_gate_nan_policy():
    ref = np.array([1.0, np.nan, 3.0])
    same = np.array([1.0, np.nan, 3.0])
    one_side = np.array([1.0, 2.0, np.nan])
    assert gates.compare(ref, same, atol=1e-6).passed
    rep = gates.compare(ref, one_side, atol=1e-6)
    assert not rep.passed and rep.rows[0]["mismatches"] == 2
    assert not gates.compare(ref, same, atol=1e-6, nan_policy="fail").passed
    with pytest.raises(ValueError):
        gates.compare(ref, same, atol=1e-6, nan_policy="ignore")


def test_gate_scale_atol_by_reference():
    ref = np.array([90.0, -45.0, 1.0], np.float32)
    cand = ref + np.float32(5e-3)  # 5e-3 abs, ~5.6e-5 of max|ref|
    assert not gates.compare(ref, cand, atol=1e-4).passed
    assert gates.compare(ref, cand, atol=1e-4, scale_atol_by_ref=True).passed


def test_gate_integers_exact_and_chain_table():
    ref = {"ids": np.arange(5), "x": np.ones(2, np.float32)}
    chain = gates.GateChain("ref", ref, atol=1e-5, raise_on_fail=False)
    chain.check("s1", {"ids": np.arange(5), "x": np.ones(2, np.float32)})
    chain.check("s2", {"ids": np.arange(5) + (np.arange(5) == 3), "x": np.ones(2, np.float32)})
    assert [r.passed for r in chain.reports] == [True, False]
    assert {r["stage"] for r in chain.rows} == {"s1", "s2"} and not chain.passed
    assert "| reference |" in chain.to_markdown()
    with pytest.raises(gates.GateError):
        gates.GateChain("ref", ref, atol=1e-5).check("s2", {"ids": np.zeros(5, int), "x": np.ones(2, np.float32)})


def test_gate_accepts_torch_tensors():
    import torch
    t = torch.ones(2, 3)
    assert gates.compare(t, t.numpy() + 1e-7, atol=1e-6).passed


# ---- timing ------------------------------------------------------------------------------------

def test_timing_statistics_from_known_samples():
    st = timing.TimingStats.from_samples([i / 1000 for i in range(1, 11)])  # 1..10 ms
    assert st.median_ms == pytest.approx(5.5)
    assert st.p10_ms == pytest.approx(1.9)
    assert st.p90_ms == pytest.approx(9.1)
    assert st.min_ms == pytest.approx(1.0) and st.n == 10
    with pytest.raises(ValueError):
        timing.TimingStats.from_samples([])


def test_interleaved_runs_every_candidate_once_per_round():
    calls = []
    res = timing.interleaved({k: (lambda k=k: calls.append(k)) for k in "abc"}, warmup=1, repeats=30)
    assert calls[:3] == ["a", "b", "c"]  # warm-up in the given order
    rounds = [calls[i:i + 3] for i in range(3, len(calls), 3)]
    assert len(rounds) == 30 and all(sorted(r) == ["a", "b", "c"] for r in rounds)
    assert rounds == timing.round_orders("abc", 30, after="c")  # round_orders' (seed 0), after the warm-up
    assert all(x != y for x, y in zip(calls, calls[1:]))  # no candidate twice in a row, warm-up included
    assert all(res[k].n == 30 for k in "abc")


def test_round_orders_spread_predecessors_and_never_repeat_a_candidate():
    # The fixed order a, b, c, a, b, c gives each candidate one predecessor in every round; the
    # shuffled rounds must give each both of the others, and every position, many times.
    orders = timing.round_orders("abc", 300, seed=7)
    seq = [x for o in orders for x in o]
    assert all(x != y for x, y in zip(seq, seq[1:]))  # never twice in a row (own warm caches)
    for k in "abc":
        before = [seq[i - 1] for i in range(1, len(seq)) if seq[i] == k]
        for other in set("abc") - {k}:
            assert 0.35 <= before.count(other) / len(before) <= 0.65  # 1/2 expected; 300 rounds, ~5 sd
        for pos in range(3):
            assert 0.2 <= sum(o[pos] == k for o in orders) / 300 <= 0.47  # 1/3 expected
    assert timing.round_orders("abc", 300, seed=7) == orders  # seeded: the same orders again
    two = [x for o in timing.round_orders("ab", 50) for x in o]
    assert all(x != y for x, y in zip(two, two[1:]))  # two candidates: strict alternation


def test_measure_and_environment():
    st = timing.measure(lambda: sum(range(100)), warmup=1, repeats=5)
    assert st.n == 5 and st.p10_ms <= st.median_ms <= st.p90_ms
    env = timing.environment(threads=1, seed=0)
    assert env["threads"] == 1 and env["seed"] == 0 and "torch" in env["packages"]


def test_environment_records_the_load_average(monkeypatch):
    """``load_avg`` is ``os.getloadavg()`` at the time of writing, rounded to 0.01 (the reference: the OS)."""
    monkeypatch.setattr(timing.os, "getloadavg", lambda: (1.234, 0.5, 2.0))
    assert timing.environment()["load_avg"] == {"1min": 1.23, "5min": 0.5, "15min": 2.0}


def test_environment_records_the_measured_roof_when_cached(monkeypatch):
    from common import roof
    cached = {"cpu": timing.cpu_model(), "peak_gflops": 102.3, "sgemm_gflops": 77.8, "bandwidth_gbs": 13.6,
              "date": "2026-12-01T06:38:12+00:00", "fma": {"samples": 133}}
    monkeypatch.setattr(roof, "cached_roof", lambda: cached)
    assert timing.environment()["roof"] == {"peak_gflops": 102.3, "sgemm_gflops": 77.8, "bandwidth_gbs": 13.6,
                                            "date": "2026-12-01T06:38:12+00:00"}
    monkeypatch.setattr(roof, "cached_roof", lambda: None)
    assert "roof" not in timing.environment()

    def broken():
        raise OSError("unreadable")

    monkeypatch.setattr(roof, "cached_roof", broken)
    assert "roof" not in timing.environment()
    monkeypatch.delattr(roof, "cached_roof")
    assert "roof" not in timing.environment()


def test_environment_without_a_roof_cache_has_no_roof(results_dir):
    assert "roof" not in timing.environment()  # an empty results folder holds no roof.json


def test_ort_session_options_levels():
    import onnxruntime  # noqa: F401  (required: conftest fails the run if it is missing)
    so = timing.ort_session_options(1, "BASIC")
    assert so.intra_op_num_threads == 1
    with pytest.raises(ValueError):
        timing.ort_session_options(1, "FASTEST")


# ---- results -----------------------------------------------------------------------------------

def test_results_round_trip_and_diff_flags_changed_cell(results_dir, capsys, monkeypatch):
    rows = [{"model": "resnet50", "median_ms": 10.0, "ok": True}, {"model": "bert", "median_ms": 20.0, "ok": True}]
    paths = results.write_table("labX", "latency", rows, title="Latency", env={"threads": 1}, meta={"seed": 0})
    assert all(p.exists() for p in paths.values())
    doc = results.read_table(paths["json"])
    assert doc["rows"] == rows and doc["env"]["threads"] == 1
    assert "| resnet50 | 10 | True |" in paths["md"].read_text()
    assert paths["csv"].read_text().splitlines()[0] == "model,median_ms,ok"
    # a second "student" run: bert 20 -> 30 ms (+50%), resnet50 10 -> 10.5 (+5%): absolute ms, compared with --all
    other = results_dir / "other"
    monkeypatch.setenv("MLC_RESULTS_DIR", str(other))
    results.write_table("labX", "latency", [{"model": "resnet50", "median_ms": 10.5, "ok": True},
                                           {"model": "bert", "median_ms": 30.0, "ok": True}])
    res = results_diff.diff_paths(results_dir / "labX", other / "labX", threshold=0.10, all_columns=True)
    flagged = [c for c in res.cells if c["flagged"]]
    assert len(res.cells) == 2 and len(flagged) == 1 and flagged[0]["column"] == "median_ms"
    assert flagged[0]["rel_change"] == pytest.approx(0.5) and not res.problems and res.compared == 1
    assert run_cli(results_diff.main, ["--all", str(results_dir / "labX"), str(other / "labX")]) == 1
    assert "1 flagged" in capsys.readouterr().out
    assert run_cli(results_diff.main, [str(results_dir / "labX"), str(results_dir / "labX")]) == 0


def test_long_lists_stay_in_the_json_and_the_markdown_counts_them(results_dir):
    curve = [float(i) for i in range(200)]
    meta = {"trials_ms": curve, "curves": {"NCHW | #1 k": curve, "NHWC | #1 k": curve[:50]}, "top_k": [1, 2]}
    paths = results.write_table("labX", "study", [{"x": 1}], meta=meta)
    md = paths["md"].read_text()
    assert "- **trials_ms**: 200 values (in the JSON)" in md
    assert "- **curves**: 2 series of up to 200 values (in the JSON)" in md
    assert "- **top_k**: [1, 2]" in md and "199.0" not in md
    assert results.read_table(paths["json"])["meta"]["curves"]["NCHW | #1 k"] == curve


def _two_runs(root, rows_a: list[dict], rows_b: list[dict], monkeypatch):
    for side, rows in (("a", rows_a), ("b", rows_b)):
        monkeypatch.setenv("MLC_RESULTS_DIR", str(root / side))
        results.write_table("lab02", "compare", rows)
    return str(root / "a"), str(root / "b")


def test_results_diff_ignores_milliseconds_by_default_and_flags_them_with_all(tmp_path, monkeypatch, capsys):
    base = {"model": "resnet50", "stage": "tuned", "speedup_vs_eager": 1.07, "nodes": 321, "gate": "pass"}
    a, b = _two_runs(tmp_path, [{**base, "median_ms": 110.9, "build_s": 2.1, "gflops": 36.59}],
                     [{**base, "median_ms": 140.2, "build_s": 3.9, "gflops": 32.11}], monkeypatch)
    assert run_cli(results_diff.main, [a, b]) == 0
    out = capsys.readouterr().out
    assert "0 flagged of 3 differing cells" in out and "3 machine-dependent cells not compared" in out
    assert run_cli(results_diff.main, ["--all", a, b]) == 1
    out = capsys.readouterr().out
    assert "gflops: 36.59 -> 32.11  (-12.2%)" in out and "median_ms: 110.9 -> 140.2  (+26.4%)" in out


def test_results_diff_flags_a_changed_speedup_with_its_sign(tmp_path, monkeypatch, capsys):
    rows = [{"model": "bert", "speedup_vs_eager": 0.98, "x_vs_pytorch": 2.0, "% of peak": 40.0}]
    a, b = _two_runs(tmp_path, rows, [{"model": "bert", "speedup_vs_eager": 0.667, "x_vs_pytorch": 2.5,
                                        "% of peak": 41.0}], monkeypatch)
    by_col = {c["column"]: c for c in results_diff.diff_paths(a, b).cells}
    assert by_col["speedup_vs_eager"]["flagged"] and by_col["speedup_vs_eager"]["rel_change"] == pytest.approx(-0.3194, abs=1e-4)
    assert by_col["x_vs_pytorch"]["flagged"] and by_col["x_vs_pytorch"]["rel_change"] == pytest.approx(0.25)
    assert not by_col["% of peak"]["flagged"]  # +2.5% is under the threshold
    assert run_cli(results_diff.main, [a, b]) == 1
    out = capsys.readouterr().out
    assert "speedup_vs_eager: 0.98 -> 0.667  (-31.9%)" in out and "x_vs_pytorch: 2.0 -> 2.5  (+25.0%)" in out


def test_results_diff_compares_errors_as_verdicts_and_text_exactly(tmp_path, monkeypatch):
    row = {"stage": "onnx_opt", "output": "logits", "atol": 1e-4, "max_abs": 3e-6, "status": "ok", "rel_to_scale": 1e-7}
    a, b = _two_runs(tmp_path, [row, {**row, "output": "pooled"}],
                     [{**row, "max_abs": 9e-6, "rel_to_scale": 4e-7}, {**row, "output": "pooled", "max_abs": 2e-4,
                                                                     "status": "values"}], monkeypatch)
    flagged = {(c["row"], c["column"]): c for c in results_diff.diff_paths(a, b).cells if c["flagged"]}
    # rows keyed by the text column that tells them apart (output; stage is the same in every row), so the
    # changed status is a cell, not a missing row
    assert set(flagged) == {("output=pooled", "max_abs"), ("output=pooled", "status")}
    assert flagged[("output=pooled", "max_abs")]["verdict"] == "within -> beyond"
    assert len([c for c in results_diff.diff_paths(a, b, all_columns=True).cells if c["flagged"]]) == 4  # + logits numbers


def test_column_classes_from_name_words():
    cls = results_diff.column_class
    assert [cls(c) for c in ("median_ms", "p10_ms_b1_s128", "build_s_on_cpu_host", "seconds_per_trial", "gflops",
                            "GFLOP/s", "tracker_port", "us_per_node")] == ["machine"] * 8
    assert [cls(c) for c in ("max_abs", "max_abs_err", "rel_to_scale", "torch_cuda_rel_err", "max_abs_logit_diff")
            ] == ["error"] * 5
    assert [cls(c) for c in ("speedup_vs_eager", "x_vs_pytorch", "% of peak", "nodes", "op_Reshape", "params",
                            "mismatches", "relax_ops", "weighted_gflop", "build_errors")] == ["portable"] * 10


def test_results_diff_of_folders_without_tables_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert run_cli(results_diff.main, [str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no results tables" in err[0]


def _latency_rows(threads: int = 1) -> list[dict]:
    return [{"batch": 1, "seq": s, "backend": be, "speedup_vs_eager": x, "threads": threads}
            for s in (32, 128) for be, x in (("eager", 1.0), ("ort", 3.0 + s / 64))]


def test_results_diff_matches_rows_by_their_integer_and_text_key_not_by_position(tmp_path, monkeypatch, capsys):
    rows = _latency_rows()
    # B: the rows of A in another order, one (seq 128, ort) missing, run with 4 threads
    b_rows = [dict(r, threads=4) for r in (rows[1], rows[0], rows[2])]
    a, b = _two_runs(tmp_path, rows, b_rows, monkeypatch)
    assert run_cli(results_diff.main, [a, b]) == 1
    out = capsys.readouterr().out
    assert "! lab02/compare row [seq=128, backend=ort] only in A" in out and "speedup" not in out
    assert "[seq=32, backend=eager] threads: 1 -> 4" in out and "#" not in out
    cells = results_diff.diff_paths(a, b).cells
    assert {(c["row"], c["column"]) for c in cells if c["flagged"]} == {("seq=128, backend=ort", "*")} | {
        (f"seq={r['seq']}, backend={r['backend']}", "threads") for r in b_rows}
    assert results_diff.key_columns(rows, b_rows) == ["seq", "backend"]  # batch (constant) and threads not needed


def test_results_diff_matches_rows_by_position_only_when_no_key_is_unique_and_says_so(tmp_path, monkeypatch, capsys):
    rows = [{"speedup": 1.0, "ratio": 2.0}, {"speedup": 1.0, "ratio": 2.0}, {"speedup": 3.0, "ratio": 4.0}]
    a, b = _two_runs(tmp_path, rows, [*rows[:2], {"speedup": 3.0, "ratio": 8.0}], monkeypatch)
    assert run_cli(results_diff.main, [a, b]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if "position" in line] == [
        "note: lab02/compare: no columns identify its rows in both tables; rows matched by position"]
    assert "! lab02/compare [#3] ratio: 4.0 -> 8.0  (+100.0%)" in out
    assert results_diff.key_columns(rows, rows) is None


def test_results_diff_reports_a_duplicated_row_in_one_line_and_matches_the_others_by_key(tmp_path, monkeypatch,
                                                                                         capsys):
    rows = _latency_rows()
    changed = [*rows[:3], dict(rows[3], speedup_vs_eager=6.0)]  # seq 128, ort: 5.0 -> 6.0 (+20%)
    # B: row 0 twice (exactly, then with another speedup: no key tells the two apart), a real change elsewhere
    for extra in (rows[0], dict(rows[0], speedup_vs_eager=9.0)):
        a, b = _two_runs(tmp_path / str(extra["speedup_vs_eager"]), rows, [rows[0], extra, *changed[1:]],
                         monkeypatch)
        assert run_cli(results_diff.main, [a, b]) == 1
        out = capsys.readouterr().out.splitlines()
        assert [line for line in out if line.startswith("!")] == [
            "! lab02/compare row [seq=32, backend=eager] appears 2 times in B, 1 in A",
            "! lab02/compare [seq=128, backend=ort] speedup_vs_eager: 5.0 -> 6.0  (+20.0%)"], out
        assert not any("position" in line or "#" in line for line in out), out
        assert out[-1].startswith("2 flagged of 2 differing cells")
        assert {(c["row"], c["column"], c["a"], c["b"]) for c in results_diff.diff_paths(a, b).cells if c["flagged"]} \
            == {("seq=32, backend=eager", "*", 1, 2), ("seq=128, backend=ort", "speedup_vs_eager", 5.0, 6.0)}
    # the same duplicate on both sides is no difference; a folder against itself is clean
    a, _ = _two_runs(tmp_path / "both", [rows[0], *rows], [rows[0], *rows], monkeypatch)
    assert run_cli(results_diff.main, [a, a]) == 0
    assert capsys.readouterr().out.startswith("0 flagged of 0 differing cells")


def test_results_diff_of_a_folder_against_a_file_that_is_no_table_is_one_error_naming_it(tmp_path, monkeypatch,
                                                                                           capsys):
    a, _ = _two_runs(tmp_path, _latency_rows(), _latency_rows(), monkeypatch)
    txt = tmp_path / "notes.txt"
    txt.write_text("not a table\n")
    table = str(tmp_path / "a" / "lab02" / "compare.json")
    for argv in ([a, str(txt)], [str(txt), table], [a, table]):
        assert run_cli(results_diff.main, argv) == 2
        cap = capsys.readouterr()
        assert cap.out == "" and len(cap.err.splitlines()) == 1 and cap.err.startswith("error: ")
        assert "notes.json" not in cap.err and ("notes.txt" in cap.err or "a folder" in cap.err)


def test_results_diff_flags_corrupt_tables_in_folders_and_rejects_them_given_by_name(tmp_path, monkeypatch, capsys):
    a, b = _two_runs(tmp_path, _latency_rows(), _latency_rows(), monkeypatch)
    for side in (a, b):
        monkeypatch.setenv("MLC_RESULTS_DIR", side)
        results.write_table("lab02", "gates", [{"model": "bert", "gate": "pass"}])
    broken = tmp_path / "b" / "lab02" / "compare.json"
    broken.write_text("garbage{")  # its .csv and .md stay beside it
    for suffix in (".csv", ".md"):
        (tmp_path / "b" / "lab02" / "gates").with_suffix(suffix).unlink()
    (tmp_path / "b" / "lab02" / "gates.json").write_text('{"foo": 1}')  # at the path of A's table
    assert run_cli(results_diff.main, [a, b]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out if line.startswith("!")] == ["! table lab02/compare in B",
                                                                             "! table lab02/gates in B"]
    assert "not a readable results table" in out[0] and "not a results table" in out[1] and "only in" not in out[0]
    assert "0 of 0 tables compared" in out[-1] and "2 tables on one side only or unreadable" in out[-1]
    assert run_cli(results_diff.main, [str(tmp_path / "a" / "lab02" / "compare.json"), str(broken)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {broken} is not a readable results table")


def test_results_diff_of_csv_or_md_says_it_reads_the_json_beside_it(tmp_path, monkeypatch, capsys):
    a, b = _two_runs(tmp_path, _latency_rows(), _latency_rows(), monkeypatch)
    csv_a, md_b = tmp_path / "a" / "lab02" / "compare.csv", tmp_path / "b" / "lab02" / "compare.md"
    assert run_cli(results_diff.main, [str(csv_a), str(md_b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["note: A is compare.csv: comparing compare.json, the table's JSON beside it",
                       "note: B is compare.md: comparing compare.json, the table's JSON beside it"]
    assert out[2].startswith("0 flagged of 0 differing cells in 0 of 1 tables compared")
    (tmp_path / "b" / "lab02" / "compare.json").unlink()
    assert run_cli(results_diff.main, [str(csv_a), str(md_b)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {md_b} (read from compare.json beside it) is not a readable")


def test_results_diff_rejects_a_negative_threshold_and_says_the_threshold_is_a_fraction(tmp_path, monkeypatch,
                                                                                       capsys):
    a, b = _two_runs(tmp_path, _latency_rows(), _latency_rows(), monkeypatch)
    for bad in (["--threshold", "-1"], ["--threshold", "nan"], ["--tol", "-0.001"]):
        assert run_cli(results_diff.main, [a, b, *bad]) == 2
        cap = capsys.readouterr()
        assert cap.out == "" and len(cap.err.splitlines()) == 1 and cap.err.startswith(f"error: {bad[0]} must be")
    assert run_cli(results_diff.main, [a, b, "--threshold", "10"]) == 0
    assert capsys.readouterr().out.startswith("note: --threshold is a fraction: 10 flags changes over 1000%")
    with pytest.raises(SystemExit):
        results_diff.main(["--help"])
    assert "this fraction" in capsys.readouterr().out


def test_results_diff_rejects_an_infinite_threshold_or_tolerance(tmp_path, monkeypatch, capsys):
    a, b = _two_runs(tmp_path, _latency_rows(), _latency_rows(), monkeypatch)
    for bad in (["--tol", "inf"], ["--threshold", "inf"], ["--tol=-inf"], ["--threshold", "1e999"]):
        assert run_cli(results_diff.main, [a, b, *bad]) == 2, bad
        cap = capsys.readouterr()
        flag = bad[0].split("=")[0]
        assert cap.out == "" and len(cap.err.splitlines()) == 1 and cap.err.startswith(f"error: {flag} must be"), cap
        assert "finite" in cap.err
    with pytest.raises(UserError, match="--tol must be a finite number"):
        results_diff.diff_paths(a, b, tol=math.inf)


def test_results_diff_of_a_path_that_is_neither_folder_nor_file_says_so(tmp_path, monkeypatch, capsys):
    a, _ = _two_runs(tmp_path, _latency_rows(), _latency_rows(), monkeypatch)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for argv in ([os.devnull, os.devnull], [a, str(fifo)], [str(fifo), a]):
        assert run_cli(results_diff.main, argv) == 2, argv
        cap = capsys.readouterr()
        odd = os.devnull if os.devnull in argv else str(fifo)
        assert cap.out == "" and len(cap.err.splitlines()) == 1, cap
        assert cap.err.startswith(f"error: {odd} is not a folder or a table") and "no results tables" not in cap.err


def test_results_diff_ignores_the_machine_kind_folder_in_paths(tmp_path, monkeypatch, capsys):
    row = {"model": "bert", "onnx": "results/znver4/lab02/bert.onnx", "roof": "results/znver4/roof.json"}
    other = {**row, "onnx": "results/rocketlake/lab02/bert.onnx", "roof": "results/roof.json"}
    a, b = _two_runs(tmp_path, [row, {**row, "model": "t5"}], [other, {**other, "model": "t5",
                                                                       "onnx": "results/rocketlake/lab02/t5.onnx"}],
                     monkeypatch)
    assert run_cli(results_diff.main, ["-v", a, b]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("!")] == [
        "! lab02/compare [model=t5] onnx: results/znver4/lab02/bert.onnx -> results/rocketlake/lab02/t5.onnx"]
    assert "  lab02/compare [model=bert] onnx: results/znver4/lab02/bert.onnx -> results/rocketlake/lab02/bert.onnx"\
        "  (machine folder only)" in out


def test_atomic_write_leaves_no_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "t.json"
    results.atomic_write(target, "old")

    def boom(src, dst):  # the crash happens after the temporary file was written, before the rename
        raise RuntimeError("boom")

    monkeypatch.setattr(results.os, "replace", boom)
    with pytest.raises(RuntimeError, match="boom"):
        results.atomic_write(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def test_a_write_the_file_system_refuses_is_one_line_and_leaves_nothing(tmp_path, capsys):
    """A file where the folder must go (or a read-only tree): :class:`CannotWrite`, a ``UserError`` run_cli prints as
    one line (exit 2) and still an ``OSError`` (errno kept) for code that catches those; no temporary file is left."""
    from common.errors import CannotWrite
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(CannotWrite) as info:
        results.atomic_write(tmp_path / "a_file" / "t.json", "new")
    assert isinstance(info.value, OSError) and info.value.errno is not None
    assert str(info.value).startswith(f"cannot write {tmp_path / 'a_file' / 't.json'}: ")

    def main(argv):
        results.atomic_write(tmp_path / "a_file" / "t.json", "new")

    assert run_cli(main, []) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: cannot write ") and "Errno" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_run_cli_reports_a_ctrl_c_a_native_library_turned_into_another_error(capsys, request):
    """TVM's FFI catches the KeyboardInterrupt of a Python callback and raises a bare RuntimeError (a top-up's search
    stopped with Ctrl-C, 2026-12-05): the run still ends as interrupted, exit 130, one line. (Python's own SIGINT
    handler first, as a terminal's Ctrl-C finds it: pytest started in the background of a shell inherits SIGINT
    ignored, and then no Ctrl-C reaches Python at all.)"""
    import signal
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, old))

    def wrapped(argv):
        try:
            os.kill(os.getpid(), signal.SIGINT)  # the handler raises at once, inside the "native" call
            time.sleep(5)
        except KeyboardInterrupt:
            raise RuntimeError() from None  # what the native layer hands back

    def plain(argv):
        raise RuntimeError("a bug, not a Ctrl-C")

    assert run_cli(wrapped, []) == 130
    assert capsys.readouterr().err == "error: interrupted\n"
    with pytest.raises(RuntimeError, match="a bug"):  # no Ctrl-C: the error stays what it is
        run_cli(plain, [])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def _tree(folder):
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_swap_folder_puts_the_new_tree_in_whole_or_keeps_the_old_one(tmp_path, monkeypatch):
    new, out = tmp_path / "new", tmp_path / "out"
    (new / "sub").mkdir(parents=True)
    (new / "sub" / "a.txt").write_text("new")
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "a.txt").write_text("old")
    (out / "stale.txt").write_text("only in the old tree")
    real = os.replace

    def fails_for_new(src, dst):  # the rename of the new tree fails (after the old one went aside)
        if os.fspath(src) == os.fspath(new):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(results.os, "replace", fails_for_new)
    with pytest.raises(OSError, match=f"cannot write {out}: No space left"):  # CannotWrite: one line naming it
        results.swap_folder(new, out)
    monkeypatch.undo()
    assert _tree(out) == {"stale.txt": "only in the old tree", "sub/a.txt": "old"}  # put back as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "out"]
    assert results.swap_folder(new, out) == out
    assert _tree(out) == {"sub/a.txt": "new"} and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    results.swap_folder(fresh, tmp_path / "made")  # no folder there before: a plain rename
    assert (tmp_path / "made").is_dir() and not fresh.exists()


def test_new_folder_goes_in_whole_or_not_at_all(tmp_path):
    """The block fills a folder beside ``out``; ``out`` becomes it only when the block ends (mode 0755, not
    mkdtemp's 0700); a block that raises leaves ``out`` as it was and nothing beside it; a parent that is a file
    is one :class:`CannotWrite` line."""
    from common.errors import CannotWrite
    out = tmp_path / "out"
    (out / "old.txt").parent.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(RuntimeError, match="stopped"), results.new_folder(out) as tmp:
        (tmp / "half.txt").write_text("half")
        raise RuntimeError("stopped")
    assert _tree(out) == {"old.txt": "old"} and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    with results.new_folder(out) as tmp:
        assert tmp.parent == tmp_path and not (tmp / "old.txt").exists()
        (tmp / "new.txt").write_text("new")
    assert _tree(out) == {"new.txt": "new"} and (out.stat().st_mode & 0o777) == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(CannotWrite, match=f"cannot write {tmp_path / 'file' / 'sub'}: "), \
            results.new_folder(tmp_path / "file" / "sub"):
        pass


def test_nonfinite_values_are_written_as_text(results_dir):
    p = results.write_table("labX", "nan", [{"x": math.nan}])
    assert json.loads(p["json"].read_text())["rows"][0]["x"] == "nan"


# ---- data --------------------------------------------------------------------------------------

def test_data_reads_local_text_file_offline(tmp_path):
    f = tmp_path / "corpus.txt"
    f.write_text("first line\n\n = Heading =\nsecond line\nthird line\n", encoding="utf-8")
    d = data.load_texts(2, local_file=str(f))
    assert d.texts == ("first line", "second line") and "local file" in d.source


def test_data_missing_file_and_fallback(tmp_path, monkeypatch, capsys):
    with pytest.raises(UserError, match="does not exist"):
        data.load_texts(3, local_file=str(tmp_path / "nope.txt"))
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "empty")
    monkeypatch.delenv("MLC_DATA_FILE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data.load_texts.cache_clear()
    d = data.load_texts(7)
    assert len(d.texts) == 7 and "fallback" in d.source
    assert d.texts == tuple(data.fallback_corpus(7))  # deterministic
    assert "notice:" in capsys.readouterr().err


def test_data_folder_file_is_picked_up_without_arguments(tmp_path, monkeypatch):
    """data/wiki.valid.raw (WikiText-2's raw validation file), else the hub's parquet, else $MLC_DATA_FILE first."""
    monkeypatch.setattr(data, "DATA_DIR", tmp_path)
    monkeypatch.delenv("MLC_DATA_FILE", raising=False)
    data.load_texts.cache_clear()
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"text": ["", " = Title = \n", " parquet line \n"]}),
                   tmp_path / "validation-00000-of-00001.parquet")
    assert data.load_texts(1).texts == ("parquet line",)
    (tmp_path / "wiki.valid.raw").write_text(" \n = Valkyria = \n\n Senjō no Valkyria 3 @-@ text \n", encoding="utf-8")
    data.load_texts.cache_clear()
    d = data.load_texts(1)
    assert d.texts == ("Senjō no Valkyria 3 @-@ text",) and "wiki.valid.raw" in d.source
    monkeypatch.setenv("MLC_DATA_FILE", str(tmp_path / "absent.txt"))
    data.load_texts.cache_clear()
    with pytest.raises(UserError, match="absent.txt does not exist"):
        data.load_texts(1)
    data.load_texts.cache_clear()


def test_tokenize_is_byte_level_and_fills_sequence():
    ids = data.tokenize(["ab"], vocab_size=512, seq_len=7)
    assert ids.dtype == np.int64 and ids.tolist() == [[97, 98, 32, 97, 98, 32, 97]]
    assert data.tokenize(["\u00e9"], vocab_size=100, seq_len=2).tolist() == [[0xC3 % 100, 0xA9 % 100]]
    with pytest.raises(UserError):
        data.tokenize([""], 512, 4)


# ---- models, errors, budget --------------------------------------------------------------------

def test_unknown_model_name_is_a_user_error():
    from common.models import build_model
    with pytest.raises(UserError, match="llama_tiny"):
        build_model("gpt5")


def test_llama_tiny_is_seeded_and_matches_its_config():
    from common.models import build_llama_tiny
    a, b = build_llama_tiny(seed=3), build_llama_tiny(seed=3)
    out_a, out_b = a.run(), b.run()
    assert out_a["logits"].shape == (2, 16, 512)
    np.testing.assert_array_equal(out_a["logits"], out_b["logits"])
    inner = a.model.inner
    assert inner.config.num_key_value_heads == 2 and not a.model.training
    norm = inner.model.norm.weight.detach().numpy()
    assert not np.allclose(norm, 1.0)  # randomized, not all-ones


@pytest.mark.parametrize("name, kwargs", [("llama_tiny", {}), ("bert", {"small": True, "seq": 8}),
                                          ("resnet50", {"small": True, "image": 32})])
def test_building_a_model_leaves_the_global_rng_alone_and_is_reproducible(name, kwargs):
    import torch

    from common.models import build_model
    torch.manual_seed(1234)
    before = torch.get_rng_state()
    a = build_model(name, seed=5, **kwargs)
    assert torch.equal(torch.get_rng_state(), before)  # no hidden torch.manual_seed
    b = build_model(name, seed=5, **kwargs)
    sa, sb = a.model.state_dict(), b.model.state_dict()
    assert list(sa) == list(sb) and all(torch.equal(sa[k], sb[k]) for k in sa)
    c = build_model(name, seed=6, **kwargs)
    assert not all(torch.equal(sa[k], v) for k, v in c.model.state_dict().items())


def test_require_names_the_package():
    with pytest.raises(MissingDependency, match="pip install no-such-pkg"):
        require("no_such_module_xyz", "no-such-pkg", "the demo")


def test_budget_pick(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert budget.ci() and budget.pick(100, 3) == 3
    monkeypatch.setenv("CI", "")
    assert not budget.ci() and budget.pick(100, 3) == 100


# ---- required packages and the Hypothesis policy (root conftest.py) ------------------------------

def _pytest_run(*args: str, **env: str):
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=root,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300)


def test_required_distributions_map_to_modules(tmp_path):
    from common.errors import import_name, missing_required, required_distributions
    req = required_distributions()
    assert {"torch", "apache-tvm", "torch-mlir", "iree-base-runtime", "hypothesis"} <= set(req)
    assert missing_required(req) == []  # this install is complete (the conftest enforces it too)
    assert missing_required(["pytest", "no-such-dist-xyz"]) == ["no-such-dist-xyz"]
    assert [import_name(d) for d in ("apache-tvm", "iree-base-compiler", "xtc-mlir-python-bindings", "tqdm")] == [
        "tvm", "iree.compiler", "mlir", "tqdm"]
    fake = tmp_path / "pyproject.toml"
    fake.write_text('[project]\nname = "x"\ndependencies = ["torch==2.13.0", "numpy>=1.26,<3", "a-b[extra] ; python_version>\'3\'"]\n')
    assert required_distributions(fake) == ["torch", "numpy", "a-b"]
    assert required_distributions(tmp_path / "absent.toml") == []


def test_missing_required_package_stops_the_run_with_one_line_each():
    run = _pytest_run("-q", "common/test_common.py::test_budget_pick", MLC_EXTRA_REQUIRED="no-such-dist-xyz")
    assert run.returncode != 0
    lines = [ln for ln in (run.stdout + run.stderr).splitlines() if "no-such-dist-xyz" in ln]
    assert lines == ["missing required package no-such-dist-xyz: run make setup "
                     "(or .venv/bin/pip install -c requirements.lock no-such-dist-xyz)"]
    assert "passed" not in run.stdout  # stopped before any test ran


def test_hypothesis_explores_new_examples_and_prints_a_replayable_seed():
    from hypothesis import settings as hsettings
    for profile in (hsettings.default, hsettings.get_profile("ci")):
        assert not profile.derandomize and profile.print_blob and profile.max_examples == 100
    run = _pytest_run("-q", "common/test_common.py::test_budget_pick", "--hypothesis-seed=7", CI="true")
    assert run.returncode == 0 and "seed 7: replay with --hypothesis-seed=7" in run.stdout
    run = _pytest_run("-q", "common/test_common.py::test_budget_pick", CI="true")
    assert run.returncode == 0 and "profile 'mlc'" in run.stdout and "--hypothesis-seed=" in run.stdout


def test_quick_runs_write_beside_not_over_the_committed_results(monkeypatch, capsys):
    """``--quick`` (reduced models and budgets) points the tables at build/results-quick, so a quick look never
    replaces the full-run tables the READMEs quote; an explicit MLC_RESULTS_DIR wins; no --quick changes nothing."""
    from common.cli import QUICK_RESULTS, parser
    p = parser("python -m x", "x", quick="small budgets")
    monkeypatch.delenv("MLC_RESULTS_DIR", raising=False)
    p.parse_args([])
    assert "MLC_RESULTS_DIR" not in os.environ and results.results_dir("lab01") == results.ROOT / "lab01"
    p.parse_args(["--quick"])
    assert results.results_dir("lab01") == QUICK_RESULTS / "lab01" and "build/results-quick" in capsys.readouterr().out
    assert QUICK_RESULTS.parent.name == "build" and QUICK_RESULTS.parent.parent == results.ROOT.parent
    monkeypatch.setenv("MLC_RESULTS_DIR", "/tmp/mine")
    p.parse_args(["--quick"])
    assert os.environ["MLC_RESULTS_DIR"] == "/tmp/mine"


def test_a_command_turns_a_stub_into_one_line(capsys):
    """In the handout a command (``python -m``: ``run_cli(stubs_as_errors(main))``) reaching a task not written yet
    exits 2 with one ``error:`` line naming the task and the step noted on it; other errors pass through."""
    from common.course.notimpl import NotImplementedTask, naming_stubs, needed_by_every_step, stubs_as_errors

    def main(argv=None):
        exc = NotImplementedTask("lab09.demo", where="f in lab09/mod.py")
        exc.add_note("step build")
        raise exc

    assert run_cli(stubs_as_errors(main), []) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: step build needs a task you have not written yet:") \
        and "lab09.demo" in err[0], err

    def skippable(argv=None):  # a step the pipeline can leave out: the line names the flag that does
        with naming_stubs("unroll", skip="--skip-unroll"):
            raise NotImplementedTask("lab09.demo", where="f in lab09/mod.py")

    assert run_cli(stubs_as_errors(skippable), []) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: step unroll needs a task you have not written yet (or leave "
                                               "the step out: --skip-unroll): "), err

    def first(argv=None):  # a step whose result the later steps read: the line says no flag gets past it
        with naming_stubs("export", later=True):
            raise NotImplementedTask("lab09.demo", where="f in lab09/mod.py")

    assert run_cli(stubs_as_errors(first), []) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: step export needs a task you have not written yet (the steps "
                                               "after it need its result: no --skip- flag gets past it): "), err

    def everywhere(argv=None):  # work every step starts with: no skip flag gets past it, and the line says so
        with naming_stubs("qnn", skip="--skip-qnn"), needed_by_every_step("preparing each model"):
            raise NotImplementedTask("lab09.demo", where="f in lab09/mod.py")

    assert run_cli(stubs_as_errors(everywhere), []) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: step qnn needs a task you have not written yet in preparing "
                                               "each model, which every step runs (no --skip- flag leaves it out): "
                                               "not implemented: task lab09.demo"), err

    def boom(argv=None):
        raise ValueError("not a stub")

    with pytest.raises(ValueError):
        run_cli(stubs_as_errors(boom), [])


def test_a_segfault_in_native_code_names_its_test(tmp_path):
    """TVM's FFI library replaces the SIGSEGV handler of pytest's faulthandler when it loads (its C backtrace goes
    to the captured file descriptor 2 and dies with the process: the run ended with no line). The root conftest
    puts Python's handler back before each test, so the crash prints the test's Python stack."""
    import resource
    import signal
    import subprocess
    import sys
    from pathlib import Path

    test = tmp_path / "test_crash.py"
    test.write_text("import tvm_ffi  # noqa: F401\n\n\ndef test_crashes_in_native_code():\n"
                    "    import ctypes\n    ctypes.string_at(0)\n")
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-c", os.devnull, "--rootdir", str(tmp_path),
                        "-p", "conftest", "-p", "no:cacheprovider", str(test)], cwd=root, capture_output=True,
                       text=True, timeout=300, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
    assert r.returncode == -signal.SIGSEGV, (r.returncode, r.stderr[-2000:])
    assert "Fatal Python error: Segmentation fault" in r.stderr
    assert 'test_crash.py", line 6 in test_crashes_in_native_code' in r.stderr, r.stderr[-2000:]


def test_pytest_run_in_process_with_a_captured_stderr_configures(tmp_path):
    """mutmut runs pytest in its own process with ``sys.stderr`` captured by an object without a file descriptor
    (``fileno()`` raises ``io.UnsupportedOperation``): the root conftest then takes ``sys.__stderr__``'s, as
    pytest's faulthandler does: the run passes (it stopped with INTERNALERROR, exit 3, before), and the
    descriptor the conftest keeps for the faulthandler is the real stderr (same device and inode, ``os.fstat``)."""
    import subprocess
    import sys
    from pathlib import Path

    test = tmp_path / "test_ok.py"
    test.write_text("import os\nimport sys\n\nimport conftest\n\n\n"
                    "def test_the_fault_fd_is_the_real_stderr(request):\n"
                    "    kept = os.fstat(request.config.stash[conftest._FAULT_FD])\n"
                    "    real = os.fstat(sys.__stderr__.fileno())\n"
                    "    assert (kept.st_dev, kept.st_ino) == (real.st_dev, real.st_ino)\n")
    code = ("import io, sys, pytest; sys.stderr = io.StringIO(); "
            f"sys.exit(pytest.main(['-q', '-s', '-c', {os.devnull!r}, '--rootdir', {str(tmp_path)!r}, '-p', 'conftest', "
            f"'-p', 'no:cacheprovider', {str(test)!r}]))")  # -s: fd 2 stays the process's stderr in the test
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stdout[-2000:])
    assert "1 passed" in r.stdout


def test_a_child_pipelines_steps_carry_its_parents_step_number(monkeypatch, capsys):
    """``[N name]`` alone; under ``$MLC_STEP_PREFIX=9.`` (Lab 03's step 9 runs the ladder so) ``[9.N name]``."""
    from common.cli import STEP_PREFIX_ENV, step

    monkeypatch.delenv(STEP_PREFIX_ENV, raising=False)
    assert step(1, "build", "x") == "[1 build] x"
    monkeypatch.setenv(STEP_PREFIX_ENV, "9.")
    assert step(1, "build", "x") == "[9.1 build] x"
    assert capsys.readouterr().out.splitlines() == ["[1 build] x", "[9.1 build] x"]


def test_command_line_records_paths_inside_the_checkout_relative(tmp_path):
    """A table's or PROVENANCE.json's command names no machine's checkout: absolute paths inside it (a flag's
    value or ``--flag=value``) become relative; paths elsewhere and other words stay, shell-quoted."""
    from pathlib import Path

    from common.cli import command_line

    root = Path(__file__).resolve().parents[1]
    got = command_line("lab02_tvm.tuning.longrun", ["tune", "--root", str(root / "build/x"), f"--out={root}/build/y",
                                                   str(tmp_path), "a b"])
    assert got == f"python -m lab02_tvm.tuning.longrun tune --root build/x --out=build/y {tmp_path} 'a b'"


@given(st_.lists(st_.integers(1, 10**6), max_size=5), st_.sampled_from([",", ", ", " ,"]))
def test_positive_ints_reads_what_it_is_given(vals, sep):
    from common.cli import positive_ints
    assert positive_ints("--sizes", sep.join(map(str, vals))) == tuple(vals)  # Python's int() is the reference
    assert positive_ints("--mlp", sep.join(map(str, vals)), len(vals)) == tuple(vals)


@pytest.mark.parametrize("text, count", [("64,-3", None), ("0", None), ("a,2", None), ("1.5", None),
                                         ("4,16", 3), ("4,16,32,8", 3), ("", 3)])
def test_positive_ints_refuses_in_one_line_naming_the_option(text, count):
    from common.cli import positive_ints
    with pytest.raises(UserError) as e:
        positive_ints("--mlp", text, count)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("--mlp must be ") and repr(text) in msg
    assert (f"{count} positive" in msg) if count else "must be positive" in msg
