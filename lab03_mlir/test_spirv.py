"""Lab 03 SPIR-V tests: linalg -> gpu -> spirv (two schedules), serialization, spirv-val, lavapipe vs NumPy.

Numeric checks use ABSOLUTE atol 1e-5: against a float64 NumPy ``a @ b`` at 64^3 (NumPy's float32
``a @ b`` is OpenBLAS's per-CPU sgemm; the kernel sums k in order, float32, with or without FMA by the
Vulkan driver's CPU: 7.6e-6 / 8.5e-6 from float64 at seed 0, computed in NumPy both ways), against a
NumPy loop summing in the kernel's order at any size, and exactly on small-integer inputs whose sums
are exact in float32. spirv-val and the Vulkan run skip with the reason where spirv-tools, a Vulkan
loader or a CPU Vulkan device (Mesa's lavapipe) are missing.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from common.errors import GateFailed, UserError, run_cli
from common.gates import gate
from lab03_mlir import builder, lowering
from lab03_mlir.spirv import lowering as spirv_lowering
from lab03_mlir.spirv import run as spirv
from lab03_mlir.spirv import vulkan as spirv_vulkan

pytestmark = pytest.mark.lab03

ATOL = 1e-5


def op_names(module) -> set[str]:
    names = set()

    def visit(op):
        names.add(op.name)
        return lowering.ir.WalkResult.ADVANCE

    module.operation.walk(visit, lowering.ir.WalkOrder.PRE_ORDER)
    return names


@pytest.fixture(scope="module", params=spirv_lowering.SCHEDULES)
def build64(request):
    return spirv_lowering.lower_to_spirv(64, 64, 64, schedule=request.param)


def stage_ir(build, name: str) -> str:
    return next(s.ir for s in build.stages if s.name == name)


@pytest.fixture(scope="module")
def lavapipe():
    reason = spirv_vulkan.vulkan_reason()
    if reason:
        pytest.skip(f"no Vulkan run: {reason}")


@pytest.fixture(scope="module")
def spirv_val():
    if shutil.which("spirv-val") is None:
        pytest.skip("spirv-val not found (apt-get install spirv-tools)")


# --------------------------------------------------------------------------- lowering

def test_lowers_to_spirv_kernels_and_host_launches(build64):
    names = op_names(build64.module)
    assert {"spirv.module", "spirv.func", "spirv.EntryPoint", "spirv.ExecutionMode"} <= names
    assert "gpu.launch" not in names  # outlined: only the host's gpu.launch_func remain
    assert "gpu.launch_func" in names
    for spv in spirv_lowering.spirv_modules(build64.module).values():  # kernels: nothing but spirv ops
        assert {n.split(".")[0] for n in op_names(spv)} == {"spirv"}
    text = stage_ir(build64, "spirv")
    assert '"LocalSize", 8, 8, 1' in text and "StorageBuffer" in text
    assert "bind(0, 0)" in text and 'spirv.EntryPoint "GLCompute"' in text
    middle = {"loops": ["bufferize", "parallel"], "fused": ["tile_fuse", "bufferize", "private"]}[build64.schedule]
    assert [s.name for s in build64.stages] == ["linalg", *middle, "gpu", "abi", "spirv"]


def test_loops_schedule_fuses_the_fill_into_the_matmul_two_kernels():
    """scf-parallel-loop-fusion: fill + matmul -> one loop nest; bias + ReLU stays a second kernel."""
    build = spirv_lowering.lower_to_spirv(64, 64, 64, schedule="loops")
    par = lowering.as_module(stage_ir(build, "parallel"))
    assert lowering.loop_nest_depths(par, "scf.parallel") == [2, 2]  # tiles x points, twice
    plan = build.plan
    assert len(plan.launches) == 2 and len(build.binaries) == 2
    assert plan.buffers == [(64, 64), (64, 64), (64,), (64, 64), (64, 64)]  # A, B, bias, C, temporary
    first, second = plan.launches
    assert first.args[0] == 4 and set(first.args) == {0, 1, 4}  # temp = A @ B
    assert set(second.args) == {2, 3, 4} and plan.num_func_args == 4  # C = relu(temp + bias)


def test_fused_schedule_is_one_kernel_with_a_private_accumulator():
    build = spirv_lowering.lower_to_spirv(64, 64, 64, schedule="fused")
    assert "scf.forall" in stage_ir(build, "tile_fuse") and "linalg.matmul" in stage_ir(build, "tile_fuse")
    private = stage_ir(build, "private")
    assert "memref.alloca() {alignment = 64 : i64} : memref<1x1xf32, 6>" in private and "memref.alloc(" not in private
    assert build.plan.buffers == [(64, 64), (64, 64), (64,), (64, 64)]  # no temporary
    assert [L.args for L in build.plan.launches] == [[0, 1, 2, 3]]
    assert "spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<1 x f32" in stage_ir(build, "spirv")
    assert "Function>" in stage_ir(build, "spirv")


@pytest.mark.parametrize("schedule", spirv_lowering.SCHEDULES)
@pytest.mark.parametrize("m,n,k,tile", [(30, 20, 10, 8), (5, 17, 3, 4), (1, 1, 1, 8)])
def test_launch_grid_covers_the_output(m, n, k, tile, schedule):
    """Workgroups = ceil(n / tile) along x (columns: innermost-first), ceil(m / tile) along y."""
    build = spirv_lowering.lower_to_spirv(m, n, k, tile=tile, schedule=schedule)
    for launch in build.plan.launches:
        assert launch.grid == (-(-n // tile), -(-m // tile), 1)
        assert launch.block == (tile, tile, 1)


def test_binaries_start_with_the_spirv_magic(build64):
    for data in build64.binaries.values():
        words = np.frombuffer(data, dtype="<u4")
        assert len(data) % 4 == 0 and words[0] == 0x07230203
        assert words[1] == 0x00010000  # SPIR-V 1.0 (the target environment's version)


def test_serialize_rejects_a_bad_module(tmp_path):
    with lowering.ir.Context():
        op = lowering.ir.Module.parse("func.func @f() { return }").operation
        with pytest.raises(UserError, match="serialize-spirv failed"):
            spirv_lowering.serialize(op, tmp_path / "x.spv")


def test_host_plan_and_abi_refuse_what_they_cannot_express():
    with lowering.ir.Context():
        tensors = lowering.ir.Module.parse(str(builder.build_matmul_bias_relu(4, 4, 4)))
        with pytest.raises(UserError, match="bufferize first"):
            spirv_lowering.host_plan(tensors)
        host = lowering.as_module(lowering.lower(builder.build_matmul_bias_relu(4, 4, 4)).ir("bufferize"))
        with pytest.raises(UserError, match="host op linalg.fill is not supported"):
            spirv_lowering.host_plan(host)  # linalg left on the host: nothing was mapped to the GPU
        kernel = lowering.ir.Module.parse(
            "module attributes {gpu.container_module} { gpu.module @k { gpu.func @f() kernel { gpu.return } } }")
        with pytest.raises(UserError, match="no known_block_size"):
            spirv_lowering.attach_spirv_abi(kernel)


@pytest.mark.parametrize("kw", [dict(m=0, n=4, k=4), dict(m=4, n=4, k=4, tile=0), dict(m=4, n=4, k=4, tile=64),
                                dict(m=4, n=4, k=4, schedule="magic")])
def test_bad_sizes_are_user_errors(kw):
    with pytest.raises(UserError):
        spirv_lowering.lower_to_spirv(**kw)


# --------------------------------------------------------------------------- spirv-val

def test_spirv_val_accepts_every_binary(build64, spirv_val, tmp_path):
    for name, data in build64.binaries.items():
        path = tmp_path / f"{name}.spv"
        path.write_bytes(data)
        assert spirv.validate(path) is None


def test_spirv_val_rejects_a_corrupt_binary(build64, spirv_val, tmp_path):
    data = bytearray(next(iter(build64.binaries.values())))
    data[20:24] = (0xFFFF0001).to_bytes(4, "little")  # first instruction: an absurd word count + opcode
    path = tmp_path / "bad.spv"
    path.write_bytes(bytes(data))
    with pytest.raises(GateFailed, match="spirv-val rejected"):
        spirv.validate(path)


def test_spirv_val_missing_is_a_skip_reason(monkeypatch, tmp_path):
    monkeypatch.setattr(spirv.shutil, "which", lambda name: None)
    assert "apt-get install spirv-tools" in spirv.validate(tmp_path / "any.spv")


# --------------------------------------------------------------------------- lavapipe

def test_lavapipe_matches_numpy_at_1e5(build64, lavapipe):
    inputs = builder.random_inputs(64, 64, 64, seed=0)
    res = spirv_vulkan.run_launches(build64.plan, build64.binaries, inputs, repeats=1)
    a, b, bias = (x.astype(np.float64) for x in inputs)
    gate({"y": np.maximum(a @ b + bias, 0.0)}, {"y": res.output}, atol=ATOL, check_dtype=False)  # float64 ref
    gate({"y": spirv.sequential_reference(*inputs)}, {"y": res.output}, atol=ATOL)
    assert res.timing["lavapipe"].n == 1


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(1, 19), n=st.integers(1, 19), k=st.integers(1, 9), tile=st.sampled_from([4, 8]),
       schedule=st.sampled_from(spirv_lowering.SCHEDULES))
def test_lavapipe_known_answer_on_integer_inputs(lavapipe, m, n, k, tile, schedule):
    """Small integers: every product and sum is exact in float32, so any order gives the same bits;
    shapes that do not divide the tile exercise the border guards."""
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a, b, bias = (rng.integers(-3, 4, s).astype(np.float32) for s in ((m, k), (k, n), (n,)))
    build = spirv_lowering.lower_to_spirv(m, n, k, tile=tile, schedule=schedule)
    out = spirv_vulkan.run_launches(build.plan, build.binaries, [a, b, bias], repeats=1).output
    np.testing.assert_array_equal(out, np.maximum(a.astype(np.int64) @ b + bias, 0).astype(np.float32))


def test_run_launches_checks_input_shapes(build64, lavapipe):
    with pytest.raises(UserError, match="do not match"):
        spirv_vulkan.run_launches(build64.plan, build64.binaries, builder.random_inputs(8, 8, 8), repeats=1)


# --------------------------------------------------------------------------- step + CLI

def test_run_step_row_and_files(results_dir):
    row = spirv.run_step(results_dir / "lab03", m=16, n=8, k=4, repeats=1)  # default: fused
    out = results_dir / "lab03" / "spirv" / "fused"
    for name in ("00_linalg", "01_tile_fuse", "02_bufferize", "03_private", "04_gpu", "05_abi", "06_spirv"):
        assert (out / f"{name}.mlir").stat().st_size > 0
    assert len(list(out.glob("*.spv"))) == row["kernels"] == 1
    assert row["size"] == "16x8x4" and row["schedule"] == "fused" and row["spirv_words"] > 100
    if not row["vulkan_device"].startswith("skipped"):
        assert row["max_abs_err"] <= ATOL and row["lavapipe_ms"] > 0


def test_without_a_vulkan_loader_the_run_skips_with_the_reason(monkeypatch, results_dir):
    monkeypatch.setattr(spirv_vulkan, "_import_vulkan", lambda: (None, "no Vulkan loader (test)"))
    row = spirv.run_step(results_dir / "lab03", m=4, n=4, k=4, schedule="loops")
    assert row["vulkan_device"] == "skipped: no Vulkan loader (test)"
    with pytest.raises(UserError, match="no Vulkan loader"):
        spirv_vulkan.run_launches(spirv_vulkan.HostPlan(), {}, [])


def test_without_a_vulkan_driver_the_reason_is_one_line(monkeypatch):
    if spirv_vulkan._import_vulkan()[1]:
        pytest.skip("no Vulkan loader")
    monkeypatch.setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json")  # the loader finds no driver
    monkeypatch.setenv("VK_DRIVER_FILES", "/nonexistent/icd.json")
    reason = spirv_vulkan.vulkan_reason()
    assert reason and "\n" not in reason and "mesa-vulkan-drivers" in reason


def test_cli_writes_the_table(results_dir, capsys):
    assert run_cli(spirv.main, ["--m", "8", "--n", "8", "--k", "8", "--skip-vulkan"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("[10 spirv] ") for line in lines)
    table = (results_dir / "lab03" / "spirv" / "spirv.md").read_text()
    assert "| loops |" in table and "| fused |" in table


@pytest.mark.parametrize("argv", [["--m", "0"], ["--tile", "33"], ["--repeats", "0"], ["--bogus"],
                                  ["--schedule", "magic"]])
def test_cli_bad_input_is_one_line_exit_2(argv, capsys):
    assert run_cli(spirv.main, argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
