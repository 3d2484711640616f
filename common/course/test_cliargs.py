"""The course commands' bad input (:mod:`common.course.cliargs`): where they write is checked before any work, in one
``error:`` line, and a failed command leaves nothing behind and loses nothing (on the demo course of
:mod:`common.course.fixtures`, and the real course where the error comes before any work)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from common.course import release
from common.course.fixtures import PROJECT, TASKS, TESTS, env, make_course, make_demo, run_course
from common.errors import UserError

HINT = "give the folder holding the lab files"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo course and its handout (a git repository, as ``make student`` writes it)."""
    return make_demo(tmp_path_factory.mktemp("cliargs"), git=True)


def _lines(run: subprocess.CompletedProcess) -> list[str]:
    return run.stderr.strip().splitlines()


def test_gate_json_is_checked_before_the_gate_runs(demo, tmp_path):
    """A folder or a path under a file as --json: one line, and the gate never started (it prints its table last; on
    the demo course its first step had stopped on the real course's wrong submissions: the check comes first)."""
    ref, _ = demo
    (tmp_path / "f").write_text("x")
    for target, line in ((tmp_path, f"error: --json {tmp_path} is a folder: give a file name (such as "
                                     f"{tmp_path / 'gate.json'})"),
                         (tmp_path / "f" / "g.json", f"error: cannot create --json {tmp_path / 'f' / 'g.json'}: "
                                                     f"{tmp_path / 'f'} is a file, not a folder")):
        run = run_course("--root", str(ref), "gate", "--json", str(target))
        assert (run.returncode, _lines(run), run.stdout) == (2, [line], "")


def test_student_out_that_is_a_file_or_under_one_is_one_line(demo, tmp_path):
    ref, _ = demo
    (tmp_path / "f").write_text("x")
    run = run_course("--root", str(ref), "student", "--out", str(tmp_path / "f"))
    assert (run.returncode, _lines(run)) == (2, [f"error: --out {tmp_path / 'f'} is a file: give a folder"])
    run = run_course("--root", str(ref), "student", "--out", str(tmp_path / "f" / "sub"))
    assert (run.returncode, _lines(run)) == (2, [f"error: cannot create --out {tmp_path / 'f' / 'sub'}: "
                                                 f"{tmp_path / 'f'} is a file, not a folder"])
    assert (tmp_path / "f").read_text() == "x"
    # a folder the file system refuses although the checks before the work pass (root may write anywhere but /proc)
    run = run_course("--root", str(ref), "student", "--out", "/proc/no-such-pid/handout")
    assert run.returncode == 2 and len(_lines(run)) == 1 and "Traceback" not in run.stderr, run.stderr
    assert re.match(r"error: cannot (create|write to) --out /proc/no-such-pid/handout", _lines(run)[0]), _lines(run)


@pytest.mark.parametrize("cmd", [["autograder", "--lab", "lab04"], ["classroom"], ["grade", "{sub}"]])
def test_out_holding_the_references_own_files_is_refused(cmd, tmp_path):
    """--out . (the repository root) or a lab folder: the bundle had left the reference out of itself (a misleading
    "no solution block" error), the grade and the workflow had written among the reference's files."""
    (tmp_path / "sub").mkdir()
    args = [a.format(sub=tmp_path / "sub") for a in cmd]
    for out, first in ((PROJECT, ".ci/run"), (PROJECT / "lab04_npu", "lab04_npu/")):
        run = run_course(*args, "--out", str(out))
        what = "the graded course tree" if cmd[0] == "grade" else "the reference"
        assert run.returncode == 2 and len(_lines(run)) == 1, run.stderr
        assert _lines(run)[0].startswith(f"error: --out {out} holds {what}'s own files (such as {first}"), run.stderr
    assert not (PROJECT / "autograder.zip").exists() and not (PROJECT / "lab04_npu" / "lab04_npu").exists()


def test_student_over_a_handout_refuses_to_lose_files_it_did_not_write(demo, tmp_path):
    """A student's file, a grade report under build/ (ignored by git), an edited file: named, nothing replaced;
    caches do not count, and once the files are gone the handout is rewritten."""
    ref, _ = demo
    out = tmp_path / "handout"
    shutil.copytree(demo[1], out)
    (out / "mywork.txt").write_text("mine")
    (out / "build/grade/me").mkdir(parents=True)
    (out / "build/grade/me/results.md").write_text("report")
    (out / "lab09_demo/__pycache__").mkdir()
    (out / "lab09_demo/__pycache__/mod.cpython-311.pyc").write_bytes(b"x")
    (out / "lab09_demo/mod.py").write_text("# my answer\n")
    run = run_course("--root", str(ref), "student", "--out", str(out))
    assert (run.returncode, _lines(run)) == (2, [
        f"error: {out} holds 3 file(s) the handout did not write or that changed since (they would be lost): "
        "build/grade/me/results.md, lab09_demo/mod.py, mywork.txt; move them out or pick another --out"])
    assert (out / "mywork.txt").read_text() == "mine" and (out / "lab09_demo/mod.py").read_text() == "# my answer\n"
    shutil.rmtree(out / "build")
    (out / "mywork.txt").unlink()
    subprocess.run(["git", "-C", str(out), "checkout", "-q", "--", "lab09_demo/mod.py"], check=True)
    run = run_course("--root", str(ref), "student", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert release.is_handout(out) and not (out / "lab09_demo/__pycache__").exists()


def test_student_over_a_handout_keeps_its_venv(demo, tmp_path, monkeypatch):
    """Publishing again over a handout replaced the whole folder, and the student's .venv in it (gigabytes, or a
    link to one) went with it, unnamed; it is kept: a folder moved into the new handout with its files, a link
    still a link to the same place, and kept as well when the command fails (a leak: nothing replaced)."""
    ref, _ = demo
    out = tmp_path / "handout"
    shutil.copytree(demo[1], out)
    (out / ".venv/bin").mkdir(parents=True)
    (out / ".venv/bin/python").write_text("#!/bin/sh\n")
    before = (out / ".git").stat().st_ino
    run = run_course("--root", str(ref), "student", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert (out / ".git").stat().st_ino != before and (out / ".venv/bin/python").read_text() == "#!/bin/sh\n"
    shutil.rmtree(out / ".venv")
    (out / ".venv").symlink_to(tmp_path / "elsewhere")
    assert run_course("--root", str(ref), "student", "--out", str(out)).returncode == 0
    assert os.readlink(out / ".venv") == str(tmp_path / "elsewhere")
    assert not list(tmp_path.glob(".handout.venv-kept"))

    def full_disk(*a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(release, "write_tree", full_disk)
    with pytest.raises(UserError, match="writing the handout failed"):
        release.build(ref, out)
    assert os.readlink(out / ".venv") == str(tmp_path / "elsewhere") and release.is_handout(out)


def test_grade_of_a_zip_a_file_or_nothing_is_one_line_and_makes_no_out(demo, tmp_path):
    """The line says what SUB is and what to do; the make hint only under make; no --out folder is left behind,
    nor one for a bad --lab or --task."""
    ref, handout = demo
    with zipfile.ZipFile(tmp_path / "alice.zip", "w") as zf:
        zf.write(handout / "lab09_demo/mod.py", "lab09_demo/mod.py")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "sub").mkdir()
    zipped = tmp_path / "alice.zip"
    cases = {
        (str(zipped),): f"error: {zipped} is a zip file, not a folder: unzip it (unzip {zipped} -d <folder>) and "
                        "grade the folder it makes",
        (str(tmp_path / "notes.txt"),): f"error: {tmp_path / 'notes.txt'} is a file, not a folder: {HINT}",
        (str(tmp_path / "nope"),): f"error: no submission folder {tmp_path / 'nope'}: {HINT}",
        (str(tmp_path / "sub"), "--lab", "lab99"): "error: no lab 'lab99' with tasks; labs: lab09_demo",
        (str(tmp_path / "sub"), "--task", "9.9"): "error: unknown task '9.9'; known: lab09.double, lab09.inc",
    }
    for i, (args, line) in enumerate(cases.items()):
        out = tmp_path / f"out{i}" / "deeper"
        run = run_course("--root", str(ref), "grade", *args, "--out", str(out))
        assert (run.returncode, _lines(run)) == (2, [line])
        assert not (tmp_path / f"out{i}").exists()
    run = subprocess.run([sys.executable, "-m", "common.course", "--root", str(ref), "grade", str(tmp_path / "nope")],
                         cwd=PROJECT, env={**env(), "MLC_GRADE_VIA": "make"}, capture_output=True, text=True, timeout=120)
    assert _lines(run) == [f"error: no submission folder {tmp_path / 'nope'}: make grade SUB=<the folder holding "
                           "your lab files>"]  # under make, the hint names make's variable


def test_the_empty_warning_names_a_file_of_the_lab_graded(tmp_path):
    """Two labs; grading lab09 of an empty folder names lab09's file (it named the course's first file: lab08's)."""
    ref = make_course(tmp_path / "ref")
    lab8 = ref / "lab08_demo"
    shutil.copytree(ref / "lab09_demo", lab8)
    for name, text in (("tasks.toml", TASKS), ("test_mod.py", TESTS)):
        (lab8 / name).write_text(text.replace("lab09", "lab08").replace('"9.', '"8.').replace("Lab 09", "Lab 08"))
    (lab8 / "mod.py").write_text((lab8 / "mod.py").read_text().replace("lab09", "lab08"))
    (tmp_path / "empty").mkdir()
    run = run_course("--root", str(ref), "grade", str(tmp_path / "empty"), "--lab", "lab09", "--out",
                     str(tmp_path / "out"), "--timeout", "30")
    assert run.returncode == 0, run.stderr
    assert (f"warning: {tmp_path / 'empty'} holds none of the task files graded here (such as lab09_demo/mod.py, up to "
            "three folders down): every task graded scores 0") in _lines(run)
    assert json.loads((tmp_path / "out/lab09_demo/results.json").read_text())["score"] == 0


def test_the_commands_have_no_v_and_gate_in_a_handout_says_where_it_runs(demo):
    for module in ("common.course", "common.grading"):
        run = subprocess.run([sys.executable, "-m", module, "--help"], cwd=PROJECT, env=env(), capture_output=True,
                             text=True, timeout=120)
        assert "--verbose" not in run.stdout and "IR after each stage" not in run.stdout, run.stdout  # no -v here
    handout = demo[1]
    (handout / "lab09_demo/tasks.toml").write_text(  # a hidden test file the handout lacks: it is a handout
        (handout / "lab09_demo/tasks.toml").read_text().replace(
            'title = "Lab 09: demo"\n', 'title = "Lab 09: demo"\nhidden_tests = ["lab09_demo/test_hidden.py"]\n'))
    try:
        run = run_course("--root", str(handout), "gate")
        assert (run.returncode, _lines(run)) == (2, [
            f"error: {handout} is a student handout (its hidden tests are absent): the release gate runs in the "
            "instructor's reference repository: run it there (or give --root <its checkout>)"])
    finally:
        subprocess.run(["git", "-C", str(handout), "checkout", "-q", "--", "lab09_demo/tasks.toml"], check=True)


def test_grading_a_second_submission_into_the_first_ones_out_is_refused_and_loses_nothing(demo, tmp_path):
    """bob graded into alice's --out (a copied command): it replaced alice's report lab by lab, and a summary of the
    folder then mixed two students in one row. Now one line, alice's report untouched; alice regraded there is fine."""
    ref, handout = demo
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    shutil.copytree(handout, alice, ignore=shutil.ignore_patterns(".git"))
    shutil.copytree(handout, bob, ignore=shutil.ignore_patterns(".git"))
    out = tmp_path / "grades" / "alice"
    run = run_course("--root", str(ref), "grade", str(alice), "--out", str(out), "--timeout", "30")
    assert run.returncode == 0, run.stderr
    report = (out / "lab09_demo/results.json").read_bytes()
    run = run_course("--root", str(ref), "grade", str(bob), "--out", str(out), "--timeout", "30")
    assert (run.returncode, _lines(run)) == (2, [
        f"error: --out {out} holds the grade of another submission ({alice}): give each submission its own --out "
        f"(the default is build/grade/<its folder name>), or delete {out / '.submission'} to replace it"])
    assert (out / "lab09_demo/results.json").read_bytes() == report
    run = run_course("--root", str(ref), "grade", f"{alice}/", "--out", str(out), "--timeout", "30")
    assert run.returncode == 0, run.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="no make program")
def test_make_grade_and_autograder_pass_each_lab_and_task_of_a_list():
    """``make grade TASK="lab01.gate lab01.export"`` ran ``--task lab01.gate lab01.export``: argparse refused the second
    as an unrecognized argument. Each word (or comma-separated item) of LAB and TASK is now its own flag; make -n
    prints the command without running it (-o setup: no install)."""
    import shlex

    def words(*assignments: str, target: str = "grade") -> list[str]:
        run = subprocess.run(["make", "-n", "-s", "-o", "setup", "-C", str(PROJECT), target, "SUB=subs/x", *assignments],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        return shlex.split(run.stdout.replace("\\\n", " "))

    got = words("TASK=lab01.gate lab01.export", "LAB=lab01,lab04")
    flags = [(w, got[i + 1]) for i, w in enumerate(got) if w in ("--task", "--lab")]
    assert flags == [("--lab", "lab01"), ("--lab", "lab04"), ("--task", "lab01.gate"), ("--task", "lab01.export")]
    assert "--task" not in words() and "--lab" not in words()  # nothing given: the whole course
    ag = words("LAB=lab01 lab04", target="autograder")
    assert [ag[i + 1] for i, w in enumerate(ag) if w == "--lab"] == ["lab01", "lab04"]
