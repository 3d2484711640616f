"""What the grade report says of a task file it did not grade (:mod:`common.course.grade`, on the demo course of
:mod:`common.course.fixtures`): a symbolic link is named as one (never followed), a file that does not compile
is not "not implemented yet", and a submission with two candidate folders says which one was graded and why."""
from __future__ import annotations

import json
import shutil

import pytest

from common.course import grade, submission
from common.course.fixtures import make_demo, run_course
from common.course.tasks import load_course


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo(tmp_path_factory.mktemp("notes"))


def _linked(demo, tmp_path):
    """The handout with its task file a symbolic link to the reference's solution."""
    ref, handout = demo
    sub = tmp_path / "sub"
    shutil.copytree(handout, sub)
    (sub / "lab09_demo/mod.py").unlink()
    (sub / "lab09_demo/mod.py").symlink_to(ref / "lab09_demo/mod.py")
    return sub


def test_a_task_file_that_is_a_symlink_is_named_as_one_and_never_followed(demo, tmp_path):
    ref, _ = demo
    (g,) = grade.grade(ref, _linked(demo, tmp_path))  # read as handed in: it had followed the link (full marks)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert g.ignored[0] == f"lab09_demo/mod.py: {grade.SYMLINK}: not graded, left as the handout's"
    out = tmp_path / "out"
    run = run_course("--root", str(ref), "grade", str(_linked(demo, tmp_path / "cli")), "--out", str(out),
                     "--timeout", "30")
    assert run.returncode == 0 and "lab09_demo: 0/8 points" in run.stdout, run.stdout + run.stderr
    data = json.loads((out / "lab09_demo/results.json").read_text())
    assert data["extra_data"]["review"] == g.review == [f"lab09_demo/mod.py: {grade.SYMLINK}"]  # for a human to look
    assert run.stderr.splitlines()[-1] == f"warning: lab09_demo: lab09_demo/mod.py: {grade.SYMLINK}", run.stderr
    text = data["tests"][0]["output"]
    assert "lab09_demo/mod.py is not graded: it is a symbolic link (not followed) (graded as the handout's stub)" \
        in text and "is not in the submission" not in text
    md = (out / "lab09_demo/results.md").read_text()
    assert "Ignored files (not part of the grade): lab09_demo/mod.py: is a symbolic link (not followed)" in md


def test_a_file_that_does_not_compile_is_not_called_not_implemented(demo, tmp_path):
    ref, handout = demo
    sub = tmp_path / "sub"
    shutil.copytree(handout, sub)
    (sub / "lab09_demo/mod.py").write_text((ref / "lab09_demo/mod.py").read_text() + "\ndef broken(:\n")
    (g,) = grade.grade(ref, sub)
    text = g.tasks[0].output()
    assert "lab09_demo/mod.py does not compile: SyntaxError: invalid syntax (lab09_demo/mod.py, line" in text
    assert "not implemented yet" not in text
    assert ("- 3 graded test(s), 4 points, scored 0: they ran the handout's stub in place of lab09_demo/mod.py (see "
            "above), which raises NotImplementedTask") in text


def test_two_candidate_folders_say_how_one_was_picked(demo, tmp_path):
    course = load_course(demo[0])
    sub = tmp_path / "sub"
    for where in ("b", "a/deeper"):
        (sub / where / "lab09_demo").mkdir(parents=True)
        (sub / where / "lab09_demo/mod.py").write_text("X = 1\n")
    notes = submission.layout(course, sub, tmp_path / "d")
    assert notes[1] == ("warning: 2 folders hold task files: graded b/, the shallowest of those with the most task "
                        "files (1 each); not graded: a/deeper/; hand in one")
