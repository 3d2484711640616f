"""Fingerprint a graph transformation: which classic optimizations turned BEFORE into AFTER?

:func:`fingerprint` reads only the two graphs (no knowledge of the tool that produced AFTER) and reports, each with
its evidence (which nodes, which counts):

* **constant folding** -- nodes whose inputs are all constant (initializers, ``Constant`` nodes,
  ``Shape`` of a statically shaped tensor, or nodes computed from those) are gone, or their output
  is now an initializer; initializers grow. (A ``Constant`` node merely stored as an initializer,
  as ORT and onnxsim do when saving, is a change of representation and is not counted.)
* **CSE** (common-subexpression elimination) -- a removed node computes the same value as a node
  that survives (same op, attributes and, recursively, the same inputs: global value numbering,
  Cocke 1970 / Alpern, Wegman, Zadeck 1988).
* **DCE** (dead-code elimination) -- removed nodes whose outputs reached no graph output.
* **vertical fusion** -- a producer -> consumer chain of nodes replaced by fewer nodes (one op):
  Conv+BatchNormalization -> Conv, Div+Erf+Add+Mul+Mul -> Gelu, Reshape+Reshape -> Reshape.
* **horizontal fusion** -- sibling nodes that read a common input (no edge between them) replaced
  by one op (plus Split/Slice to hand out the results), e.g. the Q/K/V MatMuls -> one MatMul.
* **layout change** -- Transposes (or ORT's NCHWc ``ReorderInput``/``ReorderOutput``) inserted or
  removed on the data path, with the op they sit next to.
* **no-op elimination** -- Identity/Dropout (or any node) removed with its consumers rewired to its
  input and no other change around it.

How nodes are matched: a BEFORE node and an AFTER node are *the same node* when they have the same
op (and domain) and the same output names; if their inputs or attributes differ they were
*rewritten in place*. Tools keep tensor names (ORT, onnxsim, onnxoptimizer and the Lab 01 passes
all do), so unmatched nodes are the changes. Removed nodes are classified in this order: DCE, CSE,
constant folding; the rest, with added and rewritten nodes, form connected *change regions*
(linked by tensors that exist on one side only), and each region is classified as fusion, layout
change or no-op elimination.
"""
from __future__ import annotations

import collections
import hashlib
from dataclasses import dataclass, field

import onnx

from common.onnx_graph import GraphIndex, node_reads, static_shape
from common.onnx_skeleton import infer_shapes
from common.onnx_utils import DEFAULT_DOMAINS, op_key

KINDS = ("constant folding", "CSE", "DCE", "vertical fusion", "horizontal fusion", "layout change",
         "no-op elimination")
LAYOUT_OPS = {"Transpose", "com.microsoft.nchwc.ReorderInput", "com.microsoft.nchwc.ReorderOutput",
              "com.microsoft.NhwcConv"}
NOOP_OPS = {"Identity", "Dropout"}
NONDETERMINISTIC = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"}
FANOUT_OPS = {"Split", "Slice", "Gather"}  # hand out the results of a horizontally fused op
COMPOSABLE = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Cast"}  # f(f(x)) is one f


@dataclass
class Finding:
    """One optimization detected: its kind, how many instances, a one-line evidence, details."""

    kind: str
    instances: int
    evidence: str
    details: list[str] = field(default_factory=list)


@dataclass
class Fingerprint:
    """Everything :func:`fingerprint` found (``findings`` in :data:`KINDS` order)."""

    findings: list[Finding]
    nodes_before: int
    nodes_after: int
    initializers_before: int
    initializers_after: int
    op_delta: dict[str, int]

    def kinds(self) -> set[str]:
        """The kinds of optimization found (a subset of :data:`KINDS`)."""
        return {f.kind for f in self.findings}

    def get(self, kind: str) -> Finding | None:
        """The finding of ``kind``, or None when that kind was not detected."""
        return next((f for f in self.findings if f.kind == kind), None)


# ------------------------------------------------------------------------------------------------
# Graph facts


class _Graph:
    """Index of one main graph: producers, consumers, constants, liveness, value numbers."""

    def __init__(self, model: onnx.ModelProto, infer: bool = True):
        value_info: list = []
        if infer:
            try:
                value_info = list(infer_shapes(model).graph.value_info)
            except Exception:  # shape facts are optional evidence
                pass
        g = model.graph
        index = GraphIndex(g)  # readers: node inputs and outer-scope reads of subgraphs, any depth
        self.nodes = index.nodes
        self.graph_inputs = index.inputs
        self.initializers = {i.name for i in g.initializer}
        self.outputs = index.outputs
        self.producer = index.producer
        self.consumers: dict[str, list[int]] = index.readers
        self.tensors = set(self.producer) | self.graph_inputs | self.initializers
        self.static = {v.name for v in list(g.value_info) + value_info + list(g.input) + list(g.output)
                       if static_shape(v) is not None}
        self.const_outputs = {t for i, n in enumerate(self.nodes) if n.op_type == "Constant" for t in n.output}
        self.const = self._constants()
        self.live = self._live()
        self.vn = self._value_numbers()

    def _constants(self) -> set[str]:
        const = {t for t in self.initializers if t not in self.graph_inputs}
        for n in self.nodes:
            ins = [t for t in n.input if t]
            if n.op_type in NONDETERMINISTIC:
                continue
            if n.op_type == "Constant" or (ins and all(t in const for t in node_reads(n))) or \
                    (n.op_type in ("Shape", "Size") and ins and ins[0] in self.static):
                const.update(t for t in n.output if t)
        return const

    def _live(self) -> set[int]:
        live, stack = set(), [self.producer[t] for t in self.outputs if t in self.producer]
        while stack:
            i = stack.pop()
            if i in live:
                continue
            live.add(i)
            stack += [self.producer[t] for t in node_reads(self.nodes[i]) if t in self.producer]
        return live

    def _value_numbers(self) -> dict[str, str]:
        vn: dict[str, str] = {}
        for i, n in enumerate(self.nodes):
            if n.op_type in NONDETERMINISTIC:
                key = f"node{i}"
            else:
                attrs = b"".join(a.SerializeToString() for a in sorted(n.attribute, key=lambda a: a.name))
                key = hashlib.sha1(repr((op_key(n), [vn.get(t, "in:" + t) for t in n.input])).encode() + attrs).hexdigest()
            for k, t in enumerate(n.output):
                vn[t] = f"{key}:{k}"
        return vn

    def node_label(self, i: int) -> str:
        n = self.nodes[i]
        return f"{op_key(n)} '{n.name or n.output[0]}'"


def _sig(n: onnx.NodeProto) -> tuple:
    return op_key(n), tuple(n.output)


def _attrs(n: onnx.NodeProto) -> dict[str, str]:
    """Attributes of ``n`` as ``{name: value}``, without those equal to the schema default.

    ORT writes defaults explicitly (``auto_pad="NOTSET"``, ``storage_order=0``); they are not changes.
    """
    out = {a.name: repr(onnx.helper.get_attribute_value(a)) for a in n.attribute}
    try:
        schema = onnx.defs.get_schema(n.op_type, n.domain if n.domain not in DEFAULT_DOMAINS else "")
    except Exception:  # ops without an ONNX schema (com.microsoft): keep all
        return out
    for name, spec in schema.attributes.items():
        if (name in out and spec.default_value.type != onnx.AttributeProto.UNDEFINED
                and out[name] == repr(onnx.helper.get_attribute_value(spec.default_value))):
            del out[name]
    return out


def _same(b: onnx.NodeProto, a: onnx.NodeProto) -> bool:
    return list(b.input) == list(a.input) and _attrs(b) == _attrs(a)


def _multiset(ops) -> str:
    c = collections.Counter(ops)
    return ", ".join(f"{op}x{k}" if k > 1 else op for op, k in c.most_common())


# ------------------------------------------------------------------------------------------------
# Fingerprint


def fingerprint(before: onnx.ModelProto, after: onnx.ModelProto) -> Fingerprint:
    """Name the classic optimizations that turn ``before`` into ``after`` (see module docstring)."""
    d = _Diff(_Graph(before), _Graph(after, infer=False))
    d.explain_removed()
    for members in d.change_regions():
        d.classify_region(members)
    return d.result()


class _Diff:
    """The node-level difference of two graphs and the findings that explain it.

    Attributes:
        pair: BEFORE index -> AFTER index of the same node (same op, same outputs).
        rewritten: paired BEFORE nodes whose inputs or (non-default) attributes changed.
        substantive: rewritten nodes with new attributes or a new input tensor (not just rewired).
        removed / added: unpaired BEFORE / AFTER node indices.
        cls: removed node -> "DCE", "CSE", "constant folding", "lifted" or "no-op".
    """

    def __init__(self, B: _Graph, A: _Graph):
        self.B, self.A = B, A
        by_sig: dict[tuple, list[int]] = collections.defaultdict(list)
        for j, n in enumerate(A.nodes):
            by_sig[_sig(n)].append(j)
        self.pair: dict[int, int] = {}
        for i, n in enumerate(B.nodes):
            if by_sig.get(_sig(n)):
                self.pair[i] = by_sig[_sig(n)].pop(0)
        paired_after = set(self.pair.values())
        self.rewritten = {i for i, j in self.pair.items() if not _same(B.nodes[i], A.nodes[j])}
        self.substantive = {i for i in self.rewritten if _attrs(B.nodes[i]) != _attrs(A.nodes[self.pair[i]])
                            or any(t and t not in B.tensors for t in A.nodes[self.pair[i]].input)}
        self.removed = [i for i in range(len(B.nodes)) if i not in self.pair]
        self.added = [j for j in range(len(A.nodes)) if j not in paired_after]
        self.cls: dict[int, str] = {}
        self.cse_into: dict[int, int] = {}
        self.findings: dict[str, Finding] = {}
        self.layout_rows: list[str] = []

    def add(self, kind: str, detail: str) -> None:
        f = self.findings.setdefault(kind, Finding(kind, 0, ""))
        f.instances += 1
        f.details.append(detail)

    def noop(self, i: int) -> None:
        self.add("no-op elimination", f"{self.B.node_label(i)} removed, its readers now read "
                 f"{_passthrough(self.B, self.A, i, self.pair)!r}")

    # -- removed nodes: DCE, CSE, constant folding ------------------------------------------------

    def explain_removed(self) -> None:
        """Classify removed nodes in order: DCE, CSE, constant folding (see module docstring)."""
        B, A, cls = self.B, self.A, self.cls
        for i in self.removed:
            if i not in B.live:
                cls[i] = "DCE"
        owner = {B.vn[B.nodes[i].output[0]]: i for i in self.pair if B.nodes[i].output}
        for i in self.removed:
            if i not in cls and B.nodes[i].output and B.vn[B.nodes[i].output[0]] in owner:
                cls[i], self.cse_into[i] = "CSE", owner[B.vn[B.nodes[i].output[0]]]
        a_consts = A.initializers | A.const_outputs
        for i in self.removed:
            n = B.nodes[i]
            if i in cls:
                continue
            if n.op_type == "Constant" and all(t in A.initializers for t in n.output if t):
                cls[i] = "lifted"  # stored as an initializer: a change of representation, not an optimization
            elif any(t in a_consts for t in n.output if t):
                cls[i] = "constant folding"
            elif any(t in B.const for t in n.output if t):
                # a constant Identity/Dropout whose readers now read its input was removed, not folded
                rewired = n.op_type in NOOP_OPS and n.input and any(
                    n.input[0] in A.nodes[self.pair[u]].input for t in n.output for u in B.consumers.get(t, []) if u in self.pair)
                cls[i] = "no-op" if rewired else "constant folding"
        # producers that fed only folded / dead nodes died with them
        for i in reversed(self.removed):
            users = {u for t in B.nodes[i].output for u in B.consumers.get(t, [])}
            if i not in cls and users and not any(t in B.outputs for t in B.nodes[i].output) \
                    and all(cls.get(u) in ("constant folding", "DCE", "lifted") for u in users):
                cls[i] = "constant folding" if any(cls.get(u) == "constant folding" for u in users) else "DCE"
        for i in self.removed:
            if cls.get(i) == "DCE":
                self.add("DCE", f"{B.node_label(i)} removed: its outputs reached no graph output")
            elif cls.get(i) == "CSE":
                self.add("CSE", f"{B.node_label(i)} merged into {B.node_label(self.cse_into[i])} (same op, attributes, inputs)")
            elif cls.get(i) == "no-op":
                self.noop(i)
        folded = [i for i in self.removed if cls.get(i) == "constant folding"]
        if folded:
            for i in folded:
                self.add("constant folding", f"{B.node_label(i)} removed: constant inputs"
                         + (", output is now an initializer" if any(t in A.initializers for t in B.nodes[i].output) else ""))
            now_init = sum(1 for i in folded for t in B.nodes[i].output if t in A.initializers)
            lifted = sum(1 for i in self.removed if cls.get(i) == "lifted")
            self.findings["constant folding"].evidence = (
                f"{len(folded)} nodes with constant inputs gone ({_multiset(op_key(B.nodes[i]) for i in folded)}); "
                f"initializers {len(B.initializers)} -> {len(A.initializers)} ({len(A.initializers - B.initializers)} new"
                + (f", {now_init} carry a folded node's output name" if now_init else "")
                + (f", {lifted} are former Constant nodes" if lifted else "") + ")")

    # -- change regions: fusion, layout, no-op ---------------------------------------------------

    def change_regions(self) -> list[list[tuple[str, int]]]:
        """Connected groups of unexplained removed ("b"), added ("a") and rewritten ("r") nodes,
        linked by a shared output name, or by a tensor that exists on one side only."""
        B, A, pair = self.B, self.A, self.pair
        rest_b = [i for i in self.removed if i not in self.cls]
        items = [("b", i) for i in rest_b] + [("a", j) for j in self.added] + [("r", i) for i in sorted(self.rewritten)]
        parent = {x: x for x in items}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(x, y):
            if x in parent and y in parent:
                parent[find(x)] = find(y)

        b_item = {i: ("b", i) for i in rest_b} | {i: ("r", i) for i in self.rewritten}
        a_item = {j: ("a", j) for j in self.added} | {pair[i]: ("r", i) for i in self.rewritten}
        none = ("none", -1)
        for i in rest_b:
            for t in B.nodes[i].output:
                if t in A.producer:  # the node that now computes this tensor
                    union(("b", i), a_item.get(A.producer[t], none))
                if t not in A.tensors:
                    for u in B.consumers.get(t, []):
                        union(("b", i), b_item.get(u, none))
            for t in node_reads(B.nodes[i]):
                if B.producer.get(t) in self.substantive:
                    union(("b", i), ("r", B.producer[t]))
        for j in self.added:
            for t in A.nodes[j].output:
                if t not in B.tensors:
                    for u in A.consumers.get(t, []):
                        union(("a", j), a_item.get(u, none))
            for t in node_reads(A.nodes[j]):
                if t in A.producer and t not in B.tensors:
                    union(("a", j), a_item.get(A.producer[t], none))
        regions: dict[tuple, list[tuple[str, int]]] = collections.defaultdict(list)
        for x in items:
            regions[find(x)].append(x)
        return list(regions.values())

    def classify_region(self, members: list[tuple[str, int]]) -> None:
        """Layout change, no-op elimination, vertical / horizontal fusion or op rewrite."""
        B, A, pair = self.B, self.A, self.pair
        b_nodes = sorted(i for k, i in members if k == "b" or (k == "r" and i in self.substantive))
        new_nodes = sorted(j for k, j in members if k == "a")
        r_nodes = {i for k, i in members if k == "r"}
        for i in b_nodes:
            if i not in self.rewritten and op_key(B.nodes[i]) in LAYOUT_OPS and not _identity_perm(B.nodes[i]):
                self.layout_rows.append(f"removed {B.node_label(i)}{_perm(B.nodes[i])} between {_around(B, i)}")
        for j in new_nodes:
            if op_key(A.nodes[j]) in LAYOUT_OPS:
                self.layout_rows.append(f"inserted {A.node_label(j)}{_perm(A.nodes[j])} between {_around(A, j)}")
        blocked = [j for j in new_nodes if A.nodes[j].domain.endswith(".nchwc") and op_key(A.nodes[j]) not in LAYOUT_OPS]
        if blocked:
            self.layout_rows.append(f"converted {len(blocked)} ops to a blocked layout: {_multiset(op_key(A.nodes[j]) for j in blocked)}")
        # compute nodes: not layout ops, not constant-only nodes added beside the data path
        cb = [i for i in b_nodes if op_key(B.nodes[i]) not in LAYOUT_OPS or _identity_perm(B.nodes[i])]
        const_added = [j for j in new_nodes if all(t in A.const for t in A.nodes[j].output if t)]
        fresh = [j for j in new_nodes if op_key(A.nodes[j]) not in LAYOUT_OPS and j not in const_added]
        ca = sorted(fresh + [pair[i] for i in b_nodes if i in self.rewritten])
        cb_removed = [i for i in cb if i not in self.rewritten]
        if not cb_removed and not fresh:
            return  # only rewired or layout nodes
        b_c = collections.Counter(op_key(B.nodes[i]) for i in cb)
        a_c = collections.Counter(op_key(A.nodes[j]) for j in ca)
        noop = [i for i in cb_removed if op_key(B.nodes[i]) in NOOP_OPS or _identity_perm(B.nodes[i])]
        if noop and b_c - collections.Counter(op_key(B.nodes[i]) for i in noop) == a_c:
            for i in noop:
                self.noop(i)
            return
        const_note = (f" (+{len(const_added)} constant-only nodes added, not yet folded: "
                      f"{_multiset(op_key(A.nodes[j]) for j in const_added)})") if const_added else ""
        if not fresh:
            # nothing new: each removed node was absorbed by a rewritten neighbour, or was a no-op
            for i in cb_removed:
                k = _absorbed_by(B, A, i, self.substantive, r_nodes, pair)
                if k is None:
                    self.noop(i)
                else:
                    ops = [op_key(B.nodes[x]) for x in sorted((i, k))]
                    self.add("vertical fusion", f"{_pattern(ops, [op_key(B.nodes[k])])}{const_note} at {B.node_label(k)}")
            return
        pattern = _pattern([op_key(B.nodes[i]) for i in cb], [op_key(A.nodes[j]) for j in ca]) + const_note
        internal = any(B.producer.get(t) in set(cb) for i in cb for t in node_reads(B.nodes[i]))
        shared = set.intersection(*[set(node_reads(B.nodes[i])) for i in cb]) if cb else set()
        core = [j for j in ca if op_key(A.nodes[j]) not in FANOUT_OPS]  # Split/Slice hand results out
        at = f" at {A.node_label(ca[-1])}" if ca else ""
        if len(cb) >= 2 and internal and len(ca) < len(cb):
            self.add("vertical fusion", f"{pattern}{at}")
        elif len(cb) >= 2 and not internal and shared and len(core) < len(cb):
            self.add("horizontal fusion", f"{pattern} (siblings reading {sorted(shared)[0]!r}){at}")
        elif b_c != a_c:
            self.add("op rewrite", pattern)

    def result(self) -> Fingerprint:
        rows = self.layout_rows
        if rows:
            for r in rows:
                self.add("layout change", r)
            moved = [r for r in rows if r.startswith("converted")]
            plain = [r.split("'")[0].split(" ", 1)[1].strip() for r in rows if not r.startswith("converted")]
            self.findings["layout change"].evidence = (
                f"layout ops inserted {sum(r.startswith('inserted') for r in rows)}, removed "
                f"{sum(r.startswith('removed') for r in rows)}" + (": " + _multiset(plain) if plain else "")
                + ("; " + "; ".join(moved) if moved else ""))
        for kind, f in self.findings.items():
            if not f.evidence:
                f.evidence = _summarize(kind, f.details)
        order = list(KINDS) + ["op rewrite"]
        delta = collections.Counter(op_key(n) for n in self.A.nodes)
        delta.subtract(collections.Counter(op_key(n) for n in self.B.nodes))
        return Fingerprint(
            findings=sorted(self.findings.values(), key=lambda f: order.index(f.kind)),
            nodes_before=len(self.B.nodes), nodes_after=len(self.A.nodes),
            initializers_before=len(self.B.initializers), initializers_after=len(self.A.initializers),
            op_delta={k: v for k, v in sorted(delta.items()) if v})


def pattern_of(detail: str) -> str:
    """The ``"A+B -> C"`` part of a fusion / rewrite detail line (drops the trailing ``" at <node>"``)."""
    return detail.rsplit(" at ", 1)[0] if " at " in detail else detail


def _summarize(kind: str, details: list[str]) -> str:
    """``"3x Conv+BatchNormalization -> Conv; 1x ..."``: patterns grouped by their text."""
    if kind in ("vertical fusion", "horizontal fusion", "op rewrite"):
        pats = collections.Counter(pattern_of(d) for d in details)
        return "; ".join(f"{k}x {p}" for p, k in pats.most_common())
    ops = collections.Counter(d.split(" '")[0] for d in details)
    return f"{len(details)} nodes ({_multiset(ops.elements())})"


def _absorbed_by(B: _Graph, A: _Graph, i: int, substantive: set[int], rewired: set[int], pair: dict[int, int]) -> int | None:
    """Index of the rewritten neighbour that took over removed node ``i``'s work, if any.

    A producer rewritten in substance (new weights or attributes: Conv absorbing a
    BatchNormalization), or a consumer of the same op type rewritten in place (a Reshape absorbing
    the Reshape before it).
    """
    n = B.nodes[i]
    for t in node_reads(n):
        p = B.producer.get(t)
        if p in substantive:
            return p
    for t in n.output:
        for u in B.consumers.get(t, []):
            if u in rewired and op_key(B.nodes[u]) == op_key(n) and (
                    n.op_type in COMPOSABLE or not _only_substituted(B.nodes[u], A.nodes[pair[u]], n)):
                return u
    return None


def _only_substituted(b: onnx.NodeProto, a: onnx.NodeProto, removed: onnx.NodeProto) -> bool:
    """True if ``a`` is ``b`` with ``removed``'s output replaced by one of ``removed``'s inputs
    (the consumer did not change otherwise: ``removed`` was a no-op such as ``Add(x, 0)``)."""
    if len(a.input) != len(b.input) or _attrs(a) != _attrs(b):
        return False
    return all(x == y or (x in removed.output and y in removed.input) for x, y in zip(b.input, a.input))


def _passthrough(B: _Graph, A: _Graph, i: int, pair: dict[int, int]) -> str:
    """The input of removed node ``i`` that its former readers read now (else its first input)."""
    n = B.nodes[i]
    for t in n.output:
        for u in B.consumers.get(t, []):
            if u in pair:
                hit = [x for x in A.nodes[pair[u]].input if x in n.input]
                if hit:
                    return hit[0]
    return n.input[0] if n.input else "?"


def _pattern(b_ops: list[str], a_ops: list[str]) -> str:
    """``"Div+Erf+Add+Mul+Mul -> com.microsoft.Gelu"``; multisets when a side has over 8 ops."""
    def side(ops):
        if not ops:
            return "(nothing)"
        return "+".join(ops) if len(ops) <= 8 else _multiset(ops)
    return f"{side(b_ops)} -> {side(a_ops)}"


def _identity_perm(n: onnx.NodeProto) -> bool:
    if n.op_type != "Transpose":
        return False
    perm = next((list(a.ints) for a in n.attribute if a.name == "perm"), None)
    return perm is not None and perm == sorted(perm)


def _perm(n: onnx.NodeProto) -> str:
    perm = next((list(a.ints) for a in n.attribute if a.name == "perm"), None)
    return f" perm={perm}" if perm is not None else ""


def _around(G: _Graph, i: int) -> str:
    n = G.nodes[i]
    src = [op_key(G.nodes[G.producer[t]]) if t in G.producer else ("input" if t in G.graph_inputs else "initializer")
           for t in n.input[:1] if t]
    dst = sorted({op_key(G.nodes[u]) for t in n.output for u in G.consumers.get(t, [])}
                 | ({"output"} if any(t in G.outputs for t in n.output) else set()))
    return f"{'/'.join(src) or '-'} and {'/'.join(dst) or '-'}"
