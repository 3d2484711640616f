"""The conv weight layout as part of the tuning method, and records ported to another one (``tuning/port.py``).

Independent reference: PyTorch, through the lab's output gate (``build.gate_outputs``: the model's stated
atol/rtol), for the test-size ResNet built in HWIO from ported records; the method's provenance round trip
and refusals are exact.
"""
from __future__ import annotations

import pytest

from common.errors import UserError
from lab02_tvm.tuning.method import FIELD, Method

pytestmark = pytest.mark.lab02

HWIO = Method("NHWC", True, kernel_layout="HWIO")


def test_the_kernel_layout_is_part_of_the_method_and_older_provenance_reads_as_ohwi():
    assert FIELD.kernel_layout == "OHWI" and Method("NCHW").kernel_layout == "OIHW"
    assert "kernel_layout" not in FIELD.as_dict()  # a folder written before the option compares equal
    assert Method.from_provenance({"method": HWIO.as_dict()}) == HWIO and HWIO.as_dict()["kernel_layout"] == "HWIO"
    assert Method.from_provenance({"method": {"layout": "NHWC", "layout_rewrite": True}}) == FIELD != HWIO
    assert str(HWIO) == "NHWC (HWIO weights) + weight layout rewrite" and str(FIELD) == "NHWC + weight layout rewrite"
    with pytest.raises(UserError, match="NCHW convs take weights in OIHW, not 'HWIO'") as e:
        Method("NCHW", True, kernel_layout="HWIO")
    assert "\n" not in str(e.value)
    from dataclasses import replace  # what longrun does with --layout: the default weights follow the data layout
    assert replace(FIELD, layout="NCHW") == Method("NCHW", True) and replace(Method("NCHW"), layout="NHWC") == Method("NHWC")
    with pytest.raises(UserError, match="Winograd rewrites convolutions with OHWI weights"):
        Method("NHWC", True, winograd=True, kernel_layout="HWIO")
    assert not HWIO.extends(FIELD) and not FIELD.extends(HWIO)  # every conv is another workload
    with pytest.raises(UserError, match="cannot join one folder"):
        HWIO.union(FIELD)


def test_hwio_convs_are_other_workloads_of_the_same_kernels(resnet_small_convs):
    """Every conv of the HWIO module reads its weights ``[KH, KW, Cin, Cout]``; its tasks carry the same names as
    OHWI's (what a port matches records by) and none of their workloads is OHWI's (what the method guards)."""
    import tvm_ffi
    from lab02_tvm.tuning.tasks import extract_tasks
    target, convs = resnet_small_convs
    mod = HWIO.prepared("resnet50", quick=True)[1]
    layouts = []

    def visit(expr):
        if hasattr(expr, "op") and getattr(expr.op, "name", "") == "relax.nn.conv2d":
            layouts.append(str(expr.attrs.kernel_layout))
    import tvm
    tvm.relax.analysis.post_order_visit(mod["main"], visit)
    assert layouts and set(layouts) == {"HWIO"}, layouts
    new = {t.name: t for t in extract_tasks(mod, target, True)}
    for t in convs:
        assert t.name in new
        assert tvm_ffi.structural_hash(new[t.name].task.dispatched[0]) != tvm_ffi.structural_hash(t.task.dispatched[0])


@pytest.mark.slow
def test_ported_records_replay_build_and_match_pytorch(tmp_path, resnet_small_im, resnet_small_convs):
    """Two convs' MetaSchedule sketches (OHWI) ported to HWIO: each replays on the new kernel, and the model built in
    HWIO from the ported records passes the output gate against PyTorch with both kernels tuned."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from lab02_tvm.build import VMRunner, gate_outputs
    from lab02_tvm.tuning import epilogue, port
    from lab02_tvm.tuning.apply import build_from_database
    from lab02_tvm.tuning.inmodel import write_records
    from lab02_tvm.tuning.tasks import extract_tasks
    from lab02_tvm.test_epilogue import _unfused_sketch
    target, convs = resnet_small_convs
    db = ms.database.MemoryDatabase()
    for t in convs:  # a record's trace is a sketch after the postprocessors, as the search measures it
        mod = t.task.dispatched[0]
        sch = epilogue.postprocess(_unfused_sketch(mod, target), mod, target)
        db.commit_tuning_record(ms.database.TuningRecord(sch.trace, db.commit_workload(mod), [1e-3],
                                                         tvm.target.Target(target),
                                                         ms.arg_info.ArgInfo.from_prim_func(mod["main"])))
    hwio_mod = HWIO.prepared("resnet50", quick=True)[1]
    entries, rows = port.port_records(convs, extract_tasks(hwio_mod, target, True), db, target)
    assert [r["kernel"] for r in rows] == [t.name for t in convs] and all(r["replayed"] == 1 for r in rows), rows
    write_records(tmp_path / "hwio", entries, {"method": HWIO.as_dict()})
    built = build_from_database(hwio_mod, target, tmp_path / "hwio", layout_rewrite=True)
    assert built.kernels_tuned == 2
    runner = VMRunner(built.executable, resnet_small_im, with_params=False)
    gate_outputs(resnet_small_im, runner.outputs(), stage="ported to HWIO")


def test_a_folder_already_in_the_layout_or_a_layout_its_data_layout_lacks_is_one_line(tmp_path):
    """Both refused from the provenance, before a model is imported or anything is written."""
    import json
    import shutil
    from pathlib import Path
    from lab02_tvm.build import host_target
    from lab02_tvm.tuning import port, records
    src = tmp_path / "src"
    shutil.copytree(Path(__file__).resolve().parents[1] / "results/lab02/tuning/llvm-rocketlake-1c/bert", src)
    prov = {**records.read_provenance(src), "target": json.dumps({**host_target(), "num-cores": 1})}
    records.write_provenance(src, {**prov, "method": Method("NCHW", True).as_dict()})
    with pytest.raises(UserError, match="NCHW convs take weights in OIHW, not 'HWIO'") as e:
        port.port_folder("bert", src, "HWIO", root=tmp_path / "out")
    assert "\n" not in str(e.value)
    records.write_provenance(src, {**prov, "method": HWIO.as_dict()})
    with pytest.raises(UserError, match="is already tuned NHWC \\(HWIO weights\\)"):
        port.port_folder("bert", src, "HWIO", root=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_port_keeps_every_run_counted_and_the_chain():
    """The port is a run of no trials: the source's own run joins ``earlier_runs`` (a top-up after it counts all of
    them: the trials of 2026-12-07's first HWIO top-up had lost the 2,023 of the run before the port); the chain keys
    (an epilogue placement) stay, the source run's own keys do not, and a second port nests the first."""
    from pathlib import Path
    from lab02_tvm.tuning import port, records
    prov = {"trials": 2052, "trials_this_run": 2023, "trials_all_runs": 4068, "minutes": 67.6, "date_utc": "d",
            "command": "longrun tune", "earlier_runs": [{"trials_this_run": 788}, {"trials_this_run": 1257}],
            "epilogue": {"kernels": {"k": {"level": "S1"}}}, "timing": "warm", "method": FIELD.as_dict(),
            "seconds_per_trial": 1.95, "retimed": {"top_k": 4}, "climbed": {"written": ["k"]}, "model": "resnet50"}
    out = port.ported_provenance(prov, Path("results/x"), FIELD, HWIO, command="port", top_k=4)
    assert not {"seconds_per_trial", "retimed", "climbed"} & set(out)  # the source run's, not the folder's
    assert out["model"] == "resnet50" and out["command"] == "port"
    assert out["trials_all_runs"] == 4068 and out["trials_this_run"] == 0 and out["trials"] == 0
    assert [r["trials_this_run"] for r in out["earlier_runs"]] == [788, 1257, 2023]
    assert records.run_totals(out)[0] == 4068 and out["epilogue"] == prov["epilogue"] and out["timing"] == "warm"
    assert Method.from_provenance(out) == HWIO and out["ported_from"]["method"] == FIELD.as_dict()
    assert [r["trials_this_run"] for r in records.earlier_runs(out)] == [788, 1257, 2023, 0]  # what a top-up keeps
    again = port.ported_provenance(out, Path("results/y"), HWIO, FIELD, command="port back")
    assert again["ported_from"]["ported_from"] == out["ported_from"] and Method.from_provenance(again) == FIELD
