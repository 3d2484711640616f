"""Tests of lab02_tvm.tuning.seed: another machine kind's records, re-targeted to this host and re-timed here.

The databases are :mod:`lab02_tvm.test_retime`'s: three sketches of a 64x128x64 matmul stored with impossible
times (1-3 ns; no CPU core runs fp32 at 1 TFLOP/s, so a real time is at least ``FLOPS / 1e12`` s), and one
failed record. A time measured here is told apart from one carried over by that bound, not by a speed.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from common.errors import UserError
from lab02_tvm.test_retime import FLOPS, _database
from lab02_tvm.tuning import retime as rt
from lab02_tvm.tuning import seed
from lab02_tvm.tuning.database import database_paths, read_database, target_dict
from lab02_tvm.tuning.records import carried_over, earlier_runs, write_provenance

pytestmark = pytest.mark.lab02


def _other(host: dict) -> dict:
    """A 1-core target of another x86 CPU than this host's (the kind the records came from)."""
    return {**host, "mcpu": "znver3" if host.get("mcpu") != "znver3" else "znver4", "num-cores": 1}


def test_retarget_sets_this_hosts_target_and_changes_nothing_else(tmp_path, host):
    src, dst = tmp_path / "src", tmp_path / "dst"
    _database(src, _other(host))
    assert seed.retarget(src, dst, {**host, "num-cores": 1}) == 4
    a, b = read_database(src), read_database(dst)
    assert database_paths(dst)[0].read_bytes() == database_paths(src)[0].read_bytes()
    assert [target_dict(r[1][2]) for r in b.records] == [target_dict({**host, "num-cores": 1})] * 4
    for ra, rb in zip(a.records, b.records):  # trace, run times and argument info as they were
        assert ra[0] == rb[0] and ra[1][:2] == rb[1][:2] and ra[1][3:] == rb[1][3:]
        assert {k: v for k, v in ra[1][2].items() if k != "mcpu"} == {k: v for k, v in rb[1][2].items() if k != "mcpu"}


def test_retime_without_keep_untimed_keeps_only_times_measured_here(tmp_path, host):
    """The stored best's trace does not apply here (``foreign_best``): with ``keep_untimed=False`` it is dropped, not
    kept with its stored time; the second record, re-timed, takes its place; the failed one and the third go."""
    target = {**host, "num-cores": 1}
    _database(tmp_path, target, foreign_best=True)
    [row] = rt.retime(tmp_path, target, top_k=2, rounds=1, keep_untimed=False, progress=False)
    assert row["retimed"] == 1 and row["stored_now_ms"] is None
    assert row["best_now_ms"] == row["fastest_other_ms"] > 1e3 * FLOPS / 1e12
    db = read_database(tmp_path)
    assert len(db.records) == 1
    assert all(FLOPS / 1e12 < s < 1.0 for s in db.records[0][1][1])


def test_a_workload_with_no_record_that_runs_here_is_dropped(tmp_path, host):
    """top_k 1 and the only record re-timed does not apply here: the workload has nothing timed here and is gone,
    where the default keeps it as it was (``test_retime``)."""
    target = {**host, "num-cores": 1}
    _database(tmp_path, target, foreign_best=True)
    [row] = rt.retime(tmp_path, target, top_k=1, rounds=1, keep_untimed=False, progress=False)
    assert row["retimed"] == 0 and row["best_now_ms"] is None
    assert read_database(tmp_path).records == []


def test_check_source_refuses_what_cannot_seed_this_host(tmp_path, host):
    here = {**host, "num-cores": 1}
    src = tmp_path / "src"
    with pytest.raises(UserError, match="no MetaSchedule database"):
        seed.check_source(src, "bert", here)
    _database(src, _other(host))
    with pytest.raises(UserError, match="names no target"):
        seed.check_source(src, "bert", here)
    write_provenance(src, {"model": "resnet50", "target": json.dumps(_other(host))})
    with pytest.raises(UserError, match="holds resnet50's records, not bert's"):
        seed.check_source(src, "bert", here)
    write_provenance(src, {"model": "bert", "target": json.dumps(here)})  # no timing recorded: warm
    for timing in (None, "warm"):  # this host's own records, timed as asked: a top-up's, not a seed's
        with pytest.raises(UserError, match="this host's own records .*timed warm.*pass --timing cold") as e:
            seed.check_source(src, "bert", here, timing)
        assert "\n" not in str(e.value)
    assert seed.check_source(src, "bert", here, "cold")[0]["target"] == json.dumps(here)  # the other way: a re-time
    write_provenance(src, {"model": "bert", "target": json.dumps(here), "timing": "cold"})
    with pytest.raises(UserError, match="timed cold.*pass --timing warm"):
        seed.check_source(src, "bert", here, "cold")
    write_provenance(src, {"model": "bert", "target": json.dumps(_other(host)),
                           "method": {"layout": "NHWC", "layout_rewrite": True}})
    prov, method = seed.check_source(src, "bert", here)
    assert method.layout == "NHWC" and method.layout_rewrite and prov["model"] == "bert"
    write_provenance(src, {"model": "bert", "target": json.dumps(_other(host)), "method": {"layout": "XYZW"}})
    with pytest.raises(UserError, match="PROVENANCE.json: .*XYZW"):
        seed.check_source(src, "bert", here)
    write_provenance(src, {"model": "bert", "target": json.dumps(_other(host)), "timing": "hot"})
    with pytest.raises(UserError, match="says timing 'hot': pass --timing cold or warm"):
        seed.check_source(src, "bert", here)
    rec = database_paths(src)[1]  # every record failed where it was tuned: nothing to start from
    rec.write_text("".join(json.dumps([r[0], [r[1][0], [1e10], *r[1][2:]]]) + "\n" for r in read_database(src).records))
    with pytest.raises(UserError, match="holds no record that ran where it was tuned"):
        seed.check_source(src, "bert", here)


def test_seed_refuses_a_folder_that_is_not_empty_and_writes_nothing(tmp_path, host):
    from lab02_tvm.tuning.records import shipped_dir
    src = tmp_path / "src"
    _database(src, _other(host))
    write_provenance(src, {"model": "bert", "target": json.dumps(_other(host))})
    dst = shipped_dir("bert", {**host, "num-cores": 1}, tmp_path / "root")
    dst.mkdir(parents=True)
    (dst / "mine.txt").write_text("keep")
    with pytest.raises(UserError, match="is not empty"):
        seed.main(["--model", "bert", str(src), "--root", str(tmp_path / "root")])
    assert [p.name for p in dst.parent.iterdir()] == ["bert"] and (dst / "mine.txt").read_text() == "keep"
    with pytest.raises(UserError, match="--rounds must be"):
        seed.main(["--model", "bert", str(src), "--rounds", "0", "--root", str(tmp_path / "root")])
    (tmp_path / "afile").write_text("")
    with pytest.raises(UserError, match="cannot write under .*: choose another --root") as e:
        seed.main(["--model", "bert", str(src), "--root", str(tmp_path / "afile")])
    assert "\n" not in str(e.value) and (tmp_path / "afile").read_text() == ""


def test_a_top_up_keeps_where_the_chain_started():
    prev = {"date_utc": "2026-12-05 10:41", "trials_this_run": 0, "seeded_from": {"target_key": "llvm-znver4-1c"}}
    assert carried_over(prev) == {"seeded_from": {"target_key": "llvm-znver4-1c"}}
    assert earlier_runs(prev)[0]["trials_this_run"] == 0


def test_a_re_time_of_this_hosts_folder_keeps_its_runs_and_says_which_timing_it_had():
    """The provenance of this host's own warm folder re-timed cold: the seed's fields for this run (timing, records,
    no trials), the folder's trial total and runs carried on (its own run the last of ``earlier_runs``, as after a
    top-up), its chain keys kept, ``retimed_from`` naming the timing before, and no ``seeded_from`` of its own."""
    src_prov = {"model": "resnet50", "target": "t", "date_utc": "2026-12-07 09:54", "trials": 2052,
                "trials_this_run": 2023, "trials_all_runs": 4068, "minutes": 67.6, "command": "topup",
                "earlier_runs": [{"date_utc": "2026-12-02 00:40", "trials_this_run": 788, "minutes": 35.8}],
                "replaces": {"date_utc": "2026-11-30 02:35"}}
    seeded = {"model": "resnet50", "target": "t", "timing": "cold", "trials": 0, "trials_this_run": 0,
              "trials_all_runs": 0, "records": 29, "date_utc": "2026-12-07 11:46", "retimed": {"kernels": 29},
              "note": "seeded from ...", "seeded_from": {"folder": "S", "timing": "warm"}}
    prov = seed.retimed_own(Path("S"), src_prov, seeded, n_lost=0)
    assert prov["timing"] == "cold" and prov["records"] == 29 and prov["trials_this_run"] == 0
    assert prov["trials_all_runs"] == 4068 and prov["replaces"] == src_prov["replaces"] and "seeded_from" not in prov
    assert [r["trials_this_run"] for r in prov["earlier_runs"]] == [788, 2023]
    assert prov["retimed_from"] == {"folder": "S", "timing": "warm", "date_utc": "2026-12-07 09:54"}
    assert "re-timed cold" in prov["note"] and "4068 trials" in prov["note"]
    assert "1 kernel(s) dropped" in seed.retimed_own(Path("S"), src_prov, seeded, n_lost=1)["note"]
    assert carried_over(prov)["retimed_from"] == prov["retimed_from"]  # a later top-up keeps it


def test_seed_writes_this_hosts_folder_from_another_kinds_shipped_records(tmp_path, host):
    """End to end on LLaMA-tiny s32 (full size, its ~20 kernels small): another kind's shipped folder re-targeted,
    every record kept re-timed here (2 rounds: one median per round), provenance and table rows as promised,
    nothing left beside the folder, and a second seed into it refused."""
    from lab02_tvm.tuning.records import SHIPPED_ROOT, read_provenance, same_target, target_key
    here = {**host, "num-cores": 1}
    src = next(d for d in sorted(SHIPPED_ROOT.glob("*/llama_tiny_s32"))  # never this host's own kind
               if not same_target(read_provenance(d)["target"], here))
    root = tmp_path / "seeded"
    dst, rows, prov = seed.seed_folder("llama_tiny_s32", src, root=root, top_k=1, rounds=2, progress=False)
    assert dst == root / target_key(here) / "llama_tiny_s32" and sorted(p.name for p in dst.parent.iterdir()) == [dst.name]
    assert dst.stat().st_mode & 0o777 == 0o755
    assert read_provenance(dst) == prov
    assert prov["seeded_from"]["target_key"] == src.parent.name and prov["trials_all_runs"] == 0
    assert prov["seeded_from"]["trials_all_runs"] == read_provenance(src)["trials_all_runs"] > 0
    assert prov["method"] == seed.check_source(src, "llama_tiny_s32", here)[1].as_dict()
    db = read_database(dst)
    assert db.targets == [target_dict(here)] and len(db.records) == prov["records"] > 0
    assert all(len(r[1][1]) == 2 and all(0 < s < 1.0 for s in r[1][1]) for r in db.records)  # timed here, per round
    timed = [r for r in rows if r["retimed"]]
    assert len(timed) == len(db.records) and all(r["host_ratio"] > 0 for r in timed)
    with pytest.raises(UserError, match="is not empty"):
        seed.seed_folder("llama_tiny_s32", src, root=root, progress=False)
    # another model's folder whose provenance does not say so: its workloads are none of this model's kernels
    other = tmp_path / "s128"
    shutil.copytree(src.parent / "llama_tiny_s128", other)
    write_provenance(other, {k: v for k, v in read_provenance(other).items() if k != "model"})
    with pytest.raises(UserError, match="is a kernel of llama_tiny_s32 tuned"):
        seed.seed_folder("llama_tiny_s32", other, root=tmp_path / "r2", progress=False)
    assert not any((tmp_path / "r2").rglob("*.json"))
