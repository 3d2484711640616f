"""Memory planning of operators in execution order: liveness, greedy best-fit buffer reuse, an
offset plan, the lower bound, other operator orders. Knows nothing about ONNX: a step is a name, an
op and the tensors it reads and writes (:mod:`lab01_onnx.tools.onnx_plan` adapts an ONNX graph; Lab 02
can feed it a Relax/TIR schedule). All sizes in bytes, steps are indices in execution order.

1. **Liveness.** A tensor produced by step ``i`` and last read by step ``j`` is live on the closed
   interval ``[i, j]``: while step ``j`` runs it still reads its inputs and writes its outputs, so no
   in-place reuse is assumed. Tensors kept alive (graph outputs) stay live to the last step; an
   output nobody reads is live on ``[i, i]``. Tensors without a size (inputs, weights) are not planned.
2. **Numbers.** *naive* = sum of all planned sizes (one buffer per tensor, no reuse);
   *planned* = total size of the buffers a greedy best-fit plan allocates; *offset plan* = the
   arena of a greedy-by-size offset plan (item 4); *lower bound* = the largest live set (max over
   steps of the bytes live at that step): no plan for this order can use less. Always
   ``lower_bound <= planned, offset plan <= naive``.
3. **Best-fit plan.** Walk the steps in order; at the start of step ``k`` release the buffers of
   tensors whose last use was before ``k``; give each tensor produced at ``k`` (largest first) the
   smallest free buffer that is big enough, else a new buffer of exactly its size. This is the
   free-list reuse idea behind ONNX Runtime's planner (``sequential_planner.cc``) and TVM's
   ``StorageRewrite`` pass, without their in-place, aliasing and alignment refinements.
4. **Offset plan.** One arena; tensors placed largest first at the lowest offset free of every
   placed tensor alive at the same time (TFLite's greedy-by-size planner).
5. **Operator order.** The same graph in another valid topological order has other lifetimes:
   breadth-first (Kahn's algorithm, FIFO), depth-first (Kahn, LIFO) and a greedy memory-aware order
   (at each step run the ready node whose outputs minus freed inputs is smallest; a myopic
   heuristic: optimal memory-aware orders need search, e.g. the dynamic programming of Ahn et al.,
   "Ordering Chaos", MLSys 2020) move the lower bound and the plan.
"""
from __future__ import annotations

import heapq
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

ORDERS = ("given", "bfs", "dfs", "greedy")


@dataclass(frozen=True)
class Step:
    """One operator in execution order: a label, an op name, the tensors it reads and writes."""

    name: str
    op: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Lifetime:
    """A planned tensor: ``nbytes`` bytes, live on steps ``first..last`` (inclusive)."""

    name: str
    nbytes: int
    first: int
    last: int


@dataclass
class MemoryPlan:
    """Result of :func:`plan_memory` (bytes).

    Attributes:
        naive_bytes: sum of all planned tensors (no reuse).
        planned_bytes: sum of the buffer sizes of the best-fit plan.
        offset_plan_bytes: arena size of the greedy-by-size offset plan (:func:`greedy_by_size_offsets`).
        lower_bound_bytes: largest live set over all steps.
        peak_step: first step where the live set is largest.
        live_bytes: bytes live at each step (len = number of steps).
        buffers: capacity of each buffer (bytes), in allocation order.
        assignment: tensor name -> buffer index.
        offsets: tensor name -> byte offset in the offset plan's arena.
        lives: the lifetimes planned.
    """

    naive_bytes: int
    planned_bytes: int
    offset_plan_bytes: int
    lower_bound_bytes: int
    peak_step: int
    live_bytes: np.ndarray
    buffers: list[int]
    assignment: dict[str, int]
    offsets: dict[str, int]
    lives: list[Lifetime] = field(repr=False)

    def summary(self) -> dict:
        """The plan as one flat table row: tensor and buffer counts, the four sizes (bytes), ``peak_step`` and the
        ratios ``planned_over_bound`` and ``naive_over_planned`` (NaN where the denominator is 0)."""
        return {"tensors": len(self.lives), "buffers": len(self.buffers), "naive_bytes": self.naive_bytes,
                "planned_bytes": self.planned_bytes, "offset_plan_bytes": self.offset_plan_bytes,
                "lower_bound_bytes": self.lower_bound_bytes,
                "peak_step": self.peak_step,
                "planned_over_bound": round(self.planned_bytes / self.lower_bound_bytes, 3) if self.lower_bound_bytes else float("nan"),
                "naive_over_planned": round(self.naive_bytes / self.planned_bytes, 2) if self.planned_bytes else float("nan")}


def lifetimes(steps: Sequence[Step], sizes: Mapping[str, int], *, keep_alive: Iterable[str] = ()) -> list[Lifetime]:
    """Lifetimes of every tensor produced by a step and present in ``sizes``.

    Args:
        steps: operators in execution order.
        sizes: bytes of each tensor to plan; tensors not in it (inputs, weights) are ignored.
        keep_alive: tensors live until the last step (graph outputs).

    Raises:
        ValueError: a tensor is produced twice or read before it is produced (not a valid order).
    """
    keep = set(keep_alive)
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, s in enumerate(steps):
        for t in s.inputs:
            if t in sizes:
                if t not in first:
                    raise ValueError(f"step {i} ({s.name}) reads {t!r} before it is produced")
                last[t] = i
        for t in s.outputs:
            if t in sizes:
                if t in first:
                    raise ValueError(f"tensor {t!r} is produced twice (steps {first[t]} and {i})")
                first[t] = last[t] = i
    end = len(steps) - 1
    return [Lifetime(t, int(sizes[t]), first[t], end if t in keep else last[t]) for t in first]


def live_bytes(lives: Sequence[Lifetime], n_steps: int) -> np.ndarray:
    """Bytes live at each step (int64 array of length ``n_steps``)."""
    delta = np.zeros(n_steps + 1, dtype=np.int64)
    for lt in lives:
        delta[lt.first] += lt.nbytes
        delta[lt.last + 1] -= lt.nbytes
    return np.cumsum(delta[:-1])


def best_fit_plan(lives: Sequence[Lifetime]) -> tuple[list[int], dict[str, int]]:
    """Greedy best-fit buffer reuse (see the module docstring, item 3).

    Returns:
        ``(buffer capacities in bytes, {tensor: buffer index})``; two tensors share a buffer only
        if their lifetimes do not overlap.
    """
    by_first: dict[int, list[Lifetime]] = defaultdict(list)
    for lt in lives:
        by_first[lt.first].append(lt)
    release: list[tuple[int, int]] = []  # heap of (last step, buffer)
    free: list[tuple[int, int]] = []  # sorted (capacity, buffer)
    caps: list[int] = []
    assignment: dict[str, int] = {}
    for k in sorted(by_first):
        while release and release[0][0] < k:
            _, b = heapq.heappop(release)
            free.append((caps[b], b))
        free.sort()
        for lt in sorted(by_first[k], key=lambda x: (-x.nbytes, x.name)):
            pos = next((i for i, (cap, _) in enumerate(free) if cap >= lt.nbytes), None)
            if pos is None:
                b = len(caps)
                caps.append(lt.nbytes)
            else:
                _, b = free.pop(pos)
            assignment[lt.name] = b
            heapq.heappush(release, (lt.last, b))
    return caps, assignment


def greedy_by_size_offsets(lives: Sequence[Lifetime]) -> tuple[int, dict[str, int]]:
    """Offset planning in one arena, "greedy by size" (Pisarchyk & Lee 2020, arXiv:2001.03288; TFLite's
    ``GreedyMemoryPlanner``): place tensors largest first, each at the lowest offset where it does
    not overlap, in address range, any already placed tensor whose lifetime overlaps its own.

    Returns:
        ``(arena size in bytes, {tensor: offset in bytes})``.
    """
    placed: list[tuple[int, int, Lifetime]] = []  # (offset, end, lifetime)
    offsets: dict[str, int] = {}
    arena = 0
    for lt in sorted(lives, key=lambda x: (-x.nbytes, x.first, x.name)):
        busy = sorted((o, e) for o, e, other in placed if other.first <= lt.last and lt.first <= other.last)
        offset = 0
        for o, e in busy:
            if offset + lt.nbytes <= o:
                break
            offset = max(offset, e)
        placed.append((offset, offset + lt.nbytes, lt))
        offsets[lt.name] = offset
        arena = max(arena, offset + lt.nbytes)
    return arena, offsets


def plan_memory(steps: Sequence[Step], sizes: Mapping[str, int], *, keep_alive: Iterable[str] = ()) -> MemoryPlan:
    """Liveness + best-fit plan + bounds for ``steps`` (see :class:`MemoryPlan`)."""
    lives = lifetimes(steps, sizes, keep_alive=keep_alive)
    live = live_bytes(lives, len(steps)) if steps else np.zeros(0, dtype=np.int64)
    caps, assignment = best_fit_plan(lives)
    arena, offsets = greedy_by_size_offsets(lives)
    return MemoryPlan(
        naive_bytes=int(sum(lt.nbytes for lt in lives)), planned_bytes=int(sum(caps)), offset_plan_bytes=int(arena),
        lower_bound_bytes=int(live.max()) if live.size else 0,
        peak_step=int(live.argmax()) if live.size else 0, live_bytes=live, buffers=caps,
        assignment=assignment, offsets=offsets, lives=lives)


def reorder(steps: Sequence[Step], strategy: str, sizes: Mapping[str, int] | None = None,
            keep_alive: Iterable[str] = ()) -> list[Step]:
    """Another valid topological order of ``steps``.

    Args:
        strategy: ``given`` (unchanged), ``bfs`` (Kahn FIFO), ``dfs`` (Kahn LIFO: finish a branch
            before starting the next) or ``greedy`` (memory-aware: run the ready step whose
            ``bytes(outputs) - bytes(inputs it reads last)`` is smallest; ties by given order).
        sizes: bytes per tensor (needed by ``greedy``).

    Raises:
        ValueError: unknown strategy, or the steps have a cycle.
    """
    if strategy not in ORDERS:
        raise ValueError(f"unknown order {strategy!r}; choose one of {ORDERS}")
    if strategy == "given":
        return list(steps)
    sizes = sizes or {}
    producer = {t: i for i, s in enumerate(steps) for t in s.outputs}
    deps = [{producer[t] for t in s.inputs if t in producer and producer[t] != i} for i, s in enumerate(steps)]
    users: dict[int, list[int]] = defaultdict(list)
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    indeg = [len(d) for d in deps]
    readers_left: dict[str, int] = defaultdict(int)
    for s in steps:
        for t in set(s.inputs):
            readers_left[t] += 1
    keep = set(keep_alive)
    ready = [i for i, n in enumerate(indeg) if n == 0]
    order: list[int] = []
    queue: deque[int] = deque(ready)
    while queue:
        if strategy == "bfs":
            i = queue.popleft()
        elif strategy == "dfs":
            i = queue.pop()
        else:
            def cost(j: int) -> tuple[int, int]:
                s = steps[j]
                out = sum(sizes.get(t, 0) for t in s.outputs)
                freed = sum(sizes.get(t, 0) for t in set(s.inputs) if readers_left[t] == 1 and t not in keep)
                return out - freed, j
            i = min(queue, key=cost)
            queue.remove(i)
        order.append(i)
        for t in set(steps[i].inputs):
            readers_left[t] -= 1
        for u in sorted(users[i], reverse=strategy == "dfs"):
            indeg[u] -= 1
            if indeg[u] == 0:
                queue.append(u)
    if len(order) != len(steps):
        raise ValueError("the steps have a dependency cycle")
    return [steps[i] for i in order]
