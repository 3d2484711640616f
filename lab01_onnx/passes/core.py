"""What the three passes share: their result type, one def-use index, and the rule driver.

ONNX IR specification (https://onnx.ai/onnx/repo-docs/IR.html, "Graphs", "Names Within a Graph"):
main-graph nodes are listed in topological order and every value name is assigned once (SSA); a
subgraph (an If/Loop/Scan body, at any depth of nesting) may read values of its enclosing graphs
by name ("outer scope"), and those reads are invisible in the enclosing node's inputs.
:class:`DefUseIndex` therefore starts from :class:`common.onnx_graph.GraphIndex`, which finds
every outer-scope read (node inputs and subgraph outputs) and counts it as a use.

A pass is one *rule* ``rule(index, pos, shapes) -> rewrites`` tried at a main-graph node
position, run by :func:`apply_rule`: every node once in topological order, then again wherever a
rewrite changed what the rule sees (a value lost readers, or a node was rewritten), until nothing
changes. So each pass is idempotent on its own (the proof harness checks that), and no pass keeps
a worklist of its own.
"""
from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper

from common.errors import UserError
from common.onnx_graph import GraphIndex, graph_defs, outer_reads
from common.onnx_utils import DEFAULT_DOMAINS, opset

from .shapes import Shapes


@dataclass
class PassResult:
    """What a pass returns: ``model`` (a new ``ModelProto``; the input is never modified) and
    ``rewrites`` (pattern instances rewritten; 0 means the model is unchanged)."""

    model: onnx.ModelProto
    rewrites: int


def copy_model(model: onnx.ModelProto) -> onnx.ModelProto:
    """A deep copy. Raises :class:`UserError` for anything but a ``ModelProto``."""
    if not isinstance(model, onnx.ModelProto):
        raise UserError(f"expected an onnx.ModelProto, got {type(model).__name__}: load it with onnx.load(path) first")
    out = onnx.ModelProto()
    out.CopyFrom(model)
    return out


def is_op(node: onnx.NodeProto, op_type: str) -> bool:
    """``node`` is ``op_type`` of the default ONNX domain."""
    return node.op_type == op_type and node.domain in DEFAULT_DOMAINS


def attr_int(node: onnx.NodeProto, name: str, default: int) -> int:
    """The INT attribute ``name`` of ``node`` (its ``i`` field), or ``default`` when the node has none of that name.

    Raises:
        ValueError: the node has an attribute ``name`` of another type (``INTS``, ``FLOAT``, ...): its ``i`` field
            would read 0, which the operator's schema (``axis``, ``allowzero``, ``start``: INT in the ONNX
            operator spec) does not allow; ``onnx.checker.check_model`` refuses such a node too.
    """
    attr = next((a for a in node.attribute if a.name == name), None)
    if attr is None:
        return default
    if attr.type != onnx.AttributeProto.INT:
        raise ValueError(f"{node.op_type} {node.name!r}: attribute {name!r} is "
                         f"{onnx.AttributeProto.AttributeType.Name(attr.type)}, not INT")
    return int(attr.i)


_CONSTANT_ATTRS = {"value_float": np.float32, "value_floats": np.float32, "value_int": np.int64, "value_ints": np.int64}


def constant_node_value(node: onnx.NodeProto) -> np.ndarray | None:
    """Value of a ``Constant`` node (``value``, ``value_float(s)``, ``value_int(s)``); None otherwise."""
    for a in node.attribute:
        if a.name == "value":
            return numpy_helper.to_array(a.t)
        if a.name in _CONSTANT_ATTRS:
            v = onnx.helper.get_attribute_value(a)
            return np.array(list(v) if a.name.endswith("s") else v, dtype=_CONSTANT_ATTRS[a.name])
    return None  # sparse_value / value_string(s): not folded


class DefUseIndex:
    """Def-use index of a model's main graph, built once per pass in O(nodes + edges).

    Nodes are named by their *position* in the main graph (``nodes[pos]``), never by ``id()`` of a
    protobuf wrapper, whose memory Python may reuse (counterexample CE-8).

    Attributes:
        inputs, outputs, graph_initializers: names of the graph's inputs, outputs, initializers (dense and
            sparse: a ``sparse_initializer`` defines its ``values.name``).
        initializers: name -> TensorProto of the initializers that are constants (not graph inputs).
        nodes: the main-graph nodes; ``removed`` holds the positions dropped so far.
        producer: value name -> position of the node that writes it.
        consumers: value name -> ``[(pos, input index)]`` (entries may be stale; see
            :meth:`live_consumers`).
        uses: every reader of a value: node inputs, graph outputs, outer-scope references.
        sub_refs: value name -> ``[(holder pos, kind, proto, index)]``, its outer-scope references:
            ``kind == "input"`` is ``proto.input[index]``, ``"output"`` is ``proto.output[index].name``.
        local_defs: holder pos -> every name defined anywhere inside that node's subgraphs.
        reopened: names whose readers a rewrite may have made rewritable (a use count fell to 1,
            or their producer was rewritten); :func:`apply_rule` tries those readers again.
    """

    def __init__(self, model: onnx.ModelProto):
        g = model.graph
        self.model, self.graph, self.opset = model, g, opset(model)
        self.outputs = {o.name for o in g.output}
        self.inputs = {i.name for i in g.input}
        # An initializer that is also a graph input is only a default value (IR spec, "Graphs"):
        # a caller may feed another value, so it is not a constant.
        self.initializers = {t.name: t for t in g.initializer if t.name not in self.inputs}
        # The common index finds the uses (node inputs, graph outputs, outer-scope reads at any
        # depth); this index takes its tables over and keeps them current as rules rewrite.
        index = GraphIndex(g)
        self.graph_initializers: set[str] = index.initializers  # dense and sparse (IR spec, "Graphs")
        self.nodes: list[onnx.NodeProto] = index.nodes
        self.producer: dict[str, int] = index.producer
        self.consumers: dict[str, list[tuple[int, int]]] = index.consumers
        self.uses: collections.Counter = index.uses
        self.sub_refs: dict[str, list] = collections.defaultdict(list)
        for name, reads in index.outer.items():
            self.sub_refs[name] = [(holder, r.kind, r.proto, r.index) for holder, r in reads]
        self.local_defs: dict[int, set] = index.local_defs
        self.removed: set[int] = set()
        self.removed_inits: set[str] = set()
        self.new_inits: list[onnx.TensorProto] = []
        self.reopened: list[str] = []
        self._constants: dict[str, np.ndarray | None] = {}
        self.names = set(self.producer) | self.inputs | self.graph_initializers

    # -- reading ----------------------------------------------------------------------------
    def alive(self, pos: int | None) -> bool:
        """Whether node position ``pos`` exists (not None) and has not been removed."""
        return pos is not None and pos not in self.removed

    def producer_node(self, name: str, op_type: str) -> onnx.NodeProto | None:
        """The live default-domain ``op_type`` node writing ``name``, or None."""
        pos = self.producer.get(name)
        return self.nodes[pos] if self.alive(pos) and is_op(self.nodes[pos], op_type) else None

    def constant(self, name: str) -> np.ndarray | None:
        """The value of ``name`` if it is a (non-overridable) initializer or a live Constant's output."""
        if name not in self._constants:
            value = None
            try:
                if name in self.initializers:
                    value = numpy_helper.to_array(self.initializers[name])
                elif (p := self.producer_node(name, "Constant")) is not None:
                    value = constant_node_value(p)
            except Exception:  # an exotic dtype numpy_helper cannot read: treat as non-constant
                value = None
            self._constants[name] = value
        return self._constants[name]

    def live_consumers(self, name: str) -> list[tuple[int, int]]:
        """Live main-graph readers ``(pos, input index)`` of ``name``; stale entries are pruned."""
        live = [(p, i) for p, i in self.consumers.get(name, ())
                if p not in self.removed and i < len(self.nodes[p].input) and self.nodes[p].input[i] == name]
        if name in self.consumers:
            self.consumers[name] = list(live)
        return live

    # -- writing ----------------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        """``base`` if no value, input or initializer of the graph has that name yet, else ``base_1``, ``base_2``,
        ... the first one free (so a pass names what it adds the same way on every run); the name is then taken."""
        name, k = base, 0
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def add_initializer(self, name: str, value: np.ndarray) -> None:
        """Add an initializer ``name`` holding ``value`` (written by :meth:`finish`) and record it as a known constant.

        ``name`` is taken as given: get it from :meth:`unique_name`, which never returns a name already in the graph.
        """
        self.new_inits.append(numpy_helper.from_array(value, name))
        self.initializers[name] = self.new_inits[-1]
        self.set_constant(name, value)
        self.names.add(name)

    def set_constant(self, name: str, value: np.ndarray) -> None:
        """Record that ``name`` now holds ``value`` (a node rewritten into a Constant)."""
        self._constants[name] = value

    def set_input(self, pos: int, i: int, name: str, cascade: bool = True) -> None:
        """Point ``nodes[pos].input[i]`` at ``name``; release the old value (removing it if now dead)."""
        node = self.nodes[pos]
        old, node.input[i] = node.input[i], name
        self.uses[name] += 1
        self.consumers[name].append((pos, i))
        if old:
            self.release([old], cascade)

    def uses_by(self, pos: int) -> list[str]:
        """Every read ``nodes[pos]`` makes, one entry per read as :attr:`uses` counts them: its input
        slots, then its subgraphs' outer-scope reads (:func:`common.onnx_graph.outer_reads`)."""
        node = self.nodes[pos]
        return [n for n in node.input if n] + [r.name for r in outer_reads(node)]

    def remove_node(self, pos: int) -> None:
        """Drop ``nodes[pos]`` (a no-op the second time) and release every read it made (:meth:`uses_by`:
        an If or Loop also releases what its bodies read from outside), cascading: the producers and
        initializers left without readers go too -- only what this rewrite orphaned, so passes stay
        linear."""
        if pos in self.removed:
            return
        self.removed.add(pos)
        self.release(self.uses_by(pos))

    def release(self, names: list[str], cascade: bool = True) -> None:
        """One reader fewer for each name; with ``cascade``, what is left without readers goes too
        (:meth:`remove_node`)."""
        work = list(names)
        while work:
            name = work.pop()
            self.uses[name] -= 1
            if self.uses[name] == 1:
                self.reopened.append(name)
            if not cascade or self.uses[name] > 0:
                continue
            if name in self.initializers:
                self.removed_inits.add(name)
                continue
            pos = self.producer.get(name)
            if not self.alive(pos) or self.nodes[pos].domain not in DEFAULT_DOMAINS:
                continue
            if all(self.uses[o] <= 0 for o in self.nodes[pos].output if o):
                self.removed.add(pos)
                work.extend(self.uses_by(pos))

    def finish(self) -> onnx.ModelProto:
        """Write the kept nodes/initializers back; drop value_info of names that no longer exist."""
        g = self.graph
        if self.removed:
            kept = [n for pos, n in enumerate(self.nodes) if pos not in self.removed]
            del g.node[:]
            g.node.extend(kept)
        if self.removed_inits:
            kept_t = [t for t in g.initializer if t.name not in self.removed_inits]
            del g.initializer[:]
            g.initializer.extend(kept_t)
        g.initializer.extend(t for t in self.new_inits if t.name not in self.removed_inits)
        live = graph_defs(g)
        if any(v.name not in live for v in g.value_info):
            kept_v = [v for v in g.value_info if v.name in live]
            del g.value_info[:]
            g.value_info.extend(kept_v)
        return self.model


Rule = Callable[[DefUseIndex, int, Shapes], int]


def apply_rule(model: onnx.ModelProto, rule: Rule, *, min_opset: int = 0) -> PassResult:
    """Apply ``rule`` to a copy of ``model`` until it rewrites nothing more (a local fixed point).

    ``rule(index, pos, shapes)`` tries one rewrite at main-graph node ``pos`` and returns how many
    pattern instances it rewrote. Every node is tried once in topological order; then the live
    readers of every value in ``index.reopened`` (a use count fell to 1 or a producer was
    rewritten) are tried again. Each retry stems from one use-count decrement or one rewrite, so
    the work stays linear. ``shapes`` is :class:`Shapes` of the untouched input (inference runs
    at most once, and only when a rule asks for a shape). Models below ``min_opset`` (default
    domain) are returned unchanged.

    Raises:
        TypeError: the rule returned something other than an int >= 0 (a path that forgot its
            ``return`` gives None), naming the rule and the node.
    """
    m = copy_model(model)
    if opset(m) < min_opset:
        return PassResult(m, 0)
    idx, shapes = DefUseIndex(m), Shapes(model)

    def attempt(pos: int) -> int:
        done = rule(idx, pos, shapes) if pos not in idx.removed else 0
        if not isinstance(done, (int, np.integer)) or done < 0:
            name = getattr(rule, "__qualname__", repr(rule))
            raise TypeError(f"the rule {name} returned {done!r} at node {pos} ({idx.nodes[pos].op_type}): a rule "
                            "returns how many rewrites it made there, an int >= 0 (0 when it rewrote nothing)")
        if done and pos not in idx.removed:
            idx.reopened.extend(o for o in idx.nodes[pos].output if o)
        return done

    rewrites = sum(attempt(pos) for pos in range(len(idx.nodes)))
    while idx.reopened:
        for pos, _ in idx.live_consumers(idx.reopened.pop()):
            rewrites += attempt(pos)
    return PassResult(idx.finish(), rewrites)
