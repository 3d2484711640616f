"""Whether a ``module.function`` or a ``CONSTANT`` a doc names exists in the project's code,
resolved from the source without importing it (imports have side effects: torch-mlir's order).
"""
from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from . import PACKAGES, REPO

#: Dialect names of MLIR ops (``tosa.matmul``, ``spirv.module``): Lab 03 has Python modules of the same
#: names (tosa.py, the spirv/ package), so a ``dialect.op`` that is not a name of that module is an MLIR op.
MLIR_DIALECTS = frozenset({"tosa", "spirv", "linalg", "arith", "func", "memref", "affine", "scf", "cf", "llvm",
                           "vector", "tensor", "gpu", "stablehlo", "transform", "bufferization", "math"})


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
    """Every non-test Python file of the project, the Makefile, course.mk and .ci/: where constants and
    environment variables are defined or read."""
    chunks = []
    for pkg in (*PACKAGES, "conftest.py", "Makefile", "course.mk", ".ci"):
        p = root / pkg
        files = [p] if p.is_file() else sorted(p.rglob("*")) if p.is_dir() else []
        chunks += [f.read_text(encoding="utf-8", errors="replace") for f in files
                   if f.is_file() and (f.suffix in ("", ".py", ".mk") or f.name == "Makefile") and "__pycache__" not in f.parts
                   and not f.name.startswith("test_")]
    return "\n".join(chunks)


def constant_known(constant: str, root: Path = REPO) -> bool:
    """Whether the project's code binds ``constant`` (``NAME =``, ``NAME:``) or reads it as a string
    (an environment variable: ``os.environ.get("MLC_CPU")``)."""
    text = _code_text(root)
    return bool(re.search(rf"^\s*{constant}\s*[:=]|[\"']{constant}[\"'=]|\${{?{constant}\b", text, re.M))

