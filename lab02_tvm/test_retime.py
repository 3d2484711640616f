"""Tests of lab02_tvm.tuning.retime: a database's best records re-timed on this host replace their stored times.

The stored times in these databases are impossible on purpose (1-3 ns for a 1 MFLOP matmul), so a
re-timed record is told apart from a kept one by a physical bound, not by a speed: no single CPU core
runs fp32 at 1 TFLOP/s (a core of this course's machines peaks near 0.25 TFLOP/s, ``results/*/roof.json``),
so a real time is at least ``FLOPS / 1e12`` s. No assertion compares two measured times.
"""
from __future__ import annotations

import json

import pytest

from common.errors import UserError
from lab02_tvm.tuning import retime as rt
from lab02_tvm.tuning.database import database_paths, read_database

pytestmark = pytest.mark.lab02

M, K, N = 64, 128, 64
FLOPS = 2 * M * K * N
#: stored run seconds of the three sketches' records (impossible: below FLOPS / 1e12) and a failed run
STORED = (1e-9, 2e-9, 3e-9)
FAILED = 1e10


def _matmul(block: str = "matmul"):
    import tvm
    from tvm import te
    x, w = te.placeholder((M, K), name="x"), te.placeholder((K, N), name="w")
    k = te.reduce_axis((0, K), name="k")
    y = te.compute((M, N), lambda i, j: te.sum(x[i, k] * w[k, j], axis=k), name=block)
    return tvm.IRModule({"main": te.create_prim_func([x, w, y])})


def _sketches(mod, tgt) -> list:
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning.harness import cpu_tensor_intrinsics
    with cpu_tensor_intrinsics(tgt):
        ctx = ms.TuneContext(mod=mod, target=tgt, space_generator="post-order-apply", task_name="t", rand_state=0)
        sketches = list(ctx.generate_design_space())[:3]
    assert len(sketches) == 3, "MetaSchedule wrote fewer than three sketches for a matmul"
    return sketches


def _database(path, target: dict, *, foreign_best: bool = False) -> list[str]:
    """A database in ``path``: three sketches of one matmul with the :data:`STORED` times and one failed record;
    returns the traces (as text) in the order of :data:`STORED`. ``foreign_best``: the best record's trace is a
    sketch of a kernel whose block has another name (its first step, ``get_sblock``, fails here: the trace no longer applies)."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    tgt = tvm.target.Target(target)
    mod = _matmul()
    sketches = _sketches(mod, tgt)
    if foreign_best:
        sketches[0] = _sketches(_matmul(block="renamed"), tgt)[0]
    wl, rec = database_paths(path)
    path.mkdir(parents=True, exist_ok=True)
    db = ms.database.JSONDatabase(str(wl), str(rec))
    w = db.commit_workload(mod)
    args = ms.arg_info.ArgInfo.from_prim_func(mod["main"])
    # the best record carries stale argument shapes (as tuning.epilogue once wrote them): the scheduled
    # kernel's own arguments must be what it is timed with
    stale = [ms.arg_info.TensorInfo("float32", [1]) for _ in args]
    for n, (sch, secs) in enumerate(zip([*sketches, sketches[0]], [*STORED, FAILED])):
        db.commit_tuning_record(ms.database.TuningRecord(sch.trace, w, [secs], tgt, stale if n == 0 else args))
    return [str(s.trace) for s in sketches]


def test_retime_replaces_the_top_k_times_and_drops_the_rest(tmp_path, host, monkeypatch):
    """top_k 2, min_gain 0: both best records are re-timed; the stored best stays, the second only if it now runs
    at least as fast (which of the two sketches is faster depends on the CPU, so the test reads it from the row);
    the third record and the failed one are dropped either way. The build folders the builder's worker processes
    made (under their TMPDIR) are gone afterwards."""
    from tvm.s_tir import meta_schedule as ms
    target = {**host, "num-cores": 1}
    traces = _database(tmp_path, target)
    wl_before = database_paths(tmp_path)[0].read_bytes()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # inherited by the build workers retime starts
    rows = rt.retime(tmp_path, target, top_k=2, rounds=2, min_gain=0.0, progress=False, names={})
    assert not list(scratch.iterdir())  # no build folder left behind (a .so beside each .tar was)
    assert database_paths(tmp_path)[0].read_bytes() == wl_before  # workloads untouched
    [row] = rows
    assert row["retimed"] == 2 and row["kernel"] == "workload 0"
    assert row["fastest_other_ms"] > 1e3 * FLOPS / 1e12  # the second record was timed here, not kept as stored
    second_kept = row["fastest_other_ms"] <= row["stored_now_ms"]
    db = read_database(tmp_path)
    assert len(db.records) == 1 + second_kept  # the third and the failed one dropped
    tvm_db = ms.database.JSONDatabase(*map(str, database_paths(tmp_path)))
    assert sorted(str(r.trace) for r in tvm_db.get_all_tuning_records()) == sorted(traces[:1 + second_kept])
    for r in db.records:
        secs = r[1][1]
        assert len(secs) == 2  # one median per round
        assert all(FLOPS / 1e12 < s < 1.0 for s in secs), secs
    assert row["stored_ms"] == pytest.approx(1e3 * STORED[0])
    assert row["host_ratio"] > 1  # any real time is slower than the impossible stored one
    assert row["best_now_ms"] <= row["stored_now_ms"]
    assert row["changed"] == (row["best_now_ms"] < row["stored_now_ms"])
    summ = rt.summary(rows, top_k=2, rounds=2, seconds=1.0)
    assert summ["kernels"] == 1 and summ["host_ratio_median"] == row["host_ratio"]


def test_the_stored_best_stays_unless_beaten_by_min_gain(tmp_path, host):
    """min_gain = 1 - 1e-7: another record would have to run 1e7x faster, under 1e-7 s where the stored best is under
    1 s; no real time is under FLOPS / 1e12 = 1e-6 s, so only the stored best may stay."""
    target = {**host, "num-cores": 1}
    traces = _database(tmp_path, target)
    [row] = rt.retime(tmp_path, target, top_k=3, rounds=1, min_gain=1 - 1e-7, progress=False)
    db = read_database(tmp_path)
    assert len(db.records) == 1 and row["stored_now_ms"] < 1e3 and not row["changed"]
    assert row["best_now_ms"] == row["stored_now_ms"] and row["fastest_other_ms"] > 1e3 * FLOPS / 1e12
    from tvm.s_tir import meta_schedule as ms
    [kept] = ms.database.JSONDatabase(*map(str, database_paths(tmp_path))).get_all_tuning_records()
    assert str(kept.trace) == traces[0]


def test_a_stored_best_that_no_longer_applies_keeps_its_workload_unchanged(tmp_path, host):
    target = {**host, "num-cores": 1}
    _database(tmp_path, target, foreign_best=True)
    before = database_paths(tmp_path)[1].read_bytes()
    [row] = rt.retime(tmp_path, target, top_k=2, rounds=1, progress=False)
    assert row["retimed"] == 0 and row["best_now_ms"] is None
    assert database_paths(tmp_path)[1].read_bytes().count(b"\n") == before.count(b"\n")  # every record kept
    assert len(read_database(tmp_path).best_per_workload()) == 1


def test_bad_arguments_and_other_targets_change_nothing(tmp_path, host):
    _database(tmp_path, {**host, "num-cores": 1})
    before = database_paths(tmp_path)[1].read_bytes()
    with pytest.raises(UserError, match="top_k and rounds must be >= 1"):
        rt.retime(tmp_path, {**host, "num-cores": 1}, top_k=0)
    with pytest.raises(UserError, match=r"min_gain in \[0, 1\)"):
        rt.retime(tmp_path, {**host, "num-cores": 1}, min_gain=1.0)
    other = {**host, "mcpu": "znver3" if host.get("mcpu") != "znver3" else "znver4", "num-cores": 1}
    with pytest.raises(UserError, match="re-time them there") as e:
        rt.retime(tmp_path, other, progress=False)
    assert "\n" not in str(e.value)
    assert database_paths(tmp_path)[1].read_bytes() == before
    with pytest.raises(UserError, match="no MetaSchedule database"):
        rt.retime(tmp_path / "empty", {**host, "num-cores": 1})


def test_an_empty_records_file_is_refused_and_nothing_is_written(tmp_path, host):
    from lab02_tvm.tuning import longrun
    from lab02_tvm.tuning.database import prune
    from lab02_tvm.tuning.records import shipped_dir
    target = {**host, "num-cores": 1}
    work = shipped_dir("llama_tiny_s32", target, tmp_path)
    _database(work, target)
    (work / "PROVENANCE.json").write_text('{"method": {"layout": "NHWC", "layout_rewrite": true}}')
    database_paths(work)[1].write_text("")
    workloads = database_paths(work)[0].read_bytes()
    with pytest.raises(UserError, match="nothing to re-time"):
        rt.retime(work, target, progress=False)
    with pytest.raises(UserError, match="nothing to prune"):
        prune(work)
    with pytest.raises(UserError, match="holds no records to re-time"):  # before the model is loaded
        longrun.main(["retime", "--model", "llama_tiny_s32", "--root", str(tmp_path)])
    assert database_paths(work)[0].read_bytes() == workloads and database_paths(work)[1].read_bytes() == b""


@pytest.mark.parametrize("secs, error", [('["abc"]', True), ("5", True), ("[0.0]", False), ("[-0.001]", False)])
def test_run_times_that_are_not_times(tmp_path, host, secs, error):
    """A run time that is not a list of numbers is a corrupt line (one line, nothing written); one at or below 0 s
    is no measurement: with every record so, nothing is re-timed."""
    from lab02_tvm.tuning.database import CorruptDatabase
    target = {**host, "num-cores": 1}
    _database(tmp_path, target)
    rec = database_paths(tmp_path)[1]
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    rec.write_text("".join(json.dumps([w, [t, "SECS", *rest]]).replace('"SECS"', secs) + "\n" for w, (t, _, *rest) in lines))
    before = rec.read_bytes()
    with pytest.raises(CorruptDatabase if error else UserError, match="run_secs is not a list" if error else "nothing to re-time") as e:
        rt.retime(tmp_path, target, progress=False)
    assert "\n" not in str(e.value) and rec.read_bytes() == before


def test_longrun_retime_refuses_an_empty_folder_and_k_0(tmp_path):
    from lab02_tvm.tuning import longrun
    with pytest.raises(UserError, match="holds no records to re-time"):
        longrun.main(["retime", "--model", "bert", "--root", str(tmp_path)])
    with pytest.raises(UserError, match="holds no records to re-time"):  # --model all: ResNet-50 first
        longrun.main(["retime", "--root", str(tmp_path)])
    with pytest.raises(UserError, match="--retime K must be >= 1"):
        longrun.main(["retime", "--model", "bert", "--retime", "0", "--root", str(tmp_path)])
    with pytest.raises(UserError, match="--retime must be >= 0"):
        longrun.main(["tune", "--model", "bert", "--retime", "-1", "--root", str(tmp_path)])
    with pytest.raises(UserError, match="no MetaSchedule database in .*nowhere"):  # before the model loads
        longrun.main(["retime", "--model", "bert", "--root", str(tmp_path), "--incumbents", str(tmp_path / "nowhere")])


def test_longrun_retime_names_its_table_with_name(monkeypatch):
    """``longrun retime --name`` names the re-timing table (as ``tune --name`` does); with several models each
    gets ``<name>_<model>``; a name that is no file name is refused before anything is re-timed."""
    from lab02_tvm.tuning import longrun
    calls = []
    monkeypatch.setattr(longrun, "retime_folder", lambda model, **kw: calls.append((model, kw["table"])))
    assert longrun.main(["retime", "--model", "bert", "--name", "retime_bert_z4"]) == 0
    assert longrun.main(["retime", "--name", "again"]) == 0
    assert longrun.main(["retime", "--model", "bert"]) == 0
    assert calls == [("bert", "retime_bert_z4"), ("resnet50", "again_resnet50"), ("bert", "again_bert"),
                     ("bert", None)]
    with pytest.raises(UserError, match="--name"):
        longrun.main(["retime", "--model", "bert", "--name", "../x"])
    assert len(calls) == 4


def test_provenance_keeps_the_retiming_of_earlier_runs():
    from lab02_tvm.tuning.records import earlier_runs
    prev = {"date_utc": "2026-12-03 16:00", "command": "longrun tune", "retimed": {"top_k": 4, "changed": ["k"]},
            "trials_per_task": {"k": 3}}
    [run] = earlier_runs(prev)
    assert run["retimed"] == {"top_k": 4, "changed": ["k"]} and "trials_per_task" not in run
    json.dumps(run)
    # a top-up after two climbs keeps both: the last as "climbed", the one before in "climbed_earlier"
    prev |= {"climbed": {"written": ["b"]}, "climbed_earlier": [{"written": ["a"]}]}
    [run] = earlier_runs(prev)
    assert run["climbed"] == {"written": ["b"]} and run["climbed_earlier"] == [{"written": ["a"]}]


def test_the_incumbent_is_re_timed_whatever_its_stored_time_and_is_the_record_to_beat(tmp_path, host):
    """A top-up's new records stored below the folder's old best push it out of the ``top_k`` by stored time:
    with ``incumbents`` naming the third sketch (stored slowest), top_k 1 still re-times it, and with min_gain
    1 - 1e-7 (no real time beats another 1e7x) it is the record that stays. Without, only the first is timed."""
    target = {**host, "num-cores": 1}
    traces = _database(tmp_path, target)
    hash_ = read_database(tmp_path).workloads[0][0]
    before = database_paths(tmp_path)[1].read_text()
    inc = {hash_: json.dumps(json.loads(before.splitlines()[2])[1][0])}  # the third record's trace, as stored
    assert rt.incumbents(tmp_path) == {hash_: json.dumps(json.loads(before.splitlines()[0])[1][0])}  # the best now
    assert rt.incumbents(tmp_path / "none") == {}
    [row] = rt.retime(tmp_path, target, top_k=1, rounds=1, min_gain=1 - 1e-7, incumbents=inc, progress=False)
    assert row["retimed"] == 2 and row["stored_ms"] == pytest.approx(1e3 * STORED[2]) and not row["changed"]
    assert row["fastest_other_ms"] > 1e3 * FLOPS / 1e12  # the stored best was timed too
    from tvm.s_tir import meta_schedule as ms
    [kept] = ms.database.JSONDatabase(*map(str, database_paths(tmp_path))).get_all_tuning_records()
    assert str(kept.trace) == traces[2]
    # an incumbent that no longer applies here has no claim: the records timed now replace the workload's
    gone = tmp_path / "gone"
    _database(gone, target, foreign_best=True)
    foreign = database_paths(gone)[1].read_text().splitlines()[0]
    [row] = rt.retime(gone, target, top_k=2, rounds=1, incumbents={hash_: json.dumps(json.loads(foreign)[1][0])},
                      progress=False)
    assert row["retimed"] == 1 and row["changed"] and row["best_now_ms"] > 1e3 * FLOPS / 1e12
    assert [len(r[1][1]) for r in read_database(gone).records] == [1]  # only the record timed now, its time
    # an incumbent the folder does not hold (another trace) changes nothing: the stored best leads
    database_paths(tmp_path)[1].write_text(before)
    [row] = rt.retime(tmp_path, target, top_k=1, rounds=1, incumbents={hash_: "[]"}, progress=False)
    assert row["retimed"] == 1 and row["stored_ms"] == pytest.approx(1e3 * STORED[0])
