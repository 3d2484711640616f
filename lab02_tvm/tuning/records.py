"""Shipped tuning records, the way TVM's TopHub shipped AutoTVM logs: which records a build uses.

The lab ships one pruned database (:mod:`lab02_tvm.tuning.database`) per model and target under
``results/lab02/tuning/<target key>/<model>/``, where the target key names what the schedules were
measured on (``llvm-znver3-1c``: LLVM for ``-mcpu=znver3``, one core). Each is pruned to the best
record per kernel (a few hundred kB, no per-task logs) and has a ``PROVENANCE.json`` beside it:
target, trials, wall time, date, command, TVM version, the tuning method
(:mod:`lab02_tvm.tuning.method`: layout, weight layout rewrite) and the runs before it.

What :func:`choose` does with them (and the pipeline prints as one line):

* records for the host target: used as they are (``exact``);
* records of another CPU whose instructions the host has, or with which it shares an x86-64
  level: used, built for that CPU or level (``compatible``; the line says which);
* records for no usable target: one line naming the targets found, then tuning from scratch
  into ``build/lab02/tuning/<key>/<model>`` (git-ignored; ``tuned here``);
* a corrupt or truncated database file: one line naming the file and the line; nothing is
  overwritten (the pipeline then tunes from scratch in ``build/``).

A build from records follows their method, since another method's kernels are other workloads.
The long run that produced them is :mod:`lab02_tvm.tuning.longrun`.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from common.errors import UserError
from common.results import atomic_write

from .database import RECORDS, WORKLOADS, CorruptDatabase, read_database, target_dict

REPO_ROOT = Path(__file__).resolve().parents[2]
SHIPPED_ROOT = REPO_ROOT / "results" / "lab02" / "tuning"
SCRATCH_ROOT = REPO_ROOT / "build" / "lab02" / "tuning"
LOG_ROOT = REPO_ROOT / "build" / "lab02" / "logs"
PROVENANCE = "PROVENANCE.json"


def target_key(target) -> str:
    """Directory name for a target: ``<kind>-<mcpu>-<cores>c``, e.g. ``llvm-znver3-1c``."""
    d = target_dict(target)
    return f"{d['kind']}-{d['mcpu']}-{d['num-cores']}c"


def shipped_dir(model: str, target, root: Path | None = None) -> Path:
    """``results/lab02/tuning/<target key>/<model>`` (the shipped records of one model)."""
    return Path(root or SHIPPED_ROOT) / target_key(target) / model


def scratch_dir(model: str, target, root: Path | None = None) -> Path:
    """``build/lab02/tuning/<target key>/<model>`` (git-ignored; tuning from scratch or top-ups)."""
    return Path(root or SCRATCH_ROOT) / target_key(target) / model


def from_scratch(wd: Path) -> str:
    """``tuning from scratch in <wd>``, saying so when an earlier run left records there (they are reused: the
    tuner starts from them and a budget they already cover tunes nothing)."""
    f = wd / RECORDS
    earlier = f.is_file() and f.stat().st_size > 0
    return f"tuning from scratch in {rel(wd)}" + (" (the records an earlier run left there are reused)" if earlier else "")


def same_target(a, b) -> bool:
    """True when two targets agree on kind, ``mcpu`` and ``num-cores`` (what a schedule depends on)."""
    return target_dict(a) == target_dict(b)


# --------------------------------------------------------------------------------------------
# Provenance
# --------------------------------------------------------------------------------------------


def write_provenance(work_dir: str | os.PathLike, info: dict) -> Path:
    """Write ``PROVENANCE.json`` (sorted keys) beside a database."""
    return atomic_write(Path(work_dir) / PROVENANCE, json.dumps(info, indent=1, sort_keys=True) + "\n")


def read_provenance(work_dir: str | os.PathLike) -> dict:
    """``PROVENANCE.json`` of a database folder (``{}`` when absent).

    Raises:
        UserError: the file is not JSON (one line naming it).
    """
    p = Path(work_dir) / PROVENANCE
    if not p.is_file():
        return {}
    try:
        return json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{p} does not parse ({exc}): restore it from git or remove it") from None


#: how a run timed its candidates (``tuning.harness.evaluator_config``: cache_flush off / on)
TIMINGS = ("warm", "cold")


def timing_of(prov: dict) -> str:
    """How a folder's records were timed: its provenance's ``"timing"``; none recorded = ``"warm"``
    (every folder tuned before ``longrun --timing`` existed)."""
    return str(prov.get("timing", "warm"))


#: What a top-up keeps of each earlier run in ``earlier_runs`` (the per-task counts are dropped).
RUN_KEYS = ("date_utc", "command", "trials_this_run", "minutes", "seconds_per_trial", "note", "retimed", "climbed",
            "retimed_earlier", "climbed_earlier")


def run_totals(prov: dict) -> tuple[int, float]:
    """``(trials, minutes)`` of every run behind a database (this one and ``earlier_runs``)."""
    runs = [prov, *prov.get("earlier_runs", [])]
    trials = prov.get("trials_all_runs", prov.get("trials", 0))
    return int(trials or 0), float(sum(float(r.get("minutes") or 0) for r in runs))


#: What a top-up copies from the folder's provenance unchanged: the records this chain replaced, the
#: epilogues placed in the model (:mod:`lab02_tvm.tuning.epilogue`; a top-up keeps a moved record unless a
#: candidate beats its in-model time), the other kind's folder the chain started from, and the timing its records
#: had before a re-time (both :mod:`lab02_tvm.tuning.seed`), and the folder of another weight layout it was ported
#: from (:mod:`lab02_tvm.tuning.port`).
CHAIN_KEYS = ("replaces", "epilogue", "seeded_from", "retimed_from", "ported_from")


def carried_over(prev: dict) -> dict:
    """The keys of ``prev`` (the folder's provenance before a top-up) that describe the whole chain of
    runs, not one run (:data:`CHAIN_KEYS`): the top-up's provenance keeps them."""
    return {k: prev[k] for k in CHAIN_KEYS if k in prev}


def earlier_runs(prev: dict) -> list[dict]:
    """The runs behind a database before this one: ``prev``'s own ``earlier_runs`` and ``prev`` itself.

    A top-up tunes into the same folder, so its records start from the best of every earlier run;
    the provenance keeps each run's date, command, trials and minutes (``[]`` for a new folder).
    """
    if not prev:
        return []
    this = {k: prev[k] for k in RUN_KEYS if k in prev}
    this.setdefault("trials_this_run", prev.get("trials", 0))
    return [*prev.get("earlier_runs", []), this]


# --------------------------------------------------------------------------------------------
# Choosing the records a build uses
# --------------------------------------------------------------------------------------------
#: How a build's records were obtained, as the tables say it.
HOW = {"exact": "exact", "compatible": "compatible", "other-target": "tuned here", "none": "tuned here",
       "corrupt": "tuned here"}


@dataclass
class Choice:
    """Which database a model is built from, and why (``line`` is what the pipeline prints).

    Attributes:
        status: ``"exact"`` (records measured on this target), ``"compatible"`` (records of another
            CPU whose instructions this host has), ``"other-target"``, ``"none"`` or ``"corrupt"``;
            for the last three the caller tunes into ``work_dir`` with this run's budget.
        work_dir: the database folder to build from (shipped) or to tune into (scratch).
        records: records in the shipped database (0 otherwise).
        line: one human line.
        build_target: the target dict to build (and tune) with: the host's for ``exact`` and
            scratch, the records' ``-mcpu`` (or the common x86-64 level) for ``compatible``.
        method: the :class:`lab02_tvm.tuning.method.Method` the records were tuned with (scratch: the
            method a tuning from scratch uses).
        source: the target key of the records used (``""`` when tuned here).
    """

    status: str
    work_dir: Path
    records: int
    line: str
    build_target: dict | None = None
    method: object = None
    source: str = ""

    @property
    def shipped(self) -> bool:
        """Whether the model is built from shipped records (``exact`` or ``compatible``), not tuned here."""
        return self.status in ("exact", "compatible")

    @property
    def how(self) -> str:
        """``exact``, ``compatible`` or ``tuned here`` (the tables' words)."""
        return HOW[self.status]

    def label(self) -> str:
        """The tables' ``records`` cell: portable (no absolute path), e.g. ``compatible: llvm-znver3-1c, built
        for x86-64-v3`` or ``tuned here``."""
        if self.status == "exact":
            return f"exact: {self.source}"
        if self.status == "compatible":
            return f"compatible: {self.source}, built for {self.build_target.get('mcpu')}"
        return "tuned here"


@dataclass
class _Candidate:
    tier: int  # 0 exact, 1 every instruction of the records' CPU on the host, 2 a common x86-64 level
    work_dir: Path
    key: str
    cpu: str
    build_cpu: str
    records: int
    prov: dict
    method: object
    why: str  # the compatibility clause of the line


def _candidate(folder: Path, host: dict, have: frozenset) -> tuple[_Candidate | None, str]:
    """One shipped folder judged for ``host``: ``(candidate or None, why not)`` (never raises)."""
    from common import isa
    from .method import Method
    try:
        db = read_database(folder)
    except (CorruptDatabase, UserError) as exc:
        return None, str(exc)
    if not db.records:
        return None, f"{rel(folder)} holds no records"
    try:
        targets = db.targets
        cpus = {t["mcpu"] for t in targets}
        unknown = sorted(c for c in cpus if c != "generic" and not isa.is_valid_cpu(c))
    except (UserError, ValueError, TypeError, KeyError) as exc:
        return None, f"records in {rel(folder / RECORDS)} have a target that does not parse ({exc})"
    if unknown:
        return None, f"records in {rel(folder / RECORDS)} name an unknown LLVM CPU {unknown[0]!r}"
    if len(targets) != 1 or target_key(targets[0]) != folder.parent.name:
        return None, f"records in {rel(folder)} are for {targets[0]}, not {folder.parent.name}"
    t = targets[0]
    if t["kind"] != host["kind"] or t["num-cores"] != host["num-cores"]:
        return None, f"records in {rel(folder)} are for {target_key(t)} ({t['num-cores']} cores, {t['kind']})"
    try:
        prov = read_provenance(folder)
        method = Method.from_provenance(prov)
    except UserError as exc:
        return None, f"{rel(folder / PROVENANCE)}: {exc}"
    key, cpu = target_key(t), t["mcpu"]
    if key == target_key(host):
        return _Candidate(0, folder, key, cpu, host["mcpu"], len(db.records), prov, method, ""), ""
    if cpu == "generic":
        return None, f"{key}: records for a generic CPU"
    missing = isa.missing_on(cpu, have)
    if not missing:
        return _Candidate(1, folder, key, cpu, cpu, len(db.records), prov, method,
                          f"compatible ISA, building for {cpu}"), ""
    level = isa.x86_level(isa.isa_features(cpu) & have)
    shown = ", ".join(missing[:4]) + (", ..." if len(missing) > 4 else "")
    vectors = isa.widest_vectors(isa.isa_features(cpu))
    if level is None or isa.widest_vectors(isa.isa_features(level)) != vectors:  # schedules chose tiles for them
        return None, f"{key}: this host lacks {cpu}'s {shown} and no common x86-64 level keeps its {vectors}"
    return _Candidate(2, folder, key, cpu, level, len(db.records), prov, method,
                      f"{cpu}'s {shown} absent here, common ISA {level}: building for {level}"), ""


def _field(method) -> bool:
    """Whether records were tuned in the field's layout with weight layout rewrite (graph rewrites aside)."""
    from .method import FIELD
    return (method.layout, method.layout_rewrite) == (FIELD.layout, FIELD.layout_rewrite)


def choose(model: str, target, *, root: Path | None = None, scratch_root: Path | None = None,
           have: frozenset[str] | None = None) -> Choice:
    """The shipped records of ``model`` to build with on ``target`` (the host), or a scratch folder and why.

    In order, the way TVM's TopHub fell back to the nearest target family:

    1. records measured on this exact target (``target_key`` equal);
    2. records of a CPU every one of whose instructions the host has (:func:`common.isa.missing_on`
       on LLVM's feature lists: ``znver3``'s AVX2 records on a ``znver4`` host): built for the
       records' ``-mcpu``, so the code is what was measured;
    3. records of a CPU with instructions the host lacks but a common x86-64 level that keeps the
       records' widest vectors (``znver3``'s AVX2 records on an AVX2 Intel: AMD's ``sse4a`` is absent,
       ``x86-64-v3`` is common): built for that level (the schedules' tiles were measured for those vectors);
    4. otherwise tuning from scratch with the run's budget.

    Records tuned with the field's method (:data:`lab02_tvm.tuning.method.FIELD`: NHWC + weight layout rewrite)
    come before any tuned without it, whatever their rank: a folder tuned NCHW before the method existed is
    passed over, with a clause saying so, when another kind's method records run here. Measured with both
    built for ``x86-64-v3`` on one host (``results/rocketlake/lab02/records_ab_*_avx2.md``), the AVX2 EPYC's
    method records (``llvm-znver1-1c``) ran ResNet-50 1.43x, BERT-base 1.23x and LLaMA-tiny 1.44x (s32) and
    1.22x (s128) faster than the Zen 3 NCHW ones, which had 3.1x and 4.4x the trials on the two large models.

    Among several candidates of one rank: the widest vectors of the build CPU, then the most trials. The host's
    instruction set ``have`` defaults to the real one for the host's own CPU name, else that CPU's (a
    simulated host, ``MLC_CPU``); a test names it. Never raises on bad records: a corrupt file, a target that does not parse or an
    unknown method becomes a line (the file is left as it is) and the folder is passed over.
    """
    from common import isa
    from .method import FIELD
    root = Path(root or SHIPPED_ROOT)
    host = target_dict(target)
    key = target_key(host)
    scratch = scratch_dir(model, host, scratch_root)
    if have is None:
        have = isa.features_of_host(host["mcpu"]) if host["mcpu"] != "generic" else isa.isa_features("x86-64")
    folders = sorted(p.parent for p in root.glob(f"*/{model}/{RECORDS}")) if root.is_dir() else []
    cands, reasons = [], []
    for folder in folders:
        c, why = _candidate(folder, host, have)
        if c is not None:
            cands.append(c)
        else:
            reasons.append(why)
            if folder.parent.name == key and "corrupt" in why:  # this host's own records are damaged
                return Choice("corrupt", scratch, 0, f"{why}; {from_scratch(scratch)}", host, FIELD)
    if cands:
        width = {name: i for i, (_, name) in enumerate(isa.VECTOR_ISAS)}  # 0 = the widest
        best = min(cands, key=lambda c: (not _field(c.method), c.tier,
                                         width.get(isa.widest_vectors(isa.isa_features(c.build_cpu)), 99),
                                         -run_totals(c.prov)[0]))
        trials, minutes = run_totals(best.prov)
        made = f", {trials} trials in {minutes:.0f} min" if "trials" in best.prov else ""
        what = f"{best.records} kernels{made}, {best.method}"
        if best.tier == 0:
            return Choice("exact", best.work_dir, best.records, f"shipped records {rel(best.work_dir)} ({what})",
                          host, best.method, best.key)
        older = [c for c in cands if _field(best.method) and not _field(c.method)]
        passed = (f"; {', '.join(c.key for c in older)} passed over: tuned {older[0].method}, before the field's "
                  f"method {FIELD}" if older else "")
        return Choice("compatible", best.work_dir, best.records,
                      f"records for {best.key} on this {host['mcpu']} host: {best.why} ({rel(best.work_dir)}, "
                      f"{what}){passed}", {**host, "mcpu": best.build_cpu}, best.method, best.key)
    if folders:
        return Choice("other-target", scratch, 0,
                      f"shipped records of {model} are for {', '.join(f.parent.name for f in folders)}, none usable "
                      f"on this host ({key}: {'; '.join(reasons)}): {from_scratch(scratch)}",
                      host, FIELD)
    return Choice("none", scratch, 0, f"no shipped records of {model}: {from_scratch(scratch)}",
                  host, FIELD)


def quick_choice(model: str, target) -> Choice:
    """The choice of a ``--quick`` run: the reduced models have other kernels than the shipped records
    hold, so they tune from scratch (in the field method) into ``build/lab02/tuning/<key>/<model>_quick``."""
    from .method import FIELD
    wd = scratch_dir(f"{model}_quick", target)
    return Choice("none", wd, 0, f"--quick: reduced model, not the shipped records' one; {from_scratch(wd)}",
                  dict(target), FIELD)


def rel(p: Path) -> str:
    """``p`` relative to the repository root when it is inside it (for one-line messages)."""
    try:
        return str(Path(p).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(p)


def require_empty(out: Path, command: str) -> None:
    """Refuse an ``out`` that exists and is not an empty folder: ``command`` (``"seed"``, ``"harvest"``) starts a
    folder and never overwrites one.

    Raises:
        UserError: one line naming ``out`` and what to do.
    """
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(f"{rel(out)} is not empty: {command} into another --root, or remove it first if it is yours to lose")


def copy_records(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Copy a (checked) database to ``dst`` so a run can top it up without touching the shipped one."""
    read_database(src)
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    for name in (WORKLOADS, RECORDS):
        atomic_write(dst / name, (Path(src) / name).read_bytes())
    return dst
