"""Graded tests of Task 2.5 (``lab02.tune``): the trial budget of a tuning run, shallow then deep.

Through the public contract only (``plan_budget`` and its docstring in ``lab02_tvm/tuning/budget.py``,
``SHALLOW_MIN_TRIALS``): hand-worked plans of a few tasks (each number below worked out from steps 1-4 of
the docstring, in the comment next to it), then properties over random task lists and budgets, each
checked against expectations computed here another way (the shallow phase dealt one trial at a time
to the covered tasks, hottest first; the deep phase likewise). The tasks are :class:`TaskInfo` rows with
no TVM task (``plan_budget`` reads their names only), sorted by share, hottest first, their ``index`` (the
extraction order) not their rank, as ``extract_tasks`` gives them; nothing is tuned.

Every plan is checked for its type before it is compared (:func:`as_list`, :func:`pair`): a ``dict`` (read
through a plain ``dict`` copy) of ``str`` keys and ``int`` counts, and with ``phases=True`` a ``tuple`` of two. An object of
another type (an ``int`` subclass too) may define its own ``==`` and pass every comparison below.

Run: ``.venv/bin/python -m pytest --task lab02.tune`` (or ``.venv/bin/python -m pytest lab02_tvm/test_task_tune.py``).
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.errors import UserError

pytestmark = pytest.mark.lab02

M = 4  # SHALLOW_MIN_TRIALS, as the docstring's step 3 uses it (checked by the first test)


def tasks(n: int) -> list:
    """``n`` TaskInfo rows ``t0..t{n-1}``, hottest first (decreasing share, summing to 1).

    ``index`` is the task's position in MetaSchedule's extraction order, which ``extract_tasks`` then sorts by
    share: it is not the rank. Here the coldest task was extracted first (``t{n-1}`` has index 0), so a plan that
    ranks by ``index`` (the remainders or the deep phase on the first-extracted tasks) differs from one that
    follows the order of ``infos``, as the docstring asks."""
    from lab02_tvm.tuning.tasks import TaskInfo
    weights = [2.0 ** -i for i in range(n)]
    total = sum(weights)
    return [TaskInfo(index=n - 1 - i, name=f"t{i}", weight=1, flops=w * 1e6, share=w / total)
            for i, w in enumerate(weights)]


def as_list(plan: dict, n: int) -> list[int]:
    """The plan's counts in task order; the keys must be exactly the tasks' names. The plan must be a
    ``dict`` (a ``defaultdict`` or ``OrderedDict`` too: it is read through a plain ``dict`` copy, so no ``==`` of
    its own is ever called) of ``str`` keys and ``int`` counts (exact types, checked before anything is compared)."""
    assert isinstance(plan, dict), f"plan_budget's plan is a {type(plan).__qualname__}, not a dict"
    plan = dict(plan)
    odd = [(k, v) for k, v in plan.items() if type(k) is not str or type(v) is not int]
    assert not odd, ("the plan maps task names (str) to trial counts (int); of another type: "
                     + ", ".join(f"{k!r} ({type(k).__qualname__}): {v!r} ({type(v).__qualname__})" for k, v in odd[:3]))
    assert set(plan) == {f"t{i}" for i in range(n)}, sorted(plan)
    return [plan[f"t{i}"] for i in range(n)]


def pair(got) -> tuple[dict, dict]:
    """``plan_budget(..., phases=True)``: the pair ``(shallow_plan, plan)``, a tuple of two (a namedtuple too: read
    through a plain ``tuple`` copy, so no ``==`` of its own is called)."""
    plain = tuple(got) if isinstance(got, tuple) else None
    assert plain is not None and len(plain) == 2, \
        f"plan_budget(..., phases=True) returned a {type(got).__qualname__}, not the tuple (shallow_plan, plan)"
    return plain


def test_pair_reads_a_namedtuple_as_its_plain_tuple():
    """Not graded: the check itself. A namedtuple ``(shallow_plan, plan)`` is the tuple of two the contract asks
    for (compared as a plain tuple); a list of two is refused."""
    import collections

    got = pair(collections.namedtuple("Phases", "shallow_plan plan")({"t0": 1}, {"t0": 2}))
    assert type(got) is tuple and got == ({"t0": 1}, {"t0": 2})
    with pytest.raises(AssertionError, match="not the tuple"):
        pair([{"t0": 1}, {"t0": 2}])


def dealt(trials: int, over: int, n: int) -> list[int]:
    """``trials`` dealt one at a time, round and round, to the first ``over`` of ``n`` tasks."""
    out = [0] * n
    for i in range(trials):
        out[i % over] += 1
    return out


def expected(n: int, total: int, deep_top_k: int, deep_trials: int | None) -> tuple[list[int], list[int]]:
    """(shallow phase, whole plan) in task order, per steps 2-4 of the docstring."""
    k = min(deep_top_k, n)
    d = 0 if k == 0 else min(total // 3 if deep_trials is None else deep_trials, total)
    s = total - d
    shallow = dealt(s, min(n, max(1, s // M)), n) if s else [0] * n
    deep = dealt(d, k, n) if d else [0] * n
    return shallow, [a + b for a, b in zip(shallow, deep)]


# (n, T, keyword arguments, shallow phase, whole plan): worked by hand from the docstring.
HAND = [
    # D = 10, S = 30, c = min(5, 7) = 5: 6 each; deep 10 / 2 = 5 each on t0, t1
    (5, 40, {"deep_top_k": 2, "deep_trials": 10}, [6, 6, 6, 6, 6], [11, 11, 6, 6, 6]),
    # D = 0, S = 10 < 4 * 5: c = 10 // 4 = 2 hottest, 5 each; the three coldest untuned
    (5, 10, {"deep_top_k": 0}, [5, 5, 0, 0, 0], [5, 5, 0, 0, 0]),
    # S = 3 < M: all of it on the hottest
    (5, 3, {"deep_top_k": 0}, [3, 0, 0, 0, 0], [3, 0, 0, 0, 0]),
    # defaults: k = min(6, 3) = 3, D = 20 // 3 = 6, S = 14, c = 3: 4 each + 2 to t0, t1; deep 2 each
    (3, 20, {}, [5, 5, 4], [7, 7, 6]),
    # D = 8, S = 23, c = 4: 5 each + 3 to t0..t2; deep 8 / 3 = 2 each + 2 to t0, t1 (the docstring's example)
    (4, 31, {"deep_top_k": 3, "deep_trials": 8}, [6, 6, 6, 5], [9, 9, 8, 5]),
    # S = 11 over 10 tasks: c = 11 // 4 = 2, 11 = 6 + 5 (the remainder to the hottest)
    (10, 11, {"deep_top_k": 0}, [6, 5] + [0] * 8, [6, 5] + [0] * 8),
    # deep_trials > T: D = T = 9, S = 0 (no shallow phase); deep 9 / 2 = 4 each + 1 to t0
    (3, 9, {"deep_top_k": 2, "deep_trials": 100}, [0, 0, 0], [5, 4, 0]),
    # deep_top_k > n: k = 2, D = 4, S = 8, c = 2: 4 each; deep 2 each
    (2, 12, {"deep_top_k": 6, "deep_trials": 4}, [4, 4], [6, 6]),
    # deep_trials = 0 is a deep phase of no trials (not the default T // 3): D = 0, S = 12, c = 3: 4 each
    (3, 12, {"deep_top_k": 2, "deep_trials": 0}, [4, 4, 4], [4, 4, 4]),
]


@pytest.mark.task("lab02.tune", points=1)
@pytest.mark.parametrize("n, total, kw, shallow, plan", HAND,
                         ids=["even", "floored", "tiny", "defaults", "remainders", "floor-remainder",
                              "all-deep", "k-past-n", "no-deep-trials"])
def test_hand_worked_plans(n, total, kw, shallow, plan):
    from lab02_tvm.tuning.budget import SHALLOW_MIN_TRIALS, plan_budget
    assert SHALLOW_MIN_TRIALS == M
    infos = tasks(n)
    got_shallow, got_plan = pair(plan_budget(infos, total, phases=True, **kw))
    assert as_list(got_shallow, n) == shallow, "the shallow phase (per task, hottest first)"
    assert as_list(got_plan, n) == plan, "the whole plan, shallow + deep (per task, hottest first)"
    assert as_list(plan_budget(infos, total, **kw), n) == plan, "phases=False: the same whole plan"


# Small budgets under the defaults (deep_top_k = 6, D = T // 3), worked by hand from the docstring: (n, T, shallow, plan).
SMALL = [
    # D = 2 // 3 = 0 (the default deep phase can be empty), S = 2, c = max(1, 2 // 4) = 1
    (2, 2, [2, 0], [2, 0]),
    # k = 2, D = 1 < k: S = 2 on t0; the one deep trial to the hottest, none to t1
    (2, 3, [2, 0], [3, 0]),
    # k = 6, D = 10, S = 20: c = S // 4 = 5 (T // 4 would be 7), 4 each; deep 10 / 6 = 1 each + 4 to t0..t3, t5 in
    # the deep phase though the shallow one left it out
    (10, 30, [4, 4, 4, 4, 4, 0, 0, 0, 0, 0], [6, 6, 6, 6, 5, 1, 0, 0, 0, 0]),
]


@pytest.mark.task("lab02.tune", points=1)
def test_hand_worked_small_budgets_under_the_defaults():
    """Steps 2-4 where a budget is small against the defaults: a default deep phase of 0 or 1 trial, fewer deep trials
    than deep tasks, the shallow phase's cover counted from S (not T), and deep tasks past that cover."""
    from lab02_tvm.tuning.budget import plan_budget
    for n, total, shallow, plan in SMALL:
        got_shallow, got_plan = pair(plan_budget(tasks(n), total, phases=True))
        got = (as_list(got_shallow, n), as_list(got_plan, n))
        assert got == (shallow, plan), f"plan_budget({n} tasks, T={total}) under the defaults: (shallow, plan) = {got}, want {(shallow, plan)}"


# Random task lists and budgets: n tasks, T trials, deep_top_k, deep_trials (None = the default).
CASES = dict(n=st.integers(1, 30), total=st.integers(1, 400), deep_top_k=st.integers(0, 10),
             deep_trials=st.none() | st.integers(0, 500))


@pytest.mark.task("lab02.tune", points=1)
@given(**CASES)
def test_property_every_trial_planned(n, total, deep_top_k, deep_trials):
    """A key for every task, counts >= 0, summing to T; ``phases=False`` is the same plan."""
    from lab02_tvm.tuning.budget import plan_budget
    infos = tasks(n)
    shallow, plan = pair(plan_budget(infos, total, deep_top_k=deep_top_k, deep_trials=deep_trials, phases=True))
    counts, first = as_list(plan, n), as_list(shallow, n)
    assert all(type(c) is int and c >= 0 for c in counts + first)
    assert sum(counts) == total
    assert all(a <= b for a, b in zip(first, counts))
    assert as_list(plan_budget(infos, total, deep_top_k=deep_top_k, deep_trials=deep_trials), n) == counts


@pytest.mark.task("lab02.tune", points=2)
@given(**CASES)
def test_property_shallow_phase(n, total, deep_top_k, deep_trials):
    """Equal counts (the remainder one each, hottest first), at least M unless S < M, on a prefix of
    the hottest tasks that covers every task when S >= M * n."""
    from lab02_tvm.tuning.budget import plan_budget
    shallow, _ = pair(plan_budget(tasks(n), total, deep_top_k=deep_top_k, deep_trials=deep_trials, phases=True))
    want, _ = expected(n, total, deep_top_k, deep_trials)
    got = as_list(shallow, n)
    s = sum(want)
    assert sum(got) == s
    covered = [c for c in got if c]
    assert got[:len(covered)] == covered, f"the covered tasks are not the hottest: {got}"
    if covered:
        assert max(covered) - min(covered) <= 1 and covered == sorted(covered, reverse=True), got
        assert min(covered) >= min(M, s), got
        assert len(covered) == n or s < M * n, got
    assert got == want


@pytest.mark.task("lab02.tune", points=1)
@given(**CASES)
def test_property_deep_phase(n, total, deep_top_k, deep_trials):
    """The deep trials (plan - shallow): D of them, on the k hottest only, split evenly with the
    remainder to the hottest."""
    from lab02_tvm.tuning.budget import plan_budget
    shallow, plan = pair(plan_budget(tasks(n), total, deep_top_k=deep_top_k, deep_trials=deep_trials, phases=True))
    want_shallow, want_plan = expected(n, total, deep_top_k, deep_trials)
    deep = [b - a for a, b in zip(as_list(shallow, n), as_list(plan, n))]
    want = [b - a for a, b in zip(want_shallow, want_plan)]
    k = min(deep_top_k, n)
    assert sum(deep) == sum(want)
    assert not any(deep[k:]), f"deep trials beyond the {k} hottest: {deep}"
    if k and sum(want):
        top = deep[:k]
        assert max(top) - min(top) <= 1 and top == sorted(top, reverse=True), deep
    assert deep == want


def user_error(what: str, call, *args, **kwargs) -> str:
    """The message of the ``UserError`` that ``call(*args, **kwargs)`` raises; a one-line failure naming ``what``
    otherwise."""
    try:
        got = call(*args, **kwargs)
    except UserError as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - any other exception is the student's bug, reported in one line
        pytest.fail(f"{what}: raised {type(exc).__name__}: {exc}, not UserError")
    pytest.fail(f"{what}: no UserError raised (returned {got!r})"[:300])


@pytest.mark.task("lab02.tune", points=1)
def test_a_budget_below_one_is_a_user_error():
    """``T < 1`` is refused with a message naming ``--trials`` (the flag the number comes from), checked first
    (step 1: in this order), so even with no task or a negative deep setting the message is about ``--trials``;
    ``T = 1`` is the smallest budget, planned (all on the hottest task)."""
    from lab02_tvm.tuning.budget import plan_budget
    for total in (0, -5):
        with pytest.raises(UserError, match="--trials"):  # the message names the flag the number comes from
            plan_budget(tasks(3), total)
        with pytest.raises(UserError):
            plan_budget(tasks(3), total, deep_top_k=0, phases=True)
        for what, args, kw in ((f"plan_budget([], {total})", ([], total), {}),
                               (f"plan_budget(tasks, {total}, deep_top_k=-1, deep_trials=-1)", (tasks(3), total),
                                {"deep_top_k": -1, "deep_trials": -1})):
            msg = user_error(what, plan_budget, *args, **kw)
            assert "--trials" in msg, f"{what}: T < 1 is checked first (step 1), its message names --trials: {msg!r}"
    # T = 1: D = 1 // 3 = 0, S = 1 < M: the one trial on the hottest task
    try:
        got = plan_budget(tasks(3), 1)
    except UserError as exc:
        pytest.fail(f"plan_budget(tasks, 1) refused T = 1, the smallest budget (T >= 1 is valid): {exc}")
    assert as_list(got, 3) == [1, 0, 0], "plan_budget(tasks, 1): the one trial goes to the hottest task"


@pytest.mark.task("lab02.tune", points=1)
def test_the_plan_follows_the_given_order_not_the_flops():
    """``infos`` is ranked by weighted share (a conv called 12 times per inference first); its per-call FLOPs
    rank otherwise (the matmul called once has the most): the plan reads the order it is given and never
    re-sorts (the docstring), so the deep phase goes to ``t0``; nor is ``index`` (MetaSchedule's extraction order) the
    rank: ``t1`` was extracted first."""
    from lab02_tvm.tuning.budget import plan_budget
    from lab02_tvm.tuning.tasks import TaskInfo
    infos = [TaskInfo(index=2, name="t0", weight=12, flops=2.0e6, share=0.6),  # index: the extraction order
             TaskInfo(index=0, name="t1", weight=1, flops=8.0e6, share=0.2),
             TaskInfo(index=3, name="t2", weight=4, flops=1.0e6, share=0.1),
             TaskInfo(index=1, name="t3", weight=16, flops=0.5e6, share=0.1)]
    # T = 30, k = 1, D = 10, S = 20, c = 4: 5 each, the deep 10 on t0
    assert as_list(plan_budget(infos, 30, deep_top_k=1, deep_trials=10), 4) == [15, 5, 5, 5]
    # T = 11, no deep phase: c = 11 // 4 = 2 hottest in the given order, 6 + 5
    assert as_list(plan_budget(infos, 11, deep_top_k=0), 4) == [6, 5, 0, 0]


@pytest.mark.task("lab02.tune", points=1)
def test_the_plan_reads_the_order_not_the_shares_and_leaves_the_list_alone():
    """The rank is the order of ``infos`` and nothing else (the docstring: only each task's name is read, never a
    re-sort by ``flops`` or ``share``): here the caller ranks by another measure than the share (as
    ``deep_plan_by_time`` ranks by measured time), so the shares rise along the list. The plan follows the given
    order, and the caller's list comes back as it was given (same rows, same order); a tuple of the same rows (any
    ``Sequence``) gets the same plan."""
    from lab02_tvm.tuning.budget import plan_budget
    from lab02_tvm.tuning.tasks import TaskInfo
    infos = [TaskInfo(index=3 - i, name=f"t{i}", weight=1, flops=f, share=sh)  # index: the extraction order
             for i, (f, sh) in enumerate([(1.0e6, 0.1), (2.0e6, 0.2), (3.0e6, 0.3), (4.0e6, 0.4)])]
    given = list(infos)
    # T = 30, k = 1, D = 10, S = 20, c = 4: 5 each, the deep 10 on t0 (the first given, the smallest share)
    assert as_list(plan_budget(infos, 30, deep_top_k=1, deep_trials=10), 4) == [15, 5, 5, 5]
    # T = 11, no deep phase: c = 11 // 4 = 2, the first two given, 6 + 5
    assert as_list(plan_budget(infos, 11, deep_top_k=0), 4) == [6, 5, 0, 0]
    assert len(infos) == len(given) and all(a is b for a, b in zip(infos, given)), \
        f"plan_budget reordered the caller's list: {[ti.name for ti in infos]}"
    # infos is any Sequence (the signature; the docstring: a list, a tuple): a tuple is planned the same
    try:
        got = pair(plan_budget(tuple(infos), 30, deep_top_k=1, deep_trials=10, phases=True))
    except Exception as exc:  # noqa: BLE001 - reported in one line
        pytest.fail(f"plan_budget on a tuple of tasks (infos is any Sequence, not only a list): "
                    f"{type(exc).__name__}: {exc}")
    assert (as_list(got[0], 4), as_list(got[1], 4)) == ([5, 5, 5, 5], [15, 5, 5, 5]), \
        "plan_budget on a tuple of tasks: not the plan of the same tasks in a list"


@pytest.mark.task("lab02.tune", points=1)
def test_negative_deep_settings_or_no_task_are_user_errors():
    from lab02_tvm.tuning.budget import plan_budget
    with pytest.raises(UserError):
        plan_budget(tasks(3), 10, deep_top_k=-1)
    with pytest.raises(UserError):
        plan_budget(tasks(3), 10, deep_trials=-1)
    with pytest.raises(UserError):
        plan_budget(tasks(3), 10, deep_top_k=0, deep_trials=-1)
    with pytest.raises(UserError):
        plan_budget([], 10)
