"""Lab 01's exports: the dynamic-axes export of step 1, and three classic export bugs (step 9).

* :func:`export_dynamic` (Task 1.4, ``lab01.export``; lab01_onnx/TASKS.md): ``torch.onnx.export`` of a
  module with named dynamic axes; :func:`export_bundle` is how the pipeline's step 1 calls it on
  LLaMA-tiny (transformers' masks made traceable, the exporter's warnings silenced, written atomically).
* Three export bugs, each as a broken and a fixed export of a small module; the numeric gate must
  fail the first and pass the second (the pipeline's step 9, "export bugs"):

  * ``no_eval``: a module left in train mode, exported as it is -> Dropout active in ONNX.
  * ``traced_branch``: a Python ``if`` on data, traced with one example -> the other branch is gone.
  * ``static_batch``: ``x.squeeze(0)`` traced with a batch-1 example -> the graph assumes batch 1.

  Their exporter is the course's shared one, :func:`common.onnx_utils.export_torchscript`.
"""
from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from common.errors import UserError
from common.gates import compare
from common.onnx_utils import (TORCHSCRIPT_OPSET, check_torchscript_opset, export_torchscript, ort_run, ort_session,
                               quiet_logging, traceable_masks)


def export_dynamic(model: torch.nn.Module, inputs: Mapping[str, torch.Tensor], output_names: Sequence[str],
                   dynamic_axes: Mapping[str, Mapping[int, str]], path: str | os.PathLike, *,
                   opset: int = TORCHSCRIPT_OPSET) -> Path:
    """Export ``model`` to ONNX with the TorchScript exporter, the axes of ``dynamic_axes`` left symbolic by name.

    Task 1.4 (``lab01.export``). The written model:

    * has one graph input per entry of ``inputs``, in that order and under that name (the entries are
      the example: ``model(*inputs.values())`` is what gets traced), and the graph outputs
      ``output_names``, in that order (below opset 9 the exporter lists the initializers as graph inputs
      too, after these: the IR of those opsets requires it);
    * on every ``(name, {axis: label})`` of ``dynamic_axes`` has ``dim_param == label`` at that axis of
      that input or output; every other input axis is the example's size (a number);
    * computes what ``model`` computes in eval mode (``torch.onnx.TrainingMode.EVAL``: Dropout off,
      BatchNorm on running statistics) at every size of the dynamic axes, and passes
      ``onnx.checker.check_model(full_check=True)``; its default-domain opset is ``opset``;
    * is the graph as traced, with the exporter's constant folding off (``do_constant_folding=False``):
      it keeps what Lab 01's passes and ORT clean up later, such as the ``Transpose`` of a Linear's
      weight before its MatMul and the ``Shape -> Gather`` shape arithmetic;
    * leaves ``model`` as it found it: the ``training`` flag of the module and of every submodule (a module
      trained around a frozen BatchNorm keeps it frozen; ``torch.onnx.export`` itself puts back only
      ``model.train(flag)``, which resets every submodule to the top module's flag).

    Source: https://docs.pytorch.org/docs/stable/onnx_torchscript.html (``torch.onnx.export`` with
    ``dynamo=False``: ``input_names``, ``output_names``, ``dynamic_axes``, ``opset_version``).

    Args:
        model: a ``torch.nn.Module``.
        inputs: ``{input name: example tensor}``; each dynamic axis of an input must have size >= 2 in
            the example (tracing specializes a size-1 axis: the ``static_batch`` bug of this module). Size 1
            is what gets refused, on every input and every dynamic axis; an axis not in ``dynamic_axes`` may
            have any size, 1 included (it stays that number); an empty example (size 0) is left open.
        output_names: names of the model's outputs, in the order it returns them.
        dynamic_axes: ``{input or output name: {axis (int >= 0): dim name}}``.
        path: the ``.onnx`` file to write (its folder is created); returned as a ``Path``.
        opset: ONNX opset of the default domain: every opset
            :func:`common.onnx_utils.check_torchscript_opset` accepts (torch's ``ONNX_MIN_OPSET`` to
            ``ONNX_TORCHSCRIPT_EXPORTER_MAX_OPSET``, both ends included), and no other (torch's exporter
            itself writes a file one past either end).

    Raises:
        UserError (one line): an opset the TorchScript exporter does not support, a name of
            ``dynamic_axes`` that is neither an input nor an output, an axis outside ``[0, rank)`` of
            its input or output (the exporter would abort on a negative input axis and silently leave
            out an output axis beyond the output's rank; a file written by then is removed), or an
            input's dynamic axis of example size 1.
    """
    ### BEGIN SOLUTION lab01.export
    check_torchscript_opset(opset)
    known = list(inputs) + list(output_names)
    for name, axes in dynamic_axes.items():
        if name not in known:
            raise UserError(f"dynamic_axes names {name!r}, which is neither an input nor an output ({known})")
        if name not in inputs:
            bad = [axis for axis in axes if int(axis) < 0]  # an output's rank is known once traced (below)
            if bad:
                raise UserError(f"dynamic axis {bad[0]} ({axes[bad[0]]!r}) of output {name!r} is negative: "
                                "dynamic_axes counts from 0")
            continue
        shape = tuple(inputs[name].shape)
        for axis, label in axes.items():
            if not 0 <= int(axis) < len(shape):
                raise UserError(f"dynamic axis {axis} ({label!r}) of input {name!r} is outside its rank {len(shape)}")
            if shape[axis] == 1:
                raise UserError(f"input {name!r} has size 1 on its dynamic axis {axis} ({label!r}): tracing would "
                                "bake it; export with an example of size >= 2 there")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    # The exporter puts back only model.train(flag), which resets every submodule to the top module's flag.
    flags = [(m, m.training) for m in model.modules()]
    try:
        torch.onnx.export(model, tuple(inputs.values()), str(out), input_names=list(inputs),
                          output_names=list(output_names), dynamic_axes={k: dict(v) for k, v in dynamic_axes.items()},
                          opset_version=opset, dynamo=False, do_constant_folding=False,
                          training=torch.onnx.TrainingMode.EVAL)
    finally:
        for m, flag in flags:
            m.training = flag
    # The exporter silently ignores an output axis beyond the output's rank: the file would lack that dim_param.
    import onnx

    written = onnx.load(str(out), load_external_data=False)
    ranks = {o.name: len(o.type.tensor_type.shape.dim) for o in written.graph.output}
    for name, axes in dynamic_axes.items():
        beyond = [axis for axis in axes if name in ranks and name not in inputs and int(axis) >= ranks[name]]
        if beyond:
            out.unlink()
            raise UserError(f"dynamic axis {beyond[0]} ({axes[beyond[0]]!r}) of output {name!r} is outside its rank "
                            f"{ranks[name]}")
    return out
    ### END SOLUTION


def export_bundle(bundle, path: str | os.PathLike, *, opset: int = TORCHSCRIPT_OPSET) -> Path:
    """Step 1's TorchScript export: :func:`export_dynamic` of a :class:`common.models.ModelBundle` (its
    example inputs, output names and dynamic axes), with transformers' masks made traceable
    (:func:`common.onnx_utils.traceable_masks`), the exporter's warnings silenced, and the file written
    through a temporary name (a failed export leaves nothing at ``path``).

    Raises:
        UserError: see :func:`export_dynamic`; also the exporter's own failure (an op it cannot convert
            at this opset), in one line.
    """
    out = Path(path)
    tmp = out.with_name(out.stem + ".tmp.onnx")
    try:
        with traceable_masks(), warnings.catch_warnings(), quiet_logging("torch", "torch.onnx"):
            warnings.simplefilter("ignore")
            export_dynamic(bundle.model, bundle.inputs, bundle.output_names, bundle.dynamic_axes, tmp, opset=opset)
        os.replace(tmp, out)
    except torch.onnx.OnnxExporterError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:240]
        raise UserError(f"the exporter failed writing {out.name}: {first}; try another --opset") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return out


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
