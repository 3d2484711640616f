"""Tests of lab02_tvm.measure.peers on test-size BERT (2 layers, hidden 128, sequence 16).

The reference is PyTorch eager on the same inputs; every peer is gated with ``|d| <= peers.ATOL``
(1e-3 absolute; hidden states of magnitude ~3). torch.compile is left out under ``CI=true`` (its
first compilation costs about a minute on 2 cores); a TVM untuned build stands in for the TVM rows.
"""
from __future__ import annotations

import numpy as np
import pytest

from common.budget import ci
from lab02_tvm.measure import peers

pytestmark = pytest.mark.lab02

ROOF = {"peak_gflops": 100.0, "bandwidth_gbs": 20.0, "sgemm_gflops": 90.0, "date": "test"}


@pytest.fixture(scope="module")
def bundle():
    from common.models import build_bert
    return build_bert(small=True, seq=16)


def test_peers_rows_are_gated_and_timed_with_ratios(bundle, results_dir):
    from lab02_tvm.build import build_and_check, host_target
    from lab02_tvm.graph.frontend import import_torch
    from lab02_tvm.graph.passes import run_standard_passes
    im = import_torch(bundle)
    fns = {"tvm_untuned": build_and_check(im, run_standard_passes(im.mod).fused_mod, {**host_target(), "num-cores": 1},
                                          stage="tvm_untuned").runner}
    ref = bundle.run()

    def broken():  # a peer whose outputs are off by 1.0 must fail its gate and not be timed
        return {k: v + 1.0 for k, v in ref.items()}

    rows = peers.compare_peers(bundle, tvm={**fns, "broken": broken}, compile_=not ci(), repeats=3, roof=ROOF)
    by = {r["peer"]: r for r in rows}
    assert {"pytorch_eager", "onnxruntime", "tvm_untuned", "broken"} <= set(by)
    assert by["pytorch_eager"]["vs_eager"] == 1.0 and by["pytorch_eager"]["max_abs_err"] == 0.0
    for name in ("onnxruntime", "tvm_untuned") + (() if ci() else ("torch_compile",)):
        r = by[name]
        assert r["status"] == "ok", r
        assert r["max_abs_err"] <= peers.ATOL
        assert r["vs_eager"] == pytest.approx(by["pytorch_eager"]["median_ms"] / r["median_ms"], rel=1e-2)
        assert r["p10_ms"] <= r["median_ms"] <= r["p90_ms"] and r["n"] == 3
        assert r["gflops"] == pytest.approx(1e3 * r["gflop"] / r["median_ms"], rel=2e-2, abs=0.01)  # GFLOP/(ms*1e-3)
        assert r["pct_peak"] == pytest.approx(r["gflops"], abs=0.06)  # peak is 100 GFLOP/s
    assert by["broken"]["status"].startswith("gate failed") and by["broken"]["median_ms"] is None
    assert by["pytorch_eager"]["gflop"] > 0
    paths = peers.write_peers(rows, name="peers_test", roof=ROOF)
    assert "onnxruntime" in paths["md"].read_text()


def test_flop_count_of_bert_small_matches_hand_count(bundle):
    # per layer: Q,K,V,O projections 4 * 2*S*H*H, FFN 2 * 2*S*H*I, attention QK^T and PV 2 * 2*S*S*H;
    # pooler 2*H*H (one token)
    s, h, i, layers = 16, 128, 512, 2
    per_layer = 4 * 2 * s * h * h + 2 * 2 * s * h * i + 2 * 2 * s * s * h
    assert bundle.flops() == layers * per_layer + 2 * h * h


def test_gate_choice_and_output_naming():
    kw, desc = peers.gate_kwargs("resnet50")
    assert kw["scale_atol_by_ref"] and "relative" in desc
    kw, desc = peers.gate_kwargs("bert")
    assert kw == {"atol": peers.ATOL} and "absolute" in desc
    out = peers._named((np.zeros(2), [np.ones(3)]), ["a", "b"])
    assert list(out) == ["a", "b"] and out["b"].shape == (3,)
    from lab02_tvm.models import build_bundle
    with pytest.raises(peers.UserError):
        build_bundle("resnet18")


def test_torch_compile_skipped_with_reason_without_cxx(bundle, monkeypatch, tmp_path):
    monkeypatch.setattr(peers, "cxx_compiler", lambda: None)
    fns, skipped = peers.torch_peers(bundle, tmp_path, ort=False)
    assert set(fns) == {"pytorch_eager"} and "C++ compiler" in skipped["torch_compile"]
