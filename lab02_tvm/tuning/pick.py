"""Which of a top-up's new records replace the shipped ones: each kernel's two schedules, timed in the model.

A top-up (:mod:`lab02_tvm.tuning.longrun`: ``tune``, ``retime``, ``climb`` into a copy of the shipped folder)
keeps, per kernel, the record that ran fastest *alone*. On the AVX-512 Intel kind a BERT-base top-up whose
climbed attention projection ran 6.7 % faster alone (in the climb's own pass) ran it 5.4 % slower in the model:
there its input is in cache and its weights are not, which the kernel timed alone does not see (that top-up's
FFN matmul, 23.5 % slower in the model, was a record the re-timing had never timed against the shipped one:
:func:`lab02_tvm.tuning.retime.retime`'s ``incumbents``). :func:`pick` settles it where the kernel runs:

1. every kernel whose best record differs between ``base`` (the folder that ships) and ``topup`` (a top-up
   of it) is a candidate;
2. three builds are timed kernel by kernel in the model, interleaved
   (:func:`lab02_tvm.tuning.inmodel.kernel_ms_by_build`; each gated against PyTorch): ``base``, ``base``
   again (an A/A pair: the same code twice, so its gaps are the pass's noise) and ``topup`` (with ``--top-k K``,
   K builds: each kernel's K best records of a ``longrun tune --keep-all`` folder, one rank per build);
3. a candidate takes the top-up's record only if it runs at least ``min_gain`` faster per call in the model
   *and* by more than its noise floor: the largest A/A gap among the kernels with at least half its time per
   inference (:func:`decide`). A kernel whose record is the same in both folders is not noise-free between them: its neighbours
   differ, and with them what it finds in cache (BERT-base's GELU, after a top-up's FFN matmul, 12 % slower
   with its own record unchanged; ``pick_bert_b5``). The summary sums those kernels' gaps as ``neighbours_ms``;
4. the chosen folder (``out``) is ``base``'s records with the picked ones swapped in, and the top-up's
   provenance (its trials, its runs) plus a ``"picked"`` block naming each kernel's times in the model.

The whole model is then compared with the shipped folder in ``records_ab`` (kernels interact through the
caches they leave; this pass times each kernel in its own build). ``python -m lab02_tvm.tuning.pick --model bert
BASE TOPUP OUT`` writes ``OUT`` and the table ``results/lab02/pick_<model>.{md,csv,json}``.
"""
from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from common.errors import UserError

from .. import LAB

#: the least in-model gain (fraction) for which a top-up's record replaces the shipped one: run-to-run noise
#: of one kernel in the model is 1-4 % on these hosts (:mod:`lab02_tvm.tuning.epilogue`'s measurements)
MIN_GAIN = 0.03


def _same(a, b) -> bool:
    """Whether two records schedule a kernel alike (the same trace: the same code)."""
    return a is not None and b is not None and str(a.trace) == str(b.trace)


def _round(ms: float) -> float | None:
    """ms to 4 decimals; ``None`` for NaN (a build without that kernel)."""
    return None if ms != ms else round(ms, 4)


def decide(rows: list[dict], min_gain: float) -> tuple[list[dict], float]:
    """Mark each row's ``chosen`` record; return the rows and the highest noise floor a candidate faced (%).

    Args:
        rows: one per kernel: ``kernel``, ``calls`` (per inference), ``holds`` (``"both"``, ``"base"`` or
            ``"topup"``: which folders have a record of it), ``same`` (both hold the same record), ``base_ms``,
            ``again_ms`` (the base build's twin), ``topup_ms`` (ms per call in the model; ``None`` where a build
            lacks the kernel).
        min_gain: the least gain (fraction) a top-up record needs.
    Returns:
        the rows with ``aa_pct`` (100 (1 - again/base): the A/A gap), ``gain_pct`` (100 (1 - topup/base)),
        ``floor_pct`` and ``chosen``: ``"same"`` for a kernel whose records do not differ, the holder's name for
        one only one folder holds (the other build runs it untuned), else ``"topup"`` where
        ``gain_pct >= 100 min_gain`` and ``gain_pct > floor_pct``, ``"base"`` otherwise. A kernel's noise floor is
        the largest ``|aa_pct|`` among the kernels with at least half its time per inference (calls x ms per
        call), itself included: noise shrinks as a kernel's time grows (a 2 us transpose moves by a fifth
        between rounds, a 4 ms matmul by a few tenths of a percent), so each is judged by kernels as heavy.
    """
    for r in rows:
        b = r["base_ms"]
        r["aa_pct"], r["gain_pct"] = (round(100 * (1 - x / b), 2) if b and x is not None else None
                                      for x in (r["again_ms"], r["topup_ms"]))
    weight = {id(r): (r["base_ms"] or 0) * (r.get("calls") or 0) for r in rows}
    timed = [r for r in rows if r["aa_pct"] is not None]
    highest = 0.0
    for r in rows:
        if r["same"]:
            r["chosen"], r["floor_pct"] = "same", None
        elif r["holds"] != "both" or r["gain_pct"] is None:
            r["chosen"], r["floor_pct"] = (r["holds"] if r["holds"] != "both" else "base"), None
        else:
            r["floor_pct"] = max((abs(q["aa_pct"]) for q in timed if weight[id(q)] >= weight[id(r)] / 2), default=0.0)
            highest = max(highest, r["floor_pct"])
            r["chosen"] = "topup" if r["gain_pct"] >= 100 * min_gain and r["gain_pct"] > r["floor_pct"] else "base"
    return rows, highest


def _candidates(recs: list, k: int) -> list:
    """The first ``k`` records of a best-first list whose traces differ (a search can record one schedule twice)."""
    out, seen = [], set()
    for r in recs:
        if str(r.trace) not in seen:
            seen.add(str(r.trace))
            out.append(r)
        if len(out) == k:
            break
    return out


def pick(model: str, base: str | Path, topup: str | Path, out: str | Path, *, rounds: int = 20,
         min_gain: float = MIN_GAIN, top_k: int = 1, progress: bool = True, quick: bool = False,
         command: str | None = None) -> tuple[list[dict], dict]:
    """Choose per kernel between ``base``'s and ``topup``'s record by their times in the model; write ``out``.

    Args:
        model: the model both folders hold records of (a :data:`lab02_tvm.models.MODELS` key).
        base: the records folder that ships (never written).
        topup: a top-up of it, tuned in the same method and timing on this host (never written).
        out: where the chosen records go (created; a records folder there is replaced).
        rounds: interleaved in-model profiling rounds (each one instrumented inference per build: base, base
            again and one per top-up rank).
        min_gain: the least in-model gain (fraction) for a top-up record (which must also beat its noise floor).
        top_k: candidates per kernel from ``topup`` (its ``top_k`` best records with distinct traces, as a
            ``longrun tune --keep-all`` folder holds them): build ``i`` (1..top_k) takes each kernel's ``i``-th
            (or its last, for a kernel with fewer), and a kernel's top-up time is its fastest build's. The
            minimum of ``top_k`` noisy times is biased low: the whole-model ``records_ab`` decides.
        quick: the test-size model (for records tuned on it).
        command: the command line, for the provenance.
    Returns:
        ``(rows, summary)``: one row per kernel either folder has a record of (``kernel, calls, holds, same,
        base_ms, again_ms, topup_ms`` per call in the model, ``topup_rank`` (which of the top-up's records),
        ``aa_pct``, ``gain_pct``, ``floor_pct``, ``chosen``), and
        ``{"candidates", "picked", "noise_pct", "saved_ms", "neighbours_ms", "base_kernels_ms", "topup_kernels_ms"}``
        (``noise_pct``: the highest floor a candidate faced; per inference: ``saved_ms`` = calls x the per-call
        gain of the picked that both folders hold; ``neighbours_ms`` = what the
        kernels with the same record in both lost (+) or gained (-) in the top-up's build; ``*_kernels_ms`` = the
        sum of every kernel's time in the base build and in the top-up's, each kernel at its fastest rank).
    Raises:
        UserError: a folder holds no database or another model's records, was tuned for another target, the
            two differ in method or timing, neither holds a record of ``model``'s kernels, no kernel's record
            differs, or ``out`` overlaps a source or exists and is not empty nor a folder pick wrote (nothing
            written then).
        common.gates.GateError: a build differs from PyTorch beyond the model's gate.
    """
    from common.timing import set_torch_threads, tvm_threads

    from . import records
    from .database import task_records
    from .inmodel import check_out, host_records, kernel_ms_by_build, median_ms, write_records
    from .method import PREPACKED
    from .tasks import extract_tasks

    base, topup, out = Path(base), Path(topup), Path(out)
    check_out([base, topup], out, "picked")
    db_a, prov_a, method, target = host_records(base, "pick records in the model", model)
    db_b, prov_b, method_b, _ = host_records(topup, "pick records in the model", model)
    if method_b != method:
        raise UserError(f"{topup} was tuned {method_b} and {base} {method}: their kernels are other workloads; "
                        "pick between folders of one method")
    if records.timing_of(prov_a) != records.timing_of(prov_b):
        raise UserError(f"{topup} was timed {records.timing_of(prov_b)} and {base} {records.timing_of(prov_a)}: "
                        "a top-up is timed as the folder it tops up")
    set_torch_threads(1)
    with tvm_threads(1):
        im, mod = method.prepared(model, quick)
        infos = extract_tasks(mod, target, method.layout_rewrite)
        best = {}
        for t in infos:
            ra, rb = task_records(db_a, t.task), _candidates(task_records(db_b, t.task), top_k)
            if ra or rb:
                best[t.name] = (t, ra[0] if ra else None, rb)
        if not best:
            raise UserError(f"{base} and {topup} hold no record of {model}'s kernels in their method ({method})")
        if all(all(_same(ra, r) for r in rb) for _, ra, rb in best.values()):
            raise UserError(f"no kernel's record differs between {base} and {topup}: nothing to pick (the top-up "
                            "found no new best)")
        arms = [f"topup{i + 1}" for i in range(max(len(rb) for _, _, rb in best.values()))]
        with tempfile.TemporaryDirectory(prefix="lab02_pick_") as tmp:
            folders = {"base": base, "again": base}
            for i, arm in enumerate(arms):  # each kernel's i-th candidate (its last if fewer; base's if none)
                entries = [(t.task.dispatched[0], rb[min(i, len(rb) - 1)] if rb else ra) for t, ra, rb in best.values()]
                folders[arm] = write_records(Path(tmp) / arm, entries, {})
            times, calls = kernel_ms_by_build(mod, im, target, folders, layout_rewrite=method.layout_rewrite,
                                              rounds=rounds, progress=progress,
                                              desc=f"{model}: base and {len(arms)} top-up build(s) in the model")
    rows = []
    for name, (_, ra, rb) in sorted(best.items()):
        tried = {i: median_ms(times[arms[i]], name) for i, r in enumerate(rb) if not _same(ra, r)}
        rank = min(tried, key=tried.get) if tried else 0
        rows.append({"kernel": name, "calls": calls.get(name + PREPACKED, calls.get(name)),
                     "holds": "both" if ra is not None and rb else ("base" if ra is not None else "topup"),
                     "same": not tried, "base_ms": _round(median_ms(times["base"], name)),
                     "again_ms": _round(median_ms(times["again"], name)),
                     "topup_ms": _round(median_ms(times[arms[rank]], name)) if rb else None,
                     "topup_rank": rank + 1 if tried else None})
    rows, noise = decide(rows, min_gain)
    chosen = {r["kernel"]: r for r in rows if r["chosen"] == "topup"}
    entries = [(t.task.dispatched[0], rb[chosen[name]["topup_rank"] - 1] if name in chosen else ra)
               for name, (t, ra, rb) in best.items() if name in chosen or ra is not None]
    saved = sum((r["base_ms"] - r["topup_ms"]) * (r["calls"] or 0) for r in chosen.values()
                if r["holds"] == "both" and r["gain_pct"] is not None)  # a kernel untuned in base is no saving
    per_inference = {arm: sum((r[f"{arm}_ms"] or 0) * (r["calls"] or 0) for r in rows) for arm in ("base", "topup")}
    neighbours = sum((r["topup_ms"] - r["base_ms"]) * (r["calls"] or 0) for r in rows
                     if r["same"] and r["gain_pct"] is not None)
    summ = {"candidates": sum(not r["same"] for r in rows), "picked": sorted(chosen), "noise_pct": noise,
            "saved_ms": round(saved, 3), "neighbours_ms": round(neighbours, 3),
            "base_kernels_ms": round(per_inference["base"], 2), "topup_kernels_ms": round(per_inference["topup"], 2),
            "rounds": rounds, "min_gain": min_gain, "top_k": top_k}
    write_records(out, entries, {**prov_b, "records": len(entries), "picked": {
        "note": f"a kernel takes the top-up's record only where it ran at least {100 * min_gain:g} % (and more "
                "than its noise floor: the largest gap between two builds of the base folder among kernels with at "
                "least half its time) faster per call in the model (lab02_tvm.tuning.pick); the others keep the "
                "base folder's; trials and runs are the top-up's, records this folder's",
        "base": records.rel(base), "topup": records.rel(topup), "command": command,
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), **summ,
        "kernels": {n: {"base_ms": r["base_ms"], "topup_ms": r["topup_ms"], "gain_pct": r["gain_pct"],
                        "topup_rank": r["topup_rank"]}
                    for n, r in sorted(chosen.items())}}})
    return rows, summ


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.tuning.pick --model bert BASE TOPUP OUT``: pick, write OUT and the table ``pick_<model>``."""
    from common.cli import command_line, fraction, parser, positive, step, table_name
    from common.results import write_table
    from common.roof import host_check_seconds, host_speed
    from common.timing import environment

    from ..models import MODELS
    p = parser("python -m lab02_tvm.tuning.pick", __doc__)
    p.add_argument("--model", required=True, choices=list(MODELS))
    p.add_argument("base", help="the records folder that ships (never written)")
    p.add_argument("topup", help="a top-up of it: same method, same timing, this host (never written)")
    p.add_argument("out", help="folder for the chosen records (replaced)")
    p.add_argument("--rounds", type=int, default=20, help="interleaved in-model profiling rounds")
    p.add_argument("--min-gain", type=float, default=MIN_GAIN, help="least in-model gain (fraction) for a top-up record")
    p.add_argument("--top-k", type=int, default=1, help="candidates per kernel from TOPUP (its best records with "
                   "distinct traces; a longrun tune --keep-all folder holds them): one build per rank")
    p.add_argument("--name", default=None, help="table name (default pick_<model>)")
    args = p.parse_args(argv)
    positive("--rounds", args.rounds)
    positive("--top-k", args.top_k)
    fraction("--min-gain", args.min_gain)
    table_name("--name", args.name)
    cmd = command_line("lab02_tvm.tuning.pick", argv)
    with host_speed(host_check_seconds()) as host:
        rows, summ = pick(args.model, args.base, args.topup, args.out, rounds=args.rounds, min_gain=args.min_gain,
                          top_k=args.top_k, command=cmd)
    step(1, "pick", f"{args.model}: {summ['candidates']} kernels differ; highest noise floor {summ['noise_pct']} %; the "
                    f"top-up's record taken for " + (", ".join(summ["picked"]) or "none")
                    + f" ({summ['saved_ms']} ms an inference in the model); kernels in the base build "
                    f"{summ['base_kernels_ms']} ms, in the top-up's {summ['topup_kernels_ms']} ms, of which "
                    f"{summ['neighbours_ms']:+} ms on kernels with the same record")
    paths = write_table(LAB, args.name or f"pick_{args.model}", rows, title=f"Lab 02: {args.model}'s top-up, picked in the model",
                        env=environment(threads=1, machine_note="1 core", base=args.base, topup=args.topup, out=args.out,
                                        **host),
                        meta={k: v for k, v in summ.items() if k != "picked"} | {"picked": ", ".join(summ["picked"])},
                        notes="Per kernel either folder has a record of: its time per call in the model (median of "
                              "interleaved rounds, each build once per round in a shuffled order) built from the base "
                              "folder, from it again (again_ms, aa_pct: an A/A pair, the pass's noise) and from the "
                              "top-up; same = both folders hold the same record (its gap then comes from its "
                              "neighbours); chosen = topup where gain_pct >= min_gain and above floor_pct, the "
                              "kernel's noise floor (the largest |aa_pct| among kernels with at least half its "
                              "time per inference).")
    step(2, "write", f"{args.out}; {paths['md']}")
    return 0


if __name__ == "__main__":
    from common.errors import run_cli

    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
