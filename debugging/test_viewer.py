"""Model Explorer viewer: overlays carry the labs' numbers under the adapter's node ids; the page renders.

Tiny ONNX graphs from debugging/conftest.py (a Neg feeding a chain, one node unnamed so the adapter's own
naming is exercised); the candidate is Lab 01's deliberately wrong rewrite (Neg dropped as if an Identity).
"""
from __future__ import annotations

import json
import shutil
import socket
import urllib.parse
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from common.errors import GateFailed, run_cli
from common.testing import make_model
from debugging import overlays as ov
from debugging import explorer_page, mlir_view, viewer
from debugging.browser import Browser, find_chromium

ATOL = 1e-4
NO_CHROMIUM = "no chromium on PATH (apt-get install chromium; make optional-debs)"
# a torch-mlir style TOSA function in the pretty form: MLIR 22 prints tosa.transpose with `perms`, which the
# adapter's older TOSA parser refuses, so the viewer serves its generic-form re-print
TOSA = ("func.func @forward(%arg0: tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32> {\n"
        "  %0 = tosa.transpose %arg0 {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>\n"
        "  %1 = tosa.clamp %0 {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x3x4x2xf32>) -> tensor<1x3x4x2xf32>\n"
        "  return %1 : tensor<1x3x4x2xf32>\n}\n")


def _chain_taking(elem_type: int, shape: list) -> onnx.ModelProto:
    """The conftest chain (same tensor names) reading an input ``x`` of another dtype or shape."""
    src = "x"
    nodes = []
    if elem_type != TensorProto.FLOAT:
        nodes.append(helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT, name="cast0"))
        src = "xf"
    nodes += [helper.make_node("Abs", [src], ["a"], name="abs0"), helper.make_node("Neg", [src], ["neg"], name="neg0"),
              helper.make_node("Relu", ["neg"], ["r"], name="relu0"), helper.make_node("Add", ["r", "a"], ["s"]),
              helper.make_node("Mul", ["s", "two"], ["y"], name="mul0")]
    return make_model(nodes, [("x", elem_type, shape)], [("y", TensorProto.FLOAT, None)],
                      {"two": np.array(2.0, np.float32)}, ir_version=onnx.IR_VERSION)


def test_node_ids_are_the_adapters(chain_stages):
    ids = ov.onnx_node_ids(chain_stages["a_path"])
    assert ids.graph == "g"
    # named nodes keep their names; the unnamed Add gets onnx-ir NameFixPass's "node"
    assert {ids.node_id(n) for n in chain_stages["a"].graph.node} == {"abs0", "neg0", "relu0", "node", "mul0"}
    assert "[value] x" in ids.node_ids and "[value] y" in ids.node_ids
    # what --check looks up on the page: the op types, the [value] nodes left out
    assert ov.onnx_op_labels(chain_stages["a_path"]) == [n.op_type for n in chain_stages["a"].graph.node]
    assert explorer_page.check_labels(["Add", "Mul", "Add", "Relu", "Mul", "Add", "Neg"], k=2) == ["Relu", "Neg"]


def test_divergence_overlay_matches_the_divergence_finder(chain_stages, results_dir):
    from lab01_onnx.divergence import make_feeds, onnx_divergence

    out = results_dir / "debugging"
    rc = run_cli(viewer.main, [str(chain_stages["b_path"]), "--reference", str(chain_stages["a_path"]), "--write-only",
                               "--out", str(out), "--atol", str(ATOL)])
    assert rc == 0
    data = json.loads((out / "after.divergence.json").read_text())["g"]
    div = onnx_divergence(chain_stages["a"], chain_stages["b"], make_feeds(chain_stages["a"], {}, 0), atol=ATOL)
    assert div is not None and div.node == "relu0"
    assert data["results"][div.node]["value"] == pytest.approx(div.max_abs, rel=1e-6)  # JSON round trip: exact
    assert data["results"][div.node]["bgColor"] == ov.DARK_RED
    assert data["results"]["abs0"]["value"] == 0.0  # before the fault, on another branch: exact
    # independent check of the number: relu(-x) (reference) vs relu(x) (the Neg dropped) on the same feed
    x = make_feeds(chain_stages["a"], {}, 0)["x"].astype(np.float64)
    # Relu, Neg and a difference with one zero side round nothing, on any CPU: exact up to a float32 cast
    assert div.max_abs == pytest.approx(np.abs(np.maximum(x, 0) - np.maximum(-x, 0)).max(), rel=1e-6)
    assert [t["value"] for t in data["thresholds"]][0] == ATOL
    ids = ov.onnx_node_ids(chain_stages["b_path"])
    assert set(data["results"]) <= set(ids.node_ids)
    # the graph diff: the Neg is removed from the reference, its consumer changed in the candidate
    diff_a = json.loads((out / "before.diff.json").read_text())["g"]["results"]
    diff_b = json.loads((out / "after.diff.json").read_text())["g"]["results"]
    assert diff_a["neg0"]["value"] == "removed" and diff_a["mul0"]["value"] == "kept"
    assert diff_b["relu0"]["value"] == "changed" and "neg0" not in diff_b


def test_graph_diff_sees_a_changed_weight_or_attribute(make_chain):
    """A rewrite that keeps every op and wire but changes a weight or an attribute is a changed node, not kept: the
    divergence overlay flags the node, and the diff must say why (hand-made: one change per copy, the rest kept)."""
    import copy

    from onnx import numpy_helper

    a = make_chain()
    weight = copy.deepcopy(a)  # the Mul's constant 2 -> 3
    weight.graph.initializer[0].CopyFrom(numpy_helper.from_array(np.array(3.0, np.float32), "two"))
    attr = make_model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
                      [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])])
    attr_b = copy.deepcopy(attr)
    attr_b.graph.node[0].attribute[0].i = 0  # Softmax over the other axis
    for before, after, node in ((a, weight, 4), (attr, attr_b, 0)):
        status_a, status_b = ov.graph_diff(before, after)
        assert status_a[node] == status_b[node] == "changed"
        assert all(s == "kept" for i, s in status_b.items() if i != node)
    assert set(ov.graph_diff(a, copy.deepcopy(a))[1].values()) == {"kept"}


def test_a_model_with_ort_ops_is_taken(tmp_path, capsys):
    """A stage ONNX Runtime wrote holds ORT's own ops (``SimplifiedLayerNormalization``, in the ONNX domain, as in
    Lab 01's ``llama_tiny_ort_all.onnx``), which onnx.checker refuses: the viewer takes it (ORT runs every
    comparison) and compares it with the same RMS norm in standard ops; a graph that is not sound is still refused
    (``checker_whole_message`` in BAD)."""
    from onnx import checker

    w = np.linspace(0.5, 1.5, 3, dtype=np.float32)
    fused = make_model([helper.make_node("SimplifiedLayerNormalization", ["x", "w"], ["t"], name="rms", axis=-1,
                                         epsilon=1e-6),
                        helper.make_node("Abs", ["t"], ["y"], name="abs")],
                       [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])], {"w": w},
                       check=False, infer_outputs=False)
    with pytest.raises(checker.ValidationError, match="No Op registered for SimplifiedLayerNormalization"):
        checker.check_model(fused, full_check=True)
    std = make_model([helper.make_node("Mul", ["x", "x"], ["sq"], name="sq"),
                      helper.make_node("ReduceMean", ["sq"], ["ms"], name="mean", axes=[-1], keepdims=1),
                      helper.make_node("Add", ["ms", "eps"], ["mse"], name="addeps"),
                      helper.make_node("Sqrt", ["mse"], ["rms_"], name="sqrt"),
                      helper.make_node("Div", ["x", "rms_"], ["n"], name="div"),
                      helper.make_node("Mul", ["n", "w"], ["t"], name="scale"),
                      helper.make_node("Abs", ["t"], ["y"], name="abs")],
                     [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2, 3])],
                     {"w": w, "eps": np.array(1e-6, np.float32)})
    onnx.save(fused, str(tmp_path / "fused.onnx"))
    onnx.save(std, str(tmp_path / "std.onnx"))
    out = tmp_path / "ov"
    args = [str(tmp_path / "fused.onnx"), "--reference", str(tmp_path / "std.onnx"), "--write-only", "--out", str(out)]
    assert run_cli(viewer.main, args) == 0
    assert "onnx.checker does not know some of its ops, ONNX Runtime loads it" in capsys.readouterr().out
    data = json.loads((out / "fused.divergence.json").read_text())["g"]["results"]
    # the same function on both sides in float32: |t| <= sqrt(3) * 1.5 < 2.6 and about five roundings each, so
    # 1e-5 is ~40 ulp at 2.6 (a missing scale or eps-free division by a wrong mean would be off by > 0.1)
    assert data["abs"]["value"] <= 1e-5


def test_a_failed_overlay_leaves_none_of_the_run(chain_stages, results_dir, capsys):
    """``--memory`` cannot size a data-dependent shape (``NonZero``): exit 2, and no overlay of the run is left, not
    even the divergence and diff computed before the planner failed (they would sit beside older files)."""
    m = make_model([helper.make_node("Abs", ["x"], ["a"], name="abs"),
                    helper.make_node("NonZero", ["a"], ["nz"], name="nz"),
                    helper.make_node("Shape", ["nz"], ["s"], name="shape"),
                    helper.make_node("Cast", ["s"], ["y"], name="cast", to=TensorProto.FLOAT)],
                   [("x", TensorProto.FLOAT, [2, 3])], [("y", TensorProto.FLOAT, [2])])
    d = chain_stages["dir"]
    onnx.save(m, str(d / "nz.onnx"))
    onnx.save(m, str(d / "nz_ref.onnx"))
    out = d / "ov"
    args = [str(d / "nz.onnx"), "--reference", str(d / "nz_ref.onnx"), "--write-only", "--out", str(out)]
    assert run_cli(viewer.main, [*args, "--memory"]) == 2
    assert "'nz' (NonZero)" in capsys.readouterr().err
    assert not out.exists()  # nor the folder it made
    assert run_cli(viewer.main, args) == 0  # the same without --memory: written
    assert sorted(p.name for p in out.iterdir()) == ["nz.diff.json", "nz.divergence.json", "nz_ref.diff.json"]


def test_a_refused_run_leaves_no_folder(chain_stages, capsys):
    """--out names folders that do not exist yet: a run refused after they were made (the model is no ONNX file,
    for the viewer and the reducer alike) removes them again; a run that writes keeps them."""
    from debugging import reduce as rd

    d = chain_stages["dir"]
    (d / "notes.onnx").write_text("not a model")
    assert run_cli(viewer.main, [str(d / "notes.onnx"), "--memory", "--write-only", "--out", str(d / "v" / "a")]) == 2
    assert run_cli(rd.main, [str(d / "notes.onnx"), str(chain_stages["b_path"]), "--out", str(d / "r" / "a")]) == 2
    assert "is not an ONNX model" in capsys.readouterr().err
    assert not (d / "v").exists() and not (d / "r").exists()
    assert run_cli(viewer.main, [str(chain_stages["a_path"]), "--memory", "--write-only", "--out", str(d / "v" / "a")]) == 0
    assert (d / "v" / "a" / "before.bytes.json").is_file()


def test_memory_overlay_bytes(chain_stages):
    ids = ov.onnx_node_ids(chain_stages["a_path"])
    written, live, summary = ov.memory_overlays(chain_stages["a"], ids)
    # every intermediate is float32 [2, 3] = 24 bytes; y is a graph output (kept live to the end)
    assert {k: v["value"] for k, v in written["results"].items()} == {"abs0": 24, "neg0": 24, "relu0": 24, "node": 24,
                                                                      "mul0": 24}
    assert max(v["value"] for v in live["results"].values()) == summary["lower_bound_bytes"]


def test_rank_first_names_the_node_to_open_on():
    within = {"value": ATOL, "bgColor": ov.GREEN}
    div = ov.graph_node_data({"a": {"value": 0.0}, "b": {"value": 0.5}, "c": {"value": 2.0}},
                             thresholds=[within, {"value": ov.NOT_FINITE, "bgColor": ov.RED}])
    # divergence: the first node beyond the tolerance (the divergence finder's), not the largest
    assert ov.rank_first({"g": div}, "d.json") == ov.Focus("g", "b", 0.5, f"the first node beyond {ATOL:g} in d.json "
                                                                         "(0.5)")
    calm = ov.graph_node_data({"a": {"value": 0.0}, "b": {"value": ATOL / 2}}, thresholds=[within])
    assert ov.rank_first({"g": calm}).node is None and "largest 5e-05" in ov.rank_first({"g": calm}).why
    # bytes (a gradient): the largest, the first on ties; NaN skipped; a bare GraphNodeData has no graph id
    nbytes = ov.graph_node_data({"a": {"value": 24}, "b": {"value": 96}, "c": {"value": 96},
                                 "d": {"value": float("nan")}}, gradient=ov.BYTES_GRADIENT)
    top = ov.rank_first(nbytes, "b.json")
    assert (top.graph, top.node, top.value, top.why) == ("", "b", 96.0, "the largest value in b.json (96)")
    # graph diff: the first node not kept
    diff = {"g": {"results": {"a": {"value": "kept"}, "b": {"value": "changed"}, "c": {"value": "removed"}}}}
    assert ov.rank_first(diff).node == "b"
    assert ov.rank_first({"g": {"results": {"a": {"value": "kept"}}}}).node is None
    empty = ov.rank_first({"g": {"results": {}}}, "e.json")
    assert empty.node is None and empty.line("m.onnx") == ("no node selected in m.onnx: e.json has no values; the page "
                                                           "opens on the whole graph")


def test_ui_state_in_the_url():
    url = f"http://{viewer.HOST}:1/?data=" + urllib.parse.quote(json.dumps({"models": [{"url": "/m.onnx"}]}))
    state = explorer_page.ui_state("relu0", "g", "m.onnx")
    with_state = explorer_page.with_ui_state(url, state)
    assert json.loads(urllib.parse.unquote(with_state.split("?data=", 1)[1])) == {"models": [{"url": "/m.onnx"}],
                                                                                "uiState": state}
    assert explorer_page.with_ui_state(with_state, None) == url
    panel = "GRAPH INFO\n...\nNODE INFO\nop name\n\t\nRelu\n\n\nid\n\t\nrelu0\n\n\nnamespace\n\t\ng\n"
    assert explorer_page.selected_node(panel) == "relu0" and explorer_page.selected_node("GRAPH INFO\nid\nx") is None


def test_mlir_overlay_from_the_builtin_adapter(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text("func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
                   "  %0 = stablehlo.add %a, %b : tensor<4x8xf32>\n"
                   "  %1 = stablehlo.multiply %0, %0 : tensor<4x8xf32>\n"
                   "  return %1 : tensor<4x8xf32>\n}\n")
    served, files, graphs = mlir_view.mlir_overlays(src, tmp_path)
    data = json.loads(files[0].read_text())["f"]["results"]
    assert served == src
    assert data["0"]["value"] == 4 * 8 * 4 and data["1"]["value"] == 128
    assert ov.mlir_op_labels(graphs[0]) == ["stablehlo.add", "stablehlo.multiply"]
    assert ov.mlir_type_bytes("tensor<2x3xf16>") == 12 and ov.mlir_type_bytes("tensor<?x3xf32>") == 0


def test_tosa_is_served_in_the_generic_form(tmp_path):
    src = tmp_path / "t.mlir"
    src.write_text(TOSA)
    served, files, graphs = mlir_view.mlir_overlays(src, tmp_path)
    assert served == tmp_path / "t.generic.mlir" and '"tosa.transpose"(' in served.read_text()
    assert [f.name for f in files] == ["t.bytes.json"]
    results = json.loads(files[0].read_text())["forward"]["results"]
    assert results["0"]["value"] == results["1"]["value"] == 1 * 3 * 4 * 2 * 4  # f32 [1, 3, 4, 2]


BAD = {  # case: (what the error line must hold, ...)
    "not_onnx": ("notes.onnx",), "no_common_tensors": ("no tensor name in common",), "port_in_use": ("in use",),
    "missing": ("absent.onnx",), "mlir_tensor_dialect": ("no tensor dialect",),
    "mlir_dialects": ("has no linalg, math or tensor dialect",),  # linalg.abs holds a math.absf
    "mlir_generic_unknown_dialect": ("no foo dialect",),  # the adapter would crash (SIGSEGV) on it
    "mlir_empty": ("e.mlir", "no function"), "mlir_parse_location": ("p.mlir:2:", "expected"),
    "out_is_file": ("--out", "is a file"), "out_proc": ("cannot write to --out /proc",),
    "ref_other_dims": ("after.onnx's input 'x' has size 2 on axis 0; the one given has shape [3, 3]",
                       "drawn for other.onnx", "earlier stage of the same model"),
    "ref_dynamic_dim": ("dynamic input axis x:0 ('N') of other.onnx has no size: pass --dims N=<size>",),
    "ref_int64": ("after.onnx's input 'x' is float32; the one given is int64 (drawn for other.onnx)",),
    "atol_nan": ("--atol must be a finite number",), "atol_inf": ("--atol must be a finite number",),
    "atol_negative": ("--atol must be >= 0",), "seed_negative": ("--seed must be >= 0",),
    "add_model_not_a_model": ("--add-model", "notes.txt", "not a model file"),
    "overlay_unknown_model": ("other.onnx is not a served model", "after.onnx, before.onnx"),
    "model_is_folder": ("stage.onnx is a folder",), "write_only_nothing": ("nothing to write",),
    "checker_whole_message": ("input 'zz' of node: name: abs0 OpType: Abs is not output of any previous nodes",),
    "check_write_only": ("exclude each other",),
    "overlay_not_node_data": ("ov.json: not Model Explorer node data",),
    "memory_unsized_after_reference": ("dynamic input axis x:0 ('N') of dyn.onnx has no size",),
    "dims_typo": ("--dims n: no such dynamic axis in the model (its dims: N, x:0)",),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_one_line_nonzero(case, chain_stages, make_chain, capsys, results_dir):
    d = chain_stages["dir"]
    out = results_dir / "out"
    args = [str(chain_stages["b_path"]), "--reference", str(chain_stages["a_path"]), "--write-only", "--out", str(out)]
    sock = None
    if case == "not_onnx":
        (d / "notes.onnx").write_text("this is not a protobuf")
        args[0] = str(d / "notes.onnx")
    elif case == "no_common_tensors":
        other = make_chain(prefix="o_")
        # the only shared names are x and y (graph input/output): no node output in common but y
        for n in other.graph.node:
            if "y" in n.output:
                n.output[0] = "o_y"
        other.graph.output[0].name = "o_y"
        onnx.save(other, str(d / "other.onnx"))
        args[2] = str(d / "other.onnx")
    elif case == "port_in_use":
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((viewer.HOST, 0))
        sock.listen(1)
        args = [str(chain_stages["b_path"]), "--port", str(sock.getsockname()[1])]
    elif case.startswith("mlir_"):
        body = {"mlir_tensor_dialect": "  %0 = tensor.empty() : tensor<2xf32>\n  return %0 : tensor<2xf32>\n",
                "mlir_dialects": "  %0 = tensor.empty() : tensor<2xf32>\n  %1 = linalg.abs ins(%0 : tensor<2xf32>) "
                                 "outs(%0 : tensor<2xf32>) -> tensor<2xf32>\n  return %1 : tensor<2xf32>\n",
                "mlir_generic_unknown_dialect": '  %0 = "foo.bar"() : () -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n',
                "mlir_parse_location": "  %0 = \n"}.get(case)
        name = {"mlir_empty": "e.mlir", "mlir_parse_location": "p.mlir"}.get(case, "t.mlir")
        (d / name).write_text("" if body is None else f"func.func @f() -> tensor<2xf32> {{\n{body}}}\n")
        args = [str(d / name), "--write-only", "--out", str(out)]
    elif case == "out_is_file":
        args[-1] = str(d / "before.onnx")
    elif case == "out_proc":
        if not Path("/proc/self").is_dir():
            pytest.skip("no /proc here")
        args[-1] = "/proc"
    elif case.startswith("ref_"):
        elem, shape = {"ref_other_dims": (TensorProto.FLOAT, [3, 3]), "ref_dynamic_dim": (TensorProto.FLOAT, ["N", 3]),
                       "ref_int64": (TensorProto.INT64, [2, 3])}[case]
        onnx.save(_chain_taking(elem, shape), str(d / "other.onnx"))
        args[2] = str(d / "other.onnx")
    elif case in ("atol_nan", "atol_inf", "atol_negative", "seed_negative"):
        args += {"atol_nan": ["--atol", "nan"], "atol_inf": ["--atol", "inf"], "atol_negative": ["--atol", "-1"],
                 "seed_negative": ["--seed", "-1"]}[case]
    elif case == "add_model_not_a_model":
        (d / "notes.txt").write_text("not a model")
        args += ["--add-model", str(d / "notes.txt")]
    elif case == "overlay_unknown_model":
        (d / "ov.json").write_text('{"results": {}}')
        args += ["--overlay", f"{d / 'ov.json'}@other.onnx"]
    elif case == "model_is_folder":
        (d / "stage.onnx").mkdir()
        args[0] = str(d / "stage.onnx")
    elif case == "write_only_nothing":
        args = [str(chain_stages["b_path"]), "--write-only", "--out", str(out)]
    elif case == "checker_whole_message":
        broken = make_chain()
        broken.graph.node[0].input[0] = "zz"
        onnx.save(broken, str(d / "broken.onnx"))
        args = [str(d / "broken.onnx"), "--memory", "--write-only", "--out", str(out)]
    elif case == "check_write_only":
        args.append("--check")
    elif case == "dims_typo":  # a name that sizes nothing: refused, not left at a default size
        onnx.save(_chain_taking(TensorProto.FLOAT, ["N", 3]), str(d / "dyn.onnx"))
        args = [str(d / "dyn.onnx"), "--memory", "--write-only", "--dims", "n=2", "--out", str(out)]
    elif case == "overlay_not_node_data":
        (d / "ov.json").write_text('{"a": 1}')
        args += ["--overlay", str(d / "ov.json")]
    elif case == "memory_unsized_after_reference":  # refused before the --reference overlays are written
        onnx.save(_chain_taking(TensorProto.FLOAT, ["N", 3]), str(d / "dyn.onnx"))
        args = [str(d / "dyn.onnx"), "--reference", str(chain_stages["a_path"]), "--memory", "--write-only",
                "--out", str(out)]
    else:
        args[0] = str(d / "absent.onnx")
    try:
        rc = run_cli(viewer.main, args)
    finally:
        if sock is not None:
            sock.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and err[0].startswith("error: ")
    for expected in BAD[case]:
        assert expected in err[0]
    # refused before any work: no overlay (nor generic MLIR) written
    assert not out.is_dir() or not list(out.iterdir())


def test_reference_and_memory_size_dynamic_dims_alike(chain_stages, capsys, results_dir):
    d, out = chain_stages["dir"], results_dir / "out"
    onnx.save(_chain_taking(TensorProto.FLOAT, ["N", 3]), str(d / "dyn.onnx"))
    shutil.copy(chain_stages["a_path"], d / "fixed.onnx")
    # dyn.onnx as the reference (its shapes draw the feeds) and with --memory: the same refusal
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--reference", str(d / "dyn.onnx"), "--write-only",
                                 "--out", str(out)]) == 2
    as_reference = capsys.readouterr().err.strip()
    assert run_cli(viewer.main, [str(d / "dyn.onnx"), "--memory", "--write-only", "--out", str(out)]) == 2
    as_memory = capsys.readouterr().err.strip()
    assert as_reference == as_memory == "error: dynamic input axis x:0 ('N') of dyn.onnx has no size: pass --dims N=<size>"
    # sized, the feeds take N=2, which the candidate's static x[2, 3] accepts; N=3 it refuses
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--reference", str(d / "dyn.onnx"), "--dims", "N=2",
                                 "--write-only", "--out", str(out)]) == 0
    capsys.readouterr()
    assert run_cli(viewer.main, [str(d / "fixed.onnx"), "--reference", str(d / "dyn.onnx"), "--dims", "N=3",
                                 "--write-only", "--out", str(out)]) == 2
    assert "fixed.onnx's input 'x' has size 2 on axis 0; the one given has shape [3, 3]" in capsys.readouterr().err


def test_serve_prints_the_url_that_loads_the_graphs(chain_stages, results_dir, capsys, monkeypatch):
    import model_explorer

    served = {}
    monkeypatch.setattr(model_explorer, "visualize_from_config", lambda cfg, **kw: served.update(kw, cfg=cfg))
    out = results_dir / "out"
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--reference", str(chain_stages["a_path"]),
                                 "--out", str(out)]) == 0
    out_lines = capsys.readouterr().out.splitlines()
    line = next(ln for ln in out_lines if ln.startswith("[5 serve]"))
    url = line.split()[5]
    assert url.startswith(f"http://{viewer.HOST}:{served['port']}/?data=")
    data = json.loads(urllib.parse.unquote(url.split("?data=", 1)[1]))
    # the two graphs, the candidate first, and every overlay targeted at its model by file name
    assert [m["url"] for m in data["models"]] == [str(chain_stages["b_path"].resolve()),
                                                  str(chain_stages["a_path"].resolve())]
    assert dict(zip(data["nodeData"], data["nodeDataTargets"])) == {
        str(out / "after.divergence.json"): "after.onnx", str(out / "after.diff.json"): "after.onnx",
        str(out / "before.diff.json"): "before.onnx"}
    # the page opens on the first node beyond --atol, its layer expanded; the divergence is listed last, the
    # node-data file Model Explorer draws
    assert data["uiState"] == explorer_page.ui_state("relu0", "g", "after.onnx")
    assert data["nodeData"][-1] == str(out / "after.divergence.json")
    assert ("[4 select] relu0 (Relu) in g of after.onnx: the first node beyond 0.0001 in after.divergence.json (0.6404)"
            in out_lines)


@pytest.mark.parametrize("results, line", [
    ({}, "no node selected in after.onnx: ov.json has no values; the page opens on the whole graph"),
    ({"nope": {"value": 3}}, "no node selected in after.onnx: the largest value in ov.json (3) names 'nope', not a "
                             "node of graph 'g'; the page opens on the whole graph")])
@pytest.mark.parametrize("serve_only", [False, True], ids=["computed", "serve-only"])
def test_an_overlay_without_a_node_to_open_on_says_so(results, line, serve_only, chain_stages, results_dir, capsys,
                                                      monkeypatch):
    """A hand-made overlay with no value, or whose largest value names a node the adapter does not make, selects
    nothing, with the reason; --serve-only (what --check's child runs) checks the node against the adapter too."""
    import model_explorer

    served = {}
    monkeypatch.setattr(model_explorer, "visualize_from_config", lambda cfg, **kw: served.update(kw, cfg=cfg))
    (chain_stages["dir"] / "ov.json").write_text(json.dumps({"results": results}))
    mode = ["--serve-only"] if serve_only else ["--out", str(results_dir / "out")]
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--overlay", str(chain_stages["dir"] / "ov.json"),
                                 *mode]) == 0
    out = capsys.readouterr()
    assert f"[4 select] {line}" in out.out.splitlines() and not out.err
    url = next(ln for ln in out.out.splitlines() if ln.startswith("[5 serve]")).split()[5]
    assert "uiState" not in json.loads(urllib.parse.unquote(url.split("?data=", 1)[1]))


def test_check_serves_what_was_written(tmp_path, results_dir, capsys, monkeypatch):
    """--check on MLIR: the server child serves the generic re-print and the one overlay as they are, on --port."""
    calls = {}

    class Proc:
        def terminate(self):
            calls["terminated"] = True

        def wait(self, timeout=None):
            return 0

    def spawn(args):
        calls["child"] = list(args)
        return Proc(), "http://page"

    monkeypatch.setattr(viewer, "find_chromium", lambda: "/usr/bin/chromium")
    monkeypatch.setattr(viewer, "spawn", spawn)
    monkeypatch.setattr(viewer, "browser_check", lambda *a: calls.setdefault("browser", a) and "")
    src, out = tmp_path / "t.mlir", results_dir / "out"
    src.write_text(TOSA)
    port = viewer.free_port()
    assert run_cli(viewer.main, [str(src), "--check", "--port", str(port), "--out", str(out)]) == 0
    assert calls["child"] == [str(out / "t.generic.mlir"), "--serve-only", "--port", str(port),
                              "--overlay", str(out / "t.bytes.json")]
    assert sorted(p.name for p in out.iterdir()) == ["t.bytes.json", "t.generic.mlir"]  # nothing else written
    url, model, labels, overlays, shot, node, node_shot = calls["browser"]
    assert (url, model, overlays, shot) == ("http://page", "t.generic.mlir", ["t.bytes.json"],
                                            out / "t.generic.screenshot.png")
    # transpose and clamp write the same 96 bytes: the first of them, op 0
    assert (node, node_shot) == ("0", out / "t.generic.node.screenshot.png")
    assert set(labels) <= {"tosa.transpose", "tosa.clamp", "func.return"} and labels and calls["terminated"]
    assert f"screenshot {out / 't.generic.screenshot.png'}" in capsys.readouterr().out


def test_check_without_chromium_says_so_first(chain_stages, results_dir, capsys, monkeypatch):
    monkeypatch.setattr(viewer, "find_chromium", lambda: None)
    monkeypatch.setattr(viewer, "spawn", lambda *a: pytest.fail("started a server"))
    out = results_dir / "out"
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--reference", str(chain_stages["a_path"]), "--check",
                                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no chromium for --check" in err[0]
    assert not out.exists()


@pytest.mark.skipif(find_chromium() is None, reason=NO_CHROMIUM)
def test_check_renders_graph_and_overlay_in_headless_chromium(chain_stages, results_dir, capsys):
    from PIL import Image

    out = results_dir / "debugging"
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--reference", str(chain_stages["a_path"]), "--write-only",
                                 "--out", str(out)]) == 0
    # the CLI's check: the page shows after.onnx, its op labels (search) and the overlay's name, or rc 1
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--overlay", str(out / "after.divergence.json"),
                                 "--check", "--out", str(out)]) == 0
    shot = out / "after.screenshot.png"
    printed = capsys.readouterr().out
    assert f"screenshot {shot}" in printed
    # and the page a user opens: NODE INFO named relu0 (or the check failed), screenshot saved
    assert f"node relu0 selected, zoomed: {out / 'after.node.screenshot.png'}" in printed
    assert (out / "after.node.screenshot.png").stat().st_size > 0
    graph = np.asarray(Image.open(shot).convert("RGB")).astype(int)[:, :1000]  # left of the side panel
    green, red = _rgb(ov.GREEN), _rgb(ov.DARK_RED)
    # the overlay's colours on the op nodes, drawn only once the layer "g" is expanded (by the search for their
    # labels, then the expand-all click): the nodes
    # within atol (green) and the diverging node (dark red)
    assert (np.abs(graph - green).sum(axis=2) < 12).sum() > 50
    assert (np.abs(graph - red).sum(axis=2) < 12).sum() > 50


@pytest.mark.skipif(find_chromium() is None, reason=NO_CHROMIUM)
def test_the_page_opens_on_the_first_diverging_node_zoomed_in(deep_chain, tmp_path, results_dir, capsys):
    """On a graph too long to read whole (44 nodes in one column: a box a few pixels high once the graph fits the
    page), the URL the viewer prints opens on the first node beyond --atol: NODE INFO names it, its box is dark red
    and big enough to read its white label, its neighbours are drawn around it."""
    from PIL import Image

    from lab01_onnx.divergence import onnx_divergence

    ref, cand, feeds = deep_chain
    onnx.save(ref, str(tmp_path / "deep_ref.onnx"))
    onnx.save(cand, str(tmp_path / "deep.onnx"))
    out = results_dir / "debugging"
    assert run_cli(viewer.main, [str(tmp_path / "deep.onnx"), "--reference", str(tmp_path / "deep_ref.onnx"),
                                 "--write-only", "--out", str(out)]) == 0
    div = onnx_divergence(ref, cand, feeds, atol=ATOL)  # the divergence finder's node, independently
    assert div is not None and div.node == "add10"
    # what the server prints: the URL with Model Explorer's uiState selecting that node
    proc, url = viewer.spawn([str(tmp_path / "deep.onnx"), "--serve-only", "--port", str(viewer.free_port()),
                              "--overlay", str(out / "deep.divergence.json")])
    try:
        assert json.loads(urllib.parse.unquote(url.split("?data=", 1)[1]))["uiState"] == explorer_page.ui_state(
            div.node, "chain", "deep.onnx")
        with Browser() as b:
            text = explorer_page.node_check(b, url, "deep.onnx", div.node, ["deep.divergence.json"],
                                            tmp_path / "node.png", timeout=60)
    finally:
        proc.terminate()
        proc.wait(10)
    assert explorer_page.selected_node(text) == div.node and "Tanh" in text  # its neighbours, in the side panel too
    graph = np.asarray(Image.open(tmp_path / "node.png").convert("RGB")).astype(int)[:, :1000]  # left of the panel
    rows, cols = np.nonzero(np.abs(graph - _rgb(ov.DARK_RED)).sum(axis=2) < 12)
    assert rows.max() - rows.min() >= 28 and cols.max() - cols.min() >= 100  # one box, 45 px high at most zoom
    box = graph[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    assert ((box >= 250).all(axis=2)).sum() > 30  # its label, white on dark red
    # its neighbours: the Tanh before it (green, within atol) and after it (red), full size around it
    assert (np.abs(graph - _rgb(ov.GREEN)).sum(axis=2) < 12).sum() > 2000
    assert (np.abs(graph - _rgb(ov.RED)).sum(axis=2) < 12).sum() > 2000


def _rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])


@pytest.mark.skipif(find_chromium() is None, reason=NO_CHROMIUM)
def test_check_draws_the_op_boxes_of_an_mlir_graph(tmp_path, results_dir, capsys):
    """An MLIR function has no layers; Model Explorer's "expand all layers" there clears every node's size and
    lays nothing out again: the op boxes vanished and the top ops' white labels with them. --check leaves such a
    graph as laid out, so its boxes carry the bytes overlay's colours."""
    from PIL import Image

    src, out = tmp_path / "t.mlir", results_dir / "debugging"
    src.write_text(TOSA)
    assert run_cli(viewer.main, [str(src), "--check", "--out", str(out)]) == 0
    assert f"screenshot {out / 't.generic.screenshot.png'}" in capsys.readouterr().out
    graph = np.asarray(Image.open(out / "t.generic.screenshot.png").convert("RGB")).astype(int)[:, :1000]
    low, high = (_rgb(g["bgColor"]) for g in ov.BYTES_GRADIENT)
    # tosa.transpose and tosa.clamp write the same 96 bytes, the overlay's maximum: two dark blue boxes, each with
    # its label in white inside (a white pixel with dark blue pixels left and right of it on its row)
    blue = np.abs(graph - high).sum(axis=2) < 12
    assert blue.sum() > 2 * 1500
    white = (graph >= 250).all(axis=2)
    inside = white & np.maximum.accumulate(blue, axis=1) & np.maximum.accumulate(blue[:, ::-1], axis=1)[:, ::-1]
    assert inside.sum() > 100
    assert (np.abs(graph - low).sum(axis=2) < 6).sum() > 2000  # the Outputs box (0 bytes): the scale's minimum
    assert explorer_page.layer_count("GRAPH INFO\nop node count\n\t\n4\n\n\nlayer count\n\t\n0\n") == 0
    assert explorer_page.layer_count("op node count 4") is None


@pytest.mark.skipif(find_chromium() is None, reason=NO_CHROMIUM)
def test_page_check_fails_on_an_error_status_or_a_missing_node(chain_stages, tmp_path):
    gone = tmp_path / "gone.onnx"
    shutil.copy(chain_stages["b_path"], gone)
    procs = []
    try:
        proc, url_gone = viewer.spawn([str(gone), "--serve-only", "--port", str(viewer.free_port())])
        procs.append(proc)
        gone.unlink()  # the server started with it; Model Explorer's adapter reads it only when the page asks
        proc, url = viewer.spawn([str(chain_stages["b_path"]), "--serve-only", "--port", str(viewer.free_port())])
        procs.append(proc)
        with Browser() as b:
            with pytest.raises(GateFailed, match=r"could not load .*gone\.onnx: Error status \(.*No such file"):
                explorer_page.page_check(b, url_gone, "gone.onnx", ["Relu"], [], tmp_path / "gone.png", timeout=60)
            assert explorer_page.page_check(b, url, "after.onnx", ["Relu", "Mul"], [], tmp_path / "ok.png", timeout=60)
            with pytest.raises(GateFailed, match="has no node labelled 'Conv'"):
                explorer_page.wait_for_graph(b, "after.onnx", ["Conv"], timeout=3)
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)
    assert not Path(b.profile).exists()  # the profile, and Chromium's temporary files inside it, are deleted
    assert not (tmp_path / "gone.png").exists() and (tmp_path / "ok.png").stat().st_size > 0


def test_an_mlir_error_is_the_process_s_only_stderr_line(tmp_path):
    """The MLIR adapter's native runtime logged two lines (absl, oneDNN) on fd 2 before the viewer's error line;
    run as a user runs it, in its own process, the error is all that stderr holds."""
    import subprocess
    import sys
    (tmp_path / "p.mlir").write_text("func.func @f() -> tensor<2xf32> {\n  %0 = \n}\n")
    run = subprocess.run([sys.executable, "-m", "debugging.viewer", str(tmp_path / "p.mlir"), "--write-only", "--out",
                          str(tmp_path / "out")], capture_output=True, text=True, timeout=120,
                         cwd=Path(viewer.__file__).resolve().parent.parent)
    assert run.returncode == 2 and run.stderr.splitlines() == [
        f"error: {tmp_path / 'p.mlir'}:2:7: Model Explorer's MLIR adapter cannot read it: expected operation name in "
        "quotes"], run.stderr
