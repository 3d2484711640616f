"""Lab 02's one model table: which models, built how, at what default budgets.

Every Lab 02 command (the pipeline, the long tuning run, the method study) takes its models from
:data:`MODELS`; the architectures themselves come from :mod:`common.models` (Hugging Face configs and
torchvision, seeded random weights, nothing downloaded).
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from common.errors import UserError


@dataclass(frozen=True)
class Model:
    """One row of the table.

    Attributes:
        builder: the :func:`common.models.build_model` name.
        kwargs: its keyword arguments for the full-size model (batch 1; ResNet 224x224, BERT sequence 128).
        quick: what ``--quick`` changes (the reduced configurations: BERT 2 layers / 128 hidden,
            ResNet depths 1-1-1-1 at 64x64, LLaMA-tiny sequence 16).
        trials: MetaSchedule trials when no shipped records match the host (shallow over all
            tasks, then deep on the hottest); with shipped records nothing is tuned unless
            ``--trials`` asks for a top-up.
        tune_minutes: the wall-clock cap on that tuning, minutes.
        untuned_repeats: timed runs of the untuned build (naive loops: seconds per run).
        hot_op: the operator of the kernels the method study tunes (``None``: not studied).
    """

    builder: str
    kwargs: dict = field(default_factory=dict)
    quick: dict = field(default_factory=dict)
    trials: int = 64
    tune_minutes: float = 3.0
    untuned_repeats: int = 3
    hot_op: str | None = None


MODELS: dict[str, Model] = {
    "resnet50": Model("resnet50", {}, {"small": True, "image": 64}, trials=768, tune_minutes=12.0,
                      untuned_repeats=2, hot_op="conv2d"),
    "bert": Model("bert", {}, {"small": True}, trials=384, tune_minutes=6.0, untuned_repeats=1, hot_op="matmul"),
    "llama_tiny_s32": Model("llama_tiny", {"batch": 1, "seq": 32}, {"seq": 16}),
    "llama_tiny_s128": Model("llama_tiny", {"batch": 1, "seq": 128}, {"seq": 16}),
}
GROUPS = {"all": tuple(MODELS), "big": ("resnet50", "bert"), "llama": ("llama_tiny_s32", "llama_tiny_s128")}


def build_bundle(name: str, quick: bool = False):
    """The :class:`common.models.ModelBundle` of one table entry at batch 1 (``quick``: reduced).

    Raises:
        UserError: ``name`` is not in :data:`MODELS`.
    """
    from common.models import build_model
    if name not in MODELS:
        raise UserError(f"unknown Lab 02 model {name!r}; choose from {', '.join(MODELS)}")
    m = MODELS[name]
    return build_model(m.builder, **{**m.kwargs, **(m.quick if quick else {})})


def build_bundles(names: Sequence[str], quick: bool = False) -> dict:
    """``{name: common.models.ModelBundle}`` for each of ``names`` (see :func:`build_bundle`)."""
    return {n: build_bundle(n, quick) for n in names}


def imported(name: str, quick: bool = False):
    """``import_torch(build_bundle(name, quick))``: the model in Relax with its inputs, weights and PyTorch's
    outputs (:class:`lab02_tvm.graph.frontend.ImportedModel`), the start of every build from records.

    A reduced configuration (``quick``: a few MB) is imported once per process and shared: the weights are
    seeded, so a second import is the same model, and each costs a ``torch.export`` (2-3 s for the test-size
    ResNet); the tests and ``--quick`` runs import the same small models again and again. A full-size model
    (hundreds of MB; a tool run imports it once) is imported at each call. Treat the result as read-only, as
    Relax modules are.

    Raises:
        UserError: ``name`` is not in :data:`MODELS`.
    """
    return _imported_reduced(name) if quick else _import(name, False)


@functools.cache
def _imported_reduced(name: str):
    return _import(name, True)


def _import(name: str, quick: bool):
    from .graph.frontend import import_torch
    return import_torch(build_bundle(name, quick))
