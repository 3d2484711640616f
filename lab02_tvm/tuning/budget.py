"""The trial budget of a tuning run: how many candidates each task gets (:func:`plan_budget`).

1. *shallow*: every task (hottest first, by weighted-FLOP share) gets the same small number of
   trials (at least :data:`SHALLOW_MIN_TRIALS`), so no kernel stays a naive loop nest, like the
   round-robin warm-up of Ansor's task scheduler (Zheng et al., OSDI 2020, sec. 6);
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

    ``infos`` is ranked: ``infos[0]`` is the hottest task and ``infos[-1]`` the coldest (the order
    :func:`extract_tasks` gives: weighted-FLOP share, largest first); "the ``j`` hottest" below means
    ``infos[:j]``. Only each task's ``name`` is read (names are distinct): the plan never re-sorts by
    ``flops`` or ``share``. With ``T = max_trials_global``, ``n = len(infos)``,
    ``M = SHALLOW_MIN_TRIALS`` and ``k = min(deep_top_k, n)``:

    1. *Errors*, checked before anything is planned, in this order: ``UserError`` when ``T < 1``
       (its message names ``--trials``, the flag the number comes from, even when another
       argument is wrong too), when ``deep_top_k < 0`` or ``deep_trials < 0``, or when ``infos``
       is empty.
    2. *The split*: the deep phase gets ``D = min(deep_trials, T)`` trials (``deep_trials``
       defaults to ``T // 3``), or ``D = 0`` when ``k == 0`` (then ``deep_trials`` is not used for
       the split, though step 1 still refuses a negative one); the shallow phase gets the rest,
       ``S = T - D``.
    3. *Shallow*: the ``c = min(n, max(1, S // M))`` hottest tasks (none when ``S == 0``) share
       ``S`` as evenly as possible: each gets ``S // c``, and the ``S % c`` hottest of them one more
       (the remainder, one each, hottest first); the other ``n - c`` (the coldest) get 0. So when
       ``S >= M * n`` every task is covered; with less, only the hottest are, each still with at
       least ``M`` trials (all ``S`` on the hottest task when ``S < M``), and the coldest
       (elementwise) kernels stay untuned (the report's ``share_covered`` says how much of the FLOPs
       the covered ones carry).
    4. *Deep*: on top of their shallow trials, the ``k`` hottest tasks get ``D // k`` more each, and
       the ``D % k`` hottest of them one more.

    Example: 4 tasks, ``T = 31``, ``deep_top_k = 3``, ``deep_trials = 8``: ``D = 8``, ``S = 23``,
    ``c = 4``; shallow ``[6, 6, 6, 5]``, deep ``[3, 3, 2, 0]``, plan ``[9, 9, 8, 5]``.

    Args:
        infos: the tasks, hottest first (as :func:`extract_tasks` gives): any sequence (a list, a
            tuple), only read.
        max_trials_global: total trials ``T`` (>= 1).
        deep_top_k: how many of the hottest tasks get the deep phase (0 disables it).
        deep_trials: trials of the deep phase in total (default ``T // 3``).
        phases: return the shallow phase too.
    Returns:
        ``{task name: trials}``, a key for every task (0 included), ``sum == max_trials_global``; with
        ``phases=True`` the pair ``(shallow_plan, plan)``: ``shallow_plan`` is step 3 alone (same
        keys, summing to ``S``) and ``plan`` the whole plan (``plan[t] - shallow_plan[t]`` is step 4).
        The plan counts records wanted in the database (:func:`lab02_tvm.tuning.tune.tune` runs the
        shallow phase over every task before any task goes deep).
    Raises:
        UserError: as step 1 says.
    """
    ### BEGIN SOLUTION lab02.tune
    if max_trials_global < 1:
        raise UserError(f"--trials must be >= 1 (got {max_trials_global})")
    if deep_top_k < 0 or (deep_trials is not None and deep_trials < 0):
        raise UserError(f"deep_top_k and deep_trials must be >= 0 (got {deep_top_k}, {deep_trials})")
    if not infos:
        raise UserError("no task to plan trials for")
    n = len(infos)
    k = min(deep_top_k, n)
    if deep_trials is None:
        deep_trials = max_trials_global // 3
    deep = min(deep_trials, max_trials_global) if k else 0
    shallow = max_trials_global - deep
    plan = {ti.name: 0 for ti in infos}
    if shallow:
        covered = min(n, max(1, shallow // SHALLOW_MIN_TRIALS))
        each, extra = divmod(shallow, covered)
        for i, ti in enumerate(infos[:covered]):  # the remainder: one more each, hottest first
            plan[ti.name] += each + (1 if i < extra else 0)
    shallow_plan = dict(plan)
    if deep:
        per, rest = divmod(deep, k)
        for i, ti in enumerate(infos[:k]):
            plan[ti.name] += per + (1 if i < rest else 0)
    if phases:
        return shallow_plan, plan
    return plan
    ### END SOLUTION



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
