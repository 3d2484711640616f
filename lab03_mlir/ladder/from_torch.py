"""Close the ladder: a PyTorch module through torch-mlir, Lab 03's MLIR pipeline and IREE.

The building blocks of step 9 (the step list, config and CLI are in :mod:`lab03_mlir.ladder`, run as
``python -m lab03_mlir.ladder``) take small PyTorch blocks and walk each one down the MLIR ladder:

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
3. **Production anchor** (:mod:`lab03_mlir.ladder.iree_anchor`: ``iree_compile``, ``IreeModule``): the same linalg text (and
   the StableHLO text) compiled by IREE's ``iree-compile`` (``llvm-cpu`` backend) and run by
   ``iree.runtime`` on the single-threaded ``local-sync`` driver; same gate.
4. **Latency ladder** (``iree_anchor.latency_ladder``): single-thread median latency of PyTorch eager,
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

import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable

import numpy as np

from common.errors import UserError, require

# Import order matters (see the module docstring): upstream ``mlir``, then torch-mlir's MLIR,
# then anything that loads MLIR's runner-utils library (the JIT); see load_order.preload_torch_mlir().
from .load_order import TORCH_MLIR_FIRST, preload_torch_mlir  # noqa: E402  (first: mlir, then torch_mlir.ir)
from lab03_mlir import jit, lowering  # noqa: E402

LAB = "lab03"
FUNC_NAME = "forward"
ATOL = 1e-5  # step 9's gate, the seed's Lab 03 bound: |lab03 - torch| <= 1e-5 elementwise (rtol 0)
RTOL = 0.0

#: torch-mlir output types, short name -> ``OutputType`` string (torch_mlir/compiler_utils.py).
OUTPUT_TYPES = {"linalg": "linalg-on-tensors", "tosa": "tosa", "stablehlo": "stablehlo"}



# --------------------------------------------------------------------------------------------
# The PyTorch blocks
# --------------------------------------------------------------------------------------------

def torch_module():
    """The ``torch`` module; UserError naming the from_torch step when it is not installed."""
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
        torch = torch_module()
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


def build_mlp_block(batch: int = 64, in_features: int = 256, out_features: int = 256,
                    seed: int = 0) -> TorchBlock:
    """``relu(x @ W.T + b)``: ``nn.Linear(in_features, out_features)`` + ReLU, seeded weights.

    Input ``x``: float32 ``[batch, in_features]``; output float32 ``[batch, out_features]``.
    The same computation as Lab 03's hand-built kernel, but written the PyTorch way.
    """
    torch = torch_module()
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(in_features, out_features), torch.nn.ReLU()).eval()
    x = torch.randn(batch, in_features, dtype=torch.float32)
    flops = 2 * batch * in_features * out_features + 2 * batch * out_features
    return TorchBlock("mlp", model, x, flops,
                      f"Linear({in_features}->{out_features})+bias+ReLU on [{batch},{in_features}]")


def build_conv_block(batch: int = 1, in_channels: int = 8, out_channels: int = 16, size: int = 16,
                     seed: int = 0, kernel: int = 3, name: str = "conv") -> TorchBlock:
    """``relu(conv2d(x, W, b, padding=kernel // 2))``: ``nn.Conv2d`` + ReLU, NCHW, seeded weights.

    Input float32 ``[batch, in_channels, size, size]``; output ``[batch, out_channels, size, size]``
    (odd ``kernel``: "same" padding).
    """
    torch = torch_module()
    torch.manual_seed(seed)
    pad = kernel // 2
    model = torch.nn.Sequential(torch.nn.Conv2d(in_channels, out_channels, kernel, padding=pad),
                                torch.nn.ReLU()).eval()
    x = torch.randn(batch, in_channels, size, size, dtype=torch.float32)
    out = batch * out_channels * size * size
    flops = 2 * out * in_channels * kernel * kernel + 2 * out
    return TorchBlock(name, model, x, flops,
                      f"Conv2d({in_channels}->{out_channels},{kernel}x{kernel},pad {pad})+bias+ReLU on "
                      f"[{batch},{in_channels},{size},{size}]")


#: ResNet-50 stage convolutions (in channels, out channels, image size, kernel): conv2_x's 3x3,
#: conv3_x's 3x3 and conv2_x's 1x1 expansion (He et al. 2016, Table 1), batch 1.
RESNET_CONVS = ((64, 64, 56, 3), (128, 128, 28, 3), (64, 256, 56, 1))


def build_resnet_blocks(convs=RESNET_CONVS, seed: int = 0) -> list[TorchBlock]:
    """One :func:`build_conv_block` per ``(cin, cout, size, kernel)``, named ``r50_<size>x<cin>_<k>x<k>``
    (``r50_56x64_3x3`` ...)."""
    return [build_conv_block(1, cin, cout, size, seed=seed, kernel=k, name=f"r50_{size}x{cin}_{k}x{k}"
                             + ("" if cout == cin else f"_to{cout}"))
            for cin, cout, size, k in convs]


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
        UserError: StableHLO input, a failing stage or schedule (first MLIR diagnostic), or
            ``torch_mlir`` imported before the upstream ``mlir`` bindings (the JIT could not resolve
            symbols; :mod:`lab03_mlir.ladder.load_order`).
    """
    if TORCH_MLIR_FIRST:
        raise UserError("torch_mlir was imported before the upstream mlir bindings, so the JIT cannot "
                        "resolve symbols: import lab03_mlir.ladder.from_torch (or mlir) before torch_mlir")
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

