"""Tests of lab02_tvm.tuning.topup: a candidate ships only when it ran faster than the shipped folder in both
orders of the A/B run, the shipped folder is replaced whole or not at all, and bad input stops before any search.

References: the decision is checked on hand-made tables in the shape ``records_ab`` writes (exact arithmetic);
the replacement against the source folder's bytes. The steps themselves (search, pick, A/B) have their own tests
(test_tuning.py, test_pick.py, test_records.py); a top-up worth shipping searches for 30-60 minutes (a tiny one on
LLaMA-tiny s32, run by hand, 1-3), so none runs here.
"""
from __future__ import annotations

import shutil

import pytest

from common.errors import UserError
from lab02_tvm.tuning import database, records, seed, topup
from lab02_tvm.tuning.method import Method

pytestmark = pytest.mark.lab02


def _table(name, *builds):
    """A records_ab table: eager, then one row per ``(folder, median_ms)`` build, labelled A, B, ... in order."""
    return {"name": name, "rows": [{"build": "pytorch_eager", "median_ms": 100.0}]
            + [{"build": chr(65 + i), "folder": f, "median_ms": ms} for i, (f, ms) in enumerate(builds)]}


S, C = "results/lab02/tuning/k/m", "build/c/k/m"


def test_a_candidate_ships_only_when_ahead_of_both_shipped_builds_in_both_orders():
    # the folders as the command holds them; the tables name them relative to the project (records.rel)
    shipped, cand = records.REPO_ROOT / S, records.REPO_ROOT / C
    a, b = _table("a", (S, 50.0), (C, 40.0), (S, 48.0)), _table("b", (C, 40.0), (S, 44.0), (S, 45.0))
    assert topup.ahead_in_both([a, b], shipped, cand) == (True, [1.2, 1.1])  # the faster shipped build / the candidate
    b = _table("b", (C, 40.0), (S, 44.0), (S, 39.9))
    assert topup.ahead_in_both([a, b], shipped, cand) == (False, [1.2, 0.9975])  # one A/A build faster than it
    # a candidate built twice: its slower build counts
    assert topup.ahead_in_both([_table("a", (S, 50.0), (C, 40.0), (C, 51.0))], shipped, cand) == (False, [0.9804])
    assert topup.ahead_in_both([_table("a", (S, 40.0), (C, 40.0))] * 2, shipped, cand) == (False, [1.0, 1.0])  # a tie
    assert topup.ahead_in_both([], shipped, cand) == (False, [])
    with pytest.raises(UserError, match="no row of build/c/k/m"):
        topup.ahead_in_both([_table("a", (S, 50.0), ("build/other", 40.0))], shipped, cand)
    assert [sorted(o) for o in topup.AB_ORDERS] == [["C", "S", "S"]] * 2  # the shipped folder twice in each run
    assert [o[0] for o in topup.AB_ORDERS] == ["S", "C"]  # each folder first once


def test_ship_replaces_the_folder_whole_and_says_why(tmp_path):
    """On a copy of a real shipped folder: the candidate's files replace it (a file only the old one held goes),
    its provenance gains the note, and nothing is left beside it."""
    src = records.REPO_ROOT / "results/lab02/tuning/llvm-rocketlake-1c/llama_tiny_s32"
    shipped, cand = tmp_path / "shipped" / "m", tmp_path / "cand" / "m"
    shutil.copytree(src, shipped)
    shutil.copytree(src, cand)
    (shipped / "stale.json").write_text("{}")
    (cand / database.RECORDS).write_text((src / database.RECORDS).read_text().splitlines(keepends=True)[0])
    topup.ship_folder(cand, shipped, [1.031, 1.012], ["records_ab_m_topup", "records_ab_m_topupb"])
    assert sorted(p.name for p in shipped.iterdir()) == sorted(p.name for p in cand.iterdir())
    assert (shipped / database.RECORDS).read_text() == (cand / database.RECORDS).read_text()
    assert sorted(p.name for p in shipped.parent.iterdir()) == ["m"]
    note = records.read_provenance(shipped)["note"]
    before = records.read_provenance(src).get("note")
    assert ("ahead of both builds of the folder it replaced in both orders of records_ab (1.031x, 1.012x; tables "
            "records_ab_m_topup, records_ab_m_topupb)") in note
    assert note.endswith(f"; before: {before}") if before else "before:" not in note
    database.read_database(shipped)  # still a database MetaSchedule reads
    topup.ship_folder(cand, tmp_path / "first" / "m", [], [])  # a host's first records: no A/B to quote
    assert "this host's first records" in records.read_provenance(tmp_path / "first" / "m")["note"]
    assert records.read_provenance(tmp_path / "first" / "m")["note"].startswith("shipped by lab02_tvm.tuning.topup on")
    topup.ship_folder(cand, tmp_path / "epi" / "m", [1.01, 1.02], ["e", "f"], by="lab02_tvm.tuning.epilogue")
    assert records.read_provenance(tmp_path / "epi" / "m")["note"].startswith("shipped by lab02_tvm.tuning.epilogue on")
    topup.ship_folder(cand, tmp_path / "over" / "m", [1.2, 1.1], ["a", "b"], over="X, the records this host built from")
    assert ("ahead of both builds of X, the records this host built from in both orders of records_ab (1.200x, 1.100x"
            in records.read_provenance(tmp_path / "over" / "m")["note"])


def test_a_ship_over_records_of_another_method_keeps_them_under_replaces(tmp_path):
    """A kind's first folder in the field's method shipped over its NCHW one (Zen 3's LLaMA-tiny s32 records,
    94 trials): the provenance names what it replaced and why, and keeps it when shipped again over that folder;
    over a folder of its own method with no such chain, nothing is added (the runs go on in ``earlier_runs``)."""
    nchw = records.REPO_ROOT / "results/lab02/tuning/llvm-znver3-1c/llama_tiny_s32"
    field = records.REPO_ROOT / "results/lab02/tuning/llvm-znver1-1c/llama_tiny_s32"
    old = records.read_provenance(nchw)
    assert old.get("method") is None  # the NCHW records from before the method
    shipped = tmp_path / "shipped" / "m"
    shutil.copytree(nchw, shipped)
    topup.ship_folder(field, shipped, [1.3, 1.2], ["a", "b"])
    gone = records.read_provenance(shipped)["replaces"]
    assert gone["method"] == Method("NCHW", False).as_dict() and gone["trials"] == 94
    assert Method.from_provenance(gone) == Method("NCHW", False)
    assert gone["date_utc"] == old["date_utc"] and gone["command"] == old["command"] and "other workloads" in gone["why"]
    cand = tmp_path / "cand" / "m"  # a copy of the same method without the chain: it goes on
    shutil.copytree(field, cand)
    topup.ship_folder(cand, shipped, [1.1, 1.1], ["c", "d"])
    assert records.read_provenance(shipped)["replaces"] == gone
    shutil.rmtree(shipped)
    shutil.copytree(field, shipped)
    topup.ship_folder(cand, shipped, [1.1, 1.1], ["c", "d"])  # over its own method, no chain: nothing added
    assert "replaces" not in records.read_provenance(shipped)


def test_the_incumbent_is_the_kinds_own_folder_else_the_one_its_builds_use_now(tmp_path, monkeypatch):
    """What a candidate must run faster than (``records.choose`` is the reference for the borrowed one): a
    simulated Haswell host (``mcpu`` names it, so the real CPU does not matter) with only the AVX2 EPYC's records
    gets those, also once it has its own folder of an older method (NCHW, no layout rewrite); once its own folder is
    of the field's method, that one; with no usable records, nothing."""
    monkeypatch.setattr(records, "SHIPPED_ROOT", tmp_path)
    host = {"kind": "llvm", "mcpu": "haswell", "num-cores": 1}
    assert topup.incumbent("llama_tiny_s32", host) == (None, "none: no records of llama_tiny_s32 run on this host")
    src = records.REPO_ROOT / "results/lab02/tuning/llvm-znver1-1c/llama_tiny_s32"
    shutil.copytree(src, tmp_path / "llvm-znver1-1c" / "llama_tiny_s32")
    borrowed = tmp_path / "llvm-znver1-1c" / "llama_tiny_s32"
    assert records.choose("llama_tiny_s32", host).work_dir == borrowed
    folder, what = topup.incumbent("llama_tiny_s32", host)
    assert folder == borrowed and what.endswith("llvm-znver1-1c's records, which this host builds from now")
    own = records.shipped_dir("llama_tiny_s32", host)

    def own_folder(src):  # ``src``'s records as if tuned on this host (its target, its provenance)
        shutil.rmtree(own, ignore_errors=True)
        seed.retarget(src, own, host)
        shutil.copyfile(src / records.PROVENANCE, own / records.PROVENANCE)

    own_folder(records.REPO_ROOT / "results/lab02/tuning/llvm-znver3-1c/llama_tiny_s32")  # Zen 3's NCHW records
    assert records.read_provenance(own).get("method") is None  # an older method, passed over by the build
    assert records.choose("llama_tiny_s32", host).work_dir == borrowed
    assert topup.incumbent("llama_tiny_s32", host)[0] == borrowed  # and by the top-up alike
    own_folder(src)
    assert topup.incumbent("llama_tiny_s32", host) == (own, f"this kind's shipped folder {records.rel(own)}")


def test_a_fresh_search_keeps_a_shallow_phase_that_reaches_every_task(tmp_path):
    """Step 2's command line, and what it plans (``budget.plan_budget``, the function longrun plans with): a top-up
    puts 95 % of the trials deep; a fresh folder keeps longrun's default split, so at 2,000 trials every one of
    ResNet-50's 29 kernels gets shallow trials (95 % deep left 100 shallow trials: 25 kernels, the run of 2026-12-06)."""
    from lab02_tvm.tuning import budget, longrun
    root = tmp_path / "run1"
    kw = dict(trials=2000, minutes=55.0, deep_top_k=6, by="slowest", root=root)
    top, fresh = topup.tune_argv("resnet50", fresh=False, **kw), topup.tune_argv("resnet50", fresh=True, **kw)
    assert top[top.index("--deep-share") + 1] == "0.95" and "--layout" not in top
    assert "--deep-share" not in fresh and fresh[fresh.index("--layout") + 1:fresh.index("--layout") + 4] == [
        "NHWC", "--layout-rewrite", "on"]
    assert top[top.index("--name") + 1] == "retime_resnet50_run1" and top[top.index("--minutes") + 1] == "55"
    share = longrun.DEEP_SHARE  # what longrun plans with when no --deep-share is given
    tasks = [type("T", (), {"name": f"k{i}"})() for i in range(29)]
    for deep, reached in ((0.95, 25), (share, 29)):
        shallow, _ = budget.plan_budget(tasks, 2000, deep_top_k=6, deep_trials=int(2000 * deep), phases=True)
        assert sum(1 for v in shallow.values() if v) == reached


def test_bad_input_stops_before_any_search_and_makes_no_root(tmp_path, monkeypatch):
    """Each one line (UserError), before the scratch folder is made: a rerun with the same --root works."""
    with pytest.raises(UserError, match="--root .* exists: give a new folder"):
        topup.main(["--model", "bert", "--root", str(tmp_path)])
    scratch = tmp_path / "scratch"
    for argv, message in [
            (["--trials", "0"], "--trials must be > 0"),
            (["--minutes", "nan"], "--minutes must be a finite number"),  # float() parses it; no budget is nan
            (["--fresh", "--by", "ort"], "--fresh with --by ort: .* leave --by out"),
            (["--by", "ort"], "--by ort: only resnet50 has that table"),
            (["--by", "fastest"], "invalid choice: 'fastest'"),
            (["--root", str(tmp_path / "bad name")], "--root's name 'bad name': letters, digits")]:
        with pytest.raises(UserError, match=message):
            topup.main(["--model", "bert", "--root", str(scratch), *argv])
    monkeypatch.setenv("MLC_RESULTS_DIR", str(tmp_path / "results"))  # a kind with no pipeline tables yet
    with pytest.raises(UserError, match="roofline_bert.json is not a readable results table"):
        topup.main(["--model", "bert", "--by", "roofline", "--root", str(scratch)])
    monkeypatch.setattr(records, "SHIPPED_ROOT", tmp_path / "none")  # a host with no records of its own
    with pytest.raises(UserError, match="holds no records for this host to top up, and no other kind's run here: --fresh tunes its first ones"):
        topup.main(["--model", "bert", "--root", str(scratch)])
    assert not scratch.exists()


def test_step_one_copies_the_kinds_own_folder_else_seeds_the_one_it_builds_from(tmp_path, monkeypatch):
    """What the search starts from and what step 3 picks against: ``--fresh`` an empty folder and no pick; this
    kind's own folder a byte copy, picked against itself; another kind's (a simulated host with none of its own)
    a copy of its seed (:mod:`lab02_tvm.tuning.seed`, stood in for by its re-targeting step, which the seed's own
    tests run for real with the re-timing: 16 s), picked against that seed, never against the other kind's times."""
    from lab02_tvm.tuning import seed
    src = records.REPO_ROOT / "results/lab02/tuning/llvm-znver1-1c/llama_tiny_s32"
    base, what = topup.start("llama_tiny_s32", tmp_path / "fresh" / "k" / "m", None, own=False)
    assert base is None and list((tmp_path / "fresh" / "k" / "m").iterdir()) == [] and "--fresh" in what
    work = tmp_path / "own" / "k" / "m"
    assert topup.start("llama_tiny_s32", work, src, own=True)[0] == src
    assert {p.name: p.read_bytes() for p in work.iterdir()} == {p.name: p.read_bytes() for p in src.iterdir()}
    seeded_from = []

    def fake_seed(model, source, *, root, command, timing=None, **kw):  # seed_folder's contract: <root>/<target key>/<model>
        seeded_from.append((model, source, root))
        dst = root / "llvm-haswell-1c" / model
        n = seed.retarget(source, dst, {"kind": "llvm", "mcpu": "haswell", "num-cores": 1})
        records.write_provenance(dst, {"model": model, "records": n, "retimed": {"host_ratio_median": 1.25},
                                       "timing": timing or records.timing_of(records.read_provenance(source))})
        return dst, [], records.read_provenance(dst)
    monkeypatch.setattr(seed, "seed_folder", fake_seed)
    work = tmp_path / "run1" / "llvm-haswell-1c" / "llama_tiny_s32"
    base, what = topup.start("llama_tiny_s32", work, src, own=False)
    assert seeded_from == [("llama_tiny_s32", src, tmp_path / "run1" / "seed")]
    assert base == tmp_path / "run1" / "seed" / "llvm-haswell-1c" / "llama_tiny_s32" != work
    assert (work / database.RECORDS).read_bytes() == (base / database.RECORDS).read_bytes()
    assert database.read_database(work).targets == [database.target_dict({"kind": "llvm", "mcpu": "haswell",
                                                                           "num-cores": 1})]
    assert "seeded here" in what and "x1.25 their time there" in what
    # this kind's own folder and --timing the other way than its records': re-timed first (the seed's own-folder
    # case), then picked against that re-timed copy, so the search and the pick time one way
    assert records.timing_of(records.read_provenance(src)) == "warm"
    assert topup.start("llama_tiny_s32", tmp_path / "same" / "k" / "m", src, own=True, timing="warm")[0] == src
    work = tmp_path / "run2" / "llvm-haswell-1c" / "llama_tiny_s32"
    base, what = topup.start("llama_tiny_s32", work, src, own=True, timing="cold")
    assert seeded_from[-1] == ("llama_tiny_s32", src, tmp_path / "run2" / "seed") and base != src
    assert records.timing_of(records.read_provenance(work)) == "cold" and "re-timed cold" in what
    argv = topup.tune_argv("llama_tiny_s32", trials=10, minutes=1.0, deep_top_k=1, by="slowest", fresh=False,
                           root=tmp_path / "run2", timing="cold")
    assert argv[argv.index("--timing") + 1] == "cold"
    with pytest.raises(FileExistsError):  # step 1 never writes into an earlier run's folder
        topup.start("llama_tiny_s32", work, None, own=False)


def test_step_one_ports_the_kinds_own_folder_to_another_kernel_layout(tmp_path, monkeypatch):
    """``--kernel-layout HWIO`` on this kind's OHWI folder: step 1 ports it (:mod:`lab02_tvm.tuning.port`, stood in
    for here by a copy with the new method: its own tests replay and build for real) into the run's ``port/``, the
    search starts from a copy of the port and step 3 picks against it; the layout it already has is a plain copy;
    another kind's folder or a new timing with it is one line, before anything is made; ``--tile`` reaches longrun."""
    from lab02_tvm.tuning import port
    src = records.REPO_ROOT / "results/lab02/tuning/llvm-znver1-1c/llama_tiny_s32"
    assert Method.from_provenance(records.read_provenance(src)).kernel_layout == "OHWI"
    ported_from = []

    def fake_port(model, source, kernel_layout, *, root, command, **kw):  # port_folder's contract
        ported_from.append((model, source, kernel_layout, root))
        dst = root / "llvm-haswell-1c" / model
        shutil.copytree(source, dst)
        prov = {**records.read_provenance(source), "method": Method("NHWC", True, kernel_layout=kernel_layout).as_dict()}
        records.write_provenance(dst, prov)
        return dst, [{"kernel": "k", "records": 4, "replayed": 4, "tensorized": 0}], prov
    monkeypatch.setattr(port, "port_folder", fake_port)
    monkeypatch.setenv("MLC_RESULTS_DIR", str(tmp_path / "results"))
    work = tmp_path / "run1" / "llvm-haswell-1c" / "llama_tiny_s32"
    base, what = topup.start("llama_tiny_s32", work, src, own=True, kernel_layout="HWIO")
    assert ported_from == [("llama_tiny_s32", src, "HWIO", tmp_path / "run1" / "port")]
    assert base == tmp_path / "run1" / "port" / "llvm-haswell-1c" / "llama_tiny_s32" and tmp_path / "run1" / "port" in base.parents
    assert (work / database.RECORDS).read_bytes() == (src / database.RECORDS).read_bytes()
    assert "ported to NHWC (HWIO weights) + weight layout rewrite" in what
    assert "| k | 4 | 4 | 0 |" in (tmp_path / "results/lab02/port_llama_tiny_s32_run1.md").read_text()  # the port's table
    assert topup.start("llama_tiny_s32", tmp_path / "same" / "k" / "m", src, own=True, kernel_layout="OHWI")[0] == src
    for kw in ({"own": False}, {"own": True, "timing": "cold"}):
        with pytest.raises(UserError, match="--kernel-layout ports this kind's own folder as it was timed"):
            topup.start("llama_tiny_s32", tmp_path / "run2" / "k" / "m", src, kernel_layout="HWIO", **kw)
    assert not (tmp_path / "run2").exists() and len(ported_from) == 1
    argv = topup.tune_argv("resnet50", trials=10, minutes=1.0, deep_top_k=1, by="slowest", fresh=False,
                           root=tmp_path / "run1", tile=True)
    assert "--tile" in argv and "--tile" not in topup.tune_argv("resnet50", trials=10, minutes=1.0, deep_top_k=1,
                                                                by="slowest", fresh=False, root=tmp_path / "run1")
    fresh = topup.tune_argv("resnet50", trials=10, minutes=1.0, deep_top_k=1, by="slowest", fresh=True,
                            root=tmp_path / "run3", kernel_layout="HWIO")  # a fresh folder is tuned in it
    assert fresh[fresh.index("--kernel-layout") + 1] == "HWIO" and "--layout" in fresh
