"""Tests of lab02_tvm.tuning.epilogue: an epilogue moved into a tile computes the same, and the in-model choice
writes a records folder that builds and says what it moved.

Independent references: NumPy (float64) for the moved kernel, ``rtol=1e-5, atol=1e-4`` (sums of 64 products of
N(0,1) values, magnitudes ~10, float32 rounding ~1e-6 relative); PyTorch for the model, through the lab's gate
(``build.gate_outputs``), which ``choose`` applies to every build it times.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from common.errors import UserError
from lab02_tvm.tuning import epilogue

pytestmark = pytest.mark.lab02

M, K, N = 32, 64, 48


def _workload(epilogue_ops: bool = True):
    """``relu(x @ w + b)`` as one PrimFunc (an IRModule, TE), the shape of a conv's epilogue on a matmul;
    ``epilogue_ops=False``: ``x @ w`` alone (nothing after the tiled block)."""
    import tvm
    from tvm import te
    x, w, b = te.placeholder((M, K), name="x"), te.placeholder((K, N), name="w"), te.placeholder((N,), name="b")
    k = te.reduce_axis((0, K), name="k")
    y = te.compute((M, N), lambda i, j: te.sum(x[i, k] * w[k, j], axis=k), name="matmul")
    if not epilogue_ops:
        return tvm.IRModule({"main": te.create_prim_func([x, w, y])})
    out = te.compute((M, N), lambda i, j: te.max(y[i, j] + b[j], tvm.tirx.const(0, "float32")), name="epilogue")
    return tvm.IRModule({"main": te.create_prim_func([x, w, b, out])})


def _unfused_sketch(mod, target):
    """A MetaSchedule design-space sketch of ``mod`` that tiles SSRSRS and leaves the epilogue after the nest."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning.harness import cpu_tensor_intrinsics
    tgt = tvm.target.Target(target)
    with cpu_tensor_intrinsics(tgt):
        ctx = ms.TuneContext(mod=mod, target=tgt, space_generator="post-order-apply", task_name="t", rand_state=0)
    for sch in ctx.generate_design_space():  # the sketch without reuse_write is always among them
        if epilogue.unfused(str(sch.trace)):
            return sch
    pytest.fail("MetaSchedule wrote no sketch without the epilogue fused")


def test_unfused_reads_the_trace():
    tiled = '  sch.annotate(block_or_loop=b1, ann_key="meta_schedule.tiling_structure", ann_val="SSRSRS")\n'
    assert epilogue.unfused(tiled)
    assert not epilogue.unfused(tiled + "  sch.reverse_compute_at(block=b5, loop=l9)\n")
    assert not epilogue.unfused("  sch.parallel(loop=l1)\n")  # nothing tiled
    # a reverse_compute_at among the postprocessors does not count: only the part before enter_postproc
    assert epilogue.unfused(tiled + "  sch.enter_postproc()\n  sch.reverse_compute_at(block=b5, loop=l9)\n")


@pytest.mark.parametrize("level", epilogue.LEVELS)
def test_epilogue_moved_into_the_tile_computes_the_same(host, level):
    import tvm
    target = {**host, "num-cores": 1}
    mod = _workload()
    sch = epilogue.with_epilogue_at(mod, _unfused_sketch(mod, target).trace, level, target)
    assert "reverse_compute_at" in str(sch.trace) and not epilogue.unfused(str(sch.trace))
    lib = tvm.compile(sch.mod, target=tvm.target.Target(target))
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in [(M, K), (K, N), (N,)])
    args = [tvm.runtime.tensor(a) for a in (x, w, b, np.zeros((M, N), "float32"))]
    lib["main"](*args)
    ref = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + b, 0)
    np.testing.assert_allclose(args[3].numpy(), ref, rtol=1e-5, atol=1e-4)


def test_a_trace_without_tiling_or_a_bad_level_is_one_line(host):
    from tvm import s_tir
    mod = _workload()
    with pytest.raises(UserError, match="no SSRSRS tiling") as e:
        epilogue.with_epilogue_at(mod, s_tir.Schedule(mod).trace, "S1", host)
    assert "\n" not in str(e.value)
    with pytest.raises(UserError, match="unknown epilogue level"):
        epilogue.with_epilogue_at(mod, s_tir.Schedule(mod).trace, "S3", host)
    target = {**host, "num-cores": 1}
    bare = _workload(epilogue_ops=False)  # tiled, nothing after it: unfused by the trace, nothing to move
    with pytest.raises(UserError, match="no epilogue to move"):
        epilogue.with_epilogue_at(bare, _unfused_sketch(bare, target).trace, "S1", target)


@pytest.mark.slow
def test_choose_writes_records_that_build_and_names_what_moved(tmp_path, results_dir, resnet_small_field,
                                                               resnet_small_convs):
    """Test-size ResNet: two convolutions get an unfused MetaSchedule sketch as their record; ``choose`` with
    ``min_gain=-10`` (always move) builds all three arms through the PyTorch gate, and the folder it writes
    holds the moved traces, one record per kernel, and an ``epilogue`` provenance naming them."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.tuning import records
    from lab02_tvm.tuning.apply import build_from_database
    from lab02_tvm.tuning.database import read_database
    from lab02_tvm.tuning.method import FIELD
    mod, (target, convs) = resnet_small_field, resnet_small_convs
    src = tmp_path / "src"
    src.mkdir()
    db = ms.database.JSONDatabase(str(src / "database_workload.json"), str(src / "database_tuning_record.json"))
    for t in convs:  # a record's trace is a sketch after the postprocessors, as the search measures it
        sch = epilogue.postprocess(_unfused_sketch(t.task.dispatched[0], target), t.task.dispatched[0], target)
        db.commit_tuning_record(ms.database.TuningRecord(sch.trace, db.commit_workload(t.task.dispatched[0]), [1e-3],
                                                         tvm.target.Target(target), ms.arg_info.ArgInfo.from_prim_func(
                                                             t.task.dispatched[0]["main"])))
    records.write_provenance(src, {"method": FIELD.as_dict(), "timing": "cold"})
    rows = epilogue.choose("resnet50", src, tmp_path / "out", rounds=1, min_gain=-10.0, progress=False, quick=True)
    assert {r["kernel"] for r in rows} == {t.name for t in convs}, rows
    assert all(r["chosen"] in epilogue.LEVELS for r in rows), rows
    out = read_database(tmp_path / "out")
    assert len(out.records) == len(out.workloads) == 2
    prov = json.loads((tmp_path / "out" / "PROVENANCE.json").read_text())
    assert set(prov["epilogue"]["kernels"]) == {t.name for t in convs} and prov["timing"] == "cold"
    built = build_from_database(mod, target, tmp_path / "out", layout_rewrite=True)
    assert built.kernels_tuned == 2
    for bad in (src, tmp_path, src / "inner"):  # the source itself, a folder holding it, a folder inside it
        with pytest.raises(UserError, match="overlaps the records folder"):
            epilogue.choose("resnet50", src, bad, rounds=1, quick=True)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    with pytest.raises(UserError, match="is not a records folder"):
        epilogue.choose("resnet50", src, other, rounds=1, quick=True)
    assert (other / "keep.txt").read_text() == "x" and read_database(src).records  # nothing deleted or written


def test_records_of_another_target_are_refused_in_one_line(tmp_path):
    """The in-model times are this host's: records tuned for another CPU are refused before anything is built."""
    import shutil
    from lab02_tvm.tuning import records
    src = tmp_path / "src"
    shutil.copytree(Path(__file__).resolve().parents[1] / "results/lab02/tuning/llvm-rocketlake-1c/resnet50", src)
    prov = records.read_provenance(src)
    records.write_provenance(src, {**prov, "target": '{"kind": "llvm", "mcpu": "cortex-a55", "num-cores": 1}'})
    with pytest.raises(UserError, match="llvm-cortex-a55-1c, this host is") as e:
        epilogue.choose("resnet50", src, tmp_path / "out", rounds=1)
    assert "\n" not in str(e.value) and not (tmp_path / "out").exists()
