"""Memory planning for an ONNX graph: liveness, greedy best-fit buffer reuse, bounds, orders.

Run::

    python -m lab01_onnx.tools.memplan                                  # LLaMA-tiny, ResNet-50, BERT-base
    python -m lab01_onnx.tools.memplan MODEL.onnx --dims batch=1,sequence=128

What it computes (all sizes in bytes, steps are node indices in execution order):

1. **Static shapes.** Every dynamic input axis gets a size from ``--dims`` (by its ``dim_param``
   name, e.g. ``sequence=128``, or by ``input:axis``, e.g. ``input_ids:1=128``); ONNX shape
   inference (with data propagation, so ``Shape -> Gather -> Concat -> Reshape`` chains resolve)
   then gives every intermediate tensor a static shape; ONNX Runtime's symbolic shape inference is
   the fallback for what ONNX's leaves unknown.
2. **Liveness.** A tensor produced by step ``i`` and last read by step ``j`` is live on the closed
   interval ``[i, j]``: while step ``j`` runs it still reads its inputs and writes its outputs, so no
   in-place reuse is assumed. Graph outputs stay live to the last step; an output nobody reads is
   live on ``[i, i]``. Graph inputs and initializers are owned by the caller / the weights and are
   not planned. Values a subgraph (If/Loop/Scan body) reads from the outer scope count as read by
   the node that owns the subgraph.
3. **Numbers.** *naive* = sum of all intermediate sizes (one buffer per tensor, no reuse);
   *planned* = total size of the buffers a greedy best-fit plan allocates; *offset plan* = the
   arena of a greedy-by-size offset plan (item 5); *lower bound* = the largest live set (max over
   steps of the bytes live at that step): no plan for this order can use less. Always
   ``lower_bound <= planned, offset plan <= naive``.
4. **Best-fit plan.** Walk the steps in order; at the start of step ``k`` release the buffers of
   tensors whose last use was before ``k``; give each tensor produced at ``k`` (largest first) the
   smallest free buffer that is big enough, else a new buffer of exactly its size. This is the
   free-list reuse idea behind ONNX Runtime's planner (``sequential_planner.cc``) and TVM's
   ``StorageRewrite`` pass, without their in-place, aliasing and alignment refinements.
5. **Offset plan.** One arena; tensors placed largest first at the lowest offset free of every
   placed tensor alive at the same time (TFLite's greedy-by-size planner).
6. **Operator order.** The same graph in another valid topological order has other lifetimes:
   breadth-first (Kahn's algorithm, FIFO), depth-first (Kahn, LIFO) and a greedy memory-aware order
   (at each step run the ready node whose outputs minus freed inputs is smallest; a myopic
   heuristic: optimal memory-aware orders need search, e.g. the dynamic programming of Ahn et al.,
   "Ordering Chaos", MLSys 2020) move the lower bound and the plan.

The core (:class:`Step`, :func:`lifetimes`, :func:`best_fit_plan`, :func:`greedy_by_size_offsets`,
:func:`plan_memory`, :func:`reorder`) knows nothing about ONNX: Lab 02 can feed it a Relax/TIR schedule.
:func:`onnx_steps` and :func:`static_tensor_sizes` adapt an ONNX graph to it.
"""
from __future__ import annotations

import heapq
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import onnx

from common.cli import parser, step
from common.errors import UserError, run_cli

from common.onnx_dims import DIMS_OPTION, add_dims_argument, fix_dims
from common.onnx_graph import node_reads, static_shape, tensor_nbytes
from common.onnx_skeleton import infer_shapes
from common.onnx_utils import export_torchscript, load_model, op_key, print_ir

LAB = "lab01"
ORDERS = ("given", "bfs", "dfs", "greedy")


# ------------------------------------------------------------------------------------------------
# Generic core: steps, lifetimes, plan


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
    """Greedy best-fit buffer reuse (see the module docstring, item 4).

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


# ------------------------------------------------------------------------------------------------
# ONNX adapter


def onnx_steps(model: onnx.ModelProto) -> list[Step]:
    """The main graph's nodes as :class:`Step` s, in file order (ONNX requires topological order)."""
    steps = []
    for i, n in enumerate(model.graph.node):
        ins = tuple(node_reads(n))
        steps.append(Step(n.name or f"{n.op_type}_{i}", op_key(n), ins, tuple(t for t in n.output if t)))
    return steps


def _static_shape(vi: onnx.ValueInfoProto) -> tuple[int, ...] | None:
    """:func:`common.onnx_graph.static_shape`, when the element type is known too."""
    return static_shape(vi) if vi.type.tensor_type.elem_type else None


def infer_static_shapes(model: onnx.ModelProto, dims: Mapping[str, int]) -> onnx.ModelProto:
    """A copy of ``model`` with static input dims (:func:`common.onnx_dims.fix_dims`) and the
    ``value_info`` shape inference gives every intermediate tensor from them: ONNX's, with data
    propagation, on the weight-less skeleton (:func:`common.onnx_skeleton.infer_shapes`), then ORT's
    symbolic shape inference where ONNX's leaves a tensor without a static shape.

    Raises:
        UserError: a dynamic input axis without a size in ``dims``, an input declaring no shape, or a
            model ONNX shape inference rejects.
    """
    m = fix_dims(model, dims)
    del m.graph.value_info[:]  # the file's intermediate types: derived again from the fixed inputs
    try:
        inferred = infer_shapes(m, data_prop=True)
    except Exception as exc:  # inconsistent model
        raise UserError(f"ONNX shape inference failed: {str(exc).splitlines()[0]}") from None
    produced = [t for n in m.graph.node for t in n.output if t]
    vis = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    if any(t not in vis or _static_shape(vis[t]) is None for t in produced):
        try:
            from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
            m2 = SymbolicShapeInference.infer_shapes(inferred, auto_merge=True)
            if m2 is not None:
                inferred = m2
        except Exception:  # the ORT helper is best effort; missing shapes are reported below
            pass
    m.graph.value_info.extend(inferred.graph.value_info)
    for o, io in zip(m.graph.output, inferred.graph.output):
        o.CopyFrom(io)
    return m


def static_tensor_sizes(model: onnx.ModelProto) -> tuple[dict[str, int], dict[str, tuple]]:
    """Bytes and ``(shape, dtype)`` of every node output of a shape-inferred model.

    Raises:
        UserError: some node outputs have no static shape or element type (names the first ones).
    """
    vis = {v.name: v for v in list(model.graph.value_info) + list(model.graph.output)}
    sizes, info, missing = {}, {}, []
    for n in model.graph.node:
        for t in n.output:
            if not t:
                continue
            shape = _static_shape(vis[t]) if t in vis else None
            if shape is None:
                missing.append(f"{t!r} ({n.op_type})")
                continue
            elem = vis[t].type.tensor_type.elem_type
            sizes[t] = tensor_nbytes(elem, shape)
            info[t] = (shape, onnx.helper.tensor_dtype_to_np_dtype(elem).name)
    if missing:
        raise UserError(f"{len(missing)} intermediate tensor(s) have no static shape after shape inference "
                        f"(first: {', '.join(missing[:3])}); give {DIMS_OPTION} for every dynamic axis, or simplify "
                        f"the model first (python -m onnxsim IN OUT)")
    return sizes, info


@dataclass
class OnnxMemoryReport:
    """Memory plans of one ONNX graph under several operator orders."""

    plans: dict[str, MemoryPlan]
    steps: dict[str, list[Step]]
    info: dict[str, tuple]
    outputs: list[str]


def plan_onnx(model: onnx.ModelProto, dims: Mapping[str, int] | None = None,
              orders: Sequence[str] = ORDERS) -> OnnxMemoryReport:
    """Static shapes -> liveness -> best-fit plan for each order in ``orders``.

    Raises:
        UserError: dynamic axes without sizes, shapes that cannot be inferred.
    """
    m = infer_static_shapes(model, dims or {})
    sizes, info = static_tensor_sizes(m)
    outputs = [o.name for o in m.graph.output]
    base = onnx_steps(m)
    plans, steps = {}, {}
    for order in orders:
        steps[order] = reorder(base, order, sizes, keep_alive=outputs)
        plans[order] = plan_memory(steps[order], sizes, keep_alive=outputs)
    return OnnxMemoryReport(plans=plans, steps=steps, info=info, outputs=outputs)


def tensor_rows(report: OnnxMemoryReport, order: str = "given") -> list[dict]:
    """One row per planned tensor: name, op, shape, dtype, bytes, first/last step, buffer (best fit), arena offset."""
    plan, steps = report.plans[order], report.steps[order]
    rows = []
    for lt in sorted(plan.lives, key=lambda x: x.first):
        shape, dtype = report.info[lt.name]
        rows.append({"tensor": lt.name, "op": steps[lt.first].op, "shape": "x".join(map(str, shape)) or "scalar",
                     "dtype": dtype, "bytes": lt.nbytes, "first_step": lt.first, "last_step": lt.last,
                     "buffer": plan.assignment[lt.name], "arena_offset": plan.offsets[lt.name]})
    return rows


# ------------------------------------------------------------------------------------------------
# CLI


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB"


def _report_model(label: str, model: onnx.ModelProto, dims: Mapping[str, int], verbose: int) -> tuple[list[dict], OnnxMemoryReport]:
    if verbose >= 2:
        print_ir(label, model)
    rep = plan_onnx(model, dims)
    rows = []
    for order, plan in rep.plans.items():
        rows.append({"model": label, "order": order, "nodes": len(rep.steps[order]), **plan.summary()})
    g = rep.plans["given"]
    step(2, "plan", f"{label}: {len(g.lives)} intermediate tensors over {len(rep.steps['given'])} steps: "
          f"naive {g.naive_bytes} B ({_mib(g.naive_bytes)}), planned {g.planned_bytes} B ({_mib(g.planned_bytes)}, "
          f"{len(g.buffers)} buffers), offset plan {g.offset_plan_bytes} B, lower bound {g.lower_bound_bytes} B ({_mib(g.lower_bound_bytes)}) at step "
          f"{g.peak_step} ({rep.steps['given'][g.peak_step].op})")
    for order in ORDERS[1:]:
        p = rep.plans[order]
        print(f"  order {order:6s}: lower bound {p.lower_bound_bytes} B ({p.lower_bound_bytes / max(g.lower_bound_bytes, 1):.2f}x given), "
              f"planned {p.planned_bytes} B ({p.planned_bytes / max(g.planned_bytes, 1):.2f}x given)")
    if verbose:
        for r in sorted(tensor_rows(rep), key=lambda r: -r["bytes"])[:15]:
            print(f"    {r['bytes']:>12} B  {r['shape']:>18} {r['dtype']:8} steps {r['first_step']}..{r['last_step']} "
                  f"buffer {r['buffer']:3d}  {r['op']} -> {r['tensor']}")
    # Invariants of any plan; a failure here is a bug in the planner, not in the model.
    for p in rep.plans.values():
        assert p.lower_bound_bytes <= min(p.planned_bytes, p.offset_plan_bytes) <= p.naive_bytes, p.summary()
    return rows, rep


def _plot(reports: dict[str, OnnxMemoryReport], name: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from common.results import save_plot

    fig, axes = plt.subplots(1, len(reports), figsize=(5.5 * len(reports), 4.6), squeeze=False)
    for ax, (label, rep) in zip(axes[0], reports.items()):
        for order, style in [("given", "-"), ("bfs", ":"), ("greedy", "--")]:
            p = rep.plans[order]
            ax.plot(np.arange(len(p.live_bytes)), p.live_bytes / 2**20, style, lw=1, label=f"live set, {order} order")
        g = rep.plans["given"]
        ax.axhline(g.planned_bytes / 2**20, color="k", lw=1, label="best-fit buffer plan (given order)")
        ax.axhline(g.offset_plan_bytes / 2**20, color="tab:red", lw=1, ls="-.", label="greedy-by-size offset plan")
        ax.set_title(f"{label}: naive {g.naive_bytes / 2**20:.0f} MiB")
        ax.set_xlabel("step (node index in the order)")
        ax.set_ylabel("MiB")
    # one legend under the plots, so it never hides a curve
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return save_plot(fig, LAB, name)


def _default_models() -> dict[str, tuple[onnx.ModelProto, dict]]:
    import tempfile

    from common.models import build_bert, build_llama_tiny, build_resnet50

    # LLaMA-tiny: the raw TorchScript export Lab 01's pipeline optimizes (exporter constant folding
    # off); ResNet-50 and BERT-base with the exporter's constant folding, as a deployed model is.
    specs = [("llama_tiny", lambda: build_llama_tiny(batch=2, seq=16), {"batch": 1, "sequence": 128}, False),
             ("resnet50", lambda: build_resnet50(batch=2), {"batch": 1}, True),
             ("bert_base", lambda: build_bert(batch=2, seq=16), {"batch": 1, "sequence": 128}, True)]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, build, dims, folding in specs:
            path = export_torchscript(build(), Path(tmp) / f"{label}.onnx", constant_folding=folding)
            out[label] = (load_model(path), dims)
            step(1, "export", f"{label} (TorchScript, exporter constant folding {'on' if folding else 'off'}): "
                 f"{len(out[label][0].graph.node)} nodes; planning at {dims}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = parser("python -m lab01_onnx.tools.memplan", __doc__)
    ap.add_argument("model", nargs="?", help="an .onnx file (default: export LLaMA-tiny, ResNet-50, BERT-base)")
    add_dims_argument(ap, help="sizes of the dynamic axes (sequence=128 or input_ids:1=128)")
    args = ap.parse_args(argv)
    dims = args.dims

    from common.results import write_table
    from common.timing import environment

    if args.model:
        model = load_model(args.model, dataflow=True)
        label = Path(args.model).stem
        models = {label: (model, dims)}
    else:
        models = _default_models()
    rows, reports = [], {}
    for label, (model, d) in models.items():
        r, rep = _report_model(label, model, d, args.verbose)
        rows += [{**x, "dims": " ".join(f"{k}={v}" for k, v in d.items())} for x in r]
        reports[label] = rep
        write_table(LAB, f"memplan_tensors_{label}", tensor_rows(rep),
                    title=f"Memory plan of {label}: every intermediate tensor (bytes, lifetime in steps, buffer)",
                    meta={"dims": d, "order": "given (file order)", "units": "bytes; steps are node indices"})
    name = "memplan" if not args.model else f"memplan_{Path(args.model).stem}"
    paths = write_table(LAB, name, rows, title="Memory plans: naive vs greedy best-fit vs lower bound, per operator order",
                        env=environment(threads=1),
                        meta={"units": "bytes", "plan": "best-fit buffer reuse in execution order, no in-place, no alignment",
                              "lower_bound": "largest live set for that order", "dims": {k: v[1] for k, v in models.items()}},
                        notes="naive = one buffer per tensor; planned = sum of buffer capacities of the best-fit plan; "
                              "offset_plan = arena of the greedy-by-size offset plan; "
                              "lower_bound = max over steps of bytes live at that step (a tensor is live from the step "
                              "that writes it through the last step that reads it).")
    png = _plot(reports, name)
    step(3, "tables", f"wrote {paths['md']} and {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
