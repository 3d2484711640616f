"""Shrink a divergence to a minimal subgraph that still shows it, written as a standalone repro.

Usage::

    python -m debugging.reduce REFERENCE.onnx CANDIDATE.onnx --out DIR [--backend onnxruntime-noopt] [--atol A]
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

from collections.abc import Sequence
from pathlib import Path

from common.cli import made_folder, parser, step
from common.errors import UserError, run_cli
from common.onnx_dims import add_dims_argument, check_dims_named, require_sizes, parse_dims

from . import reduce_demos
from .viewer import DEFAULT_DIMS, load_onnx
from .reducer import (FP16_TOL, ORT_TOL, Reduction, reduce_divergence, reduce_to_folder,  # noqa: F401 (API)
                      report_line)


def main(argv: Sequence[str] | None = None) -> int:
    from common.cli import command_line, positive
    from common.results import results_dir

    from .replay import BACKENDS, repro_target

    p = parser("python -m debugging.reduce", __doc__, verbose=None)
    p.add_argument("reference", nargs="?", help="the reference model (e.g. the stage before a pass)")
    p.add_argument("candidate", nargs="?", help="the diverging model (default: the reference itself)")
    p.add_argument("--demo", choices=sorted(reduce_demos.DEMOS), help="a built-in case instead of two files "
                   "(takes only --out)")
    p.add_argument("--out", help="repro folder (default results/debugging/repro_<name>)")
    p.add_argument("--backend", choices=list(BACKENDS), help="backend of the search (default onnxruntime-noopt; "
                   "see debugging.replay)")
    p.add_argument("--confirm", choices=list(BACKENDS), help="backend of the final check without the extra outputs "
                   "(default: onnxruntime after an ONNX Runtime search, else the search's backend)")
    add_dims_argument(p, "", f"sizes of symbolic dims for the random inputs, over the defaults {DEFAULT_DIMS}")
    p.add_argument("--seed", type=int, help="seed of the random inputs (default 0)")
    p.add_argument("--atol", type=float, help=f"tolerance, >= 0 (default {ORT_TOL['atol']:g} absolute; with a "
                   f"tvm-fp16 backend {FP16_TOL['atol']:g} of each output's scale)")
    args = p.parse_args(argv)
    if args.demo:
        given = [flag for flag, v in (("REFERENCE", args.reference), ("--backend", args.backend),
                                      ("--confirm", args.confirm), ("--seed", args.seed), ("--atol", args.atol),
                                      ("--dims", args.dims or None))
                 if v is not None]
        if given:
            raise UserError(f"--demo {args.demo} builds its own models and settings: drop {', '.join(given)}")
        out = str(repro_target(args.out)) if args.out else None  # before the search, not after it
        rows, table = reduce_demos.DEMOS[args.demo](out)
        for r in rows:
            step(1, "reduce", f"{r['case']}: {r['line']}")
        step(2, "table", str(table))
        return 0
    if not args.reference:
        raise UserError("give REFERENCE.onnx [CANDIDATE.onnx] or --demo NAME")
    seed = 0 if args.seed is None else args.seed
    positive("--seed", seed, strict=False)
    if args.atol is not None:
        positive("--atol", args.atol, strict=False)  # nan, inf and negatives refused
    backend = args.backend or "onnxruntime-noopt"
    wanted = Path(args.out or results_dir("debugging") / f"repro_{Path(args.candidate or args.reference).stem}")
    with made_folder(wanted.parent, "--out's folder"):  # made for repro_target; gone again if the run is refused
        out = repro_target(wanted)
        from common.onnx_utils import check_feeds
        from lab01_onnx.divergence import make_feeds

        from .overlays import shared_tensors

        ref = load_onnx(args.reference)
        cand = load_onnx(args.candidate) if args.candidate else ref
        if not shared_tensors(ref, cand):
            raise UserError("the two graphs have no tensor name in common: nothing to compare")
        check_dims_named(args.dims, ref, cand)  # a typo would leave the axis at its default size
        dims = {**parse_dims(DEFAULT_DIMS), **args.dims}
        require_sizes(ref, dims, f"the reference {args.reference}")  # every axis sized: no size is made up
        feeds = make_feeds(ref, dims, seed)
        # both graphs run on the reference's inputs
        check_feeds(cand, feeds, f"the candidate {args.candidate or args.reference}")
        tol = FP16_TOL if backend.startswith("tvm-fp16") else ORT_TOL
        tol = tol if args.atol is None else {**tol, "atol": args.atol}  # repro.json keeps it: replay uses the same
        confirm = args.confirm or ("onnxruntime" if backend.startswith("onnxruntime") else None)
        prov = {"reference": args.reference, "candidate": args.candidate or args.reference, "dims": dims, "seed": seed,
                "command": command_line("debugging.reduce", argv)}  # repro.json: where the repro came from
        red = reduce_to_folder(ref, cand, feeds, out, backend=backend, tol=tol, confirm=confirm, meta=prov)
        step(1, "reduce", report_line(red, out))
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
