"""Tests of lab02_tvm.tuning.climb: the measured hill climb around a kernel's best record.

The neighbours are checked against splits worked out by hand; every replayed neighbour of a matmul sketch
is built and checked against NumPy; the database write is checked with given times (no timing decides an
assertion); the end-to-end climb asserts only what holds whichever candidate is faster on this CPU.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from common.errors import UserError
from lab02_tvm.tuning import climb as cl
from lab02_tvm.tuning.database import database_paths, prune, read_database

pytestmark = pytest.mark.lab02

#: 48 x 96 rows x columns: a multiple of every first register tile (6 x 16 on AVX2, 8 x 48 on AVX-512)
M, K, N = 48, 128, 96
FLOPS = 2 * M * K * N
#: fp32 matmul against float64 NumPy: each output sums K products of |x|, |w| <= 1 in another order; every
#: partial sum rounds by at most eps32 * K, so |error| <= K * K * 2**-23 ~ 2e-3 (the worst case; typical is far less).
ATOL = K * K * 2.0 ** -23


def _matmul():
    import tvm
    from tvm import te
    x, w = te.placeholder((M, K), name="x"), te.placeholder((K, N), name="w")
    k = te.reduce_axis((0, K), name="k")
    y = te.compute((M, N), lambda i, j: te.sum(x[i, k] * w[k, j], axis=k), name="matmul")
    return tvm.IRModule({"main": te.create_prim_func([x, w, y])})


def _record(target: dict, space="post-order-apply", tensorized: bool = False):
    """A measured-looking record of the matmul (its first sketch, or first with the register tile, post-processed)
    and the space's postprocessors."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning.harness import cpu_tensor_intrinsics
    tgt = tvm.target.Target(target)
    mod = _matmul()
    with cpu_tensor_intrinsics(tgt):
        ctx = ms.TuneContext(mod=mod, target=tgt, space_generator=space, task_name="t", rand_state=0)
        sch = next(s for s in ctx.generate_design_space() if not tensorized or any(i.kind.name == "Blockize" for i in s.trace.insts))
        postprocs = list(ctx.space_generator.postprocs)
    wl = ms.database.Workload(mod)
    rec = ms.database.TuningRecord(sch.trace, wl, [1e-9], tgt, ms.arg_info.ArgInfo.from_prim_func(mod["main"]))
    base = cl.variant(rec, *next((i, rec.trace.decisions[i]) for i in rec.trace.insts if i in rec.trace.decisions),
                      postprocs)  # the sketch replayed as itself, post-processed: what a database holds
    assert base is not None
    return base, postprocs


def _run(record, target: dict) -> None:
    """Build the record's scheduled kernel and check it against NumPy (:data:`ATOL`)."""
    import tvm
    sch = tvm.s_tir.Schedule(record.workload.mod)
    record.trace.apply_to_schedule(sch, remove_postproc=False)
    lib = tvm.compile(sch.mod, target=tvm.target.Target(target))
    rng = np.random.default_rng(0)
    x, w = rng.uniform(-1, 1, (M, K)).astype("float32"), rng.uniform(-1, 1, (K, N)).astype("float32")
    y = tvm.runtime.tensor(np.zeros((M, N), "float32"))
    lib["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(w), y)
    np.testing.assert_allclose(y.numpy(), x.astype("float64") @ w.astype("float64"), rtol=0, atol=ATOL)


def test_tile_moves_of_a_56_loop_by_hand():
    """[1, 14, 1, 4]: 14 = 2 x 7 and 4 = 2 x 2 give nine moves; with max_innermost 16 the one putting 28
    innermost is left out."""
    assert cl.tile_moves([1, 14, 1, 4], 64) == [
        [2, 7, 1, 4], [1, 7, 2, 4], [1, 7, 1, 8],      # a 2 of the 14 moved
        [7, 2, 1, 4], [1, 2, 7, 4], [1, 2, 1, 28],     # the 7 of the 14 moved
        [2, 14, 1, 2], [1, 28, 1, 2], [1, 14, 2, 2]]   # a 2 of the 4 moved
    assert [1, 2, 1, 28] not in cl.tile_moves([1, 14, 1, 4], 16) and len(cl.tile_moves([1, 14, 1, 4], 16)) == 8
    assert cl.tile_moves([1, 1], 64) == [] and cl.tile_moves([2, 1], 64) == [[1, 2]]
    assert cl._primes(12) == [2, 3] and cl._primes(1) == [] and cl._primes(49) == [7] and cl._primes(97) == [97]


def test_every_neighbour_keeps_the_loop_and_computes_the_matmul(host):
    """Each tile neighbour moves one prime between two parts (product = extent); each categorical one picks
    another candidate; the replayed neighbours (the first eight) compute the matmul (NumPy, ATOL)."""
    target = {**host, "num-cores": 1}
    rec, postprocs = _record(target)
    got = cl.neighbours(rec.trace)
    tiles = [(i, d) for i, d in got if i.kind.name == "SamplePerfectTile"]
    cats = [(i, d) for i, d in got if i.kind.name == "SampleCategorical"]
    assert tiles and cats and len(tiles) + len(cats) == len(got)
    for inst, d in tiles:
        old = [int(x) for x in rec.trace.decisions[inst]]
        assert np.prod(d) == np.prod(old) and sum(a != b for a, b in zip(d, old)) == 2 and d[-1] <= int(inst.attrs[1])
    for inst, c in cats:
        assert c != int(rec.trace.decisions[inst]) and 0 <= c < len(inst.attrs[0])
    built = [v for inst, d in got[:8] if (v := cl.variant(rec, inst, d, postprocs)) is not None]
    assert built, "no neighbour of the sketch replays"
    for v in built:
        _run(v, target)
    inst, d = tiles[0]
    assert cl.variant(rec, inst, d[1:], postprocs) is None  # a split into one part fewer does not replay


def test_a_tensorized_record_climbs_in_the_register_tile_space(host):
    """A record searched with the register tile (``longrun --tile``) is post-processed as its space does
    (``RewriteTensorize`` keeping the zero-init a loop; on the AVX-512 Intel kind the default postprocessors
    reject BERT's tiled neighbours): its neighbours replay there, keep the tile, and compute the matmul."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.lowering.intrin import tile_for, tile_space
    from lab02_tvm.tuning.harness import cpu_tensor_intrinsics
    target = {**host, "num-cores": 1}
    intrin, why = tile_for(_matmul(), target)
    assert intrin, why
    rec, postprocs = _record(target, tile_space(intrin), tensorized=True)
    assert any(i.kind.name == "Tensorize" for i in rec.trace.insts)
    assert cl.space_of(rec) != "post-order-apply" and cl.space_of(_record(target)[0]) == "post-order-apply"
    with cpu_tensor_intrinsics(tvm.target.Target(target)):
        space = ms.TuneContext(mod=_matmul(), target=tvm.target.Target(target), space_generator=cl.space_of(rec),
                               task_name="t").space_generator
        climbed = [v for i, d in cl.neighbours(rec.trace)[:6] if (v := cl.variant(rec, i, d, list(space.postprocs)))]
    assert climbed, "no neighbour of the tensorized record replays in its own space"
    for v in climbed:
        assert any(i.kind.name == "Tensorize" for i in v.trace.insts)
        _run(v, target)


def test_compute_location_moves_by_hand_and_on_a_padded_conv(host):
    """location_moves: one loop out, one in, root, inline. On a 3x3 NHWC conv with padding (MetaSchedule samples
    where the padding is computed), every compute-location neighbour that replays computes the conv (NumPy)."""
    import tvm
    from tvm import te, topi
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning.harness import cpu_tensor_intrinsics
    assert cl.location_moves(5) == [4, 6, -1, -2] and cl.location_moves(-1) == [-2, 0] and cl.location_moves(-2) == [-1]
    assert cl.location_moves(0) == [-1, 1, -2]
    target = {**host, "num-cores": 1}
    tgt = tvm.target.Target(target)
    x, w = te.placeholder((1, 14, 14, 16), name="x"), te.placeholder((3, 3, 16, 16), name="w")
    mod = tvm.IRModule({"main": te.create_prim_func([x, w, topi.nn.conv2d_nhwc(x, w, 1, 1, 1)])})
    with cpu_tensor_intrinsics(tgt):
        ctx = ms.TuneContext(mod=mod, target=tgt, space_generator="post-order-apply", task_name="t", rand_state=0)
        postprocs = list(ctx.space_generator.postprocs)
        recs = [ms.database.TuningRecord(s.trace, ms.database.Workload(mod), None, tgt,
                                         ms.arg_info.ArgInfo.from_prim_func(mod["main"]))
                for s in ctx.generate_design_space()]
        moves = [(r, i, d) for r in recs for i, d in cl.neighbours(r.trace) if i.kind.name == "SampleComputeLocation"]
        assert moves, "no sketch of the padded conv samples a compute location"
        built = [v for r, i, d in moves if (v := cl.variant(r, i, d, postprocs)) is not None]
    assert built, "no compute-location neighbour replays"
    rng = np.random.default_rng(0)
    xv, wv = rng.uniform(-1, 1, (1, 14, 14, 16)).astype("float32"), rng.uniform(-1, 1, (3, 3, 16, 16)).astype("float32")
    xp = np.pad(xv.astype("float64"), ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = sum(np.einsum("nhwc,co->nhwo", xp[:, a:a + 14, b:b + 14, :], wv[a, b].astype("float64"))
              for a in range(3) for b in range(3))
    for v in built[:4]:
        sch = tvm.s_tir.Schedule(v.workload.mod)
        v.trace.apply_to_schedule(sch, remove_postproc=False)
        lib = tvm.compile(sch.mod, target=tgt)
        out = tvm.runtime.tensor(np.zeros((1, 14, 14, 16), "float32"))
        lib["main"](tvm.runtime.tensor(xv), tvm.runtime.tensor(wv), out)
        # 144 products of |x|, |w| <= 1 per output, summed in another order: the ATOL bound with K = 144
        np.testing.assert_allclose(out.numpy(), ref, rtol=0, atol=144 * 144 * 2.0 ** -23)


def _folder(path, target: dict):
    """A database folder holding the matmul's record with an impossible stored time (1 ns)."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    rec, postprocs = _record(target)
    path.mkdir(parents=True, exist_ok=True)
    db = ms.database.JSONDatabase(*map(str, database_paths(path)))
    w = db.commit_workload(rec.workload.mod)
    db.commit_tuning_record(ms.database.TuningRecord(rec.trace, w, [1e-9], tvm.target.Target(target), rec.args_info))
    return rec, postprocs


def test_a_winner_is_written_with_both_times_from_its_confirmation_pass(tmp_path, host):
    """Given times (no measurement): the stored best's line gets its confirmation times, the climbed record is
    appended with its own, and pruning keeps the climbed one."""
    target = {**host, "num-cores": 1}
    rec, postprocs = _folder(tmp_path, target)
    inst, d = next((i, d) for i, d in cl.neighbours(rec.trace) if i.kind.name == "SamplePerfectTile")
    won = cl.variant(rec, inst, d, postprocs)
    c = cl.Climb("matmul", steps=1, measured=3, stored_ms=2.0, climbed_ms=1.0, record=won,
                 confirm_s={"stored": [2e-3, 2e-3], "climbed": [1e-3, 1e-3]}, workload=0, line=0)
    cl._write(tmp_path, read_database(tmp_path), [c])
    lines = read_database(tmp_path).records
    assert [r[1][1] for r in lines] == [[2e-3, 2e-3], [1e-3, 1e-3]]
    prune(tmp_path)
    [kept] = read_database(tmp_path).records
    assert kept[1][1] == [1e-3, 1e-3] and c.row(2)["saved_ms_per_inference"] == pytest.approx(2.0)
    from tvm.s_tir import meta_schedule as ms
    [tvm_rec] = ms.database.JSONDatabase(*map(str, database_paths(tmp_path))).get_all_tuning_records()
    assert str(tvm_rec.trace) == str(won.trace) and c.row(2)["gain_pct"] == 50.0
    summ = cl.summary([c], [c.row(2)], command="longrun climb", seconds=90, rounds=2, min_gain=cl.MIN_GAIN, ranked_by="x")
    assert summ["written"] == ["matmul"] and summ["saved_ms_per_inference"] == 2.0 and summ["minutes"] == 1.5
    assert c.line_text() == "matmul: 3 measured, 1 steps, 2.000 -> 1.000 ms (50.0 %) written"
    json.dumps(summ)
    _run(tvm_rec, target)


def test_climb_folder_end_to_end(tmp_path, host):
    """One step, one round: the stored record (timed 1 ns, impossible) and its neighbours are timed here. What
    holds whichever is faster on this CPU: something was measured; a written record is min_gain faster than the
    stored one in the confirmation pass and both carry real times (> FLOPS / 1e12 s: no core runs fp32 at
    1 TFLOP/s), and it computes the matmul; nothing written leaves the records file as it was."""
    import tvm_ffi
    target = {**host, "num-cores": 1}
    rec, _ = _folder(tmp_path, target)
    before = database_paths(tmp_path)[1].read_bytes()
    names = {str(tvm_ffi.structural_hash(rec.workload.mod)): "matmul"}
    [c] = cl.climb_folder(tmp_path, target, order=["matmul"], names=names, cache_flush=False, rounds=1, max_steps=1)
    assert c.kernel == "matmul" and c.measured >= 1 and c.steps in (0, 1)
    if c.record is None:
        assert database_paths(tmp_path)[1].read_bytes() == before
        return
    assert c.climbed_ms <= (1 - cl.MIN_GAIN) * c.stored_ms and c.changes
    lines = read_database(tmp_path).records
    assert len(lines) == 2 and all(FLOPS / 1e12 < s < 1.0 for r in lines for s in r[1][1])
    _run(c.record, target)


def test_bad_input_changes_nothing(tmp_path, host):
    target = {**host, "num-cores": 1}
    _folder(tmp_path, target)
    before = database_paths(tmp_path)[1].read_bytes()
    with pytest.raises(UserError, match="tune those kernels first"):
        cl.climb_folder(tmp_path, target, order=["fused_nothing"], names={}, cache_flush=False)
    for bad in ({"rounds": 0}, {"step_rounds": 0}, {"min_gain": 1.0}):
        with pytest.raises(UserError, match=r"step_rounds must be >= 1 and min_gain in \[0, 1\)"):
            cl.climb_folder(tmp_path, target, order=[], names={}, cache_flush=False, **bad)
    other = {**host, "mcpu": "znver3" if host.get("mcpu") != "znver3" else "znver4", "num-cores": 1}
    with pytest.raises(UserError, match="climb them on that machine") as e:
        cl.climb_folder(tmp_path, other, order=[], names={}, cache_flush=False)
    assert "\n" not in str(e.value) and database_paths(tmp_path)[1].read_bytes() == before
    from lab02_tvm.tuning import longrun
    with pytest.raises(UserError, match="0 for all"):
        longrun.main(["climb", "--model", "bert", "--deep-top-k", "-1", "--root", str(tmp_path / "empty")])
    with pytest.raises(UserError, match="--step-rounds must be >= 1"):
        longrun.main(["climb", "--model", "bert", "--step-rounds", "0", "--root", str(tmp_path / "empty")])
    with pytest.raises(UserError, match="letters, digits"):  # a table name outside the results folder
        longrun.main(["climb", "--model", "bert", "--name", "../x", "--root", str(tmp_path / "empty")])
    with pytest.raises(UserError, match="holds no records to climb"):  # before the model is loaded
        longrun.main(["climb", "--model", "bert", "--root", str(tmp_path / "empty")])
    json.loads(before.decode().splitlines()[0])
