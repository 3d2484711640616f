"""Mutation testing of the gates, the three Lab 01 passes and the Lab 03 unroll pass (mutmut 3).

A standing measure of how strong the tests are: ``mutmut`` (https://mutmut.readthedocs.io, 3.8)
makes small changes (*mutants*) to each function of a target -- ``<=`` to ``<``, ``and`` to
``or``, a constant to another, an argument dropped -- and runs, for each mutant, the target's own
tests that call that function. A mutant some test fails on is *killed*; one every test passes is
*survived*; a survivor that cannot change any behaviour (``float("inf")`` -> ``float("INF")``) is
*equivalent* and is listed, with why, in :data:`EQUIVALENTS` (``common/mutation_equivalents.toml``).

Targets (:data:`TARGETS`): ``gates`` (``common/gates.py``), ``passes`` (``lab01_onnx/passes/``:
the three rules, the def-use index and rule driver, the shape helper; and ``common/onnx_graph.py``,
the index it is built on) and ``unroll``
(``lab03_mlir/unroll.py``). Each runs in its own work folder ``mutants/<target>/`` (gitignored): a
snapshot of the packages it needs, the root ``conftest.py`` and ``pyproject.toml`` with a
generated ``[tool.mutmut]`` section; mutmut copies that into its own ``mutants/`` sub-folder and
puts it first on ``sys.path`` (the editable install's finder comes after ``sys.path``, so the
mutated copy is what the tests import). Tests run with ``CI=true``, ``--hypothesis-seed=0`` (the
same examples every run, so a kill is reproducible) and one worker by default.

Usage::

    python -m common.mutation                       # all targets, 1 worker; writes results/mutation.*
    python -m common.mutation --target gates        # one target (the table keeps the others' last run here)
    python -m common.mutation --retest-survivors    # the last run's survivors against the kill tests only
    python -m common.mutation --report-only         # rebuild the table from the work folders

Writes ``results/mutation.{md,csv,json}`` (one row per mutated file and target: mutants, killed,
crashed, survived, equivalent, no tests, timeout, score) and ``results/mutation_survivors.md`` (the diff of
every non-equivalent survivor; the equivalent ones with why).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .cli import parser, step
from .errors import UserError, require, run_cli
from .results import atomic_write, results_dir, write_table

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "common" / "mutation_equivalents.toml"
WORK = "mutants"
# Pytest options of every mutant run: deterministic Hypothesis examples, no cache writes.
PYTEST_ARGS = ["-p", "no:cacheprovider", "--hypothesis-seed=0"]


@dataclass(frozen=True)
class Target:
    """One mutation target.

    Attributes:
        name: ``--target`` name.
        mutate: files mutated (paths from the repository root).
        packages: top-level packages copied into the work folder (mutmut's ``source_paths``).
        tests: test files whose tests cover the target (one not written yet runs as an empty file).
        keyword: pytest ``-k`` expression selecting the covering tests of those files ("" = all).
        kill_tests: the test files written to kill this target's survivors (``--retest-survivors`` runs them).
        isolation: mutmut's ``process_isolation`` (``fork`` or ``forkserver``).
    """

    name: str
    mutate: tuple[str, ...]
    packages: tuple[str, ...]
    tests: tuple[str, ...]
    keyword: str
    kill_tests: tuple[str, ...] = ()
    isolation: str = "fork"


# Lab 01 test_lab.py also exports models (minutes); the conformance file's backend-suite slice and fuzz
# slice take ~1 min per run: those are left out (they run in the suite), every unit test of the passes stays.
_LAB01_SLOW = ("export", "bert", "dynamo", "bisect", "int8", "cli", "pipeline", "runtime_without", "cuda",
               "backend", "fuzz_")
TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("gates", ("common/gates.py",), ("common",),
           ("common/test_common.py", "common/test_gates_mutants.py"), "gate or diff_stats or markdown",
           ("common/test_gates_mutants.py",)),
    # the three rules, their def-use index (and the common index it is built on) and rule driver, and the
    # shape helper of the Reshape rule (the manager, a loop over the passes that also times them, is left
    # out to keep the run under ~40 min here)
    Target("passes", tuple(f"lab01_onnx/passes/{m}.py" for m in ("core", "reshape", "identity", "gather",
                                                                  "shapes")) + ("common/onnx_graph.py",),
           ("common", "lab01_onnx"),
           ("lab01_onnx/test_lab.py", "lab01_onnx/test_passes_conformance.py", "lab01_onnx/test_pass_mutants.py",
            "common/test_onnx_graph.py"),
           " and ".join(f"not {w}" for w in _LAB01_SLOW), ("lab01_onnx/test_pass_mutants.py", "common/test_onnx_graph.py")),
    Target("unroll", ("lab03_mlir/unroll.py",), ("common", "lab03_mlir"),
           ("lab03_mlir/test_lab.py", "lab03_mlir/test_unroll_mutants.py"), "unroll or loop_structure or trip_count or short_loop",
           ("lab03_mlir/test_unroll_mutants.py",)),
)}

# mutmut 3 exit codes -> the table's columns (mutmut.stats.status_by_exit_code, grouped). A test process
# that aborts or segfaults under a mutant (-6, -11: e.g. MLIR aborting on an error a pass did not report)
# is "crashed": the suite goes red, so it counts as detected, in its own column.
_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no_tests", 33: "no_tests", 36: "timeout", 24: "timeout",
           -24: "timeout", 152: "timeout", 255: "timeout", -6: "crashed", -11: "crashed", None: "not_checked"}


def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def mutmut_config(target: Target, tests: Sequence[str]) -> str:
    """The ``[tool.mutmut]`` section for ``target`` (``tests``: the covering test files)."""
    lines = ["[tool.mutmut]",
             f"source_paths = [{', '.join(_toml_str(p) for p in target.packages)}]",
             f"only_mutate = [{', '.join(_toml_str(p) for p in target.mutate)}]",
             'also_copy = ["conftest.py"]',
             f"pytest_add_cli_args = [{', '.join(_toml_str(a) for a in PYTEST_ARGS)}]",
             "pytest_add_cli_args_test_selection = ["
             + ", ".join(_toml_str(a) for a in [*tests, *(["-k", target.keyword] if target.keyword else [])]) + "]",
             f"process_isolation = {_toml_str(target.isolation)}",
             'on_dependency_change = "ignore"',
             "use_git_change_detection = false"]
    return "\n".join(lines) + "\n"


def _without_mutmut_section(text: str) -> str:
    """``pyproject.toml`` text without a ``[tool.mutmut]`` table (the work folder gets its own)."""
    return re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", text)


def prepare(target: Target, work: Path, root: Path = ROOT) -> list[str]:
    """Fill ``work`` with a fresh snapshot for ``target``; return the covering test files.

    Raises:
        UserError: a mutated file is missing.
    """
    missing = [m for m in target.mutate if not (root / m).is_file()]
    if missing:
        raise UserError(f"mutation target {target.name!r}: {missing} not found under {root}; update "
                        "common/mutation.py TARGETS to the current layout")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "results", "*.onnx")
    for pkg in target.packages:
        shutil.copytree(root / pkg, work / pkg, ignore=skip)
    shutil.copy2(root / "conftest.py", work / "conftest.py")
    tests = list(target.tests)
    for t in tests:  # a test file not written yet: an empty stand-in keeps the selection (mutmut's cache key) fixed
        if not (root / t).is_file():
            (work / t).write_text(f'"""{t} does not exist yet."""\n')
    text = _without_mutmut_section((root / "pyproject.toml").read_text())
    (work / "pyproject.toml").write_text(text.rstrip("\n") + "\n\n" + mutmut_config(target, tests))
    return tests


def retest(target: Target, work: Path, max_children: int = 1) -> tuple[int, int, float]:
    """Re-run the survivors of the run in ``work`` against ``target.kill_tests`` and merge the verdicts.

    A survivor passed every covering test of the full run, so running only the kill tests on it
    decides whether the suite now kills it. They run in a sibling folder ``<work>-retest`` (its
    own mutmut cache); a mutant they kill gets that verdict (mutmut's exit code) in ``work``'s
    results. Returns ``(survivors retested, killed now, wall seconds)``.
    """
    keys = [m["key"] for m in collect(target, work) if m["status"] in ("survived", "suspicious")]
    if not keys:
        return 0, 0, 0.0
    rt = work.with_name(work.name + "-retest")
    kill = dataclasses.replace(target, tests=target.kill_tests, keyword="")
    prepare(kill, rt)
    wall = run_mutmut(rt, max_children, keys)  # its wall.json stays in rt: work's wall_s is the full run's
    killed = 0
    for rel in target.mutate:
        main, new = work / WORK / (rel + ".meta"), rt / WORK / (rel + ".meta")
        if not (main.is_file() and new.is_file()):
            continue
        doc, codes = json.loads(main.read_text()), json.loads(new.read_text())["exit_code_by_key"]
        for key in keys:
            if key in doc["exit_code_by_key"] and _STATUS.get(codes.get(key), "survived") in ("killed", "crashed",
                                                                                            "timeout"):
                doc["exit_code_by_key"][key] = codes[key]
                killed += 1
        atomic_write(main, json.dumps(doc, indent=4))
    log = work / "retests.json"
    runs = json.loads(log.read_text()) if log.is_file() else []
    atomic_write(log, json.dumps([*runs, {"survivors": len(keys), "killed": killed, "wall_s": round(wall, 1)}]))
    return len(keys), killed, wall


def run_mutmut(work: Path, max_children: int = 1, names: Sequence[str] = ()) -> float:
    """``mutmut run --max-children N [names]`` in ``work`` (log: ``work/mutmut.log``); returns wall seconds.

    Raises:
        UserError: mutmut stopped with an error (the log's last lines say why).
    """
    mutmut = Path(sys.executable).with_name("mutmut")
    env = {**os.environ, "CI": "true", "MLC_RESULTS_DIR": str(work / "_results"), "OMP_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.perf_counter()
    with open(work / "mutmut.log", "w") as log:
        rc = subprocess.run([str(mutmut), "run", "--max-children", str(max_children), *names], cwd=work, env=env,
                            stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.perf_counter() - t0
    if rc != 0:
        tail = (work / "mutmut.log").read_text(errors="replace")[-1500:]
        raise UserError(f"mutmut run failed in {work} (exit {rc}); see {work / 'mutmut.log'}: ...{tail[-300:]!r}")
    atomic_write(work / "wall.json", json.dumps({"wall_s": wall, "max_children": max_children,
                                                 "retest": bool(names)}))
    return wall


@contextmanager
def _cwd(path: Path):
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def describe(diff: str) -> tuple[str, str]:
    """``(before, after)`` of a unified diff: its removed and added lines, stripped, joined by `` / ``."""
    lines = [ln for ln in diff.splitlines() if not ln.startswith(("---", "+++", "@@"))]
    before = " / ".join(ln[1:].strip() for ln in lines if ln.startswith("-"))
    after = " / ".join(ln[1:].strip() for ln in lines if ln.startswith("+"))
    return before, after


def function_of(key: str) -> str:
    """``common.gates.x_diff_stats__mutmut_3`` -> ``diff_stats``; ``...xǁGateChainǁcheck__mutmut_1`` -> ``GateChain.check``."""
    name = key.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
    if "ǁ" in name:  # a method: xǁClassǁname
        return ".".join(name.split("ǁ")[1:])
    return name[2:] if name.startswith("x_") else name


def load_equivalents(path: Path = EQUIVALENTS) -> dict[tuple[str, str, str, str], str]:
    """``{(file, function, before, after): why}`` from the hand-kept TOML list (``[[equivalent]]`` tables)."""
    if not path.is_file():
        return {}
    doc = tomllib.loads(path.read_text())
    return {(e["file"], e["function"], e["before"], e["after"]): e["why"] for e in doc.get("equivalent", [])}


def collect(target: Target, work: Path) -> list[dict]:
    """One dict per mutant of ``target`` from its work folder: file, function, key, status, before, after."""
    require("mutmut", "mutmut", "common.mutation (reading mutmut's results)")
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    out = []
    with _cwd(work):
        for rel in target.mutate:
            meta = Path(WORK) / (rel + ".meta")
            if not meta.is_file():
                continue
            codes = json.loads(meta.read_text())["exit_code_by_key"]
            for key, code in codes.items():
                status = _STATUS.get(code, "suspicious")
                before = after = ""
                if status not in ("killed", "crashed"):
                    before, after = describe(get_diff_for_mutant(key, path=rel))
                out.append({"file": rel, "function": function_of(key), "key": key, "status": status,
                            "before": before, "after": after})
    return out


def classify(mutants: list[dict], equivalents: dict) -> list[dict]:
    """Mark survivors listed in ``equivalents`` as ``equivalent`` (adds ``why``); returns ``mutants``."""
    for m in mutants:
        why = equivalents.get((m["file"], m["function"], m["before"], m["after"]))
        if m["status"] == "survived" and why is not None:
            m["status"], m["why"] = "equivalent", why
    return mutants


COLUMNS = ("killed", "crashed", "survived", "equivalent", "no_tests", "timeout", "suspicious", "not_checked")


def table_rows(target: str, mutants: list[dict], wall_s: float | None) -> list[dict]:
    """Per-file rows plus a total row for ``target``; ``score`` = detected / (mutants - equivalent), where
    detected = killed + crashed + timeout (mutmut's own score counts a timeout as a kill)."""
    rows = []
    files = list(dict.fromkeys(m["file"] for m in mutants))
    for f in [*files, "(all)"]:
        ms = [m for m in mutants if f in ("(all)", m["file"])]
        counts = {c: sum(m["status"] == c for m in ms) for c in COLUMNS}
        real = len(ms) - counts["equivalent"]
        rows.append({"target": target, "file": f, "mutants": len(ms), **counts,
                     "score": round((counts["killed"] + counts["crashed"] + counts["timeout"]) / real, 4)
                     if real else None,
                     "wall_s": round(wall_s, 1) if f == "(all)" and wall_s is not None else None})
    return rows


def survivors_markdown(by_target: dict[str, list[dict]]) -> str:
    """The survivors' diffs and the equivalent mutants with why, per target."""
    md = ["# Mutation testing: surviving and equivalent mutants", "",
          "Written by `python -m common.mutation`. A survivor is a change no covering test notices; "
          "an equivalent mutant changes no behaviour (why beside it, from common/mutation_equivalents.toml).", ""]
    for target, ms in by_target.items():
        for status, head in (("survived", "surviving"), ("equivalent", "equivalent"),
                             ("no_tests", "not covered by any selected test"), ("timeout", "timed out")):
            sel = [m for m in ms if m["status"] == status]
            if not sel:
                continue
            md += [f"## {target}: {len(sel)} {head}", ""]
            for m in sel:
                md.append(f"- `{m['file']}` `{m['function']}`: `{m['before']}` -> `{m['after']}`"
                          + (f"  \n  why: {m['why']}" if m.get("why") else ""))
            md.append("")
    return "\n".join(md)


def report(names: Sequence[str], root: Path = ROOT) -> dict[str, list[dict]]:
    """Collect every target that has a work folder, write the tables; returns mutants by target.

    A target without one (never run on this machine: ``mutants/`` is not committed) is left out of the tables,
    and a line names it: the committed table's rows of another run are not mixed with this run's environment.

    Raises:
        UserError: no target of ``names`` has results under ``mutants/`` (nothing to write).
        MissingDependency: ``mutmut`` is not installed (needed to read the results).
    """
    from .timing import environment

    eq = load_equivalents()
    by_target, rows, retests = {}, [], {}
    for name in names:
        work = root / WORK / name
        if not (work / WORK).is_dir():
            continue
        ms = classify(collect(TARGETS[name], work), eq)
        wall = json.loads((work / "wall.json").read_text()) if (work / "wall.json").is_file() else {}
        by_target[name] = ms
        rows += table_rows(name, ms, wall.get("wall_s"))
        if (work / "retests.json").is_file():
            retests[name] = json.loads((work / "retests.json").read_text())
    if not rows:
        raise UserError("no mutation results yet: run python -m common.mutation first")
    absent = [n for n in names if n not in by_target]
    if absent:
        print(f"note: not in the tables (no work folder under {root / WORK}; run --target {' --target '.join(absent)} "
              f"to add): {', '.join(absent)}")
    env = environment(threads=1)
    meta = {"tool": "mutmut 3 (python -m common.mutation)", "pytest": " ".join(PYTEST_ARGS) + " with CI=true",
            "tests": {n: {"files": list(TARGETS[n].tests), "k": TARGETS[n].keyword} for n in by_target},
            "survivors retested against the kill tests after the full run (verdicts merged)": retests or "none"}
    write_table("", "mutation", rows, title="Mutation testing: killed / surviving / equivalent mutants",
                env=env, meta=meta, notes="score = (killed + crashed + timeout) / (mutants - equivalent); crashed = the tests' process "
                "aborted under the mutant, timeout = the tests ran past mutmut's CPU limit (a loop the mutant made "
                "endless). Survivors' diffs: "
                "mutation_survivors.md; equivalents and why: common/mutation_equivalents.toml.")
    atomic_write(results_dir("") / "mutation_survivors.md", survivors_markdown(by_target))
    return by_target


def main(argv: Sequence[str] | None = None) -> int:
    p = parser("python -m common.mutation", __doc__)
    p.add_argument("--target", action="append", choices=sorted(TARGETS), help="target(s) to run (default: all)")
    p.add_argument("--max-children", type=int, default=1, help="mutmut workers (default 1: the machine is shared)")
    p.add_argument("--retest-survivors", action="store_true",
                   help="run the last run's survivors against the target's kill tests only and merge the verdicts "
                   "(a fast check of new tests; a full run re-checks everything)")
    p.add_argument("--report-only", action="store_true", help="only rebuild the tables from the work folders")
    args = p.parse_args(argv)
    if args.max_children < 1:
        raise UserError("--max-children must be >= 1")
    names = args.target or list(TARGETS)
    require("mutmut", "mutmut", "python -m common.mutation")
    for i, name in enumerate(names if not args.report_only else (), 1):
        target, work = TARGETS[name], ROOT / WORK / name
        if args.retest_survivors:
            if not (work / WORK).is_dir():
                raise UserError(f"no earlier run of {name!r} to retest: run without --retest-survivors first")
            n, killed, wall = retest(target, work, args.max_children)
            step(i, name, f"retested {n} survivors against {list(target.kill_tests)}: {killed} killed")
        else:
            tests = prepare(target, work)
            step(i, name, f"mutating {len(target.mutate)} file(s), covering tests {tests} -k {target.keyword!r}")
            wall = run_mutmut(work, args.max_children)
        step(i, name, f"done in {wall:.0f} s (log {work / 'mutmut.log'})")
    by_target = report(list(TARGETS))
    for name, ms in by_target.items():
        counts = {c: sum(m["status"] == c for m in ms) for c in COLUMNS}
        step("=", name, ", ".join(f"{k} {v}" for k, v in counts.items() if v))
    print(f"tables: {results_dir('') / 'mutation.md'}, {results_dir('') / 'mutation_survivors.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
