"""The pass manager: a list of passes run in order, repeatedly, until an iteration changes nothing."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import onnx

from common.errors import UserError, require

from .core import PassResult, copy_model
from .gather import fold_constant_gather
from .identity import eliminate_identity
from .reshape import fuse_consecutive_reshapes

#: The custom passes by name, in the order the manager runs them.
CUSTOM_PASSES: dict[str, Callable[[onnx.ModelProto], PassResult]] = {
    "fuse_consecutive_reshapes": fuse_consecutive_reshapes,
    "eliminate_identity": eliminate_identity,
    "fold_constant_gather": fold_constant_gather,
}


def check_onnxoptimizer_passes(names: Iterable[str]):
    """The ``onnxoptimizer`` module, once every name in ``names`` is one of its passes.

    Raises:
        UserError: onnxoptimizer is not installed, or has no pass of one of the names.
    """
    onnxoptimizer = require("onnxoptimizer", "onnxoptimizer", "run_passes(onnxoptimizer_passes=...)")
    bad = sorted(set(names) - set(onnxoptimizer.get_available_passes()))
    if bad:
        raise UserError(f"onnxoptimizer has no pass(es) {bad}; see onnxoptimizer.get_available_passes()")
    return onnxoptimizer


def run_passes(model: onnx.ModelProto, passes: list[str] | None = None, onnxoptimizer_passes: Iterable[str] = (),
               max_iters: int = 10) -> tuple[onnx.ModelProto, list[dict]]:
    """Run custom passes (then onnxoptimizer built-ins) in order, repeatedly, until nothing changes.

    One iteration runs every name in ``passes`` (default: all of :data:`CUSTOM_PASSES`, in that
    order), then, if given, ``onnxoptimizer.optimize(model, onnxoptimizer_passes)`` as one step.
    Iteration stops at the first one that changes nothing (a fixed point) or after ``max_iters``.

    Returns:
        ``(model, report)``; ``report`` has one dict per pass run: ``iter`` (0-based), ``pass``
        (name; onnxoptimizer's step is ``"onnxoptimizer:" + ",".join(names)``), ``rewrites``
        (for onnxoptimizer, which reports no count: nodes removed, or 1 if it changed the
        model without removing nodes), ``nodes_before``, ``nodes_after`` (main-graph nodes) and
        ``seconds`` (wall time of that pass).

    Raises:
        UserError: an unknown pass name, or onnxoptimizer requested but not installed / not
        knowing a pass. The input model is never modified.
    """
    names = list(CUSTOM_PASSES) if passes is None else list(passes)
    unknown = [p for p in names if p not in CUSTOM_PASSES]
    if unknown:
        raise UserError(f"unknown custom pass(es) {unknown}; choose from {sorted(CUSTOM_PASSES)}")
    opt_names = list(onnxoptimizer_passes)
    if opt_names:
        onnxoptimizer = check_onnxoptimizer_passes(opt_names)
    current = copy_model(model)
    report: list[dict] = []
    for it in range(max_iters):
        changed = False
        for name in names:
            before = len(current.graph.node)
            t0 = time.perf_counter()
            result = CUSTOM_PASSES[name](current)
            dt = time.perf_counter() - t0
            current = result.model
            changed |= result.rewrites > 0
            report.append({"iter": it, "pass": name, "rewrites": result.rewrites, "nodes_before": before,
                           "nodes_after": len(current.graph.node), "seconds": dt})
        if opt_names:
            before, blob = len(current.graph.node), current.SerializeToString()
            t0 = time.perf_counter()
            optimized = onnxoptimizer.optimize(current, opt_names)
            dt = time.perf_counter() - t0
            after = len(optimized.graph.node)
            differs = optimized.SerializeToString() != blob
            changed |= differs
            current = optimized
            report.append({"iter": it, "pass": "onnxoptimizer:" + ",".join(opt_names),
                           "rewrites": max(before - after, int(differs)), "nodes_before": before,
                           "nodes_after": after, "seconds": dt})
        if not changed:
            break
    return current, report
