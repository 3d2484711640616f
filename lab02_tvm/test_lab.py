"""Lab 02 tests (import, struct info, passes, untuned build, cross-compile, custom TIR pass, CLI).

The tuning, manual-schedule and RPC tests live in ``test_tuning.py``. Models are the reduced
configurations of ``common.models`` (BERT 2 layers / 128 hidden; ResNet depths 1-1-1-1 at
64×64): full BERT-base takes ~25 s per *untuned* inference, too slow for a test. Every numeric
check compares against PyTorch eager, ONNX Runtime or NumPy with the tolerance stated.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from common.errors import MissingDependency, UserError, run_cli
from common.models import ModelBundle, build_bert

pytestmark = pytest.mark.lab02

ATOL = 1e-4  # the seed's gate, absolute: max |tvm - reference| <= 1e-4 (the test models' outputs allow it)


def _assert_close(ref: dict, out: dict) -> None:
    """Independent of common.gates: NumPy check of every output at the absolute ``ATOL`` (the seed's 1e-4)."""
    assert list(ref) == list(out)
    for k in ref:
        np.testing.assert_allclose(out[k], ref[k], rtol=0, atol=ATOL, err_msg=k)


# ---------------------------------------------------------------------------------------------
# steps 1-2: import and struct info

def test_bert_import_is_well_formed_with_full_struct_info(bert_small):
    from tvm import relax
    from lab02_tvm.graph.struct_info import bindings_without_struct_info, summarize
    bundle, im, _ = bert_small
    relax.analysis.well_formed(im.mod)  # raises on the first violation
    assert bindings_without_struct_info(im.mod) == []
    s = summarize(im)
    assert s["well_formed"] and s["untyped_bindings"] == 0
    # every torch parameter became a Relax function parameter with the same element count
    n_torch = sum(p.numel() for p in bundle.model.parameters())
    assert sum(int(np.prod(p.shape)) for p in im.params) == n_torch
    assert s["param_bytes"] >= 4 * n_torch  # + embedded constants (position ids, ...)
    main = im.mod["main"]
    assert [p.name for p in main.params[: len(im.inputs)]] == list(bundle.inputs)
    assert int(main.attrs["num_input"]) == 3


def test_struct_info_check_flags_an_untyped_binding():
    """The struct-info check must be able to fail: a parameter of unknown shape is reported."""
    from tvm import relax
    from lab02_tvm.graph.struct_info import bindings_without_struct_info
    x = relax.Var("x", relax.TensorType(ndim=-1, dtype="float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.emit(relax.op.add(x, x))
        bb.emit_func_output(y)
    assert bindings_without_struct_info(bb.get()) == ["main:x", "main:" + y.name]


def test_unsupported_torch_op_gives_one_line_listing_it():
    from lab02_tvm.graph.frontend import import_torch

    class Odd(torch.nn.Module):
        def forward(self, x):
            return torch.special.bessel_j0(x) * 2

    b = ModelBundle(name="odd", model=Odd().eval(), inputs={"x": torch.randn(4)}, output_names=["y"])
    with pytest.raises(UserError) as ei:
        import_torch(b)
    msg = str(ei.value)
    assert "special_bessel_j0" in msg and "\n" not in msg


def test_unsupported_onnx_op_gives_one_line_listing_it(tmp_path):
    import onnx
    from onnx import TensorProto, helper
    from lab02_tvm.graph.frontend import import_onnx
    node = helper.make_node("FancyOp", ["x"], ["y"], domain="com.example")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    path = tmp_path / "fancy.onnx"
    onnx.save(m, str(path))
    with pytest.raises(UserError) as ei:
        import_onnx(path, {"x": np.zeros(2, np.float32)})
    assert "FancyOp" in str(ei.value) and "\n" not in str(ei.value)


def test_missing_onnx_file_is_a_user_error(tmp_path):
    from lab02_tvm.graph.frontend import import_onnx
    with pytest.raises(UserError, match="does not exist"):
        import_onnx(tmp_path / "nope.onnx", {})


@pytest.mark.slow
def test_llama_onnx_via_relax_matches_onnxruntime(results_dir, host):
    """One model, two compilers: TVM (from_onnx) vs ONNX Runtime on Lab 01's LLaMA-tiny file."""
    from common.models import build_llama_tiny
    from lab02_tvm.build import build_and_check
    from lab02_tvm.graph.frontend import import_onnx, lab01_llama_onnx
    path, _ = lab01_llama_onnx()
    im = import_onnx(path, build_llama_tiny().numpy_inputs(), name="llama_tiny_onnx")
    assert im.reference_name == "onnxruntime"
    run = build_and_check(im, im.mod, host, stage="tvm_from_onnx")
    _assert_close(im.reference, run.runner.outputs())
    # and the ONNX Runtime reference itself agrees with PyTorch (the ONNX file is faithful)
    torch_ref = build_llama_tiny().run()
    np.testing.assert_allclose(im.reference["logits"], torch_ref["logits"], rtol=0, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# step 3: passes

def test_standard_passes_lower_and_fuse(bert_small):
    _, _, pr = bert_small
    rows = {r["stage"]: r for r in pr.rows}
    assert [r["stage"] for r in pr.rows][1:] == [
        "DecomposeOpsForInference", "FoldConstant", "EliminateCommonSubexpr", "DeadCodeElimination",
        "LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR"]
    assert all(r["well_formed"] for r in pr.rows)
    assert rows["imported"]["call_tir"] == 0 and rows["imported"]["tir_primfuncs"] == 0
    # after LegalizeOps every Relax op is a call into TIR
    assert rows["LegalizeOps"]["call_tir"] == rows["LegalizeOps"]["main_calls"] == rows["LegalizeOps"]["relax_ops"] > 0
    # CSE removes duplicated reshapes of the attention mask
    assert rows["EliminateCommonSubexpr"]["main_calls"] < rows["FoldConstant"]["main_calls"]
    # FuseOps groups calls into Relax functions: main makes fewer calls, the same ops exist inside
    assert rows["FuseOps"]["relax_functions"] > 1
    assert rows["FuseOps"]["main_calls"] < rows["LegalizeOps"]["main_calls"]
    # FuseTIR turns each group into one PrimFunc: main calls only TIR kernels, fewer of them
    assert rows["FuseTIR"]["relax_functions"] == 1
    assert rows["FuseTIR"]["call_tir"] == rows["FuseTIR"]["main_calls"] == rows["FuseOps"]["main_calls"]
    assert rows["FuseTIR"]["tir_primfuncs"] < rows["LegalizeOps"]["tir_primfuncs"]
    assert rows["FuseTIR"]["call_tir"] < rows["LegalizeOps"]["call_tir"]
    # the graph-level module is still unfused Relax (what MetaSchedule gets)
    from lab02_tvm.graph.struct_info import module_counts
    assert module_counts(pr.graph_mod)["call_tir"] == 0


# ---------------------------------------------------------------------------------------------
# step 4: untuned build

def test_untuned_bert_matches_pytorch(bert_small, host):
    from lab02_tvm.build import build_and_check
    _, im, pr = bert_small
    run = build_and_check(im, pr.fused_mod, host, stage="tvm_untuned")
    out = run.runner.outputs()
    _assert_close(im.reference, out)
    assert set(out) == {"last_hidden_state", "pooler_output"}
    assert run.errors["max_abs"] <= ATOL


def test_take_legalizes_as_tvm_does_without_topis_warning():
    """The embedding lookup's legalization: TVM's own rule (the reference, applied through
    ``LegalizeOps``' custom map) gives the same TIR, so the same workloads, and only it logs topi's line."""
    import tvm
    from tvm import relax
    from tvm.relax.transform.legalize_ops.index import _take

    from common.native_output import capture_fd
    from lab02_tvm.graph.frontend import TAKE_FAST_WARNING, quiet_take_legalization

    def module():
        bb = relax.BlockBuilder()
        table = relax.Var("table", relax.TensorType((10, 4), "float32"))
        ids = relax.Var("ids", relax.TensorType((3,), "int64"))
        with bb.function("main", [table, ids]):
            bb.emit_func_output(bb.emit(relax.op.take(table, ids, axis=0, mode="fast")))
        return bb.get()

    quiet_take_legalization()
    with capture_fd(2) as ours_log:
        ours = relax.transform.LegalizeOps()(module())
    with capture_fd(2) as theirs_log:
        theirs = relax.transform.LegalizeOps({"relax.take": _take})(module())
    assert TAKE_FAST_WARNING in theirs_log.text
    assert TAKE_FAST_WARNING not in ours_log.text
    tvm.ir.assert_structural_equal(ours, theirs)


@pytest.mark.slow
def test_untuned_resnet50_matches_pytorch(host, resnet_small_im):
    """ResNet-50 family at reduced depth (1-1-1-1) and 64×64: same ops as the full model."""
    from lab02_tvm.build import build_and_check
    from tvm import relax
    from lab02_tvm.graph.struct_info import bindings_without_struct_info
    from lab02_tvm.graph.passes import run_standard_passes
    im = resnet_small_im
    relax.analysis.well_formed(im.mod)  # raises on the first violation
    assert bindings_without_struct_info(im.mod) == []
    pr = run_standard_passes(im.mod)
    assert all(r["well_formed"] for r in pr.rows)
    run = build_and_check(im, pr.fused_mod, host, stage="tvm_untuned")
    _assert_close(im.reference, run.runner.outputs())


@pytest.mark.slow
def test_tuning_module_folds_batchnorm_and_keeps_outputs(host, resnet_small_im):
    """The module handed to MetaSchedule: weights bound, BN folded into conv, unfused, same outputs."""
    from lab02_tvm.build import VMRunner, compile_module
    from lab02_tvm.graph.struct_info import module_counts, relax_op_counts
    from lab02_tvm.graph.passes import tuning_module
    im = resnet_small_im
    before = relax_op_counts(im.mod)
    mod = tuning_module(im)
    ops = relax_op_counts(mod)
    assert before["relax.nn.batch_norm"] == 17 and ops["relax.nn.batch_norm"] == 0
    assert ops["relax.nn.conv2d"] == before["relax.nn.conv2d"]
    assert ops["relax.sqrt"] == 0 and ops["relax.divide"] == 0  # no BN arithmetic left at run time
    assert module_counts(mod)["call_tir"] == 0  # still unfused Relax
    assert len(mod["main"].params) == len(im.inputs)  # weights are constants now
    ex, _ = compile_module(mod, host)
    _assert_close(im.reference, VMRunner(ex, im, with_params=False).outputs())


def test_gate_is_absolute_where_the_scale_allows_and_named_relative_elsewhere():
    """build.gate_for: the seed's absolute 1e-4 up to output scale 10; above, 1e-4 of the scale, named so."""
    from common.gates import compare
    from lab02_tvm.build import gate_for
    small = {"y": np.array([0.5, -2.0], np.float32)}
    kw, words = gate_for(small)
    assert kw == {"atol": 1e-4} and words.startswith("absolute")
    assert not compare(small, {"y": small["y"] + np.float32(2e-4)}, **kw).passed  # 2e-4 > 1e-4 absolute
    logits = {"logits": np.array([939.0, -12.0], np.float32)}  # full ResNet-50's random-weight scale
    kw, words = gate_for(logits)
    assert kw == {"atol": 1e-4, "scale_atol_by_ref": True} and words.startswith("relative") and "939" in words
    assert compare(logits, {"logits": logits["logits"] + np.float32(1e-3)}, **kw).passed  # 1e-3 < 0.0939
    assert not compare(logits, {"logits": logits["logits"] + np.float32(0.2)}, **kw).passed


def test_gate_catches_a_wrong_output(bert_small):
    from common.gates import GateError
    from lab02_tvm.build import gate_outputs
    _, im, _ = bert_small
    bad = {k: v.copy() for k, v in im.reference.items()}
    bad["pooler_output"][0, 0] += 1e-2 * float(np.abs(bad["pooler_output"]).max())
    with pytest.raises(GateError):
        gate_outputs(im, bad, stage="corrupted")


def test_host_target_names_the_cpu(host):
    """The step-4 target is LLVM for *this* CPU: ``mcpu`` is LLVM's host CPU name (unless generic), or the CPU
    ``MLC_CPU`` names (the suite run as if on another CPU, e.g. ``MLC_CPU=haswell`` for AVX2 code on an AVX-512 host)."""
    import os

    import tvm
    from tvm.target import codegen
    t = tvm.target.Target(host)
    assert t.kind.name == "llvm"
    cpu = os.environ.get("MLC_CPU") or codegen.llvm_get_system_cpu()
    if cpu and cpu != "generic":
        assert host["mcpu"] == cpu and str(t.attrs.get("mcpu")) == cpu
    else:
        assert "mcpu" not in host


def test_cuda_path_skips_with_a_reason_without_gpu(bert_small):
    from lab02_tvm.build import build_cuda, cuda_reason
    reason = cuda_reason()
    if reason is None:
        pytest.skip("a CUDA device is present; the GPU test below covers the path")
    _, im, pr = bert_small
    with pytest.raises(MissingDependency) as ei:
        build_cuda(im, pr.fused_mod)
    assert "\n" not in str(ei.value) and "cuda" in str(ei.value)


@pytest.mark.gpu
def test_cuda_untuned_bert_matches_pytorch(bert_small):
    from lab02_tvm.build import build_cuda, cuda_reason
    reason = cuda_reason()
    if reason:
        pytest.skip(reason)
    _, im, pr = bert_small
    run = build_cuda(im, pr.fused_mod)
    _assert_close(im.reference, run.runner.outputs())


# ---------------------------------------------------------------------------------------------
# step 8: cross-compilation

def test_elf_machine_reads_the_header():
    import tvm
    from pathlib import Path
    from lab02_tvm.targets.cross import elf_machine
    lib = next(Path(tvm.__file__).parent.rglob("libtvm_runtime.so"), None) or next(Path(tvm.__file__).parent.rglob("*.so"))
    import platform
    expected = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(platform.machine())
    if expected:
        assert elf_machine(lib.read_bytes()[:64])[1] == expected
    hdr = bytearray(64)
    hdr[:4], hdr[5], hdr[18:20] = b"\x7fELF", 1, (183).to_bytes(2, "little")
    assert elf_machine(bytes(hdr)) == (183, "AArch64")
    with pytest.raises(ValueError):
        elf_machine(b"MZ" + bytes(62))


def test_cross_compile_tar_without_toolchain(bert_small, tmp_path):
    from lab02_tvm.targets.cross import cross_compile
    _, _, pr = bert_small
    res = cross_compile(pr.fused_mod, tmp_path, "bert_small", cross_cc=None)
    assert res.so_path is None and res.tar_path.exists() and "tar" in res.note
    assert res.all_aarch64 and len(res.machines) >= 2  # lib0.o + devc.o


def test_cross_compile_missing_compiler_falls_back_in_one_line(bert_small, tmp_path):
    from lab02_tvm.targets.cross import cross_compile
    _, _, pr = bert_small
    res = cross_compile(pr.fused_mod, tmp_path, "b", cross_cc="no-such-aarch64-gcc")
    assert res.so_path is None and "no-such-aarch64-gcc" in res.note and "\n" not in res.note
    assert res.all_aarch64


def test_cross_compile_shared_library(bert_small, tmp_path):
    """Optional part: skipped only when the cross gcc is absent; with it installed, a failed link fails."""
    from lab02_tvm.targets.cross import CROSS_CC, cross_compile, elf_machines_in
    if shutil.which(CROSS_CC) is None:
        pytest.skip(f"{CROSS_CC} not installed (apt install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)")
    _, _, pr = bert_small
    res = cross_compile(pr.fused_mod, tmp_path, "bert_small")
    assert res.so_path is not None, f"{CROSS_CC} is installed but the .so did not link: {res.note}"
    assert list(elf_machines_in(res.so_path).values()) == ["AArch64"]


# ---------------------------------------------------------------------------------------------
# step 10: custom TIR pass

def _te_matmul(m=64, k=96, n=128):
    from tvm import te, topi
    A = te.placeholder((m, k), name="A")
    B = te.placeholder((k, n), name="B")
    return te.create_prim_func([A, B, topi.matmul(A, B)])


def test_reorder_pass_interchanges_matmul_loops():
    from lab02_tvm.schedule.tir_pass import ReorderStats, loop_nest, reorder_prim_func
    f = _te_matmul()
    st = ReorderStats()
    g = reorder_prim_func(f, "mm", st)
    assert st.reordered == ["mm/T_matmul_update: (ax0, ax1, k) -> (ax0, k, ax1)"]
    nest = loop_nest(g)
    assert nest.index("for k in range(96)") > nest.index("for ax1_init in range(128)")
    assert nest.index("    for ax1 in range(128)") > nest.index("  for k in range(96)")  # ax1 inside k
    # idempotent: the innermost loop is now spatial, so a second run changes nothing
    st2 = ReorderStats()
    assert reorder_prim_func(g, "mm", st2).same_as(g) and not st2.reordered
    # two blocks skipped (the update, now spatial innermost, and the init, no reduction); the reasons are the
    # plan's own words (task lab02.reorder asks for "a short reason"), so only their count is checked
    assert sum(st2.skipped.values()) == 2 and len(st2.skipped) == 2, st2.skipped


def test_reorder_pass_preconditions_skip_blocks():
    import tvm
    from tvm import s_tir, te
    from lab02_tvm.schedule.tir_pass import ReorderStats, reorder_prim_func
    # loops (j, i, k) around C[i, j]: the inner spatial loop walks the output's *first* axis
    sch = s_tir.Schedule(tvm.IRModule({"main": _te_matmul()}))
    i, j, k = sch.get_loops(sch.get_sblock("T_matmul"))
    sch.reorder(j, i, k)
    f = sch.mod["main"]
    st = ReorderStats()
    assert reorder_prim_func(f, "t", st).same_as(f), f"left alone expected; reordered {st.reordered}"
    assert sum(st.skipped.values()) == 1, st.skipped  # one block, skipped with the plan's reason
    # no reduction at all
    A = te.placeholder((8, 8), name="A")
    ew = te.create_prim_func([A, te.compute((8, 8), lambda i, j: A[i, j] * 2, name="E")])
    st = ReorderStats()
    assert reorder_prim_func(ew, "e", st).same_as(ew) and sum(st.skipped.values()) == 1, st.skipped
    # already scheduled (e.g. by MetaSchedule): left alone
    tuned = _te_matmul().with_attr("tirx.is_scheduled", True)
    st = ReorderStats()
    assert reorder_prim_func(tuned, "s", st).same_as(tuned) and st.skipped == {"already scheduled": 1}


def test_reorder_pipeline_is_registered_correct_and_faster(host):
    """Built through the registered pipeline: same numbers as NumPy, faster than default in one run."""
    import tvm
    from common.timing import interleaved
    from lab02_tvm.schedule import tir_pass
    stats = tir_pass.ReorderStats()
    name = tir_pass.register(stats)
    f = _te_matmul(128, 256, 256)
    mod = tvm.IRModule({"main": f})
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((128, 256), dtype=np.float32), rng.standard_normal((256, 256), dtype=np.float32)
    libs = {"default": tvm.tirx.build(mod, target=host), "reorder": tvm.tirx.build(mod, target=host, pipeline=name)}
    assert stats.reordered, "the pass did not run inside the registered pipeline"
    args = {k: [tvm.runtime.tensor(a), tvm.runtime.tensor(b), tvm.runtime.tensor(np.zeros((128, 256), np.float32))]
            for k in libs}
    for k, lib in libs.items():
        lib["main"](*args[k])
        np.testing.assert_allclose(args[k][2].numpy(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
    stats = interleaved({k: (lambda k=k: libs[k]["main"](*args[k])) for k in libs}, warmup=1, repeats=5)
    assert stats["reorder"].median_ms < stats["default"].median_ms


def test_reorder_pipeline_on_bert_matches_pytorch(bert_small, host):
    from lab02_tvm.schedule import tir_pass
    from lab02_tvm.build import build_and_check
    _, im, pr = bert_small
    stats = tir_pass.ReorderStats()
    run = build_and_check(im, pr.fused_mod, host, stage="loop_reorder", tir_pipeline=tir_pass.register(stats))
    assert len(stats.reordered) >= 5  # the attention and dense matmuls
    _assert_close(im.reference, run.runner.outputs())


# ---------------------------------------------------------------------------------------------
# CLI

def test_cli_help_and_bad_input(capsys):
    from lab02_tvm.pipeline.run import main
    with pytest.raises(SystemExit) as ei:
        main(["--help"])
    assert ei.value.code == 0
    assert "--tune-minutes" in capsys.readouterr().out
    for argv, starts in ((["--trials", "0"], "error: --trials"), (["--repeats", "0"], "error: --repeats"),
                         (["--model", "vgg"], "error: argument --model: invalid choice"),
                         (["--small"], "error: unrecognized arguments: --small"),
                         (["--skip-nothing"], "error: unrecognized arguments")):
        assert run_cli(main, argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith(starts) and "\n" not in err, err


def test_the_pipeline_measures_a_roof_when_none_is_cached_for_this_cpu(results_dir, monkeypatch, capsys):
    """With no roof of this CPU cached (a fresh results folder, or the committed roof of another CPU) every
    table's % of peak was None; the pipeline measures one first (1 + 1 s under --quick), then reuses it."""
    from common import roof
    from lab02_tvm.pipeline import run

    assert roof.cached_roof() is None
    run._roof_for_this_host(quick=True)
    cached = roof.cached_roof()
    assert cached is not None and cached["peak_gflops"] > 0 and roof.roof_path().parent == results_dir
    assert capsys.readouterr().out.startswith("[0 roof] none cached for this CPU: measured 2 s, FMA peak ")
    monkeypatch.setattr(roof, "measure_roof", lambda *a, **k: pytest.fail("measured again"))
    run._roof_for_this_host(quick=True)
    assert capsys.readouterr().out == ""


def test_ci_budgets_stay_tiny(monkeypatch):
    from lab02_tvm.pipeline.run import settings
    monkeypatch.setenv("CI", "true")
    for model in ("resnet50", "bert"):
        b = settings([]).budget(model)
        assert b.trials <= 16 and b.tune_minutes <= 1 and b.untuned_repeats == 1 and b.repeats <= 5
    monkeypatch.setenv("CI", "")
    full = settings([]).budget("resnet50")
    assert full.trials > 16 and full.untuned_repeats >= 1
    assert settings(["--trials", "7"]).budget("bert").trials == 7


def test_only_and_skip_select_steps_and_what_they_build_on():
    from lab02_tvm.pipeline.run import SELECTABLE, select_steps
    everything = select_steps(None, set())
    assert set(SELECTABLE) | {"records"} == everything  # a plain run runs every step
    # --only: the step, the steps it needs and whose results it shows; import and types always
    assert select_steps({"roofline"}, set()) == {"import", "types", "passes", "untuned", "records", "tuning", "roofline"}
    assert select_steps({"layout"}, set()) == {"import", "types", "passes", "layout"}  # layout builds on the pass list
    assert select_steps({"peers"}, {"tuning"}) == {"import", "types", "peers"}  # skip wins; peers runs without TVM rows
    # --skip drops what needs the skipped step, and the hidden records step goes with its last user
    no_passes = select_steps(None, {"passes"})
    assert not {"passes", "untuned", "cross", "tir-pass", "layout", "tuning", "spaces", "vs-ort"} & no_passes
    assert {"import", "types", "onnx", "peers"} <= no_passes  # what does not build on the pass list still runs
    no_tuning = select_steps(None, {"tuning"})
    assert not {"tuning", "records", "schedule", "rpc", "spaces"} & no_tuning and "peers" in no_tuning


def test_only_rejects_an_unknown_step_in_one_line(capsys):
    from lab02_tvm.pipeline.run import main
    assert run_cli(main, ["--only", "roofline,nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown step 'nope'" in err and "\n" not in err, err


@pytest.mark.slow
def test_pipeline_quick_end_to_end_without_tuning(results_dir, capsys):
    """``--quick --skip-tuning --model bert``: steps 1-4, 7, 8, 10 run, print ``[N step]`` lines, write tables."""
    import json
    from lab02_tvm.pipeline.run import main
    argv = ["--quick", "--skip-tuning", "--skip-onnx", "--skip-peers", "--skip-roofline", "--skip-layout", "--model", "bert",
            "--repeats", "3"]
    assert run_cli(main, argv) == 0
    out = capsys.readouterr().out
    for tag in ("[1 import] bert", "[2 types] bert", "[3 passes] bert", "[4 untuned] bert", "[7 compare] bert",
                "[8 cross] bert", "[10 tir-pass] bert", "[15 done]"):
        assert tag in out, tag
    assert "gate absolute |d| <= 0.0001 ok" in out  # the test-size BERT gets the seed's absolute gate
    lab = results_dir / "lab02"
    for name in ("import", "relax_passes", "compare", "cross", "tir_pass"):
        assert (lab / f"{name}.json").exists(), name
    assert (lab / "compare.png").exists()
    assert json.loads((lab / "compare.json").read_text())["env"]["host_speed"].startswith("FMA ")  # timed: host checked
    rows = json.loads((lab / "compare.json").read_text())["rows"]
    assert {r["variant"] for r in rows} == {"pytorch_eager", "tvm_untuned"}
    assert all(r["median_ms"] > 0 for r in rows)
    flops = build_bert(small=True).flops()  # GFLOP/s = PyTorch's FLOP count over the median
    for r in rows:
        assert r["gflops"] == pytest.approx(flops / (r["median_ms"] * 1e-3) / 1e9, rel=0.01, abs=0.01)
    untuned = json.loads((lab / "untuned.json").read_text())["rows"]
    assert untuned[0]["gflops"] == pytest.approx(flops / (untuned[0]["median_ms"] * 1e-3) / 1e9, rel=0.03, abs=0.01)
