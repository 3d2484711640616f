"""Step 9's step list: PyTorch blocks -> torch-mlir -> Lab 03's pipeline and IREE -> the ladder.

    python -m lab03_mlir.ladder [--quick] [--skip-iree] [--skip-timing] [--skip-resnet] [-v|-vv]

Steps (each prints ``[N name] ...`` lines; the building blocks are in :mod:`lab03_mlir.ladder.from_torch`):
 1. build   the MLP block, the small conv block and ResNet-50's stage convolutions (seeded)
 2. import  torch-mlir to linalg, TOSA and StableHLO (ResNet convs: linalg only); verify; save
 3. lower   Lab 03's naive stages and the tiled + vectorized schedule (matmul and conv); JIT;
            gate against PyTorch at absolute 1e-5 (ResNet convs: tiled + vectorized only, the
            naive loops take seconds per call there)
 4. iree    the same linalg (and StableHLO) text through iree-compile llvm-cpu; same gate
 5. ladder  single-thread latency, interleaved: PyTorch eager, Lab 03, IREE; GFLOP/s and % of
            the machine's measured FP32 peak (common.roof); for the ResNet convs also the NHWC
            convolution alone, to show where Lab 03's time goes
 6. tables  results/lab03/from_torch_gates.md and ladder.md (+ csv, json)

torch-mlir and IREE are required packages: a missing one is an error (exit 2), not a skip. A
failed gate prints the gate table and exits 1 (every path is still compared and tabulated first).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence

import numpy as np

from common.cli import parser, positive_ints, step, want_ir
from common.errors import UserError
from common.gates import GateChain, GateError, GateReport

from lab03_mlir.ladder import from_torch as ft  # noqa: I001  (upstream mlir, then torch-mlir: see from_torch)
from lab03_mlir import fast, jit, lowering
from lab03_mlir.ladder import iree_anchor
from lab03_mlir.ladder.from_torch import ATOL, FUNC_NAME, LAB, OUTPUT_TYPES, RESNET_CONVS, RTOL, Compiled, ImportedIR, TorchBlock
from lab03_mlir.ladder.iree_anchor import IREE_DRIVER, IreeModule, iree_flags


@dataclass
class FromTorchConfig:
    """Everything step 9 needs; defaults are the committed results' settings.

    Attributes:
        mlp: ``(batch, in_features, out_features)`` of the MLP block.
        conv: ``(batch, in_channels, out_channels, size)`` of the small conv block.
        resnet: ResNet-50 convolutions ``(cin, cout, size, kernel)`` (empty: none).
        output_types: torch-mlir output types for the MLP and conv blocks (keys of ``OUTPUT_TYPES``).
        iree: compile and run with IREE; timing: measure the latency ladder.
        repeats, warmup: interleaved timing rounds (the ResNet convs get ``max(5, repeats // 5)``).
        threads: PyTorch intra-op threads for the ladder (the others are single-threaded).
        seed: weights and inputs (``torch.manual_seed``).
        save_stages: also save the IR after every Lab 03 stage (large: weights are in every file).
        verbose: 1 = more per step, 2 = also the IR of every import and stage.
    """

    mlp: tuple[int, int, int] = (64, 256, 256)
    conv: tuple[int, int, int, int] = (1, 8, 16, 32)
    resnet: tuple = RESNET_CONVS
    output_types: tuple[str, ...] = tuple(OUTPUT_TYPES)
    iree: bool = True
    timing: bool = True
    repeats: int = 50
    warmup: int = 5
    threads: int = 1
    seed: int = 0
    save_stages: bool = False
    verbose: int = 0


@dataclass
class FromTorchReport:
    """What the step produced: imports, compiled kernels, gate rows, ladder rows, files written.

    ``compiled`` maps ``(block, output type, "naive" | "fast")`` to :class:`~lab03_mlir.ladder.from_torch.Compiled`;
    ``iree`` maps ``(block, output type)`` to :class:`~lab03_mlir.ladder.from_torch.IreeModule`.
    """

    imports: list[ImportedIR] = field(default_factory=list)
    compiled: dict = field(default_factory=dict)
    iree: dict = field(default_factory=dict)
    gate_rows: list[dict] = field(default_factory=list)
    ladder_rows: list[dict] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
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


def is_resnet(block: TorchBlock) -> bool:
    """True for the ResNet-50 convolutions (linalg only, no naive rung)."""
    return block.name.startswith("r50_")


def main_op(block: TorchBlock | str) -> str:
    """The linalg op that carries the block's arithmetic in the linalg import."""
    name = block if isinstance(block, str) else block.name
    return "linalg.matmul" if name == "mlp" else "linalg.conv_2d_nchw_fchw"


def build_blocks(cfg: FromTorchConfig) -> list[TorchBlock]:
    """Step 1: the MLP, the conv block and the ResNet convolutions of ``cfg``, seeded."""
    blocks = [ft.build_mlp_block(*cfg.mlp, seed=cfg.seed), ft.build_conv_block(*cfg.conv, seed=cfg.seed),
              *ft.build_resnet_blocks(cfg.resnet, seed=cfg.seed)]
    for b in blocks:
        step(1, "build", f"{b.name}: {b.describe} -> {list(b.out_shape)}, {b.flops / 1e6:.2f} MFLOP")
    return blocks


def step_import(blocks: Sequence[TorchBlock], cfg: FromTorchConfig, report: FromTorchReport) -> list[ImportedIR]:
    """Step 2: import every block (ResNet convs: linalg only), verify, save ``torch_<block>_<type>.mlir``."""
    out = []
    for block in blocks:
        for ot in (("linalg",) if is_resnet(block) else cfg.output_types):
            imp = ft.import_block(block, ot)
            report.files.append(ft.save_ir(imp))
            ops = ", ".join(f"{d} {n}" for d, n in imp.ops.items())
            verifier = "torch-mlir" if ot == "stablehlo" else "torch-mlir + upstream MLIR"
            step(2, "import", f"{imp.label}: {sum(imp.ops.values())} ops ({ops}), {imp.resources} "
                 f"dense_resource weights, verified by {verifier}, {imp.seconds:.2f} s -> {imp.path}")
            if want_ir(cfg):
                print(imp.text.split("{-#", 1)[0])
            out.append(imp)
    report.imports = out
    return out


def step_lower_and_jit(imports: Sequence[ImportedIR], chains: dict, cfg: FromTorchConfig,
                       report: FromTorchReport) -> dict[tuple[str, str, str], Compiled]:
    """Step 3: Lab 03's naive and tiled + vectorized pipelines on linalg and TOSA; gate vs PyTorch."""
    from common.results import results_dir
    compiled = {}
    stage_dir = results_dir(LAB) / "torch_stages" if cfg.save_stages else None
    for imp in imports:
        if imp.output_type == "stablehlo":
            continue
        for fast_path in ((True,) if is_resnet(imp.block) else (False, True)):
            c = ft.lower_block(imp, fast=fast_path, save_dir=stage_dir, verbose=want_ir(cfg))
            rep = chains[imp.block.name].check(f"{c.label} (ExecutionEngine)", {imp.block.name: c(imp.block.input_np)})
            step(3, "lower", f"{c.label}: {len(c.lowering.stages) - 1} stages -> llvm "
                 f"({c.lowering.op_count_rows()[-1]['total']} ops, {vector_op_count(c)} vector ops after bufferize, "
                 f"{main_op(imp.block)} vectorized: {main_op_vectorized(c, imp.block.name)}), {c.seconds:.2f} s; "
                 f"max|err| vs PyTorch {rep.max_abs():.2e} <= {ATOL:g}: {rep.rows[0]['status']}")
            compiled[(imp.block.name, imp.output_type, "fast" if fast_path else "naive")] = c
            if imp.output_type == "linalg" and not fast_path:
                y = jit.run_with_llvmlite(c.lowering, FUNC_NAME, [imp.block.input_np])[0]
                rep = chains[imp.block.name].check(f"{c.label} (llvmlite MCJIT)", {imp.block.name: y})
                step(3, "lower", f"{c.label} via mlir-translate + llvmlite: max|err| vs PyTorch "
                     f"{rep.max_abs():.2e} <= {ATOL:g}: {rep.rows[0]['status']}")
    return compiled


def _bufferized(compiled: Compiled):
    return next(st for st in compiled.lowering.stages if st.name == "bufferize")


def vector_op_count(compiled: Compiled) -> int:
    """``vector`` dialect ops right after bufferization (0: the schedule vectorized nothing)."""
    return _bufferized(compiled).op_counts.get("vector", 0)


def main_op_vectorized(compiled: Compiled, block: str) -> bool:
    """True when the block's main linalg op (:func:`main_op`) became vector code.

    Read from the IR after bufferization: a main op still present there becomes scalar loops
    (the conv counts as vectorized when no ``linalg.conv`` of any layout is left).
    """
    text = _bufferized(compiled).ir
    return ("linalg.conv" not in text) if block != "mlp" else ("matmul" not in text)


def step_iree(imports: Sequence[ImportedIR], chains: dict, cfg: FromTorchConfig,
              report: FromTorchReport) -> dict[tuple[str, str], IreeModule]:
    """Step 4: compile the linalg and StableHLO imports with ``iree-compile``, run, gate vs PyTorch."""
    modules = {}
    for imp in imports:
        if imp.output_type not in ("linalg", "stablehlo"):
            continue
        vmfb = report.workdir() / f"torch_{imp.block.name}_{imp.output_type}.vmfb"
        seconds = iree_anchor.iree_compile(imp.text, vmfb)
        mod = IreeModule(vmfb)
        rep = chains[imp.block.name].check(f"{imp.label} (IREE llvm-cpu)", {imp.block.name: mod(imp.block.input_np)})
        step(4, "iree", f"{imp.label}: iree-compile llvm-cpu {seconds:.2f} s -> {vmfb.name}, run on {IREE_DRIVER}; "
             f"max|err| vs PyTorch {rep.max_abs():.2e} <= {ATOL:g}: {rep.rows[0]['status']}")
        modules[(imp.block.name, imp.output_type)] = mod
    return modules


def nhwc_conv_alone(block: TorchBlock) -> tuple[Callable[[np.ndarray], np.ndarray], float]:
    """The block's convolution alone, as Lab 03 runs it after the layout change: a
    ``conv_2d_nhwc_hwcf`` on an already padded NHWC input and HWCF filter (no transposes, pad,
    bias or ReLU), tiled + vectorized by the same schedule. Gated against PyTorch (absolute 1e-5
    on the block's weights); returns ``(run(x) -> y, max abs error)``."""
    torch = ft.torch_module()
    conv = block.model[0]
    w = conv.weight.detach().numpy()
    f, c, kh, kw = w.shape
    pad = conv.padding[0]
    xp = np.pad(block.input_np, ((0, 0), (0, 0), (pad, pad), (pad, pad))).transpose(0, 2, 3, 1).copy()
    n, h, wd, _ = xp.shape
    oh, ow = h - kh + 1, wd - kw + 1
    out = f"tensor<{n}x{oh}x{ow}x{f}xf32>"
    text = f"""func.func @{FUNC_NAME}(%x: tensor<{n}x{h}x{wd}x{c}xf32>, %w: tensor<{kh}x{kw}x{c}x{f}xf32>) -> {out} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {out}
  %i = linalg.fill ins(%z : f32) outs(%e : {out}) -> {out}
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<{n}x{h}x{wd}x{c}xf32>, tensor<{kh}x{kw}x{c}x{f}xf32>)
         outs(%i : {out}) -> {out}
  return %r : {out}
}}"""
    res = lowering.lower(fast.tile_and_vectorize(text), stages=fast.FAST_STAGES)
    kernel = jit.EngineKernel(res.module, FUNC_NAME)
    call, outs = kernel.prepare([xp, w.transpose(2, 3, 1, 0).copy()])
    call()
    with torch.no_grad():
        ref = torch.nn.functional.conv2d(torch.from_numpy(block.input_np), conv.weight, padding=pad)
    err = float(np.abs(outs[0] - ref.numpy().transpose(0, 2, 3, 1)).max())
    return (lambda _x: call()), err


def step_ladder(blocks: Sequence[TorchBlock], compiled: dict, iree_modules: dict, cfg: FromTorchConfig,
                report: FromTorchReport) -> list[dict]:
    """Step 5: PyTorch eager vs Lab 03 (naive, tiled + vectorized) vs IREE, one thread, interleaved.

    Returns:
        the ladder rows (also in ``report.ladder_rows``), one per block and backend: ``median_ms`` (ms),
        ``gflops`` (GFLOP/s), ``x_vs_iree``, ``pct_of_peak`` ("" where unknown), ``main_op_vectorized``.

    Raises:
        GateError: a ResNet-50 block's "NHWC conv alone" kernel differs from PyTorch by more than :data:`ATOL`.
    """
    from common.roof import cached_roof, percent_of_peak
    roof = cached_roof()
    rows = []
    for block in blocks:
        cands: dict[str, Callable[[np.ndarray], np.ndarray]] = {"PyTorch eager": block.reference}
        for kind, label in (("naive", "Lab 03 naive loops"), ("fast", "Lab 03 tiled+vectorized")):
            if (block.name, "linalg", kind) in compiled:
                cands[label] = compiled[(block.name, "linalg", kind)]
        if (block.name, "linalg") in iree_modules:
            cands["IREE llvm-cpu"] = iree_modules[(block.name, "linalg")]
        if is_resnet(block):
            alone, err = nhwc_conv_alone(block)
            if err > ATOL:
                raise GateError(GateReport(f"{block.name} NHWC conv alone",
                                           first_failure=f"max|err| {err:.2e} > {ATOL:g} vs PyTorch"))
            cands["Lab 03 NHWC conv alone"] = alone
        repeats = max(5, cfg.repeats // 5) if is_resnet(block) else cfg.repeats
        brows = iree_anchor.latency_ladder(block, cands, repeats=repeats, warmup=min(cfg.warmup, 2) if is_resnet(block)
                                  else cfg.warmup, threads=cfg.threads)
        iree_ms = next((r["median_ms"] for r in brows if r["backend"] == "IREE llvm-cpu"), None)
        for r in brows:
            kind = {"Lab 03 naive loops": "naive", "Lab 03 tiled+vectorized": "fast"}.get(r["backend"])
            r["x_vs_iree"] = r["median_ms"] / iree_ms if iree_ms else ""
            r["pct_of_peak"] = percent_of_peak(r["gflops"], roof) if roof else ""
            r["main_op_vectorized"] = main_op_vectorized(compiled[(block.name, "linalg", kind)], block.name) \
                if kind else ""
        step(5, "ladder", f"{block.name}: " + ", ".join(f"{r['backend']} {r['median_ms']:.3f} ms" for r in brows))
        rows += brows
    report.ladder_rows = rows
    return rows


LADDER_NOTES = """Median of interleaved rounds (common.timing.interleaved), 1 thread (the environment's
load_avg says whether other jobs shared the machine: compare ratios within one block, not milliseconds
across runs). PyTorch with torch.set_num_threads(1); the Lab 03 ExecutionEngine code is
single-threaded; IREE runs on the `local-sync` driver (dispatches inline on the calling thread).
Every candidate is timed as called from Python: a NumPy array in, a freshly allocated NumPy array
out. All compile the linalg import of the same PyTorch module (IREE and Lab 03 from the identical
text). gflops = block FLOPs / median; pct_of_peak = gflops / the measured single-thread FP32 FMA
peak (common.roof, results/roof.json); x_vs_iree = median / IREE's median. `main_op_vectorized`:
the block's main op (matmul or convolution) became vector code in Lab 03's IR. The ResNet-50
convolutions (r50_*) have no naive rung (scalar loops take seconds per call there) and one more:
"Lab 03 NHWC conv alone" is the same schedule on the convolution only, with the input already
padded and in NHWC and the filter in HWCF: the difference to "Lab 03 tiled+vectorized" is the time
spent outside the convolution (pad, the NCHW<->NHWC transposes of input, filter, bias and output,
and the ReLU), measured."""


def write_tables(report: FromTorchReport, chains: dict, cfg: FromTorchConfig) -> None:
    """Step 6: write ``from_torch_gates`` and (when timed) ``ladder`` tables to results/lab03/."""
    from common.results import write_table
    from common.roof import cached_roof
    from common.timing import environment
    meta = {"seed": cfg.seed, "mlp (batch,in,out)": cfg.mlp, "conv (batch,cin,cout,size)": cfg.conv,
            "resnet convs (cin,cout,size,kernel)": cfg.resnet, "atol": ATOL, "rtol": RTOL,
            "iree_flags": " ".join(iree_flags()), "iree_driver": IREE_DRIVER}
    report.gate_rows = [row for ch in chains.values() for row in ch.rows]
    tables = []
    paths = write_table(LAB, "from_torch_gates", report.gate_rows, title="PyTorch -> MLIR: outputs vs PyTorch eager",
                        env=environment(threads=cfg.threads), meta=meta,
                        notes="Each row: one import path (torch-mlir output type) through one compiler, "
                              f"compared elementwise with PyTorch: |y - y_torch| <= {ATOL:g}.")
    tables.append(paths["md"])
    if report.ladder_rows:
        roof = cached_roof()
        peak = roof.get("peak_gflops") if roof else "not measured (run python -m common.roof)"
        paths = write_table(LAB, "ladder", report.ladder_rows, title="The ladder: single-thread latency",
                            env=environment(threads=cfg.threads, repeats=cfg.repeats, warmup=cfg.warmup,
                                            fp32_peak_gflops=peak),
                            meta=meta, notes=LADDER_NOTES)
        tables.append(paths["md"])
    report.files += tables
    step(6, "tables", ", ".join(str(p) for p in tables))


def run_from_torch(cfg: FromTorchConfig | None = None) -> FromTorchReport:
    """The whole step: build -> import -> Lab 03 lower + JIT -> IREE -> ladder -> tables.

    A gate that fails does not stop the step (every path is still compared and tabulated);
    ``report.passed`` is False and the row's ``status`` names the failure (:func:`main` then
    raises :class:`~common.gates.GateError`).

    Raises:
        MissingDependency: torch-mlir or IREE is not installed (both are required).
    """
    cfg = cfg or FromTorchConfig()
    report = FromTorchReport()
    blocks = build_blocks(cfg)
    chains = {b.name: GateChain("pytorch eager", {b.name: b.reference()}, atol=ATOL, rtol=RTOL,
                                   raise_on_fail=False) for b in blocks}
    imports = step_import(blocks, cfg, report)
    compiled = report.compiled = step_lower_and_jit(imports, chains, cfg, report)
    iree_modules = report.iree = step_iree(imports, chains, cfg, report) if cfg.iree else {}
    if cfg.timing:
        step_ladder(blocks, compiled, iree_modules, cfg, report)
    write_tables(report, chains, cfg)
    return report


def parse_args(argv: Sequence[str] | None = None) -> FromTorchConfig:
    """Command line -> :class:`FromTorchConfig` (bad shapes or types: UserError, one line)."""
    from common.budget import pick
    p = parser("python -m lab03_mlir.ladder", __doc__, steps=["iree", "timing", "resnet"],
               quick="5 timing rounds and no ResNet convolutions (never implied: CI=true only shrinks the "
                     "timing rounds to 5)",
               epilog="\n\n".join(__doc__.split("\n\n")[2:]))  # the step list: the title is the description
    d = FromTorchConfig()
    p.add_argument("--mlp", default=",".join(map(str, d.mlp)), metavar="B,IN,OUT",
                   help="MLP block: batch, in_features, out_features (default %(default)s)")
    p.add_argument("--conv", default=",".join(map(str, d.conv)), metavar="N,CIN,COUT,HW",
                   help="conv block: batch, in/out channels, image size (default %(default)s)")
    p.add_argument("--types", default=",".join(d.output_types),
                   help="torch-mlir output types, comma-separated (default %(default)s)")
    p.add_argument("--repeats", type=int, default=None,
                   help=f"timed rounds (default {d.repeats}; 5 with --quick or under CI=true)")
    p.add_argument("--threads", type=int, default=d.threads, help="PyTorch threads in the ladder (default 1)")
    p.add_argument("--seed", type=int, default=d.seed,
                   help="torch.manual_seed for every block's weights and inputs (MLP, conv, ResNet convs); "
                        "the committed tables use %(default)s")
    p.add_argument("--save-stages", action="store_true",
                   help="save the IR after every Lab 03 stage under results/lab03/torch_stages/")
    a = p.parse_args(argv)
    types = tuple(t.strip() for t in a.types.split(",") if t.strip())
    bad = [t for t in types if t not in OUTPUT_TYPES]
    if bad or not types:
        raise UserError(f"--types: unknown output type(s) {bad or a.types!r}; use some of {','.join(OUTPUT_TYPES)}")
    if set(types) == {"stablehlo"} and "iree" in a.skip:
        raise UserError("--types stablehlo with --skip-iree leaves nothing to run (only IREE compiles StableHLO); "
                        "add linalg or tosa, or drop --skip-iree")
    repeats = a.repeats if a.repeats is not None else (5 if a.quick else pick(d.repeats, 5))
    if repeats <= 0 or a.threads <= 0:
        raise UserError("--repeats and --threads must be positive")
    return FromTorchConfig(mlp=positive_ints("--mlp", a.mlp, 3), conv=positive_ints("--conv", a.conv, 4),
                           resnet=() if (a.quick or "resnet" in a.skip) else RESNET_CONVS,
                           output_types=types, iree="iree" not in a.skip, timing="timing" not in a.skip,
                           repeats=repeats, threads=a.threads, seed=a.seed,
                           save_stages=a.save_stages, verbose=a.verbose)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry: run the step; a failed gate raises :class:`~common.gates.GateError` (exit 1)."""
    report = run_from_torch(parse_args(argv))
    failed = next((r for r in report.gate_rows if r.get("status") != "ok"), None)
    if failed is not None:
        raise GateError(GateReport(failed["stage"], rows=report.gate_rows,
                                   first_failure=f"{failed['stage']}: {failed['status']}"))
    step(6, "done", f"{len(report.gate_rows)} gates vs PyTorch (atol {ATOL:g}): all ok")
    return 0
