"""A records folder carried to another conv weight layout: each kernel's schedules replayed on the new workloads.

MetaSchedule keys a record by the kernel it schedules (:mod:`lab02_tvm.tuning.method`), so records tuned with the
NHWC convs' weights ``OHWI`` schedule nothing in a build whose weights are ``HWIO``, though every kernel's loops
are the same. A trace's schedule part (splits, reorders, compute locations, the sampled tile sizes) names blocks
and loops, not buffer layouts, and replays on the new kernel; its postprocessing part does not (the weight
repack of ``RewriteLayout`` is an index map from the old weight shape), and is redone by the postprocessors of
the space the record was searched in (:func:`lab02_tvm.tuning.climb.space_of`), as MetaSchedule does for each
candidate it samples. With weight layout rewrite the repacked weights are read in the schedule's order either
way, so a replayed schedule runs as before; what changes is what the new layout lets a search find: with
``HWIO`` the fp32 register tile tensorizes the convs (:func:`lab02_tvm.lowering.intrin.why_not`), and a record
searched in the tile space, whose tile never ran on ``OHWI`` weights, is replayed with it.

``python -m lab02_tvm.tuning.port --model resnet50 SRC --kernel-layout HWIO [--root R]``:

1. each kernel's ``top_k`` best records of ``SRC`` (this host's folder) replayed on the same-named kernel of the
   model prepared in ``SRC``'s method with the new kernel layout; a record that does not replay is dropped and
   counted, a kernel with none keeps no record (its row says so);
2. re-timed here as ``SRC``'s records were timed (:func:`lab02_tvm.tuning.retime.retime`, ``keep_untimed=False``),
   pruned to the best per kernel;
3. the provenance: ``SRC``'s (target, timing, trial counts: the schedules are its search's), the new method, and
   ``"ported_from"`` (folder, method, date), which every later top-up keeps (:data:`~lab02_tvm.tuning.records.CHAIN_KEYS`);
   the table ``port_<model>``.

Written into a hidden folder beside the destination and renamed into place at the end (a failed run leaves
nothing); ``longrun tune --root R --tile`` then tops the ported folder up, and ``records_ab`` against the shipped
folder decides whether it ships.
"""
from __future__ import annotations

import datetime
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from common.errors import UserError

from .records import REPO_ROOT, rel, require_empty, shipped_dir, timing_of
from .retime import ROUNDS, TOP_K

#: where ported folders go by default (git-ignored): never the shipped records
PORT_ROOT = REPO_ROOT / "build" / "lab02" / "ported"


def port_records(old_infos, new_infos, db, target, *, top_k: int = TOP_K) -> tuple[list, list[dict]]:
    """Each old task's ``top_k`` best records replayed on the same-named new task.

    Args:
        old_infos, new_infos: :func:`lab02_tvm.tuning.tasks.extract_tasks` of the model in the old and the new method.
        db: the old records (a ``JSONDatabase``, :func:`lab02_tvm.tuning.database.load_database`).
        target: the records' target (a dict or ``tvm.target.Target``).
    Returns:
        ``(entries, rows)``: ``[(new workload module, TuningRecord)]`` (the old record's run times kept, until a
        re-timing) and one row per old task with records: ``kernel, records, replayed, tensorized`` (replayed records whose
        trace now calls the register tile).
    """
    from tvm.s_tir import meta_schedule as ms

    from .climb import replay, space_of
    from .database import scheduled_record, task_records
    from .harness import cpu_tensor_intrinsics
    from .tasks import as_target

    tgt = as_target(target)
    new_by_name = {t.name: t for t in new_infos}
    entries, rows = [], []
    for t in old_infos:
        recs = task_records(db, t.task)[:top_k]
        if not recs:
            continue
        new = new_by_name.get(t.name)
        got = []
        if new is not None:
            mod = new.task.dispatched[0]
            for r in recs:
                with cpu_tensor_intrinsics(tgt):
                    ctx = ms.TuneContext(mod=mod, target=tgt, space_generator=space_of(r), task_name=t.name)
                    sch = replay(r.trace, mod, list(ctx.space_generator.postprocs))
                if sch is not None:
                    got.append(scheduled_record(sch, r, r.run_secs))
        entries += [(new.task.dispatched[0], r) for r in got]
        rows.append({"kernel": t.name, "records": len(recs), "replayed": len(got),
                     "tensorized": sum(any(i.kind.name == "Tensorize" for i in r.trace.insts) for r in got)})
    return entries, rows


def ported_provenance(prov: dict, src: Path, method, new_method, *, command: str, top_k: int = TOP_K) -> dict:
    """The provenance of ``src`` (``prov``, its records tuned ``method``) ported to ``new_method``, before the
    re-timing adds ``records``, ``retimed`` and ``minutes``. Only what describes the folder carries over: its
    model, target, timing, threads and chain keys (:func:`lab02_tvm.tuning.records.carried_over`), as a seed's
    does (:mod:`lab02_tvm.tuning.seed`); the trials stay counted (``trials_all_runs``: the schedules are those runs'),
    ``src``'s own run joins ``earlier_runs`` and the port is a run of no trials (as a top-up would record it:
    :func:`lab02_tvm.tuning.records.earlier_runs`); ``"ported_from"`` names the folder and its method (an earlier
    port's nested in it)."""
    import tvm

    from .records import carried_over, earlier_runs, run_totals
    trials, _ = run_totals(prov)
    keep = {k: prov[k] for k in ("model", "target", "target_key", "timing", "threads") if k in prov}
    return {**keep, **carried_over(prov), "method": new_method.as_dict(), "layout_rewrite": new_method.layout_rewrite,
            "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"), "command": command,
            "tvm": tvm.__version__, "trials": 0, "trials_this_run": 0, "trials_all_runs": trials,
            "earlier_runs": earlier_runs(prov),
            "note": f"ported from {rel(src)} ({method} -> {new_method}, tuning/port.py): each kernel's "
                    f"{top_k} best schedules replayed on the new workloads and re-timed here; no trials run",
            "ported_from": {"folder": rel(src), "method": method.as_dict(), "date_utc": prov.get("date_utc"),
                            "trials_all_runs": trials,
                            **({"ported_from": prov["ported_from"]} if "ported_from" in prov else {})}}


def port_folder(model: str, src: Path, kernel_layout: str, *, root: Path | None = None, top_k: int = TOP_K,
                rounds: int = ROUNDS, command: str = "", progress: bool = True) -> tuple[Path, list[dict], dict]:
    """Port this host's folder ``src`` of ``model`` to ``kernel_layout`` under ``root`` (steps 1-3 above), written
    whole: in a hidden folder beside the destination, renamed into place at the end.

    Returns:
        ``(the folder written, one row per kernel with records in src, the provenance written)``; rows as
        :func:`port_records`' with ``stored_ms`` (the old best's stored time) and ``ported_ms`` (the ported best
        re-timed here), ms per call.
    Raises:
        UserError: ``src`` holds no records of ``model`` for this host, is already in ``kernel_layout``, or that
            layout is not one of its data layout's; the destination is not empty or cannot be written; no record
            replays, or none that replays builds and runs here (nothing is written then).
    """
    from common.errors import CannotWrite
    from common.results import new_folder
    from common.timing import set_torch_threads, tvm_threads

    from . import retime as rt
    from .database import best_ms_of, prune, read_database, task_records
    from .inmodel import commit_records, host_records
    from .records import write_provenance
    from .tasks import extract_tasks

    db, prov, method, target = host_records(Path(src), "port", model)
    new_method = replace(method, kernel_layout=kernel_layout)  # raises on a layout the data layout does not take
    if new_method == method:
        raise UserError(f"{rel(Path(src))} is already tuned {method}: nothing to port")
    dst = shipped_dir(model, target, root or PORT_ROOT)
    require_empty(dst, "port")
    t0 = time.time()
    set_torch_threads(1)
    try:
        with tvm_threads(1), new_folder(dst) as tmp:
            old_infos = extract_tasks(method.model_module(model), target, method.layout_rewrite)
            new_infos = extract_tasks(new_method.model_module(model), target, new_method.layout_rewrite)
            entries, rows = port_records(old_infos, new_infos, db, target, top_k=top_k)
            if not entries:
                raise UserError(f"none of {rel(Path(src))}'s records replays on {model} tuned {new_method} "
                                "(nothing written)")
            stored = {t.name: best_ms_of(task_records(db, t.task)) for t in old_infos}
            new_prov = ported_provenance(prov, Path(src), method, new_method, command=command, top_k=top_k)
            commit_records(tmp, entries, new_prov)
            names = rt.kernel_names(new_infos)
            retimed = rt.retime(tmp, target, top_k=top_k, rounds=rounds, cache_flush=timing_of(prov) == "cold",
                                keep_untimed=False, names=names, progress=progress)
            if not read_database(tmp).records:
                raise UserError("none of the replayed records builds and runs here (nothing written)")
            pruned = prune(tmp)
            new_db = read_database(tmp)
            best = {names.get(new_db.workloads[w][0]): s for w, (s, _) in new_db.best_per_workload().items()}
            new_prov = {**new_prov, "records": pruned["records"], "records_before_prune": len(entries),
                        "retimed": rt.summary(retimed, top_k=top_k, rounds=rounds, seconds=time.time() - t0),
                        "minutes": round((time.time() - t0) / 60, 1)}
            write_provenance(tmp, new_prov)
    except CannotWrite as exc:
        raise UserError(f"cannot write under {rel(dst.parent)} ({exc.strerror}): choose another --root") from None
    for row in rows:
        row["stored_ms"] = None if stored.get(row["kernel"]) is None else round(stored[row["kernel"]], 4)
        row["ported_ms"] = None if best.get(row["kernel"]) is None else round(1e3 * best[row["kernel"]], 4)
    return dst, rows, new_prov


def write_port_table(model: str, rows: list[dict], name: str, *, src: Path, dst: Path, kernel_layout: str,
                     top_k: int = TOP_K, rounds: int = ROUNDS) -> dict:
    """The table ``name`` (``port_<model>``; a top-up's ``port_<model>_<run>``) of :func:`port_folder`'s rows;
    returns ``common.results.write_table``'s paths."""
    from common.results import write_table
    from common.timing import environment

    from .. import LAB
    return write_table(LAB, name, rows, title=f"Lab 02: {model}'s records ported to {kernel_layout} weights",
                       env=environment(threads=1, src=rel(Path(src)), out=rel(dst), top_k=top_k, rounds=rounds),
                       notes="Per kernel: records = the source folder's best records replayed (top_k), replayed = "
                             "those that replay on the new workload, tensorized = those whose trace now calls the "
                             "register tile; stored_ms = the source's best as stored, ported_ms = the ported best "
                             "re-timed here (ms per call, timed as the source's records were).")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.tuning.port --model M SRC --kernel-layout HWIO [--root R] [--top-k K] [--rounds N]``."""
    from common.cli import command_line, parser, positive, step

    from ..models import MODELS
    from .method import KERNEL_LAYOUTS, Method
    p = parser("python -m lab02_tvm.tuning.port", __doc__)
    p.add_argument("--model", required=True, choices=list(MODELS))
    p.add_argument("src", type=Path, help="this host's records folder of the model")
    p.add_argument("--kernel-layout", required=True, choices=sorted({k for ks in KERNEL_LAYOUTS.values() for k in ks}),
                   help="the convs' weight layout to port to (HWIO: the register tile's B)")
    p.add_argument("--root", type=Path, default=None,
                   help=f"folder of target folders to port into (default {rel(PORT_ROOT)}); then `longrun tune --root`")
    p.add_argument("--top-k", type=int, default=TOP_K, help=f"records ported and re-timed per kernel (default {TOP_K})")
    p.add_argument("--rounds", type=int, default=ROUNDS, help=f"interleaved rounds of the re-timing (default {ROUNDS})")
    args = p.parse_args(argv)
    positive("--top-k", args.top_k)
    positive("--rounds", args.rounds)
    dst, rows, prov = port_folder(args.model, args.src, args.kernel_layout, root=args.root, top_k=args.top_k,
                                  rounds=args.rounds, command=command_line("lab02_tvm.tuning.port", argv))
    paths = write_port_table(args.model, rows, f"port_{args.model}", src=args.src, dst=dst, kernel_layout=args.kernel_layout,
                             top_k=args.top_k, rounds=args.rounds)
    lost = [r["kernel"] for r in rows if not r["replayed"]]
    step(1, "port", f"{rel(dst)}: {Method.from_provenance(prov)} from {rel(args.src)}, "
                    f"{sum(r['replayed'] for r in rows)} records replayed"
                    + (f"; no record replays for {', '.join(lost)}" if lost else "")
                    + f"; next: python -m lab02_tvm.tuning.longrun tune --model {args.model} --root {rel(dst.parents[1])}")
    step(2, "write", rel(paths["md"]))
    return 0


if __name__ == "__main__":
    from common.errors import run_cli
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
