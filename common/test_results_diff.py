"""The instructor's diff of results (:mod:`common.results_diff`): an error column judged by the tolerance its own
table records, and an empty cell against a missing one (more cases in ``common/test_common.py``)."""
from __future__ import annotations

from common import results, results_diff
from common.errors import run_cli


def _two_runs(root, rows_a: list[dict], rows_b: list[dict], monkeypatch, name: str = "search_space"):
    for side, rows in (("a", rows_a), ("b", rows_b)):
        monkeypatch.setenv("MLC_RESULTS_DIR", str(root / side))
        results.write_table("lab02", name, rows)
    return str(root / "a"), str(root / "b")


def _flagged(a: str, b: str) -> dict:
    return {(c["row"], c["column"]): c for c in results_diff.diff_paths(a, b).cells if c["flagged"]}


def test_an_error_is_judged_by_the_rows_own_verdict_not_a_fixed_absolute_bound(tmp_path, monkeypatch, capsys):
    """lab02's search_space: 0.0 -> 0.000122 on a row whose own (relative) check says ok on both sides was
    "within -> beyond"; a verdict that changes is still flagged, on the error and on the status."""
    row = {"space": "template", "trials": 32, "max_abs_err": 0.0, "status": "ok"}
    a, b = _two_runs(tmp_path, [row, {**row, "space": "generated"}],
                     [{**row, "max_abs_err": 0.0001220703125},
                      {**row, "space": "generated", "max_abs_err": 0.5, "status": "FAIL: out0: |d| = 0.5"}], monkeypatch)
    flagged = _flagged(a, b)
    assert set(flagged) == {("space=generated", "max_abs_err"), ("space=generated", "status")}
    assert flagged[("space=generated", "max_abs_err")]["verdict"] == "within -> beyond"
    assert run_cli(results_diff.main, [a, b]) == 1
    assert "max_abs_err: 0.0 -> 0.0001220703125" not in capsys.readouterr().out


def test_a_stated_gate_sets_the_limit_and_a_relative_one_without_a_verdict_is_not_judged(tmp_path, monkeypatch):
    rows = [{"model": "bert", "max_abs": 5e-4, "gate": "|d| <= 0.001 (absolute)"},
            {"model": "resnet50", "max_abs": 5e-4, "gate": "relative |d| <= 0.0001*max|ref| (output scale 939 > 10)"},
            {"model": "llama", "max_abs": 5e-5, "gate": "absolute |d| <= 0.0001"}]
    changed = [{**rows[0], "max_abs": 2e-3}, {**rows[1], "max_abs": 9e-5}, {**rows[2], "max_abs": 2e-4}]
    a, b = _two_runs(tmp_path, rows, changed, monkeypatch, name="compare")
    cells = {c["row"]: c for c in results_diff.diff_paths(a, b).cells}
    assert cells["model=bert"]["verdict"] == "within -> beyond" and cells["model=bert"]["flagged"]  # 0.001, not 1e-4
    assert cells["model=llama"]["verdict"] == "within -> beyond"
    resnet = cells["model=resnet50"]
    assert not resnet["flagged"] and resnet["compared"] is False and "verdict" not in resnet


def test_an_empty_cell_and_a_missing_value_are_no_difference(tmp_path, monkeypatch):
    a, b = _two_runs(tmp_path, [{"arm": "plain", "task": "t1", "tile": None, "note": "x"}],
                     [{"arm": "plain", "task": "t1", "tile": "", "note": "y"}], monkeypatch, name="method_bert")
    cells = results_diff.diff_paths(a, b).cells
    assert [(c["column"], c["flagged"]) for c in cells] == [("note", True)]


def test_a_relative_error_under_an_absolute_only_check_is_not_judged(tmp_path, monkeypatch, capsys):
    """A gate row |d| <= atol (rtol 0), status ok on both sides: its max_rel is no part of the check. It was judged
    against --tol (1e-4), so 0.0015 -> 5e-05 printed "error beyond -> within tolerance" on a row that passed
    both times; its max_abs is still judged by the row's atol, and --all compares max_rel as a number."""
    row = {"stage": "ort", "output": "logits", "max_abs": 4.8e-07, "max_rel": 0.0015, "atol": 1e-4, "rtol": 0.0,
           "status": "ok"}
    other = {**row, "stage": "tvm", "max_rel": 0.02}
    a, b = _two_runs(tmp_path, [row, other], [{**row, "max_rel": 5e-05}, {**other, "max_abs": 2e-4}],
                     monkeypatch, name="customop_gates")
    cells = {(c["row"], c["column"]): c for c in results_diff.diff_paths(a, b).cells}
    rel = cells[("stage=ort", "max_rel")]
    assert not rel["flagged"] and rel["compared"] is False and "verdict" not in rel and "rtol 0" in rel["note"]
    # the absolute error of the same kind of row: 2e-4 > atol 1e-4, still judged and flagged
    assert cells[("stage=tvm", "max_abs")]["verdict"] == "within -> beyond" and cells[("stage=tvm", "max_abs")]["flagged"]
    assert run_cli(results_diff.main, [a, b]) == 1
    out = capsys.readouterr().out
    assert "max_rel" not in out and "1 error cells not judged" in out
    every = {(c["row"], c["column"]): c for c in results_diff.diff_paths(a, b, all_columns=True).cells}
    assert every[("stage=ort", "max_rel")]["flagged"]  # -96.7% as a number
    # a row with rtol > 0 still judges its relative error against it
    rel_rows = [{**row, "rtol": 1e-3}], [{**row, "rtol": 1e-3, "max_rel": 5e-4}]
    a2, b2 = _two_runs(tmp_path / "r", *rel_rows, monkeypatch, name="customop_gates")
    (c,) = results_diff.diff_paths(a2, b2).cells
    assert c["verdict"] == "beyond -> within" and c["flagged"]


def test_a_time_on_one_side_only_is_machine_dependent(tmp_path, monkeypatch, capsys):
    """retime tables: fastest_other_ms None on one machine, 7.2 ms on the other. Absolute times are compared only
    with --all (README), but an empty side made it a flagged text cell; a portable cell empty on one side is still
    flagged."""
    row = {"kernel": "matmul", "changed": False, "gain_pct": 0.0, "fastest_other_ms": None}
    a, b = _two_runs(tmp_path, [row], [{**row, "fastest_other_ms": 7.215, "gain_pct": None}], monkeypatch,
                     name="retime_bert")
    cells = {c["column"]: c for c in results_diff.diff_paths(a, b).cells}
    ms = cells["fastest_other_ms"]
    assert ms["kind"] == "machine" and not ms["flagged"] and ms["compared"] is False
    assert cells["gain_pct"]["flagged"]  # 0.0 -> empty: a portable value gone
    assert run_cli(results_diff.main, [a, b]) == 1
    out = capsys.readouterr().out
    assert "fastest_other_ms" not in out and "1 machine-dependent cells not compared" in out
    assert {c["column"] for c in results_diff.diff_paths(a, b, all_columns=True).cells if c["flagged"]} == {
        "fastest_other_ms", "gain_pct"}


def test_an_instructor_only_table_missing_from_a_students_results_is_a_note(tmp_path, monkeypatch, capsys):
    """The README's diff, reference results/ against a student's: results/mutation never ships in a handout
    (common.course.sources.INSTRUCTOR_ONLY), so its absence on B is a note and the run exits 0; any other table only
    in A is still flagged, and a cell a row lacks prints as "(absent)", not Python's None."""
    row = {"model": "bert", "vs_eager": 1.1}
    for side in ("a", "b"):
        monkeypatch.setenv("MLC_RESULTS_DIR", str(tmp_path / side / "results"))
        results.write_table("lab02", "peers", [row if side == "a" else {**row, "method": "NHWC"}])
    monkeypatch.setenv("MLC_RESULTS_DIR", str(tmp_path / "a" / "results"))
    results.write_table("mutation", "survivors", [{"mutant": "m1", "status": "survived"}])
    a, b = str(tmp_path / "a" / "results"), str(tmp_path / "b" / "results")
    found = results_diff.diff_paths(a, b)
    assert found.problems == [] and any("table mutation/survivors only in A: instructor-only" in n for n in found.notes)
    assert run_cli(results_diff.main, [a, b]) == 1  # the method column B has and A lacks is still a difference
    assert "lab02/peers [model=bert] method: (absent) -> NHWC" in capsys.readouterr().out
    results.write_table("lab01", "extra", [row])  # a shipped table only in A: flagged as before
    assert results_diff.diff_paths(a, b).problems == ["table lab01/extra only in A"]
