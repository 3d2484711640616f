"""Docs that cannot drift: README figures generated from the committed results tables, and the
parsers ``common/test_docs.py`` uses to check every command, path and name the READMEs show.

**Figures.** A number quoted in a Markdown file is written between two HTML comments (invisible
when rendered) that say which cell of which table it is::

    INT8 keeps <!--fig lab01/quantization[model=int8*].top1_agreement|.1%-->94.3%<!--/fig--> of ...

- ``lab01/quantization``: the table ``results/lab01/quantization.json``: always the committed
  reference tables beside this package, never ``$MLC_RESULTS_DIR``;
- ``[model=int8*]`` (optional): the rows whose ``model`` cell matches the glob (``fnmatch``, on the
  cell as text); several conditions are separated by ``;``; ``[3]`` is the row at index 3; without
  a selector, every row;
- ``.top1_agreement``: the column;
- `` max`` (optional): how the matching rows become one figure: ``one`` (the default: exactly one
  row must match), ``first``, ``last``, ``min``, ``max``, ``sum``, ``count``, ``list`` (every
  value, joined by ``, ``);
- ``|.1%`` (optional): a ``format()`` spec; exponents lose their padding zeros (``6.6e-07`` ->
  ``6.6e-7``). Without one, the tables' own formatting (:func:`common.results.markdown_table`).

A whole table (some columns of some rows) goes between ``<!--table lab01/latency[backend=ort_cpu]
cols=batch,seq,speedup_vs_eager-->`` and ``<!--/table-->``.

Commands::

    python -m common.docs            # rewrite every figure and table in the docs from results/
    python -m common.docs --check    # exit 1 listing the stale ones (common/test_docs.py checks this)

Exit code: 0 up to date (or rewritten), 1 stale (``--check``), 2 a figure names a table, column or
row that does not exist.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import math
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .errors import UserError, run_cli
from .results import ROOT as RESULTS_ROOT, atomic_write, markdown_table, read_table

REPO = Path(__file__).resolve().parent.parent
#: Folders that hold no documentation of the project (environments, outputs, caches, copies).
SKIP_DIRS = frozenset({".git", ".venv", "results", "build", "mutants", "node_modules", "__pycache__", "data"})
#: Top-level packages of the project (``python -m <package>.<module>`` and ``package.module.name``).
PACKAGES = ("common", "lab01_onnx", "lab02_tvm", "lab03_mlir", "lab04_npu", "debugging")

FIG_RE = re.compile(r"<!--\s*fig\s+(?P<spec>.*?)\s*-->(?P<body>.*?)<!--\s*/fig\s*-->", re.S)
TABLE_RE = re.compile(r"<!--\s*table\s+(?P<spec>.*?)\s*-->(?P<body>.*?)<!--\s*/table\s*-->", re.S)
_SPEC_RE = re.compile(r"^(?P<table>[\w-]+(?:/[\w-]+)*)(?:\[(?P<sel>[^\]]*)\])?\.(?P<col>\w+)"
                      r"(?:\s+(?P<agg>[a-z]+))?\s*(?:\|(?P<fmt>.*))?$")
_TABLE_SPEC_RE = re.compile(r"^(?P<table>[\w-]+(?:/[\w-]+)*)(?:\[(?P<sel>[^\]]*)\])?\s+cols=(?P<cols>[\w,]+)$")
AGGREGATES = ("one", "first", "last", "min", "max", "sum", "count", "list")


# ---------------------------------------------------------------------------------------------
# the documentation files

def doc_files(root: Path = REPO) -> list[Path]:
    """Every Markdown file of the project (README.md, TOOLS.md, LADDER.md, ...), not in :data:`SKIP_DIRS`
    (``data/README.md`` included) nor in hidden or ``*.egg-info`` folders."""
    out = []
    for here, dirs, files in os.walk(root):
        rel = Path(here).relative_to(root)
        dirs[:] = sorted(d for d in dirs if not (d.startswith(".") or d.endswith(".egg-info")
                                                 or (d in SKIP_DIRS and not (rel == Path(".") and d == "data"))))
        out += [Path(here) / f for f in sorted(files) if f.endswith(".md")]
    return out


# ---------------------------------------------------------------------------------------------
# figures from the results tables

@cache
def _table(results: Path, name: str) -> dict:
    return read_table(results / f"{name}.json")


def _rows(results: Path, table: str, sel: str | None) -> list[dict]:
    rows = _table(results, table)["rows"]
    sel = (sel or "").strip()
    if not sel:
        return rows
    if re.fullmatch(r"-?\d+", sel):
        try:
            return [rows[int(sel)]]
        except IndexError:
            raise UserError(f"{table}: no row {sel} (the table has {len(rows)})") from None
    conds = []
    for part in sel.split(";"):
        col, eq, pattern = part.partition("=")
        if not eq:
            raise UserError(f"{table}[{sel}]: a condition is column=glob, got {part!r}")
        conds.append((col.strip(), pattern.strip()))
    for col, _ in conds:
        if rows and not any(col in r for r in rows):
            raise UserError(f"{table}[{sel}]: no column {col!r}")
    return [r for r in rows if all(fnmatch.fnmatchcase(_text(r.get(c)), p) for c, p in conds)]


def _text(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return "" if v is None else str(v)


def format_value(v, fmt: str | None) -> str:
    """``v`` with ``format(v, fmt)`` (exponent padding dropped: ``6.6e-7``), or as the tables print it."""
    if fmt is None or fmt == "":
        from .results import _fmt
        return _fmt(v)
    out = format(v, fmt)
    return re.sub(r"e([+-])0*(\d)", lambda m: f"e{'-' if m.group(1) == '-' else ''}{m.group(2)}", out)


def figure(spec: str, results: Path = RESULTS_ROOT) -> str:
    """The text of one figure, ``TABLE[SEL].COLUMN [AGG] [|FMT]`` (the module docstring).

    Raises:
        UserError: a malformed spec, a missing table or column, or rows that do not fit ``AGG``.
    """
    m = _SPEC_RE.match(spec.strip())
    if not m:
        raise UserError(f"figure spec {spec!r} is not TABLE[SELECTOR].COLUMN [AGGREGATE] [|FORMAT]")
    table, col, agg, fmt = m["table"], m["col"], m["agg"] or "one", m["fmt"]
    if agg not in AGGREGATES:
        raise UserError(f"figure {spec!r}: unknown aggregate {agg!r}; use one of {', '.join(AGGREGATES)}")
    rows = _rows(results, table, m["sel"])
    if agg == "count":
        return format_value(len(rows), fmt)
    if not rows:
        raise UserError(f"figure {spec!r}: no row matches")
    if any(col not in r for r in rows):
        raise UserError(f"figure {spec!r}: no column {col!r} in {table}")
    values = [r[col] for r in rows]
    if agg == "one":
        if len(values) != 1:
            raise UserError(f"figure {spec!r}: {len(values)} rows match; narrow the selector or name an aggregate")
        return format_value(values[0], fmt)
    if agg in ("first", "last"):
        return format_value(values[0 if agg == "first" else -1], fmt)
    if agg == "list":
        return ", ".join(format_value(v, fmt) for v in values)
    nums = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v)]
    if len(nums) != len(values):
        raise UserError(f"figure {spec!r}: {agg} needs numbers, got {values}")
    v = {"min": min, "max": max, "sum": sum}[agg](nums)
    return format_value(int(v) if all(isinstance(x, int) for x in values) else v, fmt)


def table_block(spec: str, results: Path = RESULTS_ROOT) -> str:
    """The Markdown table of ``TABLE[SEL] cols=a,b,c`` (between blank lines)."""
    m = _TABLE_SPEC_RE.match(spec.strip())
    if not m:
        raise UserError(f"table spec {spec!r} is not TABLE[SELECTOR] cols=a,b,c")
    rows = _rows(results, m["table"], m["sel"])
    cols = m["cols"].split(",")
    missing = [c for c in cols if not any(c in r for r in rows)]
    if not rows or missing:
        raise UserError(f"table {spec!r}: {'no row matches' if not rows else f'no column {missing}'}")
    return "\n\n" + markdown_table([{c: r.get(c, "") for c in cols} for r in rows]) + "\n"


def render(text: str, results: Path = RESULTS_ROOT) -> str:
    """``text`` with every figure and table span regenerated from ``results``."""
    def swap(m: re.Match, body: str) -> str:
        whole, start = m.group(0), m.start()
        return whole[:m.start("body") - start] + body + whole[m.end("body") - start:]

    text = FIG_RE.sub(lambda m: swap(m, figure(m["spec"], results)), text)
    return TABLE_RE.sub(lambda m: swap(m, table_block(m["spec"], results)), text)


def spans(text: str) -> Iterator[tuple[str, str, str]]:
    """``(kind, spec, body)`` of every figure and table span in ``text``."""
    for m in FIG_RE.finditer(text):
        yield "fig", m["spec"], m["body"]
    for m in TABLE_RE.finditer(text):
        yield "table", m["spec"], m["body"]


@dataclass
class Stale:
    path: Path
    kind: str
    spec: str
    shown: str
    table_says: str

    def line(self, root: Path = REPO) -> str:
        rel = self.path.relative_to(root) if self.path.is_relative_to(root) else self.path
        if self.kind == "table":
            return f"{rel}: table {self.spec!r} differs from the results table"
        return f"{rel}: figure {self.spec!r} shows {self.shown!r}, the table says {self.table_says!r}"


def stale(files: Iterable[Path] | None = None, results: Path = RESULTS_ROOT) -> list[Stale]:
    """Every figure or table span whose text is not what the results tables say."""
    out = []
    for path in doc_files() if files is None else files:
        text = path.read_text(encoding="utf-8")
        for kind, spec, body in spans(text):
            want = figure(spec, results) if kind == "fig" else table_block(spec, results)
            if body != want:
                out.append(Stale(path, kind, spec, body, want))
    return out


def update(files: Iterable[Path] | None = None, results: Path = RESULTS_ROOT) -> list[Path]:
    """Rewrite the stale spans in place (atomically); returns the files changed."""
    changed = []
    for path in doc_files() if files is None else files:
        text = path.read_text(encoding="utf-8")
        new = render(text, results)
        if new != text:
            atomic_write(path, new)
            changed.append(path)
    return changed


# ---------------------------------------------------------------------------------------------
# what the docs show: code, commands, names (common/test_docs.py checks them)

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
    """Targets the Makefile defines (parsed, never run: ``make -n`` still runs ``$(MAKE)`` lines)."""
    targets = set()
    for line in makefile.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([\w./$()-][\w./$() -]*?)\s*::?(?!=)", line)
        if m and not line.startswith("\t"):
            targets.update(t for t in m.group(1).split() if not t.startswith("."))
    return targets


# ---------------------------------------------------------------------------------------------
# names in backticks: paths, module.function, CONSTANTS

PATH_EXTS = ("py", "md", "toml", "lock", "json", "csv", "png", "onnx", "mlir", "so", "tar", "txt", "cfg", "spv",
             "vmfb", "npz", "bin", "cc", "sh", "yaml", "yml", "ini")
_PATH_RE = re.compile(r"\.{0,2}/?[\w.*<>{},-]+(?:/[\w.*<>{},-]*)+|[\w.*<>{},-]+\.(?:" + "|".join(PATH_EXTS) + r")")
_DOTTED_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CONST_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def expand_braces(s: str) -> list[str]:
    """``a/{b,c}.{md,csv}`` -> ``a/b.md, a/b.csv, a/c.md, a/c.csv`` (no nesting)."""
    m = re.search(r"\{([^{}]*)\}", s)
    if not m:
        return [s]
    return [y for alt in m.group(1).split(",") for y in expand_braces(s[:m.start()] + alt + s[m.end():])]


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


@cache
def _repo_files(root: Path) -> dict[str, list[Path]]:
    """File and folder names -> paths, over the repo (no .git, .venv, mutants, build)."""
    index: dict[str, list[Path]] = {}
    for here, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".venv", "mutants", "build", "__pycache__", "node_modules",
                                                ".hypothesis", ".pytest_cache", ".ruff_cache")]
        for name in (*files, *dirs):
            index.setdefault(name, []).append(Path(here) / name)
    return index


#: Dialect names of MLIR ops (``tosa.matmul``, ``spirv.module``): Lab 03 has Python modules of the same
#: names (tosa.py, spirv.py), so a ``dialect.op`` that is not a name of that module is an MLIR op.
MLIR_DIALECTS = frozenset({"tosa", "spirv", "linalg", "arith", "func", "memref", "affine", "scf", "cf", "llvm",
                           "vector", "tensor", "gpu", "stablehlo", "transform", "bufferization", "math"})
#: Path suffixes of the Markdown a doc may name bare (``compare.md``, ``reshape.py``); bare names of
#: other kinds (``model.onnx``, ``lib.so``, ``NN_abi.mlir``) are the artefacts a run writes.
SOURCE_EXTS = (".py", ".md", ".toml", ".lock", ".cfg", ".ini", ".sh")
#: Paths a doc names that are not in the repository, with why. Outputs that .gitignore keeps out of
#: commits (``results/**/*.onnx``, ``build/``, ``mutants/``) are recognised from .gitignore itself.
PATH_ALLOWLIST = {
    "results/lab01/fuzz_counterexamples/": "written only when the fuzzer finds a counterexample",
    "results/lab01/fusions_models/": "written by `python -m lab01_onnx.tools.fusions --keep`",
    "results/lab03/torch_stages/": "written by `python -m lab03_mlir.ladder --save-stages`",
    "builtin_mlir_adapter.py": "a file of the installed ai-edge-model-explorer package",
    "mlir/lib/ExecutionEngine/VulkanRuntime.cpp": "a file of the LLVM source tree, not of the mlir wheel",
}


@cache
def _ignored_patterns(root: Path) -> tuple[str, ...]:
    gi = root / ".gitignore"
    lines = gi.read_text(encoding="utf-8").splitlines() if gi.is_file() else []
    return tuple(ln.strip().lstrip("/").replace("**/", "*") for ln in lines
                 if ln.strip() and not ln.startswith(("#", "!")))


def ignored_output(name: str, root: Path = REPO) -> bool:
    """Whether ``name`` is something .gitignore keeps out of the repo (a run's binary, build/, mutants/)."""
    name = name.lstrip("./")
    for pat in _ignored_patterns(root):
        if pat.endswith("/") and (name + "/").startswith(pat):
            return True
        if fnmatch.fnmatchcase(name, pat) or fnmatch.fnmatchcase(name.rstrip("/"), pat.rstrip("/")):
            return True
    return False


def _external_dir(first: str) -> Path | None:
    """The folder of an installed top-level package (``model_explorer``), without importing it."""
    import importlib.util
    if not first.isidentifier():
        return None
    try:
        spec = importlib.util.find_spec(first)
    except (ImportError, ValueError):
        return None
    locs = list(spec.submodule_search_locations or []) if spec else []
    return Path(locs[0]) if locs else None


def path_to_check(name: str, doc: Path, root: Path = REPO) -> bool:
    """Whether ``name`` is meant as a path of the project (or of an installed package) at all.

    A bare name only with a source suffix (:data:`SOURCE_EXTS`); a multi-part one only when its first
    part exists beside the doc, at the repo root, or is an installed package (``layers.0/self_attn/Neg``
    is an ONNX node name, ``wikitext-2-raw/...`` a file the user provides). Allow-listed and
    git-ignored outputs are not checked.
    """
    clean = name.lstrip("./") if name.startswith("./") else name
    if clean in PATH_ALLOWLIST or ignored_output(clean, root) or clean.startswith("/"):
        return False
    parts = [p for p in clean.split("/") if p]
    if len(parts) == 1 and not clean.endswith("/"):
        return clean.endswith(SOURCE_EXTS)
    first = parts[0]
    return ((doc.parent / first).exists() or (root / first).exists() or first == ".."
            or (first not in PACKAGES and _external_dir(first) is not None))


def resolve_path(name: str, doc: Path, root: Path = REPO) -> bool:
    """Whether the path ``name`` a doc names exists: relative to the doc's folder, to the repo, inside
    an installed package (its first part), or (a bare file name) anywhere in the repo. ``<x>`` and
    upper-case words (``NN_<stage>.mlir``, ``MODEL.onnx``) are wildcards, ``{a,b}`` is expanded, and a
    results table may be named without its suffix (``results/debugging/padding``)."""
    for one in expand_braces(name):
        pattern = re.sub(r"<[^>/]*>", "*", one)
        pattern = re.sub(r"(?<![A-Za-z0-9])[A-Z]{1,}(?![a-z])", "*", pattern).rstrip("/") or "."
        bases = [doc.parent, root]
        ext = _external_dir(pattern.split("/")[0]) if "/" in pattern else None
        if ext is not None:
            bases.append(ext.parent)
        found = any(True for base in bases for cand in (pattern, pattern + ".json") for _ in _glob(base, cand))
        if not found and "/" not in pattern:
            names = _repo_files(root)
            found = any(fnmatch.fnmatchcase(n, pattern) for n in names) if "*" in pattern else pattern in names
        if not found:
            return False
    return True


def _glob(base: Path, pattern: str) -> Iterator[Path]:
    if "*" not in pattern:
        p = base / pattern
        if p.exists():
            yield p
        return
    yield from base.glob(pattern)


# --- module.function, resolved without importing (imports have side effects: torch-mlir's order)

def _module_file(parts: Sequence[str], root: Path) -> Path | None:
    base = root.joinpath(*parts)
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


@cache
def _top_level(path: Path) -> dict[str, ast.AST]:
    """Names bound at a module's top level (defs, classes, assignments, imports; inside if/try too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: dict[str, ast.AST] = {}

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names[node.name] = node
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            names[n.id] = node
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
                names[node.target.id] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    names[(a.asname or a.name).split(".")[0]] = node
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for h in node.handlers:
                    visit(h.body)
                visit(node.orelse)
                visit(node.finalbody)
    visit(tree.body)
    return names


def _class_names(node: ast.ClassDef) -> set[str]:
    out = set()
    for n in node.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.Assign):
            out.update(t.id for t in n.targets if isinstance(t, ast.Name))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
    return out


def _package_of(doc: Path, root: Path) -> list[str]:
    """The package a doc documents (``["lab01_onnx"]`` for lab01_onnx/README.md; ``[]`` at the root)."""
    rel = doc.parent.relative_to(root).parts if doc.parent.is_relative_to(root) else ()
    return list(rel) if rel and (root.joinpath(*rel) / "__init__.py").is_file() else []


def _resolve_module_prefix(parts: list[str], doc: Path, root: Path) -> tuple[list[str], int] | None:
    """``(module path parts, number of name parts consumed)`` for the longest module prefix of ``parts``,
    absolute (a project package) or relative to the doc's package (or one of its sub-packages)."""
    pkg = _package_of(doc, root)
    bases: list[list[str]] = []
    if parts[0] in PACKAGES:
        bases.append([])
    elif pkg:
        bases.append(pkg)
        here = root.joinpath(*pkg)
        bases += [[*pkg, d.name] for d in sorted(here.iterdir()) if (d / "__init__.py").is_file()]
    for base in bases:
        best = None
        for i in range(1, len(parts) + 1):
            if _module_file([*base, *parts[:i]], root):
                best = ([*base, *parts[:i]], i)
        if best:
            return best
    return None


def resolve_dotted(name: str, doc: Path, root: Path = REPO) -> bool | None:
    """Whether ``module.attr...`` exists (True/False), or None when the first part is not a module of
    the project (an external API: ``tvm.compile``, ``torch.export``, ``args.skip``)."""
    parts = name.split(".")
    found = _resolve_module_prefix(parts, doc, root)
    if found is None:
        return None
    mod, used = found
    attrs = parts[used:]
    ok = _has_attrs(mod, attrs, root, depth=0)
    if not ok and attrs and any(isinstance(n, ast.ClassDef) and attrs[0] in _class_names(n)
                                for n in ast.walk(ast.parse(_module_file(mod, root).read_text(encoding="utf-8")))):
        return True  # an instance named after its module: `shapes.invalidate()` of a shapes.Shapes
    if not ok and parts[0] in MLIR_DIALECTS:
        return None  # an MLIR op (tosa.matmul), not a name of Lab 03's tosa.py
    return ok


def _has_attrs(mod: list[str], attrs: list[str], root: Path, depth: int) -> bool:
    if not attrs:
        return True
    path = _module_file(mod, root)
    if path is None or depth > 4:
        return False
    names = _top_level(path)
    node = names.get(attrs[0])
    if node is None:
        return (path.name == "__init__.py" and _module_file([*mod, attrs[0]], root) is not None
                and _has_attrs([*mod, attrs[0]], attrs[1:], root, depth))
    if isinstance(node, ast.ImportFrom) and node.level:  # a re-export: follow it into the package
        src = mod[:len(mod) - node.level + (1 if path.name == "__init__.py" else 0)]
        src += node.module.split(".") if node.module else []
        alias = next(a for a in node.names if (a.asname or a.name) == attrs[0])
        if _module_file([*src, alias.name], root):
            return _has_attrs([*src, alias.name], attrs[1:], root, depth + 1)
        return _has_attrs(src, [alias.name, *attrs[1:]], root, depth + 1)
    if len(attrs) > 1 and isinstance(node, ast.ClassDef):
        return attrs[1] in _class_names(node) or bool(node.bases)  # an inherited name cannot be told apart
    return True


def defined_in(constant: str, path: Path) -> bool:
    """Whether ``path`` (a Python file) defines ``constant`` at its top level (an assignment, def or
    class: a name it only imports is defined elsewhere)."""
    if path.suffix != ".py" or not path.is_file():
        return False
    node = _top_level(path).get(constant)
    return node is not None and not isinstance(node, (ast.Import, ast.ImportFrom))


@cache
def _code_text(root: Path) -> str:
    """Every non-test Python file of the project, the Makefile and .ci/: where constants and
    environment variables are defined or read."""
    chunks = []
    for pkg in (*PACKAGES, "conftest.py", "Makefile", ".ci"):
        p = root / pkg
        files = [p] if p.is_file() else sorted(p.rglob("*")) if p.is_dir() else []
        chunks += [f.read_text(encoding="utf-8", errors="replace") for f in files
                   if f.is_file() and (f.suffix in ("", ".py") or f.name == "Makefile") and "__pycache__" not in f.parts
                   and not f.name.startswith("test_")]
    return "\n".join(chunks)


def constant_known(constant: str, root: Path = REPO) -> bool:
    """Whether the project's code binds ``constant`` (``NAME =``, ``NAME:``) or reads it as a string
    (an environment variable: ``os.environ.get("MLC_CPU")``)."""
    text = _code_text(root)
    return bool(re.search(rf"^\s*{constant}\s*[:=]|[\"']{constant}[\"'=]|\${{?{constant}\b", text, re.M))


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


# ---------------------------------------------------------------------------------------------

def _main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m common.docs", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="Markdown files (default: every doc of the project)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 listing the stale figures")
    ap.add_argument("--results", type=Path, default=RESULTS_ROOT,
                    help="the tables to read (default: the committed results/ beside common/)")
    args = ap.parse_args(argv)
    files = [f.resolve() for f in args.files] or None
    if args.check:
        bad = stale(files, args.results)
        for s in bad:
            print(s.line())
        n = sum(1 for f in (files or doc_files()) for _ in spans(f.read_text(encoding="utf-8")))
        print(f"{len(bad)} stale of {n} figures and tables" + ("; run python -m common.docs" if bad else ""))
        return 1 if bad else 0
    changed = update(files, args.results)
    for p in changed:
        print(f"updated {p.relative_to(REPO) if p.is_relative_to(REPO) else p}")
    print(f"{len(changed)} files updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(_main))
