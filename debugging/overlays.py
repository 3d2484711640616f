"""The labs' per-node numbers as Model Explorer node-data overlays (JSON any Model Explorer loads).

Format (``model_explorer.node_data_builder``, ai-edge-model-explorer 0.1.x): a file is a
``ModelNodeData``, ``{graph_id: GraphNodeData}``; a ``GraphNodeData`` is ``{"results": {node_id:
{"value": number|string, "bgColor"?: css}}, "thresholds"?: [...], "gradient"?: [...]}``. Model
Explorer colours a node by its value (a threshold range, a gradient stop, or the result's own
``bgColor``) and lists the values in its side panel.

Node ids are what the ONNX adapter (``model_explorer_onnx.main.ONNXAdapter``) assigns: the ONNX
node's name, an unnamed node gets ``node``, ``node_1``, ... from onnx-ir's ``NameFixPass``; graph
inputs, initializers and outputs become ``[value] <tensor>`` nodes; the graph id is the ONNX graph's
name (``<main>`` when it has none). Rather than re-deriving those rules, :func:`onnx_node_ids` runs
the adapter itself and maps every node by its output tensor names (``__tensor_tag``), which the
adapter copies from the ONNX file. For MLIR (the built-in adapter, ``ai_edge_model_explorer_adapter``),
node ids are the op's index in its function and every result carries ``tensor_shape``.

Overlays:

* :func:`divergence_overlay`: per node of the candidate, max |candidate - reference| over its
  outputs that the reference also has (both models run in ONNX Runtime with every intermediate
  exposed and graph optimizations off, as Lab 01's divergence finder does; the same
  :func:`common.gates.compare` rule); green within ``atol``, red beyond, the first diverging node
  in dark red.
* :func:`graph_diff_overlays`: nodes removed / added / changed / kept between two stages, matched
  by output tensor name (graph passes keep the names of the tensors they do not delete).
* :func:`memory_overlays`: per node, bytes of the tensors it writes, and bytes live while it runs
  (Lab 01's memory planner: liveness over the given order).
* :func:`mlir_bytes_overlay`: per MLIR op, bytes of its results (from the result types).

:func:`rank_first` names the node an overlay ranks first (the node the viewer opens on: :class:`Focus`).

Values that JSON cannot hold (inf: a shape mismatch or a NaN on one side) are written as
:data:`NOT_FINITE` (the largest double) so any JSON parser reads the file.
"""
from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

from common.errors import UserError
from common.onnx_graph import GraphIndex, node_reads
from common.results import atomic_write

NOT_FINITE = sys.float_info.max
GREEN, RED, DARK_RED, BLUE, GREY = "#a5d6a7", "#ef9a9a", "#c62828", "#90caf9", "#e0e0e0"
DIFF_COLORS = {"removed": RED, "added": "#81c784", "changed": "#ffcc80", "kept": GREY}
#: the graph diff's status of a node that both stages hold unchanged: the one status :func:`rank_first` passes over
UNCHANGED = "kept"
#: the bytes overlays' colour scale (ONNX --memory, MLIR): light blue at the minimum to dark blue, white text, at the
#: maximum
BYTES_GRADIENT = ({"stop": 0, "bgColor": "#e3f2fd"}, {"stop": 1, "bgColor": "#1565c0", "textColor": "#ffffff"})


# ------------------------------------------------------------------------------------------------
# node ids


@dataclass
class NodeIds:
    """Where Model Explorer's ONNX adapter puts each node: ``graph`` (main graph id) and
    ``by_tensor`` ({output tensor name: node id}), ``node_ids`` (all ids, in adapter order), ``labels``
    ({node id: the label the page draws on its box: the op type, ``Input``, ...})."""

    graph: str
    by_tensor: dict[str, str]
    node_ids: list[str]
    labels: dict[str, str] = field(default_factory=dict)

    def node_id(self, node: onnx.NodeProto) -> str | None:
        """The adapter's id for an ONNX node (by its first named output), or None."""
        return next((self.by_tensor[o] for o in node.output if o in self.by_tensor), None)


def _adapter_graphs(path: str | os.PathLike) -> list:
    from model_explorer_onnx.main import ONNXAdapter

    return ONNXAdapter().convert(str(path), {"const_element_count_limit": 0})["graphs"]


def onnx_node_ids(path: str | os.PathLike) -> NodeIds:
    """Run Model Explorer's ONNX adapter on ``path`` and map output tensor names to node ids (main graph)."""
    graph = _adapter_graphs(path)[0]
    by_tensor: dict[str, str] = {}
    for node in graph.nodes:
        if node.label in ("Input", "Output", "Initializer", "InitializedInput"):
            continue
        for meta in node.outputsMetadata:
            for attr in meta.attrs:
                if attr.key == "__tensor_tag" and attr.value not in ("", "None"):
                    by_tensor.setdefault(attr.value, node.id)
    return NodeIds(graph=graph.id, by_tensor=by_tensor, node_ids=[n.id for n in graph.nodes],
                   labels={n.id: n.label for n in graph.nodes})


def _number(v: float) -> float:
    return v if math.isfinite(v) else NOT_FINITE


def graph_node_data(results: Mapping[str, dict], *, thresholds: Sequence[dict] = (), gradient: Sequence[dict] = ()
                    ) -> dict:
    """One ``GraphNodeData`` dict: ``results`` ({node id: {"value", "bgColor"?}}) plus colouring rules."""
    out: dict = {"results": {k: dict(v) for k, v in results.items()}}
    if thresholds:
        out["thresholds"] = list(thresholds)
    if gradient:
        out["gradient"] = list(gradient)
    return out


def write_overlay(path: str | os.PathLike, graph_id: str, data: dict) -> Path:
    """Write ``{graph_id: data}`` (a ``ModelNodeData``) atomically as JSON; returns the path.

    The file parses with ``model_explorer.node_data_builder`` dataclasses and with plain JSON.

    Raises:
        ValueError: ``data`` holds a NaN or an infinity, which JSON cannot (the builders here pass every
            value through ``_number``: a non-finite one becomes :data:`NOT_FINITE`).
        CannotWrite: ``path`` cannot be written (:func:`common.results.atomic_write`).
    """
    text = json.dumps({graph_id: data}, indent=1, allow_nan=False)
    return atomic_write(path, text)


# ------------------------------------------------------------------------------------------------
# divergence


def _lab01_divergence():
    from lab01_onnx import divergence

    return divergence


def tensor_max_abs(a: np.ndarray, b: np.ndarray) -> tuple[float, bool]:
    """``(max |b - a|, nan_mismatch)`` by :func:`common.gates.compare`'s rule (NaN == NaN at the same
    place); inf on a shape mismatch or a NaN on one side only (what the divergence finder reports)."""
    from common.gates import compare

    if a.shape != b.shape:
        return float("inf"), False
    if a.dtype.kind == "f" and b.dtype.kind == "f" and bool((np.isnan(a) != np.isnan(b)).any()):
        return float("inf"), True
    row = compare({"t": a}, {"t": b}, atol=0.0, check_dtype=False).rows[0]
    return float(row.get("max_abs", 0.0)), False


def per_node_max_abs(model_a: onnx.ModelProto, model_b: onnx.ModelProto, feeds: Mapping[str, np.ndarray]
                     ) -> list[dict]:
    """Run both models with every intermediate exposed; one row per node of ``model_b`` that has an
    output also in ``model_a``: ``{"index", "node", "op_type", "output", "max_abs"}`` (topological order).

    Raises:
        UserError: the two graphs share no tensor name (nothing to compare).
    """
    from common.onnx_utils import ort_run, ort_session

    div = _lab01_divergence()
    if not shared_tensors(model_a, model_b):
        raise UserError("the two graphs have no tensor name in common: nothing to compare "
                        "(give two stages of the same model)")
    va = ort_run(ort_session(div.expose_intermediates(model_a)), feeds)
    vb = ort_run(ort_session(div.expose_intermediates(model_b)), feeds)
    rows = []
    for i, node in enumerate(model_b.graph.node):
        worst, where = None, None
        for name in node.output:
            if name in va and name in vb:
                d, _ = tensor_max_abs(va[name], vb[name])
                if worst is None or d > worst:
                    worst, where = d, name
        if worst is not None:
            rows.append({"index": i, "node": node.name, "op_type": node.op_type, "output": where, "max_abs": worst})
    return rows


def shared_tensors(model_a: onnx.ModelProto, model_b: onnx.ModelProto) -> set[str]:
    """Names of the values a node of ``model_a`` and a node of ``model_b`` both write (main graphs):
    what two stages of one model can be compared on."""
    return GraphIndex(model_a.graph).producer.keys() & GraphIndex(model_b.graph).producer.keys()


def divergence_overlay(rows: Sequence[dict], ids: NodeIds, model_b: onnx.ModelProto, atol: float) -> dict:
    """``GraphNodeData`` for the candidate: value = max |diff| of the node (rows of :func:`per_node_max_abs`).

    Nodes within ``atol`` are green, beyond it red, the first beyond it (the divergence finder's
    node) dark red.
    """
    results: dict[str, dict] = {}
    first = True
    nodes = list(model_b.graph.node)
    for r in rows:
        nid = ids.node_id(nodes[r["index"]])
        if nid is None:
            continue
        entry = {"value": _number(r["max_abs"])}
        if r["max_abs"] > atol and first:
            entry["bgColor"], first = DARK_RED, False
        results[nid] = entry
    return graph_node_data(results, thresholds=[{"value": atol, "bgColor": GREEN},
                                                {"value": NOT_FINITE, "bgColor": RED}])


# ------------------------------------------------------------------------------------------------
# graph diff


def _signature(node: onnx.NodeProto) -> tuple:
    """What makes two nodes the same computation: op, inputs and attributes (a ``Constant``'s value, a ``perm``,
    an ``axis``, a subgraph: each serialized, sorted by name)."""
    attrs = tuple(sorted((a.name, a.SerializeToString(deterministic=True)) for a in node.attribute))
    return (node.domain, node.op_type, tuple(node.input), attrs)


def _changed_initializers(graph_a: onnx.GraphProto, graph_b: onnx.GraphProto) -> set[str]:
    """Names of the initializers both graphs hold with other values (dtype, shape or contents)."""
    from onnx import numpy_helper

    b = {t.name: t for t in graph_b.initializer}
    changed = set()
    for t in graph_a.initializer:
        if t.name in b:
            x, y = numpy_helper.to_array(t), numpy_helper.to_array(b[t.name])
            if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
                changed.add(t.name)
    return changed


def graph_diff(model_a: onnx.ModelProto, model_b: onnx.ModelProto) -> tuple[dict[int, str], dict[int, str]]:
    """Classify nodes of two stages, matched by output tensor name.

    Returns:
        ``(status_a, status_b)``: {node index: status}. In ``a``: ``removed`` (no output of it is
        produced in ``b``), ``changed`` (produced by a node with another op, other inputs or other
        attributes, or reading an initializer whose values differ between the two) or ``kept``; in
        ``b``: ``added``, ``changed`` or ``kept``.

    Raises:
        UserError: no output tensor name is shared (two unrelated graphs).
    """
    idx_a, idx_b = GraphIndex(model_a.graph), GraphIndex(model_b.graph)
    if not idx_a.producer.keys() & idx_b.producer.keys():
        raise UserError("the two graphs have no tensor name in common: nothing to diff "
                        "(give two stages of the same model)")

    new_values = _changed_initializers(model_a.graph, model_b.graph)

    def classify(nodes, other: GraphIndex, missing):
        status = {}
        for i, n in enumerate(nodes):
            match = [other.nodes[other.producer[o]] for o in n.output if o in other.producer]
            if not match:
                status[i] = missing
            else:
                same = all(_signature(m) == _signature(n) for m in match) and not new_values & set(node_reads(n))
                status[i] = "kept" if same else "changed"
        return status

    return classify(idx_a.nodes, idx_b, "removed"), classify(idx_b.nodes, idx_a, "added")


def graph_diff_overlays(model_a: onnx.ModelProto, ids_a: NodeIds, model_b: onnx.ModelProto, ids_b: NodeIds
                        ) -> tuple[dict, dict, dict]:
    """Overlays for both stages (string values ``removed``/``added``/``changed``/``kept``, coloured)
    and the counts ``{"removed", "added", "changed", "kept"}``."""
    status_a, status_b = graph_diff(model_a, model_b)
    counts = {k: 0 for k in DIFF_COLORS}
    over = []
    for model, ids, status in ((model_a, ids_a, status_a), (model_b, ids_b, status_b)):
        results = {}
        for i, node in enumerate(model.graph.node):
            nid = ids.node_id(node)
            if nid is not None:
                results[nid] = {"value": status[i], "bgColor": DIFF_COLORS[status[i]]}
        over.append(graph_node_data(results))
    for s in list(status_a.values()) + [s for s in status_b.values() if s == "added"]:
        counts[s] += 1
    return over[0], over[1], counts


# ------------------------------------------------------------------------------------------------
# memory


def memory_overlays(model: onnx.ModelProto, ids: NodeIds, dims: Mapping[str, int] | None = None
                    ) -> tuple[dict, dict, dict]:
    """Lab 01's memory planner on ``model`` (given order): two overlays and the plan's summary.

    Returns:
        ``(bytes_written, bytes_live, summary)``: per node, the bytes of the intermediate tensors
        it writes, and the bytes live while it runs (its step of ``MemoryPlan.live_bytes``);
        ``summary`` is ``MemoryPlan.summary()``.

    Raises:
        UserError: dynamic axes without sizes (pass ``dims``) or shapes that cannot be inferred.
    """
    from lab01_onnx.tools.onnx_plan import plan_onnx

    report = plan_onnx(model, dims or {}, orders=("given",))
    plan, steps = report.plans["given"], report.steps["given"]
    sizes = {lt.name: lt.nbytes for lt in plan.lives}
    written, live = {}, {}
    idx = GraphIndex(model.graph)
    for k, st in enumerate(steps):
        node = next((idx.nodes[idx.producer[o]] for o in st.outputs if o in idx.producer), None)
        nid = ids.node_id(node) if node is not None else None
        if nid is None:
            continue
        written[nid] = {"value": int(sum(sizes.get(o, 0) for o in st.outputs))}
        live[nid] = {"value": int(plan.live_bytes[k])}
    return (graph_node_data(written, gradient=BYTES_GRADIENT), graph_node_data(live, gradient=BYTES_GRADIENT),
            plan.summary())


# ------------------------------------------------------------------------------------------------
# MLIR


_DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "i1": 1,
                "index": 8, "ui8": 1, "si8": 1}


def mlir_type_bytes(text: str) -> int:
    """Bytes of a ranked tensor type as Model Explorer prints it (``tensor<64x256xf32>`` -> 65536); 0 if
    dynamic, unranked or not a tensor."""
    if not text.startswith("tensor<") or "?" in text or "*" in text:
        return 0
    parts = text[len("tensor<"):].rstrip(">").split(",")[0].split("x")
    try:
        count = math.prod(int(p) for p in parts[:-1])
    except ValueError:
        return 0
    return count * _DTYPE_BYTES.get(parts[-1].strip(), 0)


def mlir_graphs(path: str | os.PathLike) -> list[dict]:
    """Model Explorer's built-in MLIR adapter on ``path``: the graphs (dicts, one per function; ``[]``
    for a module without one).

    Raises:
        UserError: the adapter cannot read the file; its first diagnostic with its location as
            ``FILE:LINE:COL`` (``m.mlir:6:31: ... custom op 'tosa.transpose' expected 'perms'``).
    """
    # the adapter's TensorFlow runtime logs "oneDNN custom operations are on" (and absl's "All log messages before
    # absl::InitializeLog()") on its first call: two lines before the one error line. It parses, it computes nothing.
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import ai_edge_model_explorer_adapter as adapter

    try:
        text = adapter.ConvertMlirToJson(adapter.VisualizeConfig(), str(path))
    except RuntimeError as exc:
        raise UserError(mlir_diagnostic(path, str(exc), "Model Explorer's MLIR adapter cannot read it")) from exc
    return [g for coll in json.loads(text) for g in coll["subgraphs"]]


def mlir_diagnostic(path: str | os.PathLike, message: str, what: str) -> str:
    """One line from an MLIR diagnostic (the adapter's ``UNKNOWN: -:6:31: error: msg`` or the bindings'
    ``error: "-":6:31: msg``): ``FILE:6:31: <what>: msg``, or ``FILE: <what>: <first line>`` without a location."""
    import re

    m = re.search(r'(?:^|\s)"?-"?:(\d+):(\d+):\s*(?:error:\s*)?(.*)', message)
    if m:
        return f"{path}:{m.group(1)}:{m.group(2)}: {what}: {m.group(3).strip()}"
    first = next((ln.strip() for ln in message.splitlines() if ln.strip()), "no message")
    return f"{path}: {what}: {first}"


def onnx_op_labels(path: str | os.PathLike) -> list[str]:
    """Labels (op types) of the op nodes of the main graph as Model Explorer's ONNX adapter shows them,
    in the adapter's order; the ``[value]`` nodes (graph inputs, initializers, outputs) left out."""
    return [n.label for n in _adapter_graphs(path)[0].nodes if not n.id.startswith("[value] ")]


def mlir_op_labels(graph: dict) -> list[str]:
    """Labels (op names, ``tosa.conv2d``) of the ops of one MLIR graph (adapter dict of :func:`mlir_graphs`),
    in order; the ``Inputs`` / ``Outputs`` nodes left out."""
    return [n["label"] for n in graph["nodes"] if n.get("namespace") not in ("Inputs", "Outputs")]


def mlir_bytes_overlay(graph: dict) -> dict:
    """Per op of one MLIR graph (adapter dict): bytes of its results (``tensor_shape`` metadata)."""
    results = {}
    for node in graph["nodes"]:
        if node.get("namespace") == "Inputs":
            continue
        total = sum(mlir_type_bytes(a["value"]) for m in node.get("outputsMetadata", [])
                    for a in m["attrs"] if a["key"] == "tensor_shape")
        results[node["id"]] = {"value": total}
    return graph_node_data(results, gradient=BYTES_GRADIENT)


# ------------------------------------------------------------------------------------------------
# the node an overlay ranks first


@dataclass(frozen=True)
class Focus:
    """The node an overlay ranks first (:func:`rank_first`): ``node`` (a node id, None when the overlay ranks
    none) in the graph ``graph`` (the node data's graph id, ``""`` for a bare ``GraphNodeData``), its ``value``
    there (a number in the overlay's units, or a string), ``why``: what the rule found, or why no node, and
    ``label``: the label on the node's box (``Concat``, ``tosa.conv2d``), ``""`` when not known."""

    graph: str
    node: str | None
    value: float | str | None
    why: str
    label: str = ""

    def line(self, model: str) -> str:
        """One line for the CLI: which node of ``model`` (a file name) the page opens on, and why."""
        if self.node is None:
            return f"no node selected in {model}: {self.why}; the page opens on the whole graph"
        label = f" ({self.label})" if self.label else ""
        return f"{self.node}{label} in {self.graph or 'the first graph'} of {model}: {self.why}"


def _numeric(value) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)
    return float(value) if ok else None


def rank_first(data: Mapping, name: str = "the overlay") -> Focus:
    """The node a debugging user wants to see first in Model Explorer node data ``data`` (a ``ModelNodeData``,
    ``{graph id: GraphNodeData}``, or a bare ``GraphNodeData``; ``model_explorer/node_data_builder.py``),
    named ``name`` in :attr:`Focus.why`. Nodes are taken in the file's order (the viewer writes them in the
    graph's topological order), from the first graph that has values:

    * numbers and ``thresholds`` (the divergence overlay): the **first** node whose value is above the first
      threshold (the upper bound of the first colour band, Model Explorer's ``ThresholdItem.value``: the
      divergence overlay's ``atol``, its green band) -- the divergence finder's node, drawn dark red. None
      above it: no node (nothing diverges; the line gives the largest value).
    * other numbers (``gradient``: bytes written, bytes live): the **largest** value, the first on ties.
    * strings (the graph diff): the first node whose value is not :data:`UNCHANGED` (``kept``): the first
      ``removed`` / ``added`` / ``changed`` node. All kept: no node.
    * no value at all: no node.

    Numbers win over strings in a graph that holds both; a NaN value is skipped, inf (:data:`NOT_FINITE`)
    ranks as the largest. Never raises on a well-formed node-data dict (``viewer.check_overlay_file``).
    """
    graphs = {"": data} if isinstance(data.get("results"), dict) else data
    for graph, gd in graphs.items():
        results = gd.get("results") if isinstance(gd, dict) else None
        if not isinstance(results, dict):
            continue
        values = {k: v.get("value") for k, v in results.items() if isinstance(v, dict)}
        numbers = {k: x for k, v in values.items() if (x := _numeric(v)) is not None}
        texts = {k: v for k, v in values.items() if isinstance(v, str)}
        thresholds = gd.get("thresholds")
        first = thresholds[0] if isinstance(thresholds, list) and thresholds and isinstance(thresholds[0], dict) else {}
        tol = _numeric(first.get("value"))
        if numbers and tol is not None:
            node = next((k for k, v in numbers.items() if v > tol), None)
            if node is None:
                largest = max(numbers.values())
                return Focus(graph, None, None, f"no node beyond {tol:g} in {name} (largest {largest:.4g})")
            return Focus(graph, node, numbers[node], f"the first node beyond {tol:g} in {name} ({numbers[node]:.4g})")
        if numbers:
            node = max(numbers, key=numbers.__getitem__)
            return Focus(graph, node, numbers[node], f"the largest value in {name} ({numbers[node]:.6g})")
        if texts:
            node = next((k for k, v in texts.items() if v != UNCHANGED), None)
            if node is None:
                return Focus(graph, None, None, f"every node of {name} is {UNCHANGED!r}")
            return Focus(graph, node, texts[node], f"the first node not {UNCHANGED!r} in {name} ({texts[node]})")
    return Focus("", None, None, f"{name} has no values")

