"""Tests of lab02_tvm.tuning.merge: two top-ups' folders joined into one (synthetic databases, no TVM).

The reference is worked out by hand from the synthetic lines: which workloads are shared (same structural
hash string), what each record's index becomes, which record is the best of each workload after pruning.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.errors import UserError
from lab02_tvm.tuning import database, records
from lab02_tvm.tuning.merge import merge_folders
from lab02_tvm.tuning.method import Method

pytestmark = pytest.mark.lab02

TARGET = {"kind": "llvm", "mcpu": "rocketlake", "num-cores": 1, "keys": ["cpu"], "tag": ""}
BASE = Method("NHWC", True, winograd={56: 4, 14: 2})


def _folder(path: Path, hashes: list[str], recs: list[tuple[str, float]], method: Method, trials: int,
            timing: str = "cold") -> Path:
    """A database whose workloads are ``hashes`` and whose records are ``(hash, seconds)``, with provenance."""
    path.mkdir(parents=True)
    (path / database.WORKLOADS).write_text("".join(json.dumps([h, f"mod{h}"]) + "\n" for h in hashes))
    (path / database.RECORDS).write_text("".join(
        json.dumps([hashes.index(h), [[["trace", h, s]], [s], TARGET, []]]) + "\n" for h, s in recs))
    records.write_provenance(path, {"method": method.as_dict(), "timing": timing, "trials_this_run": trials,
                                    "trials_all_runs": 100 + trials, "minutes": 10.0, "date_utc": "2026-12-04",
                                    "earlier_runs": [{"trials_this_run": 100, "minutes": 30.0}]})
    return path


def test_two_top_ups_join_with_the_best_record_per_workload(tmp_path):
    # both copies of one folder {a, b}; dst tuned c (28x28), src tuned d (7x7) and found a faster b
    dst = _folder(tmp_path / "dst", ["a", "b", "c"], [("a", 2.0), ("b", 3.0), ("c", 1.5), ("c", 1.0)],
                  Method("NHWC", True, winograd={56: 4, 28: 4, 14: 2}), trials=40)
    src = _folder(tmp_path / "src", ["a", "b", "d"], [("a", 2.0), ("b", 2.5), ("d", 4.0)],
                  Method("NHWC", True, winograd={56: 4, 14: 2, 7: 2}), trials=25)
    info = merge_folders(src, dst)
    assert info["workloads_added"] == 1 and info["records_added"] == 3
    db = database.read_database(dst)
    assert [w[0] for w in db.workloads] == ["a", "b", "c", "d"]
    best = {db.workloads[r[0]][0]: r[1][1][0] for r in db.records}
    assert best == {"a": 2.0, "b": 2.5, "c": 1.0, "d": 4.0} and len(db.records) == 4  # pruned, re-indexed
    prov = records.read_provenance(dst)
    assert Method.from_provenance(prov) == Method("NHWC", True, winograd={56: 4, 28: 4, 14: 2, 7: 2})
    assert prov["trials_all_runs"] == 100 + 40 + 25
    assert prov["earlier_runs"][-1]["merged_from"].endswith("src") and records.run_totals(prov) == (165, 50.0)


def test_methods_that_cannot_join_are_refused_before_anything_is_written(tmp_path):
    dst = _folder(tmp_path / "dst", ["a"], [("a", 1.0)], BASE, trials=1)
    before = (dst / database.RECORDS).read_text()
    clash = _folder(tmp_path / "clash", ["b"], [("b", 1.0)], Method("NHWC", True, winograd={56: 2}), trials=1)
    with pytest.raises(UserError, match="tile the same maps differently"):
        merge_folders(clash, dst)
    nchw = _folder(tmp_path / "nchw", ["b"], [("b", 1.0)], Method("NCHW", True), trials=1)
    with pytest.raises(UserError, match="other workloads of every kernel"):
        merge_folders(nchw, dst)
    warm = _folder(tmp_path / "warm", ["b"], [("b", 1.0)], BASE, trials=1, timing="warm")
    with pytest.raises(UserError, match="timed warm"):
        merge_folders(warm, dst)
    with pytest.raises(UserError, match="no records"):
        merge_folders(tmp_path / "nowhere", dst)
    with pytest.raises(UserError, match="same folder"):
        merge_folders(dst, tmp_path / "dst")
    assert (dst / database.RECORDS).read_text() == before


def test_union_switches_on_what_either_method_has():
    assert BASE.union(Method("NHWC", True, combine_matmul=True)) == Method("NHWC", True, True, BASE.winograd)
    assert Method("NHWC", True).union(BASE) == BASE


def test_longrun_merge_needs_its_source():
    from lab02_tvm.tuning import longrun
    with pytest.raises(UserError, match="--from ROOT"):
        longrun.main(["merge", "--model", "resnet50"])
