"""Each kernel's time in the model, for several builds of one model: where a schedule earns its place.

The tuner times a candidate alone (:func:`lab02_tvm.tuning.harness.make_runner`: caches flushed before each run,
or back to back). In the model a kernel's input was just written by the kernel before it and its weights were
last read an inference ago, so a schedule faster alone can be slower there: on the AVX-512 Intel kind a
climbed BERT-base attention projection ran 6.7 % faster alone and about 5 % slower in the model, and the
top-up that held it made the whole model 8-9 % slower (``records_ab_bert_b5{,b}``; the tuning log of
Lab 02's RECORDS.md). The choices made here are therefore made in the model:

* :func:`kernel_ms_by_build` builds the model from each records folder (each gated against PyTorch,
  :func:`lab02_tvm.build.gate_outputs`) and times every kernel call in it with the Relax VM's instrument hook
  (:func:`lab02_tvm.profile.profile_vm`), in ``rounds`` rounds, every build once per round in a
  shuffled order (:func:`common.timing.round_orders`), so a change of host speed reaches every build alike;
* :func:`median_ms` is one kernel's median time per call over those rounds;
* :func:`check_out` and :func:`write_records` guard and write the chosen folder (atomically, beside it).

Used by :mod:`lab02_tvm.tuning.epilogue` (where each epilogue runs) and :mod:`lab02_tvm.tuning.pick` (which
records of a top-up replace the shipped ones).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from common.errors import UserError
from common.results import new_folder


def check_out(sources: list[Path], out: Path, made_by: str) -> None:
    """Refuse an ``out`` folder that would overwrite a source, or anything this command did not write.

    Args:
        sources: the folders read (never written).
        out: the folder to write; an existing one is replaced only if it is empty or a records folder whose
            provenance has the key ``made_by`` (``"epilogue"``, ``"picked"``): one this command wrote before.
    Raises:
        UserError: ``out`` is, holds or sits inside a source folder, or exists and is not empty nor such a
            folder (a shipped records folder among them; nothing is deleted then).
    """
    from . import records
    from .database import RECORDS, WORKLOADS
    o_r = out.resolve()
    for src in sources:
        s_r = src.resolve()
        if o_r == s_r or o_r in s_r.parents or s_r in o_r.parents:
            raise UserError(f"{out} overlaps the records folder {src}: the chosen records must go to a folder outside it")
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    if not out.is_dir() or {q.name for q in out.iterdir()} - {WORKLOADS, RECORDS, records.PROVENANCE}:
        raise UserError(f"{out} exists and is not a records folder: remove it or choose another OUT")
    if made_by not in records.read_provenance(out):
        raise UserError(f"{out} is a records folder this command did not write (its PROVENANCE.json has no "
                        f"{made_by!r}): choose another OUT, or remove it first if it is yours to lose")


def host_records(src: Path, what: str, model: str) -> tuple[Any, dict, Any, dict]:
    """``(database, provenance, Method, host target)`` of a records folder of ``model`` tuned for this host.

    A folder whose provenance names no target (or no model) is taken as this host's (or ``model``'s): the
    build then finds out, as a build from it would.

    Args:
        src: a records folder (database files and ``PROVENANCE.json``).
        what: what the caller does, for the error line (``"place epilogues"``).
        model: the model the caller builds (a :data:`lab02_tvm.models.MODELS` key).
    Raises:
        UserError: no database, a provenance that does not parse, another model's records, an unknown method,
            or records tuned for another target than this host's (their in-model times would be this host's).
    """
    from ..build import host_target
    from . import records
    from .database import load_database
    from .method import Method
    prov = records.read_provenance(src)
    if prov.get("model") and prov["model"] != model:
        raise UserError(f"{src} holds {prov['model']}'s records, not {model}'s: pass --model {prov['model']} "
                        f"or {model}'s folder")
    db = load_database(src)
    method = Method.from_provenance(prov)
    target = {**host_target(), "num-cores": 1}
    if prov.get("target") and not records.same_target(prov["target"], target):
        raise UserError(f"{src} holds records for {records.target_key(prov['target'])}, this host is "
                        f"{records.target_key(target)}: {what} on the machine the records were tuned on")
    return db, prov, method, target


def kernel_ms_by_build(mod, im, target: dict, folders: Mapping[str, Path], *, layout_rewrite: bool, rounds: int,
                       progress: bool = True, desc: str = "kernels in the model") -> tuple[dict[str, list[dict]], dict[str, int]]:
    """Build the model from each folder, gate it, and time every kernel call in it over interleaved rounds.

    Args:
        mod: the unfused Relax module in the folders' method (``Method.module(tuning_module(im))``).
        im: the imported model (:func:`lab02_tvm.graph.frontend.import_torch`): inputs and PyTorch's outputs.
        target: the target dict the records were tuned for (this host's).
        folders: ``{label: records folder}``.
        layout_rewrite: the folders' weight layout rewrite flag.
        rounds: rounds; in each, every build runs three inferences back to back (a warm-up, a plain run and
            the instrumented one whose kernel times are kept: ``profile_vm(repeats=1)``).
    Returns:
        ``({label: [one {kernel: ms per call} per round]}, {kernel: calls per inference})``.
    Raises:
        common.gates.GateError: a build differs from PyTorch beyond the model's gate.
    """
    from tqdm.auto import tqdm

    from common.timing import round_orders

    from ..build import VMRunner, gate_outputs
    from ..profile import profile_vm
    from .apply import build_from_database

    runners = {}
    for label, folder in folders.items():
        built = build_from_database(mod, target, folder, layout_rewrite=layout_rewrite)
        runner = VMRunner(built.executable, im, with_params=False)
        gate_outputs(im, runner.outputs(), stage=f"in_model/{label}")
        runners[label] = runner
    times: dict[str, list[dict]] = {label: [] for label in runners}
    calls: dict[str, int] = {}
    for order in tqdm(round_orders(list(runners), rounds), desc=desc, disable=not progress):
        for label in order:
            prof = profile_vm(runners[label], runners[label].args, repeats=1)
            times[label].append({k: v["ms"] / max(v["calls"], 1) for k, v in prof["kernels"].items()})
            calls.update({k: v["calls"] for k, v in prof["kernels"].items()})
    return times, calls


def median_ms(rounds: list[dict], task: str) -> float:
    """One task's median time per call (ms) over the rounds of one build; NaN where the build has no such kernel.

    A kernel whose weights the build repacked is named ``<task>_prepacked`` (:data:`~lab02_tvm.tuning.method.PREPACKED`).
    """
    from .method import PREPACKED
    return float(np.median([r.get(task + PREPACKED, r.get(task, np.nan)) for r in rounds]))


def write_records(out: Path, entries: list[tuple[Any, Any]], prov: dict) -> Path:
    """Write a records folder (one record per workload, and ``prov`` as its provenance) at ``out``, replacing it.

    Written into a new folder beside ``out`` and swapped in: a failure leaves ``out`` as it was.

    Args:
        entries: ``[(workload PrimFunc module, TuningRecord)]``.
    """
    with new_folder(out) as tmp:
        commit_records(tmp, entries, prov)
    return out


def commit_records(folder: Path, entries: list[tuple[Any, Any]], prov: dict) -> None:
    """Commit ``entries`` (``[(workload PrimFunc module, TuningRecord)]``) to the database in ``folder`` (an empty one
    is created) and write ``prov`` as its provenance."""
    from . import records
    from .database import database_paths
    from tvm.s_tir import meta_schedule as ms
    wl, rec = database_paths(folder)
    db = ms.database.JSONDatabase(str(wl), str(rec))
    for func_mod, r in entries:
        w = db.commit_workload(func_mod)
        db.commit_tuning_record(ms.database.TuningRecord(r.trace, w, r.run_secs, r.target, r.args_info))
    records.write_provenance(folder, prov)
