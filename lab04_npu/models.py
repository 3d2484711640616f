"""The three course models as static-shape ONNX files for the NPU: Lab 01's export + passes, then fixed dims.

Chain: ``common.models`` builder (seeded weights) -> Lab 01's TorchScript exporter (opset 17,
batch/sequence symbolic, exported at batch 2 so tracing cannot bake the batch axis) -> Lab 01's
three custom passes to a fixed point -> :func:`lab04_npu.qnn.fix_dims` (``make_dim_param_fixed`` + the
outputs' shapes from shape inference) at the target shape. The PyTorch reference runs the same module on the
same target-shape inputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch

from lab04_npu.qnn import fix_dims

#: target shapes per model: (dims to fix, builder kwargs)
SHAPES = {
    "llama_tiny": ({"batch": 1, "sequence": 32}, {"batch": 1, "seq": 32}),
    "bert": ({"batch": 1, "sequence": 128}, {"batch": 1, "seq": 128}),
    "resnet50": ({"batch": 1}, {"batch": 1, "image": 224}),
}
#: variants: a registry name built from a base model with one module swapped (see :func:`build_static`)
VARIANTS = {"bert_erfgelu": "bert"}
SMALL = {  # test-size variants (same graph structure, seconds to compile)
    "llama_tiny": ({"batch": 1, "sequence": 8}, {"batch": 1, "seq": 8}),
    "bert": ({"batch": 1, "sequence": 16}, {"batch": 1, "seq": 16, "small": True}),
    "resnet50": ({"batch": 1}, {"batch": 1, "image": 64, "small": True}),
}


@dataclass
class StaticModel:
    """A static-shape ONNX model with its PyTorch reference.

    Attributes:
        name: registry name (``llama_tiny``, ``bert``, ``resnet50``).
        model: the optimized, static-shape ``onnx.ModelProto``.
        path: where it was saved.
        feeds: ``{input name: np.ndarray}`` at the static shape.
        reference: PyTorch outputs ``{output name: np.ndarray}`` (float32) on ``feeds``.
        dims: the fixed dims, e.g. ``{"batch": 1, "sequence": 32}``.
        nodes_raw: node count of the raw export (before Lab 01's passes).
        bundle: the ``common.models.ModelBundle`` it was exported from.
    """

    name: str
    model: onnx.ModelProto
    path: Path
    feeds: dict
    reference: dict
    dims: dict
    nodes_raw: int = 0
    bundle: object = None


class JaxGelu(torch.nn.Module):
    """Exact GELU written the way JAX writes it: ``x * (erf(x / sqrt 2) + 1) / 2``.

    Same function as ``torch.nn.functional.gelu`` (``approximate="none"``; Hendrycks & Gimpel
    2016) and as ``jax.nn.gelu(approximate=False)``, whose source spells it this way. Exported, it
    is ``Div(x, 1.4142) -> Erf -> Add(1) -> Mul(x) -> Div(2)``; QNN's own ``GeluFusion`` (2.7.0)
    only matches the spellings ending in ``Mul(0.5)``, so this ``Erf`` is refused and falls to the CPU.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * (torch.erf(x / 1.4142135623730951) + 1.0) / 2.0


def _swap_gelu(bundle) -> None:
    for layer in bundle.model.inner.encoder.layer:
        layer.intermediate.intermediate_act_fn = JaxGelu()
    bundle.meta["variant"] = "GELU spelled as JAX does: x * (erf(x / sqrt 2) + 1) / 2"


def _export_inputs(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Target inputs with the batch axis doubled (a size-1 example lets tracing bake that axis)."""
    return {k: torch.cat([v, v]) for k, v in inputs.items()}


def fold_for_qnn(static: StaticModel, workdir: str | Path) -> tuple[onnx.ModelProto, Path]:
    """ORT's basic level (constant folding, no EP-specific fusions) on ``static``, nodes named.

    This is what ORT runs before it partitions a graph between EPs in any deployment (levels
    above BASIC only touch nodes already assigned to the CPU); saving it first means QNN's log
    names nodes of a file the report can point at. Without it, the shape arithmetic a static
    shape makes constant stays in the graph, and QNN refuses it ("Cannot get shape",
    ``ConstantOfShape``, dynamic ``Range``): Lab 01's LLaMA-tiny then splits into 9 partitions.

    Args:
        static: from :func:`build_static` (its ``path`` is read).
        workdir: folder for ``<name>_qnn.onnx`` (a temporary ``<name>_folded.onnx`` is removed).

    Returns:
        ``(model, path)`` of ``<name>_qnn.onnx`` in ``workdir``, every node named
        (:func:`lab04_npu.graphfacts.name_nodes`).
    """
    from common.onnx_utils import ort_optimize, save_model
    from lab04_npu.graphfacts import name_nodes

    folded = Path(workdir) / f"{static.name}_folded.onnx"
    model = name_nodes(ort_optimize(static.path, folded, "BASIC"))
    folded.unlink(missing_ok=True)
    return model, save_model(model, Path(workdir) / f"{static.name}_qnn.onnx")


def optimize(raw: onnx.ModelProto) -> onnx.ModelProto:
    """Lab 01's custom passes to a fixed point (``lab01_onnx.passes.run_passes``)."""
    from lab01_onnx.passes import run_passes

    return run_passes(raw)[0]


def build_static(name: str, workdir: str | Path, *, small: bool = False, seed: int = 0,
                 dims: dict[str, int] | None = None, bundle=None) -> StaticModel:
    """Export ``name`` through Lab 01, optimize it, fix its dims and run the PyTorch reference.

    Args:
        name: ``llama_tiny``, ``bert``, ``resnet50``, or ``bert_erfgelu`` (BERT with
            :class:`JaxGelu`).
        workdir: folder for ``<name>_static.onnx``.
        small: test-size configuration (:data:`SMALL`) instead of :data:`SHAPES`.
        dims: override the fixed dims (token models: ``batch``/``sequence``).
        bundle: reuse this already built ``ModelBundle`` of the base model (same seed and shape;
            a variant swaps its modules in place) instead of building it again.

    Raises:
        UserError: unknown model, or a dim name the export does not have.
    """
    from common.models import build_model
    from common.onnx_utils import export_torchscript, save_model

    base = VARIANTS.get(name, name)
    fixed, kwargs = (SMALL if small else SHAPES)[base] if base in SHAPES else ({}, {})
    fixed = dict(dims or fixed)
    if base == "resnet50":
        kwargs = {k: v for k, v in kwargs.items() if k != "seq"}
    else:
        kwargs = {**kwargs, "batch": fixed.get("batch", 1), "seq": fixed.get("sequence", kwargs.get("seq", 32))}
    bundle = bundle or build_model(base, seed=seed, **kwargs)
    if name == "bert_erfgelu":
        _swap_gelu(bundle)
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    raw_path = export_torchscript(bundle, workdir / f"{name}_raw.onnx", inputs=_export_inputs(bundle.inputs))
    raw = onnx.load(str(raw_path))
    static = fix_dims(optimize(raw), fixed)
    path = save_model(static, workdir / f"{name}_static.onnx")
    raw_path.unlink(missing_ok=True)
    feeds = {k: v.numpy() for k, v in bundle.inputs.items()}
    reference = {k: np.asarray(v, dtype=np.float32) for k, v in bundle.run().items()}
    return StaticModel(name, static, path, feeds, reference, fixed, nodes_raw=len(raw.graph.node), bundle=bundle)
