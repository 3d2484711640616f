"""Tests of lab02_tvm.measure.method_study: one arm end to end on the test-size ResNet, and its bad input.

The arm is the one with every moving part (NHWC via ConvertLayout, weight layout rewrite: the
build renames the kernel ``<task>_prepacked``), tuned 3 trials with the cache flushed, built whole,
gated against PyTorch (``build.gate_for``) and timed in the model; the reference for the best-so-far
curve is the database's own records (a running minimum can only fall).
"""
from __future__ import annotations

import numpy as np
import pytest

from common.errors import UserError
from lab02_tvm.measure import method_study

pytestmark = pytest.mark.lab02


@pytest.mark.slow
def test_one_arm_is_tuned_built_gated_and_timed_in_the_model(resnet_small_im, tmp_path):
    res = method_study.study(resnet_small_im, "resnet50", top_k=1, trials=3, arms=["NHWC + rewrite"],
                             work_root=tmp_path, progress=False)
    (row,) = res["rows"]
    assert row["arm"] == "NHWC + rewrite" and "conv2d" in row["task"] and row["trials"] >= 3
    assert row["best_ms"] > 0 and row["model_ms"] is not None and row["model_ms"] > 0  # found under _prepacked
    (ys,) = res["curves"].values()
    finite = [y for y in ys if np.isfinite(y)]
    assert finite and all(b <= a for a, b in zip(finite, finite[1:]))  # best so far never rises
    assert finite[-1] == pytest.approx(row["best_ms"], rel=1e-3, abs=1e-4)
    assert len(ys) == row["trials"]  # one point per committed record, in commit order


def test_unknown_model_or_arm_is_one_line(resnet_small_im):
    with pytest.raises(UserError, match="no method study for 'llama_tiny'"):
        method_study.study(resnet_small_im, "llama_tiny", top_k=1, trials=1)
    with pytest.raises(UserError, match="unknown arm"):
        method_study.study(resnet_small_im, "resnet50", top_k=1, trials=1, arms=["NCHW16c"])


@pytest.mark.slow
def test_the_tile_arm_tensorizes_the_matmul_and_the_build_matches_pytorch(bert_small_im, tmp_path):
    """The register-tile arm on test-size BERT's hottest matmul: a tile is chosen for it, the committed
    records replay ``tensorize`` with that tile (a build from them needs it registered), and the whole
    model built from them passes the output gate against PyTorch (``run_arm`` raises otherwise)."""
    from lab02_tvm.lowering import intrin
    from lab02_tvm.tuning.database import read_database
    res = method_study.study(bert_small_im, "bert", top_k=1, trials=3, arms=["rewrite + tile"],
                             work_root=tmp_path, progress=False)
    (row,) = res["rows"]
    mr, nr = map(int, row["tile"].split("x"))  # "not applicable: ..." would fail here
    assert (mr, nr) in intrin.TILES[intrin.vector_width(res["target"])]
    name = intrin.intrin_name(mr, nr, width=intrin.vector_width(res["target"]))
    traces = [str(rec) for _, rec in read_database(tmp_path / "rewrite_plus_tile").records]
    assert any(name in t for t in traces), f"no record of the tile arm uses {name}"
    assert row["model_ms"] is not None and row["model_ms"] > 0


def test_merge_keeps_the_other_arms_and_refuses_another_budget():
    """``--merge``: a second run's arms replace their own rows and curves, the earlier table's other arms stay,
    in ``ARMS`` order; an earlier table at another budget is not merged (its numbers are not comparable)."""
    def row(arm, rank, ms):
        return {"model": "resnet50", "arm": arm, "rank": rank, "task": f"conv{rank}", "model_ms": ms}

    earlier = {"meta": {"trials_per_kernel": 200, "top_k": 2,
                        "curves": {"NHWC | #1 conv1": [3.0, 2.0], "NCHW | #1 conv1": [4.0, 3.5]}},
               "rows": [row("NHWC", 1, 2.0), row("NHWC", 2, 2.5), row("NCHW", 1, 3.5), row("NCHW", 2, 3.9)]}
    res = {"rows": [row("NCHW", 1, 3.0), row("NCHW", 2, 3.1)], "curves": {"NCHW | #1 conv1": [3.2, 3.0]}, "target": {}}
    got = method_study.merge_earlier(res, earlier, trials=200, top_k=2)
    assert [(r["arm"], r["rank"], r["model_ms"]) for r in got["rows"]] == [
        ("NCHW", 1, 3.0), ("NCHW", 2, 3.1), ("NHWC", 1, 2.0), ("NHWC", 2, 2.5)]
    assert got["curves"] == {"NHWC | #1 conv1": [3.0, 2.0], "NCHW | #1 conv1": [3.2, 3.0]}
    assert method_study.merge_earlier(res, earlier, trials=100, top_k=2) is res
    assert method_study.merge_earlier(res, None, trials=200, top_k=2) is res
