"""A Lab 02 run's settings, resolved once from the command line: models, steps, budgets, target, environment.

:func:`parse_args` reads the command line (the :mod:`common.cli` convention); :func:`resolve` turns
it into one frozen :class:`Settings` that every step receives, so no step reads ``argparse`` or
recomputes a default: budgets are the command line's, else :data:`lab02_tvm.models.MODELS`'s,
shrunk under ``CI=true`` (:func:`common.budget.pick`); the environment block of the tables is built
once.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field

from common.budget import pick
from common.cli import parser, positive
from common.errors import UserError

from ..models import GROUPS, MODELS


@dataclass(frozen=True)
class Budget:
    """One model's budgets: MetaSchedule ``trials`` and ``tune_minutes`` (wall-clock cap, minutes),
    timed ``untuned_repeats`` (naive loops) and ``repeats`` (interleaved eager/tuned rounds)."""

    trials: int
    tune_minutes: float
    untuned_repeats: int
    repeats: int


@dataclass(frozen=True)
class Settings:
    """Everything a run decided before its first step.

    Attributes:
        models: model names, in order (keys of :data:`lab02_tvm.models.MODELS`).
        steps: the steps that run (names of :data:`lab02_tvm.pipeline.run.STEPS`).
        quick: reduced models and budgets.
        verbose: ``-v`` count (2 prints the IR after each stage).
        threads: threads for PyTorch and TVM timings.
        target: the TVM target dict for this host (``llvm``, host ``mcpu``, ``num-cores``).
        trials: ``--trials`` as given (``None``: no top-up of shipped records).
        budgets: ``{model: Budget}``.
        peer_repeats, layout_trials, layout_repeats, space_trials, roofline_repeats: the budgets of
            steps 12, 13, 14 and 11 (``roofline_repeats``: ``{build: instrumented runs}``; the tuned
            build runs in ms, so it gets enough runs for steady per-kernel medians).
        env: the environment block of every table (CPU, threads, versions).
    """

    models: tuple[str, ...]
    steps: frozenset[str]
    quick: bool
    verbose: int
    threads: int
    target: dict
    trials: int | None
    budgets: dict[str, Budget]
    peer_repeats: int
    layout_trials: int
    layout_repeats: int
    space_trials: int
    roofline_repeats: dict[str, int]
    #: seconds of each FMA re-measure before and after the timed steps 7, 11, 12 and 15 (``host_speed`` in their tables)
    host_check_s: float
    #: step 11's GEMM ceiling: interleaved rounds per shape, warm and cold (:mod:`lab02_tvm.measure.gemm_ceiling`)
    ceiling_repeats: int
    #: step 15's interleaved rounds (one instrumented TVM and one profiled ONNX Runtime inference each)
    vs_ort_rounds: int
    env: dict = field(repr=False)

    def runs(self, name: str) -> bool:
        """Whether step ``name`` is part of this run."""
        return name in self.steps

    def budget(self, model: str) -> Budget:
        """The budgets of ``model`` (a name of :attr:`models`).

        Raises:
            KeyError: ``model`` has no budget in this run.
        """
        return self.budgets[model]


def parse_args(argv: Sequence[str] | None, *, skippable: Sequence[str], selectable: Sequence[str], doc: str = "",
               epilog: str = "") -> argparse.Namespace:
    """Command line (``common.cli`` convention): ``--model``, budgets, ``-v``/``-vv``, ``--quick``,
    ``--only STEP[,STEP]`` (of ``selectable``), ``--skip-<step>`` (of ``skippable``).

    Raises:
        UserError: an unknown option or choice, or a budget/count below its minimum.
    """
    p = parser("python -m lab02_tvm.pipeline", doc, steps=skippable, epilog=epilog,
               quick="reduced models for a quick check (BERT 2 layers/128 hidden, ResNet depths 1-1-1-1 at "
                     "64x64, LLaMA-tiny sequence 16)")
    p.add_argument("--model", default="all", choices=[*MODELS, *GROUPS],
                   help="model(s) to compile (default: all; 'big' = ResNet-50 + BERT-base, 'llama' = both "
                        "LLaMA-tiny sequences)")
    p.add_argument("--only", action="append", default=None, metavar="STEP[,STEP]",
                   help=f"run only these steps and the steps they build on (of: {', '.join(selectable)})")
    defaults = ", ".join(f"{n} {m.trials}" for n, m in MODELS.items())
    p.add_argument("--trials", type=int, default=None,
                   help="MetaSchedule trials per model: tuning from scratch when no shipped records match this "
                        f"host (default {defaults}; CI: 16), or a top-up of a copy of the shipped ones")
    p.add_argument("--tune-minutes", type=float, default=None,
                   help="wall-clock cap on tuning per model, minutes (default "
                        f"{', '.join(f'{n} {m.tune_minutes:g}' for n, m in MODELS.items())}; CI: 1)")
    p.add_argument("--threads", type=int, default=1, help="threads for PyTorch and TVM timings (default 1)")
    p.add_argument("--untuned-repeats", type=int, default=None,
                   help="timed runs of the untuned build (default: resnet50 2, bert 1, llama 3)")
    p.add_argument("--repeats", type=int, default=None, help="timed rounds for eager vs tuned (default 20; CI 5)")
    args = p.parse_args(argv)
    for opt in ("trials", "tune_minutes", "threads", "untuned_repeats", "repeats"):
        positive("--" + opt.replace("_", "-"), getattr(args, opt))
    only = [s.strip() for o in (args.only or []) for s in o.split(",") if s.strip()]
    bad = [s for s in only if s not in selectable]
    if bad:
        raise UserError(f"--only: unknown step {bad[0]!r}; steps are {', '.join(selectable)} (see --help)")
    args.only = set(only) if args.only is not None else None
    return args


def resolve(args: argparse.Namespace, steps: frozenset[str]) -> Settings:
    """:class:`Settings` from the parsed command line, the steps selected from it and the host (target, environment).

    Raises:
        UserError: ``MLC_CPU`` names a CPU this host cannot execute (:func:`common.isa.target_cpu`).
    """
    from common.roof import host_check_seconds
    from common.timing import environment

    from ..build import host_target
    names = list(GROUPS.get(args.model, (args.model,)))
    if args.quick:  # both LLaMA-tiny entries would be the same sequence-16 model
        names = [n for n in names if n != "llama_tiny_s128"]
    budgets = {n: Budget(trials=args.trials or pick(MODELS[n].trials, 16),
                         tune_minutes=args.tune_minutes or pick(MODELS[n].tune_minutes, 1.0),
                         untuned_repeats=args.untuned_repeats or pick(MODELS[n].untuned_repeats, 1),
                         repeats=args.repeats or pick(20, 5)) for n in names}
    return Settings(
        models=tuple(names), steps=steps, quick=bool(args.quick),
        verbose=int(args.verbose), threads=args.threads, target={**host_target(), "num-cores": args.threads},
        trials=args.trials, budgets=budgets, peer_repeats=args.repeats or pick(20, 3),
        layout_trials=0 if args.quick else pick(16, 4), layout_repeats=1 if args.quick else 2,
        space_trials=pick(32, 4), roofline_repeats={"untuned": pick(2, 1), "tuned": pick(10, 1)},
        host_check_s=host_check_seconds(), vs_ort_rounds=pick(10, 2), ceiling_repeats=pick(30, 2),
        env=environment(threads=args.threads))
