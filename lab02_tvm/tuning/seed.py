"""Another machine kind's records of one model as this host's starting point: re-targeted, re-timed here.

A record is a schedule and the time it took on the machine that measured it. The schedule is code any x86
host can build for itself; the time is that machine's, and so is the choice it made: on the AVX-512 Intel
kind, built from Zen 4's records (the same method, 2,235 trials, timed warm), BERT-base ran 1.80x slower
than from its own (249.0 against 138.7 ms) and ResNet-50 1.66x (73.9 against 44.5 ms;
``records_ab_bert_xkind``, ``records_ab_resnet50_xkind`` in ``results/rocketlake/lab02``). A host without
records of its own builds from another kind's as they are (:func:`lab02_tvm.tuning.records.choose`, ranks 2-3);
a kind that tunes its own can start its search from them.
``python -m lab02_tvm.tuning.seed --model M SRC [--root R]``:

1. copies ``SRC`` (a records folder of another target, the same model) into a new folder of this host's target
   under ``--root`` (default ``build/lab02/seeded``), every record's target set to this host's;
2. re-times each kernel's best records here (:func:`lab02_tvm.tuning.retime.retime`, ``keep_untimed=False``:
   a record that does not build or run here is dropped, not kept with a time from elsewhere), cold or warm
   as ``--timing`` says (default: as ``SRC`` was timed), and prunes to the best per kernel;
3. writes the provenance: this host's target, ``SRC``'s method, no trials yet (``trials_all_runs`` counts
   this kind's own), and ``"seeded_from"`` (``SRC``'s folder, target, timing and trials), which every top-up
   keeps (:data:`lab02_tvm.tuning.records.CHAIN_KEYS`); and the table ``seed_<model>`` (per kernel: its time
   there, here, and the ratio).

This host's own folder is refused, except with ``--timing`` the other way than its records were timed: a
**re-time** (the same steps, the records' times replaced by cold or warm ones measured here; the provenance keeps
the folder's method, trial counts and runs, and adds ``"retimed_from"``), so a folder tuned warm before cold
timing existed can be topped up cold (``topup --timing cold``).

Everything is written in a hidden folder beside the destination (``.<model>.*``) and renamed into place at the
end: a run that fails removes it, and one killed mid-way leaves at most that hidden folder, never a half-seeded
destination. ``longrun tune --root R`` then tops the folder up: MetaSchedule's evolutionary search
draws part of each task's first population from the database's best measured records
(``EvolutionarySearch(init_measured_ratio=0.2)``), so the search starts from the other kind's schedules as
timed here; ``records_ab`` against this kind's shipped folder decides whether the result ships.

Measured once (BERT-base, Zen 4's records seeding the AVX-512 Intel kind, 2026-12-05): no head start. After about
340 trials each, the seeded folder and one started from nothing tied in both orders of ``records_ab``
(``records_ab_bert_seed{,b}``), and the seed alone ran about 1.6x slower than either (the Lab 02 README's "Another
kind's records as the start"): another kind's search does not replace this kind's own.
"""
from __future__ import annotations

import datetime
import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

from common.errors import CannotWrite, UserError
from common.results import new_folder

from .database import WORKLOADS, database_paths, prune, read_database, target_dict
from .records import (CHAIN_KEYS, REPO_ROOT, TIMINGS, earlier_runs, read_provenance, rel, require_empty, run_totals,
                      same_target, shipped_dir, target_key, timing_of, write_provenance)
from .retime import MIN_GAIN, ROUNDS, TOP_K

#: where seeded folders go by default (git-ignored): never the shipped records
SEED_ROOT = REPO_ROOT / "build" / "lab02" / "seeded"


def check_source(src: Path, model: str, target: dict, timing: str | None = None):
    """``(provenance, Method)`` of ``src`` when it can seed ``model``'s folder for ``target``.

    ``src`` may be this host's own folder only when ``timing`` is the other one than its records' (a re-time:
    :func:`seed_folder`'s own-folder case).

    Raises:
        UserError: no database or a corrupt one, no record that ran there, another model's records, an unknown
            method or timing, a target that is missing or does not parse, or records of this very target timed as
            ``timing`` asks (those are topped up with ``longrun tune``, not seeded). Whether the workloads are
            ``model``'s kernels is checked once the model is imported (:func:`seed_folder`).
    """
    from .method import Method
    prov = read_provenance(src)
    if not read_database(src).ranked_per_workload(1):  # no database, a corrupt one, or nothing that ran
        raise UserError(f"{src} holds no record that ran where it was tuned: nothing to seed from")
    if prov.get("model") and prov["model"] != model:
        raise UserError(f"{src} holds {prov['model']}'s records, not {model}'s: pass --model {prov['model']} or "
                        f"{model}'s folder")
    if not prov.get("target"):
        raise UserError(f"{src}/PROVENANCE.json names no target: seed from a folder `longrun tune` wrote (its "
                        "provenance says which machine timed the records)")
    if timing_of(prov) not in TIMINGS:
        raise UserError(f"{src}/PROVENANCE.json says timing {timing_of(prov)!r}: pass --timing cold or warm")
    try:
        here = same_target(prov["target"], target)
        method = Method.from_provenance(prov)
    except (UserError, ValueError) as exc:
        raise UserError(f"{src}/PROVENANCE.json: {exc}") from None
    if here and (timing or timing_of(prov)) == timing_of(prov):
        other = TIMINGS[1 - TIMINGS.index(timing_of(prov))]
        raise UserError(f"{src} holds this host's own records ({target_key(target)}, timed {timing_of(prov)}): top "
                        f"them up with `longrun tune --root`, or pass --timing {other} to re-time them {other}; "
                        "seeding is for another machine kind's records")
    return prov, method


def retarget(src: Path, dst: Path, target: dict) -> int:
    """Write ``src``'s database into ``dst`` with each record's target's ``mcpu`` and ``num-cores`` set to ``target``'s.

    Returns:
        the number of records written.
    """
    db = read_database(src)
    here = target_dict(target)
    wl, rec = database_paths(dst)
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(src) / WORKLOADS, wl)
    lines = [json.dumps([w, [r[0], r[1], {**r[2], "mcpu": here["mcpu"], "num-cores": here["num-cores"]}, *r[3:]]])
             for w, r in db.records]
    rec.write_text("".join(line + "\n" for line in lines))
    return len(lines)


def seed_folder(model: str, src: Path, *, root: Path | None = None, timing: str | None = None, top_k: int = TOP_K,
                rounds: int = ROUNDS, command: str = "", progress: bool = True) -> tuple[Path, list[dict], dict]:
    """Seed this host's folder of ``model`` under ``root`` from ``src`` (another target's records); no tuning.

    Args:
        model: a :data:`lab02_tvm.models.MODELS` key.
        src: a records folder of ``model`` tuned for another target.
        root: folder of target folders to write into (default :data:`SEED_ROOT`).
        timing: ``"cold"`` or ``"warm"``: how the records are re-timed here (default: as ``src``'s were).
        top_k, rounds: records re-timed per kernel, interleaved rounds (:func:`lab02_tvm.tuning.retime.retime`).
    Returns:
        ``(the folder written, the re-timing's rows, its provenance)``.
    Raises:
        UserError: see :func:`check_source`; a destination that is not empty or cannot be written; ``timing`` not
            in :data:`~lab02_tvm.tuning.records.TIMINGS`; no record of ``src`` that builds and runs here.
    """
    from common.timing import set_torch_threads, tvm_threads
    import tvm

    from ..build import host_target
    from . import retime as rt
    from .tasks import as_target, extract_tasks

    target = {**host_target(), "num-cores": 1}
    dst = shipped_dir(model, target, root or SEED_ROOT)
    require_empty(dst, "seed")
    src_prov, method = check_source(src, model, target, timing)
    timing = timing or timing_of(src_prov)
    own = same_target(src_prov["target"], target)
    if timing not in TIMINGS:
        raise UserError(f"unknown timing {timing!r}: choose one of {', '.join(TIMINGS)}")
    src_db = read_database(src)
    set_torch_threads(1)
    try:  # an empty dst (checked above) is renamed aside and removed when the new folder goes in
        with new_folder(dst) as tmp:
            t0 = time.time()
            n_in = retarget(src, tmp, target)
            with tvm_threads(1):
                mod = method.model_module(model)
                names = rt.kernel_names(extract_tasks(mod, target, method.layout_rewrite))
                if not any(wl[0] in names for wl in src_db.workloads):
                    raise UserError(f"none of {src}'s workloads is a kernel of {model} tuned {method}: pass the folder "
                                    f"of {model}'s records (nothing was written)")
                rows = rt.retime(tmp, target, top_k=top_k, rounds=rounds, min_gain=MIN_GAIN, cache_flush=timing == "cold",
                                 keep_untimed=False, names=names, progress=progress)
            if not read_database(tmp).records:
                raise UserError(f"none of {src}'s records builds and runs here: nothing to seed (nothing was written)")
            pruned = prune(tmp)
            summ = rt.summary(rows, top_k=top_k, rounds=rounds, seconds=time.time() - t0)
            trials, minutes = run_totals(src_prov)
            ran = src_db.ranked_per_workload(1)  # workloads with no record that ran there get no row: named too
            lost = [r["kernel"] for r in rows if not r["retimed"]] + [names.get(wl[0], f"workload {w}")
                                                                       for w, wl in enumerate(src_db.workloads) if w not in ran]
            prov = {"model": model, "target": str(as_target(target)), "target_key": target_key(target),
                    "method": method.as_dict(), "layout_rewrite": method.layout_rewrite, "timing": timing,
                    "trials": 0, "trials_this_run": 0, "trials_all_runs": 0, "minutes": round((time.time() - t0) / 60, 1),
                    "records_before_prune": n_in, "records": pruned["records"],
                    "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
                    "command": command, "tvm": tvm.__version__, "threads": 1, "retimed": summ,
                    "note": (f"seeded from {src_prov.get('target_key') or target_key(src_prov['target'])}'s records "
                             f"(tuning/seed.py): re-timed here ({timing}), no trials run here yet"
                             + (f"; dropped (no record that ran there, or none that builds and runs here): "
                                f"{', '.join(lost)}" if lost else "")),
                    "seeded_from": {"folder": rel(Path(src)), "target_key": target_key(src_prov["target"]),
                                    "timing": timing_of(src_prov), "trials_all_runs": trials, "minutes": round(minutes, 1),
                                    "date_utc": src_prov.get("date_utc"),
                                    **({"seeded_from": src_prov["seeded_from"]} if "seeded_from" in src_prov else {})}}
            write_provenance(tmp, retimed_own(src, src_prov, prov, n_lost=len(lost)) if own else prov)
    except CannotWrite as exc:
        raise UserError(f"cannot write under {rel(dst.parent)} ({exc.strerror}): choose another --root") from None
    return dst, rows, prov


def retimed_own(src: Path, src_prov: dict, prov: dict, *, n_lost: int) -> dict:
    """The provenance of this host's own folder ``src`` re-timed the other way (``prov``: what :func:`seed_folder`
    wrote for a seed): the method, target and trial counts stay ``src``'s, its run joins ``earlier_runs`` (as
    after a top-up, :func:`~lab02_tvm.tuning.records.earlier_runs`), and ``"retimed_from"`` says which timing the
    records had before (``--timing`` of ``longrun tune`` then tops the folder up the new way)."""
    trials, _ = run_totals(src_prov)
    keep = {k: src_prov[k] for k in CHAIN_KEYS if k in src_prov}
    return {**{k: v for k, v in prov.items() if k != "seeded_from"}, **keep, "trials_all_runs": trials, "earlier_runs": earlier_runs(src_prov),
            "note": (f"this host's records (timed {timing_of(src_prov)}, {trials} trials) re-timed {prov['timing']} "
                     "here (tuning/seed.py), no trials run since"
                     + (f"; {n_lost} kernel(s) dropped (no record that builds and runs here)" if n_lost else "")),
            "retimed_from": {"folder": rel(src), "timing": timing_of(src_prov), "date_utc": src_prov.get("date_utc")}}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.tuning.seed --model M SRC [--root R] [--timing cold|warm] [--top-k K] [--rounds N]``."""
    from common.cli import command_line, parser, positive, step

    from ..models import MODELS
    from .retime import pass_table
    p = parser("python -m lab02_tvm.tuning.seed", __doc__)
    p.add_argument("--model", required=True, choices=list(MODELS))
    p.add_argument("src", type=Path, help="another machine kind's records folder of the model (or this host's, "
                                          "with --timing the other way: a re-time)")
    p.add_argument("--root", type=Path, default=None,
                   help=f"folder of target folders to seed into (default {rel(SEED_ROOT)}); then `longrun tune --root`")
    p.add_argument("--timing", choices=TIMINGS, default=None, help="re-time cold or warm (default: as SRC was timed)")
    p.add_argument("--top-k", type=int, default=TOP_K, help=f"records re-timed per kernel (default {TOP_K})")
    p.add_argument("--rounds", type=int, default=ROUNDS, help=f"interleaved rounds of the re-timing (default {ROUNDS})")
    args = p.parse_args(argv)
    positive("--top-k", args.top_k)
    positive("--rounds", args.rounds)
    command = command_line("lab02_tvm.tuning.seed", argv)
    dst, rows, prov = seed_folder(args.model, args.src, root=args.root, timing=args.timing, top_k=args.top_k,
                                  rounds=args.rounds, command=command)
    summ = prov["retimed"]
    origin = prov.get("seeded_from") or {**prov["retimed_from"], "target_key": "this host",
                                         "trials_all_runs": prov["trials_all_runs"]}
    notes = (f"{origin['target_key']}'s records of {args.model} ({origin['trials_all_runs']} "
             f"trials there, timed {origin['timing']}), each kernel's best re-timed on this host "
             f"({prov['timing']}, interleaved rounds): stored_ms = its time there; stored_now_ms = the same record "
             "here; best_now_ms = the fastest of its records here; host_ratio = stored_now / stored (> 1: slower "
             "here); retimed 0 = no record of the kernel builds and runs here (dropped).")
    paths = pass_table(f"seed_{args.model}", rows, summ, dst, title=f"Lab 02: {args.model}'s records seeded from "
                       f"{origin['target_key']}", notes=notes, listed="changed")
    step(1, "seed", f"{rel(dst)}: {prov['records']} records from {origin['target_key']}, "
                    f"re-timed here (x{summ['host_ratio_median']} their time there, median); "
                    f"next: python -m lab02_tvm.tuning.longrun tune --model {args.model} --root {rel(dst.parents[1])}")
    step(2, "write", rel(paths["md"]))
    return 0


if __name__ == "__main__":
    from common.errors import run_cli
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
