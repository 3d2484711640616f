"""Lab 02's models, default budgets and the environment block: shared by the pipeline and its step modules.

Kept apart from :mod:`lab02_tvm.pipeline` so that the step modules (``tuned``, ``extras``,
``records``) import it without importing the pipeline that imports them.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

from common.budget import pick

MODELS = ("resnet50", "bert", "llama_tiny_s32", "llama_tiny_s128")
GROUPS = {"all": MODELS, "big": ("resnet50", "bert"), "llama": ("llama_tiny_s32", "llama_tiny_s128")}
STEPS = ("onnx", "passes", "untuned", "tuning", "schedule", "cross", "rpc", "tir-pass", "roofline", "peers",
         "layout", "spaces")
#: MetaSchedule trials per model when there are no shipped records for this host (shallow over
#: all tasks, then deep on the hottest), and the wall-clock caps that bound them on a loaded
#: machine. With the shipped records (the default on the machine kind they were tuned on) nothing
#: is tuned unless ``--trials`` asks for a top-up.
DEFAULT_TRIALS = {"resnet50": 768, "bert": 384, "llama_tiny_s32": 64, "llama_tiny_s128": 64}
DEFAULT_TUNE_MINUTES = {"resnet50": 12.0, "bert": 6.0, "llama_tiny_s32": 3.0, "llama_tiny_s128": 3.0}
UNTUNED_REPEATS = {"resnet50": 2, "bert": 1, "llama_tiny_s32": 3, "llama_tiny_s128": 3}


def budgets(args: argparse.Namespace, model: str) -> dict:
    """Effective budgets for one model: command line, else defaults, shrunk under ``CI=true``.

    Returns:
        ``{"trials": MetaSchedule trials, "tune_minutes": wall-clock cap (minutes),
        "untuned_repeats": timed untuned runs, "repeats": timed eager/tuned rounds}``.
    """
    return {
        "trials": args.trials or pick(DEFAULT_TRIALS[model], 16),
        "tune_minutes": args.tune_minutes or pick(DEFAULT_TUNE_MINUTES[model], 1.0),
        "untuned_repeats": args.untuned_repeats or pick(UNTUNED_REPEATS[model], 1),
        "repeats": args.repeats or pick(20, 5),
    }


def env(args, **extra) -> dict:
    """The environment block of every table (CPU, threads, versions, the machine was shared)."""
    from common.timing import environment
    return environment(threads=args.threads, machine_note="shared 2-core machine", **extra)


def build_bundles(names: Sequence[str], quick: bool) -> dict:
    """``{name: common.models.ModelBundle}`` at batch 1 (ResNet 224x224, BERT sequence 128, LLaMA-tiny
    sequence 32 / 128; with ``quick`` the reduced configurations and LLaMA-tiny at sequence 16)."""
    from common.models import build_model
    full = {"resnet50": ("resnet50", {}), "bert": ("bert", {}),
            "llama_tiny_s32": ("llama_tiny", {"batch": 1, "seq": 32}),
            "llama_tiny_s128": ("llama_tiny", {"batch": 1, "seq": 128})}
    small = {"resnet50": {"small": True, "image": 64}, "bert": {"small": True},
             "llama_tiny_s32": {"seq": 16}, "llama_tiny_s128": {"seq": 16}}
    out = {}
    for n in names:
        builder, kw = full[n]
        out[n] = build_model(builder, **{**kw, **(small[n] if quick else {})})
    return out
