"""Run SPIR-V compute kernels on a CPU Vulkan driver (Mesa's lavapipe) from Python.

Used by :mod:`lab03_mlir.spirv`: a :class:`HostPlan` (the buffers and the ordered kernel launches
that the host function of a ``gpu``-dialect module performs) is played on Vulkan 1.0 with the
``vulkan`` package (cffi bindings of the C API): instance -> the CPU physical device -> one
compute queue -> one host-visible storage buffer per memref -> per kernel a shader module,
descriptor set layout (N storage buffers at set 0, bindings 0..N-1), pipeline layout and compute
pipeline -> one command buffer with every dispatch and the memory barriers between them.

A missing Vulkan loader (``libvulkan.so.1``), driver or CPU device is not an error of the code:
:func:`vulkan_reason` says which, in one line, for the caller to skip with.
Source: the Vulkan 1.0 specification (chapters "Resource Creation", "Descriptor Sets",
"Dispatching Commands", "Synchronization"); MLIR's ``VulkanRuntime.cpp`` does the same in C++.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from collections.abc import Sequence

import numpy as np

from common.errors import UserError
from common.timing import interleaved


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
        plan: from :func:`lab03_mlir.spirv.lowering.host_plan`; binaries: SPIR-V bytes per
            ``spirv.module`` symbol (``SpirvBuild.binaries`` of :func:`lab03_mlir.spirv.lowering.lower_to_spirv`).
        inputs: arrays for the host function's leading arguments (A (m, k), B (k, n), bias (n,)),
            copied to the device as float32; the rest of its arguments are outputs (the first is
            returned, float32 of its buffer's shape), allocs are scratch.
        repeats: timed submissions (>= 1).
        also_time: ``{label: zero-argument callable}`` timed in the same rounds.

    Returns:
        :class:`VulkanResult`; its ``timing`` values are :class:`common.timing.TimingStats` (milliseconds).

    Raises:
        UserError: no CPU Vulkan device, ``repeats < 1``, or inputs that do not match the plan's
            buffer shapes.
    """
    if repeats < 1:
        raise UserError(f"repeats must be >= 1 (got {repeats})")
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
