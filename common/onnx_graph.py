"""The one def-use index of ONNX graphs: who writes each value, who reads it, and what nested
subgraphs read from outside them, at any depth of nesting.

Scoping rules (ONNX IR spec, onnx/docs/IR.md, https://onnx.ai/onnx/repo-docs/IR.html, sections
"Names Within a Graph" and "Nodes"):

* the occurrence of a value name as a graph input, a graph initializer or a node output is a
  *definition*; as a node input or a graph output it is a *use*;
* "A node input in a nested subgraph MAY refer to names introduced in outer graphs (as node
  outputs, graph inputs, or graph initializers)", and a node output name of a nested subgraph
  "MUST be distinct from the names from the outer scopes that are visible in the nested
  subgraph". A subgraph is any ``GRAPH`` / ``GRAPHS`` attribute (``If`` branches, ``Loop`` and
  ``Scan`` bodies, custom ops) and sees what *all* its enclosing graphs define, so a body of an
  ``If`` inside a ``Loop`` body reads main-graph values directly;
* such an *outer-scope read* is not listed in the holder node's ``input``, yet it is a use of
  the value: a rewrite that deletes or renames the value must see it. A subgraph **output**
  naming an outer value (an ``If`` branch returning ``x`` unchanged) is a read as well.

:class:`GraphIndex` indexes one graph's nodes by *position* (``graph.node[pos]``), never by
``id()`` of a protobuf wrapper (Python may reuse that memory). :func:`outer_reads`,
:func:`subgraph_reads`, :func:`subgraph_defs` and :func:`node_reads` are the per-node pieces.
:func:`value_dims`, :func:`dim_labels`, :func:`static_shape` and :func:`tensor_nbytes` read a value's
declared type (:mod:`common.onnx_dims` fixes symbolic dims, :mod:`common.onnx_skeleton` infers shapes).

Names are value names (``str``); positions are ``int`` indices into ``graph.node``. Nothing here
modifies a proto or raises on a malformed graph: a name read but defined nowhere is simply a
read of an outer (here: unknown) value; :func:`tensor_nbytes` is the one function that raises.
"""
from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterator, Sequence

import numpy as np
import onnx

__all__ = ["subgraphs", "graph_defs", "OuterRead", "outer_reads", "subgraph_reads", "subgraph_defs",
           "node_reads", "GraphIndex", "value_dims", "dim_labels", "static_shape", "tensor_nbytes"]


def subgraphs(node: onnx.NodeProto) -> Iterator[onnx.GraphProto]:
    """The graphs held by ``node``'s attributes (``GRAPH``: one, ``GRAPHS``: each of the list), in
    attribute order; nested subgraphs are not descended into."""
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def graph_defs(graph: onnx.GraphProto) -> set[str]:
    """The names ``graph`` itself defines: its inputs, initializers (dense and sparse) and node
    outputs (empty names, i.e. omitted optional outputs, excluded); not its subgraphs' names."""
    defs = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    defs |= {t.values.name for t in graph.sparse_initializer}
    defs |= {o for n in graph.node for o in n.output if o}
    return defs


@dataclasses.dataclass(frozen=True)
class OuterRead:
    """One read, inside a subgraph, of a value that none of the graphs from that subgraph up to
    the holder's subgraph defines (an outer-scope read, IR spec "Names Within a Graph").

    Attributes:
        name: the value read.
        kind: ``"input"``: ``proto`` is the reading ``NodeProto`` and ``proto.input[index] ==
            name``; ``"output"``: ``proto`` is the subgraph ``GraphProto`` and
            ``proto.output[index].name == name``.
        proto, index: where the name is written (rename it there to redirect the read).
        depth: how deep the reading graph is nested: 1 = a graph attribute of the holder node
            itself (an ``If`` branch), 2 = a subgraph of a node in that graph (an ``If`` inside a
            ``Loop`` body), and so on.
    """

    name: str
    kind: str
    proto: onnx.NodeProto | onnx.GraphProto
    index: int
    depth: int


def outer_reads(node: onnx.NodeProto) -> Iterator[OuterRead]:
    """Every read, anywhere inside ``node``'s subgraphs (any depth), of a name defined outside
    them: node inputs and subgraph outputs that no graph on the path from the holder's subgraph
    to the reading graph defines (:func:`graph_defs`). Yields in document order: per subgraph,
    each node's inputs, then that node's own subgraphs, then the subgraph's outputs. A node
    without graph attributes yields nothing."""
    for sg in subgraphs(node):
        yield from _graph_reads(sg, frozenset(), 1)


def _graph_reads(sg: onnx.GraphProto, enclosing: frozenset, depth: int) -> Iterator[OuterRead]:
    scope = enclosing | graph_defs(sg)
    for n in sg.node:
        for i, name in enumerate(n.input):
            if name and name not in scope:
                yield OuterRead(name, "input", n, i, depth)
        for inner in subgraphs(n):
            yield from _graph_reads(inner, scope, depth + 1)
    for i, o in enumerate(sg.output):
        if o.name not in scope:
            yield OuterRead(o.name, "output", sg, i, depth)


def subgraph_reads(node: onnx.NodeProto) -> set[str]:
    """The names :func:`outer_reads` finds: the values ``node``'s subgraphs read from outside."""
    return {r.name for r in outer_reads(node)}


def subgraph_defs(node: onnx.NodeProto) -> set[str]:
    """Every name defined anywhere inside ``node``'s subgraphs, at any depth (:func:`graph_defs`
    of each one). A rename of an outer value to one of these would be captured by that definition."""
    defs: set[str] = set()
    stack = list(subgraphs(node))
    while stack:
        sg = stack.pop()
        defs |= graph_defs(sg)
        stack.extend(inner for n in sg.node for inner in subgraphs(n))
    return defs


def node_reads(node: onnx.NodeProto) -> list[str]:
    """What running ``node`` reads: its non-empty inputs in order (repeats kept), then the
    distinct names its subgraphs read from outside (:func:`subgraph_reads`), sorted."""
    return [t for t in node.input if t] + sorted(subgraph_reads(node))


class GraphIndex:
    """Def-use index of one graph's nodes, built in O(nodes + edges + subgraph size).

    ``graph`` is usually a model's main graph; a subgraph indexes the same way (its outer-scope
    reads then show up as reads of names it does not define). The index is a snapshot: it holds
    the graph's ``NodeProto`` objects but is not updated when they change.

    Attributes:
        graph: the indexed ``GraphProto``; ``nodes``: ``list(graph.node)``.
        inputs: names of the graph inputs; ``outputs``: graph output names, in order.
        initializers: names of the dense and sparse initializers (overridable ones, also listed
            as graph inputs, included).
        producer: value name -> position of the node writing it (empty output names skipped).
        consumers: value name -> ``[(pos, input index)]``: every ``nodes[pos].input[index] ==
            name``, in node order (repeats kept: ``Mul(x, x)`` gives two entries).
        outer: value name -> ``[(holder pos, OuterRead)]``: its outer-scope reads inside the
            subgraphs of ``nodes[holder pos]``, at any depth (:func:`outer_reads`).
        local_defs: holder pos -> :func:`subgraph_defs` of that node, for every node with a
            graph attribute.
        readers: value name -> ascending distinct positions of the nodes that read it, directly
            or through their subgraphs (:func:`node_reads`).
        uses: ``collections.Counter``: value name -> number of uses: node-input slots + outer-scope
            reads + occurrences as a graph output (0 for a dead value).
    """

    def __init__(self, graph: onnx.GraphProto):
        self.graph = graph
        self.nodes: list[onnx.NodeProto] = list(graph.node)
        self.inputs = {i.name for i in graph.input}
        self.outputs = [o.name for o in graph.output]
        self.initializers = {t.name for t in graph.initializer} | {t.values.name for t in graph.sparse_initializer}
        self.producer: dict[str, int] = {}
        self.consumers: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
        self.outer: dict[str, list[tuple[int, OuterRead]]] = collections.defaultdict(list)
        self.local_defs: dict[int, set[str]] = {}
        self.readers: dict[str, list[int]] = collections.defaultdict(list)
        self.uses: collections.Counter = collections.Counter()
        for pos, node in enumerate(self.nodes):
            for o in node.output:
                if o:
                    self.producer[o] = pos
            for i, name in enumerate(node.input):
                if name:
                    self.consumers[name].append((pos, i))
                    self.uses[name] += 1
            sub: set[str] = set()
            if any(True for _ in subgraphs(node)):
                self.local_defs[pos] = subgraph_defs(node)
                for r in outer_reads(node):
                    self.outer[r.name].append((pos, r))
                    self.uses[r.name] += 1
                    sub.add(r.name)
            for name in dict.fromkeys([t for t in node.input if t] + sorted(sub)):  # node_reads(node), deduplicated
                self.readers[name].append(pos)
        for name in self.outputs:
            self.uses[name] += 1

    def defines(self, name: str) -> bool:
        """``name`` is a graph input, an initializer or a node output of this graph."""
        return name in self.producer or name in self.inputs or name in self.initializers

    def reads(self, pos: int) -> list[str]:
        """:func:`node_reads` of ``nodes[pos]``."""
        return node_reads(self.nodes[pos])


def value_dims(vi: onnx.ValueInfoProto) -> list[int | None] | None:
    """Declared dims of a tensor-typed value: one entry per axis, the ``dim_value`` (an int) or
    None where the dim is symbolic (``dim_param``) or unset. None when ``vi`` is not a dense
    tensor or has no shape (rank unknown; IR spec "Static tensor shapes")."""
    t = vi.type.tensor_type
    if not vi.type.HasField("tensor_type") or not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


def dim_labels(vi: onnx.ValueInfoProto) -> list[int | str]:
    """Declared dims of a value as they read: the ``dim_value`` (an int), the ``dim_param`` (a
    ``str`` such as ``"batch"``) or ``"?"`` for an unset dim, one entry per axis. ``[]`` when ``vi``
    declares no shape (rank unknown) or is not a dense tensor, as for a scalar (IR spec "Static
    tensor shapes")."""
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in vi.type.tensor_type.shape.dim]


def static_shape(vi: onnx.ValueInfoProto) -> tuple[int, ...] | None:
    """The shape of a tensor-typed value when every dim is a known non-negative int (``()`` for a
    scalar), else None (not a tensor, rank unknown, a symbolic / unset / negative dim)."""
    dims = value_dims(vi)
    if dims is None or any(d is None or d < 0 for d in dims):
        return None
    return tuple(dims)


def tensor_nbytes(elem_type: int, shape: Sequence[int]) -> int:
    """Bytes of a dense tensor of ONNX element type ``elem_type`` (a ``TensorProto.DataType``)
    and static ``shape``: ``prod(shape) * itemsize`` of numpy's dtype for that type (``()``:
    one element).

    ``STRING`` tensors have no fixed element size: for them this is numpy's object itemsize
    times the element count, not the strings' bytes.

    Raises:
        KeyError: ``elem_type`` is ``UNDEFINED`` (0) or no ONNX data type.
    """
    itemsize = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type)).itemsize
    return int(np.prod(shape, dtype=np.int64)) * itemsize
