"""The Gradescope bundle (:mod:`common.course.autograder`): its files, and its run_autograder run here, not on Gradescope.

The run test unpacks the real course's bundle (one lab: Lab 02, the smallest) into a folder laid out like
Gradescope's ``/autograder`` (``AUTOGRADER_ROOT``) and runs ``run_autograder`` on the handout of the lab (0 points)
and on the reference's file uploaded alone, as Gradescope's drag and drop delivers it (full marks).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile

import pytest

from common.course import autograder, content, grade, release
from common.course.fixtures import PROJECT, make_course, run_course
from common.course.tasks import load_course
from common.errors import UserError

TOP = {"score", "execution_time", "output", "output_format", "visibility", "stdout_visibility", "extra_data", "tests"}


def _names(path):
    with zipfile.ZipFile(path) as zf:
        return {i.filename: stat.S_IMODE(i.external_attr >> 16) for i in zf.infolist()}


def test_the_real_bundle_holds_the_reference_and_nothing_the_grader_does_not_read(tmp_path):
    course = load_course(PROJECT)
    b = autograder.write(PROJECT, tmp_path / "out")
    assert b.path == tmp_path / "out" / "autograder.zip" and b.labs == [lab.dir for lab in course.labs]
    names = _names(b.path)
    assert names["setup.sh"] == names["run_autograder"] == 0o755 and names["pyproject.toml"] == 0o644
    need = {"pyproject.toml", "requirements.lock", "conftest.py", "common/course/grade.py", "common/course/plugin.py",
            *course.student_files, *course.hidden_files, *(f for lab in course.labs for f in lab.graded_files)}
    assert need <= set(names), sorted(need - set(names))
    bad = [n for n in names if n.startswith(("results/", "data/", ".git/", "common/course/wrong/", "common/course/test_",
                                               "build/")) or "__pycache__" in n or n.endswith(".pyc")]
    assert bad == []
    with zipfile.ZipFile(b.path) as zf:
        reshape = zf.read("lab01_onnx/passes/reshape.py").decode()
        setup, run = zf.read("setup.sh").decode(), zf.read("run_autograder").decode()
    # the handout's stub, not the solution: a submission's code runs beside the unpacked zip and could read it
    assert 'raise NotImplementedTask("lab01.reshape")' in reshape and "### BEGIN SOLUTION" not in reshape
    with zipfile.ZipFile(b.path) as zf:
        assert not [n for n in course.student_files if "### BEGIN SOLUTION" in zf.read(n).decode()]
        assert "### BEGIN HIDDEN TESTS" in zf.read("lab01_onnx/test_lab.py").decode()  # hidden tests stay
    for script in (setup, run):
        assert subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True).returncode == 0
    assert f'"$PY" -m pip install -q --extra-index-url {autograder.TORCH_CPU_INDEX} -c "$SOURCE/requirements.lock"' \
        in setup and "python3.11 -m venv" in setup
    urls = set(re.findall(r"https?://\S+", setup + run))
    assert urls == {autograder.SPEC, autograder.TORCH_CPU_INDEX}  # nothing else is ever fetched
    assert autograder.TORCH_CPU_INDEX not in run and "PIP_NO_INDEX=1" in run and "HF_HUB_OFFLINE=1" in run
    assert "LABS=(lab01_onnx lab02_tvm lab03_mlir lab04_npu)" in run and "TIMEOUT=120" in run
    assert '"$PY" -m common.course --root "$SOURCE" grade "$WORK/submission"' in run
    first = b.path.read_bytes()
    autograder.write(PROJECT, tmp_path / "out")
    assert b.path.read_bytes() == first  # deterministic


def test_a_tree_without_git_leaves_out_caches_results_data_and_refuses_a_handout(tmp_path):
    ref = make_course(tmp_path / "ref")
    for junk in ("lab09_demo/__pycache__/mod.cpython-311.pyc", "results/lab09/t.md", "data/x.bin", ".git/HEAD",
                 ".hypothesis/examples/a", "common/course/wrong/x.toml", "lab09_demo/stale.pyc"):
        (ref / junk).parent.mkdir(parents=True, exist_ok=True)
        (ref / junk).write_text("x")
    b = autograder.write(ref, ref / "dist", labs=["lab09"], timeout_s=30)
    assert sorted(_names(b.path)) == ["lab09_demo/__init__.py", "lab09_demo/mod.py", "lab09_demo/tasks.toml",
                                      "lab09_demo/test_mod.py", "pyproject.toml", "run_autograder", "setup.sh"]
    assert autograder.write(ref, ref / "elsewhere").entries == b.entries  # the first zip is not in the second
    release.build(ref, tmp_path / "handout", git=False)
    with pytest.raises(UserError, match="has no '### BEGIN SOLUTION lab09.double' block"):
        autograder.write(tmp_path / "handout", tmp_path / "h-out")


def test_the_bundle_holds_stubs_yet_grades_a_solution_in_full_hidden_test_included(tmp_path):
    """No solution in the zip (a submission's code runs beside it and could read one); the grader run from the
    unpacked zip still scores the reference's answer 8/8, the hidden test's point included, and the handout 0."""
    ref = make_course(tmp_path / "ref")
    b = autograder.write(ref, tmp_path / "out", labs=["lab09"], timeout_s=30)
    source = tmp_path / "source"
    with zipfile.ZipFile(b.path) as zf:
        zf.extractall(source)
    assert "### BEGIN SOLUTION" not in (source / "lab09_demo/mod.py").read_text()
    assert "### BEGIN HIDDEN TESTS" in (source / "lab09_demo/test_mod.py").read_text()
    sub = tmp_path / "sub" / "lab09_demo"
    sub.mkdir(parents=True)
    shutil.copy(ref / "lab09_demo/mod.py", sub / "mod.py")
    (g,) = grade.grade(source, sub.parent)
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 4}
    (sub / "mod.py").write_text((source / "lab09_demo/mod.py").read_text())
    (g,) = grade.grade(source, sub.parent)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}


def test_layout_finds_a_nested_repository_and_files_uploaded_alone(tmp_path):
    course = load_course(make_course(tmp_path / "ref"))
    nested = tmp_path / "nested"
    (nested / "repo-main/lab09_demo").mkdir(parents=True)
    (nested / "repo-main/lab09_demo/mod.py").write_text("A = 1\n")
    (nested / "repo-main/results/big.onnx").parent.mkdir(parents=True)
    (nested / "repo-main/results/big.onnx").write_text("x")
    (nested / "repo-main/.git").mkdir()
    (nested / "repo-main/.git/HEAD").write_text("x")
    notes = autograder.layout(course, nested, tmp_path / "d1")
    assert notes == ["submission: the handout's layout found in repo-main/"]
    got = sorted(p.relative_to(tmp_path / "d1").as_posix() for p in (tmp_path / "d1").rglob("*") if p.is_file())
    assert got == ["lab09_demo/mod.py"]
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "mod.py").write_text("B = 2\n")
    assert autograder.layout(course, flat, tmp_path / "d2") == ["submission: mod.py graded as lab09_demo/mod.py"]
    assert (tmp_path / "d2/lab09_demo/mod.py").read_text() == "B = 2\n" and not (tmp_path / "d2/mod.py").exists()
    two = tmp_path / "two"
    for version in ("v1", "v2"):
        (two / version / "lab09_demo").mkdir(parents=True)
        (two / version / "lab09_demo/mod.py").write_text(f"V = {version!r}\n")
    assert autograder.layout(course, two, tmp_path / "d3") == [
        "submission: the handout's layout found in v1/",
        "warning: 2 folders hold task files: graded v1/, the first by name of those with the most task files (1 each: "
        "a tie broken alphabetically); not graded: v2/; hand in one"]


def test_a_lab_the_grader_did_not_write_is_listed_at_zero_with_the_reason(tmp_path):
    course = load_course(PROJECT)
    data = autograder.collect(course, tmp_path, ["lab02"], exit_status=2, log="x\nerror: no lab files\n", timeout_s=60)
    assert set(data) == TOP and data["score"] == 0 and data["extra_data"]["grader_exit_status"] == 2
    by = {t["number"]: t for t in data["tests"]}
    assert set(by) == {task.number for task in course.lab("lab02").tasks}  # every task of the lab, at 0
    t = by["2.1"]
    assert (t["score"], t["max_score"], t["status"]) == (0, course.task("2.1").points, "failed")
    assert all(x["score"] == 0 and x["status"] == "failed" for x in by.values())
    assert "the grader stopped (exit status 2)" in t["output"] and "no lab files" not in t["output"]
    assert data["output"].endswith("The grader's last lines:\nx\nerror: no lab files")  # once, not per task


def test_bad_input_is_one_error_line(tmp_path):
    bad = run_course("autograder", "--out", str(tmp_path / "o"), "--lab", "lab99")
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "error: no lab 'lab99' with tasks; labs: lab01_onnx, lab02_tvm, lab03_mlir, lab04_npu"]
    (tmp_path / "f").write_text("x")
    for out, want in ((tmp_path / "f", f"error: --out {tmp_path / 'f'} is a file: give a folder"),
                      (tmp_path / "f" / "sub", f"error: cannot create --out {tmp_path / 'f' / 'sub'}: Not a directory")):
        bad = run_course("autograder", "--out", str(out), "--lab", "lab02")
        assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [want]
    handout = release.build(PROJECT, tmp_path / "handout", git=False).out  # the real course: its hidden test file
    bad = run_course("--root", str(handout), "autograder", "--out", str(tmp_path / "o2"))
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        f"error: {handout} is a student handout (its hidden tests are absent): autograder is made from the "
        "instructor's reference (--root <its checkout>)"]


@pytest.fixture(scope="module")
def gradescope(tmp_path_factory):
    """The real course's bundle for Lab 02 (made by the command), unpacked as Gradescope's /autograder/source."""
    top = tmp_path_factory.mktemp("gradescope")
    run = run_course("autograder", "--out", str(top / "out"), "--lab", "lab02", "--timeout", "60")
    assert run.returncode == 0 and "grades lab02_tvm; 60 s per test" in run.stdout, run.stdout + run.stderr
    source = top / "bundle" / "source"
    with zipfile.ZipFile(top / "out" / "autograder.zip") as zf:
        zf.extractall(source)
    return source


def _run_autograder(source, tmp_path, files: dict[str, str]) -> tuple[subprocess.CompletedProcess, dict]:
    root = tmp_path / "autograder"
    shutil.copytree(source, root / "source")
    for rel, text in files.items():
        (root / "submission" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / rel).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=root, env=env, capture_output=True,
                         text=True, timeout=600)
    path = root / "results" / "results.json"
    assert path.is_file(), run.stdout + run.stderr
    return run, json.loads(path.read_text())


def test_run_autograder_scores_the_handout_zero(gradescope, tmp_path):
    course = load_course(PROJECT)
    rel = "lab02_tvm/schedule/tir_pass.py"
    stub = content.handout_text(course, rel, content.check(course))
    run, data = _run_autograder(gradescope, tmp_path, {rel: stub})
    assert run.returncode == 0, run.stdout + run.stderr
    assert set(data) == TOP and data["score"] == 0 and data["extra_data"]["timeout_s"] == 60
    assert data["extra_data"]["labs"]["lab02_tvm"]["hypothesis_seed"] == 0
    t = next(t for t in data["tests"] if t["number"] == "2.1")  # the other Lab 02 files are absent: stubs too
    assert (t["name"], t["score"], t["max_score"]) == ("2.1 Plan the reduction-loop interchange (lab02.reorder)", 0,
                                                       course.task("2.1").points)
    assert all(x["score"] == 0 for x in data["tests"])
    outcomes = {x["outcome"] for x in t["extra_data"]["tests"]}
    assert outcomes == {"not_implemented"} and "not implemented yet" in t["output"]


def test_run_autograder_gives_the_reference_uploaded_alone_full_marks(gradescope, tmp_path):
    rel = "lab02_tvm/schedule/tir_pass.py"
    run, data = _run_autograder(gradescope, tmp_path, {"tir_pass.py": (PROJECT / rel).read_text()})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "submission: tir_pass.py graded as lab02_tvm/schedule/tir_pass.py" in run.stdout
    lab = load_course(PROJECT).lab("lab02")
    total = sum(task.points for task in lab.tasks)
    by = {t["number"]: t["status"] for t in data["tests"]}
    points = load_course(PROJECT).task("2.1").points
    assert data["score"] == points and by["2.1"] == "passed"  # the one file uploaded; the other tasks stay stubs
    assert all(s == "failed" for n, s in by.items() if n != "2.1")
    assert data["output"] == f"{lab.title}: {points}/{total} points"  # nothing ignored
    assert data["extra_data"]["labs"]["lab02_tvm"]["ignored"] == []
