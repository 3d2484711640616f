"""Model Explorer viewer: overlays carry the labs' numbers under the adapter's node ids; the page renders.

Tiny ONNX graphs from debugging/conftest.py (a Neg feeding a chain, one node unnamed so the adapter's own
naming is exercised); the candidate is Lab 01's deliberately wrong rewrite (Neg dropped as if an Identity).
"""
from __future__ import annotations

import json
import socket
from pathlib import Path

import numpy as np
import onnx
import pytest

from common.errors import run_cli
from debugging import overlays as ov
from debugging import viewer
from debugging.browser import Browser, find_chromium

ATOL = 1e-4


def test_node_ids_are_the_adapters(chain_stages):
    ids = ov.onnx_node_ids(chain_stages["a_path"])
    assert ids.graph == "g"
    # named nodes keep their names; the unnamed Add gets onnx-ir NameFixPass's "node"
    assert {ids.node_id(n) for n in chain_stages["a"].graph.node} == {"abs0", "neg0", "relu0", "node", "mul0"}
    assert "[value] x" in ids.node_ids and "[value] y" in ids.node_ids


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


def test_memory_overlay_bytes(chain_stages):
    ids = ov.onnx_node_ids(chain_stages["a_path"])
    written, live, summary = ov.memory_overlays(chain_stages["a"], ids)
    # every intermediate is float32 [2, 3] = 24 bytes; y is a graph output (kept live to the end)
    assert {k: v["value"] for k, v in written["results"].items()} == {"abs0": 24, "neg0": 24, "relu0": 24, "node": 24,
                                                                      "mul0": 24}
    assert max(v["value"] for v in live["results"].values()) == summary["lower_bound_bytes"]


def test_mlir_overlay_from_the_builtin_adapter(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text("func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
                   "  %0 = stablehlo.add %a, %b : tensor<4x8xf32>\n"
                   "  %1 = stablehlo.multiply %0, %0 : tensor<4x8xf32>\n"
                   "  return %1 : tensor<4x8xf32>\n}\n")
    served, files = viewer.mlir_overlays(src, tmp_path)
    data = json.loads(files[0].read_text())["f"]["results"]
    assert served == src
    assert data["0"]["value"] == 4 * 8 * 4 and data["1"]["value"] == 128
    assert ov.mlir_type_bytes("tensor<2x3xf16>") == 12 and ov.mlir_type_bytes("tensor<?x3xf32>") == 0


@pytest.mark.parametrize("case", ["not_onnx", "no_common_tensors", "port_in_use", "missing", "mlir_tensor_dialect"])
def test_bad_input_one_line_nonzero(case, chain_stages, make_chain, capsys, results_dir):
    args = [str(chain_stages["b_path"]), "--write-only", "--out", str(results_dir)]
    sock = None
    if case == "not_onnx":
        bad = chain_stages["dir"] / "notes.onnx"
        bad.write_text("this is not a protobuf")
        args[0] = str(bad)
    elif case == "no_common_tensors":
        other = make_chain(prefix="o_")
        args += ["--reference", str(chain_stages["dir"] / "other.onnx")]
        # the only shared names are x and y (graph input/output): no node output in common but y
        for n in other.graph.node:
            if "y" in n.output:
                n.output[0] = "o_y"
        other.graph.output[0].name = "o_y"
        onnx.save(other, str(chain_stages["dir"] / "other.onnx"))
    elif case == "port_in_use":
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((viewer.HOST, 0))
        sock.listen(1)
        args = [str(chain_stages["b_path"]), "--port", str(sock.getsockname()[1])]
    elif case == "mlir_tensor_dialect":  # a dialect the adapter lacks (its generic form would crash it)
        src = chain_stages["dir"] / "t.mlir"
        src.write_text("func.func @f() -> tensor<2xf32> {\n  %0 = tensor.empty() : tensor<2xf32>\n"
                       "  return %0 : tensor<2xf32>\n}\n")
        args[0] = str(src)
    else:
        args[0] = str(chain_stages["dir"] / "absent.onnx")
    try:
        rc = run_cli(viewer.main, args)
    finally:
        if sock is not None:
            sock.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and err[0].startswith("error: ")
    expected = {"not_onnx": "notes.onnx", "no_common_tensors": "no tensor name in common",
                "port_in_use": "in use", "missing": "absent.onnx", "mlir_tensor_dialect": "no tensor dialect"}[case]
    assert expected in err[0]


@pytest.mark.skipif(find_chromium() is None, reason="no chromium on PATH (apt-get install chromium; make chromium)")
def test_page_renders_graph_and_overlay_in_headless_chromium(chain_stages, results_dir):
    from PIL import Image

    out = results_dir / "debugging"
    assert run_cli(viewer.main, [str(chain_stages["b_path"]), "--reference", str(chain_stages["a_path"]), "--write-only",
                                 "--out", str(out)]) == 0
    overlay = out / "after.divergence.json"
    proc, url = viewer.spawn([str(chain_stages["b_path"]), "--overlay", str(overlay), "--port", str(viewer.free_port()),
                              "--out", str(out)])
    try:
        assert url.startswith(f"http://{viewer.HOST}:")
        with Browser() as b:
            b.open(url)
            # graph: the file and graph names and op labels; overlay: its name in the node-data panel
            text = b.wait_for_text(["after.onnx", "after.divergence.json", "Relu", "Mul"], timeout=90)
            shot = b.screenshot(out / "page.png")
    finally:
        proc.terminate()
        proc.wait(10)
    assert not Path(b.profile).exists()  # the profile, and Chromium's temporary files inside it, are deleted
    assert "op node count" in text
    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    green = np.array([int(ov.GREEN[i:i + 2], 16) for i in (1, 3, 5)])
    red = np.array([int(ov.DARK_RED[i:i + 2], 16) for i in (1, 3, 5)])
    # the overlay's colours are on the page: nodes within atol (green) and the diverging node (dark red)
    assert (np.abs(img - green).sum(axis=2) < 12).sum() > 50
    assert (np.abs(img - red).sum(axis=2) < 12).sum() > 50
