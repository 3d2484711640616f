"""Tests of the mutation-testing runner's own logic (``common.mutation``): config, parsing, table.

mutmut itself is not run here (minutes); these check what the runner makes of its output.
"""
from __future__ import annotations

import json
import tomllib

import pytest

from common import mutation
from common.errors import UserError

DIFF = """--- common/gates.py
+++ common/gates.py
@@ -1,3 +1,3 @@
 def f(a, b):
-    return a <= b
+    return a < b
"""


def test_describe_keeps_the_changed_lines_only():
    assert mutation.describe(DIFF) == ("return a <= b", "return a < b")


def test_describe_joins_several_lines():
    diff = "--- f\n+++ f\n@@ -1 +1 @@\n-a = 1,\n-    b = 2\n+a = 1,\n+    b = 3\n"
    assert mutation.describe(diff) == ("a = 1, / b = 2", "a = 1, / b = 3")


@pytest.mark.parametrize("key,name", [("common.gates.x_diff_stats__mutmut_3", "diff_stats"),
                                      ("common.gates.x__as_numpy__mutmut_12", "_as_numpy"),
                                      ("common.gates.xǁGateChainǁ__init____mutmut_1", "GateChain.__init__"),
                                      ("lab01_onnx.passes.core.xǁDefUseIndexǁrelease__mutmut_7", "DefUseIndex.release")])
def test_function_of_a_mutant_key(key, name):
    assert mutation.function_of(key) == name


def _m(status, before="x <= y", after="x < y", file="common/gates.py", function="f"):
    return {"file": file, "function": function, "key": f"k.{before}", "status": status, "before": before,
            "after": after}


def test_classify_marks_only_listed_survivors_equivalent():
    eq = {("common/gates.py", "f", "x <= y", "x < y"): "why"}
    ms = mutation.classify([_m("survived"), _m("killed"), _m("survived", after="x >= y")], eq)
    assert [m["status"] for m in ms] == ["equivalent", "killed", "survived"] and ms[0]["why"] == "why"


def test_table_rows_count_per_file_and_total():
    ms = [_m("killed"), _m("crashed", file="b.py"), _m("survived", file="b.py"), _m("equivalent", file="b.py"),
          _m("no_tests")]
    rows = mutation.table_rows("t", ms, wall_s=12.34)
    assert [(r["file"], r["mutants"], r["killed"], r["crashed"], r["survived"], r["equivalent"], r["no_tests"])
            for r in rows] == [("common/gates.py", 2, 1, 0, 0, 0, 1), ("b.py", 3, 0, 1, 1, 1, 0),
                               ("(all)", 5, 1, 1, 1, 1, 1)]
    assert rows[1]["score"] == 0.5 and rows[2]["score"] == 0.5  # (killed + crashed) / (mutants - equivalent)
    assert rows[2]["wall_s"] == 12.3 and rows[0]["wall_s"] is None


def test_mutmut_section_is_valid_toml_with_the_selection():
    target = mutation.TARGETS["unroll"]
    conf = tomllib.loads(mutation.mutmut_config(target, list(target.tests)))["tool"]["mutmut"]
    assert conf["only_mutate"] == ["lab03_mlir/unroll.py"] and conf["source_paths"] == ["common", "lab03_mlir"]
    assert conf["pytest_add_cli_args_test_selection"] == [*target.tests, "-k", target.keyword]
    assert "--hypothesis-seed=0" in conf["pytest_add_cli_args"]


def test_kill_tests_run_without_a_keyword():
    target = mutation.TARGETS["gates"]
    kill = mutation.dataclasses.replace(target, tests=target.kill_tests, keyword="")
    conf = tomllib.loads(mutation.mutmut_config(kill, list(kill.tests)))["tool"]["mutmut"]
    assert conf["pytest_add_cli_args_test_selection"] == ["common/test_gates_mutants.py"]


def test_an_existing_mutmut_section_is_replaced():
    text = '[project]\nname = "x"\n\n[tool.mutmut]\nsource_paths = ["a"]\n\n[tool.ruff]\nline-length = 1\n'
    assert mutation._without_mutmut_section(text) == '[project]\nname = "x"\n\n[tool.ruff]\nline-length = 1\n'


def test_every_target_file_exists_and_every_equivalent_is_complete():
    for target in mutation.TARGETS.values():
        assert all((mutation.ROOT / f).is_file() for f in target.mutate), target.name
    doc = tomllib.loads(mutation.EQUIVALENTS.read_text())
    for e in doc["equivalent"]:
        assert set(e) == {"file", "function", "before", "after", "why"} and e["why"].strip() and e["before"] != e["after"]


def test_prepare_snapshots_the_target_with_stand_ins_for_missing_tests(tmp_path):
    root, work = tmp_path / "root", tmp_path / "work"
    (root / "common").mkdir(parents=True)
    (root / "common" / "gates.py").write_text("def f():\n    return 1\n")
    (root / "common" / "test_common.py").write_text("def test_f():\n    pass\n")
    (root / "conftest.py").write_text("")
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')
    target = mutation.Target("toy", ("common/gates.py",), ("common",),
                             ("common/test_common.py", "common/test_new.py"), "f")
    assert mutation.prepare(target, work, root) == ["common/test_common.py", "common/test_new.py"]
    assert (work / "common" / "gates.py").is_file() and (work / "conftest.py").is_file()
    assert (work / "common" / "test_new.py").read_text().startswith('"""common/test_new.py does not exist yet.')
    conf = tomllib.loads((work / "pyproject.toml").read_text())
    assert conf["project"]["name"] == "x" and conf["tool"]["mutmut"]["only_mutate"] == ["common/gates.py"]


def test_prepare_refuses_a_missing_target_file(tmp_path):
    with pytest.raises(UserError, match="not found"):
        mutation.prepare(mutation.Target("toy", ("nope.py",), (), (), ""), tmp_path / "w", tmp_path)


def test_report_writes_the_table_and_survivors(results_dir, tmp_path, monkeypatch):
    work = tmp_path / "mutants" / "gates"
    (work / "mutants" / "common").mkdir(parents=True)
    codes = {"common.gates.x_f__mutmut_1": 1, "common.gates.x_f__mutmut_2": 0, "common.gates.x_f__mutmut_3": 33,
             "common.gates.x_f__mutmut_4": -6}
    (work / "mutants" / "common" / "gates.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    (work / "wall.json").write_text(json.dumps({"wall_s": 5.0}))
    monkeypatch.setattr("mutmut.mutation.diff_apply.get_diff_for_mutant", lambda key, path: DIFF)
    by_target = mutation.report(["gates"], root=tmp_path)
    assert [m["status"] for m in by_target["gates"]] == ["killed", "survived", "no_tests", "crashed"]
    table = json.loads((results_dir / "mutation.json").read_text())
    total = table["rows"][-1]
    assert (total["mutants"], total["killed"], total["crashed"], total["survived"], total["no_tests"]) == (4, 1, 1, 1, 1)
    assert total["score"] == 0.5 and total["wall_s"] == 5.0
    assert "`return a <= b` -> `return a < b`" in (results_dir / "mutation_survivors.md").read_text()


def test_cli_rejects_zero_workers(capsys):
    assert mutation.run_cli(mutation.main, ["--max-children", "0"]) == 2
    assert "max-children must be >= 1" in capsys.readouterr().err
