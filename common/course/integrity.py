"""Whether a graded run told the truth: its signed report, and the grading tree it ran in left as laid out.

Code under test runs in the process that writes the report, beside the grading tree, so the grader
(:mod:`common.course.grade`) checks both after every pytest run: each record of the ``--task-report``
file is signed with a key the plugin read from a pipe and closed before any test module was imported
(:func:`common.course.plugin.signed_body`, HMAC-SHA-256; :func:`read_report` stops at the first record it
did not sign or that comes out of order), and the tree is compared with its :func:`manifest` (SHA-256 of
every file, :func:`altered`), the test modules also as pytest imported them (:func:`sources_changed`).
"""
from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

from .plugin import signed_body


def _record(line: str) -> dict | None:
    """The JSON object a report line holds; a line cut by a crash and then continued by the next run's first
    record holds that record at its end (None when nothing parses)."""
    for at in [0, *(i for i, c in enumerate(line) if c == "{" and i)]:
        try:
            record = json.loads(line[at:])
        except json.JSONDecodeError:
            continue
        return record if isinstance(record, dict) else None
    return None


def read_report(path: Path, key: bytes | None = None) -> tuple[list[dict], str | None]:
    """The records of a ``--task-report`` file written since its last ``begin`` (a forked run that crashed is
    run again in a fresh interpreter, appending to the same file: the second run's records stand), and what
    is wrong with the file (None: nothing).

    With ``key`` (the grader's runs: :func:`common.course.plugin._signer`), every complete line must be a
    record signed with it, numbered in order from its run's ``begin``; reading stops at the first that is not,
    and names it: code under test wrote to the report. A last line without its newline is a crash's cut.
    """
    if not path.is_file():
        return [], None
    out: list[dict] = []
    due = None
    for i, line in enumerate(path.read_text(errors="replace").split("\n")[:-1], start=1):
        record = _record(line)
        if key is not None:
            if record is None or not isinstance(record.get("mac"), str) or not hmac.compare_digest(
                    record["mac"], hmac.new(key, signed_body(record), "sha256").hexdigest()):
                return out, f"line {i} of the test report is not a record the grader's plugin signed"
            seq = record.get("seq")
            if not (record.get("kind") == "begin" and seq == 0) and seq != due:
                return out, f"line {i} of the test report is record {seq} where {due} was due"
            due = seq + 1
        if record is None:
            continue
        if record.get("kind") == "begin":
            out.clear()
        out.append(record)
    return out, None


#: New files of these kinds in a grading tree change what later runs import or how pytest starts.
_CODE_SUFFIXES = (".py", ".pth", ".toml", ".ini", ".cfg")


def manifest(tree: Path) -> dict[str, str]:
    """``{relative path: SHA-256}`` of every file of a grading tree (no ``__pycache__``), taken once it is laid
    out: :func:`altered` compares the tree with it after each pytest run."""
    return {p.relative_to(tree).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(tree.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def altered(tree: Path, before: dict[str, str]) -> str | None:
    """The first file of ``tree`` that differs from ``before`` (changed, removed, or a new ``.py``/``.pth``/
    config file), said in a few words; None when none does. The reference's graded tests write nothing into
    the tree (their tables go to ``MLC_RESULTS_DIR``), so any such change is code under test's."""
    now = manifest(tree)
    for rel, digest in before.items():
        if now.get(rel) != digest:
            return f"{rel} was {'removed' if rel not in now else 'changed'}"
    new = next((rel for rel in now if rel not in before and rel.endswith(_CODE_SUFFIXES)), None)
    return f"{new} was added" if new else None


def sources_changed(tree: Path, records: list[dict]) -> str | None:
    """The first test module whose SHA-256 as pytest imported it (the ``collected`` record's ``sources``) differs
    from the grading tree's file now, or that the tree does not hold: code under test rewrote it before its
    import (and may have put it back since). None when every one matches."""
    for r in records:
        for rel, digest in (r.get("sources") or {}).items() if r.get("kind") == "collected" else ():
            path = tree / rel
            if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                return f"the test module {rel} was not the grader's when pytest imported it"
    return None
