"""Tests of the ``from_torch`` step: PyTorch -> torch-mlir -> Lab 03 pipeline / IREE, vs PyTorch.

The whole step runs once per module (``report`` fixture, small shapes, 2 timing rounds) into a
temporary results folder; the tests then check what it produced and re-run every compiled kernel
on a *fresh* random input against PyTorch eager run in float64 (:func:`_reference64`: PyTorch's float32
kernels pick their summation order by CPU, float64 is the same to ~1e-16 on all) at ``atol=1e-5``.
torch-mlir and IREE are required packages: without them these tests fail (nothing is skipped).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

from common.errors import MissingDependency, UserError, run_cli
from common.gates import gate
from common.results import read_table

from lab03_mlir.ladder import from_torch as ft  # imports the upstream ``mlir`` before torch-mlir
from lab03_mlir import fast as fast_mod
from lab03_mlir.ladder import iree_anchor
from lab03_mlir.ladder import steps as ladder

pytestmark = pytest.mark.lab03

#: The seed's Lab 03 bound. Error model: float32 sums of <= 48 (MLP) / 27 (conv) products of N(0, 1)
#: inputs and weights in [-1/sqrt(fan_in), 1/sqrt(fan_in)] (PyTorch's default init), random-walk rounding
#: ~sqrt(K) u |partial sums|: measured <= 3.6e-7 from float64 (every Lab 03 path and IREE, this host).
ATOL = 1e-5
BLOCKS = ("mlp", "conv")
TYPES = tuple(ft.OUTPUT_TYPES)
SMALL = dict(mlp=(8, 32, 48), conv=(1, 3, 8, 12))
#: a tiny stand-in for the ResNet convolutions (a 1x1 conv that widens 4 -> 8 channels)
SMALL_RESNET = ((4, 8, 6, 1),)
RESNET_BLOCK = "r50_6x4_1x1_to8"
#: what each import path must contain (the op that carries the block's main computation)
KEY_OPS = {("mlp", "linalg"): "linalg.matmul", ("conv", "linalg"): "linalg.conv_2d_nchw_fchw",
           ("mlp", "tosa"): "tosa.matmul", ("conv", "tosa"): "tosa.conv2d",
           ("mlp", "stablehlo"): "stablehlo.dot_general", ("conv", "stablehlo"): "stablehlo.convolution"}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Run the whole step once on small shapes into a temporary results folder."""
    root = tmp_path_factory.mktemp("results")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MLC_RESULTS_DIR", str(root))
        cfg = ladder.FromTorchConfig(mlp=SMALL["mlp"], conv=SMALL["conv"], resnet=SMALL_RESNET,
                                     repeats=2, warmup=1)
        rep = ladder.run_from_torch(cfg)
    rep.root = root
    return rep


def _imported(report, block, otype):
    return next(i for i in report.imports if i.block.name == block and i.output_type == otype)


def _reference64(block: ft.TorchBlock, x: np.ndarray) -> np.ndarray:
    """The block's PyTorch eager output for ``x``, computed in float64 (a copy of the model)."""
    import copy

    import torch
    with torch.no_grad():
        return copy.deepcopy(block.model).double()(torch.from_numpy(x).double()).numpy()


def _fresh_input(block: ft.TorchBlock, seed: int = 123) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(block.input_np.shape).astype(np.float32)


# --------------------------------------------------------------------------- 1. import

@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("otype", TYPES)
def test_import_produces_verifiable_ir(report, block, otype):
    imp = _imported(report, block, otype)
    text = imp.path.read_text()
    assert imp.path.name == f"torch_{block}_{otype}.mlir" and text == imp.text
    assert KEY_OPS[(block, otype)] in text
    assert "torch" not in imp.ops, "torch dialect ops left after the backend lowering"
    assert imp.resources >= 1 and "dialect_resources" in text, "weights should be dense resources"
    assert set(imp.ops) <= {"arith", "func", "linalg", "tensor", "tosa", "stablehlo"}
    if otype != "stablehlo":  # upstream MLIR 22 has no StableHLO dialect
        assert ft.verify_upstream(text).operation.verify()


def test_verify_upstream_rejects_broken_ir():
    with pytest.raises(UserError, match="cannot parse"):
        ft.verify_upstream("func.func @forward(%a: tensor<4xf32>) -> tensor<4xf32> { return %b : tensor<4xf32> }")


def test_stablehlo_goes_to_iree_not_lab03(report):
    with pytest.raises(UserError, match="StableHLO"):
        ft.stages_for(_imported(report, "mlp", "stablehlo"))


def test_tosa_path_starts_with_tosa_to_linalg(report):
    stages = ft.stages_for(_imported(report, "mlp", "tosa"))
    assert stages[0][0] == "tosa" and "tosa-to-linalg-pipeline" in stages[0][1]
    body = ft.tosa_to_linalg(_imported(report, "mlp", "tosa").text).split("{-#")[0]
    assert "tosa." not in body and "linalg.batch_matmul" in body  # tosa.matmul is batched (3-D)


# --------------------------------------------------------------------------- 2. Lab 03 pipeline

@pytest.mark.parametrize("kind", ["naive", "fast"])
@pytest.mark.parametrize("otype", ["linalg", "tosa"])
@pytest.mark.parametrize("block", BLOCKS)
def test_lowered_module_matches_pytorch(report, block, otype, kind):
    compiled = report.compiled[(block, otype, kind)]
    assert compiled.lowering.stages[-1].op_counts.keys() <= {"llvm"}, "not fully lowered to the LLVM dialect"
    b = _imported(report, block, otype).block
    x = _fresh_input(b)
    gate({block: _reference64(b, x)}, {block: compiled(x)}, atol=ATOL, stage=compiled.label, check_dtype=False)
    assert compiled(x).dtype == np.float32


def test_fast_path_vectorizes_the_mlp_matmul(report):
    fast, naive = report.compiled[("mlp", "linalg", "fast")], report.compiled[("mlp", "linalg", "naive")]
    assert ladder.vector_op_count(fast) > 0 and ladder.main_op_vectorized(fast, "mlp")
    assert ladder.vector_op_count(naive) == 0 and not ladder.main_op_vectorized(naive, "mlp")
    tosa_fast = report.compiled[("mlp", "tosa", "fast")]  # tosa.matmul -> linalg.batch_matmul, tiled too
    assert ladder.vector_op_count(tosa_fast) > 0 and "linalg.batch_matmul" not in ladder._bufferized(tosa_fast).ir
    mr, nr = fast_mod.REGISTER_TILE
    assert f"vector<1x{mr}x{nr}xf32>" in ladder._bufferized(tosa_fast).ir  # the same MR x NR register tile
    assert not ladder.main_op_vectorized(report.compiled[("mlp", "tosa", "naive")], "mlp")


@pytest.mark.parametrize("key", [("conv", "linalg"), ("conv", "tosa"), (RESNET_BLOCK, "linalg")])
def test_fast_path_vectorizes_the_convolution(report, key):
    # NCHW (linalg import) and NHWC/FHWC (TOSA import) convolutions: no linalg.conv left after
    # the schedule, the 1-D convolutions became vector.fma on the channel vectors
    fast = report.compiled[(*key, "fast")]
    text = ladder._bufferized(fast).ir
    assert ladder.main_op_vectorized(fast, key[0]) and "linalg.conv" not in text
    assert "vector.fma" in text
    if key[0] == "conv":
        assert not ladder.main_op_vectorized(report.compiled[(*key, "naive")], "conv")


BAD_ORDER = """
from mlir.execution_engine import ExecutionEngine
from common.errors import UserError
from lab03_mlir import builder, jit, lowering
res = lowering.lower(builder.build_matmul_bias_relu(4, 3, 2))
ExecutionEngine(res.module, opt_level=0, shared_libs=jit.RUNNER_UTILS)  # as a conv kernel would
from lab03_mlir.ladder import from_torch as ft
try:
    ft.import_block(ft.build_mlp_block(2, 4, 4), "linalg")
except UserError as exc:
    print("REFUSED:", exc)
"""


def test_torch_mlir_after_the_jit_is_refused_not_an_abort():
    # in a fresh process (pytest itself loaded torch-mlir first, via lab03_mlir/conftest.py):
    # loading torch-mlir after MLIR's runner-utils library would abort with "LLVM ERROR:
    # inconsistency in registered CommandLine options"; the step must refuse with one line instead
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", BAD_ORDER], capture_output=True, text=True, timeout=120,
                          cwd=str(ft.Path(__file__).resolve().parent.parent))
    assert "LLVM ERROR" not in proc.stderr and proc.returncode == 0, proc.stderr[-500:]
    assert "REFUSED: torch-mlir cannot be loaded into this process" in proc.stdout


def test_gate_table_written_and_all_ok(report):
    table = read_table(report.root / "lab03" / "from_torch_gates.json")
    assert len(table["rows"]) == len(report.gate_rows) >= 10
    stages = {r["stage"] for r in table["rows"]}
    assert {f"{b}/linalg naive (llvmlite MCJIT)" for b in BLOCKS} <= stages
    assert all(r["status"] == "ok" and r["max_abs"] <= ATOL for r in table["rows"])


# --------------------------------------------------------------------------- 3. IREE

@pytest.mark.parametrize("key", [("mlp", "linalg"), ("mlp", "stablehlo"), ("conv", "linalg"),
                                 ("conv", "stablehlo")])
def test_iree_matches_pytorch(report, key):
    mod = report.iree[key]
    b = _imported(report, *key).block
    x = _fresh_input(b, seed=7)
    gate({key[0]: _reference64(b, x)}, {key[0]: mod(x)}, atol=ATOL, stage=f"IREE {key}", check_dtype=False)


def test_ladder_has_every_rung(report):
    table = read_table(report.root / "lab03" / "ladder.json")
    backends = {(r["block"], r["backend"]) for r in table["rows"]}
    for block in BLOCKS:
        for name in ("PyTorch eager", "Lab 03 naive loops", "Lab 03 tiled+vectorized", "IREE llvm-cpu"):
            assert (block, name) in backends
    for name in ("PyTorch eager", "Lab 03 tiled+vectorized", "IREE llvm-cpu", "Lab 03 NHWC conv alone"):
        assert (RESNET_BLOCK, name) in backends
    assert all(r["median_ms"] > 0 and r["threads"] == 1 for r in table["rows"])
    fast = [r for r in table["rows"] if r["backend"] == "Lab 03 tiled+vectorized"]
    assert len(fast) == 3 and all(r["main_op_vectorized"] is True for r in fast)
    iree = [r for r in table["rows"] if r["backend"] == "IREE llvm-cpu"]
    assert all(r["x_vs_iree"] == 1 for r in iree)
    assert table["env"]["threads"] == 1 and set(table["env"]["load_avg"]) == {"1min", "5min", "15min"}


MATMUL_64 = """func.func @forward(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}"""


@pytest.mark.parametrize("cpu, refused", [("x86-64-v2", ("ymm", "zmm")), ("haswell", ("zmm",))])
def test_mlc_cpu_reaches_iree(monkeypatch, tmp_path, cpu, refused):
    """``MLC_CPU`` (a simulated host, ``common.isa``) picks IREE's target CPU as it picks TVM's: the assembly of the
    dispatch uses no register wider than that CPU has (x86-64-v2: SSE, 128-bit xmm; haswell: AVX2, 256-bit ymm),
    on any host that can run them, AVX-512 ones included; unset, IREE compiles for ``host``. The module still
    computes the matmul (NumPy reference; rtol 1e-5, atol 1e-4: a 64-term float32 sum of N(0,1) products, in
    whatever order and with or without FMA the vector width gives, is within 64 * 2^-24 * sum|a*b| (Higham's
    bound, about 1.6e-4 here; atol + rtol * |a@b| admits about 1.8e-4) and typically within 1e-6)."""
    monkeypatch.delenv("MLC_CPU", raising=False)
    assert iree_anchor.iree_flags()[-1] == "--iree-llvmcpu-target-cpu=host"
    monkeypatch.setenv("MLC_CPU", cpu)
    assert iree_anchor.iree_flags()[-1] == f"--iree-llvmcpu-target-cpu={cpu}"
    iree_anchor.iree_compile(MATMUL_64, tmp_path / "m.vmfb", dump_to=tmp_path / "dump")
    asm = "".join(p.read_text() for p in (tmp_path / "dump").glob("*.s"))
    assert "xmm" in asm and not [r for r in refused if r in asm]
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((64, 64), dtype=np.float32) for _ in range(2))
    np.testing.assert_allclose(iree_anchor.IreeModule(tmp_path / "m.vmfb")(a, b), a @ b, rtol=1e-5, atol=1e-4)


def test_iree_compile_error_is_one_line(tmp_path):
    with pytest.raises(UserError, match="iree-compile failed"):
        iree_anchor.iree_compile("func.func @forward() { return %x : f32 }", tmp_path / "bad.vmfb")


# --------------------------------------------------------------------------- missing packages, CLI

def test_missing_iree_compiler_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(iree_anchor.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingDependency, match="iree-base-compiler"):
        iree_anchor.iree_compile_tool()


def test_missing_torch_mlir_is_named(monkeypatch, report):
    monkeypatch.setitem(sys.modules, "torch_mlir.fx", None)  # makes the import fail
    with pytest.raises(MissingDependency, match="torch-mlir"):
        ft.import_block(_imported(report, "mlp", "linalg").block, "linalg")


def test_unknown_output_type_is_rejected(report):
    with pytest.raises(UserError, match="unknown output type"):
        ft.import_block(_imported(report, "mlp", "linalg").block, "onnx")


def test_torch_mlir_imported_first_is_refused_before_jit(monkeypatch, report):
    monkeypatch.setattr(ft, "TORCH_MLIR_FIRST", True)
    with pytest.raises(UserError, match="imported before the upstream mlir"):
        ft.lower_block(_imported(report, "mlp", "linalg"))


def test_cli_help(capsys):
    with pytest.raises(SystemExit) as exc:
        ladder.parse_args(["--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and "--mlp" in out and "--skip-resnet" in out and "--quick" in out


def test_cli_flags():
    cfg = ladder.parse_args(["--skip-iree", "--skip-timing", "--skip-resnet", "-vv"])
    assert not cfg.iree and not cfg.timing and cfg.resnet == () and cfg.verbose == 2
    assert ladder.parse_args(["--quick"]).resnet == () and ladder.parse_args(["--quick"]).repeats == 5


def test_failed_gate_exits_1(monkeypatch, report, capsys):
    bad = ladder.FromTorchReport(gate_rows=[{"stage": "mlp/linalg naive", "status": "max_abs 1 > 1e-05"}])
    monkeypatch.setattr(ladder, "run_from_torch", lambda cfg: bad)
    assert run_cli(ladder.main, ["--quick"]) == 1
    assert "gate failed: stage 'mlp/linalg naive'" in capsys.readouterr().err


@pytest.mark.parametrize("argv, what", [(["--mlp", "4,x,8"], "--mlp"), (["--conv", "1,2,3"], "--conv"),
                                        (["--types", "linalg,onnx"], "--types"),
                                        (["--types", "stablehlo", "--skip-iree"], "nothing to run"),
                                        (["--no-iree"], "unrecognized arguments")])
def test_cli_bad_input_is_one_line(capsys, argv, what):
    assert run_cli(ladder.main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and what in err and "\n" not in err
