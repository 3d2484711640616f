"""What a doc shows: fenced code blocks, inline code spans, the commands in them (``python -m``,
``pytest``, ``make``), and which kind of name an inline span is (a path, a ``module.function``, a
``CONSTANT``). Parsed from the Markdown text only; :mod:`common.docs.paths` and
:mod:`common.docs.names` say whether the names exist.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from . import REPO

FENCE_RE = re.compile(r"^(?P<fence>```|~~~)(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
INLINE_RE = re.compile(r"(?<!`)`(?!`)([^`]+?)`(?!`)")
SHELL_LANGS = frozenset({"", "bash", "sh", "shell", "console", "text"})


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced code block."""
    return [(m["lang"].lower(), m["body"]) for m in FENCE_RE.finditer(text)]


def inline_code(text: str) -> list[str]:
    """The content of every inline code span outside fenced blocks (whitespace runs made one space;
    a span may wrap onto the next line, never across a blank line)."""
    prose = FENCE_RE.sub("", text)
    prose = re.sub(r"<!--.*?-->", "", prose, flags=re.S)
    return [re.sub(r"\s+", " ", m.group(1)).strip() for m in INLINE_RE.finditer(prose)
            if "\n\n" not in m.group(1)]


@dataclass(frozen=True)
class Command:
    """One command a doc shows: ``python -m module [sub] ...``, ``pytest ...`` or ``make target``."""
    kind: str          # "module", "pytest", "make"
    name: str          # the module, "pytest" or the make target
    sub: str | None    # a subcommand word right after the module (``records tune``), if any
    flags: tuple[str, ...]
    args: tuple[str, ...]
    source: str        # where it was shown: "lab01_onnx/README.md: <the line>"


_PY_M = re.compile(r"(?:^|[\s/;(|&])python3?(?:\.\d+)?\s+-m\s+(?P<mod>[\w.]+)(?P<rest>[^\n;|&]*)")
_PYTEST = re.compile(r"(?:^|[\s;(|&])pytest(?P<rest>(?:\s[^\n;|&]*)?)$")
_MAKE = re.compile(r"(?:^|[\s;(|&])make\s+(?P<targets>[\w-]+(?:\s+[\w-]+)*)")
_OPTION_WITH_VALUE = {"-k", "-m", "-n", "-p", "--hypothesis-seed", "--maxfail", "--deselect"}


def _strip_comment(line: str) -> str:
    return re.split(r"\s+#\s|\s+#$", line, maxsplit=1)[0]


def _command_lines(text: str) -> list[str]:
    lines = []
    for lang, body in fenced_blocks(text):
        if lang in SHELL_LANGS:
            joined = re.sub(r"\\\n\s*", " ", body)
            lines += [_strip_comment(ln).strip() for ln in joined.splitlines()]
    lines += inline_code(text)
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _words(rest: str) -> list[str]:
    words = (w.strip("[]") for w in rest.split())
    return [w for w in words if w and w not in ("/", "…", "...")]


def commands(path: Path, root: Path = REPO) -> list[Command]:
    """Every ``python -m``, ``pytest`` and ``make`` command shown in ``path`` (fenced shell blocks and
    inline code; ``make roof`` / ``lab01`` / ... chains name more targets)."""
    text = path.read_text(encoding="utf-8")
    rel = path.relative_to(root) if path.is_relative_to(root) else path
    out = []
    for line in _command_lines(text):
        src = f"{rel}: {line}"
        for m in _PY_M.finditer(line):
            mod, words = m["mod"], _words(m["rest"])
            if mod == "pytest":
                out.append(_pytest(words, src))
                continue
            sub = words[0] if words and re.fullmatch(r"[a-z][a-z0-9_-]*", words[0]) else None
            out.append(Command("module", mod, sub, tuple(w.split("=")[0] for w in words if w.startswith("--")),
                               tuple(words), src))
        if not _PY_M.search(line):
            m = _PYTEST.search(line)
            if m:
                out.append(_pytest(_words(m["rest"]), src))
        for m in _MAKE.finditer(line):
            words = [w for w in m["targets"].split() if not w.startswith("-")]
            if words:  # `make run  # ...`: only the first word is sure to be a target
                out.append(Command("make", words[0], None, (), (), src))
    for m in re.finditer(r"`make ([\w-]+)`((?:\s*/\s*`[\w-]+`)+)", FENCE_RE.sub("", text)):
        for t in re.findall(r"`([\w-]+)`", m.group(2)):
            out.append(Command("make", t, None, (), (), f"{rel}: `make {m.group(1)}` / ... `{t}`"))
    return out


def _pytest(words: list[str], src: str) -> Command:
    args, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w in _OPTION_WITH_VALUE:
            skip = True
        elif not w.startswith("-") and ("/" in w or w.endswith(".py") or "::" in w or "." not in w):
            args.append(w)  # a path (a dotted word is the value of a plugin's option: --task lab01.reshape)
    return Command("pytest", "pytest", None, tuple(w.split("=")[0] for w in words if w.startswith("--")),
                   tuple(args), src)


def make_targets(makefile: Path = REPO / "Makefile") -> set[str]:
    """Targets the Makefile defines (parsed, never run: ``make -n`` still runs ``$(MAKE)`` lines), with those of the
    files it includes (``include F`` / ``-include F``, beside it; a missing ``-include`` adds none)."""
    targets = set()
    for line in makefile.read_text(encoding="utf-8").splitlines():
        if inc := re.match(r"^-?include\s+(.+)$", line):
            for name in inc.group(1).split():
                if (makefile.parent / name).is_file():
                    targets |= make_targets(makefile.parent / name)
            continue
        m = re.match(r"^([\w./$()-][\w./$() -]*?)\s*::?(?!=)", line)
        if m and not line.startswith("\t"):
            targets.update(t for t in m.group(1).split() if not t.startswith("."))
    return targets


# ---------------------------------------------------------------------------------------------
# names in backticks: which kind of name a span is (common.docs.paths and .names resolve them)

PATH_EXTS = ("py", "md", "toml", "lock", "json", "csv", "png", "onnx", "mlir", "so", "tar", "txt", "cfg", "spv",
             "vmfb", "npz", "bin", "cc", "sh", "yaml", "yml", "ini")
_PATH_RE = re.compile(r"\.{0,2}/?[\w.*<>{},-]+(?:/[\w.*<>{},-]*)+|[\w.*<>{},-]+\.(?:" + "|".join(PATH_EXTS) + r")")
_DOTTED_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CONST_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def classify(span: str) -> tuple[str, str] | None:
    """``("path" | "dotted" | "constant", name)`` for an inline code span that names one thing, else None."""
    s = span.strip().rstrip(".,;:")
    if " " in s or not s:
        return None
    if _PATH_RE.fullmatch(s) and ("/" in s or re.search(r"\.(" + "|".join(PATH_EXTS) + r")$", s)):
        if "://" in s or s.startswith(("-", "~")):
            return None
        return "path", s
    call = re.sub(r"\(.*\)$", "", s)
    if _DOTTED_RE.fullmatch(call) and not call.startswith("."):
        return "dotted", call
    if _CONST_RE.fullmatch(s):
        return "constant", s
    return None


#: "`A` and `B` in `file.py`": the constants a doc says a file defines.
CONST_IN_FILE_RE = re.compile(r"((?:`[A-Z][A-Z0-9_]+`(?:,\s*|\s+and\s+|\s+or\s+|\s+))+)in\s+`([\w./]+\.py)`")


def constants_in_files(text: str) -> list[tuple[str, str]]:
    """``(CONSTANT, file)`` for every "`CONSTANT` ... in `file.py`" a doc says."""
    prose = re.sub(r"\s+", " ", FENCE_RE.sub("", text))
    return [(c, m.group(2)) for m in CONST_IN_FILE_RE.finditer(prose) for c in re.findall(r"`(\w+)`", m.group(1))]


def layout_py_names(text: str) -> list[str]:
    """``*.py`` names in the layout trees of a doc (fenced blocks without a language whose first line
    is a folder, ``name/``)."""
    out = []
    for lang, body in fenced_blocks(text):
        first = next((ln for ln in body.splitlines() if ln.strip()), "")
        if lang == "" and re.match(r"^[\w.-]+/(\s|$)", first):
            out += re.findall(r"(?<![\w/.-])([\w-]+\.py)\b", body)
    return out

