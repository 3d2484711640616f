"""The trial budget of a tuning run: how many candidates each task gets (:func:`plan_budget`).

1. *shallow*: every task (hottest first, by weighted-FLOP share) gets the same small number of
   trials, so no kernel stays a naive loop nest;
2. *deep*: the ``deep_top_k`` tasks with the largest weighted-FLOP share get ``deep_trials`` more
   between them (split evenly, hottest first); ranked by measured *time* instead
   (:func:`deep_plan_by_time`), BERT's GELU (few FLOPs, slow ``erf``) is among them.

The plan counts records wanted in the database, so a task already holding them is not re-tuned.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from common.errors import UserError

from .database import best_ms_of, open_database, task_records
from .tasks import TaskInfo

#: Fewest trials a task gets in the shallow phase (fewer teach the cost model nothing).
SHALLOW_MIN_TRIALS = 4



def plan_budget(infos: Sequence[TaskInfo], max_trials_global: int, *, deep_top_k: int = 6,
                deep_trials: int | None = None, phases: bool = False) -> Any:
    """Trials per task: shallow over all tasks, then deep on the hottest.

    Args:
        infos: tasks sorted by weighted-FLOP share, largest first (as :func:`extract_tasks` gives).
        max_trials_global: total trials (>= 1).
        deep_top_k: how many of the hottest tasks get the deep phase (0 disables it).
        deep_trials: trials of the deep phase in total (split evenly over the ``deep_top_k``
            tasks, remainder to the hottest); default a third of ``max_trials_global`` when
            ``deep_top_k > 0``.
    Returns:
        ``{task name: trials}`` with ``sum == max_trials_global``. The shallow phase gives every
        task the same count, but at least ``SHALLOW_MIN_TRIALS``: when the budget is too small
        for that, only the hottest tasks are covered (the report's ``share_covered`` says how
        much of the FLOPs they carry) and the coldest (elementwise) kernels stay untuned.
    Raises:
        UserError: ``max_trials_global < 1`` or negative ``deep_top_k``/``deep_trials``.
    """
    if max_trials_global < 1:
        raise UserError(f"--trials must be >= 1 (got {max_trials_global})")
    if deep_top_k < 0 or (deep_trials is not None and deep_trials < 0):
        raise UserError("deep_top_k and deep_trials must be >= 0")
    k = min(deep_top_k, len(infos))
    if deep_trials is None:
        deep_trials = max_trials_global // 3 if k else 0
    deep = min(deep_trials, max_trials_global) if k else 0
    shallow = max_trials_global - deep
    plan = {ti.name: 0 for ti in infos}
    n = len(infos)
    if shallow:
        per = max(shallow // n, min(SHALLOW_MIN_TRIALS, shallow))
        covered = min(n, shallow // per)
        for ti in infos[:covered]:
            plan[ti.name] += per
        for i in range(shallow - per * covered):  # remainder: one more each, hottest first
            plan[infos[i % covered].name] += 1
    shallow_plan = dict(plan)
    if deep:
        per, rest = divmod(deep, k)
        for i, ti in enumerate(infos[:k]):
            plan[ti.name] += per + (1 if i < rest else 0)
    if phases:
        return shallow_plan, plan
    return plan



def deep_plan_by_time(infos: Sequence[TaskInfo], shallow: dict, plan: dict, work_dir, k: int,
                       cost: dict[str, float] | None = None) -> dict:
    """``plan``'s deep trials moved to the ``k`` tasks with the most measured time (weight x best ms),
    or the largest ``cost[task name]`` when given (e.g. ms lost against the roof in the model)."""
    if cost is None:
        db = open_database(work_dir)
        cost = {ti.name: ti.weight * (best_ms_of(task_records(db, ti.task)) or 0.0) for ti in infos}
    cost = {ti.name: float(cost.get(ti.name, 0.0)) for ti in infos}
    ranked = sorted(infos, key=lambda ti: -cost[ti.name])
    extra = sorted((plan[n] - shallow[n] for n in plan), reverse=True)
    out = dict(shallow)
    for ti, more in zip(ranked[:k], extra):
        out[ti.name] += more
    return out
