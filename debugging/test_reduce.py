"""Reducer + replay: a divergence shrinks to the node that causes it, the repro replays on its own.

Known cases (debugging.reduce_demos): a 42-node Add/Tanh chain broken by Lab 01's wrong rewrite (its Neg
dropped; the ``deep_chain`` fixture of debugging/conftest.py), and a 14-node graph around one long fp16 dot
product (TVM).
"""
from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from common.errors import run_cli
from debugging import reduce as rd
from debugging import reduce_demos, replay


def _chain_value_after_neg(x: np.ndarray) -> np.ndarray:
    """NumPy: ten (x + 0.5 -> tanh) pairs, Neg, then the first Add 0.5 after it (the Neg's consumer)."""
    t = x.astype(np.float64)
    for _ in range(10):
        t = np.tanh(t + 0.5)
    return -t + 0.5


def test_wrong_rewrite_reduces_to_the_rewired_consumer(deep_chain, tmp_path, capsys):
    ref, cand, feeds = deep_chain
    red = rd.reduce_to_folder(ref, cand, feeds, tmp_path / "repro", backend="onnxruntime-noopt", tol=rd.ORT_TOL,
                              confirm="onnxruntime")
    assert red.nodes_before == 41 and red.nodes_after == 1  # 41x smaller
    assert [cand.graph.node[i].name for i in red.keep] == ["add10"]  # the Neg's consumer, now reading its input
    assert red.confirmed  # still diverges with only its own output, ORT optimizations on
    assert "kept add10 (Add); diverging ['a10']" in rd.report_line(red, tmp_path / "repro")  # the node, by name
    model = onnx.load(str(tmp_path / "repro" / "model.onnx"))
    assert [o.name for o in model.graph.output] == red.outputs == ["a10"]
    # reference output of the repro = the correct graph's value, checked against NumPy
    t = onnx.TensorProto()
    t.ParseFromString((tmp_path / "repro" / "test_data_set_0" / "output_0.pb").read_bytes())
    # ORT float32 vs float64: 11 add roundings of values <= 4 and 10 tanh errors (<= 5 * 2^-24 abs, ORT measured
    # 4.2), none amplified (tanh' <= 1): (11 * 4 + 10 * 5) * 2^-24 = 5.6e-6 (measured 8.7e-8); Neg dropped: > 1
    np.testing.assert_allclose(numpy_helper.to_array(t), _chain_value_after_neg(feeds["x"]), rtol=0,
                               atol=(11 * 4 + 10 * 5) * 2.0 ** -24)
    meta = json.loads((tmp_path / "repro" / "repro.json").read_text())
    assert meta["nodes_before"] == 41 and meta["nodes_after"] == 1 and meta["backend"] == "onnxruntime"
    # replay: the divergence reproduces (exit 1, gate failed)
    assert run_cli(replay.main, [str(tmp_path / "repro")]) == 1
    assert "gate failed" in capsys.readouterr().err


def test_correct_model_reduces_to_no_divergence(deep_chain, tmp_path, capsys):
    ref, _, feeds = deep_chain
    red = rd.reduce_to_folder(ref, ref, feeds, tmp_path / "none", backend="onnxruntime-noopt", tol=rd.ORT_TOL)
    assert red.keep is None and red.evaluations == 1 and not (tmp_path / "none").exists()
    onnx.save(ref, str(tmp_path / "ok.onnx"))
    assert run_cli(rd.main, [str(tmp_path / "ok.onnx"), "--out", str(tmp_path / "none")]) == 0
    assert "no divergence" in capsys.readouterr().out


def test_fp16_accumulation_reduces_to_the_long_dot_and_the_fix_agrees(tmp_path):
    model, feeds = reduce_demos.long_dot()
    red = rd.reduce_to_folder(model, model, feeds, tmp_path / "fp16", backend="tvm-fp16-acc16", tol=rd.FP16_TOL)
    assert red.nodes_before == 14 and [model.graph.node[i].op_type for i in red.keep] == ["MatMul"]
    assert red.confirmed
    report, _ = replay.replay(tmp_path / "fp16")
    assert not report.passed  # fp16 accumulator: reproduces
    fixed, _ = replay.replay(tmp_path / "fp16", "tvm-fp16-acc32")
    assert fixed.passed  # fp32 accumulator: within 1% of the output's scale
    # the repro's reference output is the exact product (independent: NumPy float64)
    _, inputs, ref_out, _ = replay.read_repro(tmp_path / "fp16")
    w = numpy_helper.to_array(next(t for t in model.graph.initializer if t.name == "W")).astype(np.float64)
    exact = inputs[next(iter(inputs))].astype(np.float64) @ w
    # ORT float32 dot of K = 8192 positive terms: even a sequential sum random-walks to only
    # (2^-24 / sqrt 3) * sqrt(K / 3) = 1.8e-6 relative (simulated 2.0e-6; ORT 1.4e-7); fp16 storage: up to 4.9e-4
    np.testing.assert_allclose(ref_out["mm"], exact, rtol=1e-5)


@pytest.mark.parametrize("case", ["missing_folder", "missing_pb", "not_onnx"])
def test_bad_input_one_line_exit_2(case, tmp_path, capsys, deep_chain):
    if case == "missing_folder":
        rc = run_cli(replay.main, [str(tmp_path / "absent")])
    elif case == "missing_pb":
        ref, cand, feeds = deep_chain
        rd.reduce_to_folder(ref, cand, feeds, tmp_path / "r", backend="onnxruntime-noopt", tol=rd.ORT_TOL)
        (tmp_path / "r" / "test_data_set_0" / "input_0.pb").unlink()
        capsys.readouterr()  # the search's progress bar
        rc = run_cli(replay.main, [str(tmp_path / "r")])
    else:
        (tmp_path / "x.onnx").write_text("not a model")
        rc = run_cli(rd.main, [str(tmp_path / "x.onnx")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error: ")


def _tensor_file(path, arr, name):
    path.write_bytes(numpy_helper.from_array(arr, name).SerializeToString())


BAD_REPROS = {  # a fresh repro of the deep chain, then one thing wrong with it
    "repro.json not JSON": lambda r: (r / "repro.json").write_text("{bad"),
    "repro.json a list": lambda r: (r / "repro.json").write_text("[1]"),
    "tolerance atol text": lambda r: (r / "repro.json").write_text('{"tolerance": {"atol": "x"}}'),
    "tolerance atol negative": lambda r: (r / "repro.json").write_text('{"tolerance": {"atol": -5}}'),
    "tolerance unknown key": lambda r: (r / "repro.json").write_text('{"tolerance": {"foo": 1}}'),
    "pb not numbered": lambda r: (r / "test_data_set_0" / "input_0.pb").rename(r / "test_data_set_0" / "input_x.pb"),
    "input of another dtype": lambda r: _tensor_file(r / "test_data_set_0" / "input_0.pb",
                                                     np.ones((1, 8), np.int64), "x"),
    "output of another shape": lambda r: _tensor_file(r / "test_data_set_0" / "output_0.pb",
                                                      np.ones((3, 8), np.float32), ""),
    "output of another dtype": lambda r: _tensor_file(r / "test_data_set_0" / "output_0.pb",
                                                      np.ones((2, 8), np.int64), ""),
    "pb index with a leading zero": lambda r: (r / "test_data_set_0" / "input_0.pb").rename(
        r / "test_data_set_0" / "input_00.pb"),
    "repro.json a folder": lambda r: ((r / "repro.json").unlink(), (r / "repro.json").mkdir()),
    "unknown backend in repro.json": lambda r: (r / "repro.json").write_text('{"backend": "cuda"}'),
}


@pytest.mark.parametrize("case", sorted(BAD_REPROS))
def test_a_bad_repro_is_one_line_exit_2_never_the_exit_1_of_reproduced(case, deep_chain, tmp_path, capsys):
    """replay's exit 1 means "the divergence reproduces", so a script may trust it: any bad repro folder is one
    ``error:`` line and exit 2, never a traceback (which Python also ends with exit 1)."""
    ref, cand, feeds = deep_chain
    rd.reduce_to_folder(ref, cand, feeds, tmp_path / "r", backend="onnxruntime-noopt", tol=rd.ORT_TOL)
    BAD_REPROS[case](tmp_path / "r")
    capsys.readouterr()
    rc = run_cli(replay.main, [str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error: "), (case, err)


def test_a_repro_reads_its_tensors_by_position_and_is_replaced_whole(deep_chain, tmp_path, capsys):
    """The N-th input .pb feeds the N-th graph input whatever name it carries (the ONNX test-data layout); writing
    a repro over another swaps the folder whole, so no file of the old one stays beside the new one."""
    ref, cand, feeds = deep_chain
    out = tmp_path / "r"
    rd.reduce_to_folder(ref, cand, feeds, out, backend="onnxruntime-noopt", tol=rd.ORT_TOL)
    pb = out / "test_data_set_0" / "input_0.pb"
    t = onnx.TensorProto()
    t.ParseFromString(pb.read_bytes())
    _tensor_file(pb, numpy_helper.to_array(t), "another_name")
    assert run_cli(replay.main, [str(out)]) == 1  # still reproduces
    (out / "test_data_set_0" / "input_7.pb").write_bytes(b"stale")  # a file no repro writes
    rd.reduce_to_folder(ref, cand, feeds, out, backend="onnxruntime-noopt", tol=rd.ORT_TOL)
    assert not (out / "test_data_set_0" / "input_7.pb").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]  # no temporary folder left beside it


def _double_copy(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with a Cast to double after its first Add (tensor ``a0`` becomes float64, then back to float)."""
    from onnx import helper
    other = onnx.ModelProto()
    other.CopyFrom(model)
    nodes = list(other.graph.node)
    add0 = next(n for n in nodes if n.output[0] == "a0")
    add0.output[0] = "a0_f"
    cast = helper.make_node("Cast", ["a0_f"], ["a0"], to=onnx.TensorProto.DOUBLE, name="to_double")
    back = [n for n in nodes if "a0" in n.input]
    for n in back:
        n.input[list(n.input).index("a0")] = "a0_back"
    cast_back = helper.make_node("Cast", ["a0"], ["a0_back"], to=onnx.TensorProto.FLOAT, name="to_float")
    del other.graph.node[:]
    at = nodes.index(add0) + 1
    other.graph.node.extend(nodes[:at] + [cast, cast_back] + nodes[at:])
    return other


def _narrow_input_copy(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with its input [2, 8] and output declared [2, 4] (a candidate exported for other inputs)."""
    other = onnx.ModelProto()
    other.CopyFrom(model)
    other.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 4
    other.graph.output[0].type.tensor_type.shape.dim[1].dim_value = 4
    return other


REDUCE_BAD = {  # argv after the two saved models ref.onnx, cand.onnx
    "demo and files": lambda d: [str(d / "ref.onnx"), "--demo", "fp16"],
    "demo and a search option": lambda d: ["--demo", "fp16", "--seed", "1"],
    "out is a file": lambda d: [str(d / "ref.onnx"), str(d / "cand.onnx"), "--out", str(d / "ref.onnx")],
    "out under a file": lambda d: [str(d / "ref.onnx"), str(d / "cand.onnx"), "--out", str(d / "ref.onnx" / "r")],
    "negative seed": lambda d: [str(d / "ref.onnx"), str(d / "cand.onnx"), "--seed", "-1"],
    "negative atol": lambda d: [str(d / "ref.onnx"), str(d / "cand.onnx"), "--atol", "-1e-4"],
    "nan atol": lambda d: [str(d / "ref.onnx"), str(d / "cand.onnx"), "--atol", "nan"],
    "demo and atol": lambda d: ["--demo", "wrong-rewrite", "--atol", "1"],
    "candidate input of another shape": lambda d: [str(d / "ref.onnx"), str(d / "narrow.onnx")],
    "reference axis with no size": lambda d: [str(d / "dyn.onnx")],
    "out holds other files": lambda d: [str(d / "ref.onnx"), str(d / "cand.onnx"), "--out", str(d)],
    "out is the working folder": lambda d: [str(d / "ref.onnx"), str(d / "cand.onnx"), "--out", "."],
    "demo out holds other files": lambda d: ["--demo", "fp16", "--out", str(d)],
    "a shared tensor of another dtype": lambda d: [str(d / "ref.onnx"), str(d / "double.onnx")],
    "a --dims name that sizes nothing": lambda d: [str(d / "dyn.onnx"), "--dims", "n=2"],
}


@pytest.mark.parametrize("case", sorted(REDUCE_BAD))
def test_reduce_refuses_bad_input_in_one_line_before_any_search(case, deep_chain, tmp_path, capsys, monkeypatch):
    ref, cand, _ = deep_chain
    onnx.save(ref, str(tmp_path / "ref.onnx"))
    onnx.save(cand, str(tmp_path / "cand.onnx"))
    onnx.save(_narrow_input_copy(cand), str(tmp_path / "narrow.onnx"))
    dyn = _narrow_input_copy(ref)
    dyn.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    onnx.save(dyn, str(tmp_path / "dyn.onnx"))
    onnx.save(_double_copy(cand), str(tmp_path / "double.onnx"))
    before = sorted(p.name for p in tmp_path.iterdir())
    monkeypatch.chdir(tmp_path)
    rc = run_cli(rd.main, REDUCE_BAD[case](tmp_path))
    out, err = capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing replaced, nothing left
    assert rc == 2 and len(err.strip().splitlines()) == 1 and err.startswith("error: "), (case, err)
    assert "reduce" not in out  # refused before the search: no step line
    if case == "reference axis with no size":  # the viewer's line too: no size is made up
        assert "dynamic input axis x:0 ('N') of the reference" in err and "pass --dims N=<size>" in err
    if case == "candidate input of another shape":
        assert "input 'x' has size 4 on axis 1; the one given has shape [2, 8]" in err


def test_a_repro_without_repro_json_says_it_uses_the_defaults_and_swapped_inputs_are_refused(tmp_path, capsys):
    """A folder of the ONNX backend tests has no repro.json: replay says which backend and tolerance it took. The
    N-th .pb feeds the N-th input; a .pb that names *another* graph input (two files swapped) is refused."""
    from onnx import TensorProto, helper
    g = helper.make_graph([helper.make_node("Sub", ["w", "x"], ["y"])], "sub",
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("w", "x")],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    w, x = np.array([3, 4], np.float32), np.array([1, 1], np.float32)
    replay.write_repro(tmp_path / "r", model, {"w": w, "x": x}, {"y": w - x}, {"backend": "onnxruntime"})
    (tmp_path / "r" / "repro.json").unlink()
    assert run_cli(replay.main, [str(tmp_path / "r")]) == 0
    assert "no repro.json" in capsys.readouterr().out
    data = tmp_path / "r" / "test_data_set_0"
    (data / "input_0.pb").rename(data / "tmp.pb")
    (data / "input_1.pb").rename(data / "input_0.pb")
    (data / "tmp.pb").rename(data / "input_1.pb")
    assert run_cli(replay.main, [str(tmp_path / "r")]) == 2
    assert "holds 'x', but graph input 0 is 'w'" in capsys.readouterr().err


def test_the_cli_records_where_a_repro_came_from(deep_chain, tmp_path, capsys):
    ref, cand, _ = deep_chain
    onnx.save(ref, str(tmp_path / "ref.onnx"))
    onnx.save(cand, str(tmp_path / "cand.onnx"))
    out = tmp_path / "repro"
    assert run_cli(rd.main, [str(tmp_path / "ref.onnx"), str(tmp_path / "cand.onnx"), "--out", str(out),
                             "--seed", "3"]) == 0
    meta = json.loads((out / "repro.json").read_text())
    assert meta["candidate"].endswith("cand.onnx") and meta["seed"] == 3 and meta["dims"]["batch"] == 1
    assert meta["command"].startswith("python -m debugging.reduce ") and "--seed 3" in meta["command"]
    assert "-> " + str(out) in capsys.readouterr().out


def test_atol_sets_the_search_and_the_repro_tolerance(deep_chain, tmp_path, capsys):
    """--atol replaces the default 1e-4: the broken chain diverges by 2 * |t| (t: the value the dropped Neg negated)
    at the Neg's consumer and, Tanh being 1-Lipschitz, by at most that downstream; an --atol above it finds no
    divergence, one below it reduces to the same node and the repro replays with that tolerance."""
    ref, cand, _ = deep_chain
    onnx.save(ref, str(tmp_path / "ref.onnx"))
    onnx.save(cand, str(tmp_path / "cand.onnx"))
    # the CLI draws its own seeded x (not the fixture's), so bound the difference for every x: |t| < 1 (a tanh
    # output), so no tensor differs by 2 or more
    bound = 2.0
    args = [str(tmp_path / "ref.onnx"), str(tmp_path / "cand.onnx")]
    assert run_cli(rd.main, [*args, "--atol", str(bound), "--out", str(tmp_path / "none")]) == 0
    assert "no divergence" in capsys.readouterr().out and not (tmp_path / "none").exists()
    assert run_cli(rd.main, [*args, "--atol", "1e-3", "--out", str(tmp_path / "repro")]) == 0
    assert "kept add10 (Add)" in capsys.readouterr().out
    meta = json.loads((tmp_path / "repro" / "repro.json").read_text())
    assert meta["tolerance"]["atol"] == 1e-3
    report, _ = replay.replay(tmp_path / "repro")
    assert not report.passed
