"""Rewrite every figure and table in the docs from the committed results tables
(:mod:`common.docs.figures`).

Commands::

    python -m common.docs            # rewrite every figure and table in the docs from results/
    python -m common.docs --check    # exit 1 listing the stale ones (common/test_docs.py checks this)

Exit code: 0 up to date (or rewritten), 1 stale (``--check``), 2 a figure names a table, column or
row that does not exist.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ..errors import run_cli
from ..results import ROOT as RESULTS_ROOT
from . import REPO, doc_files
from .figures import spans, stale, update


def main(argv: Sequence[str] | None = None) -> int:
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
    raise SystemExit(run_cli(main))
