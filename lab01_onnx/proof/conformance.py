"""Differential conformance run of the Lab 01 graph passes on the ONNX backend test suite.

For every test case shipped inside the ``onnx`` wheel (the ~1,900 backend *node* cases from
``onnx.backend.test.case.node.collect_testcases`` plus the small real models under
``onnx/backend/test/data``: ``simple``, ``pytorch-converted``, ``pytorch-operator``, ``light``)
each custom pass is run alone and the whole pass manager is run once, and each must keep the pass
contract of :mod:`lab01_onnx.proof.contract` (input untouched, deterministic, checker, interface,
outputs exactly equal on the case's own inputs, idempotent).

Cases are skipped (never passed vacuously) when the original itself fails the checker, no
runtime can run it, its outputs are not reproducible (random ops), or its data must be
downloaded; every skip carries its reason in the tables.

Run: ``python -m lab01_onnx.proof.conformance [--quick] [--limit N] [--filter REGEX] [--kinds node,simple]``.
Writes ``results/lab01/conformance.{md,csv,json}`` (one row per pass variant) and
``results/lab01/conformance_cases.*`` (one row per case that was rewritten, failed or skipped).

Source of the cases: https://github.com/onnx/onnx/tree/main/onnx/backend/test (Apache-2.0).
"""

from __future__ import annotations

import collections
import dataclasses
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import onnx

from common import cli
from common.errors import UserError, run_cli
from common.gates import GateError, GateReport
from lab01_onnx.passes import PassResult, check_onnxoptimizer_passes, run_passes

from .cases import ALL_KINDS, Case, load_cases, quick_slice
from .contract import (FAILURES, RUNTIMES, Outcome, PassFn, check_variant, checker_error, custom_variants, diff_outputs,
                       short)

LAB = "lab01"
ORT_SKIP_ENV = "MLC_CONFORMANCE_NO_ORT"  # set to 1 to force onnx.reference everywhere
QUICK_CASES = 300  # --quick: the CI slice
# ---------------------------------------------------------------------------------------------
# Pass variants
# ---------------------------------------------------------------------------------------------

def onnxoptimizer_variant(names: Sequence[str]) -> dict[str, PassFn]:
    """``all+onnxoptimizer``: the pass manager with onnxoptimizer built-ins in the loop.

    onnxoptimizer's fusions (e.g. ``fuse_bn_into_conv``) change the arithmetic, so this variant
    is compared with the case's own tolerance (see :data:`TOLERANT_VARIANTS`), not bitwise.
    """
    def run(model: onnx.ModelProto) -> PassResult:
        new, report = run_passes(model, onnxoptimizer_passes=tuple(names))
        return PassResult(new, sum(int(r["rewrites"]) for r in report))

    return {"all+onnxoptimizer": run}


# Variants whose rewrites may change floating-point results: compared with the case's
# rtol/atol (the backend suite's, 1e-3 / 1e-7 by default). Every other variant is bitwise.
TOLERANT_VARIANTS = {"all+onnxoptimizer"}


# ---------------------------------------------------------------------------------------------
# Running and comparing
# ---------------------------------------------------------------------------------------------

class RuntimeFailure(Exception):
    """Neither runtime could run a model on its inputs."""


def run_reference_side(model: onnx.ModelProto, feeds_list: Sequence[Mapping[str, Any]]
                       ) -> tuple[str, list[list[Any]]]:
    """Run the original model on every input set with the first runtime that can.

    Returns (runtime name, outputs per input set). Raises RuntimeFailure naming both errors.
    """
    errors = []
    names = ["onnx.reference"] if os.environ.get(ORT_SKIP_ENV) == "1" else list(RUNTIMES)
    for name in names:
        try:
            return name, [RUNTIMES[name](model, f) for f in feeds_list]
        except Exception as exc:  # noqa: BLE001 - record and try the next runtime
            errors.append(f"{name}: {short(exc)}")
    raise RuntimeFailure("; ".join(errors))


# ---------------------------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass
class CaseResult:
    """One case checked: the ``runtime`` that ran the reference, ``skip`` (why the case was not run, None if it
    was) and ``outcomes`` (variant name -> :class:`Outcome`)."""

    case: Case
    runtime: str = ""
    skip: str | None = None
    outcomes: dict[str, Outcome] = dataclasses.field(default_factory=dict)


def _reproducible(model: onnx.ModelProto, feeds: Sequence[Mapping[str, Any]], runtime: str,
                  first: Sequence[Sequence[Any]]) -> bool:
    second = [RUNTIMES[runtime](model, f) for f in feeds]
    names = [o.name for o in model.graph.output]
    return diff_outputs(first, second, names) is None


def run_case(case: Case, variants: Mapping[str, PassFn]) -> CaseResult:
    """Run every variant on one case; the case is skipped (with the reason) when its original
    model cannot serve as the reference."""
    res = CaseResult(case)
    if case.skip or case.model is None:
        res.skip = case.skip or "no model"
        return res
    if checker_error(case.model, full_check=False):
        res.skip = "original fails onnx.checker"
        return res
    full_check = checker_error(case.model, full_check=True) is None
    try:
        res.runtime, ref = run_reference_side(case.model, case.feeds)
    except RuntimeFailure as exc:
        res.skip = f"no runtime runs the original ({exc})"
        return res
    for name, fn in variants.items():
        tol = ({"rtol": case.rtol, "atol": case.atol} if name in TOLERANT_VARIANTS else {})
        out = check_variant(fn, case.model, case.feeds, res.runtime, ref, full_check=full_check,
                            **tol)
        if out.status == "output_mismatch" and not _reproducible(case.model, case.feeds,
                                                                 res.runtime, ref):
            res.skip, res.outcomes = "outputs not reproducible (random op)", {}
            return res
        res.outcomes[name] = out
    return res


# ---------------------------------------------------------------------------------------------
# Summary and tables
# ---------------------------------------------------------------------------------------------

def skip_category(reason: str) -> str:
    """Group skip reasons: the text up to the first parenthesis."""
    return reason.split(" (")[0]


def summarize(results: Sequence[CaseResult], variants: Sequence[str]) -> dict[str, Any]:
    """Counts: cases total/run/skipped (by reason), and per variant rewritten/equal/failures."""
    run = [r for r in results if r.skip is None]
    skipped = collections.Counter(skip_category(r.skip) for r in results if r.skip)
    per_variant = []
    for v in variants:
        outs = [r.outcomes[v] for r in run if v in r.outcomes]
        statuses = collections.Counter(o.status for o in outs)
        per_variant.append({
            "variant": v,
            "comparison": "case rtol/atol" if v in TOLERANT_VARIANTS else "bitwise",
            "cases_run": len(outs),
            "rewritten": sum(o.rewritten for o in outs),
            "rewrites": sum(o.rewrites or 0 for o in outs),
            "unchanged": statuses["unchanged"],
            "equal": statuses["equal"] + statuses["unchanged"],
            **{f: statuses[f] for f in FAILURES},
        })
    return {
        "cases_total": len(results),
        "cases_run": len(run),
        "cases_rewritten": sum(any(o.rewritten for o in r.outcomes.values()) for r in run),
        "cases_failed": sum(any(o.failed for o in r.outcomes.values()) for r in run),
        "runtimes": dict(collections.Counter(r.runtime for r in run)),
        "skipped": dict(skipped),
        "per_variant": per_variant,
    }


def case_rows(results: Sequence[CaseResult]) -> list[dict[str, Any]]:
    """One row per case that was rewritten, failed or skipped (the others are all `unchanged`)."""
    rows = []
    for r in results:
        if r.skip:
            rows.append({"case": r.case.name, "kind": r.case.kind, "variant": "",
                         "status": "skipped", "rewrites": "", "runtime": "", "detail": r.skip})
            continue
        for v, o in r.outcomes.items():
            if o.rewritten or o.failed or (o.rewrites or 0):
                rows.append({"case": r.case.name, "kind": r.case.kind, "variant": v,
                             "status": o.status, "rewrites": o.rewrites, "runtime": r.runtime,
                             "detail": o.detail})
    return rows


def write_tables(results: Sequence[CaseResult], variants: Sequence[str], *,
                 meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Write results/lab01/conformance.* (per variant) and conformance_cases.* (per case)."""
    from common.results import write_table
    from common.timing import environment

    summary = summarize(results, variants)
    skipped_lines = "\n".join(f"- {k}: {n}" for k, n in sorted(summary["skipped"].items()))
    notes = (f"{summary['cases_total']} cases, {summary['cases_run']} run "
             f"({summary['runtimes']}), {summary['cases_rewritten']} rewritten by at least one "
             f"variant, {summary['cases_failed']} with a failure. Outputs compared against "
             f"the original's (column `comparison`: bitwise with NaN == NaN for the custom "
             f"data-movement passes; the case's rtol/atol for onnxoptimizer fusions), "
             f"on the same runtime "
             f"(ORT CPU, graph optimizations off, 1 thread; onnx.reference where ORT cannot).\n\n"
             f"Skipped cases by reason:\n{skipped_lines or '- none'}\n\n"
             f"Per-case rows (rewritten, failed, skipped): conformance_cases.*")
    env = environment(threads=1)
    full_meta = {k: v for k, v in summary.items() if k != "per_variant"}
    full_meta.update(meta or {})
    paths = write_table(LAB, "conformance", summary["per_variant"],
                        title="Lab 01 passes on the ONNX backend test suite", env=env,
                        meta=full_meta, notes=notes)
    write_table(LAB, "conformance_cases", case_rows(results),
                title="Lab 01 conformance: rewritten, failed and skipped cases", env=env,
                meta={"variants": list(variants)})
    summary["paths"] = {k: str(p) for k, p in paths.items()}
    return summary


def run_conformance(cases: Sequence[Case], variants: Mapping[str, PassFn], *,
                    progress: bool | None = None) -> list[CaseResult]:
    """Run every variant on every case, with a tqdm progress bar (``None``: only on a terminal)."""
    from tqdm import tqdm

    results = []
    bar = tqdm(cases, desc="conformance", unit="case", disable=None if progress is None else not progress,
               file=sys.stderr)
    for case in bar:
        results.append(run_case(case, variants))
        fails = sum(any(o.failed for o in r.outcomes.values()) for r in results)
        bar.set_postfix(failed=fails, refresh=False)
    return results


def print_summary(summary: Mapping[str, Any], results: Sequence[CaseResult]) -> None:
    """Print :func:`summarize`'s counts (cases, then one line per variant and per skip reason), then one ``FAIL``
    line per failed (case, variant)."""
    print(f"cases: {summary['cases_total']} total, {summary['cases_run']} run "
          f"{summary['runtimes']}, {summary['cases_rewritten']} rewritten, "
          f"{summary['cases_failed']} failed")
    for row in summary["per_variant"]:
        fails = {f: row[f] for f in FAILURES if row[f]}
        print(f"  {row['variant']:<34} run {row['cases_run']:>5}  rewritten {row['rewritten']:>4}"
              f"  rewrites {row['rewrites']:>5}  equal {row['equal']:>5}  failures {fails or 0}")
    for reason, n in sorted(summary["skipped"].items()):
        print(f"  skipped {n:>4}: {reason}")
    for r in results:
        for v, o in r.outcomes.items():
            if o.failed:
                print(f"  FAIL {r.case.name} [{v}] {o.status}: {o.detail}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = cli.parser("python -m lab01_onnx.proof.conformance", __doc__,
                    quick=f"the CI slice: {QUICK_CASES} cases, those using Reshape/Identity/Gather/... first")
    ap.add_argument("--limit", type=int, default=None, help="run only the first N cases")
    ap.add_argument("--filter", default=None, help="regex on the case name (e.g. 'reshape|gather')")
    ap.add_argument("--kinds", default=",".join(ALL_KINDS),
                    help=f"comma list of case kinds (default: all of {','.join(ALL_KINDS)})")
    ap.add_argument("--onnxoptimizer", default="", metavar="P1,P2",
                    help="also check run_passes(onnxoptimizer_passes=[P1,P2,...]) as variant "
                         "all+onnxoptimizer, compared with the case's rtol/atol (not bitwise)")
    args = ap.parse_args(argv)
    cli.positive("--limit", args.limit)
    opt_names = [p for p in args.onnxoptimizer.split(",") if p]
    variants = custom_variants()
    if opt_names:
        variants.update(onnxoptimizer_variant(opt_names))
        check_onnxoptimizer_passes(opt_names)
    t0 = time.perf_counter()
    cases = load_cases([k.strip() for k in args.kinds.split(",") if k.strip()], args.filter,
                       None if args.quick else args.limit)
    if args.quick:
        cases = quick_slice(cases, QUICK_CASES)
    if not cases:
        raise UserError(f"no case matches --filter {args.filter!r}; try a broader regex")
    cli.step(1, "cases", f"loaded {len(cases)} cases in {time.perf_counter() - t0:.1f} s; variants: {', '.join(variants)}")
    t1 = time.perf_counter()
    results = run_conformance(cases, variants)
    elapsed = time.perf_counter() - t1
    if args.verbose:
        for row in case_rows(results):
            print("  ", row)
    summary = write_tables(results, list(variants), meta={
        "filter": args.filter, "limit": args.limit, "quick": args.quick, "kinds": args.kinds,
        "onnxoptimizer_passes": args.onnxoptimizer,
        "tolerant_variants": sorted(TOLERANT_VARIANTS & set(variants)),
        "elapsed_s": round(elapsed, 1), "onnx": onnx.__version__})
    cli.step(2, "run", f"{summary['cases_total']} cases, {summary['cases_run']} run {summary['runtimes']}, "
             f"{summary['cases_rewritten']} rewritten, {summary['cases_failed']} failed, in {elapsed:.1f} s")
    print_summary(summary, results)
    cli.step(3, "tables", f"wrote {summary['paths'].get('md', summary['paths'])}")
    if summary["cases_failed"]:
        failed = [r for r in case_rows(results) if r["status"] in FAILURES]
        raise GateError(GateReport("conformance", failed, f"{summary['cases_failed']} case(s) break the pass contract; "
                                                          f"first: {failed[0]['case']} [{failed[0]['variant']}] "
                                                          f"{failed[0]['status']}"))
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
