"""One top-up of this kind's shipped records, from copy to ship, as one command.

``python -m lab02_tvm.tuning.topup --model resnet50 --minutes 60 --by ort --ship`` runs the recipe of
RECORDS.md ("A top-up, from copy to ship") on this host, each step through its own module:

1. **copy**: the shipped folder ``S`` (``results/lab02/tuning/<target key>/<model>``, :mod:`.records`) into
   ``build/lab02/topup/<UTC stamp>/``; the shipped folder is never written by the search. ``--fresh`` starts
   the copy empty instead and tunes in the field's method (NHWC + weight layout rewrite, :data:`.method.FIELD`):
   a folder of another method (Zen 3's NCHW records) is re-tuned, not topped up, since its workloads are others.
   On a kind with no records of its own in that method (none, or Zen 3's NCHW ones), the copy is the folder it
   builds from now (another kind's, :func:`incumbent`) seeded here (:mod:`.seed`: re-targeted, each kernel's best
   records re-timed on this host), and that seed is what step 3 picks against (:func:`start`). ``--timing cold``
   on a folder tuned warm (every one before 2026-12-02) re-times the copy cold first the same way (:mod:`.seed`'s
   own-folder case), so the search, the pick and the folder that ships are timed as the model runs its kernels;
   ``--kernel-layout HWIO`` on a folder of OHWI convs ports the copy first (:mod:`.port`: every schedule replayed
   on the new workloads, re-timed here), and step 3 picks against the port; with ``--tile`` the search has the
   fp32 register tile, which only HWIO convs take (:func:`lab02_tvm.lowering.intrin.why_not`);
2. **tune**: ``longrun tune`` into the copy (:mod:`.longrun`): ``--trials`` / ``--minutes``, the deep phase on the
   ``--deep-top-k`` kernels ranked ``--by`` the ms each loses against ONNX Runtime (``ort``: the kind's
   ``vs_ort_<model>.json``), against the roof (``roofline``: ``roofline_<model>.json``), or by time in the
   database (``slowest``); then its own re-timing and pruning;
3. **pick** (not with ``--fresh``): each new record kept only where it runs faster in the model (:mod:`.pick`);
4. **A/B**: the whole model built from ``S`` (twice: an A/A pair) and from the candidate, timed interleaved with
   eager, then again with the candidate first (:mod:`lab02_tvm.measure.records_ab`);
5. **ship**: only when the candidate's median is below both of ``S``'s in both runs (:func:`ahead_in_both`). On a host
   with no records of its own (``--fresh``) ``S`` in steps 4-5 is the folder it builds from now, another kind's
   (:func:`incumbent`): the first records of a kind ship only when they run faster here than the records they
   replace; with none usable, when the search reached every task before ``--minutes``. With
   ``--ship`` it replaces ``S`` (written beside it, then renamed in: a stopped run leaves ``S`` whole) with a
   ``"note"`` in its ``PROVENANCE.json`` giving both ratios; without, the command says what would ship.

Every table of a run carries its name (the ``--root`` folder's, by default its UTC stamp), so no run overwrites
another's evidence: ``topup_<model>_<run>`` (one row per step: minutes, what it found), ``retime_<model>_<run>``,
``pick_<model>_<run>``, ``records_ab_<model>_<run>_a`` (``S`` first) and ``_b``, all in ``$MLC_RESULTS_DIR/lab02``,
which for ``--by ort`` (ResNet-50's per-convolution table, step 15) / ``roofline`` must hold that kind's table
from a pipeline run there (``MLC_RESULTS_DIR=results/znver4`` on Zen 4). Run it on one core
of a quiet host, as every long run (``TVM_BIND_THREADS=0 taskset -c 1 python -m lab02_tvm.tuning.topup ...``);
after a ship, rerun the pipeline for the kind's tables. Not part of ``make run``.
"""
from __future__ import annotations

import datetime
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

from common.errors import UserError, run_cli
from common.results import new_folder

from .. import LAB

TOPUP_ROOT = Path("build/lab02/topup")
#: The two A/B tables and the order of their builds (S: the shipped folder, C: the candidate): the shipped folder
#: first, then the candidate first; the shipped folder built twice in each, an A/A pair (:func:`ahead_in_both`).
AB_NAMES = ("records_ab_{model}_{run}_a", "records_ab_{model}_{run}_b")
AB_ORDERS = ("SCS", "CSS")
#: ``--by``: longrun's flag and the model a ranking table exists for (None: every model).
BY = {"ort": ("--deep-by-ort", "resnet50"), "roofline": ("--deep-by-roofline", None), "slowest": (None, None)}
EPILOG = ("steps: copy the shipped folder (results/lab02/tuning/<target>/<model>; on a kind with none, the other "
          "kind's folder it builds from, seeded here) to --root, longrun tune, pick, "
          "records_ab in both orders (the shipped folder built twice in each), ship (--ship: replace the shipped "
          "folder) only when ahead of both its builds in both; tables "
          "named after the run in $MLC_RESULTS_DIR/lab02 (default results/lab02). The module docstring and "
          "RECORDS.md ('A top-up, from copy to ship') say more.")


def ahead_in_both(tables: Sequence[dict], shipped: str | Path, candidate: str | Path) -> tuple[bool, list[float]]:
    """Whether ``candidate`` ran faster than ``shipped`` in every one of ``tables`` (records_ab tables, each
    holding a row per build of either folder, the shipped one built twice: :data:`AB_ORDERS`), and the speed-up
    in each: the shipped folder's fastest build over the candidate's slowest (> 1: faster), so a candidate must
    beat the gap between two builds of one folder in the same run. On a quiet host that gap is under 1 % (README.md,
    "Budgets and timing"); on a loaded one three builds of one folder in one run differed by up to 6.6 % on
    LLaMA-tiny s32 and 3.5 % on ResNet-50 (2026-12-05, the AVX-512 Intel kind, the FMA median at a quarter of the
    roof: ``results/rocketlake/lab02/records_ab_*_aa_loaded.md``), and two top-ups' single A/B pairs there put the
    candidate ahead in one order and behind in the other.

    Raises:
        UserError: a table holds no row of one of the two folders (matched by the row's ``folder``).
    """
    from .records import rel
    want = {rel(Path(shipped)): "shipped", rel(Path(candidate)): "candidate"}
    ratios = []
    for t in tables:
        ms: dict[str, list[float]] = {}
        for r in t["rows"]:
            if r.get("folder") in want:
                ms.setdefault(want[r["folder"]], []).append(r["median_ms"])
        if set(ms) != {"shipped", "candidate"}:
            raise UserError(f"the A/B table {t.get('name')} has no row of {' and '.join(sorted(set(want) - set(ms)))}")
        ratios.append(round(min(ms["shipped"]) / max(ms["candidate"]), 4))
    return bool(ratios) and all(r > 1 for r in ratios), ratios


def incumbent(model: str, target: dict) -> tuple[Path | None, str]:
    """The folder a candidate of ``model`` for ``target`` (the host, one core) must run faster than, and one clause
    saying what it is: the one the pipeline builds from now (:func:`lab02_tvm.tuning.records.choose`): this kind's
    shipped folder when it holds records of the field's method, else another kind's (ranks 2-3), else ``None``
    (nothing to be ahead of). A kind's own folder of an older method (Zen 3's NCHW records) is passed over as the
    pipeline passes it over: the top-up seeds the folder the builds use instead, and a ship replaces the old one.
    A kind's first records replace what its builds used until then, so they are timed against that, not shipped
    on the search's word (a Zen 5 builds ResNet-50 from the AVX-512 Intel kind's 8,875 trials)."""
    from .records import choose, rel, shipped_dir
    shipped = shipped_dir(model, target)
    c = choose(model, target)
    if not c.shipped:
        return None, f"none: no records of {model} run on this host"
    if c.work_dir == shipped:
        return shipped, f"this kind's shipped folder {rel(shipped)}"
    return c.work_dir, f"{rel(c.work_dir)}, {c.source}'s records, which this host builds from now"


def replaced(old: dict, new: dict) -> dict | None:
    """What ``new``'s provenance keeps under ``"replaces"`` of the folder a ship overwrites (``old``, its provenance):
    of one method, whatever ``old`` kept there (the chain goes on); of another method, a summary of ``old`` (its
    date, command, method, minutes, trials and note) and why it was not topped up: another method's kernels are
    other workloads."""
    from .method import Method
    from .records import run_totals
    old_method = Method.from_provenance(old)
    if old_method == Method.from_provenance(new):
        return old.get("replaces")
    return {**{k: old[k] for k in ("date_utc", "command", "minutes", "note") if k in old},
            "method": old.get("method") or old_method.as_dict(),
            "trials": run_totals(old)[0],
            "why": "another method's kernels are other workloads: the records cannot be topped up in the new method"}


def ship_folder(candidate: Path, shipped: Path, ratios: Sequence[float], tables: Sequence[str], *,
                over: str = "the folder it replaced", by: str = "lab02_tvm.tuning.topup") -> Path:
    """Replace ``shipped`` with a copy of ``candidate`` whose ``PROVENANCE.json`` gains a ``"note"``: when, by what
    (``by``: the tool whose folder it is) and why it shipped (``ratios``: its speed over ``over``'s, the folder it was
    timed against, in each A/B table of ``tables``;
    none: the host's first records, with nothing to time them against), the note it had kept after ``before:``;
    and, when ``shipped`` held records of another method (Zen 3's NCHW ones), ``"replaces"`` (:func:`replaced`).
    The copy is written beside ``shipped``, then renamed in (:func:`common.results.new_folder`): a stopped run leaves
    ``shipped`` as it was."""
    from .records import PROVENANCE, read_provenance, write_provenance
    old = read_provenance(shipped) if (shipped / PROVENANCE).is_file() else None
    with new_folder(shipped) as new:
        shutil.copytree(candidate, new, dirs_exist_ok=True)
        prov = read_provenance(new)
        gone = prov.get("replaces") or (replaced(old, prov) if old else None)
        write_provenance(new, {**prov, "note": (
            f"shipped by {by} on {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC: "
            + (f"ahead of both builds of {over} in both orders of records_ab ("
               f"{', '.join(f'{r:.3f}x' for r in ratios)}; tables {', '.join(tables)})" if ratios
               else "this host's first records")
            + (f"; before: {prov['note']}" if prov.get("note") else "")),
            **({"replaces": gone} if gone else {})})
    return shipped


#: The deep phase's share of a top-up's trials: every task of a copied folder holds records already, so nearly all
#: go to the kernels that lose most. A ``--fresh`` folder holds none: it keeps ``longrun``'s default (two thirds), so
#: the shallow phase reaches every task (:func:`lab02_tvm.tuning.budget.plan_budget` covers ``S // 4`` tasks of
#: ``S`` shallow trials: 2,000 trials at 0.95 left 100, and ResNet-50's 4 coldest of 29 kernels untuned, 2026-12-06).
TOPUP_DEEP_SHARE = 0.95


def start(model: str, work: Path, source: Path | None, *, own: bool, timing: str | None = None,
          kernel_layout: str | None = None) -> tuple[Path | None, str]:
    """Step 1: make ``work`` (which must not exist), the folder the search tunes into, and return the folder step 3
    picks against (``None``: no pick) with a clause saying what was done. ``source`` ``None`` (``--fresh``): an
    empty folder; ``own`` (``source`` is this kind's shipped folder): a copy of it, provenance and all (its method,
    timing and earlier runs), picked against itself; otherwise ``source`` is another kind's folder this host builds
    from: :func:`lab02_tvm.tuning.seed.seed_folder` seeds it here (re-targeted, each kernel's best records
    re-timed on this host, into ``work``'s run folder under ``seed/``) and ``work`` is a copy of that seed: the
    records the search starts from, and step 3's baseline, are then timed on this host, not on the other kind.
    ``timing`` (``cold`` or ``warm``) other than the records' own: they are re-timed that way here first, this kind's
    own as another kind's (:func:`lab02_tvm.tuning.seed.seed_folder`), so the search, the pick and the folder that
    ships are timed one way. ``kernel_layout`` other than the records' own (this kind's folder): they are ported to
    it here first (:func:`lab02_tvm.tuning.port.port_folder`, into ``port/``), and ``work`` is a copy of the port.

    Raises:
        UserError: ``source``'s own errors (:func:`lab02_tvm.tuning.seed.check_source`,
            :func:`lab02_tvm.tuning.port.port_folder`); a new kernel layout with another kind's folder or a new timing.
    """
    from .method import Method
    from .port import port_folder, write_port_table
    from .records import read_provenance, rel, timing_of
    from .seed import seed_folder
    if source is None:
        work.mkdir(parents=True, exist_ok=False)
        return None, f"an empty {rel(work)} (--fresh: the field's method)"
    src_timing = timing_of(src_prov := read_provenance(source))
    if kernel_layout and kernel_layout != Method.from_provenance(src_prov).kernel_layout:
        if not own or timing not in (None, src_timing):
            raise UserError("--kernel-layout ports this kind's own folder as it was timed: drop --timing, or top up "
                            "another kind's records first")
        run = work.parents[1]
        ported, rows, prov = port_folder(model, source, kernel_layout, root=run / "port",
                                         command=f"lab02_tvm.tuning.topup (step 1 of the run {run.name})")
        write_port_table(model, rows, f"port_{model}_{run.name}", src=source, dst=ported, kernel_layout=kernel_layout)
        shutil.copytree(ported, work)
        return ported, f"{rel(source)} ported to {Method.from_provenance(prov)} ({prov['records']} records) -> {rel(work)}"
    if own and timing in (None, src_timing):
        shutil.copytree(source, work)
        return source, f"{rel(source)} -> {rel(work)}"
    run = work.parents[1]  # <root>/<target key>/<model>
    seeded, _, prov = seed_folder(model, source, root=run / "seed", timing=timing,
                                  command=f"lab02_tvm.tuning.topup (step 1 of the run {run.name})")
    shutil.copytree(seeded, work)
    how, then = (f"re-timed {prov['timing']}", "their stored time") if own else ("seeded here", "their time there")
    return seeded, (f"{rel(source)} {how} ({prov['records']} records re-timed, x"
                    f"{prov['retimed']['host_ratio_median']} {then}, median) -> {rel(work)}")


def tune_argv(model: str, *, trials: int, minutes: float, deep_top_k: int, by: str, fresh: bool, root: Path,
              timing: str | None = None, tile: bool = False, kernel_layout: str | None = None) -> list[str]:
    """Step 2's ``longrun`` command line: a copy is topped up in its own method with :data:`TOPUP_DEEP_SHARE` of the
    trials deep; ``fresh`` tunes an empty folder in the field's method (NHWC + weight layout rewrite) with
    ``longrun``'s default split; ``tile``: the register tile in the search space; ``kernel_layout``: the convs' weight
    layout (a fresh folder is tuned in it; a copy was ported to it in step 1). The re-timing table is named after
    the run (``root``'s name)."""
    share = [] if fresh else ["--deep-share", str(TOPUP_DEEP_SHARE)]
    method = ["--layout", "NHWC", "--layout-rewrite", "on"] if fresh else []
    return ["tune", "--model", model, "--trials", str(trials), "--minutes", f"{minutes:g}", "--deep-top-k",
            str(deep_top_k), *share, *([BY[by][0]] if BY[by][0] else []), "--root", str(root),
            "--name", f"retime_{model}_{root.name}", *method, *(["--timing", timing] if timing else []),
            *(["--tile"] if tile else []), *(["--kernel-layout", kernel_layout] if kernel_layout else [])]


def topup(model: str, *, trials: int, minutes: float, deep_top_k: int, by: str, fresh: bool, repeats: int,
          ship: bool, root: Path, timing: str | None = None, kernel_layout: str | None = None,
          tile: bool = False) -> list[dict]:
    """Steps 1-5 of the module docstring into ``root`` (which must not exist; its name names the run's tables);
    returns one row per step (``step, minutes, result``).

    Raises:
        UserError: no records of the model this host can build from, its own or another kind's (``--fresh`` makes the first ones), a missing ranking table
            (both before ``root`` is made), or a step's own bad-input error (a folder of another method, ...),
            before anything ships.
    """
    from common.results import read_table, results_dir

    from ..build import host_target
    from ..measure import records_ab
    from . import longrun, pick
    from .database import read_database
    from .records import rel, read_provenance, shipped_dir, target_key

    target = {**host_target(), "num-cores": 1}
    shipped = shipped_dir(model, target)
    if BY[by][0]:  # read before anything is made, as the search will (whatever records this host has)
        stem, read_cost, _ = longrun.RANKINGS[by]
        read_cost(results_dir("lab02") / f"{stem}_{model}.json")
    rival, rival_is = incumbent(model, target)
    has_records = rival == shipped  # this kind's own folder holds records
    if not fresh and rival is None:
        raise UserError(f"{rel(shipped)} holds no records for this host to top up, and no other kind's run here: "
                        "--fresh tunes its first ones")
    if not fresh:
        read_database(rival)  # checked before anything is made
    run = root.name
    work = shipped_dir(model, target, root)
    rows: list[dict] = []

    def done(step: str, t0: float, result: str) -> None:
        rows.append({"step": step, "minutes": round((time.time() - t0) / 60, 1), "result": result})
        print(f"topup {model}: {step}: {result}", flush=True)

    t0 = time.time()
    base, what = start(model, work, None if fresh else rival, own=has_records, timing=timing,
                       kernel_layout=kernel_layout)
    done("copy", t0, what)
    t0 = time.time()
    longrun.main(tune_argv(model, trials=trials, minutes=minutes, deep_top_k=deep_top_k, by=by, fresh=fresh, root=root,
                           timing=timing, tile=tile, kernel_layout=kernel_layout))
    prov = read_provenance(work)
    searched, capped = int(prov.get("trials_this_run") or 0), bool(prov.get("stopped_by_time"))
    done("tune", t0, f"{searched} trials ({prov.get('trials_all_runs')} in all runs), {prov.get('tasks_in_db')}/"
                     f"{prov.get('tasks')} tasks" + (f", stopped by --minutes {minutes:g}" if capped else ""))
    t0 = time.time()
    if not searched:
        done("ship", t0, "nothing shipped: the search measured no trial (the records already held --trials for "
                         "every task it reached, or --minutes ran out): give more of both")
        return rows
    candidate = work
    if base is not None:
        picked = root / "picked" / target_key(target) / model
        try:
            pick.main(["--model", model, str(base), str(work), str(picked), "--name", f"pick_{model}_{run}"])
        except UserError as exc:
            if not str(exc).startswith("no kernel's record differs"):
                raise
            picked = None
        taken = (read_provenance(picked).get("picked", {}).get("picked") or []) if picked else []
        of = "the shipped" if has_records else "the seed's"
        done("pick", t0, f"the top-up's record taken for {', '.join(taken)}" if taken else
                         f"no record of the search ran faster in the model than {of} one" if picked else
                         f"the search found no record faster than {of} ones (each timed alone): nothing to "
                         "time in the model")
        ported = root / "port" in base.parents  # step 1 ported the copy: the port alone is another build
        if not taken and has_records and not ported:  # the picked folder would be the shipped one again
            done("ship", time.time(), f"nothing shipped: {rel(shipped)} stays")
            return rows
        candidate = picked if taken else base  # a seed or a port alone may still run faster than the folder before
    t0 = time.time()
    names = [n.format(model=model, run=run) for n in AB_NAMES]
    if rival is not None:  # this kind's shipped folder, or (--fresh, a kind's first records) the one it builds from
        for name, order in zip(names, AB_ORDERS):
            folders = [{"S": rival, "C": candidate}[k] for k in order]
            records_ab.main(["--model", model, *map(str, folders), "--repeats", str(repeats), "--name", name])
        ahead, ratios = ahead_in_both([read_table(results_dir(LAB) / f"{n}.json") for n in names], rival, candidate)
        done("A/B", t0, f"against {rival_is}: the candidate at {' and '.join(f'{r:.3f}' for r in ratios)} of the "
                        "speed of that folder's faster build (it first, then the candidate first): "
                        f"{'ahead' if ahead else 'not ahead'} in both orders")
        why_not = f"{rel(shipped)} stays" if has_records else f"this host keeps building from {rel(rival)}"
        over = "the folder it replaced" if has_records else f"{rel(rival)}, the records this host built from"
    else:  # --fresh, no records usable here at all: nothing to be ahead of, so the search must be whole
        ahead, ratios, over = not capped, [], ""
        done("A/B", t0, f"{rival_is} (the candidate would be this host's first)")
        why_not = (f"the search stopped at --minutes {minutes:g} with {prov.get('tasks_in_db')} of "
                   f"{prov.get('tasks')} tasks; a host's first records ship from a search that reached every task")
    t0 = time.time()
    if not ahead:
        done("ship", t0, f"nothing shipped: {why_not}")
    elif not ship:
        done("ship", t0, f"would ship {rel(candidate)} over {rel(shipped)} (rerun with --ship, or copy it)")
    else:
        ship_folder(candidate, shipped, ratios, names, over=over)
        done("ship", t0, f"{rel(candidate)} -> {rel(shipped)}: rerun the pipeline for this kind's tables")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.tuning.topup --model M [--minutes N] [--by ort|roofline|slowest] [--fresh] [--ship]``."""
    from common.cli import parser, positive, table_name
    from common.results import write_table
    from common.timing import environment

    from ..models import MODELS
    from .method import KERNEL_LAYOUTS
    from .records import TIMINGS
    p = parser("python -m lab02_tvm.tuning.topup", __doc__, epilog=EPILOG)
    p.add_argument("--model", required=True, choices=list(MODELS))
    p.add_argument("--trials", type=int, default=1000, help="trials of the search (step 2)")
    p.add_argument("--minutes", type=float, default=30, help="wall-clock cap of the search, minutes (step 2)")
    p.add_argument("--deep-top-k", type=int, default=6, help="kernels of the deep phase (95 %% of the trials)")
    p.add_argument("--by", choices=list(BY), default="slowest",
                   help="how the deep phase ranks kernels: ms lost against ONNX Runtime (ort: ResNet-50 only) or the "
                        "roof (roofline) in this kind's last pipeline tables, or time in the database (slowest)")
    p.add_argument("--fresh", action="store_true", help="tune an empty folder in the field's method instead of a copy "
                                                        "of the shipped one (no pick step)")
    p.add_argument("--timing", choices=TIMINGS, default=None,
                   help="time the search's candidates cold or warm (default: as the records were; the other way "
                        "re-times the copy first, step 1)")
    p.add_argument("--kernel-layout", choices=KERNEL_LAYOUTS["NHWC"], default=None,
                   help="the NHWC convs' weight layout of the candidate (default: the records'; the other one ports the "
                        "copy first, step 1)")
    p.add_argument("--tile", action="store_true", help="search with the fp32 register tile where it tensorizes (HWIO "
                                                       "convs, matmuls)")
    p.add_argument("--repeats", type=int, default=30, help="timed rounds of each A/B run (step 4)")
    p.add_argument("--ship", action="store_true", help="replace the shipped folder when the candidate is ahead of both "
                                                       "its builds in both orders")
    p.add_argument("--root", type=Path, default=None, help=f"scratch folder, a new one (default {TOPUP_ROOT}/<UTC "
                                                           "stamp>); its name names the run's tables")
    args = p.parse_args(argv)
    for flag, value in (("--trials", args.trials), ("--minutes", args.minutes), ("--repeats", args.repeats)):
        positive(flag, value)
    positive("--deep-top-k", args.deep_top_k, strict=False)
    if args.fresh and args.by != "slowest":
        raise UserError(f"--fresh with --by {args.by}: the kind's last tables rank the kernels of its shipped "
                        "method, not those of a fresh folder; leave --by out (slowest)")
    if BY[args.by][1] not in (None, args.model):
        raise UserError(f"--by {args.by}: only {BY[args.by][1]} has that table (the pipeline's step 15); use --by "
                        "roofline or slowest")
    root = args.root or TOPUP_ROOT / datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S")
    if root.exists():
        raise UserError(f"--root {root} exists: give a new folder (a top-up never writes into an earlier one)")
    table_name("--root's name", root.name)
    rows = topup(args.model, trials=args.trials, minutes=args.minutes, deep_top_k=args.deep_top_k, by=args.by,
                 fresh=args.fresh, repeats=args.repeats, ship=args.ship, root=root, timing=args.timing,
                 kernel_layout=args.kernel_layout, tile=args.tile)
    write_table(LAB, f"topup_{args.model}_{root.name}", rows, title=f"Lab 02: a top-up of {args.model}'s records",
                env=environment(threads=1, machine_note="1 core"),
                meta={k: getattr(args, k) for k in ("model", "trials", "minutes", "deep_top_k", "by", "fresh",
                                                     "repeats", "ship", "timing", "kernel_layout", "tile")}
                | {"root": str(root)},
                notes="One row per step of lab02_tvm.tuning.topup (copy, tune, pick, A/B in both orders, ship); "
                      f"each step's own table beside this one, named after the run ({root.name}).")
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
