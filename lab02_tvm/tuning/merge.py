"""Join two records folders of one model and target: two top-ups run side by side, one per core.

A top-up with ``--only-missing`` tunes the kernels a folder has no record of; two of them started from
copies of one folder (say one Winograd shape each, ``taskset -c 0`` and ``-c 1``) end as two folders that
share their old records and differ in the new ones. :func:`merge_folders` puts ``src``'s records into
``dst``: MetaSchedule's ``JSONDatabase`` keys a workload by its structural hash (the first field of each
``database_workload.json`` line), so a workload both hold is kept once and the records are re-indexed;
the folder is then pruned to the best record per workload (:func:`lab02_tvm.tuning.database.prune`).
The provenance keeps ``src``'s run among ``dst``'s ``earlier_runs`` and counts its trials.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from common.errors import UserError
from common.results import atomic_write

from .database import RECORDS, WORKLOADS, prune, read_database
from .method import Method
from .records import RUN_KEYS, read_provenance, rel, run_totals, timing_of, write_provenance


def merge_records(src: str | os.PathLike, dst: str | os.PathLike) -> dict:
    """Append ``src``'s workloads (those ``dst`` lacks) and records (re-indexed) to ``dst``'s database files.

    Returns:
        ``{"workloads_added", "records_added"}``.
    Raises:
        CorruptDatabase / UserError: either folder's database does not parse or is missing (nothing written).
    """
    a, b = read_database(dst), read_database(src)
    index = {wl[0]: i for i, wl in enumerate(a.workloads)}
    workloads = list(a.workloads)
    for wl in b.workloads:
        if wl[0] not in index:
            index[wl[0]] = len(workloads)
            workloads.append(wl)
    records = a.records + [[index[b.workloads[r[0]][0]], r[1]] for r in b.records]
    dst = Path(dst)
    atomic_write(dst / WORKLOADS, "".join(json.dumps(w) + "\n" for w in workloads))
    atomic_write(dst / RECORDS, "".join(json.dumps(r) + "\n" for r in records))
    return {"workloads_added": len(workloads) - len(a.workloads), "records_added": len(b.records)}


def merge_folders(src: str | os.PathLike, dst: str | os.PathLike) -> dict:
    """Join folder ``src`` into ``dst`` (records, method, provenance), pruned to the best record per workload.

    The joined method is :meth:`Method.union` of the two (a build then makes every kernel either folder was
    tuned for); the records must be timed one way (``"timing"``), as every top-up's.

    Returns:
        ``dst``'s new provenance dict, with ``"workloads_added"`` and ``"records_added"`` (:func:`merge_records`).
    Raises:
        UserError: the two are one folder, a folder holds no records, the two were timed differently, or their methods cannot join
            (one line; nothing written).
    """
    src, dst = Path(src), Path(dst)
    if src.resolve() == dst.resolve():
        raise UserError(f"longrun merge: --from and --root name the same folder ({rel(dst)}): nothing to join")
    a, b = read_provenance(dst), read_provenance(src)
    for folder, prov in ((dst, a), (src, b)):
        if not prov or not (folder / RECORDS).is_file():
            raise UserError(f"{rel(folder)} holds no records with a PROVENANCE.json: nothing to merge")
    if timing_of(a) != timing_of(b):
        raise UserError(f"{rel(src)} was timed {timing_of(b)} and {rel(dst)} {timing_of(a)}: a merged folder "
                        "would compare times taken two ways")
    method = Method.from_provenance(a).union(Method.from_provenance(b))
    added = merge_records(src, dst)
    pruned = prune(dst)
    run = {k: b[k] for k in RUN_KEYS if k in b}
    run["merged_from"] = rel(src)
    info = {**a, "method": method.as_dict(), "records": pruned["records"],
            "trials_all_runs": run_totals(a)[0] + int(b.get("trials_this_run") or 0),
            "trials_per_task": {**b.get("trials_per_task", {}), **a.get("trials_per_task", {})},
            "earlier_runs": [*a.get("earlier_runs", []), run]}
    write_provenance(dst, info)
    return {**info, **added}
