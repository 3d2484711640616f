"""Close the ladder: a PyTorch module through torch-mlir, Lab 03's MLIR pipeline and IREE.

``python -m lab03_mlir.from_torch`` (or :func:`run_from_torch`, the step Lab 03's pipeline can
call) takes two small PyTorch blocks and walks each one down the MLIR ladder:

1. **Import** (:func:`import_block`): ``torch_mlir.fx.export_and_import`` runs ``torch.export``
   and lowers the FX graph to one of three *output types* — ``linalg-on-tensors``, ``tosa`` and
   ``stablehlo`` (torch-mlir docs, "FX importer"). Weights arrive as ``dense_resource`` blobs
   (MLIR builtin dialect, ``DenseResourceElementsAttr``). The text is verified by torch-mlir's
   own MLIR and again by the upstream MLIR 22 bindings (linalg, TOSA; upstream has no StableHLO
   dialect, so StableHLO is verified by torch-mlir alone), and saved as ``results/lab03/torch_<block>_<type>.mlir``.
2. **Lower and JIT with Lab 03's pipeline** (:func:`lower_block`): the linalg text goes straight
   into :func:`lab03_mlir.lowering.lower`; the TOSA text first through
   ``tosa-to-linalg-pipeline`` + ``tosa-to-tensor`` + ``tosa-to-arith`` (Lab 03's
   ``lowering.TOSA_TO_LINALG``, run as its first stage).
   The LLVM-dialect module runs in ``mlir.execution_engine.ExecutionEngine`` (and, for the
   naive linalg path, also as LLVM IR through llvmlite) and must match PyTorch within
   ``atol = 1e-5`` (:data:`ATOL`).
3. **Production anchor** (:func:`iree_compile`, :func:`IreeModule`): the same linalg text (and
   the StableHLO text) compiled by IREE's ``iree-compile`` (``llvm-cpu`` backend) and run by
   ``iree.runtime`` on the single-threaded ``local-sync`` driver; same gate.
4. **Latency ladder** (:func:`latency_ladder`): single-thread median latency of PyTorch eager,
   Lab 03 naive loops, Lab 03 tiled + vectorized, IREE, measured interleaved in one run
   (``common.timing.interleaved``), written to ``results/lab03/ladder.{md,csv,json}``.

Three MLIR builds live in this one Python environment, and they do not all mix:

* torch-mlir bundles its own MLIR (``torch_mlir.ir``) and the upstream bindings are ``mlir.ir``:
  both import in one process, but their objects are not interchangeable, so IR crosses between
  them as **text** (``str(module)`` then ``mlir.ir.Module.parse``). Import ``mlir`` first: with
  ``torch_mlir`` loaded first, ``ExecutionEngine`` later fails to resolve symbols ("JIT session
  error: Symbols not found", then "Unknown function forward"); this module imports Lab 03's
  ``mlir``-based modules at the top and refuses to JIT (one-line UserError) if it came too late.
* ``iree.compiler`` is a third MLIR build whose nanobind symbols clash with ``mlir``'s
  (``undefined symbol: _ZN8nanobind6detail4initEPKc`` when imported after ``mlir``, and the
  reverse order breaks ``mlir``), so the IREE compile step runs the ``iree-compile`` command line
  tool from the ``iree-base-compiler`` wheel in a **subprocess**; ``iree.runtime`` has no MLIR
  inside and imports fine in-process.
"""
from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence

import numpy as np

from common.errors import MissingDependency, UserError, require, run_cli

# Import order matters (see the module docstring): upstream ``mlir``, then torch-mlir's MLIR,
# then anything that loads MLIR's runner-utils library (the JIT); see preload_torch_mlir().
_TORCH_MLIR_FIRST = "torch_mlir" in sys.modules and "mlir" not in sys.modules
from lab03_mlir import jit, lowering  # noqa: E402  (imports the upstream ``mlir`` bindings)


def _runner_utils_loaded() -> bool:
    """True when MLIR's ``libmlir_c_runner_utils`` is mapped into this process (Linux only)."""
    try:
        return "libmlir_c_runner_utils" in Path("/proc/self/maps").read_text()
    except OSError:
        return False


def preload_torch_mlir() -> str | None:
    """Load torch-mlir's native MLIR (``torch_mlir.ir``, no torch import) now, if installed.

    Loading it *after* this process has loaded MLIR's runner-utils library (what
    :mod:`lab03_mlir.jit` passes to ``ExecutionEngine`` and llvmlite when a module needs it) aborts
    the whole process with "LLVM ERROR: inconsistency in registered CommandLine options" (both
    register LLVM's command-line options); the order mlir -> torch_mlir -> JIT is safe. So this
    module calls it at import time, and :func:`import_block` calls it again.

    Returns:
        None when torch-mlir is loaded (or not installed: :func:`import_block` names the package),
        else the one-line reason it cannot be loaded safely any more.
    """
    if "torch_mlir.ir" in sys.modules:
        return None
    if _runner_utils_loaded():
        return ("torch-mlir cannot be loaded into this process: MLIR's runner-utils library is already "
                "loaded (the JIT ran first) and loading torch-mlir now would abort the process; import "
                "lab03_mlir.from_torch before running the JIT, or run `python -m lab03_mlir.from_torch`")
    try:
        importlib.import_module("torch_mlir.ir")
    except (ImportError, OSError):  # not installed or broken: import_block names it when needed
        pass
    return None


preload_torch_mlir()

LAB = "lab03"
FUNC_NAME = "forward"
ATOL = 1e-5  # the gate: |lab03 - torch| <= 1e-5 elementwise (rtol 0)
RTOL = 0.0

#: torch-mlir output types, short name -> ``OutputType`` string (torch_mlir/compiler_utils.py).
OUTPUT_TYPES = {"linalg": "linalg-on-tensors", "tosa": "tosa", "stablehlo": "stablehlo"}

#: ``iree-compile`` flags: the local CPU device, LLVM CPU code generation tuned for this host.
IREE_FLAGS = ("--iree-hal-target-device=local",
              "--iree-hal-local-target-device-backends=llvm-cpu",
              "--iree-llvmcpu-target-cpu=host")
#: ``local-sync`` runs dispatches inline on the calling thread: single-threaded by construction.
IREE_DRIVER = "local-sync"


# --------------------------------------------------------------------------------------------
# The PyTorch blocks
# --------------------------------------------------------------------------------------------

def _torch():
    return require("torch", "torch", "the from_torch step")


@dataclass
class TorchBlock:
    """One PyTorch module and its example input.

    Attributes:
        name: ``"mlp"`` or ``"conv"`` (used in file names).
        model: ``torch.nn.Module`` in eval mode, one float32 tensor in, one out.
        example: float32 input tensor (MLP ``[batch, in]``, conv ``[N, C_in, H, W]``).
        flops: floating-point operations of one forward call (multiply-add = 2).
        describe: one-line description with shapes.
    """

    name: str
    model: object
    example: object
    flops: int
    describe: str

    def reference(self, x: np.ndarray | None = None) -> np.ndarray:
        """PyTorch eager output (float32 numpy) for ``x`` (default: the example input)."""
        torch = _torch()
        with torch.no_grad():
            inp = self.example if x is None else torch.from_numpy(np.ascontiguousarray(x))
            return self.model(inp).numpy().copy()

    @property
    def input_np(self) -> np.ndarray:
        """The example input as a contiguous float32 numpy array."""
        return np.ascontiguousarray(self.example.numpy())

    @property
    def out_shape(self) -> tuple[int, ...]:
        """Output shape of :meth:`reference`."""
        return tuple(self.reference().shape)


def _parse_dims(text: str, n: int, what: str) -> tuple[int, ...]:
    """``"4,16,32"`` -> ``(4, 16, 32)``; UserError unless exactly ``n`` positive integers."""
    try:
        dims = tuple(int(t) for t in str(text).split(","))
    except ValueError:
        dims = ()
    if len(dims) != n or any(d <= 0 for d in dims):
        raise UserError(f"{what} needs {n} positive comma-separated integers, got {text!r}")
    return dims


def build_mlp_block(batch: int = 64, in_features: int = 256, out_features: int = 256,
                    seed: int = 0) -> TorchBlock:
    """``relu(x @ W.T + b)``: ``nn.Linear(in_features, out_features)`` + ReLU, seeded weights.

    Input ``x``: float32 ``[batch, in_features]``; output float32 ``[batch, out_features]``.
    The same computation as Lab 03's hand-built kernel, but written the PyTorch way.
    """
    torch = _torch()
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(in_features, out_features), torch.nn.ReLU()).eval()
    x = torch.randn(batch, in_features, dtype=torch.float32)
    flops = 2 * batch * in_features * out_features + 2 * batch * out_features
    return TorchBlock("mlp", model, x, flops,
                      f"Linear({in_features}->{out_features})+bias+ReLU on [{batch},{in_features}]")


def build_conv_block(batch: int = 1, in_channels: int = 8, out_channels: int = 16, size: int = 16,
                     seed: int = 0) -> TorchBlock:
    """``relu(conv2d(x, W, b, padding=1))``: a 3x3 ``nn.Conv2d`` + ReLU, NCHW, seeded weights.

    Input float32 ``[batch, in_channels, size, size]``; output ``[batch, out_channels, size, size]``.
    """
    torch = _torch()
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Conv2d(in_channels, out_channels, 3, padding=1),
                                torch.nn.ReLU()).eval()
    x = torch.randn(batch, in_channels, size, size, dtype=torch.float32)
    out = batch * out_channels * size * size
    flops = 2 * out * in_channels * 9 + 2 * out
    return TorchBlock("conv", model, x, flops,
                      f"Conv2d({in_channels}->{out_channels},3x3,pad 1)+bias+ReLU on "
                      f"[{batch},{in_channels},{size},{size}]")


# --------------------------------------------------------------------------------------------
# Step 1: import with torch-mlir, verify, save
# --------------------------------------------------------------------------------------------

@dataclass
class ImportedIR:
    """One block imported by torch-mlir to one output type.

    Attributes:
        block: the :class:`TorchBlock`.
        output_type: short name, a key of :data:`OUTPUT_TYPES`.
        text: the module as MLIR text, including the ``dialect_resources`` section (weights).
        ops: op counts by dialect (``func.func``/``func.return`` included), e.g. ``{"linalg": 4, ...}``.
        resources: number of ``dense_resource`` weight blobs.
        path: where the text was saved (``None`` when not saved).
        seconds: time spent in ``export_and_import`` (s).
    """

    block: TorchBlock
    output_type: str
    text: str
    ops: dict[str, int]
    resources: int
    path: Path | None = None
    seconds: float = 0.0

    @property
    def label(self) -> str:
        """``"<block>/<output type>"``."""
        return f"{self.block.name}/{self.output_type}"


def op_counts(module) -> dict[str, int]:
    """Ops per dialect prefix (``linalg.matmul`` -> ``linalg``) of a torch-mlir or upstream module.

    Lab 03's :func:`lab03_mlir.lowering.op_counts`, which walks with the module's own MLIR build.
    """
    return lowering.op_counts(module)


def import_block(block: TorchBlock, output_type: str) -> ImportedIR:
    """Import ``block`` with ``torch_mlir.fx.export_and_import`` to ``output_type``; verify it.

    Args:
        block: the PyTorch block (its example input fixes the static shapes).
        output_type: ``"linalg"``, ``"tosa"`` or ``"stablehlo"``.

    Returns:
        :class:`ImportedIR` (not yet saved; see :func:`save_ir`).

    Raises:
        UserError: unknown output type, the imported module fails the verifier, or torch-mlir
            can no longer be loaded safely (see :func:`preload_torch_mlir`).
        MissingDependency: torch-mlir is not installed.
    """
    if output_type not in OUTPUT_TYPES:
        raise UserError(f"unknown output type {output_type!r}: use one of {', '.join(OUTPUT_TYPES)}")
    blocked = preload_torch_mlir()
    if blocked:
        raise UserError(blocked)
    fx = require("torch_mlir.fx", "torch-mlir", "importing PyTorch into MLIR")
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # torch.export's internal LeafSpec deprecation notice, not ours
        warnings.filterwarnings("ignore", category=FutureWarning, message=".*LeafSpec.*")
        module = fx.export_and_import(block.model, block.example, output_type=OUTPUT_TYPES[output_type],
                                      func_name=FUNC_NAME)
    seconds = time.perf_counter() - t0
    if not module.operation.verify():
        raise UserError(f"torch-mlir produced an invalid {output_type} module for {block.name}")
    text = str(module)
    if output_type != "stablehlo":  # upstream MLIR 22 has linalg and TOSA but no StableHLO
        verify_upstream(text, what=f"{block.name}/{output_type}")
    return ImportedIR(block, output_type, text, op_counts(module),
                      text.count("dense_resource<"), seconds=seconds)


def verify_upstream(text: str, *, what: str = "module"):
    """Parse ``text`` with the upstream ``mlir`` bindings and run the verifier.

    Returns:
        The parsed ``mlir.ir.Module`` (in a fresh ``mlir.ir.Context``; the module holds a reference to it).

    Raises:
        UserError: the text does not parse or does not verify (the message names ``what``).
    """
    from mlir import ir
    with ir.Context():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as exc:
            raise UserError(f"{what}: upstream MLIR cannot parse the torch-mlir text: "
                            f"{lowering.mlir_error_line(exc)}") from None
        if not module.operation.verify():
            raise UserError(f"{what}: the module does not verify in upstream MLIR")
    return module


def save_ir(imported: ImportedIR, folder: Path | None = None) -> Path:
    """Save ``imported.text`` as ``<folder>/torch_<block>_<type>.mlir`` (default results/lab03)."""
    from common.results import atomic_write, results_dir
    folder = Path(folder) if folder is not None else results_dir(LAB)
    path = folder / f"torch_{imported.block.name}_{imported.output_type}.mlir"
    atomic_write(path, imported.text)
    imported.path = path
    return path


# --------------------------------------------------------------------------------------------
# Step 2: lower with Lab 03's pipeline and JIT
# --------------------------------------------------------------------------------------------

def tosa_to_linalg(text: str) -> str:
    """Run Lab 03's ``lowering.TOSA_TO_LINALG`` on TOSA text (upstream bindings); return linalg text.

    The pipeline is ``tosa-to-linalg-pipeline`` with ``tosa-to-tensor`` and ``tosa-to-arith``
    around it (mlir/include/mlir/Conversion/Passes.td).

    Raises:
        UserError: the text does not parse or a pass fails (first diagnostic in the message).
    """
    result = lowering.lower(text, stages=[("tosa", lowering.TOSA_TO_LINALG)])
    return result.ir("tosa")


def stages_for(imported: ImportedIR, *, fast: bool = False) -> list[tuple[str, str]]:
    """Lab 03's stage list for ``imported``: TOSA gets ``("tosa", TOSA_TO_LINALG)`` prepended.

    ``fast=True`` gives ``fast.FAST_STAGES`` (the caller tiles and vectorizes first, which needs
    linalg, so TOSA is converted before that and no TOSA stage is added).

    Raises:
        UserError: StableHLO (upstream MLIR 22 cannot parse it; IREE compiles it instead).
    """
    if imported.output_type == "stablehlo":
        raise UserError("StableHLO has no upstream MLIR lowering here; compile it with IREE instead")
    if fast:
        from lab03_mlir import fast as fast_mod
        return list(fast_mod.FAST_STAGES)
    if imported.output_type == "tosa":
        return [("tosa", lowering.TOSA_TO_LINALG), *lowering.STAGES]
    return list(lowering.STAGES)


@dataclass
class Compiled:
    """A block lowered by Lab 03's pipeline and JIT-compiled by ``ExecutionEngine``.

    Attributes:
        label: e.g. ``"mlp/linalg naive"``.
        lowering: Lab 03's ``LoweringResult`` (final LLVM-dialect module, IR and op counts per stage).
        kernel: Lab 03's ``jit.EngineKernel`` on the final module.
        seconds: lowering + JIT compile time (s).
    """

    label: str
    lowering: object
    kernel: object
    seconds: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Run once on ``x`` (the block's float32 input); returns a fresh float32 output array."""
        return self.kernel([x])[0]

    def bound(self, x: np.ndarray) -> Callable[[], None]:
        """A zero-argument call on ``x`` with the output preallocated (for timing)."""
        call, _ = self.kernel.prepare([x])
        return call


def lower_block(imported: ImportedIR, *, fast: bool = False, save_dir: Path | None = None,
                verbose: bool = False) -> Compiled:
    """Lower ``imported`` with Lab 03's pipeline and JIT it with ``ExecutionEngine``.

    naive: ``lowering.lower(text, stages=stages_for(imported))`` (loops; TOSA first goes to linalg).
    fast: linalg text -> ``fast.tile_and_vectorize`` (tile the matmul for cache and registers,
    vectorize, hoist) -> ``lowering.lower(..., stages=fast.FAST_STAGES)``.

    Args:
        imported: a linalg or TOSA import.
        fast: use the tiled + vectorized path.
        save_dir: where ``lower`` saves ``<block>_<type>_NN_<stage>.mlir`` (``None``: not saved).
        verbose: print the IR after every stage (weight blobs left out).

    Returns:
        :class:`Compiled`.

    Raises:
        UserError: StableHLO input, a failing stage or schedule (first MLIR diagnostic).
    """
    if _TORCH_MLIR_FIRST:
        raise UserError("torch_mlir was imported before the upstream mlir bindings, so the JIT cannot "
                        "resolve symbols: import lab03_mlir.from_torch (or mlir) before torch_mlir")
    t0 = time.perf_counter()
    stages = stages_for(imported, fast=fast)
    source = imported.text
    if fast:
        from lab03_mlir import fast as fast_mod
        if imported.output_type == "tosa":
            source = tosa_to_linalg(source)
        try:
            source = fast_mod.tile_and_vectorize(source)
        except ValueError as exc:  # the transform interpreter raises ValueError on a failed schedule
            raise UserError(f"{imported.label}: Lab 03's tiling schedule failed: "
                            f"{' '.join(str(exc).split())[:200]}") from None
    kind = "tiled+vectorized" if fast else "naive"
    prefix = f"torch_{imported.block.name}_{imported.output_type}_{'fast' if fast else 'naive'}_"
    result = lowering.lower(source, stages=stages, save_dir=save_dir, prefix=prefix)
    if verbose:  # the IR after each stage, without the weight blobs (dialect_resources section)
        for st in result.stages:
            print(f"// ----- {imported.label} {kind}, IR after stage {st.name}: {st.pipeline}\n"
                  f"{st.ir.split('{-#', 1)[0]}")
    kernel = jit.EngineKernel(result.module, FUNC_NAME)
    return Compiled(f"{imported.label} {kind}", result, kernel, time.perf_counter() - t0)


# --------------------------------------------------------------------------------------------
# Step 3: IREE, the production anchor
# --------------------------------------------------------------------------------------------

def iree_compile_tool() -> str:
    """Path of the ``iree-compile`` executable from the ``iree-base-compiler`` wheel.

    Looks beside the running Python first (a venv's ``bin/``), then on ``PATH``.

    Raises:
        MissingDependency: not found.
    """
    here = Path(sys.executable).parent / "iree-compile"
    if here.exists():
        return str(here)
    found = shutil.which("iree-compile")
    if found:
        return found
    raise MissingDependency("the IREE anchor needs the package iree-base-compiler (no iree-compile "
                            "executable found); install it with `.venv/bin/pip install iree-base-compiler`")


def iree_compile(text: str, out_path: Path, *, tool: str | None = None) -> float:
    """Compile MLIR ``text`` (linalg-on-tensors or StableHLO) to an IREE VM flatbuffer (.vmfb).

    Runs ``iree-compile`` in a subprocess (see the module docstring: ``iree.compiler`` cannot share
    a process with the upstream ``mlir`` bindings) with :data:`IREE_FLAGS`; the input dialect is
    detected by ``--iree-input-type=auto`` (the default).

    Returns:
        Compile time in seconds.

    Raises:
        UserError: the compiler fails (first error line quoted).
        MissingDependency: no ``iree-compile``.
    """
    tool = tool or iree_compile_tool()
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write(text)
        src = fh.name
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([tool, src, *IREE_FLAGS, "-o", str(out_path)], capture_output=True,
                              text=True, timeout=300)
    finally:
        os.unlink(src)
    if proc.returncode != 0:
        first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:200])
        raise UserError(f"iree-compile failed: {first}")
    return time.perf_counter() - t0


class IreeModule:
    """A compiled ``.vmfb`` loaded with ``iree.runtime`` on the :data:`IREE_DRIVER` driver.

    ``IreeModule(path)(x)`` calls the module's ``forward`` with a float32 array and returns the
    float32 result copied to a numpy array.

    Raises:
        MissingDependency: iree-base-runtime is not installed.
    """

    def __init__(self, vmfb: Path):
        rt = require("iree.runtime", "iree-base-runtime", "the IREE anchor")
        self.path = Path(vmfb)
        self._module = rt.load_vm_flatbuffer_file(str(self.path), driver=IREE_DRIVER)
        self._fn = self._module[FUNC_NAME]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self._fn(x).to_host())


# --------------------------------------------------------------------------------------------
# Step 4: the latency ladder
# --------------------------------------------------------------------------------------------

def latency_ladder(block: TorchBlock, candidates: dict[str, Callable[[np.ndarray], np.ndarray]], *,
                   repeats: int, warmup: int = 3, threads: int = 1) -> list[dict]:
    """Single-thread latency of ``candidates`` on ``block``'s input, interleaved in one run.

    Args:
        block: gives the input and the FLOP count.
        candidates: ``{backend name: run(x) -> y}``; the first one is the baseline of ``x_vs_first``.
        repeats, warmup: rounds of :func:`common.timing.interleaved`.
        threads: PyTorch intra-op threads (the JIT and IREE ``local-sync`` are single-threaded).

    Returns:
        One row per backend: block, backend, median_ms, p10_ms, p90_ms, gflops (GFLOP/s at the
        median), x_vs_<first> (median / first's median), threads, repeats.
    """
    from common.timing import interleaved, set_torch_threads
    set_torch_threads(threads)
    x = block.input_np
    stats = interleaved({k: (lambda f=f: f(x)) for k, f in candidates.items()},
                        warmup=warmup, repeats=repeats, progress=True)
    first = next(iter(stats))
    rows = []
    for name, st in stats.items():
        rows.append({"block": block.name, "backend": name, "median_ms": st.median_ms, "p10_ms": st.p10_ms,
                     "p90_ms": st.p90_ms, "gflops": block.flops / (st.median_ms * 1e-3) / 1e9,
                     f"x_vs_{first.split()[0].lower()}": st.median_ms / stats[first].median_ms,
                     "threads": threads, "repeats": repeats})
    return rows


# --------------------------------------------------------------------------------------------
# The step list (what ``python -m lab03_mlir.from_torch`` and Lab 03's pipeline run)
# --------------------------------------------------------------------------------------------

@dataclass
class FromTorchConfig:
    """Everything the ``from_torch`` step needs; defaults are the committed results' settings.

    Attributes:
        mlp: ``(batch, in_features, out_features)`` of the MLP block.
        conv: ``(batch, in_channels, out_channels, size)`` of the conv block.
        output_types: torch-mlir output types to import (keys of :data:`OUTPUT_TYPES`).
        iree: compile and run with IREE (needs iree-base-compiler and iree-base-runtime).
        timing: measure the latency ladder.
        repeats, warmup: interleaved timing rounds.
        threads: PyTorch intra-op threads for the ladder (the others are single-threaded).
        seed: weights and inputs (``torch.manual_seed``).
        save_stages: also save the IR after every Lab 03 stage (large: weights are in every file).
        verbose: print the IR of every import and stage.
    """

    mlp: tuple[int, int, int] = (64, 256, 256)
    conv: tuple[int, int, int, int] = (1, 8, 16, 32)
    output_types: tuple[str, ...] = tuple(OUTPUT_TYPES)
    iree: bool = True
    timing: bool = True
    repeats: int = 50
    warmup: int = 5
    threads: int = 1
    seed: int = 0
    save_stages: bool = False
    verbose: bool = False


@dataclass
class FromTorchReport:
    """What the step produced: imports, compiled kernels, gate rows, ladder rows, files written.

    ``compiled`` maps ``(block, output type, "naive" | "fast")`` to :class:`Compiled`;
    ``iree`` maps ``(block, output type)`` to :class:`IreeModule`.
    """

    imports: list[ImportedIR] = field(default_factory=list)
    compiled: dict = field(default_factory=dict)
    iree: dict = field(default_factory=dict)
    gate_rows: list[dict] = field(default_factory=list)
    ladder_rows: list[dict] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    _tmp: object = field(default=None, repr=False)

    def workdir(self) -> Path:
        """A temporary folder for compiled artifacts, removed when the report is garbage-collected."""
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="lab03_from_torch_")
        return Path(self._tmp.name)

    @property
    def passed(self) -> bool:
        """True when every gate row is ``ok``."""
        return bool(self.gate_rows) and all(r.get("status") == "ok" for r in self.gate_rows)


def build_blocks(cfg: FromTorchConfig) -> list[TorchBlock]:
    """Step 0: the two PyTorch blocks of ``cfg`` with seeded weights and inputs."""
    blocks = [build_mlp_block(*cfg.mlp, seed=cfg.seed), build_conv_block(*cfg.conv, seed=cfg.seed)]
    for b in blocks:
        print(f"[build] {b.name}: {b.describe} -> {list(b.out_shape)}, {b.flops / 1e6:.2f} MFLOP")
    return blocks


def step_import(blocks: Sequence[TorchBlock], cfg: FromTorchConfig, report: FromTorchReport) -> list[ImportedIR]:
    """Step 1: import every block to every output type, verify, save ``torch_<block>_<type>.mlir``."""
    out = []
    for block in blocks:
        for ot in cfg.output_types:
            imp = import_block(block, ot)
            report.files.append(save_ir(imp))
            ops = ", ".join(f"{d} {n}" for d, n in imp.ops.items())
            verifier = "torch-mlir" if ot == "stablehlo" else "torch-mlir + upstream MLIR"
            print(f"[import] {imp.label}: {sum(imp.ops.values())} ops ({ops}), {imp.resources} "
                  f"dense_resource weights, verified by {verifier}, {imp.seconds:.2f} s -> {imp.path}")
            if cfg.verbose:
                print(imp.text.split("{-#", 1)[0])
            out.append(imp)
    report.imports = out
    return out


def step_lower_and_jit(imports: Sequence[ImportedIR], chains: dict, cfg: FromTorchConfig,
                       report: FromTorchReport) -> dict[tuple[str, str, str], Compiled]:
    """Step 2: Lab 03's naive and tiled + vectorized pipelines on linalg and TOSA; gate vs PyTorch."""
    from common.results import results_dir
    compiled = {}
    stage_dir = results_dir(LAB) / "torch_stages" if cfg.save_stages else None
    for imp in imports:
        if imp.output_type == "stablehlo":
            continue
        for fast in (False, True):
            try:
                c = lower_block(imp, fast=fast, save_dir=stage_dir, verbose=cfg.verbose)
            except UserError as exc:
                if not fast:
                    raise
                report.skipped.append(str(exc))  # the schedule failed on this IR: say so, go on
                print(f"[lab03] {imp.label} tiled+vectorized: skipped, {exc}")
                continue
            y = c(imp.block.input_np)
            rep = chains[imp.block.name].check(f"{c.label} (ExecutionEngine)", {imp.block.name: y})
            vec = vector_op_count(c)
            print(f"[lab03] {c.label}: {len(c.lowering.stages) - 1} stages -> llvm "
                  f"({c.lowering.op_count_rows()[-1]['total']} ops, {vec} vector ops after bufferize), "
                  f"{c.seconds:.2f} s; max|err| vs PyTorch {rep.max_abs():.2e} <= {ATOL:g}: {rep.rows[0]['status']}")
            compiled[(imp.block.name, imp.output_type, "fast" if fast else "naive")] = c
            if imp.output_type == "linalg" and not fast:
                step_llvmlite(c, imp, chains)
    return compiled


def step_llvmlite(c: Compiled, imp: ImportedIR, chains: dict) -> None:
    """Step 2b: the same LLVM-dialect module through ``mlir-translate`` + llvmlite MCJIT; gate."""
    y = jit.run_with_llvmlite(c.lowering, FUNC_NAME, [imp.block.input_np])[0]
    rep = chains[imp.block.name].check(f"{c.label} (llvmlite MCJIT)", {imp.block.name: y})
    print(f"[lab03] {c.label} via mlir-translate + llvmlite: max|err| vs PyTorch "
          f"{rep.max_abs():.2e} <= {ATOL:g}: {rep.rows[0]['status']}")


def _bufferized(compiled: Compiled):
    return next(st for st in compiled.lowering.stages if st.name == "bufferize")


def vector_op_count(compiled: Compiled) -> int:
    """``vector`` dialect ops right after bufferization (0: the schedule vectorized nothing)."""
    return _bufferized(compiled).op_counts.get("vector", 0)


#: the op that carries each block's arithmetic in the linalg import
MAIN_OPS = {"mlp": "linalg.matmul", "conv": "linalg.conv_2d_nchw_fchw"}


def main_op_vectorized(compiled: Compiled, block: str) -> bool:
    """True when the block's main linalg op (:data:`MAIN_OPS`) was turned into vector code.

    Read from the IR after bufferization: a main op still present there becomes scalar loops.
    """
    return MAIN_OPS[block] not in _bufferized(compiled).ir


def step_iree(imports: Sequence[ImportedIR], chains: dict, cfg: FromTorchConfig,
              report: FromTorchReport) -> dict[tuple[str, str], IreeModule]:
    """Step 3: compile the linalg and StableHLO imports with ``iree-compile``, run, gate vs PyTorch.

    The ``.vmfb`` files go to a temporary folder that lives as long as ``report``.
    """
    modules = {}
    for imp in imports:
        if imp.output_type not in ("linalg", "stablehlo"):
            continue
        vmfb = report.workdir() / f"torch_{imp.block.name}_{imp.output_type}.vmfb"
        seconds = iree_compile(imp.text, vmfb)
        mod = IreeModule(vmfb)
        rep = chains[imp.block.name].check(f"{imp.label} (IREE llvm-cpu)", {imp.block.name: mod(imp.block.input_np)})
        print(f"[iree] {imp.label}: iree-compile llvm-cpu {seconds:.2f} s -> {vmfb.name}, run on {IREE_DRIVER}; "
              f"max|err| vs PyTorch {rep.max_abs():.2e} <= {ATOL:g}: {rep.rows[0]['status']}")
        modules[(imp.block.name, imp.output_type)] = mod
    return modules


def step_ladder(blocks: Sequence[TorchBlock], compiled: dict, iree_modules: dict, cfg: FromTorchConfig,
                report: FromTorchReport) -> list[dict]:
    """Step 4: PyTorch eager vs Lab 03 naive vs Lab 03 tiled + vectorized vs IREE, one thread."""
    rows = []
    for block in blocks:
        cands: dict[str, Callable[[np.ndarray], np.ndarray]] = {"PyTorch eager": block.reference}
        for kind, label in (("naive", "Lab 03 naive loops"), ("fast", "Lab 03 tiled+vectorized")):
            if (block.name, "linalg", kind) in compiled:
                cands[label] = compiled[(block.name, "linalg", kind)]
        if (block.name, "linalg") in iree_modules:
            cands["IREE llvm-cpu"] = iree_modules[(block.name, "linalg")]
        brows = latency_ladder(block, cands, repeats=cfg.repeats, warmup=cfg.warmup, threads=cfg.threads)
        for r in brows:
            kind = {"Lab 03 naive loops": "naive", "Lab 03 tiled+vectorized": "fast"}.get(r["backend"])
            r[f"{MAIN_OPS[block.name].split('.')[1]}_vectorized"] = (
                main_op_vectorized(compiled[(block.name, "linalg", kind)], block.name) if kind else "")
        print(f"[ladder] {block.name}: " + ", ".join(f"{r['backend']} {r['median_ms']:.3f} ms" for r in brows))
        rows += brows
    report.ladder_rows = rows
    return rows


def write_tables(report: FromTorchReport, chains: dict, cfg: FromTorchConfig) -> None:
    """Write ``from_torch_gates`` and (when timed) ``ladder`` tables to results/lab03/."""
    from common.results import write_table
    from common.timing import environment
    meta = {"seed": cfg.seed, "mlp (batch,in,out)": cfg.mlp, "conv (batch,cin,cout,size)": cfg.conv,
            "atol": ATOL, "rtol": RTOL, "iree_flags": " ".join(IREE_FLAGS), "iree_driver": IREE_DRIVER}
    report.gate_rows = [row for ch in chains.values() for row in ch.rows]
    paths = write_table(LAB, "from_torch_gates", report.gate_rows, title="PyTorch -> MLIR: outputs vs PyTorch eager",
                        env=environment(threads=cfg.threads), meta=meta,
                        notes="Each row: one import path (torch-mlir output type) through one compiler, "
                              f"compared elementwise with PyTorch: |y - y_torch| <= {ATOL:g}.")
    report.files.append(paths["md"])
    if report.ladder_rows:
        paths = write_table(LAB, "ladder", report.ladder_rows, title="The ladder: single-thread latency",
                            env=environment(threads=cfg.threads, repeats=cfg.repeats, warmup=cfg.warmup),
                            meta=meta, notes=LADDER_NOTES)
        report.files.append(paths["md"])
    print(f"[tables] {', '.join(str(p) for p in report.files[-2:])}")


LADDER_NOTES = """Median of interleaved rounds (common.timing.interleaved), 1 thread: PyTorch with
torch.set_num_threads(1), the Lab 03 ExecutionEngine code is single-threaded, IREE runs on the
`local-sync` driver (dispatches inline on the calling thread). Every candidate is timed as called
from Python: a NumPy array in, a freshly allocated NumPy array out. All four compile the linalg
import of the same PyTorch module (IREE and Lab 03 from the identical text). `matmul_vectorized` /
`conv_2d_nchw_fchw_vectorized` say whether the block's main op became vector code in Lab 03's
IR: fast.py's schedule tiles and vectorizes `linalg.matmul` only, so on the conv block it
vectorizes just the bias/ReLU epilogue and the convolution stays scalar loops."""


def run_from_torch(cfg: FromTorchConfig | None = None) -> FromTorchReport:
    """The whole step: build -> import -> Lab 03 lower + JIT -> IREE -> ladder -> tables.

    Raises:
        MissingDependency: torch-mlir missing (IREE missing only skips steps 3-4 with a line).

    A gate that fails does not stop the step (every path is still compared and tabulated);
    ``report.passed`` is False and the row's ``status`` names the failure.
    """
    from common.gates import GateChain
    cfg = cfg or FromTorchConfig()
    report = FromTorchReport()
    blocks = build_blocks(cfg)
    chains = {b.name: GateChain("pytorch eager", {b.name: b.reference()}, atol=ATOL, rtol=RTOL,
                                   raise_on_fail=False) for b in blocks}
    imports = step_import(blocks, cfg, report)
    compiled = report.compiled = step_lower_and_jit(imports, chains, cfg, report)
    iree_modules = {}
    if cfg.iree:
        try:
            iree_modules = report.iree = step_iree(imports, chains, cfg, report)
        except MissingDependency as exc:
            report.skipped.append(f"IREE: {exc}")
            print(f"[iree] skipped: {exc}")
    if cfg.timing:
        step_ladder(blocks, compiled, iree_modules, cfg, report)
    write_tables(report, chains, cfg)
    return report


def parse_args(argv: Sequence[str] | None = None) -> FromTorchConfig:
    """Command line -> :class:`FromTorchConfig` (bad shapes or types: UserError, one line)."""
    from common.budget import pick
    p = argparse.ArgumentParser(
        prog="python -m lab03_mlir.from_torch",
        description="PyTorch MLP and conv blocks -> torch-mlir (linalg, TOSA, StableHLO) -> Lab 03's MLIR "
                    "pipeline (ExecutionEngine) and IREE (llvm-cpu); gates vs PyTorch within 1e-5 and a "
                    "single-thread latency ladder in results/lab03/ladder.md.")
    d = FromTorchConfig()
    p.add_argument("--mlp", default=",".join(map(str, d.mlp)), metavar="B,IN,OUT",
                   help="MLP block: batch, in_features, out_features (default %(default)s)")
    p.add_argument("--conv", default=",".join(map(str, d.conv)), metavar="N,CIN,COUT,HW",
                   help="conv block: batch, in/out channels, image size (default %(default)s)")
    p.add_argument("--types", default=",".join(d.output_types),
                   help="torch-mlir output types, comma-separated (default %(default)s)")
    p.add_argument("--no-iree", action="store_true", help="skip the IREE anchor (and its ladder row)")
    p.add_argument("--no-timing", action="store_true", help="skip the latency ladder")
    p.add_argument("--repeats", type=int, default=pick(d.repeats, 10), help="timed rounds (default %(default)s)")
    p.add_argument("--threads", type=int, default=d.threads, help="PyTorch threads in the ladder (default 1)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--save-stages", action="store_true",
                   help="save the IR after every Lab 03 stage under results/lab03/torch_stages/")
    p.add_argument("-v", "--verbose", action="store_true", help="print the IR of each import and stage")
    a = p.parse_args(argv)
    types = tuple(t.strip() for t in a.types.split(",") if t.strip())
    bad = [t for t in types if t not in OUTPUT_TYPES]
    if bad or not types:
        raise UserError(f"--types: unknown output type(s) {bad or a.types!r}; use some of {','.join(OUTPUT_TYPES)}")
    if set(types) == {"stablehlo"} and a.no_iree:
        raise UserError("--types stablehlo with --no-iree leaves nothing to run (only IREE compiles StableHLO); "
                        "add linalg or tosa, or drop --no-iree")
    if a.repeats <= 0 or a.threads <= 0:
        raise UserError("--repeats and --threads must be positive")
    return FromTorchConfig(mlp=_parse_dims(a.mlp, 3, "--mlp"), conv=_parse_dims(a.conv, 4, "--conv"),
                           output_types=types, iree=not a.no_iree, timing=not a.no_timing,
                           repeats=a.repeats, threads=a.threads, seed=a.seed,
                           save_stages=a.save_stages, verbose=a.verbose)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry: run the step, print the gate table; exit 0 when every gate passed."""
    report = run_from_torch(parse_args(argv))
    bad = [f"{r['stage']}: {r['status']}" for r in report.gate_rows if r.get("status") != "ok"]
    print(f"[done] {len(report.gate_rows)} gates vs PyTorch (atol {ATOL:g}): "
          + ("all ok" if report.passed else "FAILED " + "; ".join(bad)))
    return 0 if report.passed else 1


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
