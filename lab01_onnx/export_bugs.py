"""Three classic export bugs, each as a broken and a fixed export of a small module; the numeric gate
must fail the first and pass the second (the pipeline's step 9, "export bugs").

* ``no_eval``: a module left in train mode, exported as it is -> Dropout active in ONNX.
* ``traced_branch``: a Python ``if`` on data, traced with one example -> the other branch is gone.
* ``static_batch``: ``x.squeeze(0)`` traced with a batch-1 example -> the graph assumes batch 1.

The exporter itself is :func:`common.onnx_utils.export_torchscript`.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

import torch

from common.errors import UserError
from common.gates import compare
from common.onnx_utils import export_torchscript, ort_run, ort_session


@contextlib.contextmanager
def _seeded(seed: int = 0):
    """Seed PyTorch's global generator for a module's weight init, then restore its state."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        yield


class DropoutNet(torch.nn.Module):
    """``Linear(8, 8) -> Dropout(0.5) -> Linear(8, 4)``: dropout is random only in train mode."""

    def __init__(self):
        super().__init__()
        with _seeded():
            self.fc1, self.drop, self.fc2 = torch.nn.Linear(8, 8), torch.nn.Dropout(0.5), torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(self.drop(self.fc1(x)))


class BranchNet(torch.nn.Module):
    """A data-dependent branch: ``fc(x)`` if ``x.sum() > 0`` else ``-fc(x)``.

    ``where=False`` writes it as a Python ``if`` (tracing records only the branch the example
    took); ``where=True`` as ``torch.where`` (both branches in the graph).
    """

    def __init__(self, where: bool):
        super().__init__()
        with _seeded():
            self.fc, self.where = torch.nn.Linear(8, 4), where

    def forward(self, x):
        y = self.fc(x)
        if self.where:
            return torch.where(x.sum() > 0, y, -y)
        return y if x.sum() > 0 else -y


class SqueezeNet(torch.nn.Module):
    """``fc(x.squeeze(0))``: PyTorch's ``squeeze(0)`` is a no-op unless dim 0 has size 1.

    Traced with a batch-1 example, the exporter records "dim 0 is 1": a Squeeze and a 2-D Gemm
    that fail at batch 4. Traced with batch 2, it emits an If on the runtime size.
    """

    def __init__(self):
        super().__init__()
        with _seeded():
            self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x.squeeze(0))


def _small_bundle(net, batch: int, seq: int = 5):
    from common.models import ModelBundle

    g = torch.Generator().manual_seed(batch)
    return ModelBundle(name=type(net).__name__, model=net, inputs={"x": torch.randn(batch, seq, 8, generator=g) + 0.5},
                       output_names=["y"], dynamic_axes={"x": {0: "batch", 1: "sequence"}, "y": {0: "batch"}})


def bug_family_exports(family: str, folder: str | os.PathLike) -> dict:
    """Export the broken and the fixed variant of one bug family; return what the gate needs.

    Families:
      * ``no_eval``: module left in train mode and exported as it is (``TrainingMode.PRESERVE``,
        which is what ``torch.export`` does) -> Dropout active in the ONNX graph. Fix: ``.eval()``.
      * ``traced_branch``: a Python ``if`` on data, traced with a positive example -> the negative
        branch is gone. Fix: ``torch.where``.
      * ``static_batch``: ``squeeze(0)`` traced with a batch-1 example -> graph assumes batch 1.
        Fix: a batch-2 example.

    Returns:
        ``{"broken": path, "fixed": path, "reference": fn(feeds)->outputs (the eval-mode PyTorch
        module), "feeds": [feed dicts the gate runs on]}``.

    Raises:
        UserError: unknown family.
    """
    folder = Path(folder)
    if family == "no_eval":
        net = DropoutNet()
        broken = export_torchscript(_small_bundle(net.train(), 2), folder / "no_eval_broken.onnx",
                                    training=torch.onnx.TrainingMode.PRESERVE)
        fixed = export_torchscript(_small_bundle(net.eval(), 2), folder / "no_eval_fixed.onnx")
        ref_net, feeds = net.eval(), [_small_bundle(net, 3).inputs]
    elif family == "traced_branch":
        broken = export_torchscript(_small_bundle(BranchNet(where=False), 2), folder / "traced_branch_broken.onnx")
        fixed = export_torchscript(_small_bundle(BranchNet(where=True), 2), folder / "traced_branch_fixed.onnx")
        ref_net = BranchNet(where=False)
        feeds = [{"x": v} for v in (torch.full((2, 5, 8), 1.0), torch.full((2, 5, 8), -1.0))]
    elif family == "static_batch":
        net = SqueezeNet().eval()
        broken = export_torchscript(_small_bundle(net, 1), folder / "static_batch_broken.onnx")
        fixed = export_torchscript(_small_bundle(net, 2), folder / "static_batch_fixed.onnx")
        ref_net, feeds = net, [_small_bundle(net, b).inputs for b in (2, 4)]
    else:
        raise UserError(f"unknown bug family {family!r}; choose from {BUG_FAMILIES}")

    def reference(feed):
        with torch.no_grad():
            return {"y": ref_net(**feed).numpy()}

    return {"broken": broken, "fixed": fixed, "reference": reference, "feeds": feeds}


BUG_FAMILIES = ("no_eval", "traced_branch", "static_batch")


def gate_exported(path, reference, feeds, atol: float = 1e-4) -> tuple[bool, str]:
    """Run ``path`` in ORT on every feed and gate it against ``reference(feed)``.

    A runtime error counts as a failed gate (the model cannot serve that input).

    Returns:
        ``(passed, first_failure_or_empty)``.
    """
    sess = ort_session(path)
    for feed in feeds:
        np_feed = {k: v.numpy() for k, v in feed.items()}
        try:
            got = ort_run(sess, np_feed)
        except Exception as exc:
            return False, f"onnxruntime failed at input shape {[v.shape for v in np_feed.values()]}: {str(exc).splitlines()[0][:120]}"
        report = compare(reference(feed), got, atol=atol, stage=Path(path).stem)
        if not report.passed:
            return False, report.first_failure
    return True, ""
