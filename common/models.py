"""Model builders: LLaMA-tiny, BERT-base and ResNet-50 with seeded random weights, no hub download.

Every builder returns a :class:`ModelBundle`: the model in eval mode wrapped so that ``forward``
takes named tensors and returns plain tensors (what ``torch.export``, ``torch.onnx.export`` and
the Relax importer need, not ``ModelOutput`` objects), example inputs, output names and a metadata
record (source, config, seed, parameter count). Architectures come from ``transformers``; weights
are drawn from PyTorch's CPU generator seeded with ``seed`` inside :func:`seeded`, so two builds
with one seed are bit-identical and building a model leaves the caller's global RNG state as it was
(no hidden ``torch.manual_seed`` side effect; inputs use their own ``torch.Generator``).

ResNet-50: torchvision's ``resnet50`` does not import beside torch 2.13.0 (PyPI's torchvision
fails with ``operator torchvision::nms does not exist``), so this uses ``transformers``
``ResNetForImageClassification`` with the ResNet-50 v1.5 configuration (bottleneck blocks,
depths 3-4-6-3, stride in the 3x3 convolution: He et al. 2016, "Deep Residual Learning", and
NVIDIA's v1.5 variant).
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import torch

from .errors import UserError


@dataclass
class ModelBundle:
    """A model ready to export or compile.

    Attributes:
        name: registry name (``"llama_tiny"``, ``"bert"``, ``"resnet50"``).
        model: ``torch.nn.Module`` in eval mode; ``model(**inputs)`` returns a tensor or a tuple of
            tensors in the order of ``output_names``.
        inputs: ordered ``{name: tensor}`` example inputs (keyword names of ``forward``).
        output_names: names of the outputs, in order.
        dynamic_axes: ``{input_or_output_name: {axis: axis_name}}`` for exporters.
        meta: source library, config dict, seed, parameter count, notes.
    """

    name: str
    model: torch.nn.Module
    inputs: dict[str, torch.Tensor]
    output_names: list[str]
    dynamic_axes: dict[str, dict[int, str]] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    def run(self, inputs: Mapping[str, torch.Tensor | np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """Run the model under ``torch.no_grad`` and return ``{output_name: np.ndarray}``.

        Args:
            inputs: named inputs (tensors or arrays); defaults to :attr:`inputs`.
        """
        with torch.no_grad():
            out = self.model(**self._feed(inputs))
        if isinstance(out, torch.Tensor):
            out = (out,)
        return {n: t.detach().cpu().numpy() for n, t in zip(self.output_names, out)}

    def numpy_inputs(self) -> dict[str, np.ndarray]:
        """The example inputs as NumPy arrays (for ONNX Runtime / TVM feeds)."""
        return {k: v.detach().cpu().numpy() for k, v in self.inputs.items()}

    def flops(self, inputs: Mapping[str, torch.Tensor | np.ndarray] | None = None) -> float:
        """FLOPs of one forward pass on ``inputs`` (default :attr:`inputs`), counted by PyTorch.

        ``torch.utils.flop_counter.FlopCounterMode`` over one eager run: matmul, conv, bmm, addmm and
        attention, 2 FLOP per multiply-add; elementwise ops, softmax and normalization are not counted
        (the convention of the MLPerf and mmperf GFLOP/s figures). Units: FLOP (a float).
        """
        from torch.utils.flop_counter import FlopCounterMode
        with torch.no_grad(), FlopCounterMode(display=False) as fc:
            self.model(**self._feed(inputs))
        return float(fc.get_total_flops())

    def eager(self, inputs: Mapping[str, torch.Tensor | np.ndarray] | None = None, *,
              module: Callable | None = None) -> Callable[[], object]:
        """PyTorch eager as a timing loop calls it: a zero-argument function that runs the model once under
        ``torch.no_grad`` on ``inputs`` (default :attr:`inputs`, converted once here) and returns its raw
        output (no NumPy copy, so the copy is not timed).

        Args:
            module: call this in place of :attr:`model` (``torch.compile(bundle.model)``, say).
        """
        model, feed = self.model if module is None else module, self._feed(inputs)

        def forward():
            with torch.no_grad():
                return model(**feed)
        return forward

    def _feed(self, inputs: Mapping[str, torch.Tensor | np.ndarray] | None) -> dict[str, torch.Tensor]:
        if inputs is None:
            return self.inputs
        return {k: (v if isinstance(v, torch.Tensor) else torch.from_numpy(np.asarray(v))) for k, v in inputs.items()}


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Seed PyTorch's global CPU generator with ``seed`` inside the block; restore its state after.

    What ``torch.manual_seed(seed)`` did for the code inside, without the side effect outside
    (``torch.random.fork_rng``). Only the CPU generator is seeded: ``torch.manual_seed`` would also
    queue a seed for every CUDA device, which ``fork_rng`` without devices would not restore.
    """
    with torch.random.fork_rng(devices=[]):
        torch.random.default_generator.manual_seed(seed)
        yield


def _param_count(model: torch.nn.Module) -> int:
    return int(sum(p.numel() for p in model.parameters()))


class _LlamaLogits(torch.nn.Module):
    """``(input_ids, attention_mask) -> logits [B, S, vocab]`` (no KV cache)."""

    def __init__(self, inner: torch.nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


class _BertOutputs(torch.nn.Module):
    """``(input_ids, attention_mask, token_type_ids) -> (last_hidden_state, pooler_output)``."""

    def __init__(self, inner: torch.nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, input_ids, attention_mask, token_type_ids):
        out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return out.last_hidden_state, out.pooler_output


class _ResNetLogits(torch.nn.Module):
    """``pixel_values [B,3,H,W] float32 -> logits [B,1000]``."""

    def __init__(self, inner: torch.nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.inner(pixel_values=pixel_values).logits


def _token_inputs(batch: int, seq: int, vocab: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed + 1)
    ids = torch.randint(0, vocab, (batch, seq), generator=g, dtype=torch.int64)
    return ids, torch.ones(batch, seq, dtype=torch.int64)


def build_llama_tiny(batch: int = 2, seq: int = 16, seed: int = 0) -> ModelBundle:
    """LLaMA-tiny: transformers ``LlamaForCausalLM`` from a small ``LlamaConfig``.

    Config: vocab 512, hidden 128, intermediate 344 (SwiGLU), 2 layers, 4 attention heads, 2 KV
    heads (grouped-query attention), RMSNorm eps 1e-6, rotary embeddings, max 512 positions, eager
    attention. RMSNorm weights are drawn from 1 + 0.1·N(0, 1) so graphs are not artefacts of
    all-ones weights (Touvron et al. 2023, "LLaMA").

    Inputs: ``input_ids`` int64 [batch, seq], ``attention_mask`` int64 [batch, seq] (all ones;
    pass it explicitly: without it transformers' mask code hits ``aten::diff``, which the
    TorchScript ONNX exporter cannot export). Output: ``logits`` float32 [batch, seq, 512].
    """
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(
        vocab_size=512, hidden_size=128, intermediate_size=344, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        rms_norm_eps=1e-6, tie_word_embeddings=False, attn_implementation="eager",
    )
    with seeded(seed), torch.no_grad():
        inner = LlamaForCausalLM(cfg).eval()
        for name, p in inner.named_parameters():
            if "norm" in name:
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
    ids, mask = _token_inputs(batch, seq, cfg.vocab_size, seed)
    model = _LlamaLogits(inner).eval()
    return ModelBundle(
        name="llama_tiny", model=model, inputs={"input_ids": ids, "attention_mask": mask},
        output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                      "logits": {0: "batch", 1: "sequence"}},
        meta={"source": "transformers.LlamaForCausalLM(LlamaConfig(...)), seeded random weights",
              "config": {k: cfg.to_dict()[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                                       "num_hidden_layers", "num_attention_heads",
                                                       "num_key_value_heads", "rms_norm_eps")},
              "seed": seed, "params": _param_count(model)},
    )


def build_bert(batch: int = 1, seq: int = 128, seed: int = 0, small: bool = False) -> ModelBundle:
    """BERT-base: transformers ``BertModel(BertConfig())`` (Devlin et al. 2019), seeded random weights.

    ``small=True`` gives a 2-layer, hidden-128, 2-head, intermediate-512 configuration for tests
    (same graph structure, much faster to compile). GELU is the exact Erf form (``hidden_act="gelu"``).

    Inputs: ``input_ids``, ``attention_mask``, ``token_type_ids`` int64 [batch, seq].
    Outputs: ``last_hidden_state`` float32 [batch, seq, hidden], ``pooler_output`` float32 [batch, hidden].
    """
    from transformers import BertConfig, BertModel

    overrides = dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=2, intermediate_size=512) if small else {}
    cfg = BertConfig(attn_implementation="eager", **overrides)
    with seeded(seed):
        inner = BertModel(cfg).eval()
    ids, mask = _token_inputs(batch, seq, cfg.vocab_size, seed)
    model = _BertOutputs(inner).eval()
    axes = {0: "batch", 1: "sequence"}
    return ModelBundle(
        name="bert", model=model,
        inputs={"input_ids": ids, "attention_mask": mask, "token_type_ids": torch.zeros_like(ids)},
        output_names=["last_hidden_state", "pooler_output"],
        dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                      "last_hidden_state": axes, "pooler_output": {0: "batch"}},
        meta={"source": "transformers.BertModel(BertConfig(" + ("small" if small else "") + ")), seeded random weights",
              "config": {k: cfg.to_dict()[k] for k in ("vocab_size", "hidden_size", "num_hidden_layers",
                                                       "num_attention_heads", "intermediate_size", "hidden_act")},
              "seed": seed, "small": small, "params": _param_count(model)},
    )


def build_resnet50(batch: int = 1, image: int = 224, seed: int = 0, small: bool = False) -> ModelBundle:
    """ResNet-50 v1.5: transformers ``ResNetForImageClassification(ResNetConfig())``, 1000 classes.

    torchvision is not used: PyPI's torchvision does not import beside torch 2.13.0. The
    transformers default ``ResNetConfig`` *is* ResNet-50 v1.5 (bottleneck, depths [3, 4, 6, 3],
    widths [256, 512, 1024, 2048], stride-2 in the 3x3 conv). BatchNorm running statistics and
    affine parameters are randomized (seeded) so Conv+BatchNormalization folding is not trivial.
    ``small=True`` keeps the architecture family but uses depths [1, 1, 1, 1] for fast tests.

    Input: ``pixel_values`` float32 [batch, 3, image, image] ~ N(0, 1).
    Output: ``logits`` float32 [batch, 1000].
    """
    from transformers import ResNetConfig, ResNetForImageClassification

    cfg = ResNetConfig(num_labels=1000, **({"depths": [1, 1, 1, 1]} if small else {}))
    with seeded(seed), torch.no_grad():
        inner = ResNetForImageClassification(cfg).eval()
        for m in inner.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
    g = torch.Generator().manual_seed(seed + 1)
    x = torch.randn(batch, 3, image, image, generator=g)
    model = _ResNetLogits(inner).eval()
    return ModelBundle(
        name="resnet50", model=model, inputs={"pixel_values": x}, output_names=["logits"],
        dynamic_axes={"pixel_values": {0: "batch"}, "logits": {0: "batch"}},
        meta={"source": "transformers.ResNetForImageClassification(ResNetConfig()) (ResNet-50 v1.5), seeded random weights",
              "config": {"depths": cfg.depths, "hidden_sizes": cfg.hidden_sizes, "layer_type": cfg.layer_type,
                         "image": image},
              "seed": seed, "small": small, "params": _param_count(model)},
    )


BUILDERS: dict[str, Callable[..., ModelBundle]] = {
    "llama_tiny": build_llama_tiny,
    "bert": build_bert,
    "resnet50": build_resnet50,
}
MODEL_NAMES = tuple(BUILDERS)


def build_model(name: str, **kwargs) -> ModelBundle:
    """Build a model by registry name (``llama_tiny``, ``bert``, ``resnet50``).

    Raises:
        UserError: unknown name (the message lists the known ones).
    """
    try:
        builder = BUILDERS[name]
    except KeyError:
        raise UserError(f"unknown model {name!r}; choose one of: {', '.join(MODEL_NAMES)}") from None
    return builder(**kwargs)
