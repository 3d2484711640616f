"""What the handout ships (:mod:`common.course.release`): tracked files only, no instructor data, Markdown
for the student, and ``make student`` refusing a handout the leak scan finds anything in (on the demo course
of :mod:`common.course.fixtures`; the real course's handout is checked by the release gate)."""
from __future__ import annotations

import subprocess

import pytest

from common.course import content, leaks, lint, markers, release, sources
from common.course.__main__ import main
from common.course.fixtures import MOD, TASKS, make_course
from common.course.grade import Reference
from common.course.tasks import load_course
from common.errors import GateFailed, UserError, run_cli

#: A solution line long enough for the substring scan (the demo's ``return 2 * x`` is an idiom).
LINE = "doubled_value = x + x if x is not None else 0"
MOD_LONG = MOD.replace("    return 2 * x\n    ### END SOLUTION",
                       f"    {LINE}\n    return doubled_value\n    ### END SOLUTION")


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
                    *args], check=True, capture_output=True, timeout=60)


def test_untracked_files_never_ship_and_are_named_in_one_warning_line(tmp_path):
    ref = make_course(tmp_path / "ref")
    (ref / ".gitignore").write_text("scratch/\n")
    _git(ref, "init", "-q")
    _git(ref, "add", "-A")
    _git(ref, "commit", "-q", "-m", "ref")
    alice = ref / "submissions" / "alice" / "lab09_demo"
    alice.mkdir(parents=True)
    (alice / "mod.py").write_text(MOD)  # a student's answer, with the markers: the reference's check would choke
    for i in range(6):
        (ref / f"notes{i}.txt").write_text("mine")
    (ref / "scratch").mkdir()
    (ref / "scratch" / "x.txt").write_text("ignored")
    assert sources.source_files(ref) == [".gitignore", "lab09_demo/__init__.py", "lab09_demo/mod.py",
                                         "lab09_demo/tasks.toml", "lab09_demo/test_mod.py", "pyproject.toml"]
    assert sources.untracked_files(ref) == [*(f"notes{i}.txt" for i in range(6)),
                                            "submissions/alice/lab09_demo/mod.py"]
    warned = []
    h = release.build(ref, tmp_path / "out", warn=warned.append)
    shipped = sorted(p.relative_to(h.out).as_posix() for p in h.out.rglob("*") if p.is_file() and ".git" not in p.parts)
    assert not [p for p in shipped if p.startswith(("submissions/", "notes", "scratch/"))], shipped
    assert warned == ["warning: 7 untracked file(s) not in the handout (only files git tracks ship; git add them to "
                      "ship them): notes0.txt, notes1.txt, notes2.txt, notes3.txt, notes4.txt, ... (2 more)"]
    assert h.untracked == sources.untracked_files(ref)
    # grading against a reference with a submission inside it reads the reference's tracked files only
    assert not [f for f in Reference.load(ref).files if f.startswith("submissions/")]


def test_no_warning_without_untracked_files_or_outside_git(tmp_path):
    ref = make_course(tmp_path / "ref")
    warned = []
    release.build(ref, tmp_path / "out", git=False, warn=warned.append)
    assert warned == [] and sources.untracked_files(ref) == [] and sources.untracked_warning([]) is None


def test_student_fails_with_one_line_per_leak_and_writes_nothing(tmp_path, capsys):
    ref = make_course(tmp_path / "ref", mod=MOD_LONG)
    (ref / "lab09_demo" / "equivalents.toml").write_text(f'[[equivalent]]\nbefore = "{LINE}"\nwhy = "same"\n')
    respaced = LINE.replace(" = ", "=").replace(" + ", "+")  # spacing changed: still the solution's line
    (ref / "lab09_demo" / "helper.py").write_text(f"def twice(x):\n    {respaced}\n    return doubled_value\n")
    rc = run_cli(main, ["--root", str(ref), "student", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and not (tmp_path / "out").exists(), err
    assert err[0].startswith("gate failed: the leak scan found 2 problem(s) in the handout")
    assert err[1:] == [f"lab09_demo/equivalents.toml:2: holds a line of solution code: {LINE!r}",
                       f"lab09_demo/helper.py:2: holds a line of solution code: {LINE!r}"]
    with pytest.raises(GateFailed):
        release.build(ref, tmp_path / "out2", git=False)
    release.build(ref, tmp_path / "out3", git=False, leak_check=False)  # the gate's way: it scans on its own
    assert len(leaks.leak_scan(ref, tmp_path / "out3")) == 2


def test_the_substring_scan_spares_hints_idioms_and_the_task_files_given_code(tmp_path):
    tasks = TASKS.replace('hints = ["Multiply."]', f'hints = ["`{LINE}` works."]')
    ref = make_course(tmp_path / "ref", mod=MOD_LONG, tasks=tasks)
    (ref / "lab09_demo" / "TASKS.md").write_text(f"hint: `{LINE}`\n")
    (ref / "lab09_demo" / "other.py").write_text("def f(doubled_value):\n    return doubled_value\n")  # an idiom
    release.build(ref, tmp_path / "out", git=False)
    assert leaks.leak_scan(ref, tmp_path / "out") == []
    assert leaks.substring_secret(LINE) and not leaks.substring_secret("return some_long_variable_name_here")
    assert not leaks.substring_secret("# " + LINE) and not leaks.substring_secret("x" * 24)


def test_instructor_files_and_markdown_spans(tmp_path):
    ref = make_course(tmp_path / "ref")
    for rel in ("common/mutation_equivalents.toml", "results/mutation_survivors.md", "common/test_mutation.py",
                "common/course/wrong/a.toml"):
        (ref / rel).parent.mkdir(parents=True, exist_ok=True)
        (ref / rel).write_text("x = 1\n")
    (ref / "README.md").write_text("# Demo\n\nshared\n\n<!-- instructor -->\nsee `common/course/wrong/`\n"
                                   "<!-- /instructor -->\n\n<!-- student\nyour handout\n-->\n\nend\n")
    course = load_course(ref)
    scan = content.check(course)
    plan = content.plan(course, scan)
    assert not [p for p in plan if p.startswith(("common/", "results/"))], sorted(plan)
    assert plan["README.md"] == b"# Demo\n\nshared\n\nyour handout\n\nend\n"
    # the grader reads the spans from the scan: the handout's README is the given one, not an edit of it
    assert [b.kind for b in scan.blocks["README.md"]] == [markers.INSTRUCTOR, markers.STUDENT]
    assert content.handout_text(course, "README.md", scan).encode() == plan["README.md"]
    (ref / "README.md").write_text("<!-- instructor -->\nnever closed\n")
    with pytest.raises(UserError, match=r"README.md:1: the instructor span is never closed"):
        content.plan(load_course(ref))


def test_an_import_the_stub_leaves_unused_gets_its_own_noqa_and_the_rest_is_still_linted(tmp_path):
    """ruff flags what the stub leaves unused on that line only (``  # noqa: F401``): the student's own unused
    import in the same file is still reported, and the grader reads the file as given (:func:`strip_noqa`)."""
    mod = MOD.replace('"""Demo kit: two student functions."""\n',
                      '"""Demo kit: two student functions."""\nimport math\n').replace(
                      "    return 2 * x\n", "    return 2 * x * math.prod([1])\n")
    ref = make_course(tmp_path / "ref", mod=mod)
    release.build(ref, tmp_path / "out", git=False)
    text = (tmp_path / "out" / "lab09_demo" / "mod.py").read_text()
    assert "import math  # noqa: F401\n" in text and "ruff: noqa" not in text
    assert lint.strip_noqa(text) == content.handout_text(load_course(ref), "lab09_demo/mod.py",
                                                            Reference.load(ref).scan)
    assert lint.findings(tmp_path / "out") == []
    (tmp_path / "out" / "lab09_demo" / "mod.py").write_text(text.replace("import math", "import math\nimport os"))
    assert [ln.split(": ", 1)[1][:4] for ln in lint.findings(tmp_path / "out")] == ["F401"]


def test_a_stub_error_names_the_other_stubs_of_its_lab(tmp_path):
    """A step reaches one stub at a time; the error line also lists the lab's tasks still stubbed in the tree
    (:func:`common.course.notimpl.stubs_left`), none in the reference, one fewer once a task is written."""
    from common.course.notimpl import stubs_left
    ref = make_course(tmp_path / "ref")
    release.build(ref, tmp_path / "out", git=False)
    out = tmp_path / "out"
    assert stubs_left("lab09.double", root=out) == ["Task 9.1 (lab09.double)", "Task 9.2 (lab09.inc)"]
    assert stubs_left("lab09.double", root=ref) == [] and stubs_left("lab99.none", root=out) == []
    (out / "lab09_demo" / "mod.py").write_text((ref / "lab09_demo" / "mod.py").read_text())
    assert stubs_left("lab09.inc", root=out) == []
