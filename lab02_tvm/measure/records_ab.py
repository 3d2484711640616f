"""Two records folders of one model, side by side: how a re-tuned folder earns its place.

``python -m lab02_tvm.measure.records_ab --model bert results/lab02/tuning/llvm-rocketlake-1c/bert
build/lab02/records-cold/llvm-rocketlake-1c/bert`` builds the model from each folder (each in its own
tuning method, :func:`lab02_tvm.tuning.apply.build_from_database`), gates both against PyTorch, and times
them interleaved with PyTorch eager in one run at 1 thread (:func:`common.timing.interleaved`), so the
ratio between the two folders comes from one run on one machine. A folder that replaces a shipped one
(a top-up cannot: another method or another timing, :mod:`lab02_tvm.tuning.longrun`) is chosen by this
table, written to ``results/lab02/records_ab_<model>.{md,csv,json}`` (``--name`` another).

``--cpu x86-64-v3`` builds every folder for that LLVM CPU instead of the host's: what a host without its own
records builds (:func:`lab02_tvm.tuning.records.choose`, rank 3: AVX2 code from AVX2 records), measured on a
host that has those instructions.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from common.errors import UserError

from .. import LAB


def compare_folders(model: str, folders: dict[str, Path], *, repeats: int = 20, cpu: str | None = None) -> list[dict]:
    """One row per folder (and one for eager): median / p10 / p90 ms, speed over eager, records, gate.

    Args:
        model: a :data:`lab02_tvm.models.MODELS` key (full size, batch 1).
        folders: ``{label: records folder}`` (each holding a MetaSchedule database and its provenance).
        repeats: timed rounds of the interleaved run.
        cpu: the LLVM CPU to build for (``None``: the host's); its instructions must all be on the host.
    Raises:
        UserError: a folder holds no database, an unknown tuning method, or a ``cpu`` whose code cannot run here.
        common.gates.GateError: a build differs from PyTorch beyond the model's gate.
    """

    from common.timing import interleaved
    from ..build import VMRunner, error_summary, gate_for, gate_outputs, host_target
    from ..graph.frontend import import_torch
    from ..graph.passes import tuning_module
    from ..models import build_bundles
    from ..tuning import records
    from ..tuning.apply import build_from_database
    from ..tuning.database import load_database
    from ..tuning.method import Method

    target = {**host_target(), "num-cores": 1, **({"mcpu": runnable_cpu(cpu)} if cpu else {})}
    provs, methods = {}, {}
    for label, folder in folders.items():  # bad input fails here, before the model is built
        load_database(folder)
        provs[label] = records.read_provenance(folder)
        methods[label] = Method.from_provenance(provs[label])
    bundle = build_bundles([model], quick=False)[model]
    im = import_torch(bundle)
    base = tuning_module(im)
    runners, info = {}, {}
    for label, folder in folders.items():
        prov, method = provs[label], methods[label]
        built = build_from_database(method.module(base), target, folder, layout_rewrite=method.layout_rewrite)
        runner = VMRunner(built.executable, im, with_params=False)
        outs = runner.outputs()
        gate_outputs(im, outs, stage=f"records_ab/{label}")
        trials, minutes = records.run_totals(prov)
        runners[label] = runner
        info[label] = {"folder": records.rel(Path(folder)), "built_for": target["mcpu"], "method": str(method),
                       "timing": records.timing_of(prov), "trials": trials, "tuning_min": round(minutes, 1), "kernels": built.line(),
                       "max_abs": error_summary(im.reference, outs)["max_abs"], "gate": gate_for(im.reference)[1]}
    stats = interleaved({"pytorch_eager": bundle.eager(), **runners}, warmup=3, repeats=repeats, progress=True)
    eager_ms = stats["pytorch_eager"].median_ms
    return [{"model": model, "build": label, **info.get(label, {}), "median_ms": round(s.median_ms, 3),
             "p10_ms": round(s.p10_ms, 3), "p90_ms": round(s.p90_ms, 3), "n": s.n,
             "vs_eager": round(eager_ms / s.median_ms, 3)} for label, s in stats.items()]


def runnable_cpu(cpu: str) -> str:
    """``cpu`` when it is an LLVM CPU name and this host has every instruction LLVM gives it (``common.isa``).

    Raises:
        UserError: an unknown name, or instructions this host lacks (named).
    """
    from common import isa
    if cpu != "generic" and not isa.is_valid_cpu(cpu):
        raise UserError(f"--cpu {cpu!r} is not an LLVM CPU name (e.g. x86-64-v3, znver3, skylake-avx512)")
    missing = isa.missing_on(cpu, isa.host_features())
    if missing:
        raise UserError(f"--cpu {cpu}: this host lacks {', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''}; "
                        f"pick a CPU whose instructions it has (e.g. {isa.x86_level(isa.host_features())})")
    return cpu


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.measure.records_ab --model M FOLDER_A FOLDER_B [...]``."""
    from common.cli import parser, positive, step, table_name
    from common.results import write_table
    from common.roof import host_check_seconds, host_speed
    from common.timing import environment, set_torch_threads, tvm_threads

    from ..models import MODELS
    p = parser("python -m lab02_tvm.measure.records_ab", __doc__)
    p.add_argument("--model", required=True, choices=list(MODELS))
    p.add_argument("folders", nargs="+", type=Path, help="records folders (two or more), labelled A, B, ...")
    p.add_argument("--repeats", type=int, default=20, help="timed rounds of the interleaved run")
    p.add_argument("--name", default=None, help="table name (default records_ab_<model>; one per decision "
                                                "keeps the earlier ones)")
    p.add_argument("--cpu", default=None, help="build every folder for this LLVM CPU (default: the host's), "
                                               "e.g. x86-64-v3 for AVX2 code on an AVX-512 host")
    args = p.parse_args(argv)
    positive("--repeats", args.repeats)
    if args.cpu:
        runnable_cpu(args.cpu)
    table_name("--name", args.name)
    folders = {chr(ord("A") + i): f for i, f in enumerate(args.folders)}
    set_torch_threads(1)
    with tvm_threads(1), host_speed(host_check_seconds()) as host:  # how fast the host ran around the timing (common.roof)
        rows = compare_folders(args.model, folders, repeats=args.repeats, cpu=args.cpu)
    for r in rows:
        step(1, "records_ab", f"{r['build']}: {r['median_ms']} ms, {r['vs_eager']}x eager"
                              + (f" ({r['folder']}, {r['timing']}, {r['trials']} trials)" if "folder" in r else ""))
    notes = ("One interleaved run at 1 thread, each round in a shuffled order (common.timing.round_orders): "
             "PyTorch eager and the model built from each records folder "
             "(build_from_database in the folder's method, gated against PyTorch); vs_eager = eager median / "
             "build median. timing: how the folder's candidates were timed (warm: back to back; cold: caches "
             "flushed before each run); built_for: the LLVM CPU the code was built for.")
    paths = write_table(LAB, args.name or f"records_ab_{args.model}", rows, title=f"Records A/B: {args.model}", notes=notes,
                        env=environment(threads=1, machine_note="1 core", **host), meta={"repeats": args.repeats})
    step(2, "write", str(paths["md"]))
    return 0


if __name__ == "__main__":
    from common.errors import run_cli
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
