"""Three custom ONNX graph passes and a small pass manager that runs them to a fixed point.

Passes (each ``fn(model: onnx.ModelProto) -> PassResult``, each works on a copy and never mutates
its input, each linear in the number of nodes):

* :func:`fuse_consecutive_reshapes` -- ``Reshape(Reshape(x, s1), s2)`` -> ``Reshape(x, s2')``.
* :func:`eliminate_identity` -- remove ``Identity`` nodes by rewiring names.
* :func:`fold_constant_gather` -- ``Gather(const, const)`` and ``Gather(Shape(x), const)`` become
  initializers.

The rules cite the ONNX operator specification (https://onnx.ai/onnx/operators/, the text of
``onnx.defs.get_schema(op).doc`` in the installed ``onnx``) and the ONNX IR specification
(https://onnx.ai/onnx/repo-docs/IR.html, "Names Within a Graph", "Graphs", "Nodes"):

* graph nodes are listed in topological order, every value name is assigned once (SSA);
* a subgraph (the body of If/Loop/Scan) may reference values of its enclosing graphs by name
  ("outer scope"); those references are invisible in the enclosing graph's node inputs, so this
  module scans every subgraph for them and counts them as uses.

Only the main graph is rewritten; subgraphs are read (and, for outer-scope references, renamed).

Example::

    from lab01_onnx.passes import run_passes, op_counts
    optimized, report = run_passes(model)            # all three custom passes, to a fixed point
    print(op_counts(model), op_counts(optimized))
"""
from __future__ import annotations

import collections
import time
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Iterator

import numpy as np
import onnx
from onnx import helper, numpy_helper

from common.errors import UserError

__all__ = [
    "PassResult",
    "fuse_consecutive_reshapes",
    "eliminate_identity",
    "fold_constant_gather",
    "CUSTOM_PASSES",
    "run_passes",
    "op_counts",
    "MAX_FOLD_ELEMENTS",
]

#: A folded Gather result larger than this (elements) is not materialized, so that a fold never
#: bloats the model file (e.g. gathering rows of a large constant with a large constant index).
MAX_FOLD_ELEMENTS = 1 << 20

_DEFAULT_DOMAINS = ("", "ai.onnx")


@dataclass
class PassResult:
    """What a pass returns.

    Attributes:
        model: the rewritten model (a new ``onnx.ModelProto``; the input model is untouched).
        rewrites: number of pattern instances rewritten (Reshape pairs fused, Identity nodes
            removed, Gather nodes folded); 0 means the model is unchanged.
    """

    model: onnx.ModelProto
    rewrites: int


# --------------------------------------------------------------------------------------------
# Shared helpers: copy, opset, constants, use counts, outer-scope references, dead-node cleanup
# --------------------------------------------------------------------------------------------


def _copy(model: onnx.ModelProto) -> onnx.ModelProto:
    if not isinstance(model, onnx.ModelProto):
        raise UserError(f"expected an onnx.ModelProto, got {type(model).__name__}: load it with onnx.load(path) first")
    out = onnx.ModelProto()
    out.CopyFrom(model)
    return out


def _opset(model: onnx.ModelProto) -> int:
    """Opset version of the default ONNX domain (0 if not imported)."""
    for imp in model.opset_import:
        if imp.domain in _DEFAULT_DOMAINS:
            return int(imp.version)
    return 0


def _is(node: onnx.NodeProto, op_type: str) -> bool:
    return node.op_type == op_type and node.domain in _DEFAULT_DOMAINS


def _attr_int(node: onnx.NodeProto, name: str, default: int) -> int:
    for a in node.attribute:
        if a.name == name:
            return int(a.i)
    return default


def _subgraphs(node: onnx.NodeProto) -> Iterator[onnx.GraphProto]:
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def _constant_node_value(node: onnx.NodeProto) -> np.ndarray | None:
    """Value of a ``Constant`` node (attributes value / value_float(s) / value_int(s) / value_string(s))."""
    for a in node.attribute:
        if a.name == "value":
            return numpy_helper.to_array(a.t)
        if a.name == "value_float":
            return np.array(a.f, dtype=np.float32)
        if a.name == "value_floats":
            return np.array(list(a.floats), dtype=np.float32)
        if a.name == "value_int":
            return np.array(a.i, dtype=np.int64)
        if a.name == "value_ints":
            return np.array(list(a.ints), dtype=np.int64)
    return None  # sparse_value / value_string(s): not folded


class _Index:
    """Def-use index of the main graph, built once per pass in O(nodes + edges).

    ``uses[name]`` counts every reader of a value: main-graph node inputs, graph outputs and
    outer-scope references from subgraphs (any depth). ``sub_refs[name]`` lists those subgraph
    references as ``(holder, kind, obj, index)`` where ``holder`` is the main-graph node owning the
    subgraph, ``kind`` is ``"input"`` (``obj.input[index]``) or ``"output"`` (``obj.output[index].name``).
    ``local_defs[id(holder)]`` holds every name defined anywhere inside that holder's subgraphs.
    """

    def __init__(self, model: onnx.ModelProto):
        g = model.graph
        self.model = model
        self.graph = g
        self.outputs = {o.name for o in g.output}
        self.inputs = {i.name for i in g.input}
        # An initializer that is also a graph input is only a default value (IR spec, "Graphs"):
        # a caller may feed another value, so it is not a constant.
        self.initializers = {t.name: t for t in g.initializer if t.name not in self.inputs}
        self.producer: dict[str, onnx.NodeProto] = {}
        self.consumers: dict[str, list[tuple[onnx.NodeProto, int]]] = collections.defaultdict(list)
        self.uses: collections.Counter = collections.Counter()
        self.sub_refs: dict[str, list] = collections.defaultdict(list)
        self.local_defs: dict[int, set] = {}
        self.removed: set[int] = set()
        self.removed_inits: set[str] = set()
        #: When a list, ``_release`` appends every name whose use count drops to exactly 1 (a pass
        #: that refuses a rewrite while a value has several readers re-checks it from there).
        self.dropped: list[str] | None = None
        self.new_inits: list[onnx.TensorProto] = []
        self._const_cache: dict[str, np.ndarray | None] = {}
        # _data_dims results: name -> (generation, dims); generation None = fully static, valid
        # for the whole pass; otherwise valid until the next fusion bumps ``_dims_gen``.
        self._dims_memo: dict[str, tuple[int | None, list[int | None] | None]] = {}
        self._dims_gen = 0
        # One wrapper object per node for the whole pass: ``id(node)`` keys the bookkeeping, and a
        # protobuf wrapper nobody references may be freed and re-created with another id.
        self.nodes: list[onnx.NodeProto] = list(g.node)
        for node in self.nodes:
            for o in node.output:
                if o:
                    self.producer[o] = node
            for i, name in enumerate(node.input):
                if name:
                    self.consumers[name].append((node, i))
                    self.uses[name] += 1
            for sg in _subgraphs(node):
                defs = self.local_defs.setdefault(id(node), set())
                self._scan_subgraph(sg, frozenset(), node, defs)
        for o in g.output:
            self.uses[o.name] += 1
        self.names = set(self.producer) | self.inputs | {t.name for t in g.initializer}

    def _scan_subgraph(self, sg: onnx.GraphProto, enclosing: frozenset, holder, defs: set) -> None:
        local = {i.name for i in sg.input} | {t.name for t in sg.initializer}
        local |= {t.values.name for t in sg.sparse_initializer}
        local |= {o for n in sg.node for o in n.output if o}
        defs |= local
        scope = enclosing | local
        for n in sg.node:
            for i, name in enumerate(n.input):
                if name and name not in scope:
                    self.sub_refs[name].append((holder, "input", n, i))
                    self.uses[name] += 1
            for inner in _subgraphs(n):
                self._scan_subgraph(inner, scope, holder, defs)
        for i, o in enumerate(sg.output):
            if o.name not in scope:
                self.sub_refs[o.name].append((holder, "output", sg, i))
                self.uses[o.name] += 1

    # -- constants --------------------------------------------------------------------------
    def constant(self, name: str) -> np.ndarray | None:
        """The value of ``name`` if it is an initializer (not overridable) or a Constant node output."""
        if name in self._const_cache:
            return self._const_cache[name]
        value = None
        try:
            if name in self.initializers:
                value = numpy_helper.to_array(self.initializers[name])
            else:
                p = self.producer.get(name)
                if p is not None and _is(p, "Constant") and id(p) not in self.removed:
                    value = _constant_node_value(p)
        except Exception:  # an exotic dtype numpy_helper cannot read: treat as non-constant
            value = None
        self._const_cache[name] = value
        return value

    def unique_name(self, base: str) -> str:
        name, k = base, 0
        while name in self.names:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def add_initializer(self, name: str, value: np.ndarray) -> None:
        self.new_inits.append(numpy_helper.from_array(value, name))
        self.initializers[name] = self.new_inits[-1]
        self._const_cache[name] = value
        self.names.add(name)

    # -- removal with dead-node cleanup -------------------------------------------------------
    def set_input(self, node: onnx.NodeProto, i: int, name: str, cascade: bool = True) -> None:
        """Point ``node.input[i]`` at ``name``; release the old value (removing it if now dead)."""
        old = node.input[i]
        node.input[i] = name
        self.uses[name] += 1
        self.consumers[name].append((node, i))
        if old:
            self._release([old], cascade)

    def remove_node(self, node: onnx.NodeProto, cascade: bool = True) -> None:
        """Drop ``node``; with ``cascade``, also drop producers (and initializers) left without users.

        The cleanup touches only what this rewrite orphaned, so the pass stays linear. Removing a
        node twice is a no-op (its inputs are released once).
        """
        if id(node) in self.removed:
            return
        self.removed.add(id(node))
        self._release([n for n in node.input if n], cascade)

    def _release(self, names: list[str], cascade: bool) -> None:
        work = list(names)
        while work:
            name = work.pop()
            self.uses[name] -= 1
            if self.dropped is not None and self.uses[name] == 1:
                self.dropped.append(name)
            if not cascade or self.uses[name] > 0:
                continue
            if name in self.initializers:
                self.removed_inits.add(name)
                continue
            p = self.producer.get(name)
            if p is None or id(p) in self.removed or p.domain not in _DEFAULT_DOMAINS:
                continue
            if all(self.uses[o] <= 0 for o in p.output if o):
                self.removed.add(id(p))
                work.extend(n for n in p.input if n)

    def live_consumers(self, name: str) -> list[tuple[onnx.NodeProto, int]]:
        """The live main-graph readers ``(node, input index)`` of ``name``.

        Stale entries (removed nodes, inputs since pointed elsewhere) are dropped from the index
        on the way, so repeated calls cost O(live readers + entries added since the last call).
        """
        live = [(n, i) for n, i in self.consumers.get(name, ())
                if id(n) not in self.removed and i < len(n.input) and n.input[i] == name]
        if name in self.consumers:
            self.consumers[name] = list(live)
        return live

    def finish(self) -> onnx.ModelProto:
        """Write the kept nodes/initializers back and drop value_info of names that no longer exist."""
        g = self.graph
        if self.removed:
            kept = [n for n in self.nodes if id(n) not in self.removed]
            del g.node[:]
            g.node.extend(kept)
        if self.removed_inits:
            kept_t = [t for t in g.initializer if t.name not in self.removed_inits]
            del g.initializer[:]
            g.initializer.extend(kept_t)
        g.initializer.extend(t for t in self.new_inits if t.name not in self.removed_inits)
        live = {o for n in g.node for o in n.output} | {i.name for i in g.input} | {t.name for t in g.initializer}
        if any(v.name not in live for v in g.value_info):
            kept_v = [v for v in g.value_info if v.name in live]
            del g.value_info[:]
            g.value_info.extend(kept_v)
        return self.model


def _static_shapes(model: onnx.ModelProto) -> dict[str, list[int | None] | None]:
    """Run ``onnx.shape_inference`` (non-strict, with data propagation of shape values) and map value name -> dims (int, or None if symbolic).

    A value whose rank is unknown maps to None. Inference failures give an empty map (every
    shape-dependent rewrite is then refused, never guessed).
    """
    model = _exact_initializer_outputs(model)
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=True)
    except Exception:
        return {}
    out: dict[str, list[int | None] | None] = {}
    g = inferred.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        t = vi.type.tensor_type
        if not vi.type.HasField("tensor_type") or not t.HasField("shape"):
            out.setdefault(vi.name, None)
            continue
        out[vi.name] = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
    for t in g.initializer:
        out[t.name] = list(t.dims)
    return out


def _exact_initializer_outputs(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model``, or a copy whose graph outputs that are (non-overridable) initializers declare the
    initializer's exact type.

    Shape inference takes such a value's type from the graph output's declaration, which may be
    looser than the tensor (``int64[?,?]`` for an ``int64[1,1]`` initializer), and then loses the
    shapes of everything computed from it -- which a second run, after those values were folded
    into initializers, would know. Declaring the exact type keeps inference (and so the passes)
    independent of that declaration. The caller's model is never modified.
    """
    g = model.graph
    inputs = {i.name for i in g.input}
    inits = {t.name: t for t in g.initializer if t.name not in inputs}
    fix = {}
    for o in g.output:
        t = inits.get(o.name)
        if t is None:
            continue
        exact = helper.make_tensor_value_info(o.name, t.data_type, list(t.dims))
        if o.type.SerializeToString(deterministic=True) != exact.type.SerializeToString(deterministic=True):
            fix[o.name] = exact
    if not fix:
        return model
    out = onnx.ModelProto()
    out.CopyFrom(model)
    for o in out.graph.output:
        if o.name in fix:
            o.type.CopyFrom(fix[o.name].type)
    return out


class _LazyShapes:
    """Shape inference run at most once per pass, and only if a rewrite needs a shape."""

    def __init__(self, model: onnx.ModelProto):
        self._model, self._shapes = model, None

    def dims(self, name: str) -> list[int | None] | None:
        if self._shapes is None:
            self._shapes = _static_shapes(self._model)
        return self._shapes.get(name)


# --------------------------------------------------------------------------------------------
# Pass 1: fuse consecutive Reshape
# --------------------------------------------------------------------------------------------


def fuse_consecutive_reshapes(model: onnx.ModelProto) -> PassResult:
    """Rewrite ``Reshape(Reshape(x, s1), s2)`` into ``Reshape(x, s2')``.

    Spec (ONNX ``Reshape``, opset 5-25): the output holds the input's elements in row-major order;
    a ``-1`` entry is inferred from the element count; a ``0`` entry "is unchanged (i.e. taken from
    the input tensor)" unless ``allowzero=1`` (opset >= 14), where it is a literal zero. So the
    second Reshape's result depends only on the element count of its input (equal to ``x``'s),
    on ``s2``, and, for each ``0`` in ``s2`` under ``allowzero=0``, on the matching dim of the
    *middle* tensor ``m = Reshape(x, s1)`` -- not of ``x``.

    Preconditions (otherwise the pair is left alone):
      * both nodes are default-domain ``Reshape`` (opset >= 5, shape given as an input) and ``m``
        reaches the second node through its **data** input (input 0), never its shape input;
      * ``m`` has exactly one use: no other consumer, not a graph output, no outer-scope
        reference from an If/Loop/Scan body;
      * ``s2`` is a constant (initializer or Constant node), or the second node has
        ``allowzero=1`` (then no entry of ``s2`` reads the input's dims and any ``s2`` works);
      * every ``0`` in a constant ``s2`` with ``allowzero=0`` is resolved: from a constant ``s1``
        (``s1[i] > 0`` gives that dim; ``s1[i] == 0`` with the first node's ``allowzero=0``
        copies ``x``'s dim ``i``, so the ``0`` stays valid in ``s2'``), else from a static dim of
        ``m`` after ``onnx.shape_inference``, completed through the current chain of constant-shape
        Reshapes that produces ``m`` (an earlier fusion may have bypassed a tensor whose shape
        inference could not know); an unresolvable or zero-sized dim refuses the fusion.

    The fused node is the second node with data input ``x`` and shape ``s2'`` (``s2`` itself when
    no ``0`` had to be resolved); its ``allowzero`` attribute is kept. The first Reshape is removed,
    and so is whatever only fed its shape input (e.g. a Shape->Gather->Concat chain), which the
    fusion left dead. Chains of any length fuse in one call (nodes are visited in topological order
    and each fuses upwards as far as it can). The pass iterates to a local fixed point, so it is
    idempotent: when a fusion's cleanup leaves a value with a single reader (e.g. it removed a
    ``Shape(m)`` that made an earlier pair's ``m`` have two uses), or changes a Reshape that feeds
    another one, that reader Reshape is tried again -- a worklist of exactly those values, so the
    pass stays linear.

    Returns:
        PassResult with ``rewrites`` = number of Reshape nodes removed.
    """
    m = _copy(model)
    if _opset(m) < 5:
        return PassResult(m, 0)
    idx = _Index(m)
    idx.dropped = []  # names whose use count fell to 1: their Reshape reader may have become fusable
    shapes = _LazyShapes(model)  # the untouched input: same names and values, never mid-rewrite
    rewrites = 0
    for node in idx.nodes:
        rewrites += _fuse_at(node, idx, shapes)
    # Local fixed point: a fusion can make an already visited pair fusable, because its cleanup
    # removed the other reader of that pair's middle tensor (e.g. a ``Shape(m)`` that only fed the
    # fused node's shape input), or because it rewrote the Reshape that produces a middle tensor.
    # Re-try just those Reshapes; each entry stems from one use-count decrement or one fusion, so
    # the work stays linear.
    while idx.dropped:
        name = idx.dropped.pop()
        if idx.uses[name] != 1:
            continue
        for reader, i in idx.live_consumers(name):
            if i == 0:
                rewrites += _fuse_at(reader, idx, shapes)
    return PassResult(idx.finish(), rewrites)


def _fuse_at(node, idx: _Index, shapes: _LazyShapes) -> int:
    """Fuse ``node`` (a Reshape) with its producer Reshape, repeatedly; returns the fusions done."""
    done = 0
    # Fuse upwards while the data producer is a fusable Reshape: an earlier fusion may have
    # made a Reshape the producer (or the sole reader) only after it was visited.
    while _is(node, "Reshape") and len(node.input) >= 2 and id(node) not in idx.removed:
        mid = node.input[0]
        first = idx.producer.get(mid)
        if first is None or id(first) in idx.removed or not _is(first, "Reshape") or len(first.input) < 2:
            break
        if idx.uses[mid] != 1:  # another consumer, a graph output, a subgraph reference, or s2 itself
            break
        new_shape = _fused_shape(node, first, idx, shapes)
        if new_shape is None:
            break
        idx.set_input(node, 0, first.input[0], cascade=False)  # ``first`` is removed just below
        if new_shape is not True:
            name = idx.unique_name(f"{node.input[1]}_fused")
            idx.add_initializer(name, new_shape)
            idx.set_input(node, 1, name)
        idx.remove_node(first)
        idx._dims_gen += 1
        done += 1
    if done and idx.dropped is not None and node.output and node.output[0]:
        # ``node`` changed (data input, maybe its shape input): its own Reshape reader, if that
        # is the only one, gets another look.
        idx.dropped.append(node.output[0])
    return done


def _fused_shape(node, first, idx: _Index, shapes: _LazyShapes):
    """``s2'`` for the fused Reshape: ``True`` = keep ``s2`` as is, an int64 array, or None = refuse."""
    s2 = idx.constant(node.input[1])
    allowzero2 = _attr_int(node, "allowzero", 0)
    if s2 is None:
        return True if allowzero2 == 1 else None
    if s2.ndim != 1 or s2.dtype != np.int64:
        return None
    if allowzero2 == 1 or not (s2 == 0).any():
        return True
    s1 = idx.constant(first.input[1])
    allowzero1 = _attr_int(first, "allowzero", 0)
    out = s2.copy()
    for i in np.flatnonzero(s2 == 0):
        if s1 is not None and s1.ndim == 1 and i < s1.shape[0] and s1[i] != -1:
            if s1[i] > 0:
                out[i] = s1[i]
                continue
            if allowzero1 == 0:  # m's dim i is x's dim i, and a 0 in s2' copies exactly that
                continue
            return None  # m's dim i is a literal 0 (allowzero=1): refuse rather than reason about empty tensors
        dims = _data_dims(node.input[0], idx, shapes)
        if dims is None or i >= len(dims) or not dims[i]:
            return None
        out[i] = dims[i]
    return out


def _data_dims(name: str, idx: _Index, shapes: _LazyShapes) -> list[int | None] | None:
    """Dims of ``name``: shape inference of the input model, completed through the *current*
    chain of Reshapes with constant shapes that produces it.

    A fusion rewires a Reshape past middle tensors whose shapes inference could not know (e.g. a
    computed shape input), so a later Reshape's output may only now be derivable from the
    Reshape spec (``0`` copies the input dim unless ``allowzero=1``, ``-1`` is the element count
    over the product of the others). Deriving it here decides the fusion the same way a second
    run (whose shape inference sees the rewritten graph) would. Results are memoized: fully
    static ones for the whole pass (a tensor's dims never change under these value-preserving
    rewrites), others until the next fusion (which may shorten a chain), so between fusions each
    value is walked once.
    """
    memo, gen = idx._dims_memo, idx._dims_gen
    chain, cur, base, seen = [], name, None, set()
    while True:
        hit = memo.get(cur)
        if hit is not None and hit[0] in (None, gen):
            base = hit[1]
            break
        d = shapes.dims(cur)
        if d is not None and all(v is not None for v in d):
            base = d
            memo[cur] = (None, d)
            break
        p = idx.producer.get(cur)
        if (p is None or id(p) in idx.removed or not _is(p, "Reshape") or len(p.input) < 2 or cur in seen
                or not p.input[0]):
            base = d
            break
        s = idx.constant(p.input[1])
        if s is None or s.ndim != 1 or s.dtype != np.int64:
            base = d
            break
        seen.add(cur)
        chain.append((cur, d, s, _attr_int(p, "allowzero", 0)))
        cur = p.input[0]
    for cur, d, s, allowzero in reversed(chain):
        derived = _reshape_dims(base, s, allowzero)
        if derived is None or (d is not None and len(d) != len(derived)):
            base = d
        else:
            base = [a if a is not None else b for a, b in zip(d, derived)] if d is not None else derived
        memo[cur] = (None if base is not None and all(v is not None for v in base) else gen, base)
    return base


def _reshape_dims(xd: list[int | None] | None, s: np.ndarray, allowzero: int) -> list[int | None] | None:
    """Output dims of ``Reshape(x, s)`` for dims ``xd`` of ``x`` (None entries = unknown), or None if ``s`` is invalid."""
    out: list[int | None] = []
    infer = None
    for j, v in enumerate(int(v) for v in s):
        if v > 0:
            out.append(v)
        elif v == 0:
            out.append(0 if allowzero else (xd[j] if xd is not None and j < len(xd) else None))
        elif v == -1 and infer is None:
            infer = j
            out.append(None)
        else:
            return None
    if infer is not None:
        others = [v for j, v in enumerate(out) if j != infer]
        if xd is not None and all(v is not None for v in xd) and all(v is not None for v in others):
            numel, rest = 1, 1
            for v in xd:
                numel *= v
            for v in others:
                rest *= v
            if rest > 0 and numel % rest == 0:
                out[infer] = numel // rest
    return out


# --------------------------------------------------------------------------------------------
# Pass 2: eliminate Identity
# --------------------------------------------------------------------------------------------


def eliminate_identity(model: onnx.ModelProto) -> PassResult:
    """Remove ``y = Identity(x)`` nodes of the main graph by renaming values.

    Spec (ONNX ``Identity``): the output equals the input (same type: tensor, sequence or
    optional), so every reader of ``y`` may read ``x`` instead. Contract (the clauses the tests check):

    1. ``y`` is not a graph output: every consumer of ``y`` is rewired to ``x``, including
       outer-scope references to ``y`` inside If/Loop/Scan bodies (node inputs and body outputs).
       If such a body itself defines a value named ``x`` (which would capture the renamed
       reference), the node stays.
    2. ``y`` is a graph output (its name is the model's interface and must not change): the
       producer's output ``x`` is renamed to ``y`` and every other reader of ``x`` (main graph and
       subgraph outer-scope references) follows, unless ``x`` is a graph input, an initializer or
       another graph output (then renaming would change the interface or a constant: the node
       stays), or a subgraph reading ``x`` defines ``y`` itself (the node stays).

    value_info entries of names that disappear are dropped. Nodes are visited in topological
    order and renames apply at once, so chains ``Identity(Identity(x))`` vanish in one call.

    Returns:
        PassResult with ``rewrites`` = number of Identity nodes removed.
    """
    m = _copy(model)
    idx = _Index(m)
    graph_inputs = {i.name for i in m.graph.input} | {t.name for t in m.graph.initializer}
    rewrites = 0
    for node in idx.nodes:
        if not _is(node, "Identity") or len(node.input) != 1 or len(node.output) != 1 or not node.input[0]:
            continue
        x, y = node.input[0], node.output[0]
        if y not in idx.outputs:
            if not _can_rename(idx, y, x):
                continue
            idx.removed.add(id(node))
            _rename_readers(idx, y, x)
        else:
            producer = idx.producer.get(x)
            if x in idx.outputs or x in graph_inputs or producer is None or not _can_rename(idx, x, y):
                continue
            idx.removed.add(id(node))
            producer.output[list(producer.output).index(x)] = y
            idx.producer[y] = producer
            _rename_readers(idx, x, y)
        rewrites += 1
    return PassResult(idx.finish(), rewrites)


def _can_rename(idx: _Index, old: str, new: str) -> bool:
    """Whether every subgraph reading ``old`` from the outer scope can read ``new`` instead."""
    return all(new not in idx.local_defs[id(holder)] for holder, *_ in idx.sub_refs.get(old, ()))


def _rename_readers(idx: _Index, old: str, new: str) -> None:
    """Point every live reader of ``old`` (main-graph inputs and subgraph references) at ``new``."""
    for n, i in idx.consumers.pop(old, []):
        if id(n) in idx.removed:
            continue
        n.input[i] = new
        idx.consumers[new].append((n, i))
    for ref in idx.sub_refs.pop(old, []):
        _, kind, obj, i = ref
        if kind == "input":
            obj.input[i] = new
        else:
            obj.output[i].name = new
        idx.sub_refs[new].append(ref)


# --------------------------------------------------------------------------------------------
# Pass 3: fold constant Gather
# --------------------------------------------------------------------------------------------


def fold_constant_gather(model: onnx.ModelProto) -> PassResult:
    """Replace a ``Gather`` with constant inputs by an initializer holding its result.

    Spec (ONNX ``Gather``, opset 13): for ``data`` of rank r >= 1, ``indices`` of rank q and
    ``axis`` in [-r, r-1] (negative counts from the back), the output has rank q + (r - 1): the
    q index dims take the place of ``axis`` -- so rank-0 indices drop only the gathered axis.
    Index values must lie in [-s, s-1] for s = data.shape[axis]; negative ones count from the end
    (opset >= 11; earlier opsets are folded only for non-negative indices). That is exactly
    ``numpy.take(data, indices, axis)``, which computes the fold. Out-of-range indices are never
    folded (the runtime error is kept).

    Two folds:
      * ``data`` and ``indices`` are constants (initializers that are not graph inputs, or
        ``Constant`` nodes);
      * ``Gather(Shape(x), indices)`` with constant ``indices`` (axis 0 of the 1-D shape): every
        gathered dim of ``x`` is static after ``onnx.shape_inference`` -- other dims of ``x``
        may stay symbolic (``batch``, ``sequence``). When ``x`` is a constant (including a value
        folded earlier in the same call) its dims are taken from the value itself; shape
        inference treats a graph output that is an initializer as having the initializer's
        exact type, not the (possibly looser) declared one. So whatever a second run could fold
        is already folded by the first: the pass is idempotent. ``Shape``'s ``start``/``end``
        attributes (opset 15) are applied with the spec's clamping to [0, r].

    The result becomes an initializer named like the Gather's output; when that output is a graph
    output the Gather becomes a ``Constant`` node instead (an initializer cannot double as the
    output here). Producers left without readers (the ``Shape``, a ``Constant``, an unused
    initializer) are removed. Results over :data:`MAX_FOLD_ELEMENTS` elements are not folded.

    Returns:
        PassResult with ``rewrites`` = number of Gather nodes folded.
    """
    m = _copy(model)
    opset = _opset(m)
    idx = _Index(m)
    shapes = _LazyShapes(model)  # the untouched input: same names and values, never mid-rewrite
    rewrites = 0
    for node in idx.nodes:
        if not _is(node, "Gather") or len(node.input) != 2 or id(node) in idx.removed:
            continue
        indices = idx.constant(node.input[1])
        if indices is None or indices.dtype not in (np.int32, np.int64):
            continue
        if opset < 11 and (indices < 0).any():
            continue
        axis = _attr_int(node, "axis", 0)
        data = idx.constant(node.input[0])
        if data is not None:
            folded = _take(data, indices, axis)
        else:
            folded = _gather_shape(idx, shapes, node.input[0], indices, axis)
        if folded is None or folded.size > MAX_FOLD_ELEMENTS:
            continue
        out = node.output[0]
        if out in idx.outputs:
            tensor = numpy_helper.from_array(folded, out)
            for name in list(node.input):
                idx._release([name], cascade=True)
            del node.input[:]
            del node.attribute[:]
            node.op_type = "Constant"
            node.attribute.append(helper.make_attribute("value", tensor))
            idx._const_cache[out] = folded
        else:
            idx.remove_node(node)
            idx.producer.pop(out, None)
            idx.add_initializer(out, folded)
        rewrites += 1
    return PassResult(idx.finish(), rewrites)


def _take(data: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray | None:
    """``numpy.take`` under the spec's preconditions, or None when the Gather is invalid."""
    r = data.ndim
    if r < 1 or not -r <= axis < r:
        return None
    s = data.shape[axis]
    if indices.size and (indices.min() < -s or indices.max() > s - 1):
        return None
    return np.asarray(np.take(data, indices.astype(np.int64), axis=axis))


def _gather_shape(idx: _Index, shapes: _LazyShapes, name: str, indices: np.ndarray, axis: int) -> np.ndarray | None:
    """Fold ``Gather(Shape(x, start, end), indices, axis)`` when the gathered dims are static."""
    shape_node = idx.producer.get(name)
    if shape_node is None or id(shape_node) in idx.removed or not _is(shape_node, "Shape"):
        return None
    if axis not in (0, -1):
        return None
    value = idx.constant(shape_node.input[0])
    # A constant's shape is its array's (this covers values folded earlier in this very pass,
    # which the one shape inference of the input model saw only as Gather outputs).
    dims = list(value.shape) if value is not None else shapes.dims(shape_node.input[0])
    if dims is None:  # rank unknown
        return None
    r = len(dims)
    start, end = _attr_int(shape_node, "start", 0), _attr_int(shape_node, "end", r)
    start, end = (min(max(v + r if v < 0 else v, 0), r) for v in (start, end))
    picked = _take(np.array(dims[start:end], dtype=object), indices, 0)
    if picked is None or any(d is None for d in picked.flat):
        return None
    return picked.astype(np.int64)


# --------------------------------------------------------------------------------------------
# Pass manager
# --------------------------------------------------------------------------------------------

CUSTOM_PASSES: dict[str, Callable[[onnx.ModelProto], PassResult]] = {
    "fuse_consecutive_reshapes": fuse_consecutive_reshapes,
    "eliminate_identity": eliminate_identity,
    "fold_constant_gather": fold_constant_gather,
}


def op_counts(model: onnx.ModelProto) -> collections.Counter:
    """Counter of ``op_type`` over the main graph's nodes (subgraph bodies are not counted)."""
    return collections.Counter(n.op_type for n in model.graph.node)


def run_passes(
    model: onnx.ModelProto,
    passes: list[str] | None = None,
    onnxoptimizer_passes: Iterable[str] = (),
    max_iters: int = 10,
) -> tuple[onnx.ModelProto, list[dict]]:
    """Run custom passes (then onnxoptimizer built-ins) in order, repeatedly, until nothing changes.

    One iteration runs every name in ``passes`` (default: all of :data:`CUSTOM_PASSES`, in that
    order), then, if given, ``onnxoptimizer.optimize(model, onnxoptimizer_passes)`` as one step.
    Iteration stops at the first one that changes nothing (a fixed point) or after ``max_iters``.

    Returns:
        ``(model, report)``; ``report`` has one dict per pass run: ``iter`` (0-based), ``pass``
        (name; onnxoptimizer's step is ``"onnxoptimizer:" + ",".join(names)``), ``rewrites``
        (for onnxoptimizer, which reports no count: nodes removed, or 1 if it changed the
        model without removing nodes), ``nodes_before``, ``nodes_after`` (main-graph nodes) and
        ``seconds`` (wall time of that pass).

    Raises:
        UserError: an unknown pass name, or onnxoptimizer requested but not installed / not
        knowing a pass. The input model is never modified.
    """
    names = list(CUSTOM_PASSES) if passes is None else list(passes)
    unknown = [p for p in names if p not in CUSTOM_PASSES]
    if unknown:
        raise UserError(f"unknown custom pass(es) {unknown}; choose from {sorted(CUSTOM_PASSES)}")
    opt_names = list(onnxoptimizer_passes)
    if opt_names:
        from common.errors import require

        onnxoptimizer = require("onnxoptimizer", "onnxoptimizer", "run_passes(onnxoptimizer_passes=...)")
        bad = sorted(set(opt_names) - set(onnxoptimizer.get_available_passes()))
        if bad:
            raise UserError(f"onnxoptimizer has no pass(es) {bad}; see onnxoptimizer.get_available_passes()")
    current = _copy(model)
    report: list[dict] = []
    for it in range(max_iters):
        changed = False
        for name in names:
            before = len(current.graph.node)
            t0 = time.perf_counter()
            result = CUSTOM_PASSES[name](current)
            dt = time.perf_counter() - t0
            current = result.model
            changed |= result.rewrites > 0
            report.append({"iter": it, "pass": name, "rewrites": result.rewrites, "nodes_before": before,
                           "nodes_after": len(current.graph.node), "seconds": dt})
        if opt_names:
            before, blob = len(current.graph.node), current.SerializeToString()
            t0 = time.perf_counter()
            optimized = onnxoptimizer.optimize(current, opt_names)
            dt = time.perf_counter() - t0
            after = len(optimized.graph.node)
            differs = optimized.SerializeToString() != blob
            changed |= differs
            current = optimized
            report.append({"iter": it, "pass": "onnxoptimizer:" + ",".join(opt_names),
                           "rewrites": max(before - after, int(differs)), "nodes_before": before,
                           "nodes_after": after, "seconds": dt})
        if not changed:
            break
    return current, report
