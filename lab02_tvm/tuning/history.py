"""Every record a shipped folder ever held, from its git history: what earlier top-ups may have dropped.

A top-up prunes its folder to one record per kernel, and until 2026-12-05 the re-timing before the pruning
could drop a better record it never timed (:func:`lab02_tvm.tuning.retime.retime`'s ``incumbents``). The
records are not lost: each shipped version of the folder is a commit. :func:`union` writes every record of every
committed version of a folder (``git log`` of its records file), one per workload and trace, into a new folder;
``python -m lab02_tvm.tuning.longrun harvest --model M --root R`` then re-times all of them on this host with the
shipped records as the ones to beat, and prunes. ``pick`` (in the model) and ``records_ab`` (both orders) decide
what ships, as after any top-up.

Measured on the AVX-512 Intel kind (2026-12-05; ``retime_bert_history``, ``retime_resnet50_history``,
``pick_resnet50_history`` in ``results/rocketlake/lab02``): its 8 BERT-base and 12 ResNet-50 versions held 50
and 105 distinct records. Every shipped record of BERT-base's matmuls and of ResNet-50's five slowest
convolutions stayed; two other ResNet-50 convolutions had an older record 9-10 % faster alone (in two passes),
and in the model one of them 10.6 % faster (0.19 ms of a 48 ms inference).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from common.errors import UserError

from .database import RECORDS, WORKLOADS
from .records import REPO_ROOT, read_provenance, rel, require_empty, write_provenance


def _git(repo: Path, *args: str) -> str:
    """stdout of ``git -C repo args``; a missing git or a failing command is one line."""
    if shutil.which("git") is None:
        raise UserError("git is not installed: the folder's history cannot be read (apt-get install git)")
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if r.returncode:
        raise UserError(f"git {' '.join(args[:2])} failed in {repo}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
    return r.stdout


def versions(folder: Path, repo: Path = REPO_ROOT) -> list[tuple[str, str]]:
    """``[(commit, records file path in it)]``: every committed version of ``folder``'s records file, newest first,
    across moves (``--follow``) and without the commits that deleted it; paths from the top of the git tree."""
    rel_path = Path(folder).resolve().relative_to(Path(repo).resolve()) / RECORDS
    out = _git(repo, "log", "--follow", "--diff-filter=d", "--format=commit %H", "--name-only", "--", str(rel_path))
    found, rev = [], None
    for line in out.splitlines():
        if line.startswith("commit "):
            rev = line.split()[1]
        elif line.strip() and rev is not None:
            found.append((rev, line.strip()))
            rev = None
    return found


def union(folder: Path, out: Path, repo: Path = REPO_ROOT) -> dict:
    """Write every record of every committed version of ``folder`` into ``out``, one per (workload, trace).

    A record keeps the run time stored with it (each version's pass); re-time them before ranking
    (``longrun harvest`` does). ``out``'s provenance is ``folder``'s now plus ``"history"``.

    Args:
        folder: a records folder tracked in ``repo`` (a shipped one); its working-tree files count as the newest version.
        out: an empty or absent folder (written in place: a scratch folder, never a shipped one).
    Returns:
        ``{"versions", "workloads", "records"}``: commits read, distinct workloads and records written.
    Raises:
        UserError: ``folder`` is outside ``repo`` or has no committed version, ``out`` exists and is not an empty
            folder, git is missing or fails.
    """
    folder, out = Path(folder), Path(out)
    require_empty(out, "harvest")
    try:
        revs = versions(folder, repo)
    except ValueError:
        raise UserError(f"{folder} is not inside {repo}: only a committed folder has a history") from None
    if not revs:
        raise UserError(f"{rel(folder)} has no committed version: nothing to harvest")
    index: dict[str, int] = {}
    workloads, records, seen = [], [], set()
    texts = [((folder / WORKLOADS).read_text(), (folder / RECORDS).read_text())] if (folder / RECORDS).is_file() else []
    texts += [(_git(repo, "show", f"{rev}:{Path(path).parent / WORKLOADS}"), _git(repo, "show", f"{rev}:{path}"))
              for rev, path in revs]  # the working tree first: a version not yet committed is one too
    for wl_text, rec_text in texts:
        wls = [json.loads(x) for x in wl_text.splitlines() if x.strip()]
        for line in rec_text.splitlines():
            if not line.strip():
                continue
            w, rec = json.loads(line)
            h = wls[w][0]
            if (h, json.dumps(rec[0])) in seen:
                continue
            seen.add((h, json.dumps(rec[0])))
            if h not in index:
                index[h] = len(workloads)
                workloads.append(wls[w])
            records.append([index[h], rec])
    out.mkdir(parents=True, exist_ok=True)
    (out / WORKLOADS).write_text("".join(json.dumps(w) + "\n" for w in workloads))
    (out / RECORDS).write_text("".join(json.dumps(r) + "\n" for r in records))
    info = {"versions": len(revs), "workloads": len(workloads), "records": len(records)}
    write_provenance(out, {**read_provenance(folder), "history": {"from": rel(folder), **info}})
    return info


def most_per_workload(out: str | os.PathLike) -> int:
    """The largest number of records any workload of ``out`` holds (the re-timing's ``top_k`` to time them all)."""
    from collections import Counter

    from .database import read_database
    return max(Counter(r[0] for r in read_database(out).records).values(), default=1)
