"""MetaSchedule tuning tasks of a Relax model: the fused kernels, their calls per inference and FLOPs.

MetaSchedule (``tvm.s_tir.meta_schedule``, the successor of AutoTVM and Ansor; Shao et al.,
"Tensor Program Optimization with Probabilistic Programs", NeurIPS 2022) tunes one TIR PrimFunc
per *task*. A task is a fused kernel of the Relax graph; its *weight* is how many times the graph
calls it. ``compile_relax`` legalizes and fuses the module itself before it looks kernels up in a
database, so task extraction here does the same steps (:func:`fuse_for_tasks`): the database keys,
structural hashes of the fused PrimFuncs, must match at build time.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import tvm
from tvm import relax
from tvm.s_tir import meta_schedule as ms

from common.errors import UserError

#: Let MetaSchedule rewrite the layout of weights (Ansor's layout rewrite, TVM's
#: ``cpu_weight_prepack``): kernels get ``layout_free_buffers`` before tuning, and after the
#: database is applied the weight transforms are split out and folded at compile time. It changes
#: every workload key, so records tuned with and without it do not mix.
LAYOUT_REWRITE = False



def as_target(target: Any) -> tvm.target.Target:
    """``tvm.target.Target`` from a Target, a dict (``{"kind": "llvm", "mcpu": ..., "num-cores": N}``)
    or a string.

    Raises:
        UserError: TVM rejects the description.
    """
    if isinstance(target, tvm.target.Target):
        return target
    try:
        return tvm.target.Target(target)
    except Exception as exc:  # TVM raises a bare TVMError / ValueError with a long message
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(f"invalid TVM target {target!r}: {first}") from exc



def fuse_for_tasks(mod: tvm.IRModule, target: Any, layout_rewrite: bool | None = None) -> tvm.IRModule:
    """Legalize and fuse an unfused Relax module exactly as ``compile_relax`` does.

    Passes (in the order of ``tvm.s_tir.meta_schedule.relax_integration.compile_relax``):
    library dispatch for the target, ``LegalizeOps``, ``AnnotateTIROpPattern``, ``FoldConstant``,
    ``FuseOps``, ``FuseTIR``. Task extraction must see the same fused PrimFuncs the compiler
    later looks up, otherwise the database keys do not match and the build stays untuned.
    With ``layout_rewrite`` (default :data:`LAYOUT_REWRITE`), ``AttachAttrLayoutFreeBuffers``
    last: the weights of each kernel become layout-free buffers MetaSchedule may repack.

    Args:
        mod: Relax IRModule with ``main``, parameters bound as constants, not yet legalized.
        target: the compilation target.
        layout_rewrite: mark weights layout-free (see :data:`LAYOUT_REWRITE`).
    Returns:
        The fused IRModule (Relax ``main`` calling fused TIR PrimFuncs).
    """
    target = as_target(target)
    try:
        dispatch = relax.pipeline.library_dispatch_passes(target)
    except (ValueError, AttributeError):
        dispatch = []
    seq = tvm.transform.Sequential([
        *dispatch,
        relax.transform.LegalizeOps(),
        relax.transform.AnnotateTIROpPattern(),
        relax.transform.FoldConstant(),
        relax.transform.FuseOps(),
        relax.transform.FuseTIR(),
        *([relax.transform.AttachAttrLayoutFreeBuffers()] if layout_rewrite_on(layout_rewrite) else []),
    ])
    with target, tvm.transform.PassContext(opt_level=3):
        return seq(mod)



def layout_rewrite_on(flag: bool | None) -> bool:
    """Whether weight layout rewrite is on: ``flag``, or :data:`LAYOUT_REWRITE` when None."""
    return LAYOUT_REWRITE if flag is None else bool(flag)


@dataclass
class TaskInfo:
    """One MetaSchedule tuning task.

    Attributes:
        index: position in MetaSchedule's extraction order.
        name: task name (the fused PrimFunc, e.g. ``fused_conv2d3_add3_relu2``).
        weight: how many times the graph calls the kernel.
        flops: floating-point operations of one call (``s_tir.analysis.estimate_tir_flops``).
        share: ``weight * flops`` as a fraction of the whole model's weighted FLOPs (0..1).
        task: the ``ms.ExtractedTask`` (its ``dispatched[0]`` is the PrimFunc module).
    """

    index: int
    name: str
    weight: int
    flops: float
    share: float
    task: Any = field(default=None, repr=False, compare=False)

    @property
    def weighted_flops(self) -> float:
        """``weight * flops`` (FLOPs per model inference spent in this kernel)."""
        return self.weight * self.flops

    def row(self) -> dict:
        """Table row: index, name, weight, MFLOP per call, weighted GFLOP, share %."""
        return {"index": self.index, "task": self.name, "weight": self.weight,
                "mflop_per_call": round(self.flops / 1e6, 3),
                "weighted_gflop": round(self.weighted_flops / 1e9, 4),
                "share_pct": round(100 * self.share, 2)}



def extract_tasks(mod: tvm.IRModule, target: Any, layout_rewrite: bool | None = None) -> list[TaskInfo]:
    """MetaSchedule tasks of an unfused Relax module, with weights, FLOPs and shares.

    Args:
        mod: unfused Relax IRModule, parameters bound (what ``relax.frontend.torch`` produces).
        target: compilation target (Target, dict or string).
        layout_rewrite: as :func:`fuse_for_tasks`.
    Returns:
        Tasks sorted by weighted-FLOP share, largest first. ResNet-50 (batch 1, 224x224) has
        about 8.2 GFLOP per image (multiply + add = 2 FLOPs); the task count depends on the
        import: 43 here, where ``batch_norm`` stays its own operator (28 once BatchNorm is folded into the
        convolutions, as :func:`lab02_tvm.graph.passes.tuning_module` does).
    Raises:
        UserError: the module has no ``main`` or yields no task.
    """
    target = as_target(target)
    if "main" not in [gv.name_hint for gv in mod.get_global_vars()]:
        raise UserError("extract_tasks needs a Relax IRModule with a 'main' function")
    fused = fuse_for_tasks(mod, target, layout_rewrite)
    tasks = ms.relax_integration.extract_tasks(fused, target)
    if not tasks:
        raise UserError("MetaSchedule extracted no task: the module has no TIR kernel to tune")
    from tvm.s_tir.analysis import estimate_tir_flops

    flops = [float(estimate_tir_flops(t.dispatched[0])) for t in tasks]
    total = sum(f * int(t.weight) for f, t in zip(flops, tasks)) or 1.0
    infos = [TaskInfo(index=i, name=t.task_name, weight=int(t.weight), flops=f,
                      share=f * int(t.weight) / total, task=t)
             for i, (t, f) in enumerate(zip(tasks, flops))]
    return sorted(infos, key=lambda ti: -ti.weighted_flops)
