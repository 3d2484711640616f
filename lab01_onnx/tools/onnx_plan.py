"""An ONNX graph as the steps and tensor sizes :mod:`lab01_onnx.tools.planning` plans (bytes).

1. **Static shapes.** Every dynamic input axis gets a size from ``dims`` (by its ``dim_param``
   name, e.g. ``sequence=128``, or by ``input:axis``, e.g. ``input_ids:1=128``); ONNX shape
   inference (with data propagation, so ``Shape -> Gather -> Concat -> Reshape`` chains resolve)
   then gives every intermediate tensor a static shape; ONNX Runtime's symbolic shape inference
   (:mod:`lab01_onnx.tools.ort_shapes`: ORT's contrib ops, FusedMatMul added) is the fallback for
   what ONNX's leaves unknown.
2. **Steps.** The main graph's nodes in file order (ONNX requires a topological order). Graph
   inputs and initializers are owned by the caller / the weights and are not planned; graph outputs
   stay live to the last step. Values a subgraph (If/Loop/Scan body) reads from the outer scope
   count as read by the node that owns the subgraph.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import onnx

from common.errors import UserError
from common.onnx_dims import DIMS_OPTION, fix_dims
from common.onnx_graph import node_reads, static_shape, tensor_nbytes
from common.onnx_skeleton import infer_shapes
from common.onnx_utils import op_key

from .ort_shapes import infer_shapes as ort_infer_shapes
from .planning import ORDERS, MemoryPlan, Step, plan_memory, reorder


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
            m2 = ort_infer_shapes(inferred)
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
                        f"(first: {', '.join(missing[:3])}): an op shape inference does not know (a custom domain), "
                        f"a shape computed from data, or a dynamic axis without {DIMS_OPTION}; size every axis, or "
                        "simplify the model first (python -m onnxsim IN OUT)")
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
