"""The labs' tasks.toml, their TASKS.md sheets, the course checks and the handout (``make student``)."""
from __future__ import annotations

import re
import subprocess

import pytest

from common.course import content, leaks, release, sheet, sources
from common.course.tasks import check_command, load_course
from common.docs import shown
from common.course.fixtures import MOD, PROJECT, TASKS, TESTS, make_course, run_course
from common.errors import UserError, run_cli


@pytest.fixture(scope="module")
def course():
    return load_course(PROJECT)


def test_the_course_has_its_tasks_in_number_order(course):
    assert list(course.tasks) == ["lab01.reshape", "lab01.identity", "lab01.gather", "lab01.export", "lab01.gate",
                                  "lab02.reorder", "lab02.passes", "lab02.cross", "lab02.manual", "lab02.tune",
                                  "lab03.build", "lab03.unroll", "lab03.jit", "lab03.lower", "lab04.static",
                                  "lab04.coverage"]
    assert [t.number for t in course.tasks.values()] == ["1.1", "1.2", "1.3", "1.4", "1.5", "2.1", "2.2", "2.3", "2.4",
                                                         "2.5", "3.1", "3.2", "3.3", "3.4", "4.1", "4.2"]
    assert all(t.points > 0 and t.files and t.functions and t.tests for t in course.tasks.values())
    assert course.student_files == ("lab01_onnx/passes/reshape.py", "lab01_onnx/passes/identity.py",
                                    "lab01_onnx/passes/gather.py", "lab01_onnx/export_bugs.py", "lab01_onnx/quantize.py",
                                    "lab02_tvm/schedule/tir_pass.py", "lab02_tvm/graph/passes.py",
                                    "lab02_tvm/targets/cross.py", "lab02_tvm/schedule/manual.py", "lab02_tvm/tuning/budget.py",
                                    "lab03_mlir/builder.py", "lab03_mlir/unroll.py", "lab03_mlir/memref.py",
                                    "lab03_mlir/bufferization.py", "lab04_npu/qnn.py", "lab04_npu/coverage.py")


def test_committed_task_sheets_are_up_to_date(course):
    assert sheet.stale(course) == [], "TASKS.md is stale: run `python -m common.course sheet`"
    assert run_course("sheet", "--check").returncode == 0


def test_sheet_lists_every_task_with_points_and_how_to_check(course):
    text = sheet.render_lab(course.lab("lab01"), course.root)
    assert text == sheet.render_lab(course.lab("lab01_onnx"), course.root)  # deterministic, no date
    # Lab 01's hidden tests are blocks in test_lab.py (no hidden file): its sheet says they exist; Lab 02 has none
    assert "also runs graded tests your handout does not hold" in text and "no hidden tests" not in text
    assert "This lab has no hidden tests" in sheet.render_lab(course.lab("lab02"), course.root)
    assert "| 1.1 | Fuse consecutive Reshapes (`lab01.reshape`) | 41 |" in text
    assert "## Task 1.3: Fold constant Gathers (`lab01.gather`, 50 points)" in text
    assert "`.venv/bin/python -m pytest --task lab01.identity`" in text and "**total** | **148**" in text
    assert "`pytest --task" not in text  # a bare pytest is the system's: it cannot load the course plugin
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text)


NUMBER_WORDS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                            "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                            "sixteen", "seventeen", "eighteen"))}


def quoted_points(text: str) -> dict[str, list[tuple[int | None, int]]]:
    """The points a README quotes: ``"totals"`` from "sixteen tasks, 322 points" (tasks None when not said,
    as in "student tasks (34 points"), and per task id from "`lab04.static` (12 points)"."""
    flat = " ".join(text.split())
    totals = [(int(n) if n.isdigit() else NUMBER_WORDS[n.lower()], int(p))
              for n, p in re.findall(r"\b(\w+) tasks, (\d+) points", flat)]
    totals += [(None, int(p)) for p in re.findall(r"tasks \((\d+) points", flat)]
    out = {"totals": totals}
    for task, p in re.findall(r"`(lab\d\d\.\w+)` \((\d+) points\)", flat):
        out.setdefault(task, []).append((None, int(p)))
    return out


def test_the_readmes_quote_the_points_of_tasks_toml(course):
    """Every "N tasks, M points" of the root README (the course) and of a lab's README (that lab), and every
    "`<task id>` (N points)", is what the tasks.toml files say: a point changed in a tasks.toml and not in the
    prose fails here (the root README had kept 257 points through three changes)."""
    def want(tasks):
        return (len(tasks), sum(t.points for t in tasks))

    quoted = quoted_points((PROJECT / "README.md").read_text())
    assert quoted["totals"] and all(n in (None, want(course.tasks.values())[0]) and p == want(course.tasks.values())[1]
                                    for n, p in quoted["totals"]), (quoted["totals"], want(course.tasks.values()))
    for lab in course.labs:
        quoted = quoted_points((PROJECT / lab.dir / "README.md").read_text())
        assert quoted["totals"], f"{lab.dir}/README.md quotes no task total"
        n_want, p_want = want(lab.tasks)
        assert all(n in (None, n_want) and p == p_want for n, p in quoted["totals"]), (lab.dir, quoted["totals"])
        for task in lab.tasks:
            assert all(p == task.points for _, p in quoted.get(task.id, [])), (task.id, quoted[task.id], task.points)


def test_the_readme_quotes_the_number_of_known_wrong_submissions():
    """The root README's "(`common/course/wrong/`, N: ..." is the number of known-wrong files the gate grades (it
    had kept 31 through two mutant hunts that brought 19 more)."""
    quoted = re.findall(r"`common/course/wrong/`, (\d+):", (PROJECT / "README.md").read_text())
    assert quoted and all(int(n) == len(list((PROJECT / "common/course/wrong").glob("*.toml"))) for n in quoted)


def test_readme_point_quotes_are_read():
    got = quoted_points("Four tasks, 83 points: and sixteen\n  tasks, 322 points; student tasks (34 points; "
                        "| 4.1 `lab04.static` (12 points) |")
    assert got == {"totals": [(4, 83), (16, 322), (None, 34)], "lab04.static": [(None, 12)]}


def test_every_check_runs_the_venv_pytest_even_one_written_as_bare_pytest(course):
    assert all(t.check.startswith(".venv/bin/python -m pytest ") for t in course.tasks.values())
    # lab03_mlir/tasks.toml spells this check "pytest --task lab03.build"
    assert course.tasks["lab03.build"].check == ".venv/bin/python -m pytest --task lab03.build"
    assert check_command("pytest") == ".venv/bin/python -m pytest"
    assert check_command("make test") == "make test" and check_command("pytestx -q") == "pytestx -q"


def test_the_reference_passes_the_course_checks(course):
    scan = content.check(course)
    assert set(scan.graded) == set(course.tasks)
    assert {b.function for bs in scan.blocks.values() for b in bs if b.kind == "SOLUTION"} >= {
        "fuse_at", "AffineLoopUnroll.unroll_loop", "_block_plan", "_linalg_body"}


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace("points = 4\n", "", 1), "task 'lab09.double' has no points"),
    (lambda t: t.replace("points = 4\n", "points = 0\n", 1), "has no points (points = 0)"),
    (lambda t: t.replace('title = "Double"', 'title = "Double"\ncolour = "red"'), "unknown key 'colour'"),
    (lambda t: t.replace('files = ["lab09_demo/mod.py"]', 'files = ["lab09_demo/nope.py"]', 1), "no file lab09_demo/nope.py"),
    (lambda t: t.replace('id = "lab09.inc"', 'id = "lab09.double"'), "'lab09.double' is used twice"),
    (lambda t: t.replace('id = "lab09.inc"', 'id = "Inc"'), "id must be dotted lower-case words"),
    (lambda t: t.replace('points = 4', 'points = "4"', 1), "points must be an integer"),
    (lambda t: t.replace('title = "Double"', 'title = "Double"\nnative = ["ctypes"]'), "native must be a bool"),
])
def test_bad_tasks_toml_is_one_line(tmp_path, edit, words):
    make_course(tmp_path, tasks=edit(TASKS))
    with pytest.raises(UserError) as err:
        load_course(tmp_path)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("mod, tests, words", [
    (MOD, TESTS.replace('task("lab09.inc", points=3)', 'task("lab09.incr", points=3)'),
     "@pytest.mark.task('lab09.incr'): unknown task id"),
    (MOD, TESTS.replace('task("lab09.inc", points=3)', 'task("lab09.inc", points=0)'), "points must be a positive integer"),
    (MOD, TESTS.replace('@pytest.mark.task("lab09.inc", points=3)\n', "").replace(
        '@pytest.mark.task("lab09.inc", points=1)\n', ""), "task lab09.inc (lab09_demo/tasks.toml) has no graded test"),
    (MOD.replace("def inc(self, x)", "def incr(self, x)"), TESTS, "its solution blocks are in ['Box.incr']"),
    (MOD.replace("### BEGIN SOLUTION lab09.inc\n        return x + 1\n        ### END SOLUTION\n", "return x + 1\n"),
     TESTS, "has no '### BEGIN SOLUTION lab09.inc' block"),
])
def test_bad_course_makes_student_refuse_with_one_line(tmp_path, capsys, mod, tests, words):
    make_course(tmp_path / "ref", mod=mod, tests=tests)
    from common.course.__main__ import main
    rc = run_cli(main, ["--root", str(tmp_path / "ref"), "student", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and err.startswith("error: ") and words in err, err
    assert not (tmp_path / "out").exists()


def test_handout_is_one_commit_with_stubs_and_no_hidden_test(tmp_path):
    ref = make_course(tmp_path / "ref")
    h = release.build(ref, tmp_path / "out")
    out = tmp_path / "out"
    assert h.stubs == {"lab09.double": 1, "lab09.inc": 1} and h.hidden_blocks == 1
    log = subprocess.run(["git", "-C", str(out), "log", "--format=%s"], capture_output=True, text=True).stdout
    assert log.splitlines() == [release.COMMIT_MESSAGE]
    text = (out / "lab09_demo/mod.py").read_text()
    assert 'raise NotImplementedTask("lab09.double")' in text and "return 2 * x" not in text
    assert "test_inc_hidden" not in (out / "lab09_demo/test_mod.py").read_text()
    assert leaks.leak_scan(ref, out) == []
    release.build(ref, out)  # a handout it wrote is replaced
    (out / "lab09_demo/extra.py").write_text("    return 2 * x\n")
    assert any("a line of solution code" in p for p in leaks.leak_scan(ref, out))


def test_student_refuses_to_overwrite_a_folder_it_did_not_write(tmp_path):
    ref = make_course(tmp_path / "ref")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(UserError, match="is not a handout written by this command"):
        release.build(ref, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_real_handout_leaves_out_the_instructor_files(course, tmp_path):
    plan = content.plan(course)
    assert not [p for p in plan if p.startswith(sources.INSTRUCTOR_ONLY) or p in course.hidden_files]
    assert not [p for p in plan if sources.is_binary_result(p)]
    assert "lab03_mlir/test_task_unroll_hidden.py" not in plan and "lab01_onnx/TASKS.md" in plan
    assert b"### BEGIN SOLUTION" not in plan["lab03_mlir/unroll.py"]
    assert not {"common/mutation_equivalents.toml", "results/mutation_survivors.md", "results/mutation.md",
                "common/test_mutation.py", "common/course/conftest.py"} & set(plan)  # it imports fixtures.py
    # Task 3.4's answer is in no given file: the SPIR-V step takes its pipeline from the task's function
    for rel in ("lab03_mlir/spirv/lowering.py", "lab03_mlir/test_lab.py"):
        assert b"one-shot-bufferize{" not in plan[rel] and b"hoist-static-allocs" not in plan[rel], rel
    readme = plan["README.md"].decode()  # the student's README names no file the handout leaves out
    assert "common/course/wrong/" not in readme and "test_gate.py" not in readme and "mutation_survivors" not in readme
    assert "<!--" not in readme.split("## The course edition", 1)[1].split("\n## ", 1)[0]
    assert "needs a task you have not written yet" in readme and "--skip-" in readme
    # the make targets that publish the course live in course.mk: the handout's Makefile grades, it does not publish
    assert "course.mk" not in plan and "common.course gate" not in plan["Makefile"].decode()
    mk = tmp_path / "Makefile"
    mk.write_bytes(plan["Makefile"])
    targets = shown.make_targets(mk)
    assert "grade" in targets and not {"student", "summary", "autograder", "classroom"} & targets
    assert {"student", "summary", "autograder", "classroom", "grade"} <= shown.make_targets()  # the reference's
