"""Solution, stub and hidden-test markers in the reference's Python files, and the handout text.

Markers are comments that stand alone on their line (found as ``COMMENT`` tokens by
:mod:`tokenize`, so the same words inside a string or docstring are no marker)::

    ### BEGIN SOLUTION <task-id>      the student's code: the handout replaces the block by a stub
    ### END SOLUTION
    ### BEGIN STUB <task-id>          commented-out scaffold: live code in the handout
    ### END STUB
    ### BEGIN HIDDEN TESTS            graded tests the handout leaves out
    ### END HIDDEN TESTS

In the handout a solution block becomes, at the indentation of its ``BEGIN`` line::

    # Task 1.1 (lab01.reshape): write fuse_at here; instructions in lab01_onnx/TASKS.md
    from common.course.notimpl import NotImplementedTask
    raise NotImplementedTask("lab01.reshape")

A stub block's lines lose their first ``#`` (and one space after it); a hidden block disappears.
Blocks do not nest; an ``END`` closes the open block of the same kind at the same indentation. A
solution block lies inside one function's body (so the stub raises when called, never at import),
holds code, and names a task id the course knows.

Markdown files have two spans of their own (:func:`render_markdown`), each marker alone on its line
outside code fences (one inside a line of text, outside inline code, is an error: the handout would ship it): ``<!-- instructor -->`` ... ``<!-- /instructor -->`` (left out of the handout) and
an HTML comment opened by ``<!-- student`` and closed by ``-->`` (invisible in the reference, plain
text in the handout).

Errors (:class:`MarkerError`, a :class:`~common.errors.UserError`; one line ``<file>:<line>: ...``):
a malformed marker (``### BEGIN SOLUTIONS``), a marker sharing its line with code, a missing or
unknown task id, a nested or unclosed block, an ``END`` of another kind or indentation, an empty
solution block or one outside a function, a stub block line that is not a comment.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from common.errors import UserError

#: Anything that looks like a marker (then it must be a well-formed one).
ANY_MARKER = re.compile(r"^###\s*(BEGIN|END)\b")
MARKER = re.compile(r"^###\s+(BEGIN|END)\s+(SOLUTION|STUB|HIDDEN TESTS)(?:\s+(\S+))?\s*$")
SOLUTION, STUB, HIDDEN = "SOLUTION", "STUB", "HIDDEN TESTS"
#: The kinds of the Markdown spans (:func:`find_md_blocks`).
INSTRUCTOR, STUDENT = "INSTRUCTOR", "STUDENT"


class MarkerError(UserError):
    """A malformed, misplaced, nested, unclosed or unknown marker (one line, with file and line)."""


@dataclass(frozen=True)
class Block:
    """One marked block: ``kind`` (SOLUTION, STUB, HIDDEN TESTS), ``task`` (None for hidden tests),
    ``begin``/``end`` (1-based lines of its two markers), ``indent`` (of the BEGIN line) and
    ``function`` (qualified name of the enclosing function, for solution blocks)."""

    kind: str
    task: str | None
    begin: int
    end: int
    indent: str
    function: str | None = None

    def inner(self, lines: list[str]) -> list[str]:
        """The block's lines between its markers (``lines`` = the file's lines, no line ends)."""
        return lines[self.begin:self.end - 1]


def _comments(text: str, path: str):
    """``(line number, comment text)`` of every COMMENT token."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                yield tok.start[0], tok.string
    except (tokenize.TokenError, SyntaxError) as exc:
        raise MarkerError(f"{path}: cannot read its tokens ({exc})") from None


def _functions(tree: ast.AST):
    """``(qualname, node)`` of every function, classes and outer functions in the name."""
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, child))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _enclosing(path: str, lines: list[str], block: Block, funcs) -> str:
    code = [i for i in range(block.begin + 1, block.end) if lines[i - 1].strip()
            and not lines[i - 1].lstrip().startswith("#")]
    if not code:
        raise MarkerError(f"{path}:{block.begin}: empty solution block of {block.task}")
    inside = [(name, f) for name, f in funcs if f.body[0].lineno <= code[0] and code[-1] <= f.end_lineno
              and len(block.indent) > f.col_offset]
    if not inside:
        raise MarkerError(f"{path}:{block.begin}: the solution block of {block.task} is not inside a function "
                          "body (its stub would raise at import)")
    return max(inside, key=lambda nf: nf[1].lineno)[0]


def find_blocks(text: str, path: str = "<string>", known: Collection[str] | None = None) -> list[Block]:
    """The marked blocks of one Python file, in order; ``known`` (task ids) also rejects unknown ids.

    Raises:
        MarkerError: see the module docstring.
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    open_: tuple[str, str | None, int, str] | None = None
    for row, comment in _comments(text, path):
        if not ANY_MARKER.match(comment):
            continue
        line = lines[row - 1]
        if line.strip() != comment.strip():
            raise MarkerError(f"{path}:{row}: a marker must stand alone on its line: {line.strip()!r}")
        m = MARKER.match(comment)
        if not m:
            raise MarkerError(f"{path}:{row}: malformed marker {comment.strip()!r} (expected '### BEGIN SOLUTION "
                              "<task-id>', '### BEGIN STUB <task-id>', '### BEGIN HIDDEN TESTS' or an END)")
        edge, kind, task = m.groups()
        indent = line[:len(line) - len(line.lstrip())]
        if edge == "BEGIN":
            if open_ is not None:
                raise MarkerError(f"{path}:{row}: {kind} block opened inside the {open_[0]} block of line {open_[2]} "
                                  "(blocks do not nest)")
            if kind == HIDDEN and task:
                raise MarkerError(f"{path}:{row}: '### BEGIN HIDDEN TESTS' takes no task id")
            if kind != HIDDEN and not task:
                raise MarkerError(f"{path}:{row}: '### BEGIN {kind}' needs a task id")
            if task and known is not None and task not in known:
                raise MarkerError(f"{path}:{row}: unknown task id {task!r} (known: {', '.join(sorted(known))})")
            open_ = (kind, task, row, indent)
            continue
        if task:
            raise MarkerError(f"{path}:{row}: '### END {kind}' takes no task id")
        if open_ is None:
            raise MarkerError(f"{path}:{row}: '### END {kind}' without a BEGIN")
        if open_[0] != kind:
            raise MarkerError(f"{path}:{row}: '### END {kind}' closes the {open_[0]} block of line {open_[2]}")
        if indent != open_[3]:
            raise MarkerError(f"{path}:{row}: '### END {kind}' is not indented like its BEGIN (line {open_[2]})")
        blocks.append(Block(kind, open_[1], open_[2], row, indent))
        open_ = None
    if open_ is not None:
        raise MarkerError(f"{path}:{open_[2]}: the {open_[0]} block is never closed (no '### END {open_[0]}')")
    if any(b.kind == SOLUTION for b in blocks):
        try:
            funcs = _functions(ast.parse(text))
        except SyntaxError as exc:
            raise MarkerError(f"{path}:{exc.lineno}: not valid Python ({exc.msg})") from None
        blocks = [Block(b.kind, b.task, b.begin, b.end, b.indent, _enclosing(path, lines, b, funcs))
                  if b.kind == SOLUTION else b for b in blocks]
    for b in blocks:
        if b.kind == STUB:
            for i, raw in enumerate(b.inner(lines), start=b.begin + 1):
                if raw.strip() and not (raw.startswith(b.indent) and raw.lstrip().startswith("#")):
                    raise MarkerError(f"{path}:{i}: a stub block holds commented-out code only: {raw.strip()!r}")
    return blocks


def stub_raise(task_id: str) -> str:
    """The statement a handout's stub of ``task_id`` ends with (what tells a stub from a student's code)."""
    return f'raise NotImplementedTask("{task_id}")'


def stub_lines(block: Block, path: str, tasks: Mapping[str, object] | None = None) -> list[str]:
    """The three handout lines that replace a solution block (see the module docstring)."""
    task = tasks.get(block.task) if tasks else None
    number = f"Task {task.number} " if task is not None else "Task "
    lab = task.lab if task is not None else path.split("/", 1)[0]
    fn = (block.function or "").rsplit(".", 1)[-1] if block.function else "this function"
    return [f"{block.indent}# {number}({block.task}): write {fn} here; instructions in {lab}/TASKS.md",
            f"{block.indent}from common.course.notimpl import NotImplementedTask",
            f"{block.indent}{stub_raise(block.task)}"]


def _uncomment(line: str) -> str:
    body = line.lstrip()
    if not body:
        return line
    ws = line[:len(line) - len(body)]
    body = body[1:]
    return ws + (body[1:] if body.startswith(" ") else body)


def render(text: str, path: str, *, stub: Collection[str] | None = None, drop_hidden: bool = True,
           tasks: Mapping[str, object] | None = None, blocks: list[Block] | None = None) -> str:
    """The handout version of one file.

    Args:
        text, path: the reference file and its path (for messages and the stub's comment).
        stub: the task ids whose solution blocks become stubs (their stub blocks go live); None: all.
            Blocks of other tasks stay as they are, markers included.
        drop_hidden: leave out hidden-test blocks.
        tasks: id -> :class:`~common.course.tasks.Task` (for the number and lab in the stub's comment).
        blocks: the file's blocks, if already found.

    Returns:
        the new text (``text`` itself when no block applies), with the file's line ends.
    """
    blocks = find_blocks(text, path) if blocks is None else blocks
    wanted = [b for b in blocks if (b.kind == HIDDEN and drop_hidden)
              or (b.kind != HIDDEN and (stub is None or b.task in stub))]
    if not wanted:
        return text
    def replacement(b: Block, lines: list[str]) -> list[str]:
        if b.kind == SOLUTION:
            return stub_lines(b, path, tasks)
        return [_uncomment(line) for line in b.inner(lines)] if b.kind == STUB else []

    return _splice(text, wanted, replacement)


def _splice(text: str, blocks: list[Block], replacement, *, squeeze: bool = False) -> str:
    """``text`` with each block's lines (markers included) replaced by ``replacement(block, lines)``, in order;
    ``squeeze``: where a removal leaves two blank lines in a row, one goes. The file's line ends are kept."""
    lines = text.splitlines()
    out: list[str] = []
    pos = 1
    for b in blocks:
        out.extend(lines[pos - 1:b.begin - 1])
        out.extend(replacement(b, lines))
        pos = b.end + 1
        if squeeze and out and not out[-1].strip() and pos <= len(lines) and not lines[pos - 1].strip():
            pos += 1
    out.extend(lines[pos - 1:])
    newline = "\r\n" if "\r\n" in text else "\n"
    return newline.join(out) + (newline if text.endswith(("\n", "\r")) else "")


def block_lines(text: str, blocks: list[Block], kinds: Collection[str]) -> list[str]:
    """The stripped, non-blank, non-comment lines inside the blocks of ``kinds`` (for the leak scan)."""
    lines = text.splitlines()
    return [s for b in blocks if b.kind in kinds for raw in b.inner(lines)
            if (s := raw.strip()) and not s.startswith("#")]


def has_marker(text: str) -> bool:
    """Whether any COMMENT token of ``text`` looks like a marker (a text that does not tokenize: any line)."""
    try:
        return any(ANY_MARKER.match(c) for _, c in _comments(text, "<text>"))
    except MarkerError:
        return any(ANY_MARKER.match(line.strip()) for line in text.splitlines())


#: Markdown spans, each marker alone on its line (outside code fences): the instructor's text that the
#: handout leaves out, and the student's text (an HTML comment, so invisible in the reference) that the
#: handout shows as plain text.
MD_INSTRUCTOR = ("<!-- instructor -->", "<!-- /instructor -->")
MD_STUDENT = ("<!-- student", "-->")
_MD_LOOKALIKE = re.compile(r"^<!--\s*/?\s*(instructor|student)\b", re.IGNORECASE)
#: The same anywhere in a line, and inline code (a marker quoted between backticks is text, not a marker).
_MD_ANYWHERE = re.compile(_MD_LOOKALIKE.pattern[1:], re.IGNORECASE)
_MD_CODE = re.compile(r"(`+).*?\1")


def _inline_marker(line: str) -> bool:
    """Whether a stripped line holds a span marker after other text, outside inline code (a marker must stand
    alone on its line: else the handout would ship the span as it is)."""
    return any(m.start() > 0 for m in _MD_ANYWHERE.finditer(_MD_CODE.sub("", line)))


def find_md_blocks(text: str, path: str = "<string>") -> list[Block]:
    """The spans of a Markdown text, in order: :class:`Block`\\ s of kind :data:`INSTRUCTOR` or :data:`STUDENT`
    (``begin``/``end``: their marker lines).

    Raises:
        MarkerError: a malformed, nested or unclosed span (one line, with file and line).
    """
    spans: list[Block] = []
    open_: tuple[str, int] | None = None
    fence = None
    for row, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if open_ is None or open_[0] == "instructor":
            m = re.match(r"^(`{3,}|~{3,})", line)
            if m and (fence is None or line.startswith(fence)):
                fence = None if fence else m.group(1)
                continue
            if fence:
                continue
        if open_ is not None and open_[0] == "student":
            if line == MD_STUDENT[1]:
                spans.append(Block(STUDENT, None, open_[1], row, ""))
                open_ = None
            elif _MD_LOOKALIKE.match(line) or _inline_marker(line):
                raise MarkerError(f"{path}:{row}: a span marker inside the student span of line {open_[1]} "
                                  "(spans do not nest)")
            continue
        if line == MD_INSTRUCTOR[0] or line == MD_STUDENT[0]:
            kind = "instructor" if line == MD_INSTRUCTOR[0] else "student"
            if open_ is not None:
                raise MarkerError(f"{path}:{row}: {kind} span opened inside the instructor span of line {open_[1]} "
                                  "(spans do not nest)")
            open_ = (kind, row)
        elif line == MD_INSTRUCTOR[1]:
            if open_ is None:
                raise MarkerError(f"{path}:{row}: '{MD_INSTRUCTOR[1]}' without '{MD_INSTRUCTOR[0]}'")
            spans.append(Block(INSTRUCTOR, None, open_[1], row, ""))
            open_ = None
        elif _MD_LOOKALIKE.match(line):
            raise MarkerError(f"{path}:{row}: malformed span marker {line!r} (expected '{MD_INSTRUCTOR[0]}', "
                              f"'{MD_INSTRUCTOR[1]}', or '{MD_STUDENT[0]}' ... '{MD_STUDENT[1]}', "
                              "each alone on its line)")
        elif _inline_marker(line):
            raise MarkerError(f"{path}:{row}: a span marker inside a line of text ({line[:60]!r}): the handout would "
                              "ship it as it is; put each marker alone on its line")
    if open_ is not None:
        end = MD_INSTRUCTOR[1] if open_[0] == "instructor" else MD_STUDENT[1]
        raise MarkerError(f"{path}:{open_[1]}: the {open_[0]} span is never closed (no '{end}' line)")
    return spans


def has_md_span(text: str) -> bool:
    """Whether a Markdown text may hold an instructor or student span, or a marker inside a line (a cheap test
    before :func:`find_md_blocks`, which refuses the latter)."""
    return any(_MD_LOOKALIKE.match(s := line.strip()) or _inline_marker(s) for line in text.splitlines())


def render_markdown(text: str, path: str = "<string>", blocks: list[Block] | None = None) -> str:
    """The handout version of a Markdown file: instructor spans removed (markers included), student spans
    shown (their two marker lines removed). Where a removed span leaves two blank lines, one goes.
    ``blocks``: the spans, if already found (:func:`find_md_blocks`).

    Raises:
        MarkerError: a malformed, nested or unclosed span (one line, with file and line).
    """
    spans = find_md_blocks(text, path) if blocks is None else blocks
    if not spans:
        return text
    return _splice(text, spans, lambda b, lines: list(b.inner(lines)) if b.kind == STUDENT else [], squeeze=True)
