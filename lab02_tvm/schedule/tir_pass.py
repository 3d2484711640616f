"""Step 10 (extension): a custom TIR pass — reduction-loop interchange — in the lowering pipeline.

The rewrite (loop interchange, Allen & Kennedy, "Optimizing Compilers for Modern Architectures",
ch. 5; the ``ikj`` matmul order of every HPC course): TOPI writes a reduction as
``for spatial...: for reduce...: C[s] += A[..] * B[..]`` — the innermost loop walks the reduction
axis, so the loads of ``B[k, j]`` stride by a whole row and nothing vectorizes. Moving the
innermost *spatial* loop inside the reduction loops (``i, j, k`` → ``i, k, j``) makes the inner
loop write ``C[i, j]`` and read ``B[k, j]`` with stride 1, which LLVM's loop vectorizer turns into
SIMD. ``decompose_reduction`` then hoists the ``C = 0`` init into its own loop nest.

Per block, it fires only when (preconditions, each checked):

1. the block has at least one reduction iterator (``T.axis.reduce``) and one spatial iterator (with or
   without a ``T.init``: an update block left by ``decompose_reduction`` has none);
2. the loops around it are a perfect nest, one loop per block iterator, each loop bound to exactly
   one iterator (no fused/split loops), and the innermost loop is a reduction loop;
3. the block writes one buffer (an argmax's index and value: two, not eligible), and the innermost spatial
   loop indexes its **last** dimension (so after the interchange the inner loop is unit-stride in the output);
4. the PrimFunc is not already scheduled (``tirx.is_scheduled``, e.g. by MetaSchedule).

It is applied with ``tvm.s_tir.Schedule`` (``reorder`` + ``decompose_reduction``), which checks
that the interchange is legal for the block (TVM docs: ``tvm.s_tir.Schedule.reorder``); a block
the schedule refuses is left unchanged. The pass is registered as the named TIR pipeline
``"lab02_loop_reorder"`` = this pass followed by TVM's default ``s_tir`` lowering pipeline, and is
selected with ``tvm.compile(mod, target, tir_pipeline="lab02_loop_reorder")``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PIPELINE_NAME = "lab02_loop_reorder"


@dataclass
class ReorderStats:
    """What one application of the pass did.

    Attributes:
        funcs_seen: PrimFuncs visited; blocks_seen: blocks visited.
        reordered: ``["func/block: (old order) -> (new order)", …]``.
        skipped: ``{reason: count}`` for blocks left unchanged.
    """

    funcs_seen: int = 0
    blocks_seen: int = 0
    reordered: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        """Count one block left unchanged for ``reason`` (the plan's string) in :attr:`skipped`."""
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _block_plan(sch, block_rv) -> tuple[list, list] | str:
    """``(loops, new_order)`` for an eligible block, else the reason it is not eligible.

    Only reads ``sch`` (it never reorders or otherwise changes it, not even to try): :func:`reorder_prim_func`
    applies the plan.
    """
    ### BEGIN SOLUTION lab02.reorder
    from tvm import tirx

    loops = sch.get_loops(block_rv)
    block = sch.get(block_rv)
    if not loops:
        return "no loops"
    realize = sch.get(loops[-1]).body
    if not hasattr(realize, "iter_values") or not realize.block.same_as(block):
        return "imperfect nest"
    ivs = list(block.iter_vars)
    if len(ivs) != len(loops):
        return "loops != iterators"
    # iterator i is bound to iter_values[i]; map each loop to the iterator bound to its variable
    loop_vars = [sch.get(lv).loop_var for lv in loops]
    kind_of, iv_of = {}, {}
    for value, iv in zip(realize.iter_values, ivs):
        pos = next((i for i, v in enumerate(loop_vars) if isinstance(value, tirx.Var) and value.same_as(v)), None)
        if pos is None or pos in kind_of:
            return "loop not bound 1:1 to an iterator"
        kind_of[pos], iv_of[pos] = int(iv.iter_type), iv.var
    reduce_kind, spatial_kind = int(tirx.IterVar.CommReduce), int(tirx.IterVar.DataPar)
    spatial = [i for i in range(len(loops)) if kind_of[i] == spatial_kind]
    reduction = [i for i in range(len(loops)) if kind_of[i] == reduce_kind]
    if len(spatial) + len(reduction) != len(loops):
        return "iterator neither spatial nor reduction"
    if not reduction or not spatial:
        return "no reduction" if not reduction else "no spatial loop"
    if kind_of[len(loops) - 1] != reduce_kind:
        return "innermost loop already spatial"
    inner_pos = spatial[-1]
    if len(block.writes) != 1:
        return "more than one written buffer"
    last = block.writes[0].region[-1].min
    if not (isinstance(last, tirx.Var) and last.same_as(iv_of[inner_pos])):
        return "inner spatial loop is not the output's last axis"
    inner = loops[inner_pos]
    new_order = [lv for lv in loops if lv is not inner] + [inner]
    return list(loops), new_order
    ### END SOLUTION


def _loop_names(sch, loops) -> str:
    return ", ".join(sch.get(lv).loop_var.name for lv in loops)


def reorder_prim_func(func, name: str = "main", stats: ReorderStats | None = None):
    """Apply the interchange to every eligible block of one PrimFunc; returns the new PrimFunc."""
    import tvm
    from tvm import s_tir

    stats = stats if stats is not None else ReorderStats()
    stats.funcs_seen += 1
    if func.attrs is not None and bool(func.attrs.get("tirx.is_scheduled", False)):
        stats.skip("already scheduled")
        return func
    sch = s_tir.Schedule(tvm.IRModule({"main": func}))
    try:
        root = sch.get_sblock("root")
    except Exception:  # noqa: BLE001 - functions without a root block are not TE-style
        stats.skip("no root block")
        return func
    changed = False
    for block_rv in sch.get_child_blocks(root):
        stats.blocks_seen += 1
        plan = _block_plan(sch, block_rv)
        if isinstance(plan, str):
            stats.skip(plan)
            continue
        loops, new_order = plan
        before = _loop_names(sch, loops)
        try:
            sch.reorder(*new_order)
        except s_tir.ScheduleError as exc:  # the schedule could not prove the interchange legal
            stats.skip(f"reorder refused: {str(exc).splitlines()[0][:60]}")
            continue
        try:
            sch.decompose_reduction(block_rv, _first_reduction_loop(sch, block_rv))
        except s_tir.ScheduleError:  # still correct: the init stays a predicated store in the nest
            stats.skip("init not hoisted (decompose_reduction refused)")
        changed = True
        blk_name = sch.get(block_rv).name_hint
        stats.reordered.append(f"{name}/{blk_name}: ({before}) -> ({_loop_names(sch, new_order)})")
    return sch.mod["main"] if changed else func


def _first_reduction_loop(sch, block_rv):
    """The outermost loop around ``block_rv`` bound to a reduction iterator."""
    from tvm import tirx
    loops = sch.get_loops(block_rv)
    realize = sch.get(loops[-1]).body
    reduce_values = [value for value, iv in zip(realize.iter_values, sch.get(block_rv).iter_vars)
                     if int(iv.iter_type) == int(tirx.IterVar.CommReduce)]
    for lv in loops:
        if any(value.same_as(sch.get(lv).loop_var) for value in reduce_values):
            return lv
    raise AssertionError("no reduction loop")


def ReorderReductionLoops(stats: ReorderStats | None = None):
    """The module pass: :func:`reorder_prim_func` on every PrimFunc of a TIR ``IRModule``.

    Precondition: TIR still has blocks (run it first in the lowering pipeline, before
    ``LowerOpaqueBlock``). Postcondition: the same values in the same order per element — each
    output element still accumulates its terms in the same reduction order; only the order in
    which *different* elements are updated changes. Adds what it did to ``stats`` (each pass
    application adds; pass a fresh :class:`ReorderStats` per build to read one build's numbers).
    """
    import tvm

    @tvm.transform.module_pass(opt_level=0, name="ReorderReductionLoops")
    def _pass(mod, _ctx):
        st = stats if stats is not None else ReorderStats()
        updates = {}
        for gv, func in mod.functions.items():
            if isinstance(func, tvm.tirx.PrimFunc):
                new = reorder_prim_func(func, gv.name_hint, st)
                if not new.same_as(func):
                    updates[gv] = new
        for gv, func in updates.items():
            mod[gv] = func
        return mod

    return _pass


def register(stats: ReorderStats | None = None) -> str:
    """Register the ``"lab02_loop_reorder"`` TIR pipeline = ReorderReductionLoops → default ``s_tir``.

    Args:
        stats: where the pass records what it did during the builds that use the pipeline (the
            TIR pipeline runs inside ``tvm.compile``, so this is how a caller sees its work);
            registering again replaces the previous registration and its ``stats``.
    Returns:
        the pipeline's name, for ``tvm.compile(..., tir_pipeline=name)``.
    """
    import tvm

    def factory():
        base, fin_host, fin_dev = tvm.tirx.get_tir_pipeline("s_tir")
        return tvm.transform.Sequential([ReorderReductionLoops(stats), base], name=PIPELINE_NAME), fin_host, fin_dev

    tvm.tirx.register_tir_pipeline(PIPELINE_NAME, factory)
    return PIPELINE_NAME


_KIND = {0: "", 1: "parallel", 2: "vectorized", 3: "unrolled", 4: "thread"}


def _walk(stmt: Any, depth: int, out: list[str]) -> None:
    """Append one line per loop and block of ``stmt`` (depth-first, indented by nesting)."""
    import tvm
    from tvm import s_tir

    pad = "  " * depth
    if isinstance(stmt, tvm.tirx.For):
        kind = _KIND.get(int(stmt.kind), str(stmt.kind))
        ann = f"  [{kind}]" if kind else ""
        ext = stmt.extent.value if hasattr(stmt.extent, "value") else stmt.extent
        out.append(f"{pad}for {stmt.loop_var.name} in range({ext}){ann}")
        _walk(stmt.body, depth + 1, out)
    elif isinstance(stmt, s_tir.SBlockRealize):
        _walk(stmt.block, depth, out)
    elif isinstance(stmt, s_tir.SBlock):
        if stmt.name_hint == "root":
            _walk(stmt.body, depth, out)
            return
        scopes = sorted({b.scope() for b in stmt.alloc_buffers} - {"global"})
        extra = f"  (alloc {', '.join(scopes)})" if scopes else ""
        out.append(f"{pad}block {stmt.name_hint}{extra}")
        if not isinstance(stmt.body, tvm.tirx.BufferStore):
            _walk(stmt.body, depth + 1, out)
    elif isinstance(stmt, tvm.tirx.SeqStmt):
        for s in stmt.seq:
            _walk(s, depth, out)
    elif hasattr(stmt, "body") and isinstance(stmt.body, tvm.tirx.Stmt):
        _walk(stmt.body, depth, out)
    elif isinstance(stmt, tvm.tirx.IfThenElse):
        _walk(stmt.then_case, depth, out)


def loop_nest(func_or_mod: Any, max_lines: int | None = None) -> str:
    """The loop nest of a TIR PrimFunc (or the ``main`` of an IRModule / a Schedule's module).

    One line per loop (``for <var> in range(<extent>)  [parallel|vectorized|unrolled]``) and per
    block (``block <name>``, with the non-global scopes it allocates), indented by nesting —
    the loop structure of the TVMScript without the index arithmetic. ``max_lines`` cuts long
    nests (a last line says how many were left out).
    """
    import tvm
    from tvm import s_tir

    if isinstance(func_or_mod, s_tir.Schedule):
        func_or_mod = func_or_mod.mod
    func = func_or_mod["main"] if isinstance(func_or_mod, tvm.IRModule) else func_or_mod
    lines: list[str] = []
    _walk(func.body, 0, lines)
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more lines)"]
    return "\n".join(lines)


def example_reorder(fused_mod):
    """``(kernel name, loop nest before, after)`` for the smallest PrimFunc the pass changes."""
    import tvm
    best = None
    for gv, func in fused_mod.functions.items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        st = ReorderStats()
        new = reorder_prim_func(func, gv.name_hint, st)
        if st.reordered:
            size = len(func.script())
            if best is None or size < best[0]:  # the smallest changed kernel reads best
                best = (size, gv.name_hint, loop_nest(func, 40), loop_nest(new, 40))
    return best[1:] if best else None
