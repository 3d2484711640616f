"""A measured hill climb around each kernel's best record: every one-step neighbour of its decisions, timed.

MetaSchedule's evolutionary search measures the candidates its cost model ranks highest (Shao et al.,
"Tensor Program Optimization with Probabilistic Programs", NeurIPS 2022, §5: a learned model picks each
batch; mutations are scored by the model before any is measured). A schedule one tile factor away from
the best may never reach the hardware. This pass measures them all, as an autotuner's local search
does (OpenTuner's hill climbers, Ansel et al., PACT 2014; AutoTVM's ``GridSearchTuner`` over one
knob at a time):

1. the **neighbours** of a record (:func:`neighbours`): each ``SamplePerfectTile`` decision with one prime
   factor moved from one loop level to another (``[1, 14, 1, 4]`` -> ``[1, 28, 1, 2]``: the register tile
   halves, its loop doubles; the product, the loop's extent, stays), within the instruction's
   ``max_innermost_factor``; each ``SampleCategorical`` (the unroll depth) at every other candidate; each
   ``SampleComputeLocation`` (where the padding of a convolution is computed) one loop out or in, at the root
   or inlined;
2. each neighbour replayed on the workload with the postprocessors run again (:func:`variant`: a changed tile
   changes the weight layout the layout rewrite derives from it), built and timed as the tuning runner times
   them (cold or warm, as the folder's records were), every candidate once per round in a rotated order
   (:func:`lab02_tvm.tuning.retime._measure`);
3. steepest ascent: the fastest neighbour becomes the current record when it runs :data:`MIN_GAIN` faster than
   the current one in the same pass, and the climb goes on from it; it stops at a local optimum or after
   ``max_steps``;
4. a confirmation pass, the stored best against the climbed record interleaved (``rounds`` rounds): the
   climbed one is written only if it still runs ``MIN_GAIN`` faster there (the best of ~30 noisy timings is
   biased low: the winner of step 3 is timed again, beside the record it replaces).

:func:`climb_folder` climbs a database folder's kernels and writes the winners into it (the stored best's
time rewritten with its time in the confirmation pass, the climbed record appended with its own), so
:func:`lab02_tvm.tuning.database.prune` keeps the faster. ``python -m lab02_tvm.tuning.longrun climb`` runs it
on a shipped folder; what it changed is ``results/lab02/climb_<model>.md``.
"""
from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from common.errors import UserError
from common.results import atomic_write

from .database import database_paths, open_database, read_database, scheduled_record, target_dict
from .retime import MIN_GAIN, ROUNDS, _decode, _measure, _ms

#: Interleaved rounds per candidate in each climbing step (the confirmation pass uses ``rounds``).
STEP_ROUNDS = 3
#: Steps at most per kernel (each measures every neighbour of the current record: ~30 for a conv).
MAX_STEPS = 8


def _primes(n: int) -> list[int]:
    """The distinct prime factors of ``n >= 1``, ascending (``12`` -> ``[2, 3]``)."""
    out, p = [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def tile_moves(decision: list[int], max_innermost: int) -> list[list[int]]:
    """Every split one prime factor away from ``decision``: a prime ``p`` of part ``a`` moved to part ``b``.

    ``[1, 14, 1, 4]`` (a loop of 56 split four ways) gives ``[2, 7, 1, 4]``, ``[1, 7, 2, 4]``,
    ``[1, 28, 1, 2]``, ... The product is unchanged (it is the loop's extent); a split whose innermost part
    exceeds ``max_innermost`` (the ``SamplePerfectTile`` instruction's ``max_innermost_factor``) is left out,
    since MetaSchedule could not sample it. Order: by source part, prime, destination part; no duplicates.
    """
    out: list[list[int]] = []
    for a, part in enumerate(decision):
        for p in _primes(part):
            for b in range(len(decision)):
                if b == a:
                    continue
                moved = list(decision)
                moved[a] //= p
                moved[b] *= p
                if moved[-1] <= max_innermost and moved not in out:
                    out.append(moved)
    return out


def neighbours(trace: Any) -> list[tuple[Any, Any]]:
    """``(instruction, decision)`` for every one-step neighbour of a MetaSchedule trace's sampling decisions.

    ``SamplePerfectTile``: :func:`tile_moves` of its decision (attrs: ``n``, ``max_innermost_factor``);
    ``SampleCategorical``: each other candidate index; ``SampleComputeLocation`` (where a producer such as a
    convolution's padding is computed): :func:`location_moves`.
    """
    out: list[tuple[Any, Any]] = []
    for inst in trace.insts:
        if inst not in trace.decisions:
            continue
        decision = trace.decisions[inst]
        if inst.kind.name == "SamplePerfectTile":
            out += [(inst, d) for d in tile_moves([int(x) for x in decision], int(inst.attrs[1]))]
        elif inst.kind.name == "SampleCategorical":
            out += [(inst, c) for c in range(len(inst.attrs[0])) if c != int(decision)]
        elif inst.kind.name == "SampleComputeLocation":
            out += [(inst, c) for c in location_moves(int(decision))]
    return out


def location_moves(decision: int) -> list[int]:
    """Where else a ``SampleComputeLocation`` may put its block: one loop out and one loop in, at the root
    (``-1``: its own loop nest before the consumer) and inlined (``-2``). ``5`` -> ``[4, 6, -1, -2]``; a location
    the block cannot take (past its consumer's loops, or inlining a block that cannot be) fails its replay."""
    return [c for c in dict.fromkeys((decision - 1, decision + 1, -1, -2)) if c >= -2 and c != decision]


def variant(record: Any, inst: Any, decision: Any, postprocs: list) -> Any | None:
    """``record`` with one decision changed, replayed on its workload and post-processed again (:func:`replay`),
    or ``None`` where that fails (how MetaSchedule drops a candidate)."""
    sch = replay(record.trace.with_decision(inst, decision, remove_postproc=True), record.workload.mod, postprocs)
    return None if sch is None else scheduled_record(sch, record, None)


def replay(trace: Any, mod: Any, postprocs: list) -> Any | None:
    """The schedule of ``trace`` replayed on ``mod`` (a workload's PrimFunc module) without its postprocessing
    (``remove_postproc``), then ``postprocs`` (a ``TuneContext``'s) run on the result, as MetaSchedule does for a
    sampled candidate: the layout rewrite and the parallel/vectorize/unroll rewrite follow the loop nest. ``None``
    when the replay raises or a postprocessor rejects the schedule."""
    from tvm import s_tir
    sch = s_tir.Schedule(mod)
    try:
        trace.apply_to_schedule(sch, remove_postproc=True)
        sch.enter_postproc()
        if not all(p.apply(sch) for p in postprocs):
            return None
    except Exception:  # noqa: BLE001 - a replay that no longer applies (ScheduleError, TVMError)
        return None
    return sch


def space_of(record: Any) -> Any:
    """The search space a record came from, for its postprocessors: the register-tile space of the tile its
    trace names (:func:`lab02_tvm.lowering.intrin.tile_space`, whose ``RewriteTensorize`` leaves the tile's
    zero-init a loop) when it was searched there (``longrun tune --tile``), else the target's default
    (``"post-order-apply"``). Named, not tensorized: the trace keeps the ``meta_schedule.auto_tensorize``
    annotation of ``MultiLevelTilingWithIntrin`` even where ``RewriteTensorize`` could not tensorize (it only
    logs that), and only that space's postprocessors replay such a blockized nest (the default
    ``RewriteReductionBlock`` rejects it)."""
    from ..lowering.intrin import NAME_RE, tile_space
    named = NAME_RE.search(str(record.trace))
    return tile_space(named.group(0)) if named else "post-order-apply"


def _changes(before: Any, after: Any) -> list[str]:
    """The decisions that differ between two traces of one workload, as ``"<inst> <old> -> <new>"``."""
    def decisions(trace) -> list[tuple[str, str]]:
        return [(i.kind.name, str([int(x) for x in d] if i.kind.name == "SamplePerfectTile" else int(d)))
                for i, d in ((i, trace.decisions[i]) for i in trace.insts if i in trace.decisions)]
    return [f"{k}#{n} {a} -> {b}" for n, ((k, a), (_, b)) in enumerate(zip(decisions(before), decisions(after))) if a != b]


@dataclass
class Climb:
    """One kernel's climb. Times in ms per call: ``stored_ms`` the stored best in the confirmation pass (in the first
    step's pass when no step was taken), ``climbed_ms`` the climbed record in the confirmation pass; ``confirm_s``:
    ``{"stored"|"climbed": per-round seconds}`` of that pass."""

    kernel: str
    steps: int = 0
    measured: int = 0
    stored_ms: float | None = None
    climbed_ms: float | None = None
    changes: list[str] = field(default_factory=list)
    record: Any = None
    confirm_s: dict = field(default_factory=dict)
    seconds: float = 0.0
    workload: int = -1  # the database's workload index and the stored best's line (climb_folder)
    line: int = -1

    @property
    def gain(self) -> float:
        """Fraction of the stored best's time the climbed record saves in the confirmation pass (0 when none)."""
        return 1 - self.climbed_ms / self.stored_ms if self.stored_ms and self.climbed_ms else 0.0

    def line_text(self) -> str:
        """One progress line: what was measured and what it found."""
        found = f"{self.stored_ms:.3f} -> {self.climbed_ms:.3f} ms ({100 * self.gain:.1f} %)" if self.climbed_ms else "no step"
        return (f"{self.kernel}: {self.measured} measured, {self.steps} steps, {found}"
                + (" written" if self.record is not None else ""))

    def row(self, weight: int | None) -> dict:
        """One row of the climb table; ``weight``: calls per inference (None: unknown, counted as 1 in
        ``saved_ms_per_inference``, which is 0 when no record was written). Times in ms, ``seconds`` in s."""
        return {"kernel": self.kernel, "calls": weight, "stored_ms": _ms(self.stored_ms) if self.stored_ms else None,
                "climbed_ms": _ms(self.climbed_ms) if self.climbed_ms else None,
                "gain_pct": round(100 * self.gain, 1), "saved_ms_per_inference":
                    round((self.stored_ms - self.climbed_ms) * (weight or 1), 3) if self.record is not None else 0.0,
                "steps": self.steps, "measured": self.measured, "seconds": round(self.seconds, 1),
                "written": self.record is not None, "changes": "; ".join(self.changes)}


def climb_record(record: Any, target: Any, *, kernel: str, cache_flush: bool, rounds: int = ROUNDS,
                 max_steps: int = MAX_STEPS, min_gain: float = MIN_GAIN, step_rounds: int = STEP_ROUNDS,
                 builder=None, runner=None) -> Climb:
    """Climb from one record (steps 1-4 of the module docstring); ``Climb.record`` is the climbed record when
    the confirmation pass has it ``min_gain`` faster than ``record``, else ``None``. ``step_rounds``: interleaved
    rounds per candidate in each step (more rounds, fewer steps that the confirmation pass then refutes)."""
    from tvm.s_tir import meta_schedule as ms

    from .harness import cpu_tensor_intrinsics, make_builder, make_runner, tuning_environment
    from .tasks import as_target

    t0 = time.time()
    tgt = as_target(target)
    out = Climb(kernel)
    with tuning_environment(tgt), cpu_tensor_intrinsics(tgt):
        builder = builder or make_builder()  # in the environment its workers start in (harness.worker_pool)
        runner = runner or make_runner(cache_flush)
        ctx = ms.TuneContext(mod=record.workload.mod, target=tgt, space_generator=space_of(record),
                             task_name=kernel)
        postprocs = list(ctx.space_generator.postprocs)
    current = record
    for _ in range(max_steps):
        cands = {0: current}
        with tuning_environment(tgt), cpu_tensor_intrinsics(tgt):
            for inst, decision in neighbours(current.trace):
                if (v := variant(current, inst, decision, postprocs)) is not None:
                    cands[len(cands)] = v
        times = _measure(cands, tgt, rounds=step_rounds, cache_flush=cache_flush, builder=builder, runner=runner,
                         progress=False)
        out.measured += len(cands) - 1
        med = {i: statistics.median(t) for i, t in times.items() if t}
        if 0 not in med:  # the current record does not run now: nothing to compare against
            break
        if current is record:
            out.stored_ms = 1e3 * med[0]  # until a confirmation pass times it again
        best = min(med, key=med.__getitem__)
        if best == 0 or med[best] > (1 - min_gain) * med[0]:
            break
        current = cands[best]
        out.steps += 1
    if current is not record:
        final = _measure({0: record, 1: current}, tgt, rounds=rounds, cache_flush=cache_flush, builder=builder,
                         runner=runner, progress=False)
        if final[0] and final[1]:
            out.stored_ms, out.climbed_ms = (1e3 * statistics.mean(final[i]) for i in (0, 1))
            out.confirm_s = {"stored": final[0], "climbed": final[1]}
            out.changes = _changes(record.trace, current.trace)
            if out.climbed_ms <= (1 - min_gain) * out.stored_ms:
                out.record = current
    out.seconds = time.time() - t0
    return out


def climb_folder(work_dir: str | os.PathLike, target: Any, *, order: list[str], names: dict[str, str],
                 cache_flush: bool, minutes: float | None = None, rounds: int = ROUNDS, max_steps: int = MAX_STEPS,
                 min_gain: float = MIN_GAIN, step_rounds: int = STEP_ROUNDS, on_kernel: Callable[[Climb], None] | None = None) -> list[Climb]:
    """Climb the best record of each workload of ``work_dir`` named in ``order`` (kernel names, in that order) and
    write the climbed records that win into the folder.

    Args:
        work_dir: a database folder whose records were measured on ``target``.
        target: this host's target (a dict or ``Target``).
        order: kernel names to climb, first first (:func:`lab02_tvm.tuning.retime.kernel_names`' values).
        names: ``{workload structural hash: kernel name}``.
        cache_flush: time cold or warm, as the folder's records were timed.
        minutes: wall-clock cap, checked before each kernel (``None``: none).
        rounds, max_steps, min_gain, step_rounds: as :func:`climb_record`.
        on_kernel: called with each kernel's :class:`Climb` as it finishes (progress).
    Returns:
        one :class:`Climb` per kernel climbed, in ``order``.
    Raises:
        UserError: ``rounds``/``max_steps``/``step_rounds`` < 1 or ``min_gain`` outside [0, 1); records of another target;
            a name in ``order`` that no workload of the folder has.
        CorruptDatabase: a database line does not parse (nothing is written).
    """
    if min(rounds, max_steps, step_rounds) < 1 or not 0 <= min_gain < 1:
        raise UserError(f"climb: rounds, max_steps and step_rounds must be >= 1 and min_gain in [0, 1) "
                        f"(got {rounds}, {max_steps}, {step_rounds}, {min_gain})")
    db = read_database(work_dir)
    here = target_dict(target)
    if any(t != here for t in db.targets):
        raise UserError(f"{work_dir} holds records of another target than {here}: climb them on that machine")
    by_name = {names.get(db.workloads[w][0]): (w, idx[0]) for w, idx in db.ranked_per_workload(1).items()}
    missing = [k for k in order if k not in by_name]
    if missing:
        raise UserError(f"{work_dir} has no record of {', '.join(missing)}: tune those kernels first")
    t0, done = time.time(), []
    for kernel in order:
        if minutes is not None and time.time() - t0 > 60 * minutes:
            break
        w, i = by_name[kernel]
        recs = _decode(db, {w: [i]})
        if i not in recs:  # its trace no longer replays: nothing to climb from
            continue
        c = climb_record(recs[i], target, kernel=kernel, cache_flush=cache_flush, rounds=rounds, max_steps=max_steps,
                         min_gain=min_gain, step_rounds=step_rounds)
        c.workload, c.line = w, i
        done.append(c)
        if on_kernel:
            on_kernel(c)
    _write(work_dir, db, [c for c in done if c.record is not None])
    return done


def summary(got: list[Climb], rows: list[dict], *, command: str, seconds: float, rounds: int, min_gain: float,
            ranked_by: str, step_rounds: int = STEP_ROUNDS) -> dict:
    """What a provenance keeps of a climb (``"climbed"``): when, how, what it measured and what it wrote."""
    import datetime
    return {"date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"), "command": command,
            "minutes": round(seconds / 60, 1), "kernels": len(got), "measured": sum(c.measured for c in got),
            "rounds": rounds, "step_rounds": step_rounds, "min_gain": min_gain, "ranked_by": ranked_by,
            "written": [c.kernel for c in got if c.record is not None],
            "saved_ms_per_inference": round(sum(r["saved_ms_per_inference"] for r in rows), 3)}


def _write(work_dir: str | os.PathLike, db: Any, wins: list[Climb]) -> None:
    """Rewrite each winner's stored best with its confirmation-pass times, then append the climbed records
    (through MetaSchedule's own ``JSONDatabase``, so their lines are what it writes)."""
    if not wins:
        return
    from tvm.s_tir import meta_schedule as ms
    lines = list(db.records)
    for c in wins:
        w, rec = lines[c.line]
        lines[c.line] = [w, [rec[0], c.confirm_s["stored"], *rec[2:]]]
    _, rec_path = database_paths(work_dir)
    atomic_write(rec_path, "".join(json.dumps(r) + "\n" for r in lines))
    jdb = open_database(work_dir)
    for c in wins:
        r = c.record
        w = jdb.commit_workload(r.workload.mod)
        jdb.commit_tuning_record(ms.database.TuningRecord(r.trace, w, c.confirm_s["climbed"], r.target, r.args_info))


def write_table(model: str, rows: list[dict], summ: dict, folder: str | os.PathLike, *, name: str | None = None) -> dict:
    """``results/lab02/climb_<model>.{md,csv,json}`` (``name``: another stem, so that each pass keeps its rows): one
    row per kernel climbed (:meth:`Climb.row`), the summary in its environment."""
    from .retime import pass_table
    notes = ("Each kernel's best record hill-climbed on this host (tuning/climb.py): measured = neighbours built and "
             "timed (one prime factor of a tile moved, another unroll depth, or another compute location), steps = "
             "moves taken (each at least min_gain faster in its pass); stored_ms and climbed_ms = the stored best and "
             "the climbed record interleaved in the confirmation pass (rounds rounds, timed as the folder's records; "
             "without a step, stored_ms is the stored best in the first step's pass); written = the "
             "climbed record joined the folder (climbed_ms <= (1 - min_gain) x stored_ms); saved_ms_per_inference = "
             "(stored_ms - climbed_ms) x calls for those; changes = the decisions that differ.")
    return pass_table(name or f"climb_{model}", rows, summ, folder, title=f"Lab 02: {model}'s records hill-climbed on this host",
                      notes=notes, listed="written")
