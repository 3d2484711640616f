"""fp16 in TVM: fp16 accumulation fails the per-layer gate, fp32 accumulation (the fix) passes.

Test-size ResNet (common.models small=True: depths [1, 1, 1, 1], 18 probed layers), three untuned
builds for the host CPU; the fp32 build is first checked against PyTorch eager (independent reference).
"""
from __future__ import annotations

import numpy as np
import pytest

from common.gates import GateError
from debugging import fp16

FP16_ACC, FIX = list(fp16.VARIANTS)[1:]


@pytest.fixture(scope="module")
def resnet_small():
    from common.models import build_resnet50

    builds = fp16.build_variants(build_resnet50(small=True, image=64))
    return builds, fp16.run_all(builds, 1.0)


def test_fp32_build_matches_pytorch_layer_by_layer(resnet_small):
    builds, outs = resnet_small
    assert len(builds.layers) == 18 and builds.layers[0].endswith("embedder.convolution")
    rows = fp16.layer_rows(outs["pytorch"], outs["fp32"], builds.layers + ["logits"])
    assert all(r["finite"] for r in rows)
    assert max(r["rel"] for r in rows) < 1e-4  # fp32 reassociation only (seed bound; measured 1.4e-6 to 1.8e-6)


def test_fp16_accumulation_fails_the_gate_and_names_the_layer(resnet_small):
    builds, outs = resnet_small
    rows = fp16.layer_rows(outs["fp32"], outs[FP16_ACC], builds.layers)
    with pytest.raises(GateError) as err:
        fp16.gate_layers(rows, FP16_ACC)
    bad = fp16.first_bad(rows)
    assert bad["layer"] in str(err.value) and bad["rel"] > fp16.TOL
    # everything before the named layer is within tolerance (it is the *first* bad layer)
    assert all(r["rel"] <= fp16.TOL for r in rows[:rows.index(bad)])


def test_fp32_accumulation_fix_passes_the_gate(resnet_small):
    builds, outs = resnet_small
    rows = fp16.layer_rows(outs["fp32"], outs[FIX], builds.layers)
    fp16.gate_layers(rows, FIX)
    worst_fix = max(r["rel"] for r in rows)
    worst_fp16 = max(r["rel"] for r in fp16.layer_rows(outs["fp32"], outs[FP16_ACC], builds.layers))
    assert worst_fix < worst_fp16 / 3  # fp32 accumulation is several times closer
    assert worst_fix > 2.0 ** -14  # but still fp16 storage: not bit-exact


def test_layer_rows_flag_inf_and_nan_first():
    ref = {"a": np.ones(4), "b": np.ones(4), "c": np.ones(4)}
    cand = {"a": np.ones(4) * 1.001, "b": np.array([1, np.inf, 1, 1.0]), "c": np.array([np.nan, 1, 1, 1.0])}
    rows = fp16.layer_rows(ref, cand, ["a", "b", "c"])
    assert [r["finite"] for r in rows] == [True, False, False]
    assert rows[0]["rel"] == pytest.approx(1e-3)
    assert fp16.first_bad(rows)["layer"] == "b"


def test_summary_row_keeps_numbers_as_numbers():
    # three hand-made layers, the last two graph outputs: b beyond 1 %, c inf/NaN
    ref = {"a": np.ones(4), "b": np.ones(4), "c": np.ones(4)}
    cand = {"a": np.ones(4) * 1.001, "b": np.ones(4) * 1.02, "c": np.array([np.nan, 1, 1, 1.0])}
    row = fp16.summary_row("m", "x", "fp16", fp16.layer_rows(ref, cand, ["a", "b", "c"]), ["b", "c"], 1.0)
    assert row["first_bad_layer"] == "b" and row["first_bad_rel"] == pytest.approx(0.02)
    assert row["first_nonfinite_layer"] == "c" and row["nonfinite_layers"] == 1
    assert row["rel_b"] == pytest.approx(0.02) and row["rel_c"] == float("inf") and "rel_a" not in row
    assert row["worst_finite_rel"] == pytest.approx(0.02) and row["gate"] == "fail"
    clean = fp16.summary_row("m", "x", "fp32", fp16.layer_rows(ref, ref, ["a"]), [], 1.0)
    assert clean["first_bad_layer"] is None and clean["first_nonfinite_layer"] is None and clean["gate"] == "pass"
    assert not any(k.startswith("rel_") for k in clean)  # no outputs named: no output columns


def test_reduction_order_sum_of_fp16_ones():
    rows = {r["by"]: r["value"] for r in fp16.reduction_order_rows(4096)}
    assert rows["TVM R.sum"] == 2048.0  # 2048 + 1 rounds to 2048 in binary16
    assert rows["PyTorch torch.sum"] == 4096.0
    assert rows["NumPy sequential loop"] == 2048.0


def test_padding_avgpool_border_divisor_matches_pytorch():
    rows = fp16.padding_rows(cases=((False, True),))  # valid-only divisor + a window past the padding
    assert [r["shape"] for r in rows] == ["1x2x4x4", "1x2x4x4"]  # ceil_mode adds the 4th window
    # both rows pool in float32 (measured 0 for each); TVM and PyTorch, any order: <= 8 adds of n <= 9 positive
    # terms <= 5.4 (x = N(0, 1) + 3), then / n (2 roundings): 2 * 10 * 5.4 * 2^-24 = 6.4e-6; divisor 9 for 4: > 1
    assert all(r["shape_matches_pytorch"] and r["max_abs_vs_pytorch"] < 1e-5 for r in rows)
