"""Where a kernel's time in the model comes from: the same compiled kernel in the model, alone warm, alone cold.

A records folder holds each kernel's time *alone*, as the tuner measured it (:func:`lab02_tvm.tuning.harness.
evaluator_config`): warm (back to back, its weights in the caches after the first run) or cold (TVM's
``cache_flush_cpu_non_first_arg`` before every run: every operand but the first, the input activation, flushed
from the caches). The model runs a kernel between others, its weights last read an inference ago. This step
measures which of the two the model sees, kernel by kernel, with nothing else changed:

1. the model is built from the records (:func:`lab02_tvm.tuning.apply.build_from_database`) and gated against
   PyTorch; in ``rounds`` runs the Relax VM's instrument hook (:mod:`lab02_tvm.profile`) times every kernel
   call, and on each kernel's first call copies its arguments (inputs, weights, output);
2. each of the ``top`` kernels with the most time per inference is then called alone, the very function the
   model called, on copies of those arguments (so the data are the model's): ``warm`` (back to back, the steady
   state the warm timing measures) and ``cold`` (one call after TVM's flush, the harness's cold timing), in
   ``rounds`` rounds of a seeded
   shuffled order (:func:`common.timing.round_orders`); the output of an alone call must equal the model's,
   bit for bit (the same code on the same inputs), or the step stops.

``python -m lab02_tvm.measure.inmodel_gap --model resnet50 [--folder F]`` writes ``inmodel_gap_<model>.{md,csv,
json}``: per kernel ``model_ms``, ``warm_ms``, ``cold_ms`` (median per call), ``model_over_warm`` and
``model_over_cold``. A ratio near 1 over ``cold`` and well above 1 over ``warm`` says the model runs the kernel
cold, so a search timed warm ranks its candidates by a cost the model does not pay (Lab 02's README, "Cold
timing"); the records' timing is in the table's setup. Not part of ``make run``.
"""
from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from common.errors import UserError

from .. import LAB

MODES = ("warm", "cold")
#: back-to-back calls a warm measurement averages, after one untimed call: the steady state the warm evaluator
#: measures (``evaluator_config(cache_flush=False)``: 3 runs a repeat, at least 50 ms, averaged)
WARM_RUNS = 10
#: TVM's flush of every operand but the first (``src/runtime/rpc/rpc_module.cc``), the time evaluator's
#: ``f_preproc`` when MetaSchedule's ``EvaluatorConfig(enable_cpu_cache_flush=True)``.
FLUSH = "cache_flush_cpu_non_first_arg"


def model_kernels(vm, args: Sequence[Any], *, rounds: int) -> tuple[dict[str, list[float]], dict[str, tuple]]:
    """Run ``vm["main"](*args)`` ``rounds`` times under the instrument hook (after one plain run).

    Returns:
        ``({kernel: [seconds of each call, every round]}, {kernel: (function, [each argument of its first call as
        it was before the call: a NumPy copy of a tensor, any other value as is], NumPy copy of the last argument,
        the output, after the call)})``; VM built-ins (``vm.*``) are left out.
    """
    import tvm

    from ..profile import clear_instrument, is_kernel
    main = vm["main"]
    main(*args)
    times: dict[str, list[float]] = defaultdict(list)
    first: dict[str, tuple] = {}
    t0 = [0.0]
    before_args: list = []

    def copy(x):
        return x.numpy().copy() if isinstance(x, tvm.runtime.Tensor) else x

    def instrument(func, symbol, before, _ret, *a):
        now = time.perf_counter()
        if not is_kernel(symbol):
            return 0
        if before:
            before_args[:] = [copy(x) for x in a] if symbol not in first else []
            t0[0] = time.perf_counter()
            return 0
        times[symbol].append(now - t0[0])
        if symbol not in first:
            first[symbol] = (func, list(before_args), copy(a[-1]))
        return 0

    vm.set_instrument(instrument)
    try:
        for _ in range(rounds):
            main(*args)
    finally:
        clear_instrument(vm)
    return dict(times), first


def alone_ms(func, arguments: Sequence[Any], out: np.ndarray, *, rounds: int, seed: int = 0) -> dict[str, float]:
    """``{mode: median ms per call}`` of ``func`` alone on copies of ``arguments`` (NumPy arrays become tensors; the
    last is its output), in ``rounds`` shuffled rounds of :data:`MODES`: ``warm`` is the mean of :data:`WARM_RUNS`
    calls back to back after an untimed one, ``cold`` one call right after TVM's :data:`FLUSH` of every argument
    but the first.

    Raises:
        AssertionError: the first call alone writes another output than ``out`` (what the model's call wrote).
    """
    import tvm

    from common.timing import round_orders
    dev = tvm.cpu()
    args = [tvm.runtime.tensor(a, dev) if isinstance(a, np.ndarray) else a for a in arguments]
    flush = tvm.get_global_func(FLUSH)
    func(*args)
    if not np.array_equal(args[-1].numpy(), out, equal_nan=True):
        raise AssertionError("the kernel alone on the model's inputs wrote another output than in the model")
    ms: dict[str, list[float]] = {m: [] for m in MODES}
    for order in round_orders(list(MODES), rounds, seed=seed):
        for mode in order:
            runs = 1 if mode == "cold" else WARM_RUNS
            if mode == "cold":
                flush(*args)
            else:
                func(*args)
            t0 = time.perf_counter()
            for _ in range(runs):
                func(*args)
            ms[mode].append(1e3 * (time.perf_counter() - t0) / runs)
    return {m: float(np.median(v)) for m, v in ms.items()}


def gap_rows(vm, args: Sequence[Any], *, rounds: int = 15, top: int | None = 12, progress: bool = True) -> list[dict]:
    """One row per kernel (the ``top`` with most time per inference, all with ``None``), slowest first.

    Args:
        vm: a ``relax.VirtualMachine`` of the built model (or anything with ``.vm``, e.g. ``build.VMRunner``).
        args: ``main``'s arguments.
        rounds: instrumented model runs, and rounds of the alone timing.
    Returns:
        rows ``{kernel, calls, model_ms, warm_ms, cold_ms, model_over_warm, model_over_cold, model_ms_per_inf,
        warm_ms_per_inf, cold_ms_per_inf}`` (ms per call, medians, and times ``calls`` per inference).
    """
    from tqdm.auto import tqdm
    vm = getattr(vm, "vm", vm)
    times, first = model_kernels(vm, args, rounds=rounds)
    per_call = {k: 1e3 * float(np.median(v)) for k, v in times.items()}
    calls = {k: len(v) // rounds for k, v in times.items()}
    ranked = sorted(per_call, key=lambda k: -per_call[k] * calls[k])[:top]
    rows = []
    for k in tqdm(ranked, desc="kernels alone", disable=not progress):
        func, arguments, out = first[k]
        alone = {m: _sig(v) for m, v in alone_ms(func, arguments, out, rounds=rounds).items()}
        model = _sig(per_call[k])
        rows.append({"kernel": k, "calls": calls[k], "model_ms": model, **{f"{m}_ms": alone[m] for m in MODES},
                     **{f"model_over_{m}": round(model / alone[m], 3) for m in MODES},
                     **{f"{m}_ms_per_inf": _sig(v * calls[k]) for m, v in (("model", model), *alone.items())}})
    return rows


def _sig(ms: float) -> float:
    """``ms`` to 4 significant digits (a kernel of a few microseconds keeps its digits; the ratios are of these)."""
    return float(f"{ms:.4g}")


def summary(rows: Sequence[dict]) -> dict:
    """Per inference over the rows: ms in the model, alone warm, alone cold (each kernel's ms x its calls)."""
    return {f"{m}_ms_per_inf": round(sum(r[f"{m}_ms"] * r["calls"] for r in rows), 2) for m in ("model", *MODES)}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.measure.inmodel_gap --model M [--folder F] [--rounds N] [--top K] [--name STEM]``."""
    from common.cli import parser, positive, step, table_name
    from common.results import write_table
    from common.timing import environment, set_torch_threads, tvm_threads

    from ..build import VMRunner, gate_outputs, host_target
    from ..graph.frontend import import_torch
    from ..graph.passes import tuning_module
    from ..models import MODELS, build_bundles
    from ..tuning import records
    from ..tuning.apply import build_from_database
    from ..tuning.inmodel import host_records
    p = parser("python -m lab02_tvm.measure.inmodel_gap", __doc__)
    p.add_argument("--model", required=True, choices=list(MODELS))
    p.add_argument("--folder", type=Path, default=None, help="records folder (default: this host's shipped one)")
    p.add_argument("--rounds", type=int, default=15, help="instrumented model runs, and rounds alone (default 15)")
    p.add_argument("--top", type=int, default=12, help="kernels timed alone, most time per inference first")
    p.add_argument("--name", default=None, help="table name (default inmodel_gap_<model>)")
    args = p.parse_args(argv)
    positive("--rounds", args.rounds)
    positive("--top", args.top)
    table_name("--name", args.name)
    name = args.name or f"inmodel_gap_{args.model}"
    folder = args.folder or records.shipped_dir(args.model, {**host_target(), "num-cores": 1})
    if not folder.is_dir():
        raise UserError(f"{records.rel(folder)} holds no records of {args.model} for this host: pass --folder")
    _, prov, method, target = host_records(folder, "time kernels in the model and alone", args.model)
    set_torch_threads(1)
    with tvm_threads(1):
        im = import_torch(build_bundles([args.model])[args.model])
        built = build_from_database(method.module(tuning_module(im)), target, folder,
                                    layout_rewrite=method.layout_rewrite)
        runner = VMRunner(built.executable, im, with_params=False)
        gate_outputs(im, runner.outputs(), stage=f"inmodel_gap/{args.model}")
        step(1, "build", f"{args.model} from {records.rel(folder)} ({built.line()}), gated")
        rows = gap_rows(runner, runner.args, rounds=args.rounds, top=args.top)
    summ = summary(rows)
    paths = write_table(LAB, name, rows, title=f"Lab 02: {args.model}'s kernels in the model and alone",
                        env=environment(threads=1, machine_note="1 core"),
                        meta={"model": args.model, "folder": records.rel(folder), "timing": records.timing_of(prov),
                              "method": str(method), "rounds": args.rounds, "top": args.top, **summ},
                        notes="Per kernel, ms per call (medians): model_ms in the model (the Relax VM's instrument), "
                              "warm_ms and cold_ms the same compiled kernel alone on copies of its arguments in the "
                              f"model (its output checked equal), warm the mean of {WARM_RUNS} calls back to back (the "
                              "steady state a warm-timed search measures), cold one call after TVM's "
                              f"{FLUSH} (what a cold-timed search measures). model_over_cold near 1: the model runs "
                              "the kernel cold. timing (setup) = how the folder's records were timed.")
    step(2, "time", f"{len(rows)} kernels: {summ['model_ms_per_inf']} ms per inference in the model, "
                    f"{summ['warm_ms_per_inf']} alone warm, {summ['cold_ms_per_inf']} alone cold")
    step(3, "write", records.rel(paths["md"]))
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors
    from common.errors import run_cli

    raise SystemExit(run_cli(stubs_as_errors(main)))
