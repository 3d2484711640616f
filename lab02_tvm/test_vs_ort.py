"""Tests of lab02_tvm.measure.vs_ort: TVM kernels and ONNX Runtime nodes grouped by convolution shape.

The independent reference for the shapes and their counts is PyTorch itself: a forward hook on every
``nn.Conv2d`` of the model records the input and output shapes of each call, and
``torch.utils.flop_counter.FlopCounterMode`` counts the convolutions' FLOPs. The times are not asserted
(they depend on the machine), only that each side timed every shape.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from common.errors import UserError
from lab02_tvm.measure import vs_ort

pytestmark = pytest.mark.lab02


def _conv_func(layout: str):
    """The fused PrimFunc of one ``conv2d + relu`` in ``layout`` (3x3, 8 -> 16 channels, 10x12 -> 5x6, stride 2, pad 1;
    ``"NHWC/HWIO"``: NHWC data, HWIO weights)."""
    import tvm
    from tvm import relax
    from tvm.relax.frontend import nn  # noqa: F401  (Relax op registry)
    from tvm.script import relax as R
    layout, _, kl = layout.partition("/")  # "NHWC/HWIO": the weights' layout after the data's (default OIHW, OHWI)
    kl = kl or ("OIHW" if layout == "NCHW" else "OHWI")
    x_shape = (1, 8, 10, 12) if layout == "NCHW" else (1, 10, 12, 8)
    w_shape = {"OIHW": (16, 8, 3, 3), "OHWI": (16, 3, 3, 8), "HWIO": (3, 3, 8, 16)}[kl]

    @tvm.script.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor(x_shape, "float32"), w: R.Tensor(w_shape, "float32")):
            with R.dataflow():
                y = R.nn.relu(R.nn.conv2d(x, w, strides=2, padding=1, data_layout=layout, kernel_layout=kl))
                R.output(y)
            return y

    mod = relax.transform.FuseTIR()(relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(
        relax.transform.LegalizeOps()(Mod))))
    return next(f for gv, f in mod.functions.items() if "conv2d" in gv.name_hint)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC", "NHWC/HWIO"])
def test_tvm_conv_shape_reads_either_layout(layout):
    assert vs_ort.tvm_conv_shape(_conv_func(layout)) == vs_ort.ConvShape(8, 10, 12, 16, 3, 3, 5, 6)


def test_conv_flops_match_pytorch_flop_counter():
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    conv = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
    with FlopCounterMode(display=False) as fc:
        conv(torch.zeros(1, 8, 10, 12))
    assert vs_ort.ConvShape(8, 10, 12, 16, 3, 3, 5, 6).flops == fc.get_total_flops()


def _event(node: str, op: str, dur: float, inputs: list, outputs: list) -> dict:
    return {"cat": "Node", "name": f"{node}_kernel_time", "dur": dur,
            "args": {"op_name": op, "input_type_shape": [{"float": s} for s in inputs],
                     "output_type_shape": [{"float": s} for s in outputs]}}


def test_ort_profile_events_become_per_node_runs_and_conv_shapes():
    conv_in, conv_out = [[1, 8, 10, 12], [16, 8, 3, 3], [16]], [[1, 16, 5, 6]]
    events = [{"cat": "Session", "name": "model_run", "dur": 9},
              _event("c", "Conv", 5, conv_in, conv_out), {"cat": "Node", "name": "c_fence_before", "dur": 0},
              _event("p", "MaxPool", 2, [[1, 16, 5, 6]], [[1, 16, 2, 3]]),
              _event("c", "Conv", 4, conv_in, conv_out)]
    nodes = vs_ort.ort_node_times(events)
    assert set(nodes) == {"c", "p"} and nodes["c"]["us"] == [5.0, 4.0] and nodes["p"]["op"] == "MaxPool"
    assert vs_ort.ort_conv_shape(nodes["c"]) == vs_ort.ConvShape(8, 10, 12, 16, 3, 3, 5, 6)
    assert vs_ort.ort_conv_shape(nodes["p"]) is None
    grouped = dict(nodes["c"], inputs=[[1, 8, 10, 12], [16, 4, 3, 3]])  # grouped conv: weight Cin != data Cin
    assert vs_ort.ort_conv_shape(grouped) is None


def test_a_profile_missing_a_run_is_one_line():
    """A node with fewer events than runs would put its later runs on the wrong rounds: refused, not shifted."""
    class Sess:
        def __init__(self, path):
            self.path = path

        def run(self, *_):
            pass

        def end_profiling(self):
            conv = ([[1, 8, 10, 12], [16, 8, 3, 3]], [[1, 16, 5, 6]])
            events = [_event("c", "Conv", 5, *conv), _event("c", "Conv", 4, *conv)]  # warm-up + 1 run of 2
            self.path.write_text(json.dumps(events))
            return str(self.path)

    class Runner:
        args = ()

    import tvm
    with pytest.raises(UserError, match="not one event per run") as e:
        vs_ort.compare_convs(Runner(), tvm.IRModule(), lambda prefix: Sess(Path(prefix + ".json")), {}, rounds=2,
                             tvm_profile=lambda: {"kernels": {}})
    assert "\n" not in str(e.value)
    with pytest.raises(UserError, match="at least 1"):
        vs_ort.compare_convs(Runner(), tvm.IRModule(), lambda prefix: Sess(Path(prefix)), {}, rounds=0)


def test_graphs_that_disagree_on_the_convolutions_are_one_line():
    a, b = vs_ort.ConvShape(8, 10, 12, 16, 3, 3, 5, 6), vs_ort.ConvShape(16, 5, 6, 16, 1, 1, 5, 6)
    with pytest.raises(UserError, match="only TVM") as e:
        vs_ort.match_shapes({a: ["k1"], b: ["k2"]}, {"k1": 1, "k2": 1}, {a: ["n1"]})
    assert "\n" not in str(e.value)
    with pytest.raises(UserError, match="calls it 2 times, ONNX Runtime has 1 nodes"):
        vs_ort.match_shapes({a: ["k1"]}, {"k1": 2}, {a: ["n1"]})


def _torch_convs(bundle) -> Counter:
    """``Counter({ConvShape: calls})`` of one forward of ``bundle.model``, from forward hooks."""
    import torch
    seen: Counter = Counter()

    def hook(mod, args, out):
        x = args[0]
        seen[vs_ort.ConvShape(mod.in_channels, x.shape[2], x.shape[3], mod.out_channels, *mod.kernel_size,
                              out.shape[2], out.shape[3])] += 1

    handles = [m.register_forward_hook(hook) for m in bundle.model.modules() if isinstance(m, torch.nn.Conv2d)]
    try:
        with torch.no_grad():
            bundle.model(**bundle.inputs)
    finally:
        for h in handles:
            h.remove()
    return seen


@pytest.mark.slow
def test_every_convolution_of_a_small_resnet_is_timed_on_both_sides(host, resnet_small_bundle, resnet_small_im,
                                                                    resnet_small_field):
    """Test-size ResNet (depths 1-1-1-1, 64x64) built untuned in the field method (NHWC), against ONNX Runtime:
    one row per conv shape PyTorch's hooks see, with PyTorch's call counts and FLOPs, both sides timed."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    import tvm
    from lab02_tvm.build import VMRunner
    from lab02_tvm.tuning.tasks import fuse_for_tasks
    bundle, im = resnet_small_bundle, resnet_small_im
    fused = fuse_for_tasks(resnet_small_field, host, False)
    runner = VMRunner(tvm.compile(fused, tvm.target.Target(host)), im, with_params=False)
    res = vs_ort.compare_model(bundle, runner, fused, rounds=1)
    want = _torch_convs(bundle)
    assert {r["conv"]: r["calls"] for r in res["rows"]} == {str(s): n for s, n in want.items()}
    with FlopCounterMode(display=False) as fc, torch.no_grad():
        bundle.model(**bundle.inputs)
    conv_flops = sum(v for op, v in fc.get_flop_counts()["Global"].items() if "convolution" in str(op))
    assert sum(s.flops * n for s, n in want.items()) == conv_flops  # the row formula against PyTorch's count, exact
    for r in res["rows"]:  # each row's FLOPs from its shape and calls (rows round to 0.001 MFLOP)
        assert r["mflop"] == round(next(s.flops * n for s, n in want.items() if str(s) == r["conv"]) / 1e6, 3)
    assert all(r["tvm_ms"] > 0 and r["ort_ms"] > 0 for r in res["rows"])
    totals = vs_ort.total_rows(res)
    assert [t["conv"] for t in totals] == ["all convolutions", "everything else", "whole inference (instrumented)"]
    assert totals[2]["tvm_ms"] >= totals[0]["tvm_ms"] > 0 and totals[2]["ort_ms"] >= totals[0]["ort_ms"] > 0


@pytest.mark.slow
def test_pipeline_step15_writes_the_table_and_names_the_biggest_loss(results_dir, capsys, resnet_small_bundle):
    """``--quick --model resnet50 --only vs-ort``: step 6 tunes a little here, step 15 prints its line and
    writes ``vs_ort_resnet50_quick`` with every conv call PyTorch makes and the host's speed in its environment."""
    import json

    from common.errors import run_cli
    from lab02_tvm.pipeline.run import main
    assert run_cli(main, ["--quick", "--model", "resnet50", "--only", "vs-ort", "--trials", "2",
                          "--tune-minutes", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "[15 vs-ort] resnet50 convolutions: TVM" in out and "most lost:" in out
    table = json.loads((results_dir / "lab02" / "vs_ort_resnet50_quick.json").read_text())
    rows = [r for r in table["rows"] if r.get("calls")]
    assert sum(r["calls"] for r in rows) == sum(_torch_convs(resnet_small_bundle).values())
    assert [r["lost_vs_ort_ms"] for r in rows] == sorted((r["lost_vs_ort_ms"] for r in rows), reverse=True)
    assert "host_speed" in table["env"] and table["env"]["model"] == "resnet50"
