"""Tests of lab02_tvm.graph.winograd: 3x3 stride-1 NHWC convolutions rewritten as Winograd F(m x m, 3 x 3).

The independent reference is PyTorch's ``conv2d`` on the same weights (NCHW, direct). The bound on the
difference: F(2, 3)'s transform entries are 1 and 1/2 (exact in binary); F(4, 3)'s G holds thirds and
fifteenths (1/15, 2/15, ...: rounded in float32) and its A spans 1/8 to 8, and the transforms add
O(alpha^2) rounded terms per output before the channel sum. Measured on a 14 x 14, 64-channel conv:
2.1e-6 of max|ref| for F(4, 3), 3.7e-7 for F(2, 3). The tests allow 1e-5 of max|ref|, so a wrong
transform matrix, tile index or crop (errors of order max|ref|) cannot pass.
"""
from __future__ import annotations

import numpy as np
import pytest

from common.errors import UserError
from lab02_tvm.graph import winograd
from lab02_tvm.tuning.method import Method

pytestmark = pytest.mark.lab02

REL_BOUND = 1e-5  # of max|ref|; see the module docstring


def _module(x_shape, convs):
    """Relax ``main(x)``: the NHWC convs ``(weight OHWI, stride, pad)`` in a chain, each followed by ReLU."""
    from tvm import relax
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(x_shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = x
            for w, stride, pad in convs:
                y = bb.emit(relax.op.nn.relu(relax.op.nn.conv2d(
                    y, relax.const(w), strides=stride, padding=pad, data_layout="NHWC", kernel_layout="OHWI")))
            gv = bb.emit_output(y)
        bb.emit_func_output(gv)
    return bb.get()


def _run(mod, x):
    import tvm
    from tvm import relax
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    return vm["main"](tvm.runtime.tensor(x)).numpy()


def _torch_chain(x, convs):
    import torch
    y = torch.from_numpy(x).permute(0, 3, 1, 2)
    for w, stride, pad in convs:
        y = torch.relu(torch.nn.functional.conv2d(y, torch.from_numpy(w).permute(0, 3, 1, 2), stride=stride, padding=pad))
    return y.permute(0, 2, 3, 1).numpy()


def _weights(rng, co, k, ci):
    return (rng.standard_normal((co, k, k, ci)) * (2 / (k * k * ci)) ** 0.5).astype(np.float32)


@pytest.mark.parametrize(("hw", "m"), [(8, 2), (8, 4), (7, 4), (6, 4)])  # 7 and 6: the last tile is partial
def test_winograd_matches_pytorch_direct_conv(hw, m):
    rng = np.random.default_rng(hw * 10 + m)
    x = rng.standard_normal((1, hw, hw, 5)).astype(np.float32)
    convs = [(_weights(rng, 6, 3, 5), 1, 1)]
    mod = winograd.winograd_conv2d(_module(x.shape, convs), tile=m)
    out, ref = _run(mod, x), _torch_chain(x, convs)
    assert out.shape == ref.shape
    assert np.abs(out - ref).max() <= REL_BOUND * np.abs(ref).max()


def test_only_3x3_stride1_pad1_convs_are_rewritten():
    """ResNet-50's other convs (1x1, 3x3 stride 2) keep their direct form, and the chain still computes the same."""
    import tvm
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 8, 8, 4)).astype(np.float32)
    convs = [(_weights(rng, 4, 3, 4), 1, 1), (_weights(rng, 6, 3, 4), 2, 1), (_weights(rng, 6, 1, 6), 1, 0)]
    mod = winograd.winograd_conv2d(_module(x.shape, convs), tile=2)
    text = mod["main"].script()
    assert text.count("R.nn.conv2d(") == 2
    assert sum(isinstance(f, tvm.tirx.PrimFunc) and gv.name_hint.startswith("conv2d_winograd")
               for gv, f in mod.functions.items()) == 1
    out, ref = _run(mod, x), _torch_chain(x, convs)
    assert np.abs(out - ref).max() <= REL_BOUND * np.abs(ref).max()


def test_transformed_weight_is_g_g_gt():
    """U = G g G^T (Lavin & Gray eq. 8) for one channel pair, against the matrix product written out."""
    rng = np.random.default_rng(1)
    w = _weights(rng, 2, 3, 3)
    _, _, G = winograd.matrices(4)
    u = winograd.transform_weight(w, 4)
    assert u.shape == (6, 6, 2, 3)
    np.testing.assert_allclose(u[:, :, 1, 2], G @ w[1, :, :, 2].astype(np.float64) @ G.T, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("h", "m"), [(56, 4), (28, 4), (14, 2), (7, None)])
def test_tile_for(h, m):
    assert winograd.tile_for(h) == m


def test_vs_ort_reads_a_winograd_kernel_as_its_convolution():
    from tvm import relax

    from lab02_tvm.measure import vs_ort
    w = _weights(np.random.default_rng(2), 16, 3, 8)
    mod = winograd.winograd_conv2d(_module((1, 10, 10, 8), [(w, 1, 1)]), tile=4)
    fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(
        relax.transform.LegalizeOps()(mod))))
    assert list(vs_ort.tvm_conv_kernels(fused).values()) == [vs_ort.ConvShape(8, 10, 10, 16, 3, 3, 10, 10)]


def test_method_winograd_needs_nhwc_and_extends_the_plain_folder():
    with pytest.raises(UserError, match="NHWC"):
        Method("NCHW", winograd=True)
    wino, field = Method("NHWC", True, winograd=True), Method("NHWC", True)
    assert wino.extends(field) and not field.extends(wino)
    assert not Method("NHWC", False, winograd=True).extends(field)  # the rewrite flag differs
    assert Method("NHWC", True, combine_matmul=True, winograd=True).extends(field)
    assert "Winograd" in str(wino)
    assert Method.from_provenance({"method": wino.as_dict()}) == wino
    assert Method.from_provenance({"method": field.as_dict()}).winograd == ()


def test_the_policy_is_part_of_the_method():
    """Each tile is its own workload, so the records carry the policy: provenance's ``true`` (written before
    policies were recorded) is the first one shipped, a larger policy tops a folder up, another one does not."""
    shipped = Method.from_provenance({"method": {"layout": "NHWC", "layout_rewrite": True, "winograd": True}})
    assert shipped.winograd == ((56, 4), (14, 2)) and dict(shipped.winograd) == winograd.FIRST_TILES
    wider = Method("NHWC", True, winograd="56:4,28:4,14:2,7:2")
    assert wider.as_dict()["winograd"] == {"56": 4, "28": 4, "14": 2, "7": 2}
    assert Method.from_provenance({"method": wider.as_dict()}) == wider
    assert wider.extends(shipped) and not shipped.extends(wider)
    assert not Method("NHWC", True, winograd={56: 2, 14: 2}).extends(shipped)  # 56x56's tile changed
    assert "F(4,3) on 28x28" in str(wider)


@pytest.mark.parametrize("spec", ["56:3", "56", "a:4", {0: 2}])
def test_a_bad_policy_is_one_line(spec):
    with pytest.raises(UserError, match="Winograd policy"):
        winograd.policy(spec)


def test_default_policy_keeps_the_convs_tile_for_declines():
    """An 8 x 8 map: ``tile_for`` says direct, so the module comes back with its conv2d untouched."""
    w = _weights(np.random.default_rng(3), 4, 3, 4)
    mod = winograd.winograd_conv2d(_module((1, 8, 8, 4), [(w, 1, 1)]))
    assert mod["main"].script().count("R.nn.conv2d(") == 1
    assert not any(gv.name_hint.startswith("conv2d_winograd") for gv in mod.functions)


def test_longrun_reads_the_winograd_switch_as_a_policy():
    from lab02_tvm.tuning.longrun import _winograd
    assert _winograd(None) is None  # not given: the folder's method
    assert _winograd("on") == ((56, 4), (28, 4), (14, 2)) and _winograd("off") == ()
    assert _winograd("7:2,28:4") == ((28, 4), (7, 2))
