"""How a compiler reaches the roof on a CPU: the tuning method as a measured experiment.

The same kernels tuned with the same MetaSchedule budget under different *methods*, each kernel
then timed **in the model** (the Relax VM's per-kernel instrument, :func:`lab02_tvm.profile.profile_vm`),
not only as MetaSchedule measured it alone:

* ResNet-50, its hottest convolutions: ``{NCHW, NHWC} x {weight layout rewrite off, on}``
  (:class:`lab02_tvm.tuning.method.Method`). NHWC puts the channels (64-2048) innermost, so the reduction
  and the output channels vectorize without gathers; weight layout rewrite lets each schedule
  repack its (constant) weights into the order its loops read them, folded away at build time.
* BERT-base, its dense matmuls: weight layout rewrite off/on, and ``+ combined Q/K/V``: each layer's
  Q, K and V projections merged into one 768x2304 matmul (:mod:`lab02_tvm.graph.combine_matmul`; Relax's
  ``CombineParallelMatmul`` alone merges nothing in this import: its patterns want ``add(matmul, bias)``
  with the weights and biases as bindings, and the import has ``add(bias, matmul)`` on constants).
* ``+ tile`` (both models, on top of the field method): the search space gets the fp32 register-tile
  ``TensorIntrin`` of :mod:`lab02_tvm.lowering.intrin` through ``MultiLevelTilingWithIntrin``, the tile
  chosen per kernel (``tile`` column; ``not applicable: ...`` where none tensorizes, and that kernel is tuned
  in the default space). ResNet-50's convs take it only with ``HWIO`` weights (``NHWC (HWIO) + rewrite + tile``):
  the tile reads ``B`` as ``[K, N]`` rows and the NHWC default, ``OHWI``, is ``[N, K]``
  (:func:`lab02_tvm.lowering.intrin.why_not`).

Every arm but the ``warm timing`` ones times each candidate cold: one run per repeat, the caches
flushed before each (``tuning.harness.evaluator_config(cache_flush=True)``, as TLCBench did), so a
candidate is timed with its weights coming from memory as in the model. ``warm timing`` arms time it
as the shipped records' long runs did (back-to-back runs for at least 50 ms), to show what the
timing changes in what the search picks.
The table gives, per kernel and arm, the best time MetaSchedule measured, the time in the model,
GFLOP/s and % of the measured FMA peak (:mod:`common.roof`); the plot, best latency against trials.

``python -m lab02_tvm.measure.method_study --model resnet50 --top-k 5 --trials 200`` (1 core, 1-2 s a trial:
ResNet-50's 6 arms x 5 kernels x 200 trials is ~2-3 hours; ``--arms`` picks some; ``TVM_BIND_THREADS=0
taskset -c N`` beside other work). Split across the two cores, each process tunes some arms into one table::

    TVM_BIND_THREADS=0 taskset -c 0 python -m lab02_tvm.measure.method_study --arms NCHW "NCHW + rewrite" --merge
    TVM_BIND_THREADS=0 taskset -c 1 python -m lab02_tvm.measure.method_study --arms NHWC "NHWC + rewrite" --merge

(``--merge`` keeps the other arms of the table already there at the same budget: :func:`merge_earlier`).
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from common.errors import UserError

from .. import LAB
from ..tuning.method import PREPACKED, Method


@dataclass(frozen=True)
class Arm:
    """One way to tune: a :class:`Method`, an optional extra graph pass, and whether the search space has
    the fp32 register tile (:func:`lab02_tvm.lowering.intrin.tile_space`: ``MultiLevelTilingWithIntrin``)."""

    method: Method
    extra: Callable | None = None
    tile: bool = False
    #: time every candidate cold (``tuning.harness.evaluator_config(cache_flush=True)``); ``False``: warm,
    #: as the shipped records' long runs timed them
    cold: bool = True


#: ``{model: {arm name: Arm}}`` and the kind of kernel each studies.
ARMS = {
    "resnet50": {"NCHW": Arm(Method("NCHW", False)), "NCHW + rewrite": Arm(Method("NCHW", True)),
                 "NHWC": Arm(Method("NHWC", False)), "NHWC + rewrite": Arm(Method("NHWC", True)),
                 "NHWC + rewrite + tile": Arm(Method("NHWC", True), tile=True),
                 "NHWC (HWIO) + rewrite + tile": Arm(Method("NHWC", True, kernel_layout="HWIO"), tile=True),
                 "NHWC + rewrite, warm timing": Arm(Method("NHWC", True), cold=False)},
    "bert": {"plain": Arm(Method("NCHW", False)), "rewrite": Arm(Method("NCHW", True)),
             "rewrite + tile": Arm(Method("NCHW", True), tile=True),
             "rewrite + combined Q/K/V": Arm(Method("NCHW", True, combine_matmul=True)),
             "rewrite, warm timing": Arm(Method("NCHW", True), cold=False)},
}
KIND = {"resnet50": "conv2d", "bert": "matmul"}


def arm_module(base, method: Method, extra=None):
    """The arm's tuning module: ``base`` (``relax.passes.tuning_module``) in ``method``'s layout, then ``extra``."""
    mod = method.module(base)
    return extra(mod) if extra is not None else mod


def hot_tasks(mod, target, method: Method, kind: str, top_k: int) -> list:
    """The ``top_k`` tasks of ``kind`` (``conv2d`` / ``matmul``) by weighted FLOPs (:func:`tuning.tasks.extract_tasks` order)."""
    from ..tuning.tasks import extract_tasks
    return [t for t in extract_tasks(mod, target, method.layout_rewrite) if kind in t.name][:top_k]


def curves_in_commit_order(work_dir, names: Sequence[str]) -> dict[str, list[float]]:
    """``{task: best latency (ms) after each trial}``, from the records file in the order MetaSchedule
    committed them (the database API returns records sorted by run time, which would flatten the curve).

    ``names``: the tasks in the order one :func:`tuning.tune.tune_tasks_plan` phase tuned them into a
    fresh ``work_dir`` (each task's records then form one run of one workload index, in that order).
    """
    from ..tuning.database import mean_run_s, read_database
    order, per_wl = [], {}
    for wl, rec in read_database(work_dir).records:
        if wl not in per_wl:
            order.append(wl)
            per_wl[wl] = []
        mean = mean_run_s(rec[1])
        per_wl[wl].append(float("inf") if mean is None else 1e3 * mean)
    out = {}
    for name, wl in zip(names, order):
        best, ys = float("inf"), []
        for y in per_wl[wl]:
            best = min(best, y)
            ys.append(best)
        out[name] = ys
    return out


def run_arm(im, base, arm: str, spec: Arm, *, kind: str, top_k: int, trials: int, target: dict,
            work_dir: Path, progress: bool = True) -> tuple[list[dict], dict]:
    """Tune one arm's hot kernels, build the whole model from that database, time each kernel in it.

    Returns:
        ``(rows, curves)``: one row per kernel (``arm, rank, task, calls, mflop, tile`` (the register
        tile ``MRxNR``, ``not applicable: ...`` where none maps, empty in arms without it), ``trials, best_ms``
        (MetaSchedule, alone), ``model_ms`` (per call, in the model), ``gflops``/``pct_peak`` of
        ``model_ms``), and ``{task: best-so-far ms per trial}``.
    Raises:
        common.gates.GateError: the arm's build differs from PyTorch.
    """
    from common.roof import rate_columns

    from ..tuning.apply import build_from_database
    from ..tuning.database import best_ms_of, open_database, task_records
    from ..tuning.tune import tune_tasks_plan
    from ..build import VMRunner, gate_outputs
    from ..profile import profile_vm
    from ..lowering.intrin import tile_for, tile_space
    method = spec.method
    mod = arm_module(base, method, spec.extra)
    infos = hot_tasks(mod, target, method, kind, top_k)
    # the tile chosen per task (registers it: a build replaying the records' tensorize needs it registered)
    tiles = {t.name: tile_for(t.task.dispatched[0], target) for t in infos} if spec.tile else {}
    tune_tasks_plan(infos, {t.name: trials for t in infos}, target, work_dir,
                    cache_flush=spec.cold, progress=progress, desc=f"tune {arm}",
                    space=(lambda t: tile_space(tiles[t.name][0])) if spec.tile else None)
    built = build_from_database(mod, target, work_dir, layout_rewrite=method.layout_rewrite)
    runner = VMRunner(built.executable, im, with_params=False)
    gate_outputs(im, runner.outputs(), stage=f"method_{arm}")
    kernels = profile_vm(runner, runner.args, repeats=2)["kernels"]
    db = open_database(work_dir)
    rows, curves = [], {}
    by_task = curves_in_commit_order(work_dir, [t.name for t in infos])
    for rank, t in enumerate(infos, 1):
        best = best_ms_of(task_records(db, t.task))
        k = kernels.get(t.name) or kernels.get(t.name + PREPACKED)
        per_call = k["ms"] / k["calls"] if k and k["calls"] else None
        rows.append({"arm": arm, "rank": rank, "task": t.name, "calls": t.weight, "mflop": round(t.flops / 1e6, 1),
                     "tile": tiles[t.name][1] if spec.tile else "",
                     "trials": len(task_records(db, t.task)),
                     "best_ms": None if best is None else round(best, 4),
                     "model_ms": None if per_call is None else round(per_call, 4), **rate_columns(t.flops, per_call)})
        curves[f"{arm} | #{rank} {t.name}"] = by_task.get(t.name, [])
    return rows, curves


def study(im, model: str, *, top_k: int, trials: int, arms: Sequence[str] | None = None,
          work_root: Path | None = None, progress: bool = True,
          after_arm: Callable[[dict], None] | None = None) -> dict:
    """Every arm of ``ARMS[model]`` on ``im`` (``relax.frontend.import_torch`` of the model): rows and curves.

    ``after_arm``: called with the result so far after each arm (``main`` rewrites the table, so a long
    study keeps the arms it finished).

    Raises:
        UserError: no arms for ``model``, or an unknown arm name.
    """
    from ..build import host_target
    from ..graph.passes import tuning_module
    if model not in ARMS:
        raise UserError(f"no method study for {model!r}: choose one of {', '.join(ARMS)}")
    names = list(arms or ARMS[model])
    unknown = [a for a in names if a not in ARMS[model]]
    if unknown:
        raise UserError(f"unknown arm(s) {unknown} for {model}: choose from {list(ARMS[model])}")
    target = {**host_target(), "num-cores": 1}
    base = tuning_module(im)
    rows, curves = [], {}
    root = Path(work_root or tempfile.mkdtemp(prefix="lab02_method_"))
    for arm in names:
        r, c = run_arm(im, base, arm, ARMS[model][arm], kind=KIND[model], top_k=top_k, trials=trials, target=target,
                       work_dir=root / arm.replace(" ", "_").replace("+", "plus"), progress=progress)
        rows += [{"model": model, **row} for row in r]
        curves.update(c)
        if after_arm is not None:
            after_arm({"rows": rows, "curves": curves, "target": target, "arm_rows": r})
    return {"rows": rows, "curves": curves, "target": target}


def plot_curves(curves: dict[str, list[float]], title: str):
    """Best latency (ms, log) against trials: one panel per kernel rank, one line per arm.

    ``curves`` keys are ``"<arm> | #<rank> <task>"`` (:func:`run_arm`)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ranks = sorted({k.split(" | #")[1].split(" ")[0] for k in curves}, key=int)
    fig, axes = plt.subplots(1, len(ranks), figsize=(4 * len(ranks), 3.8), squeeze=False, sharey=True)
    for ax, rank in zip(axes[0], ranks):
        for key, ys in curves.items():
            arm, rest = key.split(" | #")
            if rest.split(" ")[0] == rank:
                ax.plot(range(1, len(ys) + 1), ys, label=arm, lw=1.3)
                ax.set_title(f"#{rank} {rest.split(' ', 1)[1]}", fontsize=8)
        ax.set_yscale("log")
        ax.set_xlabel("trials (candidates measured)")
    axes[0][0].set_ylabel("best latency so far, ms (log)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def merge_earlier(res: dict, earlier: dict | None, *, trials: int, top_k: int) -> dict:
    """``res`` with the arms of an earlier table (``write_study``'s JSON document) that ``res`` does not have.

    A study split across cores (``--arms`` per process, one ``--merge`` table) or resumed after a stop keeps
    what the other runs measured: rows and best-so-far curves of arms not in ``res`` are taken from
    ``earlier``; an arm in both is ``res``'s. Rows are ordered as :data:`ARMS` lists the arms. An earlier table
    at another budget (``trials_per_kernel``, ``top_k``) is not merged (its arms are not comparable).
    """
    meta = (earlier or {}).get("meta", {})
    if not earlier or meta.get("trials_per_kernel") != trials or meta.get("top_k") != top_k:
        return res
    mine = {r["arm"] for r in res["rows"]}
    rows = [r for r in earlier.get("rows", []) if r["arm"] not in mine] + res["rows"]
    curves = {k: v for k, v in meta.get("curves", {}).items() if k.split(" | #")[0] not in mine}
    order = {a: i for i, a in enumerate(a for arms in ARMS.values() for a in arms)}
    rows.sort(key=lambda r: (order.get(r["arm"], len(order)), r["rank"]))
    return {**res, "rows": rows, "curves": {**curves, **res["curves"]}}


def write_study(res: dict, name: str, *, trials: int, top_k: int, merge: bool = False,
                machine_note: str = "1 core") -> dict:
    """``results/lab02/method_<name>.{md,csv,json,png}``; the curves go in the JSON's ``meta``.

    ``merge``: keep the arms of the table already there (:func:`merge_earlier`), read just before writing
    so that runs on two cores writing one table each keep the other's finished arms.
    """
    from common.results import read_table, results_dir, save_plot, write_table
    from common.timing import environment
    notes = ("Each arm tunes the same kernels with the same trials, each candidate timed cold (one run per "
             "repeat, 10 repeats, caches flushed before each: enable_cpu_cache_flush) except in the 'warm timing' "
             "arms (back-to-back runs for >= 50 ms); best_ms = MetaSchedule's best measured mean (kernel alone), model_ms = "
             "the kernel's time per call in the arm's whole-model build (Relax VM instrument, 2 runs); gflops / "
             "pct_peak of model_ms against the measured single-thread FMA peak (common.roof).")
    model = res["rows"][0]["model"] if res["rows"] else name
    if merge:
        path = results_dir(LAB) / f"method_{name}.json"
        res = merge_earlier(res, read_table(path) if path.is_file() else None, trials=trials, top_k=top_k)
    paths = write_table(LAB, f"method_{name}", res["rows"], title=f"Tuning method study: {model}", notes=notes,
                        env=environment(threads=1, machine_note=machine_note),
                        meta={"trials_per_kernel": trials, "top_k": top_k, "target": res["target"],
                              "curves": res["curves"]})
    save_plot(plot_curves(res["curves"], f"{model}: best latency against trials, per arm"), LAB, f"method_{name}")
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.measure.method_study --model resnet50 --top-k 5 --trials 200``."""
    from common.cli import parser, positive, step
    from common.timing import set_torch_threads, tvm_threads

    from ..models import imported
    p = parser("python -m lab02_tvm.measure.method_study", __doc__, quick="test-size model, 4 trials, 1 kernel")
    p.add_argument("--model", default="resnet50", choices=list(ARMS))
    p.add_argument("--top-k", type=int, default=5, help="hottest kernels of the studied kind")
    p.add_argument("--trials", type=int, default=200, help="trials per kernel per arm")
    p.add_argument("--arms", nargs="+", default=None, help="a subset of the model's arms (default: all)")
    p.add_argument("--name", default=None, help="the table's name: results/lab02/method_<name>.* (default: the model)")
    p.add_argument("--merge", action="store_true",
                   help="keep the arms of the table already there (same budget) that this run does not tune: a "
                        "study split across cores (one --arms set per core) or resumed after a stop")
    p.add_argument("--machine-note", default="1 core", help="what else the machine ran, for the table's environment")
    args = p.parse_args(argv)
    positive("--top-k", args.top_k)
    positive("--trials", args.trials)
    top_k, trials = (1, 4) if args.quick else (args.top_k, args.trials)
    name = (args.name or args.model) + ("_quick" if args.quick else "")
    paths: dict = {}

    def after_arm(res: dict) -> None:
        for r in res["arm_rows"]:
            step(1, "method", f"{args.model} {r['arm']}: #{r['rank']} {r['task']} best {r['best_ms']} ms, in the "
                              f"model {r['model_ms']} ms ({r.get('pct_peak')}% of peak)")
        paths.update(write_study(res, name, trials=trials, top_k=top_k, merge=args.merge,
                                 machine_note=args.machine_note))

    set_torch_threads(1)
    with tvm_threads(1):
        im = imported(args.model, args.quick)
        study(im, args.model, top_k=top_k, trials=trials, arms=args.arms, after_arm=after_arm)
    step(2, "write", str(paths["md"]))
    return 0


if __name__ == "__main__":
    from common.errors import run_cli
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
