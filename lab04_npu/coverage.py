"""The NPU coverage report: every node's verdict, coverage in nodes and FLOPs, partitions and their boundaries.

For a static-shape model, :func:`coverage` creates a QNN session (HTP backend) with ORT's log at
severity 0, reads it (:mod:`lab04_npu.qnnlog`) and maps it onto the graph:

* **placement** of each node: ``QNN`` unless ORT lists it under ``Node(s) placed on
  [CPUExecutionProvider]``; a node QNN refused carries QNN's ``REASON`` line verbatim;
* **partition** of each QNN node: the QNN graph that adds it (``ComposeGraph``), else the one whose
  boundary output it writes; members of a fused node unit (``GeluFusion``, ``ReshapeGemmFusionGroup``)
  and nodes QNN does not log by name take the partition of a unit-mate or of a neighbour in the same
  partition. The number of partitions is the number of QNN graphs ORT composed: one ``EPContext``
  node each in a compiled model, even when one holds only nodes ORT inserted (the layout
  transformer's ``Transpose`` around a ``Conv``);
* **boundary tensors**: each partition's inputs and outputs as QNN binds them (``input i NAME``),
  with shape, bytes and what is on the other side (graph input/output, a CPU node, another
  partition). Every one of them is a copy between host memory and the NPU per inference (a tensor
  passed from one partition to the next is counted on both sides: NPU -> host and host -> NPU),
  and each extra partition is one more graph launch: what makes a "95 % covered" model slow.

Command line (any static-shape model; ``--dims`` fixes symbolic dims first)::

    python -m lab04_npu.coverage model.onnx [--dims batch=1,sequence=128] [--precision fp16]

prints the summary and every node QNN left on the CPU, and writes
``results/lab04/coverage_<stem>_{nodes,boundaries}.{md,csv,json}``.

The graph is named first (:func:`lab04_npu.graphfacts.name_nodes`) and given to QNN with ORT's
optimizations off (``DISABLE_ALL``), so the log's names are the file's names; run ORT's basic
level (constant folding) on the file before, as :mod:`lab04_npu.pipeline` does, because that is
what ORT does before partitioning in a deployment.

Task 4.2 (``lab04.coverage``; lab04_npu/TASKS.md): :func:`report` and :meth:`Coverage.summary`; the log
parser, the session, the partition and boundary helpers and the CLI are given.
"""
from __future__ import annotations

import collections
from dataclasses import dataclass, field

import onnx

from common.onnx_graph import GraphIndex, tensor_nbytes
from lab04_npu.graphfacts import name_nodes, node_flops, tensor_types
from lab04_npu.qnnlog import QnnLog, base_name, parse

EP = "QNNExecutionProvider"


@dataclass
class Coverage:
    """A model's coverage report.

    Attributes:
        model: the named graph the report refers to.
        nodes: one dict per node (index, name, op, placement, partition, validation, unit, reason, flops).
        boundaries: one dict per (partition, boundary tensor): partition, direction, tensor,
            shape, dtype, bytes, other_side.
        log: the parsed log, or None (rows made by hand, not from a session).
        session: the :class:`~lab04_npu.qnn.QnnSession` the log came from (run it to gate outputs).
    """

    model: onnx.ModelProto
    nodes: list[dict] = field(default_factory=list)
    boundaries: list[dict] = field(default_factory=list)
    log: QnnLog | None = None
    session: object = None

    def summary(self, label: str) -> dict:
        """One row of the ``coverage`` table for this report.

        Keys (in this order): ``model`` (``label``), ``nodes`` (rows of :attr:`nodes`), ``nodes_on_qnn``
        (rows placed ``QNN``), ``coverage_nodes_pct`` (``100 * nodes_on_qnn / nodes``, 2 decimals; 0 for
        no node), ``gflops`` (sum of the rows' ``flops`` / 1e9, 4 decimals), ``coverage_flops_pct``
        (``100 *`` FLOPs of QNN rows / all FLOPs, 3 decimals; 0 when there are none), ``partitions``
        (QNN graphs ORT composed: ``len(self.log.partitions)``, what a compiled model holds as
        ``EPContext`` nodes; a report made without a log, :attr:`log` None as for hand-made rows, counts the
        distinct non-None ``partition`` values of its QNN rows instead), ``boundary_tensors`` (rows of
        :attr:`boundaries`), ``boundary_mib`` (their ``bytes``, None counted 0, / 2**20, 3 decimals), ``cpu_ops`` (ops of the CPU rows with
        their counts, most frequent first, ties in graph order: ``"Erf x2, Mod x1"``; ``"-"`` when
        none) and ``first_reason`` (the first non-empty ``reason`` of a CPU row in graph order, or
        ``"-"``).
        """
        ### BEGIN SOLUTION lab04.coverage
        n = len(self.nodes)
        on = [r for r in self.nodes if r["placement"] == "QNN"]
        flops = sum(r["flops"] for r in self.nodes)
        cpu = collections.Counter(r["op"] for r in self.nodes if r["placement"] == "CPU")
        reasons = [r["reason"] for r in self.nodes if r["placement"] == "CPU" and r["reason"]]
        if self.log is not None:
            partitions = len(self.log.partitions)
        else:
            partitions = len({r["partition"] for r in on if r["partition"] is not None})
        return {
            "model": label, "nodes": n, "nodes_on_qnn": len(on),
            "coverage_nodes_pct": round(100 * len(on) / max(n, 1), 2),
            "gflops": round(flops / 1e9, 4),
            "coverage_flops_pct": round(100 * sum(r["flops"] for r in on) / max(flops, 1), 3),
            "partitions": partitions,
            "boundary_tensors": len(self.boundaries),
            "boundary_mib": round(sum(b["bytes"] or 0 for b in self.boundaries) / 2**20, 3),
            "cpu_ops": ", ".join(f"{k} x{v}" for k, v in cpu.most_common()) or "-",
            "first_reason": reasons[0] if reasons else "-",
        }
        ### END SOLUTION


def _resolve(name: str, names: set[str]) -> str | None:
    if name in names:
        return name
    b = base_name(name)
    return b if b in names else None


def _edges(model: onnx.ModelProto) -> tuple[dict[str, str], dict[str, list[str]]]:
    """``({tensor: name of the node writing it}, {tensor: names of the nodes reading it})`` over
    the main graph (:class:`common.onnx_graph.GraphIndex`: a node whose If/Loop body reads a
    tensor from the outer scope reads it too)."""
    index = GraphIndex(model.graph)
    names = [n.name for n in index.nodes]
    return ({t: names[p] for t, p in index.producer.items()},
            {t: [names[p] for p in ps] for t, ps in index.readers.items()})


def _partitions(model: onnx.ModelProto, log: QnnLog, on_qnn: set[str]) -> dict[str, int]:
    """``{node: partition}`` for QNN nodes: logged members, then the writers of each partition's boundary
    outputs, then unit-mates and neighbours (a fused unit such as ``GeluFusion`` is logged under a
    name of its own, so a graph that is one fused unit has no logged member)."""
    names = {n.name for n in model.graph.node}
    producer, readers = _edges(model)
    part: dict[str, int] = {}
    for k, p in enumerate(log.partitions):
        for raw in p.nodes:
            if (r := _resolve(raw, names)) in on_qnn:
                part.setdefault(r, k)
    for k, p in enumerate(log.partitions):
        for t in p.outputs:
            if producer.get(t) in on_qnn:
                part.setdefault(producer[t], k)
    mates: dict[str, set[str]] = collections.defaultdict(set)
    for raw, v in log.verdicts.items():
        if (r := _resolve(raw, names)) is not None:
            mates[r] |= {x for u in v.unit if (x := _resolve(u.node, names)) is not None}
    neighbours: dict[str, set[str]] = collections.defaultdict(set)
    for t, users in readers.items():
        if producer.get(t) in on_qnn:
            for user in users:
                if user in on_qnn:
                    neighbours[user].add(producer[t])
                    neighbours[producer[t]].add(user)
    changed = True
    while changed:
        changed = False
        for name in on_qnn - part.keys():
            for other in sorted(mates[name]) + sorted(neighbours[name]):
                if other in part:
                    part[name], changed = part[other], True
                    break
    return part


def _boundaries(model: onnx.ModelProto, log: QnnLog, place: dict[str, str], part: dict[str, int],
                types: dict) -> list[dict]:
    g = model.graph
    producer, consumers = _edges(model)
    graph_in, graph_out = {i.name for i in g.input}, {o.name for o in g.output}

    def side(node: str) -> str:
        return f"CPU {node}" if place.get(node) == "CPU" else f"QNN partition {part.get(node, '?')}"

    rows = []
    for k, p in enumerate(log.partitions):
        for direction, tensors in (("in", p.inputs), ("out", p.outputs)):
            for t in tensors:
                # a tensor ORT's layout pass renamed (relu_token_5: the transpose of relu) is not in the file:
                # its original gives the dtype, the bytes (a transpose keeps them) and the other side
                f = t if t in types or t in producer or t in consumers or t in graph_in | graph_out else base_name(t)
                shape, et = types.get(f, (None, 0))
                if direction == "in":
                    other = ["graph input"] if f in graph_in else [side(producer[f])] if f in producer else ["?"]
                else:
                    other = (["graph output"] if f in graph_out else []) + [
                        side(c) for c in consumers.get(f, []) if part.get(c) != k]
                rows.append({"partition": k, "direction": direction, "tensor": t,
                             "shape": "x".join(map(str, shape)) if shape else "?",
                             "dtype": onnx.helper.tensor_dtype_to_np_dtype(et).name if et else "?",
                             "bytes": tensor_nbytes(et, shape) if shape is not None and et else None, "other_side": "; ".join(dict.fromkeys(other)) or "-"})
    return rows


def report(model: onnx.ModelProto, log_text: str) -> Coverage:
    """Map a QNN session's verbose log onto ``model``: which node runs where, and why.

    Args:
        model: the graph the session was created from, with unique node names (what :func:`coverage`
            gives the session: :func:`lab04_npu.graphfacts.name_nodes`, optimizations off).
        log_text: ORT's log at severity 0 of that session's creation (:class:`lab04_npu.qnn.QnnSession`
            ``.log``), read with :func:`lab04_npu.qnnlog.parse`.

    Returns:
        A :class:`Coverage` with ``model``, ``log`` (the parsed log), and

        * ``nodes``: one dict per main-graph node, in graph order: ``index``, ``name``, ``op``;
          ``placement``: ``"CPU"`` when ORT lists the node under ``Node(s) placed on
          [CPUExecutionProvider]`` (a log name is the node of that name, else of its
          :func:`lab04_npu.qnnlog.base_name`, as the given ``_resolve`` does: ORT's layout pass adds
          ``_token_N``, yet a file may itself name a node ``erf_token_9``), and every node when ORT placed
          nothing on the QNN EP, ``"QNN"`` otherwise (a node the log never names included, such as a
          ``Constant``, which ORT turns into an initializer); ``partition``: the node's QNN partition
          (an index into ``log.partitions``, from the given ``_partitions``), None on the CPU; ``validation``:
          ``"PASSED"``/``"FAILED"`` (QNN's verdict on the node's unit) or ``"not logged"``; ``unit``:
          ``"<group> (<anchor op>)"`` such as ``"GeluFusion (Erf)"``, or ``"-"``; ``reason``: QNN's
          ``REASON`` line verbatim for a node it refused, ``"validated by QNN, left on the CPU by ORT's
          partitioning"`` for a CPU node QNN passed, ``""`` otherwise; ``flops``:
          :func:`lab04_npu.graphfacts.node_flops` with :func:`lab04_npu.graphfacts.tensor_types`.
        * ``boundaries``: the given ``_boundaries`` of the placements and partitions: one dict per
          (partition, boundary tensor) with ``partition``, ``direction`` (``in``/``out``), ``tensor``,
          ``shape``, ``dtype``, ``bytes`` and ``other_side`` (``graph input``, ``graph output``,
          ``CPU <node>``, ``QNN partition <k>``, joined by ``; ``); a tensor ORT's layout pass renamed
          (``relu_token_5``) has its original's shape, dtype, bytes and other side.

    Source of the log lines: onnxruntime/core/providers/qnn/qnn_execution_provider.cc and
    core/framework/session_state.cc (see :mod:`lab04_npu.qnnlog`).
    """
    ### BEGIN SOLUTION lab04.coverage
    log = parse(log_text)
    names = [n.name for n in model.graph.node]
    name_set = set(names)
    cpu = {r for _, raw in log.cpu_nodes if (r := _resolve(raw, name_set))}
    on_qnn = set(names) - cpu if log.placed.get(EP) else set()
    verdicts = {}
    for raw, v in log.verdicts.items():
        if (r := _resolve(raw, name_set)) is not None:
            verdicts[r] = v
    part = _partitions(model, log, on_qnn)
    types = tensor_types(model)
    cov = Coverage(model=model, log=log)
    place = {}
    for i, node in enumerate(model.graph.node):
        v = verdicts.get(node.name)
        placement = "QNN" if node.name in on_qnn else "CPU"
        place[node.name] = placement
        reason = v.reason if v and not v.passed else ""
        if placement == "CPU" and v and v.passed:
            reason = "validated by QNN, left on the CPU by ORT's partitioning"
        cov.nodes.append({"index": i, "name": node.name, "op": node.op_type, "placement": placement,
                          "partition": part.get(node.name), "validation": ("PASSED" if v.passed else "FAILED") if v
                          else "not logged", "unit": f"{v.group} ({v.unit_op})" if v else "-",
                          "reason": reason, "flops": node_flops(node, types)})
    cov.boundaries = _boundaries(model, log, place, part, types)
    return cov
    ### END SOLUTION


def coverage(model: onnx.ModelProto, **session_kw) -> Coverage:
    """Name ``model``'s nodes, create a QNN session with the verbose log and build its report.

    Args:
        model: a static-shape model.
        session_kw: passed to :func:`lab04_npu.qnn.qnn_session` (``precision``, ``soc_model``, ...).

    Raises:
        UserError: dynamic shapes, or QNN rejected the settings (see :func:`lab04_npu.qnn.qnn_session`).
    """
    from lab04_npu.qnn import qnn_session

    named = name_nodes(model)
    sess = qnn_session(named, level="DISABLE_ALL", verbose_log=True, **session_kw)
    cov = report(named, sess.log)
    cov.session = sess
    return cov


def main(argv=None) -> int:
    """``python -m lab04_npu.coverage MODEL [--dims ...]`` (see the module doc)."""
    import tempfile
    from pathlib import Path

    from common import cli
    from common.onnx_utils import load_model, ort_optimize, save_model
    from common.results import write_table
    from common.course.notimpl import naming_stubs
    from common.onnx_dims import add_dims_argument
    from lab04_npu.qnn import FIX_DIMS_OPTION, PRECISIONS, check_static, fix_dims

    p = cli.parser("python -m lab04_npu.coverage", __doc__)
    p.add_argument("model", help="an .onnx file")
    add_dims_argument(p, help="fix these symbolic dims first (qnn.fix_dims)", option=FIX_DIMS_OPTION,
                      axis_names=False)
    p.add_argument("--precision", choices=PRECISIONS, default="fp16", help="HTP float precision (default fp16)")
    args = p.parse_args(argv)
    model = load_model(args.model)
    with naming_stubs("coverage"):
        if args.dims:
            model = fix_dims(model, args.dims)
        check_static(model)
        with tempfile.TemporaryDirectory(prefix="lab04cov.") as tmp:
            src = save_model(model, Path(tmp) / "static.onnx")
            cov = coverage(ort_optimize(src, Path(tmp) / "folded.onnx", "BASIC"), precision=args.precision)
        s = cov.summary(Path(args.model).stem)
    stem = Path(args.model).stem
    cli.step(1, "coverage", f"{stem}: {s['nodes_on_qnn']}/{s['nodes']} nodes on QNN ({s['coverage_nodes_pct']} %), "
             f"{s['coverage_flops_pct']} % of FLOPs, {s['partitions']} partition(s), {s['boundary_tensors']} "
             f"boundary tensors ({s['boundary_mib']} MiB)")
    for r in cov.nodes:
        if r["placement"] == "CPU":
            print(f"  CPU  {r['op']:<18} {r['name']}: {r['reason'] or '-'}")
    write_table("lab04", f"coverage_{stem}_nodes", cov.nodes, title=f"QNN verdicts: {stem}", meta=s)
    write_table("lab04", f"coverage_{stem}_boundaries", cov.boundaries, title=f"QNN partition boundaries: {stem}")
    return 0


if __name__ == "__main__":
    from common.errors import run_cli
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
