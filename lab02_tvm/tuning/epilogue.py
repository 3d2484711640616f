"""Where each kernel's epilogue runs, chosen in the model: the best schedule with its bias/residual/ReLU moved into the tile.

MetaSchedule's ``MultiLevelTiling`` rule tiles a conv or matmul as ``SSRSRS`` (spatial and reduction
loop levels S0 S1 R0 S2 R1 S3) and writes a few *sketches* per kernel: the elementwise consumer
(bias add, residual add, ReLU: the epilogue) computed at the end of the S0 tile, of the S1 tile, or
after the whole nest (``reuse_write`` with CPU levels 1 and 2: ``reverse_compute_at`` at
``tiles[level - 1].back()``, or not; TVM's ``multi_level_tiling.cc``, ``AddWriteReuse``). The
evolutionary search mutates sampled *decisions* (tile sizes, unroll, compute locations of producers)
within a sketch and never moves a kernel from one sketch to another, so the sketch whose random
first candidates timed best keeps the search. Timed cold (every argument but the first flushed, as
the shipped records are), a separate epilogue loop streams the flushed residual and output in
order, while the fused one reads them tile by tile; in the model those tensors were written by the
kernels just before and are in cache. On ResNet-50 this left 14 of 24 convolutions (and the final
matmul) with their epilogue after the nest, each writing its whole output to a scratch buffer and reading it back
(``python -m lab02_tvm.tuning.epilogue --model resnet50 <records> <out>`` prints which).

This module takes each such kernel's best record, moves the epilogue to the end of the S0 and of the S1
tile (``reverse_compute_at`` on the trace's own loops, then MetaSchedule's postprocessors), builds
the model three times (best records; every kernel's epilogue at S0; at S1), gates each against
PyTorch, times every kernel **in the model** (:func:`lab02_tvm.profile.profile_vm`,
interleaved rounds), and keeps, per kernel, the placement that runs fastest there if it beats the
searched one by at least ``min_gain``. The chosen records' ``run_secs`` are those in-model times
(per call) and the provenance says so (``"epilogue"``), so a later cold top-up competes against them.
"""
from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any


from common.errors import UserError

from .. import LAB

#: the tile levels an epilogue can move to, the end of the S0 or of the S1 loops (MultiLevelTiling's ``reuse_write``
#: levels 1 and 2 on CPU, ``tiles[level - 1].back()``: an epilogue deeper would sit inside the reduction loops)
LEVELS = ("S0", "S1")
#: a placement is kept only if it is at least this much faster in the model than the searched one (run-to-run
#: noise of one kernel in the model is 1-4 % here)
MIN_GAIN = 0.05
_REORDER = re.compile(r"  sch\.reorder\(([^)]*)\)\n")
_TILED = re.compile(r'sch\.annotate\(block_or_loop=(b\d+), ann_key="meta_schedule\.tiling_structure", ann_val="SSRSRS"\)')


def unfused(trace_py: str) -> bool:
    """Whether a record's trace (``str(trace)``) tiles a block ``SSRSRS`` and leaves its consumer after the nest."""
    pre = trace_py.split("sch.enter_postproc()")[0]
    return bool(_TILED.search(pre)) and "reverse_compute_at" not in pre


def with_epilogue_at(func_mod, trace, level: str, target) -> Any:
    """``func_mod`` (one PrimFunc, the workload) scheduled by ``trace`` with the tiled block's consumer
    computed at the end of tile level ``level`` (``"S0"`` or ``"S1"``), then MetaSchedule's CPU postprocessors.

    The trace's own Python form (``str(trace)``, its ``apply_trace(sch)``) is replayed up to its
    ``enter_postproc`` with one ``reverse_compute_at`` added after the ``SSRSRS`` reorder; the loop is
    found by position in that reorder (``s`` spatial and ``r`` reduction loops, in the order S0 S1 R0 S2 R1 S3:
    S0 ends at ``s - 1``, S1 at ``2s - 1``).

    Returns:
        the ``tvm.s_tir.Schedule``; its ``trace`` is a record's trace.
    Raises:
        UserError: the trace has no ``SSRSRS`` tiling to move an epilogue into, the tiled block has no single
            consumer (a matmul without bias or activation), TVM refuses the move, or a postprocessor rejects the result.
    """
    import tvm
    from tvm import s_tir
    from tvm.script import tirx as T

    if level not in LEVELS:
        raise UserError(f"unknown epilogue level {level!r}: choose one of {', '.join(LEVELS)}")
    pre = str(trace).split("  sch.enter_postproc()")[0]
    tiled = _TILED.search(pre)
    m = _REORDER.search(pre, tiled.end()) if tiled else None
    if m is None or tiled is None:
        raise UserError("the trace has no SSRSRS tiling (MultiLevelTiling) to move an epilogue into")
    loops = [x.strip() for x in m.group(1).split(",")]
    probe = s_tir.Schedule(func_mod)
    block = probe.get(probe.get_sblock(_tiled_block_name(pre, tiled.group(1))))
    s = sum(1 for iv in block.iter_vars if int(iv.iter_type) == int(tvm.tirx.IterVar.DataPar))
    r = len(block.iter_vars) - s
    if len(loops) != 4 * s + 2 * r:
        raise UserError(f"the trace's reorder has {len(loops)} loops, not the {4 * s + 2 * r} of SSRSRS")
    at = loops[s - 1] if level == "S0" else loops[2 * s - 1]
    src = pre.replace(m.group(0), m.group(0) + f"  b_epilogue, = sch.get_consumers(block={tiled.group(1)})\n"
                      f"  sch.reverse_compute_at(block=b_epilogue, loop={at}, preserve_unit_loops=True, index=-1)\n")
    sch = s_tir.Schedule(func_mod)
    scope = {"tvm": tvm, "T": T, "s_tir": s_tir}
    exec(compile(src, "<trace>", "exec"), scope)  # the trace's own apply_trace, from our own database
    block_rv = tiled.group(1)
    n_consumers = len(probe.get_consumers(probe.get_sblock(_tiled_block_name(pre, block_rv))))
    if n_consumers != 1:
        raise UserError(f"the tiled block has no epilogue to move ({n_consumers} consumers, not 1)")
    try:
        scope["apply_trace"](sch)
    except Exception as exc:  # noqa: BLE001 - s_tir.ScheduleError and the FFI's errors: TVM refuses the move
        raise UserError(f"TVM refuses the epilogue at {level}: {str(exc).strip().splitlines()[-1][:160]}") from None
    return postprocess(sch, func_mod, target)


def postprocess(sch, func_mod, target):
    """``sch`` after ``enter_postproc`` and MetaSchedule's CPU postprocessors (``Postproc.create("llvm")``: parallel,
    vectorize and unroll annotations made loops, reductions decomposed, layout-free weights rewritten), as the
    search does before it measures a candidate: a record's trace.

    Raises:
        UserError: a postprocessor rejects the schedule (one line naming it).
    """
    import tvm
    from tvm.s_tir import meta_schedule as ms

    from .harness import cpu_tensor_intrinsics
    sch.enter_postproc()
    tgt = tvm.target.Target(target)
    with cpu_tensor_intrinsics(tgt):  # TuneContext imports every backend's intrinsics otherwise (~25 s)
        ctx = ms.TuneContext(mod=func_mod, target=tgt, task_name="epilogue",
                             space_generator=ms.space_generator.PostOrderApply(sch_rules=[], postprocs="llvm",
                                                                               mutator_probs={}))
    for post in ctx.space_generator.postprocs:
        if not post.apply(sch):
            raise UserError(f"MetaSchedule's {type(post).__name__} rejects the schedule")
    return sch


def _tiled_block_name(pre: str, rv: str) -> str:
    """The block name a trace binds to ``rv`` (``bN = sch.get_sblock(name="...", ...)``)."""
    m = re.search(rf'  {rv} = sch\.get_sblock\(name="([^"]+)"', pre)
    if m is None:
        raise UserError(f"the trace does not name its tiled block {rv}")
    return m.group(1)


def choose(model: str, src: str | Path, out: str | Path, *, rounds: int = 10, min_gain: float = MIN_GAIN,
           progress: bool = True, quick: bool = False, command: str | None = None) -> list[dict]:
    """Choose each kernel's epilogue placement in the model; write ``out`` (a records folder) and return the rows.

    Args:
        model: the model whose records ``src`` holds (its tuning method is read from ``src``'s provenance).
        src: a records folder (pruned: its best record per kernel is the one used); never written.
        out: where the chosen records go (created; a folder there is replaced).
        rounds: interleaved in-model profiling rounds (each: one instrumented inference per build).
        min_gain: the least in-model speedup (fraction) for which a moved epilogue replaces the searched one.
        quick: the test-size model (``models.imported(model, quick=True)``), for records tuned on it.
        command: the command line, for the provenance.
    Returns:
        one row per kernel whose epilogue could move: ``kernel, calls, searched_ms, S0_ms, S1_ms`` (per call,
        median over rounds, in the model), ``chosen`` (``searched``, ``S0`` or ``S1``), ``gain_pct``.
    Raises:
        UserError: ``src`` holds no database or no record of ``model``'s kernels, its records were tuned for
            another target than this host's (the in-model times would be this host's), or ``out`` overlaps ``src``
            or exists and is not empty nor a folder this command wrote (nothing is deleted then).
        common.gates.GateError: a build differs from PyTorch beyond the model's gate.
    """
    from common.timing import set_torch_threads, tvm_threads

    from .database import scheduled_record, task_records
    from .inmodel import check_out, host_records, kernel_ms_by_build, median_ms, write_records
    from .method import PREPACKED
    from .tasks import extract_tasks

    src, out = Path(src), Path(out)
    check_out([src], out, "epilogue")
    db, prov, method, target = host_records(src, "place epilogues", model)
    set_torch_threads(1)
    with tvm_threads(1):
        im, mod = method.prepared(model, quick)
        infos = extract_tasks(mod, target, method.layout_rewrite)
        best, variants = {}, {lv: {} for lv in LEVELS}
        for t in infos:
            recs = task_records(db, t.task)
            if not recs:
                continue
            best[t.name] = (t, recs[0])
            if unfused(str(recs[0].trace)):
                for lv in LEVELS:
                    try:
                        variants[lv][t.name] = with_epilogue_at(t.task.dispatched[0], recs[0].trace, lv, target)
                    except UserError:
                        pass
        if not best:
            raise UserError(f"{src} holds no record of {model}'s kernels in its method ({method}): is it {model}'s folder?")
        movable = sorted(set().union(*(v.keys() for v in variants.values())))
        with tempfile.TemporaryDirectory(prefix="lab02_epilogue_") as tmp:
            folders = {}
            for arm in ("searched", *LEVELS):
                entries = [(t.task.dispatched[0], r if variants.get(arm, {}).get(name) is None
                            else scheduled_record(variants[arm][name], r, r.run_secs)) for name, (t, r) in best.items()]
                folders[arm] = write_records(Path(tmp) / arm, entries, {})
            times, calls = kernel_ms_by_build(mod, im, target, folders, layout_rewrite=method.layout_rewrite,
                                              rounds=rounds, progress=progress, desc=f"{model}: kernels in the model")
        rows, chosen = [], {}
        for name in movable:
            med = {arm: median_ms(times[arm], name) for arm in times}
            pick = min((lv for lv in LEVELS if name in variants[lv]), key=lambda lv: med[lv])
            gain = 1 - med[pick] / med["searched"]
            keep = pick if gain >= min_gain else "searched"
            if keep != "searched":
                chosen[name] = (keep, med[keep])
            rows.append({"kernel": name, "calls": calls.get(name + PREPACKED, calls.get(name)), "searched_ms": round(med["searched"], 4),
                         **{f"{lv}_ms": round(med[lv], 4) if name in variants[lv] else None for lv in LEVELS},
                         "chosen": keep, "gain_pct": round(100 * gain, 1) if keep != "searched" else 0.0})
    entries = []
    for name, (t, r) in best.items():
        if name in chosen:
            lv, ms_per_call = chosen[name]
            r = scheduled_record(variants[lv][name], r, [ms_per_call / 1e3])
        entries.append((t.task.dispatched[0], r))
    earlier = (prov.get("epilogue") or {}).get("kernels", {})  # kernels an earlier run moved stay named
    write_records(out, entries, {**prov, "epilogue": {
        "note": "epilogue (the tiled block's consumer) moved into the tile where that ran at least "
                f"{round(100 * min_gain)} % faster in the model (lab02_tvm.tuning.epilogue); these records' "
                "run_secs are their per-call times in the model, not cold times alone",
        "command": command, "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "rounds": rounds,
        "min_gain": min_gain,
        "kernels": {**earlier, **{n: {"level": lv, "model_ms": round(m, 4)} for n, (lv, m) in sorted(chosen.items())}}}})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.tuning.epilogue --model resnet50 SRC OUT``: choose, write OUT, table ``epilogue_<model>``."""
    from common.cli import command_line, fraction, parser, positive, step
    from common.results import write_table
    from common.timing import environment
    p = parser("python -m lab02_tvm.tuning.epilogue", __doc__)
    p.add_argument("--model", default="resnet50", choices=["resnet50", "bert", "llama_tiny_s32", "llama_tiny_s128"])
    p.add_argument("src", help="records folder to read (never written)")
    p.add_argument("out", help="folder for the chosen records (replaced)")
    p.add_argument("--rounds", type=int, default=10, help="interleaved in-model profiling rounds")
    p.add_argument("--min-gain", type=float, default=MIN_GAIN, help="least in-model speedup (fraction) to move an epilogue")
    args = p.parse_args(argv)
    positive("--rounds", args.rounds)
    fraction("--min-gain", args.min_gain)
    rows = choose(args.model, args.src, args.out, rounds=args.rounds, min_gain=args.min_gain,
                  command=command_line("lab02_tvm.tuning.epilogue", argv))
    moved = [r for r in rows if r["chosen"] != "searched"]
    step(1, "epilogue", f"{args.model}: {len(rows)} kernels with the epilogue after the nest; moved into the tile: "
                        + (", ".join(f"{r['kernel']} ({r['chosen']}, -{r['gain_pct']} %)" for r in moved) or "none"))
    paths = write_table(LAB, f"epilogue_{args.model}", rows, title=f"Lab 02: {args.model}'s epilogues, placed in the model",
                        env=environment(threads=1, src=args.src, out=args.out, rounds=args.rounds, min_gain=args.min_gain),
                        notes="Per kernel whose searched schedule computes its epilogue after the tiled nest: its time "
                              "per call in the model (median of interleaved rounds) as searched, with the epilogue at "
                              "the end of the S0 tile and of the S1 tile; chosen = the fastest if it gains >= min_gain.")
    step(2, "write", f"{args.out}; {paths['md']}")
    return 0


if __name__ == "__main__":
    from common.errors import run_cli

    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
