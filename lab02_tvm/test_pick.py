"""Tests of lab02_tvm.tuning.pick: a top-up's record replaces the shipped one only where it runs faster in the model
than the pass's noise allows, and the folder it writes builds, holds the chosen traces and says what it picked.

References: the decision rule is checked on hand-made rows (exact arithmetic); the end-to-end pick builds the
test-size ResNet from each folder through the lab's PyTorch gate (``build.gate_outputs``), which every build it
times passes, and reads the written database back with MetaSchedule's own ``JSONDatabase``.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from common.errors import UserError
from lab02_tvm.tuning import pick

pytestmark = pytest.mark.lab02

SHIPPED = Path(__file__).resolve().parents[1] / "results/lab02/tuning/llvm-rocketlake-1c/resnet50"


def _row(kernel, base_ms, topup_ms, *, again_ms=None, same=False, holds="both", calls=1):
    return {"kernel": kernel, "calls": calls, "holds": holds, "same": same, "base_ms": base_ms,
            "again_ms": base_ms if again_ms is None else again_ms, "topup_ms": topup_ms}


def test_a_record_is_taken_only_past_min_gain_and_past_the_noise_of_the_base_build_twice():
    """The base build's twin differs by up to 4 % on kernels as heavy as the candidates (an A/A gap): that is
    their floor, so a 3.5 % gain stays with the base even with ``min_gain`` 3 %; 6 % is taken; a slower top-up
    record is never taken; a same-record kernel's own gap (its neighbours changed) is not a candidate; a kernel
    one folder alone holds takes that folder's record."""
    rows, noise = pick.decide([_row("same_a", 1.0, 0.90, again_ms=0.96, same=True),
                               _row("same_b", 2.0, 2.02, again_ms=2.02, same=True),
                               _row("win", 1.0, 0.94), _row("near", 1.0, 0.965), _row("loss", 1.0, 1.1),
                               _row("new", None, 0.5, holds="topup"), _row("old", 0.7, None, holds="base")],
                              min_gain=0.03)
    assert noise == pytest.approx(4.0)
    got = {r["kernel"]: r["chosen"] for r in rows}
    assert got == {"same_a": "same", "same_b": "same", "win": "topup", "near": "base", "loss": "base",
                   "new": "topup", "old": "base"}
    assert {r["kernel"]: r["gain_pct"] for r in rows}["win"] == pytest.approx(6.0)


def test_each_kernel_is_judged_by_the_noise_of_kernels_at_least_half_as_heavy():
    """A 0.01 ms kernel whose twin moved 30 % sets the floor of a 0.02 ms candidate (20 % gain: kept), not of an
    8 ms one, whose floor is the 2 % of a 5 ms (2 calls x 2.5) kernel (5 % gain: taken)."""
    rows = [_row("tiny", 0.01, 0.01, again_ms=0.007), _row("big", 2.5, 2.5, again_ms=2.45, calls=2),
            _row("small", 0.02, 0.016), _row("k", 8.0, 7.6)]
    got, noise = pick.decide(rows, 0.03)
    by = {r["kernel"]: r for r in got}
    assert by["k"]["floor_pct"] == pytest.approx(2.0) and by["k"]["chosen"] == "topup"
    assert by["small"]["floor_pct"] == pytest.approx(30.0) and by["small"]["chosen"] == "base"
    assert noise == pytest.approx(30.0)


def test_min_gain_is_a_least_gain_and_rules_when_the_noise_is_below_it():
    """No kernel of the A/A pair moved more than 1 %: a gain of exactly 3 % passes ``min_gain`` 3 %, 4 % passes
    it and fails 5 %."""
    rows = [_row("same", 1.0, 0.99, again_ms=1.01, same=True), _row("k", 1.0, 0.96), _row("edge", 1.0, 0.97)]
    by = {r["kernel"]: r["chosen"] for r in pick.decide([dict(r) for r in rows], 0.03)[0]}
    assert by["k"] == by["edge"] == "topup"
    assert pick.decide([dict(r) for r in rows], 0.05)[0][1]["chosen"] == "base"


def test_candidates_are_the_first_k_distinct_traces_best_first():
    """A search can record one schedule twice: the second copy is not another candidate."""
    from types import SimpleNamespace as R
    recs = [R(trace="a"), R(trace="a"), R(trace="b"), R(trace="c"), R(trace="d")]
    assert [r.trace for r in pick._candidates(recs, 3)] == ["a", "b", "c"]
    assert [r.trace for r in pick._candidates(recs[:2], 3)] == ["a"]


def _folder(tmp_path, name, **prov_changes):
    """A copy of the shipped ResNet-50 folder with its provenance edited (no target: taken as this host's)."""
    from lab02_tvm.tuning import records
    dst = tmp_path / name
    shutil.copytree(SHIPPED, dst)
    prov = {k: v for k, v in records.read_provenance(dst).items() if k != "target"}
    records.write_provenance(dst, {**prov, **prov_changes})
    return dst


def test_folders_of_two_methods_or_timings_are_refused_before_anything_is_built(tmp_path):
    """Kernels tuned another way are other workloads, times taken another way do not rank together: one line
    each, and no OUT written."""
    base = _folder(tmp_path, "base")
    nchw = _folder(tmp_path, "nchw", method={"layout": "NCHW", "layout_rewrite": False})
    warm = _folder(tmp_path, "warm", timing="warm")
    for other, words in ((nchw, "pick between folders of one method"), (warm, "is timed as the folder it tops up")):
        with pytest.raises(UserError, match=words) as e:
            pick.pick("resnet50", base, other, tmp_path / "out", rounds=1, progress=False)
        assert "\n" not in str(e.value) and not (tmp_path / "out").exists()
    with pytest.raises(UserError, match="overlaps the records folder"):
        pick.pick("resnet50", base, warm, warm / "inner", rounds=1, progress=False)


def test_another_models_folder_a_shipped_out_and_a_bad_min_gain_are_one_line_each(tmp_path):
    """Before anything is built: a folder of another model (its provenance says so), an OUT that is a records
    folder pick did not write (a shipped one: never replaced) and ``--min-gain`` outside [0, 1)."""
    from common.errors import UserError as UE
    base = _folder(tmp_path, "base")
    shipped_copy = _folder(tmp_path, "shipped_copy")
    with pytest.raises(UE, match="holds resnet50's records, not bert's: pass --model resnet50"):
        pick.pick("bert", base, shipped_copy, tmp_path / "out", rounds=1, progress=False)
    before = sorted(q.read_bytes() for q in shipped_copy.iterdir())
    with pytest.raises(UE, match="a records folder this command did not write"):
        pick.pick("resnet50", base, _folder(tmp_path, "topup"), shipped_copy, rounds=1, progress=False)
    assert sorted(q.read_bytes() for q in shipped_copy.iterdir()) == before
    for bad in ("nan", "-0.1", "1.5"):
        with pytest.raises(UE, match=r"--min-gain must be in \[0, 1\)"):
            pick.main(["--model", "resnet50", str(base), str(base), str(tmp_path / "o"), "--min-gain", bad])


def _two_records(func_mod, target):
    """Two different postprocessed MetaSchedule sketches of one kernel (two traces a search could record)."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning import epilogue
    from lab02_tvm.tuning.harness import cpu_tensor_intrinsics
    tgt = tvm.target.Target(target)
    with cpu_tensor_intrinsics(tgt):
        ctx = ms.TuneContext(mod=func_mod, target=tgt, space_generator="post-order-apply", task_name="t", rand_state=0)
    got = []
    for sch in ctx.generate_design_space():
        try:
            got.append(epilogue.postprocess(sch, func_mod, target))
        except UserError:
            continue
        if len(got) == 2 and str(got[0].trace) != str(got[1].trace):
            return got
    pytest.fail("MetaSchedule wrote fewer than two sketches that pass its postprocessors")


@pytest.mark.slow
def test_pick_builds_both_times_them_in_the_model_and_writes_the_chosen_records(tmp_path, results_dir,
                                                                                resnet_small_field, resnet_small_convs):
    """Test-size ResNet, two convolutions: the base folder holds sketch 0 of both, the top-up sketch 1 of the
    first (a candidate), then sketch 0 of it (the base's record, no candidate), and sketch 0 of the second (the
    same record). With ``top_k=2`` two top-up builds are timed; the written folder holds, per kernel, the trace
    of the folder its row chose (the candidate's rank 1); it builds with both kernels scheduled; the provenance
    is the top-up's with a ``picked`` block. A copy of the base folder as the top-up is refused before any build."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning import records
    from lab02_tvm.tuning.apply import build_from_database
    from lab02_tvm.tuning.database import load_database, task_records
    from lab02_tvm.tuning.method import FIELD
    mod, (target, convs) = resnet_small_field, resnet_small_convs
    sketches = {t.name: _two_records(t.task.dispatched[0], target) for t in convs}
    folders = {}
    for label, which in (("base", {convs[0].name: 0, convs[1].name: 0}), ("topup", {convs[0].name: 1, convs[1].name: 0})):
        folders[label] = d = tmp_path / label
        d.mkdir()
        db = ms.database.JSONDatabase(str(d / "database_workload.json"), str(d / "database_tuning_record.json"))
        for t in convs:
            extra = [0] if label == "topup" and t is convs[0] else []  # a slower second record: base's own
            for k, run_s in zip([which[t.name], *extra], (1e-3, 2e-3)):
                db.commit_tuning_record(ms.database.TuningRecord(
                    sketches[t.name][k].trace, db.commit_workload(t.task.dispatched[0]), [run_s],
                    tvm.target.Target(target), ms.arg_info.ArgInfo.from_prim_func(t.task.dispatched[0]["main"])))
        records.write_provenance(d, {"method": FIELD.as_dict(), "timing": "cold", "trials": 2 if label == "base" else 3})
    rows, summ = pick.pick("resnet50", folders["base"], folders["topup"], tmp_path / "out", rounds=2, top_k=2,
                           progress=False, quick=True, command="test")
    by = {r["kernel"]: r for r in rows}
    assert set(by) == {t.name for t in convs} and summ["candidates"] == 1
    assert by[convs[1].name]["same"] and by[convs[1].name]["chosen"] == "same"
    first = by[convs[0].name]
    assert not first["same"] and first["chosen"] in ("topup", "base") and first["topup_rank"] == 1
    assert min(first["base_ms"], first["again_ms"], first["topup_ms"]) > 0 and summ["base_kernels_ms"] > 0
    out_db = load_database(tmp_path / "out")
    want = sketches[convs[0].name][1 if first["chosen"] == "topup" else 0]
    assert str(task_records(out_db, convs[0].task)[0].trace) == str(want.trace)
    assert str(task_records(out_db, convs[1].task)[0].trace) == str(sketches[convs[1].name][0].trace)
    prov = json.loads((tmp_path / "out" / "PROVENANCE.json").read_text())
    assert prov["trials"] == 3 and prov["picked"]["candidates"] == 1 and prov["picked"]["command"] == "test"
    assert set(prov["picked"]["kernels"]) == ({convs[0].name} if first["chosen"] == "topup" else set())
    assert build_from_database(mod, target, tmp_path / "out", layout_rewrite=True).kernels_tuned == 2
    shutil.copytree(folders["base"], tmp_path / "base_copy")  # nothing differs: refused before any build
    with pytest.raises(UserError, match="no kernel's record differs"):
        pick.pick("resnet50", folders["base"], tmp_path / "base_copy", tmp_path / "out2", rounds=1, progress=False,
                  quick=True)
    assert not (tmp_path / "out2").exists()
