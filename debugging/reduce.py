"""Shrink a divergence to a minimal subgraph that still shows it, written as a standalone repro.

Usage::

    python -m debugging.reduce REFERENCE.onnx CANDIDATE.onnx --out DIR [--backend onnxruntime-noopt]
    python -m debugging.reduce --demo wrong-rewrite    # Lab 01 step 8: LLaMA-tiny, a Neg dropped
    python -m debugging.reduce --demo fp16             # ResNet (ONNX) in TVM with fp16 accumulation

The *reference* values of every tensor come from one ONNX Runtime run of REFERENCE (graph
optimizations off, every intermediate exposed, as Lab 01's divergence finder runs it). A subgraph of
CANDIDATE *fails* when, fed with reference values for its inputs, one of its outputs that the
reference also has differs beyond tolerance on the chosen backend (ONNX Runtime for a graph
rewrite; TVM's fp16 build of the same ONNX graph for the precision case, where REFERENCE =
CANDIDATE). Method (the order of ``polygraphy debug reduce``'s bisect mode, then its linear mode):

1. **Bisect the end** over the topological order: the shortest prefix ``nodes[:k]`` that fails.
2. **Bisect the start**: the largest ``s`` such that ``nodes[s:k]`` still fails (inputs fed from
   the reference values).
3. **Remove nodes one at a time** (last to first), keeping a removal when the rest still fails.
4. **Confirm without the extra outputs**: the search exposes every produced tensor as a graph
   output, which changes what ONNX Runtime fuses (onnxruntime issue #4110); the repro keeps only
   the diverging tensors as outputs and is re-run as written (ORT optimizations ALL for the
   ``onnxruntime`` backends) before it is written.

Why not ``polygraphy debug reduce`` itself: it drives an external ``--check`` command per
candidate (a process per step, with ``polygraphy run`` comparing two runtimes on the *same*
model); here the reference is another model (the stage before a graph pass) or another compiler
(TVM), whose values for intermediate tensors are fed in by name, and the check is one function
call. Its search order is kept.

Output: ``DIR/model.onnx`` + ``DIR/test_data_set_0/input_N.pb`` + ``output_N.pb`` (reference
outputs) + ``repro.json``; replay with ``python -m debugging.replay DIR``. Exit codes: 0 reduced
(or "no divergence": nothing to reduce), 2 bad input.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from common.cli import parser, step
from common.errors import UserError, run_cli

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
    reads = list(dict.fromkeys(i for n in nodes for i in n.input if i))
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
        max_abs: worst |candidate - reference| over ``outputs`` in that confirmation run.
        trail: ``(phase, nodes)`` after each phase.
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
    """Bisection over the topological order, then one-at-a-time removal (see the module docstring).

    Args:
        candidate: the model whose nodes are reduced (topologically sorted, as ONNX requires).
        values: reference value of every tensor (:func:`reference_values`).
        backend: ``run(model, feeds) -> {output: array}`` used during the search.
        tol: :func:`common.gates.compare` keywords (``atol``, ``rtol``, ``scale_atol_by_ref``).
        confirm_backend: backend of the final check (default ``backend``).
    """
    n = len(candidate.graph.node)
    red = Reduction(keep=None, nodes_before=n)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(desc="reduce", unit="run", leave=False)

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
    """Reference values -> :func:`reduce_divergence` -> repro folder (when there is a divergence)."""
    values = reference_values(reference, feeds)
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
    if red.keep is None:
        return f"no divergence: the candidate agrees with the reference ({red.evaluations} run); nothing to reduce"
    factor = red.nodes_before / max(red.nodes_after, 1)
    return (f"{red.nodes_before} -> {red.nodes_after} nodes ({factor:.0f}x smaller; "
            f"{' -> '.join(f'{p}: {k}' for p, k in red.trail)}), {red.evaluations} runs; diverging "
            f"{red.outputs} max abs {red.max_abs:.3g}; without extra outputs: "
            f"{'still diverges' if red.confirmed else 'NO LONGER DIVERGES'} -> {out}")


def main(argv: Sequence[str] | None = None) -> int:
    from common.results import results_dir

    from . import reduce_demos

    p = parser("python -m debugging.reduce", __doc__)
    p.add_argument("reference", nargs="?", help="the reference model (e.g. the stage before a pass)")
    p.add_argument("candidate", nargs="?", help="the diverging model (default: the reference itself)")
    p.add_argument("--demo", choices=sorted(reduce_demos.DEMOS), help="a built-in case instead of two files")
    p.add_argument("--out", help="repro folder (default results/debugging/repro_<name>)")
    p.add_argument("--backend", default="onnxruntime-noopt", help="backend of the search (see debugging.replay)")
    p.add_argument("--confirm", help="backend of the final check (default: onnxruntime for ORT searches)")
    p.add_argument("--dims", default="batch=1,sequence=8", help="sizes of symbolic dims for random inputs")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.demo:
        rows = reduce_demos.DEMOS[args.demo](args.out)
        for r in rows:
            step(1, "reduce", f"{r['case']}: {r['line']}")
        return 0
    if not args.reference:
        raise UserError("give REFERENCE.onnx [CANDIDATE.onnx] or --demo NAME")
    from lab01_onnx.divergence import make_feeds

    from .viewer import _parse_dims, load_onnx

    ref = load_onnx(args.reference)
    cand = load_onnx(args.candidate) if args.candidate else ref
    if not ({o for n in ref.graph.node for o in n.output} & {o for n in cand.graph.node for o in n.output}):
        raise UserError("the two graphs have no tensor name in common: nothing to compare")
    dims = _parse_dims([d for d in args.dims.split(",") if d])
    tol = FP16_TOL if args.backend.startswith("tvm-fp16") else ORT_TOL
    confirm = args.confirm or ("onnxruntime" if args.backend.startswith("onnxruntime") else None)
    out = Path(args.out) if args.out else results_dir("debugging") / f"repro_{Path(args.candidate or args.reference).stem}"
    red = reduce_to_folder(ref, cand, make_feeds(ref, dims, args.seed), out, backend=args.backend, tol=tol,
                           confirm=confirm)
    step(1, "reduce", report_line(red, out))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
