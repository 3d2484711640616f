"""Tests of the shipped tuning records and of tuning on a real (test-size) model.

* :mod:`lab02_tvm.tuning.records` on synthetic databases (no TVM): pruning, provenance, a corrupt or
  truncated file (one line naming it, nothing overwritten), records for another target (one line,
  then a scratch folder to tune into);
* the shipped records under ``results/lab02/tuning/<target>/``: they load, their records carry the
  folder's target, they have their provenance, they are small, and they cover every task of
  ResNet-50 and BERT-base (task extraction of the full models, no build); a build from them is
  gated against PyTorch (LLaMA-tiny, small enough to build in a test) with no kernel left untuned;
* tuned faster than untuned on a real model (test-size BERT from ``common.models``): tuned and
  untuned built and timed in one interleaved run, both gated against PyTorch at the seed's
  absolute 1e-4; the assertion is the ratio from that run (no wall-clock threshold).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lab02_tvm.models import MODELS
from lab02_tvm.tuning import database, longrun, records

pytestmark = pytest.mark.lab02

ATOL = 1e-4  # the seed's absolute gate (every output here has max|ref| <= 10)
TARGET = {"kind": "llvm", "mcpu": "znver3", "num-cores": 1}
OTHER = {"kind": "llvm", "mcpu": "skylake-avx512", "num-cores": 1}


def _write_db(folder: Path, records_: list[tuple[int, list[float], dict]], n_workloads: int = 3) -> Path:
    """A synthetic MetaSchedule database: ``n_workloads`` workloads, records (workload, run secs, target)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / database.WORKLOADS).write_text("".join(json.dumps([str(1000 + i), f"mod{i}"]) + "\n"
                                                    for i in range(n_workloads)))
    lines = [json.dumps([w, [[["trace", w]], secs, {**tgt, "keys": ["cpu"], "tag": ""}, [["TENSOR"]]]])
             for w, secs, tgt in records_]
    (folder / database.RECORDS).write_text("".join(line + "\n" for line in lines))
    return folder


# ----------------------------------------------------------------------------------------------
# records.py on synthetic databases
def test_target_key_and_folders():
    assert records.target_key(TARGET) == "llvm-znver3-1c"
    assert records.target_key({"kind": "llvm"}) == "llvm-generic-1c"
    assert records.shipped_dir("bert", TARGET, Path("/r")) == Path("/r/llvm-znver3-1c/bert")
    assert records.same_target(TARGET, {**TARGET, "tag": "", "keys": ["cpu"]})
    assert not records.same_target(TARGET, OTHER) and not records.same_target(TARGET, {**TARGET, "num-cores": 2})


def test_prune_keeps_the_best_record_per_workload(tmp_path):
    db = _write_db(tmp_path / "db", [(0, [3e-3], TARGET), (0, [1e-3, 1e-3], TARGET), (0, [1e10], TARGET),
                                     (2, [1e10], TARGET), (2, [1e10], TARGET)])
    info = database.prune(db)
    assert info == {"workloads_before": 3, "records_before": 5, "workloads": 2, "records": 2,
                    "bytes": info["bytes"]}
    got = database.read_database(db)
    # workload 1 had no record: dropped; 0 keeps its best (1 ms); 2 keeps one failed record; re-indexed
    assert [w[0] for w in got.workloads] == ["1000", "1002"]
    assert [(r[0], r[1][1]) for r in got.records] == [(0, [1e-3, 1e-3]), (1, [1e10])]
    assert list(got.best_per_workload()) == [0]  # the failed-only workload has no valid best


@pytest.mark.parametrize("damage", ["truncated", "not json", "bad index"])
def test_corrupt_database_is_one_line_and_nothing_is_overwritten(tmp_path, damage):
    db = _write_db(tmp_path / records.target_key(TARGET) / "bert", [(0, [1e-3], TARGET), (1, [2e-3], TARGET)])
    rec = db / database.RECORDS
    text = rec.read_text()
    rec.write_text({"truncated": text[: len(text) - 25], "not json": text + "<<<<<<< HEAD\n",
                    "bad index": text + json.dumps([7, [[], [1e-3], TARGET, []]]) + "\n"}[damage])
    before = {p.name: p.read_bytes() for p in db.iterdir()}
    with pytest.raises(database.CorruptDatabase) as ei:
        database.read_database(db)
    msg = str(ei.value)
    assert "\n" not in msg and str(rec) in msg and "nothing was overwritten" in msg
    choice = _choose("bert", TARGET["mcpu"], root=tmp_path, scratch_root=tmp_path / "scratch")
    assert choice.status == "corrupt" and not choice.shipped and "\n" not in choice.line
    assert str(rec) in choice.line and "tuning from scratch" in choice.line
    assert choice.work_dir == tmp_path / "scratch" / "llvm-znver3-1c" / "bert"
    with pytest.raises(database.CorruptDatabase):
        database.prune(db)
    assert {p.name: p.read_bytes() for p in db.iterdir()} == before  # nothing rewritten


def test_records_for_another_target_mean_tuning_from_scratch(tmp_path):
    root, scratch = tmp_path / "shipped", tmp_path / "scratch"
    # (1) only another CPU's folder exists
    _write_db(root / records.target_key(OTHER) / "bert", [(0, [1e-3], OTHER)])
    c = _choose("bert", TARGET["mcpu"], root=root, scratch_root=scratch)
    assert c.status == "other-target" and "llvm-skylake-avx512-1c" in c.line and "llvm-znver3-1c" in c.line
    assert "tuning from scratch" in c.line and "\n" not in c.line
    assert c.work_dir == scratch / "llvm-znver3-1c" / "bert"
    # (2) the host's folder holds records measured on another target
    _write_db(root / records.target_key(TARGET) / "bert", [(0, [1e-3], OTHER)])
    c = _choose("bert", TARGET["mcpu"], root=root, scratch_root=scratch)
    assert c.status == "other-target" and "skylake-avx512" in c.line and not c.shipped
    # (3) matching records: used, with their provenance
    good = _write_db(root / records.target_key(TARGET) / "bert", [(0, [1e-3], TARGET), (1, [1e-3], TARGET)])
    records.write_provenance(good, {"trials": 640, "minutes": 31.5})
    c = _choose("bert", TARGET["mcpu"], root=root, scratch_root=scratch)
    assert c.shipped and c.records == 2 and c.work_dir == good and "640 trials in 32 min" in c.line
    c = _choose("resnet50", TARGET["mcpu"], root=root, scratch_root=scratch)
    assert c.status == "none" and c.line.endswith("tuning from scratch in " + records.rel(c.work_dir))
    # (4) an earlier run's records in the scratch folder: reused, and the line says so
    _write_db(c.work_dir, [(0, [1e-3], TARGET)])
    c = _choose("resnet50", TARGET["mcpu"], root=root, scratch_root=scratch)
    assert c.status == "none" and c.line.endswith("(the records an earlier run left there are reused)"), c.line


def _cpu(mcpu: str) -> dict:
    return {"kind": "llvm", "mcpu": mcpu, "num-cores": 1}


def _shipped_for(root: Path, *cpus: str, model: str = "bert", trials: int = 100) -> dict[str, Path]:
    out = {}
    for cpu in cpus:
        d = _write_db(root / records.target_key(_cpu(cpu)) / model, [(0, [1e-3], _cpu(cpu)), (1, [1e-3], _cpu(cpu))])
        records.write_provenance(d, {"trials": trials, "minutes": 10})
        out[cpu] = d
    return out


def _choose(model: str, cpu: str, **kw):
    """``records.choose`` on a simulated host named ``cpu``: its instruction set is LLVM's list for that
    CPU, never this machine's (a test must not pass or fail by the CPU it runs on)."""
    from common import isa
    return records.choose(model, _cpu(cpu), have=isa.isa_features(cpu), **kw)


def test_choice_policy_on_simulated_hosts(tmp_path):
    """exact, then every instruction present (built for the records' CPU), then a common x86-64 level
    keeping the records' vectors (built for that level), else tuning here; hosts named, not read."""
    root, scratch = tmp_path / "shipped", tmp_path / "scratch"
    made = _shipped_for(root, "znver3")
    exact = _choose("bert", "znver3", root=root, scratch_root=scratch)
    assert (exact.status, exact.how, exact.work_dir) == ("exact", "exact", made["znver3"])
    assert exact.build_target["mcpu"] == "znver3" and exact.label() == "exact: llvm-znver3-1c"
    # Zen 4 has every instruction of Zen 3 (LLVM's feature lists): build for znver3, as measured
    c = _choose("bert", "znver4", root=root, scratch_root=scratch)
    assert c.status == "compatible" and c.build_target == _cpu("znver3") and c.work_dir == made["znver3"]
    assert "records for llvm-znver3-1c on this znver4 host: compatible ISA, building for znver3" in c.line
    assert c.label() == "compatible: llvm-znver3-1c, built for znver3"
    # an AVX2 Intel lacks AMD's sse4a: the common level x86-64-v3 keeps AVX2
    c = _choose("bert", "haswell", root=root, scratch_root=scratch)
    assert c.status == "compatible" and c.build_target["mcpu"] == "x86-64-v3"
    assert "sse4a" not in c.line or "absent here" in c.line
    assert "common ISA x86-64-v3: building for x86-64-v3" in c.line
    # no AVX2 on the host: incompatible, tuned here, the line says why
    c = _choose("bert", "x86-64-v2", root=root, scratch_root=scratch)
    assert c.status == "other-target" and c.how == "tuned here" and c.label() == "tuned here"
    assert "avx2" in c.line and c.work_dir == scratch / "llvm-x86-64-v2-1c" / "bert" and "\n" not in c.line
    # two candidates: the widest build ISA wins (AVX-512 records on an AVX-512 host)
    made |= _shipped_for(root, "znver4")
    c = _choose("bert", "skylake-avx512", root=root, scratch_root=scratch)
    assert c.work_dir == made["znver4"] and c.build_target["mcpu"] == "x86-64-v4", c.line
    assert _choose("bert", "znver4", root=root, scratch_root=scratch).status == "exact"


def test_choice_ranks_by_trials_within_a_tier(tmp_path):
    root = tmp_path / "shipped"
    _shipped_for(root, "znver3", trials=100)
    best = _shipped_for(root, "znver2", trials=900)["znver2"]
    c = _choose("bert", "znver4", root=root, scratch_root=tmp_path / "s")
    assert c.status == "compatible" and c.work_dir == best and c.build_target["mcpu"] == "znver2"


def test_field_method_records_come_before_older_ones_of_any_rank(tmp_path):
    """A Zen 3 host whose own folder was tuned NCHW builds from the AVX2 EPYC's NHWC + rewrite records (it has
    every znver1 instruction), and the line says which folder was passed over and why; a host whose own folder
    has the method keeps it, and without method records the old order stands."""
    from lab02_tvm.tuning.method import FIELD, PLAIN
    root = tmp_path / "shipped"
    made = _shipped_for(root, "znver3", trials=1695)  # no "method" in the provenance: NCHW, no rewrite
    assert _choose("bert", "znver3", root=root, scratch_root=tmp_path / "s").status == "exact"
    made |= _shipped_for(root, "znver1", trials=352)
    records.write_provenance(made["znver1"], {"trials": 352, "minutes": 17, "method": FIELD.as_dict()})
    c = _choose("bert", "znver3", root=root, scratch_root=tmp_path / "s")
    assert (c.status, c.work_dir, c.build_target["mcpu"], c.method) == ("compatible", made["znver1"], "znver1", FIELD)
    assert "llvm-znver3-1c passed over: tuned NCHW" in c.line and "\n" not in c.line
    assert c.label() == "compatible: llvm-znver1-1c, built for znver1"
    c = _choose("bert", "haswell", root=root, scratch_root=tmp_path / "s")  # one rank (x86-64-v3) for both
    assert c.work_dir == made["znver1"] and c.line.endswith("before the field's method NHWC + weight layout rewrite")
    records.write_provenance(made["znver3"], {"trials": 1695, "minutes": 90, "method": FIELD.as_dict()})
    assert _choose("bert", "znver3", root=root, scratch_root=tmp_path / "s").work_dir == made["znver3"]
    records.write_provenance(made["znver1"], {"trials": 352, "minutes": 17, "method": PLAIN.as_dict()})
    records.write_provenance(made["znver3"], {"trials": 1695, "minutes": 90})
    c = _choose("bert", "znver4", root=root, scratch_root=tmp_path / "s")  # both old: most trials, as before
    assert c.work_dir == made["znver3"] and "passed over" not in c.line


def test_bad_records_of_another_cpu_are_passed_over_and_left_untouched(tmp_path):
    """Corrupt file, a target that does not parse, an unknown method: one line each, nothing written."""
    root, scratch = tmp_path / "shipped", tmp_path / "scratch"
    d = _shipped_for(root, "znver3")["znver3"]
    rec = d / database.RECORDS
    rec.write_text(rec.read_text()[:-20])
    before = rec.read_bytes()
    c = _choose("bert", "znver4", root=root, scratch_root=scratch)
    assert c.status == "other-target" and "corrupt tuning database file" in c.line and "\n" not in c.line
    assert rec.read_bytes() == before
    bad = _write_db(root / "llvm-notacpu-1c" / "bert", [(0, [1e-3], _cpu("notacpu"))])
    c = _choose("bert", "znver4", root=root, scratch_root=scratch)
    assert "unknown LLVM CPU 'notacpu'" in c.line and str(bad.relative_to(tmp_path)) in c.line.replace(str(tmp_path) + "/", "")
    good = _shipped_for(root, "znver2")["znver2"]
    records.write_provenance(good, {"trials": 5, "method": {"layout": "NCHW16c"}})
    c = _choose("bert", "znver4", root=root, scratch_root=scratch)
    assert c.how == "tuned here" and "unknown tuning layout 'NCHW16c'" in c.line


def test_records_carry_their_method(tmp_path):
    from common.errors import UserError
    from lab02_tvm.tuning.method import FIELD, PLAIN, Method
    assert Method.from_provenance({}) == PLAIN and Method.from_provenance({"layout_rewrite": True}) == Method("NCHW", True)
    assert Method.from_provenance({"method": FIELD.as_dict()}) == FIELD and str(FIELD) == "NHWC + weight layout rewrite"
    with pytest.raises(UserError, match="unknown tuning method"):
        Method.from_provenance({"method": {"layout": "NHWC", "prepack": 1}})
    root = tmp_path / "shipped"
    d = _shipped_for(root, "znver3")["znver3"]
    records.write_provenance(d, {"trials": 100, "minutes": 10, "method": FIELD.as_dict()})
    c = _choose("bert", "znver3", root=root, scratch_root=tmp_path / "s")
    assert c.method == FIELD and "NHWC + weight layout rewrite" in c.line
    here = _shipped_for(root, _host_target()["mcpu"])[_host_target()["mcpu"]]  # tune_records tunes this host's folder
    records.write_provenance(here, {"trials": 100, "minutes": 10, "method": FIELD.as_dict()})
    before = {p.name: p.read_bytes() for p in here.iterdir()}
    with pytest.raises(UserError, match="holds records tuned NHWC \\+ weight layout rewrite"):  # before any build
        longrun.tune_records("bert", 4, 1.0, command="test", root=root, method=PLAIN, progress=False)
    assert {p.name: p.read_bytes() for p in here.iterdir()} == before


def test_a_top_up_keeps_the_folders_timing(tmp_path):
    """Records timed warm (every folder before ``--timing``: no "timing" in the provenance) and cold ones
    cannot share a folder: the build takes the lowest time per kernel, and warm times are lower."""
    from common.errors import UserError
    from lab02_tvm.tuning.method import FIELD
    root = tmp_path / "shipped"
    here = _shipped_for(root, _host_target()["mcpu"])[_host_target()["mcpu"]]
    records.write_provenance(here, {"trials": 100, "minutes": 10, "method": FIELD.as_dict()})
    before = {p.name: p.read_bytes() for p in here.iterdir()}
    with pytest.raises(UserError, match="holds records timed warm; a top-up timed cold"):  # before any build
        longrun.tune_records("bert", 4, 1.0, command="test", root=root, timing="cold", progress=False)
    with pytest.raises(UserError, match="unknown timing 'hot'"):
        longrun.tune_records("bert", 4, 1.0, command="test", root=root, timing="hot", progress=False)
    assert {p.name: p.read_bytes() for p in here.iterdir()} == before


def test_a_folder_of_register_tile_records_is_topped_up_with_the_tile(tmp_path):
    """``longrun.folder_tiles``: a folder whose records name the fp32 tile (such traces replay only in the tile
    space), one whose records name none, and one without records."""
    from lab02_tvm.lowering.intrin import intrin_name
    line = '[0, [[[["Annotate", [], [], ["meta_schedule.auto_tensorize", "{}"]]]], [0.001], {{}}, []]]\n'
    (tmp_path / "tile").mkdir()
    (tmp_path / "tile" / database.RECORDS).write_text(line.format(intrin_name(8, 32, width=16)))
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / database.RECORDS).write_text(line.format("meta_schedule.parallel"))
    assert longrun.folder_tiles(tmp_path / "tile") and longrun.folder_tiles(tmp_path / "tile") is True
    assert not longrun.folder_tiles(tmp_path / "plain") and not longrun.folder_tiles(tmp_path / "none")


def test_mlc_cpu_override_is_checked_against_the_host(monkeypatch):
    """MLC_CPU names the CPU to compile for; one this host cannot execute is refused in one line."""
    from common import isa
    from common.errors import UserError
    from lab02_tvm.build import host_target
    monkeypatch.setenv("MLC_CPU", "x86-64-v2")  # every x86-64 machine this course runs on has SSE4.2
    assert host_target()["mcpu"] == "x86-64-v2"
    # a CPU with instructions this host lacks: AMD's sse4a on an Intel, Intel's AMX on an AMD
    foreign = next(c for c in ("znver4", "sapphirerapids", "x86-64-v4")  # never the host's own name: that one runs
                   if c != isa.system_cpu() and isa.missing_on(c, isa.host_features()))
    monkeypatch.setenv("MLC_CPU", foreign)
    with pytest.raises(UserError, match=f"MLC_CPU={foreign}: this host .* cannot execute") as ei:
        host_target()
    assert "\n" not in str(ei.value)
    monkeypatch.setenv("MLC_CPU", "not-a-cpu")
    with pytest.raises(UserError, match="unknown LLVM CPU 'not-a-cpu'"):
        host_target()


def test_pipeline_refuses_a_foreign_cpu_override_with_exit_2(tmp_path):
    import os
    import subprocess
    import sys
    from common import isa
    foreign = next(c for c in ("znver4", "sapphirerapids", "x86-64-v4")  # never the host's own name: that one runs
                   if c != isa.system_cpu() and isa.missing_on(c, isa.host_features()))
    env = {**os.environ, "MLC_CPU": foreign, "MLC_RESULTS_DIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "lab02_tvm.pipeline", "--quick", "--model", "llama"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 2, r.stderr[-2000:]
    errs = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(errs) == 1 and f"MLC_CPU={foreign}" in errs[0]
    assert not any(tmp_path.rglob("*.md")), "nothing is written"


def test_top_up_provenance_keeps_every_run_and_totals_them():
    first = {"date_utc": "d1", "command": "c1", "trials": 131, "trials_this_run": 131, "minutes": 20.8,
             "trials_per_task": {"t": 131}}
    assert records.earlier_runs({}) == []
    runs = records.earlier_runs(first)
    assert runs == [{"date_utc": "d1", "command": "c1", "trials_this_run": 131, "minutes": 20.8}]  # per-task dropped
    second = {"trials": 816, "trials_this_run": 794, "minutes": 45.6, "trials_all_runs": 794 + 131, "earlier_runs": runs}
    assert records.run_totals(second) == (925, pytest.approx(66.4))
    third = records.earlier_runs(second)
    assert [r["trials_this_run"] for r in third] == [131, 794]  # oldest first
    assert records.earlier_runs({"trials": 40, "minutes": 3})[0]["trials_this_run"] == 40  # before the field existed
    assert records.run_totals({"trials": 640, "minutes": 31.5}) == (640, 31.5)  # a single run
    replaced = {"command": "c0", "timing": "warm", "trials": 1315, "why": "w"}
    assert records.carried_over({**second, "replaces": replaced}) == {"replaces": replaced}  # kept by a top-up
    assert records.carried_over(second) == {}
    placed = {"kernels": {"fused_conv2d3_add2_add3_relu21": {"level": "S1", "model_ms": 1.06}}}
    assert records.carried_over({**second, "epilogue": placed}) == {"epilogue": placed}


def test_per_model_budget_parsing():
    from common.errors import UserError
    assert longrun._per_model("900,500", ["resnet50", "bert"], "--trials", int) == {"resnet50": 900, "bert": 500}
    assert longrun._per_model("30", ["resnet50", "bert"], "--minutes", float) == {"resnet50": 30.0, "bert": 30.0}
    for bad in ("1,2,3", "0", "x"):
        with pytest.raises(UserError, match="--trials"):
            longrun._per_model(bad, ["resnet50", "bert"], "--trials", int)


def testcoverage_gate_fails_a_silent_fallback():
    """A kernel with valid records compiled untuned fails; with shipped records, so does one never tuned."""
    from common.gates import GateError
    from lab02_tvm.tuning.serve import coverage_gate
    from lab02_tvm.tuning.apply import TunedBuild
    ok = TunedBuild(None, 3, 2, ["take"], absent=[], failed_only=["take"])
    coverage_gate("m", ok, shipped=True)  # every candidate of `take` failed to run: named, not silent
    silent = TunedBuild(None, 3, 2, ["matmul"], absent=[], failed_only=[])
    with pytest.raises(GateError, match="valid records were compiled untuned"):
        coverage_gate("m", silent, shipped=False)
    never = TunedBuild(None, 3, 2, ["gelu"], absent=["gelu"], failed_only=[])
    coverage_gate("m", never, shipped=False)  # this run's budget did not reach it: said, allowed
    with pytest.raises(GateError, match="do not cover the model"):
        coverage_gate("m", never, shipped=True)
    coverage_gate("m", never, shipped=True, declared_absent=1)  # the provenance says 1 task was not reached
    assert never.line() == "2/3 kernels from the database (untuned: gelu)"


# ----------------------------------------------------------------------------------------------
# the shipped records
def _host_target() -> dict:
    from lab02_tvm.build import host_target
    return {**host_target(), "num-cores": 1}


def _shipped_folders() -> list[Path]:
    return sorted(p.parent for p in records.SHIPPED_ROOT.glob(f"*/*/{database.RECORDS}"))


def test_shipped_records_load_with_provenance_and_are_small():
    folders = _shipped_folders()
    assert folders, f"no shipped records under {records.SHIPPED_ROOT}"
    for d in folders:
        db = database.read_database(d)
        key = d.parent.name
        assert [records.target_key(t) for t in db.targets] == [key], d  # records carry the folder's target
        assert len(db.records) == len(db.workloads)  # pruned: one record per workload
        prov = records.read_provenance(d)
        for k in ("target", "trials", "minutes", "date_utc", "command", "tvm", "threads"):
            assert k in prov, (d, k)
        assert prov["threads"] == 1 and json.loads(prov["target"])["num-cores"] == 1
        assert not (d / "logs").exists()  # no per-task logs shipped
        size = sum(p.stat().st_size for p in d.iterdir())
        assert size < 5e6, (d, size)


@pytest.mark.parametrize("level", ["x86-64-v3", "x86-64-v4"])
def test_every_model_has_records_for_each_vector_isa(level):
    """On a simulated host of each vector family this project runs on (AVX2: Zen 3; AVX-512: Zen 4,
    Intel), every model is built from shipped records (exact or compatible), none tuned from scratch.
    The host is named, not read from this machine, so the verdict is the same on every CPU."""
    host = {"kind": "llvm", "mcpu": level, "num-cores": 1}
    for model in MODELS:
        c = records.choose(model, host)
        assert c.shipped and c.how == "compatible", c.line
        assert c.build_target["mcpu"] in (level, "x86-64-v3") and "\n" not in c.line


def test_this_hosts_choice_is_a_shipped_folder_or_says_why():
    """On this machine (whatever its CPU): each model's choice is one line, and a shipped choice
    names a real folder and a build CPU this host can execute."""
    from common import isa
    host = _host_target()
    for model in MODELS:
        c = records.choose(model, host)
        assert "\n" not in c.line and c.how in ("exact", "compatible", "tuned here")
        if c.shipped:
            assert (c.work_dir / database.RECORDS).is_file()
            cpu = c.build_target.get("mcpu", "generic")
            assert cpu == isa.system_cpu() or not isa.missing_on(cpu, isa.host_features()), c.line


def _model_module(model: str):
    from lab02_tvm.models import imported
    from lab02_tvm.graph.passes import tuning_module
    return tuning_module(imported(model))


@pytest.mark.slow
@pytest.mark.parametrize("model", list(MODELS))
def test_shipped_records_cover_every_task(model):
    """Task extraction of the full model (no build), in each folder's own tuning method: every task
    has a measured workload in the records (only index gathers may have failed every candidate).

    Tasks are extracted once per method and LLVM target *family* (``target_key`` without its CPU):
    the workloads are TIR before scheduling, which the CPU name does not change, so the same tasks are
    looked up in every folder of that method (each folder's records name their own CPU)."""
    from lab02_tvm.tuning.database import best_ms_of, load_database, task_records
    from lab02_tvm.tuning.tasks import extract_tasks
    from lab02_tvm.tuning.method import Method
    folders = [d for d in _shipped_folders() if d.name == model]
    assert folders, f"no shipped records of {model}"
    mod = _model_module(model)
    extracted: dict = {}
    for d in folders:
        prov = records.read_provenance(d)
        method = Method.from_provenance(prov)
        target = database.read_database(d).targets[0]
        db = load_database(d)
        family = (method, target.get("kind"), int(target.get("num-cores", 1)))
        if family not in extracted:
            extracted[family] = extract_tasks(method.module(mod), target, method.layout_rewrite)
        infos = extracted[family]
        missing = [ti.name for ti in infos if not db.has_workload(ti.task.dispatched[0])]
        allowed = int(prov.get("tasks", len(infos))) - int(prov.get("tasks_in_db", prov.get("tasks", len(infos))))
        assert len(missing) <= allowed, f"{d} ({method}): {len(missing)} of {len(infos)} tasks not in the records: {missing}"
        failed = [ti.name for ti in infos if best_ms_of(task_records(db, ti.task)) is None]
        assert sum(ti.share for ti in infos if ti.name in failed) < 0.01, failed  # only index gathers may fail


@pytest.mark.slow
def test_build_from_shipped_records_is_gated():
    """LLaMA-tiny (sequence 32) built from the records this host chooses (exact or compatible, in
    their method and for their build CPU): every kernel scheduled, outputs vs PyTorch."""
    from lab02_tvm.tuning.apply import build_from_database
    from lab02_tvm.build import VMRunner, gate_outputs
    from lab02_tvm.models import build_bundles
    from lab02_tvm.graph.frontend import import_torch
    from lab02_tvm.graph.passes import tuning_module
    from lab02_tvm.tuning.serve import coverage_gate
    c = records.choose("llama_tiny_s32", _host_target())
    if not c.shipped:
        pytest.skip(f"no shipped LLaMA-tiny records for this CPU's vector ISA: {c.line}")
    im = import_torch(build_bundles(["llama_tiny_s32"], quick=False)["llama_tiny_s32"])
    mod = c.method.module(tuning_module(im))
    built = build_from_database(mod, c.build_target, c.work_dir, layout_rewrite=c.method.layout_rewrite)
    prov = records.read_provenance(c.work_dir)
    declared = prov["tasks"] - prov["tasks_in_db"]  # tasks the recorded run did not reach (said in its provenance)
    coverage_gate("llama_tiny_s32", built, shipped=True, declared_absent=declared)
    assert len(built.absent) <= declared and built.kernels_tuned > 0
    assert all(k in built.line() for k in built.missing[:4])  # the untuned kernels are named
    out = VMRunner(built.executable, im, with_params=False).outputs()
    gate_outputs(im, out, stage="tvm_tuned_shipped")
    np.testing.assert_allclose(out["logits"], im.reference["logits"], rtol=0, atol=ATOL)


# ----------------------------------------------------------------------------------------------
# a build from a fresh database on a real (test-size) model: the database's schedules, and right.
# How much faster they run is a results-table claim (compare.md, one interleaved run), not an assert:
# a timed assert would pass or fail by the machine and its load.
@pytest.mark.slow
def test_build_from_a_fresh_database_takes_its_schedules_on_test_size_bert(tmp_path, bert_small_im):
    import tvm_ffi

    from lab02_tvm.tuning.apply import build_from_database, query_tuned_primfunc
    from lab02_tvm.tuning.database import load_database
    from lab02_tvm.tuning.tasks import extract_tasks
    from lab02_tvm.tuning.tune import tune
    from lab02_tvm.build import VMRunner, build_and_check, gate_outputs
    from lab02_tvm.graph.passes import run_standard_passes, tuning_module
    from lab02_tvm.tuning.serve import coverage_gate
    host = _host_target()
    im = bert_small_im
    assert max(float(np.abs(r).max()) for r in im.reference.values()) <= 10  # the absolute gate applies
    untuned = build_and_check(im, run_standard_passes(im.mod).fused_mod, host, stage="tvm_untuned")
    mod = tuning_module(im)
    # 12 trials (CI's budget, was 48 outside CI): what is asserted is which schedules the build takes, never how fast
    report = tune(mod, host, tmp_path / "bert_small", max_trials_global=12, deep_top_k=0,
                  progress=False)
    assert report.trials >= 1 and report.tasks_tuned >= 1
    built = build_from_database(mod, host, tmp_path / "bert_small")
    coverage_gate("bert_small", built, shipped=False)  # every kernel with a valid record was used
    assert built.kernels_tuned >= report.tasks_tuned
    # the hottest tuned kernel as built is the database's schedule, not the naive loop nest it was extracted as
    db = load_database(tmp_path / "bert_small")
    hot = [t for t in extract_tasks(mod, host) if db.has_workload(t.task.dispatched[0])][0]
    naive = hot.task.dispatched[0]
    scheduled = query_tuned_primfunc(db, naive, host)
    assert scheduled is not None, hot.name
    assert not tvm_ffi.structural_equal(scheduled["main"], naive["main"]), hot.name
    tuned = VMRunner(built.executable, im, with_params=False)
    for run in (untuned.runner, tuned):
        out = run.outputs()
        gate_outputs(im, out, stage="gate")
        for k, ref in im.reference.items():  # independent NumPy check, same absolute tolerance
            np.testing.assert_allclose(out[k], ref, rtol=0, atol=ATOL, err_msg=k)


@pytest.mark.slow
def test_pipeline_step6_tunes_here_in_the_field_method_and_says_so(results_dir, capsys):
    """``--quick``: no shipped records fit the reduced model, so step 6 tunes here (CI budget) in
    NHWC + weight layout rewrite, builds from that database through both gates, and the compare
    table's row names the records portably (no path), the method and the build CPU."""
    from common.errors import run_cli
    from lab02_tvm.tuning.method import FIELD
    from lab02_tvm.pipeline.run import main
    argv = ["--quick", "--model", "llama_tiny_s32", "--repeats", "2", "--trials", "8", "--tune-minutes", "1"]
    argv += [f"--skip-{s}" for s in ("onnx", "untuned", "cross", "rpc", "tir-pass", "roofline", "peers", "layout",
                                     "spaces")]
    assert run_cli(main, argv) == 0
    out = capsys.readouterr().out
    assert "[6 records] llama_tiny_s32: --quick" in out and "[6 tune] llama_tiny_s32:" in out and "gates ok" in out
    rows = json.loads((results_dir / "lab02" / "compare.json").read_text())["rows"]
    tuned = next(r for r in rows if r["variant"] == "tvm_tuned")
    assert tuned["records"] == "tuned here" and tuned["method"] == str(FIELD)
    assert tuned["built_for"] == _host_target()["mcpu"] and int(tuned["kernels_tuned"].split("/")[0]) >= 1
    assert tuned["max_abs"] <= ATOL


def test_records_ab_refuses_a_folder_without_a_database_before_building(tmp_path):
    """``measure.records_ab``: an empty folder is one line naming it, before the (slow) model build."""
    from common.errors import UserError
    from lab02_tvm.measure.records_ab import compare_folders
    with pytest.raises(UserError, match=f"no MetaSchedule database in {tmp_path}"):
        compare_folders("bert", {"A": tmp_path})


@pytest.mark.parametrize("name", ["../x", "a/b", "a b", ""])
def test_records_ab_refuses_a_table_name_that_is_not_a_plain_file_name(tmp_path, name):
    """``records_ab --name``: a name that would write outside ``results/lab02`` is one line, before any build."""
    from common.errors import UserError
    from lab02_tvm.measure.records_ab import main
    with pytest.raises(UserError, match="letters, digits"):
        main(["--model", "bert", str(tmp_path), str(tmp_path), "--name", name])


def test_records_ab_cpu_must_run_here(tmp_path, monkeypatch):
    """``records_ab --cpu``: an unknown LLVM CPU, or one with instructions this host lacks (a simulated AVX2
    host, never this machine's set), is one line before any build; a CPU the host covers is taken as it is."""
    from common import isa
    from common.errors import UserError
    from lab02_tvm.measure.records_ab import main, runnable_cpu
    with pytest.raises(UserError, match="not an LLVM CPU name"):
        main(["--model", "bert", str(tmp_path), "--cpu", "notacpu"])
    monkeypatch.setattr(isa, "host_features", lambda: isa.isa_features("x86-64-v3"))
    with pytest.raises(UserError, match=r"this host lacks .*avx512bw.*\(e\.g\. x86-64-v3\)") as e:
        runnable_cpu("skylake-avx512")
    assert "\n" not in str(e.value)
    assert runnable_cpu("x86-64-v3") == "x86-64-v3"


@pytest.mark.slow
def test_keep_all_neither_retimes_nor_prunes(tmp_path, monkeypatch):
    """``longrun tune --keep-all`` (candidates for ``pick --top-k``): every record the folder holds after the
    search is still there, no re-timing ran, and the provenance says so. The search itself is stood in for
    (it adds nothing here): this checks what happens after it."""
    from types import SimpleNamespace
    from lab02_tvm.tuning import tune as tune_mod
    from lab02_tvm.tuning.method import FIELD
    root = tmp_path / "shipped"
    here = _shipped_for(root, _host_target()["mcpu"])[_host_target()["mcpu"]]
    _write_db(here, [(0, [1e-3], _host_target()), (0, [2e-3], _host_target()), (1, [1e-3], _host_target())])
    records.write_provenance(here, {"trials": 3, "minutes": 1, "method": FIELD.as_dict(), "timing": "cold"})
    lines = (here / database.RECORDS).read_text()
    report = SimpleNamespace(trials_in_db=3, trials=0, seconds_per_trial=None, stopped_by_time=False, build_errors=0,
                             tasks_total=2, tasks_tuned=2, tasks=[], workloads={})
    monkeypatch.setattr(tune_mod, "tune", lambda *a, **k: report)
    monkeypatch.setattr(longrun, "_retime", lambda *a, **k: pytest.fail("--keep-all re-timed"))
    info = longrun.tune_records("bert", 4, 1.0, command="test", root=root, progress=False, keep_all=True)
    assert (here / database.RECORDS).read_text() == lines and info["records"] == 3 and "kept_all" in info


def test_a_corrupt_provenance_is_one_line_and_choose_passes_the_folder_over(tmp_path):
    """A truncated PROVENANCE.json: reading it names the file in one line; ``choose`` never raises on bad records
    and says why it passed the folder over; the file is left as it was."""
    from common.errors import UserError
    root = tmp_path / "shipped"
    d = _shipped_for(root, "znver3")["znver3"]
    (d / records.PROVENANCE).write_text('{"trials": 1')
    with pytest.raises(UserError, match="PROVENANCE.json does not parse") as e:
        records.read_provenance(d)
    assert "\n" not in str(e.value)
    c = _choose("bert", "znver3", root=root, scratch_root=tmp_path / "s")
    assert not c.shipped and "does not parse" in c.line and (d / records.PROVENANCE).read_text() == '{"trials": 1'
