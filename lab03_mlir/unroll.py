"""``AffineLoopUnroll``: a loop-unrolling pass written in Python and run by MLIR's PassManager.

The rewrite (the same one as upstream ``affine-loop-unroll{unroll-factor=F}``, see
``mlir/lib/Dialect/Affine/Utils/LoopUtils.cpp``: ``loopUnrollByFactor``,
``generateCleanupLoopForUnroll``, ``generateUnrolledLoop``, ``promoteIfSingleIteration``) for each
*innermost* ``affine.for %i = lb to ub step s`` with constant bounds and trip count
``T = ceil((ub - lb) / s)``:

1. ``T < F``, or a body that is only its ``affine.yield``: nothing to do (upstream also leaves such
   loops alone). ``F = 1`` unrolls nothing either, but a loop of exactly one iteration is still
   promoted (step 4), an empty body too: upstream's ``loopUnrollByFactor`` begins with that case.
2. ``T % F != 0``: a *remainder* (cleanup) loop is cloned after the loop and runs the last
   ``T % F`` iterations, ``lb' = lb + (T - T % F) * s``; the main loop's upper bound becomes
   ``lb'``. Its ``iter_args`` start from the main loop's results, and later users of the main
   loop's results read the remainder loop's results instead.
3. The main loop's step becomes ``s * F`` and its body is cloned ``F - 1`` times before the
   ``affine.yield``; copy ``j`` sees the induction variable as ``affine.apply (d0 + j*s)(%i)``
   and its ``iter_args`` as the values yielded by copy ``j - 1`` (the chain), and the yield
   returns the last copy's values: a yielded induction variable is the last copy's
   ``%i + (F-1)*s``, a yielded ``iter_arg`` the value that argument holds in the last copy (what
   copy ``F - 2`` yielded at its position): the program's semantics (the upstream pass of this
   MLIR yields copy 0's block arguments there instead).
4. A loop left with exactly one iteration is *promoted*: its body replaces it (induction variable
   = the lower bound constant, ``iter_args`` = the initial values, results = the yielded values).

Preconditions (checked first, on every innermost loop, whatever the factor, ``1`` included, and
whatever the body, an empty one too; a violation is an MLIR *error diagnostic* on the loop's
location and a pass failure, never a crash): the loop's bounds are single constant affine maps (no ``min``/``max``
and no SSA bound operands, so ``T`` is known at compile time). The diagnostic's message is
``f"{PASS_NAME}: {NOT_CONSTANT_TRIP}"``, also appended to ``UnrollStats.errors``; the loop is left as it is. The factor is checked when the pass
object is made: ``factor <= 0`` raises :class:`common.errors.UserError` before any IR is touched.

Registration: ``AffineLoopUnroll(4).add_to(pm)`` calls ``PassManager.add(callable, name=...)``
(MLIR 22 Python bindings; ``ExternalPass.signal_pass_failure`` reports failure).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import affine, arith

from common.errors import UserError

from .lowering import STAGES, as_module, mlir_error_line

PASS_NAME = "AffineLoopUnroll"
PASS_ARGUMENT = "py-affine-loop-unroll"
#: The error diagnostic of a loop whose trip count is not known at compile time (after ``f"{PASS_NAME}: "``).
NOT_CONSTANT_TRIP = ("cannot unroll: the trip count is not a compile-time constant "
                     "(bounds must be single constant affine maps)")


@dataclass
class UnrollStats:
    """What one run of the pass did (counts of loops; a loop can count in more than one field).

    Attributes:
        innermost_loops: the innermost ``affine.for`` loops the run visited (set by ``__call__``).
        unrolled: loops whose body was replicated (``F > 1``, ``T >= F``, a body besides the yield).
        remainder_loops: remainder loops split off (step 2: ``T % F != 0``).
        promoted: loops replaced by their body (step 4): the main loop left with one iteration
            (``T == F``), a one-iteration remainder loop, and under ``F == 1`` a one-iteration loop.
        skipped_short: loops left alone because ``T < F`` under ``F > 1`` (step 1; an empty body is not counted;
            under ``F == 1`` nothing is unrolled, so no loop is short, ``T == 0`` included).
        errors: each error diagnostic emitted, ``f"{PASS_NAME}: {NOT_CONSTANT_TRIP}"`` per loop.
    """

    innermost_loops: int = 0
    unrolled: int = 0
    remainder_loops: int = 0
    promoted: int = 0
    skipped_short: int = 0
    errors: list[str] = field(default_factory=list)


def check_factor(factor) -> int:
    """Return ``factor`` as an int or raise :class:`UserError` if it is not a positive integer."""
    if isinstance(factor, bool) or not isinstance(factor, int) or factor <= 0:
        raise UserError(
            f"unroll factor must be a positive integer, got {factor!r}: pass e.g. --unroll-factor 4"
        )
    return factor


def _const_bound(loop: ir.OpView, name: str) -> int | None:
    """The constant value of the ``lowerBoundMap``/``upperBoundMap`` or ``None``."""
    amap = ir.AffineMapAttr(loop.attributes[name]).value
    if amap.n_inputs != 0 or len(amap.results) != 1:
        return None
    try:
        return ir.AffineConstantExpr(amap.results[0]).value
    except ValueError:  # not a constant expression
        return None


def _set_const_bound(loop: ir.OpView, name: str, value: int) -> None:
    loop.attributes[name] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(value))


def _step(loop: ir.OpView) -> int:
    return ir.IntegerAttr(loop.attributes["step"]).value


def _set_step(loop: ir.OpView, value: int) -> None:
    loop.attributes["step"] = ir.IntegerAttr.get(ir.IndexType.get(), value)


def _trip_count(loop) -> int | None:
    lb, ub = _const_bound(loop, "lowerBoundMap"), _const_bound(loop, "upperBoundMap")
    if lb is None or ub is None:
        return None
    step = _step(loop)
    return max(0, -(-(ub - lb) // step))


def innermost_loops(root: ir.Operation) -> list:
    """All ``affine.for`` ops under ``root`` that contain no other ``affine.for``, in IR order."""
    loops: list = []

    def visit(op):
        if op.name == "affine.for":
            loops.append(op.opview)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)

    def has_inner(loop) -> bool:
        found = []

        def probe(op):
            if op.name == "affine.for" and op != loop.operation:
                found.append(op)
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        loop.operation.walk(probe, ir.WalkOrder.PRE_ORDER)
        return bool(found)

    return [lp for lp in loops if not has_inner(lp)]


def _remap_nested(op: ir.Operation, mapping: dict) -> None:
    """Replace, in ``op`` and every op nested in it, operands found in ``mapping``."""

    def fix(inner):
        # by position, all at once: replacing value by value would chain a -> b -> c when the
        # mapping rotates values (e.g. iter_args yielded in another order: yield %b, %a + %b)
        for i, old in enumerate(list(inner.operands)):
            if old in mapping:
                inner.operands[i] = mapping[old]
        return ir.WalkResult.ADVANCE

    op.walk(fix, ir.WalkOrder.PRE_ORDER)


def _body_ops(loop) -> tuple[list, ir.OpView]:
    ops = list(loop.body.operations)
    return ops[:-1], ops[-1]


def promote_if_single_iteration(loop) -> bool:
    """Replace a one-iteration constant-bound loop by its body; return True if it did."""
    ### BEGIN SOLUTION lab03.unroll
    if _trip_count(loop) != 1:
        return False
    ops, yield_op = _body_ops(loop)
    iv = loop.induction_variable
    with ir.InsertionPoint(loop):
        if list(iv.uses):
            lb = arith.ConstantOp(ir.IndexType.get(), _const_bound(loop, "lowerBoundMap"))
            iv.replace_all_uses_with(lb.result)
    for init, arg in zip(list(loop.operation.operands), list(loop.inner_iter_args)):
        arg.replace_all_uses_with(init)
    for res, val in zip(list(loop.results), list(yield_op.operands)):
        res.replace_all_uses_with(val)
    for op in ops:
        op.move_before(loop)
    loop.operation.erase()
    return True
    ### END SOLUTION


def _split_remainder(loop, trip: int, factor: int):
    """Step 2 of the rewrite: cut the last ``trip % factor`` iterations into a cleanup loop."""
    ### BEGIN SOLUTION lab03.unroll
    lb, step = _const_bound(loop, "lowerBoundMap"), _step(loop)
    split = lb + (trip - trip % factor) * step
    cleanup = loop.operation.clone(ip=ir.InsertionPoint(loop)).opview
    cleanup.operation.move_after(loop)
    for res, new in zip(list(loop.results), list(cleanup.results)):
        res.replace_all_uses_with(new)
    for i, res in enumerate(list(loop.results)):
        cleanup.operation.operands[i] = res
    _set_const_bound(loop, "upperBoundMap", split)
    _set_const_bound(cleanup, "lowerBoundMap", split)
    return cleanup
    ### END SOLUTION


def _replicate_body(loop, factor: int, step: int) -> None:
    """Step 3 of the rewrite: ``factor - 1`` shifted copies of the body, iter_args chained."""
    ### BEGIN SOLUTION lab03.unroll
    ops, yield_op = _body_ops(loop)
    iv = loop.induction_variable
    iter_args = list(loop.inner_iter_args)
    yielded = list(yield_op.operands)
    last = list(yielded)
    iv_used = bool(list(iv.uses))
    for j in range(1, factor):
        mapping = dict(zip(iter_args, last))
        with ir.InsertionPoint(yield_op):
            if iv_used:
                bump = ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0) + j * step])
                mapping[iv] = affine.AffineApplyOp(bump, [iv]).result
            for op in ops:
                new = op.clone()
                _remap_nested(new, mapping)
                for old_r, new_r in zip(op.results, new.results):
                    mapping[old_r] = new_r
        # what copy j yields: its own results, its iter_args (a yield may pass an iter_arg on to
        # another position), its induction variable, or a value from outside the loop (unchanged)
        last = [mapping.get(y, y) for y in yielded]
    for i, v in enumerate(last):
        yield_op.operands[i] = v
    ### END SOLUTION


class AffineLoopUnroll:
    """Python-defined pass: unroll every innermost constant-trip-count ``affine.for`` by ``factor``.

    Args:
        factor: unroll factor, a positive int (default 4). ``UserError`` otherwise.

    After a run, :attr:`stats` (an :class:`UnrollStats`) says how many loops were unrolled,
    split (remainder loops), promoted or left alone (trip count < factor). A loop with a
    non-constant trip count makes the pass emit an error diagnostic on that loop and fail, so
    ``PassManager.run`` raises ``MLIRError`` whose message names the loop.
    """

    def __init__(self, factor: int = 4):
        self.factor = check_factor(factor)
        self.stats = UnrollStats()

    def __str__(self) -> str:
        return f"python {PASS_NAME}{{factor={self.factor}}}"

    def add_to(self, pm) -> None:
        """Append this pass to ``pm`` (``PassManager.add(callable, name=...)``)."""
        pm.add(self, name=PASS_NAME, argument=PASS_ARGUMENT,
               description=f"unroll innermost affine.for loops by {self.factor} (Python)")

    def __call__(self, op: ir.Operation, pass_) -> None:
        self.stats = UnrollStats()
        loops = innermost_loops(op)
        self.stats.innermost_loops = len(loops)
        ok = True
        with op.context:
            for loop in loops:
                with loop.location:
                    ok &= self.unroll_loop(loop)
        if not ok:
            pass_.signal_pass_failure()

    def unroll_loop(self, loop) -> bool:
        """Unroll one innermost loop in place; return False after emitting an error diagnostic."""
        ### BEGIN SOLUTION lab03.unroll
        trip = _trip_count(loop)
        if trip is None:
            msg = f"{PASS_NAME}: {NOT_CONSTANT_TRIP}"
            self.stats.errors.append(msg)
            loop.location.emit_error(msg)
            return False
        ops, _ = _body_ops(loop)
        if self.factor == 1 or not ops:
            if self.factor == 1 and promote_if_single_iteration(loop):
                self.stats.promoted += 1
            return True
        if trip < self.factor:
            self.stats.skipped_short += 1
            return True
        step = _step(loop)
        if trip % self.factor:
            cleanup = _split_remainder(loop, trip, self.factor)
            self.stats.remainder_loops += 1
            if promote_if_single_iteration(cleanup):
                self.stats.promoted += 1
        _set_step(loop, step * self.factor)
        _replicate_body(loop, self.factor, step)
        self.stats.unrolled += 1
        if promote_if_single_iteration(loop):
            self.stats.promoted += 1
        return True
        ### END SOLUTION


def unroll(module: ir.Module, factor: int = 4) -> UnrollStats:
    """Run :class:`AffineLoopUnroll` on ``module`` in place through a ``PassManager``.

    The Python counterpart of ``mlir-opt --affine-loop-unroll="unroll-factor=F"`` on every innermost
    loop (module docstring; upstream ``LoopUtils.cpp``, ``loopUnrollByFactor``).

    Args:
        module: an ``ir.Module`` holding ``affine.for`` loops (after the ``affine`` stage).
        factor: the unroll factor ``F``, a positive int.

    Returns:
        The pass's :class:`UnrollStats` for this run.

    Raises:
        UserError: bad factor (before any IR is touched), or the pass failed (message = the pass's
            first diagnostic, e.g. ``f"{PASS_NAME}: {NOT_CONSTANT_TRIP}"``).
    """
    from mlir.passmanager import PassManager

    p = AffineLoopUnroll(factor)
    pm = PassManager("builtin.module", context=module.context)
    p.add_to(pm)
    try:
        pm.run(module.operation)
    except ir.MLIRError as exc:
        raise UserError(mlir_error_line(exc)) from None
    return p.stats


UNROLL_STAGE = "unroll"


def with_unroll(factor: int = 4, stages=STAGES, after: str = "affine") -> list:
    """``stages`` with the stage ``("unroll", AffineLoopUnroll(factor).add_to)`` after ``after``.

    Args:
        factor: the unroll factor, a positive int (first argument: ``with_unroll(4)``).
        stages: the stage list to extend (default :data:`lab03_mlir.lowering.STAGES`; not modified).
        after: the name of the stage the unroll stage follows.

    Returns:
        A new list of ``(name, passes)`` pairs for :func:`lab03_mlir.lowering.lower`.

    Raises:
        UserError: a bad factor (before any IR is touched), or no stage named ``after``.
    """
    out = list(stages)
    names = [n for n, _ in out]
    if after not in names:
        raise UserError(f"no stage {after!r} to unroll after; stages: {names}")
    out.insert(names.index(after) + 1, (UNROLL_STAGE, AffineLoopUnroll(factor).add_to))
    return out


BUILTIN_UNROLL = "builtin.module(func.func(affine-loop-unroll{{unroll-factor={factor}}}))"
CLEANUP = "builtin.module(canonicalize, cse)"


def innermost_trip_counts(module: ir.Module) -> list[int | None]:
    """Trip count of each innermost ``affine.for`` (None when not constant), in IR order."""
    with module.context:
        return [_trip_count(lp) for lp in innermost_loops(module.operation)]


def compare_with_builtin(module_or_text, factor: int = 4) -> tuple[str, str, UnrollStats]:
    """Unroll copies of an affine module with this pass and with upstream ``affine-loop-unroll``.

    Both copies then get ``canonicalize, cse`` (which folds the ``affine.apply`` index bumps into
    the loads and hoists constants), so equal texts mean the same rewrite.

    Returns:
        ``(custom_ir, builtin_ir, stats of the custom pass)``.

    Raises:
        UserError: bad factor, text that does not parse, or the custom pass failed (its diagnostic).
        mlir.ir.MLIRError: upstream ``affine-loop-unroll`` or the cleanup failed (not turned into a UserError).
    """
    from mlir.passmanager import PassManager

    check_factor(factor)
    ours, theirs = as_module(module_or_text), as_module(module_or_text)
    stats = unroll(ours, factor)
    PassManager.parse(BUILTIN_UNROLL.format(factor=factor), context=theirs.context).run(theirs.operation)
    for m in (ours, theirs):
        PassManager.parse(CLEANUP, context=m.context).run(m.operation)
    return str(ours), str(theirs), stats
