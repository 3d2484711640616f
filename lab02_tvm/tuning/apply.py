"""Build a Relax model from a tuning database, counting which kernels the database scheduled.

The steps of ``meta_schedule.relax_integration.compile_relax`` with a count in the middle, so a
build that silently falls back to untuned loop nests is visible (:class:`TunedBuild`) and gated
(:func:`coverage_gate`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import tvm
from tvm import relax
from tvm.s_tir import meta_schedule as ms


from .database import best_ms_of, load_database, task_records
from .tasks import as_target, layout_rewrite_on, fuse_for_tasks

@dataclass
class TunedBuild:
    """A model compiled from a tuning database, and how much of it the database covered.

    Attributes:
        executable: the ``relax.VMExecutable``.
        kernels_total: fused TIR kernels of the model.
        kernels_tuned: kernels whose schedule came from the database (``tirx.is_scheduled``).
        missing: names of the kernels compiled as untuned loop nests; of those,
        absent: kernels the database has no workload for (never tuned), and
        failed_only: kernels whose every recorded candidate failed to run (e.g. an embedding
            gather measured with random out-of-range indices): no schedule to take.
        fused: the fused module the database was applied to (:func:`fuse_for_tasks`), unscheduled: its
            PrimFuncs give each kernel's FLOPs and bytes (the roofline).
    """

    executable: Any
    kernels_total: int
    kernels_tuned: int
    missing: list[str]
    absent: list[str] = field(default_factory=list)
    failed_only: list[str] = field(default_factory=list)
    fused: Any = field(default=None, repr=False)

    def line(self) -> str:
        """``"28/28 kernels from the database"`` (+ the missing names, at most 4, and why)."""
        def names(ks: list[str]) -> str:
            return ", ".join(ks[:4]) + (", ..." if len(ks) > 4 else "")
        more = []
        if self.failed_only:
            more.append(f"every candidate failed to run: {names(self.failed_only)}")
        other = [k for k in self.missing if k not in self.failed_only]
        if other:
            more.append(f"untuned: {names(other)}")
        return (f"{self.kernels_tuned}/{self.kernels_total} kernels from the database"
                + (f" ({'; '.join(more)})" if more else ""))



def _scheduled(mod: tvm.IRModule) -> tuple[list[str], list[str]]:
    """(names of scheduled PrimFuncs, names of the other PrimFuncs) of a fused module."""
    done, todo = [], []
    for gv, func in mod.functions.items():
        if isinstance(func, tvm.tirx.PrimFunc):
            attrs = func.attrs or {}
            (done if bool(attrs.get("tirx.is_scheduled", False)) else todo).append(gv.name_hint)
    return done, todo



def build_from_database(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike,
                        layout_rewrite: bool | None = None, fast_exp: bool = True) -> TunedBuild:
    """Compile a Relax model with the kernels recorded in the tuning database; no tuning.

    The steps of ``meta_schedule.relax_integration.compile_relax``, with a count in the middle:
    :func:`fuse_for_tasks` (so the database keys match), ``MetaScheduleApplyDatabase`` (each fused
    kernel found in the database is replaced by its best schedule and marked
    ``tirx.is_scheduled``), then Relax's lowering and finalization passes, and the TIR lowering with
    :func:`lab02_tvm.lowering.fast_exp.FastExp` first (float32 ``exp`` / ``sigmoid`` as vectorizable
    polynomials; it runs after the schedule is applied, so the records' workloads are unchanged).

    Args:
        mod: the *unfused* Relax IRModule, parameters bound (the same one given to :func:`tune`).
        target: the target used for tuning.
        work_dir: the tuning work dir holding the database.
        layout_rewrite: as :func:`fuse_for_tasks` (must match the tuning).
        fast_exp: lower with the FastExp TIR pass (default); ``False``: TVM's default TIR lowering (libm ``expf``).
    Returns:
        A :class:`TunedBuild`: run ``.executable`` with ``relax.VirtualMachine(ex, tvm.cpu())``;
        ``kernels_tuned < kernels_total`` means some kernels stayed naive loop nests.
    Raises:
        UserError: no database in ``work_dir``.
    """
    from tvm.relax import pipeline as rp

    from ..lowering import fast_exp as fx
    target = as_target(target)
    db = load_database(work_dir)  # registers the register tiles, which tile-tuned records' traces name
    layout_rewrite = layout_rewrite_on(layout_rewrite)
    fused = fuse_for_tasks(mod, target, layout_rewrite)
    with target, db, tvm.transform.PassContext(opt_level=3):
        applied = relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(fused)
    done, todo = _scheduled(applied)
    absent, failed_only = [], []
    if todo:  # why each kernel was left untuned: no workload, or only failed candidates
        for t in ms.relax_integration.extract_tasks(fused, target):
            if t.task_name in todo:  # get_top_k skips failed records: a workload with only those has none
                if not db.has_workload(t.dispatched[0]):
                    absent.append(t.task_name)
                elif best_ms_of(task_records(db, t)) is None:
                    failed_only.append(t.task_name)
    if layout_rewrite:  # weight repacking split out, then folded (weights are constants)
        with target, tvm.transform.PassContext(opt_level=3):
            applied = tvm.transform.Sequential([relax.transform.SplitLayoutRewritePreproc(),
                                                relax.transform.LiftTransformParams(),
                                                relax.transform.FoldConstant()])(applied)
    if target.kind.name == "llvm":  # relax.pipeline's dispatcher misses the CPU module's functions
        from tvm.relax.backend.cpu_generic import pipeline as rp
    lower = tvm.transform.Sequential([*rp.dataflow_lower_passes(target), *rp.finalize_passes(target)])
    with target, tvm.transform.PassContext(opt_level=3):
        ex = relax.build(applied, target=target, relax_pipeline=lower,
                         tir_pipeline=fx.register() if fast_exp else "default")
    return TunedBuild(ex, len(done) + len(todo), len(done), sorted(todo), sorted(absent), sorted(failed_only), fused)



def build_tuned(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike) -> Any:
    """:func:`build_from_database` without the counts: the ``relax.VMExecutable`` only."""
    return build_from_database(mod, target, work_dir).executable



def query_tuned_primfunc(db: ms.database.Database, prim_mod: tvm.IRModule, target: Any):
    """The best scheduled version of one kernel from a database, or ``None``.

    Args:
        prim_mod: IRModule holding the kernel as ``main`` (an extracted task's ``dispatched[0]``).
    Returns:
        The scheduled IRModule (``tirx.is_scheduled``) or ``None`` when the database lacks it.
    """
    return db.query_ir_module(prim_mod, as_target(target), "main")
