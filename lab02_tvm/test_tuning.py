"""Tests of Lab 02 steps 5, 6 and 9: manual schedule, MetaSchedule tuning, tuning over RPC.

The workload is a small dense layer, ``relu(x @ W + b)`` (fp32, x [M, K], W [K, N], b [N]), built
directly in Relax so the tests do not depend on the model importers. The NumPy expression is
the independent reference. Timing comparisons are made between candidates measured in the same
run (interleaved), never against a wall-clock constant. With ``CI=true`` the budgets shrink.
"""
from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import relax

from common.budget import pick
from common.errors import UserError
from common.timing import interleaved, tvm_threads
from lab02_tvm.schedule import manual as schedules
from lab02_tvm.tuning.budget import SHALLOW_MIN_TRIALS, deep_plan_by_time, plan_budget
from lab02_tvm.tuning.tasks import TaskInfo, as_target, extract_tasks

from lab02_tvm.tuning.apply import build_from_database, build_tuned
from lab02_tvm.tuning.database import database_coverage
from lab02_tvm.tuning.tune import trials_that_fit, tune

pytestmark = pytest.mark.lab02

RTOL, ATOL = 1e-5, 1e-4  # fp32 dense with K <= 256, inputs ~N(0, 1): sums of O(16) magnitude


def dense_module(m: int, k: int, n: int, layers: int = 1, seed: int = 0):
    """Relax ``main(x) = relu(x @ W + b)`` repeated ``layers`` times (same shapes, k == n when
    layers > 1); returns (mod, weights [(W, b)], x)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k)).astype("float32")
    weights = []
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorType((m, k), "float32"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            h = xv
            for _ in range(layers):
                w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype("float32")
                b = rng.standard_normal((n,)).astype("float32")
                weights.append((w, b))
                h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(h, relax.const(w)),
                                                           relax.const(b))))
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return bb.get(), weights, x


def dense_reference(x: np.ndarray, weights) -> np.ndarray:
    """NumPy ``relu(x @ W + b)`` for each layer, in float64 then cast to float32."""
    h = x.astype(np.float64)
    for w, b in weights:
        h = np.maximum(h @ w + b, 0.0)
    return h.astype(np.float32)


def host_target() -> dict:
    """The pipeline's target (``MLC_CPU`` when set, :func:`lab02_tvm.build.host_target`) on one core."""
    from lab02_tvm.build import host_target as pipeline_target

    return {**pipeline_target(), "num-cores": 1}


def run_vm(ex, x: np.ndarray):
    vm = relax.VirtualMachine(ex, tvm.cpu())
    arg = tvm.runtime.tensor(x)
    return (lambda: vm["main"](arg)), (lambda: vm["main"](arg).numpy())


# ----------------------------------------------------------------------------------------------
def test_extract_tasks_weights_flops_shares():
    """Two identical dense layers are one task of weight 2 whose FLOPs are ~2*M*K*N."""
    m, k = 32, 64
    mod, _, _ = dense_module(m, k, k, layers=2)
    infos = extract_tasks(mod, host_target())
    assert len(infos) == 1
    ti = infos[0]
    assert ti.weight == 2
    gemm = 2.0 * m * k * k
    assert gemm <= ti.flops <= gemm * 1.1, (ti.flops, gemm)  # + bias add and ReLU per output
    assert ti.share == pytest.approx(1.0)


def test_plan_budget_shallow_then_deep():
    infos = [TaskInfo(index=i, name=f"t{i}", weight=1, flops=f, share=0.0)
             for i, f in enumerate([50.0, 30.0, 10.0, 5.0, 5.0])]
    plan = plan_budget(infos, 40, deep_top_k=2, deep_trials=10)
    assert sum(plan.values()) == 40
    assert all(v >= 6 for v in plan.values())  # shallow: 30 trials over 5 tasks
    assert plan["t0"] == plan["t4"] + 5 and plan["t1"] == plan["t4"] + 5  # deep: 10 over top 2
    # too small for SHALLOW_MIN_TRIALS on every task: only the hottest are covered
    assert SHALLOW_MIN_TRIALS == 4
    small = plan_budget(infos, 10, deep_top_k=0)
    assert small == {"t0": 5, "t1": 5, "t2": 0, "t3": 0, "t4": 0}
    assert plan_budget(infos, 3, deep_top_k=0) == {"t0": 3, "t1": 0, "t2": 0, "t3": 0, "t4": 0}
    shallow, full = plan_budget(infos, 40, deep_top_k=2, deep_trials=10, phases=True)
    assert shallow == {f"t{i}": 6 for i in range(5)} and full == plan
    with pytest.raises(UserError, match="--trials"):
        plan_budget(infos, 0)


def test_deep_phase_ranked_by_a_given_cost():
    """``--deep-by-roofline``: the deep trials go to the tasks with the largest cost (ms lost against
    the roof), not the hottest by FLOPs; a task the cost does not name counts as 0."""
    infos = [TaskInfo(index=i, name=f"t{i}", weight=1, flops=f, share=0.0)
             for i, f in enumerate([50.0, 30.0, 10.0, 5.0, 5.0])]
    shallow, full = plan_budget(infos, 40, deep_top_k=2, deep_trials=10, phases=True)
    plan = deep_plan_by_time(infos, shallow, full, None, 2, cost={"t3": 9.0, "t2": 4.0, "t0": 1.0})
    assert sum(plan.values()) == 40
    assert plan["t3"] == plan["t2"] == 6 + 5 and plan["t0"] == plan["t1"] == plan["t4"] == 6


def test_the_task_the_cap_reaches_gets_the_trials_that_fit():
    assert trials_that_fit(500, left_s=0.0, trials_done=10, elapsed_s=20.0) == 0  # time is up: stop
    assert trials_that_fit(500, left_s=60.0, trials_done=10, elapsed_s=20.0) == 30  # 2 s a trial
    assert trials_that_fit(20, left_s=60.0, trials_done=10, elapsed_s=20.0) == 20  # fits whole
    assert trials_that_fit(500, left_s=1.0, trials_done=10, elapsed_s=20.0) == 1  # time left: one trial
    assert trials_that_fit(500, left_s=60.0, trials_done=0, elapsed_s=0.0, pace_s=3.0) == 20  # earlier pace
    assert trials_that_fit(500, left_s=60.0, trials_done=0, elapsed_s=0.0) == 500  # no pace yet: untrimmed


def test_a_cap_the_phase_does_not_fit_in_trims_its_tasks_alike():
    """Five deep kernels of 720 trials each at 5 s a trial, 55 min left: each gets its share of the time
    (720 / 3,600 of 3,300 s = 132 trials), not the first all 660 and the other four none; the phase's last
    task gets what is left; a share under SHALLOW_MIN_TRIALS is raised to it while the time left fits it."""
    assert trials_that_fit(720, left_s=3300.0, trials_done=10, elapsed_s=50.0, phase_left=3600) == 132
    assert trials_that_fit(720, left_s=3300.0, trials_done=10, elapsed_s=50.0, phase_left=720) == 660
    assert trials_that_fit(720, left_s=3300.0, trials_done=10, elapsed_s=50.0) == 660  # no phase given: all of it
    assert trials_that_fit(100, left_s=60.0, trials_done=10, elapsed_s=20.0, phase_left=10_000) == SHALLOW_MIN_TRIALS
    assert trials_that_fit(100, left_s=5.0, trials_done=10, elapsed_s=20.0, phase_left=10_000) == 2  # 2 fit
    assert trials_that_fit(10, left_s=3300.0, trials_done=10, elapsed_s=50.0, phase_left=100) == 10  # the phase fits


def test_without_a_pace_the_first_task_runs_one_batch_before_the_cap_is_applied(tmp_path):
    """No pace given and nothing timed yet: a 40-trial task under a cap shorter than one batch runs one
    batch of TRIALS_PER_ITER (which times the pace), then stops on the cap instead of running all 40."""
    from lab02_tvm.tuning.tune import TRIALS_PER_ITER, tune_tasks_plan

    mod, _, _ = dense_module(32, 32, 32)
    infos = extract_tasks(mod, host_target())
    stats = tune_tasks_plan(infos, {ti.name: 40 for ti in infos}, host_target(), tmp_path, tune_minutes=0.01,
                            progress=False)
    assert stats["stopped_by_time"] and stats["trials"] == TRIALS_PER_ITER


def test_a_trimmed_task_is_sized_at_its_own_pace_not_at_the_runs(tmp_path, monkeypatch):
    """A deep phase of three kernels, 600 trials wanted each, under a 30-minute cap, with the shallow phase's pace
    (1 s a trial) passed in; the first kernel runs at 4 s a trial (a Winograd convolution), the other two at 1 s.
    Sized at the run's pace, the first would take 600 trials = 40 min and leave the others nothing; each task
    trimmed first runs one batch that times it, so the three end with about a third of the time each (the
    search itself stood in for by a clock that advances by each task's pace: the arithmetic is the test)."""
    from types import SimpleNamespace

    from lab02_tvm.tuning import tune as tune_mod
    from lab02_tvm.tuning.tune import TRIALS_PER_ITER, tune_tasks_plan

    pace = {"conv_winograd": 4.0, "conv_1x1": 1.0, "dense": 1.0}
    clock, done, spent = [0.0], dict.fromkeys(pace, 0), dict.fromkeys(pace, 0.0)

    def fake_tune_one(ti, trials, *, callback, **_):
        clock[0] += trials * pace[ti.name]
        spent[ti.name] += trials * pace[ti.name]
        done[ti.name] += trials
        callback.stats["trials"] += trials

    monkeypatch.setattr(tune_mod, "_tune_one", fake_tune_one)
    monkeypatch.setattr(tune_mod, "task_records", lambda db, task: range(done[task]))
    monkeypatch.setattr(tune_mod, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    infos = [SimpleNamespace(name=n, task=n, index=i) for i, n in enumerate(pace)]
    stats = tune_tasks_plan(infos, {n: 600 for n in pace}, host_target(), tmp_path, tune_minutes=30.0,
                            pace_s=1.0, progress=False)
    assert stats["stopped_by_time"] and clock[0] <= 30 * 60
    assert all(500 <= s <= 700 for s in spent.values()), spent  # a third of 1,800 s each, give or take a batch
    assert TRIALS_PER_ITER < done["conv_winograd"] < 200 and done["dense"] > 500, done


def test_a_task_whose_pace_falls_after_it_was_sized_stops_within_one_piece_of_the_cap(tmp_path, monkeypatch):
    """One deep task, 600 trials wanted, a 10-minute cap; it runs at 1 s a trial for its first 200 trials and then
    at 10 s (a runner worker that ran the machine out of memory, Zen 4 2026-12-07). Sized at 1 s it gets 584
    trials, which would take 4,184 s; checked between pieces of CHUNK_TRIALS it stops once the cap has passed:
    within one piece's time of it, and the run says it stopped (a fake clock stands in for the search)."""
    from types import SimpleNamespace

    from lab02_tvm.tuning import tune as tune_mod
    from lab02_tvm.tuning.tune import CHUNK_TRIALS, tune_tasks_plan

    clock, done = [0.0], [0]

    def fake_tune_one(ti, trials, *, callback, **_):
        for _ in range(trials):
            clock[0] += 1.0 if done[0] < 200 else 10.0
            done[0] += 1
        callback.stats["trials"] += trials

    monkeypatch.setattr(tune_mod, "_tune_one", fake_tune_one)
    monkeypatch.setattr(tune_mod, "task_records", lambda db, task: range(done[0]))
    monkeypatch.setattr(tune_mod, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    infos = [SimpleNamespace(name="dense", task="dense", index=0)]
    stats = tune_tasks_plan(infos, {"dense": 600}, host_target(), tmp_path, tune_minutes=10.0, pace_s=1.0,
                            progress=False)
    assert stats["stopped_by_time"] and stats["trials"] == done[0] < 600
    assert 600 <= clock[0] <= 600 + 10.0 * CHUNK_TRIALS, clock[0]


def test_a_task_the_cap_cannot_fit_gets_one_trial_and_the_run_says_it_stopped(tmp_path):
    """Eight trials planned, a pace of 1,000 s a trial and a one-minute cap: one trial runs, not eight."""
    from lab02_tvm.tuning.database import open_database, task_records
    from lab02_tvm.tuning.tune import tune_tasks_plan

    mod, _, _ = dense_module(32, 32, 32)
    infos = extract_tasks(mod, host_target())
    stats = tune_tasks_plan(infos, {ti.name: 8 for ti in infos}, host_target(), tmp_path, tune_minutes=1.0,
                            pace_s=1000.0, progress=False)
    assert stats["stopped_by_time"] and stats["trials"] == 1
    assert len(task_records(open_database(tmp_path), infos[0].task)) == 1


def test_the_runner_replaces_its_worker_process_every_recycle_every_candidates():
    """The runner's one worker process (where every candidate is loaded and timed, its memory growing with each)
    is a new process after ``recycle_every`` uses, and before that the same one: with 2, the worker's pid is the
    same for uses 1-2 and 3-4 and differs between them."""
    import os
    from lab02_tvm.tuning.harness import make_runner, release
    runner = make_runner(recycle_every=2)
    try:
        pids = [runner.pool.submit(os.getpid).result() for _ in range(4)]
    finally:
        release(runner.pool)
    assert pids[0] == pids[1] and pids[2] == pids[3] and pids[1] != pids[2], pids
    assert os.getpid() not in pids


def test_inside_shared_pools_runners_and_builders_of_one_setting_share_their_workers(monkeypatch):
    """Inside ``shared_pools`` two runners made alike time in one worker process (same pid) and two builders
    build in one pool; a runner made with another ``TVM_NUM_THREADS`` (read by a worker only when it starts)
    gets a pool of its own; ``release`` leaves a kept pool running and the block's end shuts every pool down.
    Outside a block each runner has its own pool. (The tests run inside one block: lab02_tvm/conftest.py.)"""
    import os
    from lab02_tvm.tuning import harness
    monkeypatch.setattr(harness, "_SHARED", None)  # this test's own block, not the session's
    outside = [harness.make_runner(recycle_every=3) for _ in range(2)]
    assert outside[0].pool is not outside[1].pool
    for r in outside:
        harness.release(r.pool)
    with harness.shared_pools():
        a, b = harness.make_runner(recycle_every=3), harness.make_runner(recycle_every=3)
        assert a.pool is b.pool
        pid = a.pool.submit(os.getpid).result()
        harness.release(a.pool)
        assert b.pool.submit(os.getpid).result() == pid != os.getpid()
        monkeypatch.setenv("TVM_NUM_THREADS", "7")
        other = harness.make_runner(recycle_every=3)
        assert other.pool is not a.pool
        builders = [harness.make_builder(1) for _ in range(2)]
        assert builders[0].build([]) == [] and builders[1].build([]) == []
        assert builders[0]._pool is builders[1]._pool
        kept = [a.pool, other.pool, builders[0]._pool]
    assert harness._SHARED is None
    for pool in kept:
        with pytest.raises(RuntimeError):
            pool.submit(os.getpid).result()


def test_manual_schedule_matches_numpy_after_each_step_and_shows_loops():
    """MLC-course style: after every primitive the kernel still computes relu(x @ W + b)."""
    mod, _, _ = dense_module(64, 128, 96)
    target = host_target()
    prim = extract_tasks(mod, target)[0].task.dispatched[0]
    arrays, outputs = schedules.kernel_args(prim, seed=1)
    assert outputs == [3] and [a.shape for a in arrays] == [(64, 128), (128, 96), (96,), (64, 96)]
    x, w, b = arrays[:3]
    expected = dense_reference(x, [(w, b)])
    checked = []

    def check(step: str, m: tvm.IRModule) -> None:
        call, read = schedules.run_kernel(schedules.build_kernel(m, target),
                                          [a.copy() for a in arrays], outputs)
        call()
        np.testing.assert_allclose(read()[0], expected, rtol=RTOL, atol=ATOL, err_msg=step)
        checked.append(step)

    result = schedules.manual_schedule(prim, target, check=check)
    names = [s for s, _ in result.steps]
    assert checked == names
    for prefix in ("split", "reorder", "cache_write", "reverse_compute_inline", "vectorize",
                   "unroll", "fuse + parallel", "decompose_reduction"):
        assert any(n.startswith(prefix) for n in names), (prefix, names)
    nest_before, nest_after = result.steps[0][1], result.steps[-1][1]
    assert "[parallel]" not in nest_before and "[vectorized]" not in nest_before
    assert "[parallel]" in nest_after and "[vectorized]" in nest_after and "[unrolled]" in nest_after
    assert len(nest_after.splitlines()) > len(nest_before.splitlines())  # tiled: more loops
    script = result.sch.mod.script()
    assert "T.parallel" in script and "T.vectorized" in script and '"local"' in script
    assert "matmul_init" in script and "matmul_update" in script


def test_build_tuned_without_database_is_one_clear_error(tmp_path):
    mod, _, _ = dense_module(8, 8, 8)
    with pytest.raises(UserError, match="no MetaSchedule database"):
        build_tuned(mod, host_target(), tmp_path / "empty")


# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """One small tuning run shared by the tests below: (mod, weights, x, work_dir, report)."""
    mod, weights, x = dense_module(256, 256, 256, seed=2)
    work_dir = tmp_path_factory.mktemp("tuning") / "dense"
    report = tune(mod, host_target(), work_dir, max_trials_global=pick(16, 8),
                         deep_top_k=0, progress=False)
    return mod, weights, x, work_dir, report


@pytest.mark.parametrize("folder, model, quick", [("bert", "bert", False), ("bert_quick", "bert", True),
                                                  ("resnet50_quick", "resnet50", True)])
def test_the_suggested_command_is_one_the_pipeline_takes(folder, model, quick):
    """The command a tuning report suggests names the model and ``--quick`` apart (``--model bert_quick``, the
    folder's name, was refused as an invalid choice); the pipeline's own parser reads it back."""
    import shlex

    from lab02_tvm.pipeline.run import settings
    from lab02_tvm.tuning.tune import pipeline_command

    cmd = shlex.split(pipeline_command(folder, 2200))
    assert cmd[:3] == ["python", "-m", "lab02_tvm.pipeline"]
    s = settings(cmd[3:])
    assert s.models == (model,) and s.quick == quick and s.trials == 2200


@pytest.mark.slow
def test_tuned_faster_than_untuned_same_run(tuned):
    mod, weights, x, work_dir, report = tuned
    target = host_target()
    assert report.trials == pick(16, 8) and report.tasks_total == 1
    assert report.tasks_tuned == 1 and report.share_covered == pytest.approx(1.0)
    assert list(report.workloads.values()) == [t["task"] for t in report.tasks]  # one hash per task, for a re-timing
    assert report.build_error_rate < 0.5, report
    assert report.est_minutes_100_per_task > 0 and "--trials 100" in report.command_100
    assert (work_dir / "database_tuning_record.json").stat().st_size > 0
    expected = dense_reference(x, weights)
    untuned_call, untuned_read = run_vm(tvm.compile(mod, target=as_target(target)), x)
    tuned_call, tuned_read = run_vm(build_tuned(mod, target, work_dir), x)
    np.testing.assert_allclose(untuned_read(), expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(tuned_read(), expected, rtol=RTOL, atol=ATOL)
    with tvm_threads(1):
        stats = interleaved({"untuned": untuned_call, "tuned": tuned_call}, warmup=2,
                            repeats=pick(10, 5))
    assert stats["tuned"].median_ms < stats["untuned"].median_ms, stats


@pytest.mark.slow
def test_second_run_reuses_database_without_tuning(tuned):
    mod, weights, x, work_dir, first = tuned
    records = work_dir / "database_tuning_record.json"
    before = records.read_bytes()
    again = tune(mod, host_target(), work_dir, max_trials_global=pick(16, 8),
                        deep_top_k=0, progress=False)
    assert again.trials == 0 and again.reused
    assert again.trials_in_db == first.trials_in_db
    assert records.read_bytes() == before  # nothing measured, nothing appended
    assert again.seconds_per_trial == pytest.approx(first.seconds_per_trial)
    cov = database_coverage(mod, host_target(), work_dir)
    assert cov["tasks_in_db"] == 1 and cov["share_covered"] == pytest.approx(1.0)
    _, read = run_vm(build_tuned(mod, host_target(), work_dir), x)
    np.testing.assert_allclose(read(), dense_reference(x, weights), rtol=RTOL, atol=ATOL)


@pytest.mark.slow
def test_only_missing_tunes_just_the_kernels_without_a_record(tuned, tmp_path):
    """A top-up after a pass changed one workload: the known kernel gets no trial, the new one all."""
    import shutil

    mod, weights, x, work_dir, _ = tuned
    with pytest.raises(UserError, match="nothing missing"):
        tune(mod, host_target(), work_dir, max_trials_global=4, deep_top_k=0, progress=False,
                    only_missing=True)
    work = tmp_path / "dense2"
    shutil.copytree(work_dir, work)
    w1, b1 = weights[0]
    w2 = (np.random.default_rng(3).standard_normal((256, 64)) / 16).astype("float32")
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorType((256, 256), "float32"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(xv, relax.const(w1)), relax.const(b1))))
            out = bb.emit_output(relax.op.matmul(h, relax.const(w2)))  # the new workload
        bb.emit_func_output(out)
    two = bb.get()
    report = tune(two, host_target(), work, max_trials_global=4, deep_top_k=0, progress=False,
                         only_missing=True)
    planned = {r["task"]: r["planned"] for r in report.tasks}
    assert report.tasks_total == 2 and sorted(planned.values()) == [0, 4]
    assert report.tasks_tuned == 2  # the known kernel from the copied records, the new one from this run
    _, read = run_vm(build_tuned(two, host_target(), work), x)
    expected = (np.maximum(x.astype(np.float64) @ w1 + b1, 0) @ w2).astype(np.float32)
    np.testing.assert_allclose(read(), expected, rtol=RTOL, atol=ATOL)


@pytest.mark.slow
def test_three_point_rows_use_the_database(tuned):
    mod, _, _, work_dir, report = tuned
    records = work_dir / "database_tuning_record.json"
    before = records.read_bytes()
    rows = schedules.run_three_point(mod, host_target(), tuned_work_dir=work_dir, tune_trials=8,
                                     repeats=3, progress=False)
    assert records.read_bytes() == before  # the kernel was in the database: not re-tuned
    assert [r["schedule"] for r in rows] == ["naive", "manual", "tuned"]
    assert all(r["status"] == "ok" for r in rows)
    naive, manual, tuned_row = rows
    assert naive["speedup_vs_naive"] == 1.0
    assert manual["median_ms"] < naive["median_ms"]  # same run, interleaved
    assert tuned_row["tuned_now"] == 0 and tuned_row["trials"] == report.trials_in_db


@pytest.mark.slow
def test_rpc_tuning_on_loopback_measures_every_trial_and_its_best_schedule_is_right(tmp_path):
    """Every trial's time came back over RPC (finite, > 0); the best RPC-measured schedule builds and
    computes relu(x @ W + b) like NumPy; the tracker and servers are gone afterwards."""
    from lab02_tvm.tuning import rpc
    from lab02_tvm.tuning.rpc import rpc_failure

    mod, weights, x = dense_module(64, 64, 64, seed=3)
    work = tmp_path / "rpc"
    trials = pick(4, 2)
    res = rpc.tune_over_rpc(mod, host_target(), work, trials=trials, n_servers=2, timeout_s=240, progress=False)
    assert res["servers_registered"] == 2 and res["trials"] == trials
    assert res["measured"] == res["trials"] == len(res["run_ms"]), res
    assert all(np.isfinite(t) and t > 0 for t in res["run_ms"]), res["run_ms"]
    assert res["best_ms"] == pytest.approx(min(res["run_ms"]), rel=1e-6)
    assert res["build_errors"] == 0 and res["run_errors"] == 0
    assert res["cleaned_up"], "tracker/server processes still alive"
    assert rpc_failure(res) is None
    assert rpc_failure({**res, "measured": res["trials"] - 1}).startswith(f"{trials - 1} of {trials} trials")
    built = build_from_database(mod, host_target(), work)
    assert built.kernels_tuned == built.kernels_total == 1  # the schedule measured over RPC
    _, read = run_vm(built.executable, x)
    np.testing.assert_allclose(read(), dense_reference(x, weights), rtol=RTOL, atol=ATOL)
