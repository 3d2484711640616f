"""Property-based fuzzing of the Lab 01 graph passes with hypothesis.

Graphs come from the strategy :func:`lab01_onnx.proof.graphs.fuzz_graphs` (the passes' patterns
and the traps around them). For each generated graph, each custom pass alone and the whole pass
manager must keep the pass contract (:func:`lab01_onnx.proof.contract.check_variant`): input
untouched, same result when run twice, ``onnx.checker`` (full check) passes, graph input/output
names and types unchanged, outputs bitwise equal on the graph's inputs (ONNX Runtime CPU, graph
optimizations off), and the pass idempotent.

Run: ``python -m lab01_onnx.proof.fuzz --n 10000 [--seed 0]`` (the seed makes a run repeatable;
the same seed and ``--n`` replay the same graphs). On a failure hypothesis shrinks the graph to a
minimal counterexample, which is printed, saved under ``results/lab01/fuzz_counterexamples/``
(``.onnx`` + ``.npz`` + ``.txt``) and then tolerated so the run goes on to find other kinds of
failure; the run then ends as a failed gate (exit 1). Counts go to ``results/lab01/fuzz.*``.
"""

from __future__ import annotations

import collections
import dataclasses
import io
import re
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from common import cli
from common.errors import UserError, run_cli
from common.gates import GateError, GateReport
from common.onnx_utils import load_model

from . import contract as conf
from .graphs import OPSETS, FuzzCase, fuzz_graphs

LAB = "lab01"
QUICK_EXAMPLES = 300  # --quick


# ---------------------------------------------------------------------------------------------
# Checking and running
# ---------------------------------------------------------------------------------------------

class GeneratorBug(AssertionError):
    """The generated model itself is invalid (a bug in this fuzzer, not in a pass)."""


def check_fuzz_case(fc: FuzzCase, variants: Mapping[str, conf.PassFn]) -> dict[str, conf.Outcome]:
    """Check every variant on one generated model (see :func:`conformance.check_variant`).

    Raises GeneratorBug when the original fails the checker or ORT cannot run it.
    """
    err = conf.checker_error(fc.model, full_check=True)
    if err:
        raise GeneratorBug(f"generated model fails the checker: {err}\n{fc.text()}")
    try:
        ref = [conf.RUNTIMES["onnxruntime"](fc.model, fc.feeds)]
    except Exception as exc:  # noqa: BLE001
        raise GeneratorBug(f"ORT cannot run the generated model: {exc}\n{fc.text()}") from exc
    return {name: conf.check_variant(fn, fc.model, [fc.feeds], "onnxruntime", ref,
                                     full_check=True) for name, fn in variants.items()}


def failure_signature(detail: str) -> str:
    """A failure's message with value names and numbers blanked, so that one bug met on many
    graphs counts once while different messages (e.g. another op type) count apart."""
    text = re.sub(r"'[^']*'", "'_'", detail)
    return re.sub(r"\d+(\.\d+)?(e-?\d+)?", "N", text)[:120]


class PropertyFailure(AssertionError):
    """A pass broke a property on a generated model."""


@dataclasses.dataclass
class FuzzStats:
    """Counts over the generated examples (shrinking calls are not counted)."""

    examples: int = 0
    per_variant: dict[str, collections.Counter] = dataclasses.field(default_factory=dict)
    features: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    counterexamples: list[dict] = dataclasses.field(default_factory=list)

    def add(self, fc: FuzzCase, outcomes: Mapping[str, conf.Outcome]) -> None:
        """Count one generated example: its features and each variant's status, rewrites and whether it rewrote."""
        self.examples += 1
        self.features.update({k: 1 for k in fc.features})
        for v, o in outcomes.items():
            c = self.per_variant.setdefault(v, collections.Counter())
            c["examples"] += 1
            c[o.status] += 1
            c["rewritten"] += int(o.rewritten)
            c["rewrites"] += o.rewrites or 0

    def rows(self) -> list[dict[str, Any]]:
        """One table row per variant: examples, rewritten, rewrites, equal (``equal`` + ``unchanged``) and one count per
        failure status of :data:`contract.FAILURES`."""
        rows = []
        for v, c in self.per_variant.items():
            rows.append({"variant": v, "examples": c["examples"], "rewritten": c["rewritten"],
                         "rewrites": c["rewrites"], "equal": c["equal"] + c["unchanged"],
                         **{f: c[f] for f in conf.FAILURES}})
        return rows


def run_fuzz(n: int, variants: Mapping[str, conf.PassFn], *, seed: int = 0,
             progress: bool | None = None, max_rounds: int = 20,
             save_dir: Any = None, shrink: bool = True, max_steps: int = 8) -> FuzzStats:
    """Generate ``n`` graphs from ``seed`` and check every variant on each.

    The same ``(n, seed, max_steps)`` gives the same graphs (round ``r`` of hypothesis runs with
    seed ``seed * 1000 + r``); ``progress=None`` shows a bar only on a terminal.

    Each failure kind (variant, status, :func:`failure_signature`) is shrunk by hypothesis to a
    minimal counterexample, recorded in ``stats.counterexamples`` (and saved under ``save_dir``
    when given), then tolerated in the following rounds, so one bug does not hide the others.
    ``shrink=False`` keeps the first failing graph as found (faster, not minimal).

    Raises:
        GeneratorBug: a generated model fails the checker or ORT cannot run it (a bug of the generator, not of
            a pass; raised by :func:`check_fuzz_case`, it ends the run).
        FlakyFailure: re-raised unchanged (as is a :class:`PropertyFailure`) when Hypothesis raises it without a
            failure this run recorded.
    """
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis.errors import FlakyFailure
    from hypothesis import seed as hseed
    from tqdm import tqdm

    stats = FuzzStats()
    known: set[tuple[str, str, str]] = set()
    bar = tqdm(total=n, desc="fuzz", unit="graph", disable=None if progress is None else not progress,
               file=sys.stderr)
    for rnd in range(max_rounds):
        remaining = n - stats.examples
        if remaining <= 0:
            break
        state: dict[str, Any] = {"key": None, "last": None}

        @settings(max_examples=remaining, deadline=None, database=None,
                  derandomize=False, suppress_health_check=list(HealthCheck),
                  phases=[Phase.generate] + ([Phase.shrink] if shrink else []),
                  report_multiple_bugs=False,
                  verbosity=Verbosity.quiet, print_blob=False)
        @hseed(seed * 1000 + rnd)
        @given(fuzz_graphs(max_steps=max_steps))
        def prop(fc: FuzzCase) -> None:
            outcomes = check_fuzz_case(fc, variants)
            if state["key"] is None:
                stats.add(fc, outcomes)
                bar.update(1)
                bar.set_postfix(failures=len(stats.counterexamples), refresh=False)
            for v, o in outcomes.items():
                key = (v, o.status, failure_signature(o.detail))
                if o.failed and key not in known and state["key"] in (None, key):
                    state["key"], state["last"] = key, (fc, o)
                    raise PropertyFailure(f"{v}: {o.status}: {o.detail}")

        try:
            prop()
            break
        except (PropertyFailure, FlakyFailure) as exc:
            # FlakyFailure: the shrunk graph failed once but not on hypothesis's replay -- the
            # pass is not deterministic on it; still a counterexample, recorded as such.
            if state["last"] is None:
                raise
            fc, o = state["last"]
            key = state["key"]
            known.add(key)
            entry = _record(fc, key, o, len(stats.counterexamples), save_dir)
            entry["flaky"] = isinstance(exc, FlakyFailure)
            stats.counterexamples.append(entry)
    bar.close()
    return stats


def _record(fc: FuzzCase, key: tuple[str, str, str], o: conf.Outcome, k: int, save_dir: Any
            ) -> dict:
    entry = {"variant": key[0], "status": key[1], "detail": o.detail, "model_text": fc.text(),
             "feeds": {n: v.tolist() for n, v in fc.feeds.items()}}
    if save_dir is not None:
        from common.results import atomic_write

        stem = f"{k:02d}_{key[0]}_{key[1]}"
        atomic_write(save_dir / f"{stem}.onnx", fc.model.SerializeToString())
        buf = io.BytesIO()
        np.savez(buf, **fc.feeds)
        atomic_write(save_dir / f"{stem}.npz", buf.getvalue())
        atomic_write(save_dir / f"{stem}.txt",
                     f"# {key[0]}: {key[1]}: {o.detail}\n# feeds: {entry['feeds']}\n{fc.text()}\n")
        entry["saved"] = str(save_dir / f"{stem}.onnx")
    return entry


def replay(path: str, variants: Mapping[str, conf.PassFn]) -> int:
    """Check a saved counterexample (``NN_name.onnx`` + ``NN_name.npz``) and print each variant's outcome.

    Raises:
        UserError: the files are missing or unreadable.
        GateError: a variant still breaks the contract on it.
    """
    import pathlib

    onnx_path = pathlib.Path(path)
    npz_path = onnx_path.with_suffix(".npz")
    if not onnx_path.is_file() or not npz_path.is_file():
        raise UserError(f"{onnx_path} or its feeds {npz_path.name} not found; give a .onnx file "
                        "from results/lab01/fuzz_counterexamples/")
    try:
        model = load_model(onnx_path)
        with np.load(npz_path) as data:
            feeds = {k: data[k] for k in data.files}
    except Exception as exc:  # noqa: BLE001 - DecodeError, bad zip
        raise UserError(f"{onnx_path}: cannot read the model or feeds ({exc})") from None
    outcomes = check_fuzz_case(FuzzCase(model, feeds, collections.Counter()), variants)
    for v, o in outcomes.items():
        print(f"  {v:<34} {o.status}{': ' + o.detail if o.detail else ''}")
    rows = [{"variant": v, "status": o.status, "detail": o.detail} for v, o in outcomes.items()]
    failed = [r for r in rows if r["status"] in conf.FAILURES]
    if failed:
        raise GateError(GateReport(f"replay {onnx_path.name}", rows, f"{failed[0]['variant']}: {failed[0]['status']}"))
    return 0


def write_tables(stats: FuzzStats, *, meta: Mapping[str, Any]) -> dict:
    """Write the table ``fuzz`` of lab01 (:func:`common.results.write_table`: ``results/lab01/fuzz.{md,csv,json}``
    unless ``MLC_RESULTS_DIR`` is set): :meth:`FuzzStats.rows`, the features and every counterexample in the notes;
    ``meta`` (with the counts added) is its setup.

    Returns:
        ``{"md": path, "csv": path, "json": path}``.
    """
    import hypothesis

    from common.results import write_table
    from common.timing import environment

    notes = (f"{stats.examples} generated graphs; {len(stats.counterexamples)} distinct "
             "counterexample kind(s) (variant, property), each shrunk by hypothesis.\n\n"
             "Graphs exercising each feature:\n"
             + "\n".join(f"- {k}: {v}" for k, v in sorted(stats.features.items())))
    for c in stats.counterexamples:
        notes += f"\n\nCounterexample [{c['variant']}] {c['status']}: {c['detail']}\n"
        notes += "\n".join("    " + line for line in c["model_text"].splitlines())
    return write_table(LAB, "fuzz", stats.rows(), title="Lab 01 passes under hypothesis fuzzing",
                       env=environment(threads=1, hypothesis=hypothesis.__version__),
                       meta={**meta, "examples": stats.examples,
                             "features": dict(stats.features),
                             "counterexamples": stats.counterexamples}, notes=notes)


def main(argv: Sequence[str] | None = None) -> int:
    ap = cli.parser("python -m lab01_onnx.proof.fuzz", __doc__, quick=f"{QUICK_EXAMPLES} graphs instead of --n")
    ap.add_argument("--n", type=int, default=1000, help="graphs to generate (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="hypothesis seed (default 0)")
    ap.add_argument("--max-steps", type=int, default=8, help="recipes per graph (default 8)")
    ap.add_argument("--replay", metavar="NN_name.onnx", default=None,
                    help="re-check one saved counterexample (its .npz feeds beside it) against "
                         "the current passes, print each variant's outcome, and exit")
    args = ap.parse_args(argv)
    from common.results import results_dir

    n = QUICK_EXAMPLES if args.quick else args.n
    cli.positive("--n", n)
    cli.positive("--max-steps", args.max_steps)
    variants = conf.custom_variants()
    if args.replay:
        return replay(args.replay, variants)
    save_dir = results_dir(LAB) / "fuzz_counterexamples"
    for stale in save_dir.glob("[0-9][0-9]_*.*"):
        if stale.suffix in (".onnx", ".txt", ".npz"):
            stale.unlink()  # this folder holds the latest run's counterexamples only
    t0 = time.perf_counter()
    stats = run_fuzz(n, variants, seed=args.seed, save_dir=save_dir, max_steps=args.max_steps)
    elapsed = time.perf_counter() - t0
    paths = write_tables(stats, meta={"n": n, "seed": args.seed, "max_steps": args.max_steps,
                                      "elapsed_s": round(elapsed, 1), "opsets": list(OPSETS)})
    cli.step(1, "fuzz", f"{stats.examples} graphs (seed {args.seed}) in {elapsed:.1f} s, "
             f"{len(stats.counterexamples)} counterexample kind(s)")
    for row in stats.rows():
        fails = {f: row[f] for f in conf.FAILURES if row[f]}
        print(f"  {row['variant']:<34} rewritten {row['rewritten']:>5}  rewrites "
              f"{row['rewrites']:>6}  equal {row['equal']:>5}  failures {fails or 0}")
    for c in stats.counterexamples:
        print(f"  COUNTEREXAMPLE [{c['variant']}] {c['status']}: {c['detail']}"
              f"{' -> ' + c['saved'] if 'saved' in c else ''}")
        if args.verbose:
            print(c["model_text"])
    cli.step(2, "tables", f"wrote {paths['md']}")
    if stats.counterexamples:
        rows = [{k: c[k] for k in ("variant", "status", "detail")} | {"saved": c.get("saved", "")}
                for c in stats.counterexamples]
        raise GateError(GateReport("fuzz", rows, f"{len(rows)} counterexample kind(s); first: "
                                                 f"[{rows[0]['variant']}] {rows[0]['status']}"))
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
