"""The reducer's search: shrink a divergence to a minimal subgraph and write it as a repro.

The command line is :mod:`debugging.reduce` (``python -m debugging.reduce``); its docstring gives
the method (bisect the end, bisect the start, remove one at a time, confirm without the extra
outputs) and the repro layout. This module holds the search, the tolerances and the report line:
the CLI (which imports the demos) and the built-in demos (:mod:`debugging.reduce_demos`) both
import it, so no module imports one that imports it back.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from common.errors import UserError
from common.onnx_graph import node_reads

from .replay import get_backend, write_repro

ORT_TOL = {"atol": 1e-4, "rtol": 0.0, "scale_atol_by_ref": False}
FP16_TOL = {"atol": 1e-2, "rtol": 0.0, "scale_atol_by_ref": True}  # 1% of each output's scale (debugging.fp16.TOL)


def reference_values(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every tensor of ``model`` on ``feeds`` (ORT, optimizations off, intermediates exposed), inputs included."""
    from common.onnx_utils import ort_run, ort_session
    from lab01_onnx.divergence import expose_intermediates

    vals = dict(feeds)
    vals.update(ort_run(ort_session(expose_intermediates(model), level="DISABLE_ALL"), feeds))
    return vals


def check_shared_types(candidate: onnx.ModelProto, values: Mapping[str, np.ndarray]) -> None:
    """Refuse a candidate whose tensors, where they share a name with the reference's, have another element type.

    The search feeds reference values into the candidate's nodes by tensor name, so a shared name must hold the
    same dtype in both (the viewer only *compares* values and takes any dtype). The candidate's types are
    ONNX shape inference's (``onnx.shape_inference.infer_shapes``); a tensor it cannot type is not checked.

    Raises:
        UserError: one line naming the first such tensor and both dtypes.
    """
    inferred = onnx.shape_inference.infer_shapes(candidate)
    g = inferred.graph
    for vi in [*g.input, *g.value_info, *g.output]:
        elem = vi.type.tensor_type.elem_type
        if vi.name in values and elem:
            want = helper.tensor_dtype_to_np_dtype(elem)
            if np.asarray(values[vi.name]).dtype != want:
                raise UserError(f"tensor {vi.name!r} is {np.asarray(values[vi.name]).dtype.name} in the reference but "
                                f"{np.dtype(want).name} in the candidate: the reducer feeds reference values into the "
                                "candidate's nodes by name, so shared tensors must keep their dtype (compare the two "
                                "with debugging.viewer --reference instead)")


def _vi(name: str, arr: np.ndarray) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(arr.dtype), list(arr.shape))


def subgraph(model: onnx.ModelProto, keep: Sequence[int], values: Mapping[str, np.ndarray],
             outputs: Sequence[str] | None = None) -> tuple[onnx.ModelProto, list[str]] | None:
    """The nodes ``keep`` (indices, kept in file order) of ``model`` as a model of their own.

    Inputs: tensors they read but do not produce (initializers stay initializers); each needs a
    reference value (its shape and dtype), else None is returned (the subgraph cannot be fed).
    Outputs: ``outputs``, or every produced tensor that has a reference value.

    Returns:
        ``(model, input names)`` or None.
    """
    nodes = [model.graph.node[i] for i in sorted(keep)]
    produced = [o for n in nodes for o in n.output if o]
    inits = {t.name: t for t in model.graph.initializer}
    reads = list(dict.fromkeys(i for n in nodes for i in node_reads(n)))  # outer-scope reads of If/Loop bodies too
    ins = [i for i in reads if i not in produced and i not in inits]
    if any(i not in values for i in ins):
        return None
    outs = list(outputs) if outputs is not None else [o for o in produced if o in values]
    if not outs:
        return None
    g = helper.make_graph(nodes, "repro", [_vi(i, values[i]) for i in ins], [_vi(o, values[o]) for o in outs],
                          initializer=[inits[i] for i in reads if i in inits])
    m = helper.make_model(g, opset_imports=list(model.opset_import), ir_version=model.ir_version)
    return m, ins


@dataclass
class Reduction:
    """Result of :func:`reduce_divergence`.

    Attributes:
        keep: node indices of the repro (None: the candidate does not diverge at all).
        outputs: the diverging tensors (the repro's outputs).
        nodes_before / nodes_after: node counts.
        evaluations: subgraphs run during the search.
        confirmed: the repro, with only ``outputs`` as graph outputs, still diverges on the backend.
        max_abs: worst |candidate - reference| over the outputs that diverged in that confirmation run
            (0.0 when none did, or when ``keep`` is None).
        trail: ``(phase, nodes)`` after each phase.
        model: the repro (``keep``'s nodes, ``outputs`` as its graph outputs; None when ``keep`` is).
        inputs: ``{graph input of model: reference value}``, what the repro is fed.
    """

    keep: list[int] | None
    outputs: list[str] = field(default_factory=list)
    nodes_before: int = 0
    nodes_after: int = 0
    evaluations: int = 0
    confirmed: bool = False
    max_abs: float = 0.0
    trail: list[tuple[str, int]] = field(default_factory=list)
    model: onnx.ModelProto | None = None
    inputs: dict = field(default_factory=dict)


def diverging(ref: Mapping[str, np.ndarray], got: Mapping[str, np.ndarray], names: Sequence[str], tol: dict
              ) -> tuple[list[str], float]:
    """Names in ``names`` whose values fail :func:`common.gates.compare` with ``tol``, and the worst max |diff|."""
    from common.gates import compare

    bad, worst = [], 0.0
    for n in names:
        row = compare({n: ref[n]}, {n: got[n]}, check_dtype=False, **tol)
        if not row.passed:
            bad.append(n)
            worst = max(worst, float(row.rows[0].get("max_abs", float("inf"))))
    return bad, worst


def reduce_divergence(candidate: onnx.ModelProto, values: Mapping[str, np.ndarray], backend, tol: dict,
                      confirm_backend=None, progress: bool = True) -> Reduction:
    """Bisection over the topological order, then one-at-a-time removal: steps 1-4 of
    :mod:`debugging.reduce`'s docstring (the order of ``polygraphy debug reduce``'s bisect, then linear mode).

    Args:
        candidate: the model whose nodes are reduced (topologically sorted, as ONNX requires).
        values: reference value of every tensor (:func:`reference_values`).
        backend: ``run(model, feeds) -> {output: array}`` used during the search.
        tol: :func:`common.gates.compare` keywords (``atol``, ``rtol``, ``scale_atol_by_ref``).
        confirm_backend: backend of the final check (default ``backend``).
        progress: a tqdm bar of the runs (on a terminal only).

    Returns:
        :class:`Reduction`; ``keep`` None when the whole candidate, fed the reference inputs, does not
        diverge (then nothing else is set).

    Raises:
        Whatever ``backend`` raises on a subgraph (not caught: a crash is not a divergence).
    """
    n = len(candidate.graph.node)
    red = Reduction(keep=None, nodes_before=n)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(desc="reduce", unit="run", leave=False, disable=None)  # no bar in a log (not a tty)

    def fails(keep: Sequence[int], outputs: Sequence[str] | None = None, run=backend) -> list[str]:
        built = subgraph(candidate, keep, values, outputs)
        red.evaluations += 1
        if bar is not None:
            bar.update(1)
            bar.set_postfix(nodes=len(keep))
        if built is None:
            return []
        sub, ins = built
        got = run(sub, {i: values[i] for i in ins})
        names = [o.name for o in sub.graph.output]
        bad, red.max_abs = diverging(values, got, names, tol)
        return bad

    try:
        if not fails(range(n)):
            return red
        lo, hi = 0, n  # fails(nodes[:hi]) holds
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if fails(range(mid)) else (mid, hi)
        k = hi
        red.trail.append(("bisect end", k))
        lo, hi = 0, k - 1  # fails(nodes[lo:k]) holds
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if fails(range(mid, k)) else (lo, mid - 1)
        keep = list(range(lo, k))
        red.trail.append(("bisect start", len(keep)))
        for i in reversed(list(keep)):
            trial = [j for j in keep if j != i]
            if trial and fails(trial):
                keep = trial
        red.trail.append(("remove one at a time", len(keep)))
        outs = fails(keep)
        red.outputs = outs
        confirm = confirm_backend or backend
        red.confirmed = bool(fails(keep, outputs=outs, run=confirm))
        red.keep, red.nodes_after = keep, len(keep)
        red.model, red.inputs = subgraph(candidate, keep, values, outs)[0], {}
        red.inputs = {i.name: values[i.name] for i in red.model.graph.input}
        return red
    finally:
        if bar is not None:
            bar.close()


def reduce_to_folder(reference: onnx.ModelProto, candidate: onnx.ModelProto, feeds: Mapping[str, np.ndarray],
                     out: str | Path, *, backend: str, tol: dict, confirm: str | None = None,
                     meta: dict | None = None) -> Reduction:
    """Reference values -> :func:`reduce_divergence` -> repro folder (when there is a divergence).

    Args:
        reference, candidate: the two models (tensors compared by name); ``feeds`` are the reference's inputs.
        out: the repro folder (:func:`debugging.replay.write_repro`; check it first with ``repro_target``).
        backend / confirm: :data:`debugging.replay.BACKENDS` names of the search and of the final check.
        tol: :func:`common.gates.compare` keywords (:data:`ORT_TOL`, :data:`FP16_TOL`).
        meta: extra ``repro.json`` entries (provenance).

    Raises:
        UserError: a tensor shared by both graphs has another dtype in the candidate (:func:`check_shared_types`),
            an unknown backend name, or ``out`` is no place for a repro or cannot be written (after the search).
    """
    values = reference_values(reference, feeds)
    check_shared_types(candidate, values)
    t0 = time.perf_counter()
    red = reduce_divergence(candidate, values, get_backend(backend), tol,
                            confirm_backend=get_backend(confirm) if confirm else None)
    if red.keep is not None:
        outputs = {o: values[o] for o in red.outputs}
        write_repro(out, red.model, red.inputs, outputs, {
            "backend": confirm or backend, "search_backend": backend, "tolerance": tol,
            "nodes_before": red.nodes_before, "nodes_after": red.nodes_after, "evaluations": red.evaluations,
            "confirmed_without_extra_outputs": red.confirmed, "max_abs": red.max_abs,
            "ops": [candidate.graph.node[i].op_type for i in red.keep],
            "node_names": [candidate.graph.node[i].name for i in red.keep],
            "trail": red.trail, "seconds": round(time.perf_counter() - t0, 1), **(meta or {})})
    return red


def report_line(red: Reduction, out: Path) -> str:
    """The reduction in one line: nodes before and after, the search's trail, runs, the diverging outputs and where
    the repro went (or, with no divergence, that nothing was written and whether ``out`` holds an older repro)."""
    if red.keep is None:
        kept = f"; {out} holds an earlier repro, left as it was" if Path(out).exists() else ""
        return (f"no divergence: the candidate agrees with the reference ({red.evaluations} run); nothing to reduce, "
                f"no repro written{kept}")
    factor = red.nodes_before / max(red.nodes_after, 1)
    smaller = f"{factor:.1f}" if factor < 10 else f"{factor:.0f}"  # 2.8x, 595x
    trail = " -> ".join(f"{p}: {k}" for p, k in red.trail)
    kept = list(red.model.graph.node) if red.model is not None else []
    named = ", ".join(f"{n.name or '(unnamed)'} ({n.op_type})" for n in kept[:3]) + (" ..." if len(kept) > 3 else "")
    return (f"{red.nodes_before} -> {red.nodes_after} nodes ({smaller}x smaller; {trail}), {red.evaluations} runs; "
            f"kept {named}; diverging {red.outputs} max abs {red.max_abs:.3g}; without extra outputs: "
            f"{'still diverges' if red.confirmed else 'NO LONGER DIVERGES'} -> {out}")
