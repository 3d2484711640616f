"""Tests of common.onnx_utils: one-line errors on bad files, atomic saves, the exporter's fixed
choices (traceable masks, constant folding off), ORT sessions (level names, no global log state)."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper

from common import onnx_utils as ou
from common.errors import UserError
from common.models import ModelBundle
from common.testing import dangling_model, make_model

F = TensorProto.FLOAT


def _relu(opset: int = 17, extra=()) -> onnx.ModelProto:
    return make_model([*extra, helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2])], [("y", F, [2])],
                      opset=opset, domains={"com.x": 1}, check=False)


def test_graph_facts():
    model = _relu(15, [helper.make_node("Gelu", ["x"], ["g"], domain="com.microsoft")])
    assert ou.opset(model) == 15 and ou.opset(model, "com.x") == 1 and ou.opset(model, "com.none") == 0
    assert ou.op_counts(model) == {"Relu": 1, "com.microsoft.Gelu": 1}


def test_load_model_one_line_errors(tmp_path):
    good = ou.save_model(_relu(), tmp_path / "good.onnx")
    assert ou.load_model(good).graph.node[0].op_type == "Relu"
    (tmp_path / "empty.onnx").write_bytes(b"")
    (tmp_path / "text.onnx").write_text("not a model")
    (tmp_path / "cut.onnx").write_bytes(good.read_bytes()[:-7])
    for path, expected in ((tmp_path, "is a directory"), (tmp_path / "missing.onnx", "no such file"),
                           (tmp_path / "empty.onnx", r"is not an ONNX model \(empty file\)"),
                           (tmp_path / "text.onnx", "is not an ONNX model"),
                           (tmp_path / "cut.onnx", "is not an ONNX model")):
        with pytest.raises(UserError, match=expected) as exc:
            ou.load_model(path)
        assert "\n" not in str(exc.value)
    path = ou.save_model(dangling_model(), tmp_path / "dangling.onnx")
    assert ou.load_model(path).graph.node  # loads: the data-flow check is asked for
    with pytest.raises(UserError, match="not a valid ONNX graph: node 0 .* reads 'missing'"):
        ou.load_model(path, dataflow=True)
    with pytest.raises(UserError, match="dangling.onnx fails onnx.checker"):
        ou.check_model(path)


def test_save_model_is_atomic(tmp_path, monkeypatch):
    path = ou.save_model(_relu(), tmp_path / "m.onnx")
    before = path.read_bytes()
    monkeypatch.setattr(onnx.ModelProto, "SerializeToString", lambda self: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        ou.save_model(_relu(13), path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


@pytest.mark.parametrize("name,attr", [("DISABLE_ALL", "ORT_DISABLE_ALL"), ("BASIC", "ORT_ENABLE_BASIC"),
                                       ("EXTENDED", "ORT_ENABLE_EXTENDED"), ("ALL", "ORT_ENABLE_ALL")])
def test_ort_level_names_map_to_their_graph_optimization_level(name, attr):
    import onnxruntime as ort

    assert ou.ORT_LEVELS == ("DISABLE_ALL", "BASIC", "EXTENDED", "ALL")  # the order the tables use
    sess = ou.ort_session(_relu(), level=name)
    assert sess.get_session_options().graph_optimization_level == getattr(ort.GraphOptimizationLevel, attr)


def test_ort_levels_differ_in_what_they_rewrite(tmp_path):
    # DISABLE_ALL saves the graph as written; BASIC removes an Identity.
    src = ou.save_model(make_model([helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Relu", ["t"], ["y"])],
                                   [("x", F, [2])], [("y", F, [2])]), tmp_path / "m.onnx")
    assert ou.op_counts(ou.ort_optimize(src, tmp_path / "off.onnx", "DISABLE_ALL")) == {"Identity": 1, "Relu": 1}
    assert ou.op_counts(ou.ort_optimize(src, tmp_path / "basic.onnx", "BASIC")) == {"Relu": 1}
    with pytest.raises(UserError, match="unknown ORT optimization level 'FAST'"):
        ou.ort_session(src, level="FAST")


def test_ort_session_keeps_the_global_log_severity_and_runs(monkeypatch):
    import onnxruntime as ort

    def forbidden(*_):
        raise AssertionError("a session factory must not change ORT's process-wide log severity")

    monkeypatch.setattr(ort, "set_default_logger_severity", forbidden)
    sess = ou.ort_session(_relu(), log_level=3)
    assert sess.get_session_options().log_severity_level == 3
    x = np.array([-1.0, 2.0], np.float32)
    np.testing.assert_array_equal(ou.ort_run(sess, {"x": x})["y"], [0.0, 2.0])
    np.testing.assert_array_equal(ou.ort_run(_relu(), {"x": x})["y"], [0.0, 2.0])  # a model: a session is built


def test_ort_session_refuses_an_unknown_opset_in_one_line():
    model = _relu()
    model.opset_import[0].version = 99
    with pytest.raises(UserError, match="onnxruntime .* cannot load the model") as exc:
        ou.ort_session(model)
    assert "/onnxruntime_src/" not in str(exc.value) and "\n" not in str(exc.value)


class _MaskProbe(torch.nn.Module):
    """Records whether transformers' sdpa_mask is the traceable one while the exporter traces it."""

    seen: list = []

    def forward(self, x):
        import transformers.masking_utils as mu

        self.seen.append(mu.sdpa_mask is ou._traceable_sdpa_mask)
        return torch.relu(x + 0.0 * x.sum())


def test_export_torchscript_always_uses_traceable_masks_and_keeps_shape_arithmetic(tmp_path):
    import transformers.masking_utils as mu

    original = mu.sdpa_mask
    x = torch.randn(2, 3)
    bundle = ModelBundle(name="probe", model=_MaskProbe().eval(), inputs={"x": x}, output_names=["y"],
                         dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    _MaskProbe.seen.clear()
    path = ou.export_torchscript(bundle, tmp_path / "probe.onnx")
    assert _MaskProbe.seen and all(_MaskProbe.seen) and mu.sdpa_mask is original  # patched, then restored
    model = ou.load_model(path)
    assert ou.opset(model) == ou.TORCHSCRIPT_OPSET
    assert [d.dim_param for d in model.graph.input[0].type.tensor_type.shape.dim][:1] == ["batch"]
    assert not list(tmp_path.glob("*.tmp.onnx"))
    with pytest.raises(UserError, match="opset 99 is not supported by the TorchScript exporter"):
        ou.export_torchscript(bundle, tmp_path / "bad.onnx", opset=99)


def test_calibration_reader_hands_out_each_feed_once():
    feeds = [{"x": np.full(2, i, np.float32)} for i in range(3)]
    reader = ou.calibration_reader(feeds)
    got = [reader.get_next() for _ in range(4)]
    assert [g["x"][0] for g in got[:3]] == [0, 1, 2] and got[3] is None


def test_check_feeds_names_the_first_input_that_does_not_fit_as_onnx_runtime_does():
    """What :func:`check_feeds` accepts, ONNX Runtime runs; what it refuses (one line naming the input), ORT refuses
    too (the independent reference: the runtime's own input checks)."""
    model = make_model([helper.make_node("Add", ["a", "b"], ["y"])], [("a", F, ["N", 2]), ("b", F, ["N", 2])],
                       [("y", F, ["N", 2])])
    ok = {"a": np.zeros((3, 2), np.float32), "b": np.ones((3, 2), np.float32)}
    ou.check_feeds(model, ok)
    assert ou.ort_run(ou.ort_session(model), ok)["y"].shape == (3, 2)
    bad = {"missing": {"a": ok["a"]},
           "dtype": {**ok, "b": ok["b"].astype(np.int64)},
           "rank": {**ok, "b": np.ones((3, 2, 1), np.float32)},
           "fixed axis": {**ok, "b": np.ones((3, 5), np.float32)}}
    for case, feeds in bad.items():
        with pytest.raises(UserError) as info:
            ou.check_feeds(model, feeds, "the candidate")
        assert "\n" not in str(info.value) and str(info.value).startswith("the candidate"), case
        with pytest.raises(Exception):  # noqa: B017 (ORT raises its own types: any refusal is the reference)
            ou.ort_run(ou.ort_session(model), feeds)
    with pytest.raises(UserError, match="dim 'N' is 3 in one input and 4"):  # a named dim is one size throughout
        ou.check_feeds(model, {**ok, "b": np.ones((4, 2), np.float32)})
