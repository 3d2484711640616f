"""Docs that cannot drift: what the READMEs (README.md, TOOLS.md, LADDER.md, SPIRV.md, ... under the
repo) show must be true of the code and of the committed results tables.

- every ``python -m <module> [sub]`` command shown (fenced shell blocks and inline code) answers
  ``--help`` with exit 0 in a process of its own (:mod:`common.docs.helps`), and its help names every
  ``--flag`` the docs pass to it; every ``pytest`` command's paths exist; every ``make <target>`` is a
  target of the Makefile (parsed, never run: ``make -n`` still runs the ``$(MAKE)`` line of ``setup``);
- every path, ``module.function`` and ``CONSTANT`` named in backticks exists where the text says
  (:mod:`common.docs.paths` and :mod:`common.docs.names` resolve them without importing; the former's
  ``PATH_ALLOWLIST`` says why the few exceptions are not repo paths);
- every figure and table span (``<!--fig ...-->``) shows what the committed results table says
  (``python -m common.docs`` rewrites them).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from common import docs
from common.docs import figures, names, paths, shown
from common.docs.helps import answers
from common.errors import UserError

REPO = docs.REPO
DOCS = docs.doc_files()
HELP_TIMEOUT_S = 120


def _rel(p: Path) -> str:
    return str(p.relative_to(REPO))


def test_the_docs_are_found():
    names = {_rel(p) for p in DOCS}
    assert {"README.md", "lab01_onnx/README.md", "lab01_onnx/TOOLS.md", "lab02_tvm/README.md",
            "lab03_mlir/README.md", "lab03_mlir/LADDER.md", "lab03_mlir/SPIRV.md", "lab04_npu/README.md",
            "debugging/README.md", "data/README.md"} <= names
    assert not any(n.startswith((".venv", "results", "build")) for n in names)


# --------------------------------------------------------------------------- commands

ALL_COMMANDS = [c for d in DOCS for c in shown.commands(d)]


def test_every_command_shown_answers_help_and_knows_its_flags():
    keys: dict[tuple[str, str | None], list[shown.Command]] = {}
    for c in ALL_COMMANDS:
        if c.kind in ("module", "pytest"):
            keys.setdefault((c.name, c.sub), []).append(c)
    assert len({m for m, _ in keys}) >= 20, "the command parser found too few commands"
    helps = answers(list(keys), timeout_s=HELP_TIMEOUT_S)
    bad = []
    for (mod, sub), cmds in keys.items():
        rc, out = helps[(mod, sub)]
        helped = f"python -m {mod}{' ' + sub if sub else ''} --help"
        if rc != 0:
            bad.append(f"{helped} exits {rc}: {out.strip()[-300:]}\n    shown in {cmds[0].source}")
            continue
        for c in cmds:
            missing = sorted({f for f in c.flags if "<" not in f and not re.search(rf"{re.escape(f)}(?![\w-])", out)})
            if missing:
                bad.append(f"{c.source}: {helped} has no option {', '.join(missing)}")
    assert not bad, "\n".join(bad)


def test_every_pytest_path_shown_exists():
    bad = [f"{c.source}: no {a}" for c in ALL_COMMANDS if c.kind == "pytest" for a in c.args
           if not (REPO / a.split("::")[0]).exists()]
    assert not bad, "\n".join(bad)


def test_every_make_target_shown_exists():
    targets = shown.make_targets()
    assert {"run", "test", "setup"} <= targets
    makes = [c for c in ALL_COMMANDS if c.kind == "make"]
    assert len({c.name for c in makes}) >= 8
    bad = [f"{c.source}: no target {c.name!r} in the Makefile" for c in makes if c.name not in targets]
    assert not bad, "\n".join(bad)


def test_make_targets_parser(tmp_path):
    mk = "A := 1\n.PHONY: x y\nx: y\n\t@echo $(A)\ny:\n\tmake -n x\n$(STAMP): a b\nz-w: ; true\nB ?= 2\n"
    targets = shown.make_targets(_write("Makefile", mk, tmp_path))
    assert targets >= {"x", "y", "z-w"} and not targets & {"A", "B", ".PHONY", "PHONY"}


def test_command_parser(tmp_path):
    md = _write("README.md", "Run `make roof` / `lab01` / `lab02` or\n\n```bash\n"
                "CI=true .venv/bin/python -m lab02_tvm.tuning.longrun tune --model bert \\\n   --trials 4   # a comment\n"
                "pytest lab01_onnx/test_lab.py -k reshape --hypothesis-seed=3\nmake test\n```\n\n"
                "and `python -m common.roof` and `python -m lab01_onnx.tools.memplan [MODEL.onnx --dim batch=1]`.\n", tmp_path)
    got = {(c.kind, c.name, c.sub, c.flags, c.args) for c in shown.commands(md, md.parent)}
    assert ("module", "lab02_tvm.tuning.longrun", "tune", ("--model", "--trials"), ("tune", "--model", "bert", "--trials", "4")
            ) in got
    assert ("pytest", "pytest", None, ("--hypothesis-seed",), ("lab01_onnx/test_lab.py",)) in got
    assert {("make", t) for t in ("roof", "lab01", "lab02", "test")} <= {(k, n) for k, n, *_ in got}
    assert ("module", "lab01_onnx.tools.memplan", None, ("--dim",), ("MODEL.onnx", "--dim", "batch=1")) in got
    assert ("module", "common.roof", None, (), ()) in got


# --------------------------------------------------------------------------- names in backticks

def _named(doc: Path):
    text = doc.read_text(encoding="utf-8")
    for span in shown.inline_code(text):
        c = shown.classify(span)
        if c:
            yield c


def test_every_path_named_exists():
    bad, checked = [], 0
    for d in DOCS:
        for kind, name in _named(d):
            if kind == "path" and paths.path_to_check(name, d):
                checked += 1
                if not paths.resolve_path(name, d):
                    bad.append(f"{_rel(d)}: `{name}` does not exist")
    assert checked >= 100, checked
    assert not bad, "\n".join(bad)


def test_every_module_function_named_exists():
    bad, checked = [], 0
    for d in DOCS:
        for kind, name in _named(d):
            if kind == "dotted":
                ok = names.resolve_dotted(name, d)
                checked += ok is not None
                if ok is False:
                    bad.append(f"{_rel(d)}: `{name}` is not a name of the project")
    assert checked >= 80, checked
    assert not bad, "\n".join(bad)


def test_every_constant_named_exists_where_the_text_says():
    bad = []
    for d in DOCS:
        text = d.read_text(encoding="utf-8")
        bad += [f"{_rel(d)}: `{name}` is neither defined nor read by the project's code"
                for kind, name in _named(d) if kind == "constant" and not names.constant_known(name)]
        for const, file in shown.constants_in_files(text):
            cands = [d.parent / file, REPO / file, *d.parent.rglob(Path(file).name)]
            if not any(names.defined_in(const, p) for p in cands):
                bad.append(f"{_rel(d)}: says `{const}` is in `{file}`, which does not define it")
    assert not bad, "\n".join(bad)


def test_layout_trees_name_existing_files_and_every_test_file():
    bad = []
    for d in DOCS:
        listed = shown.layout_py_names(d.read_text(encoding="utf-8"))
        bad += [f"{_rel(d)}: layout names {n}, which does not exist" for n in listed if not paths.resolve_path(n, d)]
        tests = {n for n in listed if n.startswith("test_") and (d.parent / n).is_file()}
        if tests:  # a tree that lists the folder's test files lists them all
            bad += [f"{_rel(d)}: layout lists {sorted(tests)} but not {p.name}"
                    for p in sorted(d.parent.glob("test_*.py")) if p.name not in tests]
    assert not bad, "\n".join(bad)


def test_the_name_checks_catch_drift(tmp_path):
    doc = REPO / "lab02_tvm" / "README.md"
    assert names.resolve_dotted("lab02_tvm.models.MODELS", doc) is True
    assert names.resolve_dotted("records.choose", doc) is True
    assert names.resolve_dotted("records.chose", doc) is False
    assert names.resolve_dotted("lab02_tvm.models.MODEL", doc) is False
    assert names.resolve_dotted("tvm.compile", doc) is None  # external
    lab01 = REPO / "lab01_onnx" / "README.md"
    assert names.resolve_dotted("passes.run_passes", lab01) is True  # re-exported by passes/__init__.py
    assert names.resolve_dotted("pipeline.export", lab01) is True
    assert names.resolve_dotted("pipeline.exprt", lab01) is False
    assert names.resolve_dotted("tosa.matmul", REPO / "lab03_mlir" / "README.md") is None  # an MLIR op
    assert paths.resolve_path("passes/core.py", lab01) and not paths.resolve_path("passes/kore.py", lab01)
    assert paths.resolve_path("results/<lab>/<name>.md", REPO / "README.md")
    assert paths.resolve_path("results/lab01/{accuracy,passes}.{md,csv,json}", lab01)
    assert not paths.resolve_path("results/lab01/{accuracy,pases}.md", lab01)
    assert paths.path_to_check("lab01_onnx/nothing.py", lab01) and not paths.path_to_check("layers.0/self_attn/Neg", lab01)
    assert not paths.path_to_check("results/lab01/llama_tiny.onnx", lab01)  # git-ignored output
    assert names.defined_in("MODELS", REPO / "lab02_tvm" / "models.py")
    assert not names.defined_in("MODELS", REPO / "lab02_tvm" / "pipeline" / "settings.py")  # only imported there
    assert shown.constants_in_files("are `A_B` and `C_D` in `config.py` (x)") == [("A_B", "config.py"),
                                                                                ("C_D", "config.py")]
    assert names.constant_known("MLC_RESULTS_DIR") and not names.constant_known("MLC_NO_SUCH_VARIABLE")
    assert [shown.classify(s) for s in ("common/cli.py", "common.cli.step()", "DEFAULT_TRIALS", "make run", "ONNX")] == [
        ("path", "common/cli.py"), ("dotted", "common.cli.step"), ("constant", "DEFAULT_TRIALS"), None, None]


# --------------------------------------------------------------------------- figures from the tables

def test_figures_in_the_docs_match_the_committed_tables():
    stale = figures.stale(DOCS)
    assert not stale, "\n".join(s.line() for s in stale) + "\nrun: python -m common.docs"


def test_figures_in_table_rows_escape_their_format_bar(tmp_path):
    """GitHub splits a table row at every unescaped ``|``, inside a comment too (GFM spec, "Tables"): a figure's
    format bar in a row is written ``\\|``; the reference is markdown-it's GFM table, whose second cell must hold
    the whole figure (a bare bar cuts it after ``ms``, and the cells past the header's two are dropped)."""
    from markdown_it import MarkdownIt

    bad = [b for p in DOCS for b in figures.bars_in_table_rows(p)]
    assert not bad, "write the format bar of a figure inside a table row as \\|:\n" + "\n".join(bad)
    rows = {"escaped": "| a | <!--fig lab01/q[0].ms\\|.1f-->2.5<!--/fig--> |",
            "bare": "| a | <!--fig lab01/q[0].ms|.1f-->2.5<!--/fig--> |"}
    for name, row in rows.items():
        doc = _write(f"{name}.md", f"| x | y |\n|---|---|\n{row}\n", tmp_path)
        tokens = MarkdownIt("commonmark").enable("table").parse(doc.read_text())
        cells = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "td_open"]
        assert ("2.5<!--/fig-->" in cells[1]) == (name == "escaped"), cells
        assert bool(figures.bars_in_table_rows(doc)) == (name == "bare")
    assert figures.figure("lab01/q[0].ms\\|.2f", _results(tmp_path)) == "2.50"


def test_lab01_quotes_its_int8_and_ort_figures_from_the_tables():
    text = (REPO / "lab01_onnx" / "README.md").read_text(encoding="utf-8")
    specs = [spec for kind, spec, _ in figures.spans(text) if kind == "fig"]
    for needle in ("lab01/quantization[model=int8*].top1_agreement", "lab01/quantization[model=int8*].max_abs_logit_diff",
                   "lab01/latency[batch=1;seq=128;backend=ort_cpu].speedup_vs_eager", "*ORT ALL*].nodes"):
        assert any(needle in s for s in specs), needle


def _write(name: str, text: str, folder: Path) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def _results(tmp_path: Path) -> Path:
    rows = [{"model": "fp32", "top1": 1.0, "ms": 2.5, "n": 3, "err": 6.56e-7},
            {"model": "int8 QDQ, per-channel", "top1": 0.9428, "ms": 2.1, "n": 4, "err": 2.53e-6}]
    _write("lab01/q.json", json.dumps({"rows": rows}), tmp_path)
    return tmp_path


def test_figure_specs(tmp_path):
    figures._table.cache_clear()
    r = _results(tmp_path)
    assert figures.figure("lab01/q[model=int8*].top1|.1%", r) == "94.3%"
    assert figures.figure("lab01/q[model=int8 QDQ, per-channel].ms", r) == "2.1"
    assert figures.figure("lab01/q[0].model", r) == "fp32"
    assert figures.figure("lab01/q.err max|.1e", r) == "2.5e-6"
    assert figures.figure("lab01/q.n sum", r) == "7" and figures.figure("lab01/q.n list", r) == "3, 4"
    assert figures.figure("lab01/q[model=*].n count", r) == "2" and figures.figure("lab01/q.ms last|.2f", r) == "2.10"
    for bad, msg in (("lab01/q.top1", "2 rows match"), ("lab01/q[model=bf16].top1", "no row"),
                     ("lab01/q[model=fp32].nope", "no column"), ("lab01/nope.x", "not a readable results table"),
                     ("lab01/q.model max", "needs numbers"), ("lab01/q.n median", "unknown aggregate"),
                     ("lab01/q[kind=x].n", "no column 'kind'"), ("lab01/q[9].n", "no row 9"), ("q", "is not")):
        with pytest.raises(UserError, match=msg):
            figures.figure(bad, r)


def test_render_stale_and_update(tmp_path):
    figures._table.cache_clear()
    r = _results(tmp_path / "results")
    md = _write("README.md", "INT8 keeps <!--fig lab01/q[model=int8*].top1|.1%-->95.5%<!--/fig--> of it.\n\n"
                "<!--table lab01/q cols=model,ms-->\n<!--/table-->\n", tmp_path)
    [fig, table] = figures.stale([md], r)
    assert (fig.kind, fig.shown, fig.table_says) == ("fig", "95.5%", "94.3%") and table.kind == "table"
    assert "shows '95.5%', the table says '94.3%'" in fig.line()
    assert figures.update([md], r) == [md] and figures.stale([md], r) == []
    text = md.read_text()
    assert "<!--fig lab01/q[model=int8*].top1|.1%-->94.3%<!--/fig-->" in text
    assert "| model | ms |\n|---|---|\n| fp32 | 2.5 |\n| int8 QDQ, per-channel | 2.1 |\n" in text
    assert figures.render(text, r) == text  # idempotent
    assert figures.update([md], r) == []


def test_docs_cli_check(tmp_path):
    figures._table.cache_clear()
    r = _results(tmp_path / "results")
    md = _write("README.md", "<!--fig lab01/q[0].n-->9<!--/fig-->\n", tmp_path)
    argv = [sys.executable, "-m", "common.docs", "--check", "--results", str(r), str(md)]
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "shows '9', the table says '3'" in proc.stdout
    assert subprocess.run(argv[:3] + argv[4:], cwd=REPO, capture_output=True, timeout=60).returncode == 0
    assert md.read_text() == "<!--fig lab01/q[0].n-->3<!--/fig-->\n"
    assert subprocess.run(argv, cwd=REPO, capture_output=True, timeout=60).returncode == 0
    md.write_text("<!--fig lab01/q[0].nope-->3<!--/fig-->\n")
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "no column" in proc.stderr
