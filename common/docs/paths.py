"""Whether a path a doc names exists: in the repository (relative to the doc or to the root, or a
bare file name anywhere), inside an installed package, or as an output .gitignore keeps out of it.
"""
from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from . import PACKAGES, REPO

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


def expand_braces(s: str) -> list[str]:
    """``a/{b,c}.{md,csv}`` -> ``a/b.md, a/b.csv, a/c.md, a/c.csv`` (no nesting)."""
    m = re.search(r"\{([^{}]*)\}", s)
    if not m:
        return [s]
    return [y for alt in m.group(1).split(",") for y in expand_braces(s[:m.start()] + alt + s[m.end():])]


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


