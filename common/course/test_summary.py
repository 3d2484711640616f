"""The class summary (:mod:`common.course.summary`, ``python -m common.grading summary``) on three fake
submissions of the demo course, their results.json written by the grader's own :func:`grade.results_json`."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from common import grading
from common.course import autograder, grade
from common.course.fixtures import PROJECT, env, make_course
from common.course.tasks import load_course
from common.errors import run_cli

#: submission -> {task id: score}; carol's report has no lab09.inc entry (a report of one task).
SCORES = {"alice": {"lab09.double": 4, "lab09.inc": 3}, "bob": {"lab09.double": 2, "lab09.inc": 4},
          "carol": {"lab09.double": 0}}


def _results_json(lab, scores: dict) -> dict:
    tasks = [grade.TaskGrade(t, score=scores[t.id]) for t in lab.tasks if t.id in scores]
    return grade.results_json(grade.LabGrade(lab, tasks, run=None, ignored=[]))


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """alice and bob as grade output folders (``<name>/lab09_demo/results.json``), carol as ``carol.json``."""
    tmp = tmp_path_factory.mktemp("summary")
    (lab,) = load_course(make_course(tmp / "course")).labs
    paths = []
    for name, scores in SCORES.items():
        data = json.dumps(_results_json(lab, scores))
        if name == "carol":
            p = tmp / "carol.json"
        else:
            p = tmp / "grades" / name / lab.dir / "results.json"
            p.parent.mkdir(parents=True)
        p.write_text(data)
        paths.append(str(p if name == "carol" else tmp / "grades" / name))
    return tmp, paths


def _mean(xs):
    return sum(xs) / len(xs)


def _median(xs):
    xs = sorted(xs)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def test_table_numbers_match_an_independent_count(reports, capsys):
    tmp, paths = reports
    out = tmp / "out"
    assert run_cli(grading.main, ["summary", *paths, "--out", str(out)]) == 0
    md = capsys.readouterr().out
    rows = {}
    for line in md.splitlines():
        if line.startswith("| ") and not line.startswith("| submission") and "---" not in line:
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0]] = cells[1:]
    assert md.splitlines()[2] == "| submission | 9.1 lab09.double (/4) | 9.2 lab09.inc (/4) | total (/8) | review |"
    double = [s["lab09.double"] for s in SCORES.values()]
    inc = [s["lab09.inc"] for s in SCORES.values() if "lab09.inc" in s]
    totals = [sum(s.values()) for s in SCORES.values() if len(s) == 2]  # carol's total is partial: left out
    for name, s in SCORES.items():
        assert rows[name] == [str(s["lab09.double"]), str(s["lab09.inc"]) if "lab09.inc" in s else "missing",
                              str(sum(s.values())) + ("" if len(s) == 2 else " (partial)"), ""]  # nothing to review
    for what, fn in (("**mean**", _mean), ("**median**", _median)):
        assert rows[what][-1] == ""
        assert [float(c) for c in rows[what][:-1]] == pytest.approx([fn(double), fn(inc), fn(totals)], abs=0.005)
    data = json.loads((out / "summary.json").read_text())
    by_key = {t["key"]: t for t in data["tasks"]}
    assert by_key["9.2 lab09.inc"]["n"] == 2 and by_key["9.2 lab09.inc"]["mean"] == _mean(inc)
    assert by_key["9.1 lab09.double"]["median"] == _median(double) and data["total"]["mean"] == _mean(totals)
    assert data["total"]["n"] == 2 and data["total"]["partial"] == 1
    assert [s["name"] for s in data["submissions"]] == list(SCORES)
    assert [(s["partial"], s["missing"], s["review"]) for s in data["submissions"]] == [
        (False, [], []), (False, [], []), (True, ["9.2 lab09.inc"], [])]
    with open(out / "summary.csv", newline="") as fh:
        lines = list(csv.DictReader(fh))
    assert [(r["submission"], r["9.1 lab09.double"], r["9.2 lab09.inc"], r["total"], r["missing"], r["review"])
            for r in lines] == [(n, str(s["lab09.double"]), str(s.get("lab09.inc", "")), str(sum(s.values())),
                                 "" if len(s) == 2 else "task 9.2 lab09.inc", "") for n, s in SCORES.items()]
    assert (out / "summary.md").read_text() == md.split("\nwrote ")[0]


def test_histograms_are_valid_pngs_one_per_task_and_the_total(reports, capsys):
    from matplotlib import image

    tmp, paths = reports
    out = tmp / "hist"
    assert run_cli(grading.main, ["summary", *paths, "--out", str(out)]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in out.glob("*.png"))
    assert names == ["hist_9.1_lab09.double.png", "hist_9.2_lab09.inc.png", "hist_total.png"]
    for n in names:
        raw = (out / n).read_bytes()
        assert raw[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = image.imread(out / n)
        assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100
    assert not list(out.glob(".*tmp*"))  # no temporary file left behind


def test_bad_input_is_one_line_and_exit_2(reports, tmp_path, capsys):
    _, paths = reports
    (tmp_path / "other.json").write_text(json.dumps({"rows": [1, 2]}))
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "empty").mkdir()
    cases = {
        str(tmp_path / "nope.json"): f"error: {tmp_path / 'nope.json'}: no such file or folder",
        str(tmp_path / "other.json"): f"error: {tmp_path / 'other.json'}: not a Gradescope results.json (no "
                                      '"tests" list; want an object whose "tests" is a list of {"score", '
                                      '"max_score", "name"})',
        str(tmp_path / "broken.json"): f"error: {tmp_path / 'broken.json'}: not JSON (Expecting property name "
                                       "enclosed in double quotes, line 1); want a Gradescope results.json",
        str(tmp_path / "empty"): f"error: {tmp_path / 'empty'}: no <lab>/results.json in this folder (give a "
                                 "results.json or a make grade --out folder)",
    }
    for bad, line in cases.items():
        assert run_cli(grading.main, ["summary", paths[0], bad]) == 2
        captured = capsys.readouterr()
        assert captured.err.strip().splitlines() == [line]
    (tmp_path / "file").write_text("x")
    assert run_cli(grading.main, ["summary", paths[0], "--out", str(tmp_path / "file")]) == 2
    captured = capsys.readouterr()  # refused before the table is printed
    assert captured.out == "" and captured.err.strip().splitlines() == [
        f"error: --out {tmp_path / 'file'} is a file: give a folder"]


def test_python_m_common_grading_summary_runs(reports, tmp_path):
    _, paths = reports
    run = subprocess.run([sys.executable, "-m", "common.grading", "summary", *paths], cwd=PROJECT, env=env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "| alice | 4 | 3 | 7 |" in run.stdout, run.stdout + run.stderr
    bad = subprocess.run([sys.executable, "-m", "common.grading", "summary", str(tmp_path / "x.json")], cwd=PROJECT,
                         env=env(), capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [f"error: {tmp_path / 'x.json'}: no such file "
                                                                      "or folder"]


def test_a_lab_missing_from_a_report_is_missing_not_zero_and_warned(reports, tmp_path, capsys):
    """alice also has a lab08 report (a second lab): bob and carol lack it; their totals are partial, not
    mixed into the total's mean, and one warning line each names the report and the missing lab."""
    _, paths = reports
    alice = tmp_path / "alice"
    shutil.copytree(paths[0], alice)
    other = {"score": 3, "extra_data": {"lab": "lab08_other"},
             "tests": [{"name": "8.1 Other (lab08.other)", "number": "8.1", "score": 3, "max_score": 5,
                        "extra_data": {"task": "lab08.other"}}]}
    (alice / "lab08_other").mkdir()
    (alice / "lab08_other/results.json").write_text(json.dumps(other))
    assert run_cli(grading.main, ["summary", str(alice), *paths[1:]]) == 0
    captured = capsys.readouterr()
    warnings = captured.err.strip().splitlines()
    assert warnings == [
        f"warning: bob ({paths[1]}/lab09_demo/results.json): no grade for lab08_other; its total is partial "
        "(not in the total's mean, median and histogram)",
        f"warning: carol ({paths[2]}): no grade for lab08_other; task 9.2 lab09.inc; its total is partial "
        "(not in the total's mean, median and histogram)"]
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.strip("|").split("|")[1:]]
            for ln in captured.out.splitlines() if ln.startswith("| ")}
    assert rows["alice"] == ["3", "4", "3", "10", ""] and rows["bob"] == ["missing", "2", "4", "6 (partial)", ""]
    assert rows["**mean**"][-2] == "10"  # alice's alone: the one complete total


def test_file_reports_are_named_by_their_submission_and_a_collision_says_how_to_fix_it(reports, tmp_path, capsys):
    """Gradescope's results/results.json of two students and a --task report of a grade folder: each row named by
    its submission (they were all "results", silently merged into one row, or "results-lab09.double"); two reports
    of one name and task: the error says how to name them apart, and NAME=REPORT does."""
    _, paths = reports
    alice = json.loads((Path(paths[0]) / "lab09_demo/results.json").read_text())
    for name, score in (("dan", 1), ("erin", 2)):  # as run_autograder writes it: the labs merged, no "lab"
        p = tmp_path / "gradescope" / name / "results" / "results.json"
        p.parent.mkdir(parents=True)
        p.write_text(json.dumps(autograder.merge([{**alice, "tests": [{**t, "score": score} for t in alice["tests"]]}])))
    narrowed = tmp_path / "frank" / "lab09_demo" / "results-lab09.double.json"
    narrowed.parent.mkdir(parents=True)
    narrowed.write_text(json.dumps({**alice, "tests": alice["tests"][:1]}))
    dan, erin = (str(tmp_path / "gradescope" / n / "results" / "results.json") for n in ("dan", "erin"))
    assert run_cli(grading.main, ["summary", dan, erin, str(narrowed)]) == 0
    rows = [ln.split("|")[1].strip() for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")]
    assert rows[2:5] == ["dan", "erin", "frank"]
    twin = tmp_path / "other" / "dan" / "results" / "results.json"
    twin.parent.mkdir(parents=True)
    shutil.copy(dan, twin)
    assert run_cli(grading.main, ["summary", dan, str(twin)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: {twin}: a second report of submission 'dan' for task 9.1 lab09.double (the first: {dan}); if they are two "
        f"submissions, name each row: NAME={twin} (or give each its own folder)"]
    assert run_cli(grading.main, ["summary", dan, f"dan2={twin}"]) == 0
    rows = [ln.split("|")[1].strip() for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")]
    assert rows[2:4] == ["dan", "dan2"]


def test_a_lab_no_report_grades_is_named_with_its_points(tmp_path, capsys):
    """Reports of this course's Lab 01 only: Labs 02-04 are in neither the table nor its total, and the summary says
    so (a warning line and a line under the table), their points counted here from each tasks.toml."""
    import tomllib

    course = load_course(PROJECT)
    lab01 = course.lab("lab01")
    report = tmp_path / "alice" / lab01.dir / "results.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps(_results_json(lab01, {t.id: 0 for t in lab01.tasks})))
    assert run_cli(grading.main, ["summary", str(tmp_path / "alice")]) == 0
    captured = capsys.readouterr()
    others = sorted(p.parent.name for p in PROJECT.glob("*/tasks.toml") if p.parent.name != lab01.dir)
    points = {d: sum(t["points"] for t in tomllib.loads((PROJECT / d / "tasks.toml").read_text())["task"])
              for d in others}
    named = ", ".join(f"{d} ({points[d]} points)" for d in others)
    assert f"warning: no report grades {named}: the table and its total" in captured.err
    assert f"Not graded in any report (in neither the table nor its total): {named}." in captured.out
    alone = tmp_path / "bob" / "lab09_demo" / "results.json"  # a lab this course does not have: nothing said
    alone.parent.mkdir(parents=True)
    (lab,) = load_course(make_course(tmp_path / "demo")).labs
    alone.write_text(json.dumps(_results_json(lab, {"lab09.double": 1, "lab09.inc": 1})))
    assert run_cli(grading.main, ["summary", str(tmp_path / "bob")]) == 0
    assert "Not graded" not in capsys.readouterr().out


def test_a_grade_folder_narrowed_by_task_is_read_as_a_folder(reports, tmp_path, capsys):
    """make grade TASK=lab09.double writes only lab09_demo/results-lab09.double.json: the folder is a report (it was
    "no <lab>/results.json in this folder"); where the lab has its full results.json too, that one is read alone."""
    _, paths = reports
    alice = json.loads((Path(paths[0]) / "lab09_demo/results.json").read_text())
    frank = tmp_path / "frank"
    (frank / "lab09_demo").mkdir(parents=True)
    (frank / "lab09_demo/results-lab09.double.json").write_text(json.dumps({**alice, "tests": alice["tests"][:1]}))
    assert run_cli(grading.main, ["summary", str(frank), paths[1]]) == 0
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.strip("|").split("|")[1:]]
            for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")}
    assert rows["frank"] == [str(SCORES["alice"]["lab09.double"]), "missing", "4 (partial)", ""]
    (frank / "lab09_demo/results.json").write_text(json.dumps(alice))
    assert run_cli(grading.main, ["summary", str(frank)]) == 0
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.strip("|").split("|")[1:]]
            for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")}
    assert rows["frank"] == ["4", "3", "7", ""]


def test_a_lab_graded_task_by_task_joins_one_row_and_a_task_graded_twice_is_named(reports, tmp_path, capsys):
    """make grade TASK=lab09.double, then TASK=lab09.inc, into one folder: both results-<task>.json of the lab join
    the row (it was "a second report of submission 'gina' for lab09_demo ... if they are two submissions"); a third
    narrowed grade that holds lab09.double again is refused, naming both files and that they grade the same task."""
    _, paths = reports
    alice = json.loads((Path(paths[0]) / "lab09_demo/results.json").read_text())
    by_id = {t["extra_data"]["task"]: t for t in alice["tests"]}
    lab = tmp_path / "gina" / "lab09_demo"
    lab.mkdir(parents=True)
    for tid in ("lab09.double", "lab09.inc"):
        (lab / f"results-{tid}.json").write_text(json.dumps({**alice, "tests": [by_id[tid]]}))
    assert run_cli(grading.main, ["summary", str(tmp_path / "gina")]) == 0
    captured = capsys.readouterr()
    rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.strip("|").split("|")[1:]]
            for ln in captured.out.splitlines() if ln.startswith("| ")}
    want = SCORES["alice"]  # independent of the summary: the scores the fixture wrote
    assert rows["gina"] == [str(want["lab09.double"]), str(want["lab09.inc"]), str(sum(want.values())), ""]
    assert "partial" not in captured.out and "warning" not in captured.err
    both = lab / "results-lab09.double-lab09.inc.json"
    both.write_text(json.dumps(alice))
    assert run_cli(grading.main, ["summary", str(tmp_path / "gina")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "two submissions" not in err[0]
    assert str(both) in err[0] and str(lab / "results-lab09.double.json") in err[0] and "9.1 lab09.double" in err[0]
    (lab / "results.json").write_text(json.dumps(alice))  # the full report: read alone, the narrowed ones aside
    assert run_cli(grading.main, ["summary", str(tmp_path / "gina")]) == 0
    assert f"| gina | {want['lab09.double']} | {want['lab09.inc']} |" in capsys.readouterr().out
    lone = tmp_path / "hal" / "lab09_demo"
    lone.mkdir(parents=True)
    (lone / "results.json").write_text(json.dumps(alice))
    (lone / "results-lab09.inc.json").write_text(json.dumps({**alice, "tests": [by_id["lab09.inc"]]}))
    assert run_cli(grading.main, ["summary", str(lone / "results.json"), str(lone / "results-lab09.inc.json")]) == 2
    assert "a second report of submission 'hal' for lab09_demo" in capsys.readouterr().err


def test_a_regrade_narrowed_by_task_after_the_full_grade_is_named_not_silently_dropped(reports, tmp_path, capsys):
    """make grade SUB=ivy, then (a regrade request) make grade SUB=ivy TASK=lab09.double: the table keeps the lab's
    full results.json (as documented) but said nothing of the newer regrade; it is now named in a warning line and
    under the table. A narrowed grade older than the full one (superseded by it) is not named."""
    import os

    _, paths = reports
    alice = json.loads((Path(paths[0]) / "lab09_demo/results.json").read_text())
    lab = tmp_path / "ivy" / "lab09_demo"
    lab.mkdir(parents=True)
    full = lab / "results.json"
    full.write_text(json.dumps(alice))
    regrade = lab / "results-lab09.double.json"
    regrade.write_text(json.dumps({**alice, "tests": [{**alice["tests"][0], "score": 0}]}))
    os.utime(full, (1_000_000, 1_000_000))
    os.utime(regrade, (2_000_000, 2_000_000))
    assert run_cli(grading.main, ["summary", str(tmp_path / "ivy")]) == 0
    captured = capsys.readouterr()
    want = SCORES["alice"]
    assert f"| ivy | {want['lab09.double']} | {want['lab09.inc']} | {sum(want.values())} |" in captured.out
    assert [ln for ln in captured.err.splitlines() if str(regrade) in ln] == [
        f"warning: ivy: {regrade} is newer than its lab's results.json and not read (a regrade narrowed by --task; "
        "the row holds the lab's full report): regrade the whole lab to count it"]
    assert f"ivy: {regrade}" in captured.out.split("| **median** |")[1]
    assert run_cli(grading.main, ["summary", f"late={tmp_path / 'ivy'}"]) == 0
    assert f"warning: late: {regrade} is newer" in capsys.readouterr().err
    os.utime(regrade, (500_000, 500_000))  # older than the full grade: superseded, nothing to say
    assert run_cli(grading.main, ["summary", str(tmp_path / "ivy")]) == 0
    captured = capsys.readouterr()
    assert str(regrade) not in captured.err + captured.out


def test_a_report_given_twice_is_named_once_not_as_two_submissions(reports, tmp_path, capsys):
    """The same file or folder twice, or one file under two names: one line naming it (it was "a second report of
    submission 'alice' ... (the first: <the same path>)", and NAME= to tell two submissions apart)."""
    _, paths = reports
    alice = Path(paths[0])
    report = alice / "lab09_demo/results.json"
    (tmp_path / "link").symlink_to(alice)
    cases = {(str(report), str(report)): f"error: {report}: the same report given twice: give it once",
             (str(alice), str(alice)): f"error: {alice}: the same report given twice: give it once",
             (f"a={report}", f"a={report}"): f"error: a={report}: the same report given twice: give it once",
             (str(alice), str(tmp_path / "link")):
                 f"error: {tmp_path / 'link/lab09_demo/results.json'}: the same report given twice (as {alice} and as "
                 f"{tmp_path / 'link'}): give it once"}
    for args, line in cases.items():
        assert run_cli(grading.main, ["summary", *args]) == 2
        assert capsys.readouterr().err.strip().splitlines() == [line]


def test_submissions_to_review_are_flagged_in_every_output_and_clean_ones_are_not(reports, tmp_path, capsys):
    """The grader's ``extra_data.review`` (here written by :func:`grade.results_json` from a LabGrade that was not
    graded, had a file refused, or held no task file) and its ``ignored`` files make a ``review`` for the row: in
    the Markdown table's last column, the CSV, the JSON and one warning line each; they were plain 0 rows. A clean
    row, an older report without these fields and a plain Gradescope file show nothing."""
    _, paths = reports
    (lab,) = load_course(make_course(tmp_path / "course")).labs
    zero = [grade.TaskGrade(t) for t in lab.tasks]
    tampered = "lab09_demo/test_mod.py was changed in the grading tree while the lab's tests ran"
    refused = "lab09_demo/mod.py: imports pytest (the test framework) at line 3"
    grades = {"carol": grade.LabGrade(lab, zero, run=None, ignored=["conftest.py (not a student file)",
                                                                    "lab09_demo/test_mod.py (differs from the course's "
                                                                    "copy, which is used)"]),
              "carol2": grade.LabGrade(lab, zero, run=None, ignored=[], tampered=tampered),
              "carol3": grade.LabGrade(lab, zero, run=None, ignored=[f"{refused}: not graded, left as the handout's"],
                                       refused=[refused]),
              "dave": grade.LabGrade(lab, zero, run=None, ignored=[], no_task_file=True)}
    args = []
    for name, g in grades.items():
        p = tmp_path / "grades" / name / lab.dir / "results.json"
        p.parent.mkdir(parents=True)
        p.write_text(json.dumps(grade.results_json(g)))
        args.append(str(p.parent.parent))
    old = json.loads((Path(paths[1]) / "lab09_demo/results.json").read_text())  # bob's, as an older grader wrote it
    del old["extra_data"]["review"], old["extra_data"]["ignored"]
    (tmp_path / "old.json").write_text(json.dumps({**old, "extra_data": {**old["extra_data"], "review": "not a list"}}))
    plain = {"tests": [{"name": t["name"], "score": t["score"], "max_score": t["max_score"]} for t in old["tests"]]}
    (tmp_path / "plain.json").write_text(json.dumps(plain))
    merged = tmp_path / "gradescope/erin/results/results.json"  # run_autograder's file: the labs under "labs"
    merged.parent.mkdir(parents=True)
    merged.write_text(json.dumps(autograder.merge([grade.results_json(grades["carol2"])])))
    out = tmp_path / "out"
    assert run_cli(grading.main, ["summary", paths[0], *args, str(tmp_path / "old.json"), str(merged), "--out",
                                  str(out)]) == 0
    captured = capsys.readouterr()
    want = {"alice": [], "carol": ["2 file(s) ignored"], "carol2": [f"not graded: {tampered} (every task scores 0)"],
            "carol3": [refused, "1 file(s) ignored"], "dave": [grade.NO_TASK_FILE], "old": [],
            "erin": [f"not graded: {tampered} (every task scores 0)"]}
    rows = {ln.split("|")[1].strip(): ln.strip("|").split("|")[-1].strip()
            for ln in captured.out.splitlines() if ln.startswith("| ") and "**" not in ln and "---" not in ln}
    assert rows == {"submission": "review", **{n: "; ".join(r) for n, r in want.items()}}
    assert [ln for ln in captured.err.splitlines() if ": review: " in ln] == [
        f"warning: {n}: review: {'; '.join(r)}" for n, r in want.items() if r]
    assert {s["name"]: s["review"] for s in json.loads((out / "summary.json").read_text())["submissions"]} == want
    with open(out / "summary.csv", newline="") as fh:
        lines = list(csv.DictReader(fh))
    assert list(lines[0])[-2:] == ["missing", "review"]
    assert {r["submission"]: r["review"] for r in lines} == {n: "; ".join(r) for n, r in want.items()}
    assert run_cli(grading.main, ["summary", str(tmp_path / "plain.json")]) == 0  # a plain Gradescope file
    captured = capsys.readouterr()
    bob = SCORES["bob"]
    assert f"| plain | {bob['lab09.double']} | {bob['lab09.inc']} | {sum(bob.values())} |  |" in captured.out
    assert "review" not in captured.err
