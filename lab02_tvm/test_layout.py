"""Tests of lab02_tvm.measure.layout on the test-size ResNet (depths 1-1-1-1, 64 x 64 images).

Outputs of every layout are gated inside ``compare_layouts`` against PyTorch eager (the independent
reference) with ``|tvm - torch| <= 1e-4 * max|torch|`` (``build.REL_TOL``, relative to the logits'
scale); the tests check the gate's numbers and the transforms ConvertLayout leaves.
"""
from __future__ import annotations

import pytest

from common.errors import UserError
from lab02_tvm.measure import layout
from lab02_tvm.build import REL_TOL
from lab02_tvm.graph.struct_info import relax_op_counts
from lab02_tvm.graph.passes import convert_layout, tuning_module

pytestmark = pytest.mark.lab02


@pytest.fixture(scope="module")
def im(resnet_small_im):
    return resnet_small_im  # the session's test-size ResNet (lab02_tvm/conftest.py)


@pytest.fixture(scope="module")
def base(im):
    return tuning_module(im)  # weights bound, BatchNorm folded: what ConvertLayout is applied to (kept per model)


def test_nhwc_keeps_outputs_and_reports_its_two_transforms(im, base):
    res = layout.compare_layouts(im, trials=0, repeats=1, base=base, progress=False)
    by = {r["layout"]: r for r in res["rows"]}
    assert by["NCHW"]["transforms_after_convert"] == 0 and res["transforms"]["NCHW"] == []
    assert by["NHWC"]["rel_err"] <= REL_TOL and by["NCHW"]["rel_err"] <= REL_TOL
    ts = res["transforms"]["NHWC"]
    assert by["NHWC"]["transforms_after_convert"] == len(ts) == 2  # weights' transforms folded away
    assert ts[0]["from"] == "input pixel_values" and "conv2d" in ts[0]["to"] and ts[0]["axes"] == [0, 2, 3, 1]
    assert ts[1]["to"] != "(unused)" and ts[1]["axes"] == [0, 3, 1, 2]  # back to NCHW before the head
    assert by["NHWC"]["median_ms"] > 0 and by["NHWC"]["transform_ms"] > 0


def test_every_conv_is_nhwc_after_conversion(base):
    mod = convert_layout(base, "NHWC")
    convs = []

    def visit(e):
        if hasattr(e, "op") and getattr(e.op, "name", "") == "relax.nn.conv2d":
            convs.append(e.attrs.data_layout)

    from tvm import relax
    relax.analysis.post_order_visit(mod["main"].body, visit)
    assert len(convs) == relax_op_counts(base)["relax.nn.conv2d"] and set(convs) == {"NHWC"}


def test_blocked_layout_status_and_bad_layout(base):
    line = layout.blocked_layout_status(base)
    assert line.startswith("NCHW8c:")
    with pytest.raises(UserError):
        convert_layout(base, "NCWH")
