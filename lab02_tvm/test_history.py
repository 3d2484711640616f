"""Tests of lab02_tvm.tuning.history: every record a committed folder ever held, one per workload and trace.

The repository is a throw-away git repository in ``tmp_path`` with two versions of one folder; records are
hand-written database lines (``[workload index, [trace, run_secs, target, args]]``), since the union reads lines,
not TVM objects.
"""
from __future__ import annotations

import json
import subprocess

import pytest

from common.errors import UserError
from lab02_tvm.tuning import history
from lab02_tvm.tuning.database import RECORDS, WORKLOADS, read_database
from lab02_tvm.tuning.records import read_provenance, write_provenance

pytestmark = pytest.mark.lab02

TARGET = {"kind": "llvm", "mcpu": "x", "num-cores": 1}


def _commit(repo, folder, workloads: list[str], records: list[tuple[int, str, float]], msg: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / WORKLOADS).write_text("".join(json.dumps([h, f"module {h}"]) + "\n" for h in workloads))
    (folder / RECORDS).write_text("".join(json.dumps([w, [[[t]], [s], TARGET, []]]) + "\n" for w, t, s in records))
    write_provenance(folder, {"model": "bert", "timing": "cold", "note": msg})
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", msg], check=True)


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run(["git", "-C", str(r), "init", "-q"], check=True)
    f = r / "shipped" / "bert"
    _commit(r, f, ["h1", "h2"], [(0, "A", 1e-3), (1, "B", 2e-3)], "v1")
    # v2: the workloads in another order, A kept (the same trace), B pruned away, C new
    _commit(r, f, ["h2", "h1"], [(1, "A", 0.9e-3), (0, "C", 1.5e-3)], "v2")
    return r


def test_union_keeps_every_trace_once_under_its_workload(repo, tmp_path):
    out = tmp_path / "out"
    info = history.union(repo / "shipped" / "bert", out, repo=repo)
    assert info == {"versions": 2, "workloads": 2, "records": 3}
    db = read_database(out)
    by_trace = {r[1][0][0][0]: db.workloads[r[0]][0] for r in db.records}
    assert by_trace == {"A": "h1", "B": "h2", "C": "h2"}
    # the newest version first: A keeps the run time stored with it there
    assert [r[1][1] for r in db.records if r[1][0][0][0] == "A"] == [[0.9e-3]]
    assert history.most_per_workload(out) == 2
    prov = read_provenance(out)
    assert prov["note"] == "v2" and prov["history"]["versions"] == 2 and prov["history"]["records"] == 3


def test_union_refuses_what_it_cannot_read_or_would_overwrite(repo, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    with pytest.raises(UserError, match="is not empty"):
        history.union(repo / "shipped" / "bert", out, repo=repo)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    (repo / "shipped" / "never").mkdir()
    with pytest.raises(UserError, match="has no committed version"):
        history.union(repo / "shipped" / "never", tmp_path / "o2", repo=repo)
    with pytest.raises(UserError, match="is not inside"):
        history.union(tmp_path / "elsewhere", tmp_path / "o3", repo=repo)


def test_union_follows_a_move_skips_a_deletion_and_counts_the_working_tree(repo, tmp_path):
    """The folder moved, then deleted (``git log --follow --diff-filter=d``: every version read from its own path),
    then brought back uncommitted with a record of its own: that newest version is in the union too."""
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "mv", "shipped", "moved"], check=True)
    subprocess.run([*git, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v3 moved"], check=True)
    moved = repo / "moved" / "bert"
    assert [p for _, p in history.versions(moved, repo)] == ["moved/bert/" + RECORDS] + ["shipped/bert/" + RECORDS] * 2
    subprocess.run([*git, "rm", "-rq", "moved"], check=True)
    subprocess.run([*git, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v4 deleted"], check=True)
    assert len(history.versions(moved, repo)) == 3  # the deleting commit has no version to read
    assert history.union(moved, tmp_path / "o1", repo=repo)["records"] == 3
    moved.mkdir(parents=True)
    (moved / WORKLOADS).write_text(json.dumps(["h3", "module h3"]) + "\n")
    (moved / RECORDS).write_text(json.dumps([0, [[["D"]], [5e-4], TARGET, []]]) + "\n")
    info = history.union(moved, tmp_path / "o2", repo=repo)
    assert info["records"] == 4 and info["workloads"] == 3
    (tmp_path / "afile").write_text("")
    with pytest.raises(UserError, match="is not empty"):
        history.union(moved, tmp_path / "afile", repo=repo)


def test_longrun_harvest_needs_a_scratch_root():
    from lab02_tvm.tuning import longrun
    with pytest.raises(UserError, match="name it with --root"):
        longrun.main(["harvest", "--model", "bert"])
    with pytest.raises(UserError, match="--incumbents names one model's records folder"):
        longrun.main(["retime", "--incumbents", "somewhere"])
