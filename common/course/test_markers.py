"""Solution/stub/hidden markers (:mod:`common.course.markers`) and :class:`NotImplementedTask`."""
from __future__ import annotations

import pytest

from common.course import markers
from common.course.notimpl import NotImplementedTask, task_in
from common.course.fixtures import MOD, TESTS, dedent
from common.errors import UserError

KNOWN = {"lab09.double", "lab09.inc"}


def test_blocks_are_found_with_kind_task_lines_indent_and_function():
    blocks = markers.find_blocks(MOD, "lab09_demo/mod.py", known=KNOWN)
    got = [(b.kind, b.task, b.begin, b.end, len(b.indent), b.function) for b in blocks]
    assert got == [("STUB", "lab09.double", 6, 9, 4, None), ("SOLUTION", "lab09.double", 10, 12, 4, "double"),
                   ("SOLUTION", "lab09.inc", 18, 20, 8, "Box.inc")]
    assert [b.kind for b in markers.find_blocks(TESTS, "t.py")] == ["HIDDEN TESTS"]


def test_marker_words_inside_strings_are_no_markers():
    text = dedent('''
        """### BEGIN SOLUTION lab09.double (a docstring that explains the markers)"""
        X = "### END SOLUTION"
        # see ### BEGIN SOLUTION in the docs: not a marker either (not at the comment's start)
        ''')
    assert markers.find_blocks(text, "x.py", known=KNOWN) == []
    assert not markers.has_marker(text)


def _f(body: str) -> str:
    return "def f():\n" + "".join(f"    {ln}\n" for ln in body.splitlines())


@pytest.mark.parametrize("text, line, words", [
    (_f("### BEGIN SOLUTION lab09.double\n### BEGIN SOLUTION lab09.inc\nreturn 1\n### END SOLUTION\n"
        "### END SOLUTION"), 3, "do not nest"),
    (_f("### BEGIN SOLUTION lab09.double\nreturn 1"), 2, "never closed"),
    (_f("return 1\n### END SOLUTION"), 3, "without a BEGIN"),
    (_f("### BEGIN SOLUTION lab09.double\nreturn 1\n### END STUB"), 4, "closes the SOLUTION block"),
    (_f("### BEGIN SOLUTION lab09.nope\nreturn 1\n### END SOLUTION"), 2, "unknown task id 'lab09.nope'"),
    (_f("### BEGIN SOLUTION\nreturn 1\n### END SOLUTION"), 2, "needs a task id"),
    (_f("### BEGIN SOLUTIONS lab09.double\nreturn 1\n### END SOLUTION"), 2, "malformed marker"),
    (_f("x = 1  ### BEGIN SOLUTION lab09.double"), 2, "stand alone on its line"),
    ("def f():\n    ### BEGIN SOLUTION lab09.double\n    return 1\n  ### END SOLUTION\n", 4, "not indented like"),
    ("### BEGIN SOLUTION lab09.double\nX = 1\n### END SOLUTION\n", 1, "not inside a function body"),
    (_f("pass\n### BEGIN SOLUTION lab09.double\n# only a comment\n### END SOLUTION"), 3, "empty solution block"),
    (_f("### BEGIN STUB lab09.double\nreturn 0\n### END STUB\nreturn 1"), 3, "commented-out code only"),
    (_f("### BEGIN HIDDEN TESTS lab09.double\n### END HIDDEN TESTS"), 2, "takes no task id"),
])
def test_bad_markers_are_one_line_with_file_and_line(text, line, words):
    with pytest.raises(markers.MarkerError) as err:
        markers.find_blocks(text, "lab09_demo/mod.py", known=KNOWN)
    msg = str(err.value)
    assert isinstance(err.value, UserError) and "\n" not in msg
    assert msg.startswith(f"lab09_demo/mod.py:{line}:") and words in msg, msg


def test_handout_stub_keeps_indentation_and_raises_at_call_time_only():
    out = markers.render(MOD, "lab09_demo/mod.py")
    assert "return 2 * x" not in out and "return x + 1" not in out and not markers.has_marker(out)
    assert '        raise NotImplementedTask("lab09.inc")' in out  # the method's indentation
    assert "    if x == 0:\n        return 0  # scaffold: zero is easy\n" in out  # the stub block is live
    assert "    # Task (lab09.double): write double here; instructions in lab09_demo/TASKS.md\n" in out
    namespace: dict = {}
    exec(compile(out, "lab09_demo/mod.py", "exec"), namespace)  # importing raises nothing
    assert namespace["double"](0) == 0 and namespace["given"](3) == 3
    with pytest.raises(NotImplementedTask) as err:
        namespace["Box"]().inc(1)
    assert isinstance(err.value, NotImplementedError) and err.value.task == "lab09.inc"
    assert str(err.value).startswith("not implemented: task lab09.inc (Box.inc in ")
    assert str(err.value).endswith("instructions in TASKS.md)") or "TASKS.md" in str(err.value)


def test_only_the_named_tasks_are_stubbed_and_hidden_tests_go():
    out = markers.render(MOD, "lab09_demo/mod.py", stub={"lab09.inc"})
    assert "return 2 * x" in out and "### BEGIN SOLUTION lab09.double" in out and "return x + 1" not in out
    tests = markers.render(TESTS, "lab09_demo/test_mod.py")
    assert "test_inc_hidden" not in tests and "HIDDEN" not in tests and "def test_inc()" in tests
    assert markers.render(TESTS, "t.py", drop_hidden=False) == TESTS


def test_task_in_finds_the_task_wrapped_folded_or_grouped():
    exc = NotImplementedTask("lab09.double", "double in lab09_demo/mod.py")
    assert str(exc) == ("not implemented: task lab09.double (double in lab09_demo/mod.py; instructions in "
                        "lab09_demo/TASKS.md)")
    assert task_in(exc) == "lab09.double"
    try:
        try:
            raise exc
        except NotImplementedTask as inner:
            raise RuntimeError("MLIR pass failed") from inner
    except RuntimeError as outer:
        assert task_in(outer) == "lab09.double"
    assert task_in(AssertionError(f"pass_error: NotImplementedTask: {exc}")) == "lab09.double"
    assert task_in(ExceptionGroup("two", [ValueError("x"), exc])) == "lab09.double"
    assert task_in(ValueError("not implemented here")) is None
    assert task_in(AssertionError("got: not implemented (0/3 points): not implemented: task lab09.inc")) is None
    assert task_in(RuntimeError(str(exc))) == "lab09.double"  # what TVM's FFI re-raises


def test_markdown_instructor_spans_go_and_student_spans_show():
    text = dedent('''
        # T

        <!-- instructor -->
        the reference's `common/course/wrong/`
        <!-- /instructor -->

        <!-- student
        your handout: `make grade SUB=.`
        -->
        ```text
        <!-- instructor -->
        ```
        end
        ''')
    assert markers.render_markdown(text, "R.md") == ("# T\n\nyour handout: `make grade SUB=.`\n"
                                                     "```text\n<!-- instructor -->\n```\nend\n")
    assert markers.has_md_span(text) and not markers.has_md_span("<!--fig x-->\n`<!-- instructor -->` inline\n")
    assert markers.render_markdown("no spans\r\n", "R.md") == "no spans\r\n"


@pytest.mark.parametrize("text, words", [
    ("<!-- instructor -->\nx\n", "R.md:1: the instructor span is never closed"),
    ("<!-- student\nx\n", "R.md:1: the student span is never closed (no '-->' line)"),
    ("x\n<!-- /instructor -->\n", "R.md:2: '<!-- /instructor -->' without '<!-- instructor -->'"),
    ("<!-- instructor -->\n<!-- student\n-->\n<!-- /instructor -->\n", "R.md:2: student span opened inside"),
    ("<!-- student\n<!-- instructor -->\n-->\n", "R.md:2: a span marker inside the student span"),
    ("<!-- student -->\n", "R.md:1: malformed span marker '<!-- student -->'"),
    ("<!--instructor-->\n", "R.md:1: malformed span marker"),
    ("text <!-- instructor --> secret <!-- /instructor -->\n", "R.md:1: a span marker inside a line of text ('text "
     "<!-- instructor --> secret <!-- /instructor -->'): the handout would ship it as it is; put each marker alone"),
    ("a\n`code` then <!-- /instructor -->\n", "R.md:2: a span marker inside a line of text"),
    ("<!-- student\nsee <!-- instructor --> here\n-->\n", "R.md:2: a span marker inside the student span"),
])
def test_bad_markdown_spans_are_one_line(text, words):
    with pytest.raises(markers.MarkerError) as err:
        markers.render_markdown(text, "R.md")
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_marker_inside_a_line_stops_the_handout_with_its_file_and_line(tmp_path):
    """It had shipped as it was (the secret after it in the handout) and ``student`` exited 0."""
    from common.course import release
    from common.course.fixtures import make_course

    ref = make_course(tmp_path / "ref")
    (ref / "NOTES.md").write_text("# Notes\n\nsee <!-- instructor --> the answer is 42 <!-- /instructor -->\n")
    with pytest.raises(UserError, match=r"^NOTES.md:3: a span marker inside a line of text"):
        release.build(ref, tmp_path / "handout", git=False)
    assert not (tmp_path / "handout").exists()
    assert not markers.has_md_span("quoted: `<!-- instructor -->` and ``<!-- /instructor -->``\n")
