"""Docs that cannot drift: the project's Markdown files, and what ``common/test_docs.py`` holds them to.

- :mod:`common.docs.figures`: README figures and tables generated from the committed results tables
  (``python -m common.docs`` rewrites them, ``--check`` lists the stale ones);
- :mod:`common.docs.shown`: what a doc shows: fenced blocks, inline code, the commands in them, the
  names in backticks and what kind of name each is;
- :mod:`common.docs.paths`: whether a path a doc names exists;
- :mod:`common.docs.names`: whether a ``module.function`` or ``CONSTANT`` a doc names exists
  (resolved without importing: imports have side effects).

This module says which files are the docs (:func:`doc_files`).
"""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
#: Folders that hold no documentation of the project (environments, outputs, caches, copies).
SKIP_DIRS = frozenset({".git", ".venv", "results", "build", "mutants", "node_modules", "__pycache__", "data"})
#: Top-level packages of the project (``python -m <package>.<module>`` and ``package.module.name``).
PACKAGES = ("common", "lab01_onnx", "lab02_tvm", "lab03_mlir", "lab04_npu", "debugging")


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

