"""Pass: fuse an exact Erf-GELU written in primitive ops into one ``com.microsoft.Gelu`` node.

Why (the coverage gap it closes): QNN's HTP op set has no ``Erf``, so the QNN EP refuses a lone
``Erf`` ("Operators of type `Erf` are not supported by QNN EP"). It does have a ``Gelu`` op, and the
EP maps ``com.microsoft.Gelu`` onto it; its own ``GeluFusion`` also recognizes the spellings
``root -> Div(sqrt 2) | Mul(1/sqrt 2) -> Erf -> Add(1) -> Mul ... Mul(0.5)`` (checked here with
onnxruntime-qnn 2.7.0). Any other spelling of the same function, e.g. the final ``Div(2)`` of
``jax.nn.gelu`` (``x * (erf(x / sqrt 2) + 1) / 2``), leaves ``Erf`` on the CPU and cuts the graph
into one more QNN partition per GELU.

Rewrite (``y`` is replaced, its value unchanged up to float rounding)::

    s = Mul(x, c) | Div(x, d)            c = 1/sqrt 2, d = sqrt 2 (within 1e-6)
    e = Erf(s);  a = Add(e, 1)           (either operand order)
    y = Mul(Mul(x, 0.5), a)              pattern A
      | Mul(Mul(x, a), 0.5) | Div(Mul(x, a), 2)     pattern B
      | Mul(x, Mul(a, 0.5))              pattern C
    ->  y = com.microsoft.Gelu(x)

Spec: ``Gelu(x) = 0.5 * x * (1 + erf(x / sqrt 2))`` (ONNX ``Gelu``, opset 20, ``approximate =
"none"``; ORT contrib op ``com.microsoft.Gelu`` is the same function, for any opset). Exact in
real arithmetic; in float32 ORT's fused kernel rounds differently from the five separate ops
(measured: max abs 4.8e-7 on test-size BERT, 2.2e-6 after the 12 layers of BERT-base, on outputs
of magnitude ~2-4, i.e. a few ulps), so the pass contract compares at :data:`ATOL` instead of bitwise.

Preconditions (only when ...): every intermediate (``s``, ``e``, ``a`` and the inner product) has
exactly one use -- one main-graph reader, not a graph output, and no outer-scope read by any
If/Loop/Scan body at any depth of nesting (ONNX IR spec, onnx/docs/IR.md "Names Within a Graph":
a nested subgraph may read any value of its enclosing graphs; :class:`common.onnx_graph.GraphIndex`
counts those reads); ``c``/``d``/``1``/``0.5``/``2`` are one-element float32 constants
(initializers that are not graph inputs, or ``Constant`` outputs), and one of rank > 0 is used
only where shape inference gives the other operand at least its rank (so it broadcasts nothing
new); all nodes are in the default domain.

The rewrite is one rule, :func:`fuse_gelu_at`, on Lab 01's rule driver
(:func:`lab01_onnx.passes.core.apply_rule`: every node once, then wherever a rewrite reopened
something, to a fixed point). The chain's nodes and the constants only it read go with it; when
anything was fused, constants left without any reader elsewhere in the model are dropped too
(initializers only when not graph inputs), so the EP sees no dead weights.
"""
from __future__ import annotations

import numpy as np
import onnx

from lab01_onnx.passes.core import DefUseIndex, PassResult, apply_rule, is_op
from lab01_onnx.passes.shapes import Shapes

MS_DOMAIN = "com.microsoft"
#: the pass contract's tolerance (float32 rounding of the fused kernel; see the module doc)
ATOL = 1e-5
_TARGETS = {"inv_sqrt2": 1 / np.sqrt(2), "sqrt2": np.sqrt(2), "one": 1.0, "half": 0.5, "two": 2.0}


class _Chain:
    """What :func:`_match` asks of the def-use index while it walks one candidate chain."""

    def __init__(self, idx: DefUseIndex, shapes: Shapes):
        self.idx, self.shapes = idx, shapes

    def node(self, name: str, op: str) -> onnx.NodeProto | None:
        """The live default-domain ``op`` node writing ``name``, or None."""
        return self.idx.producer_node(name, op)

    def private(self, name: str) -> bool:
        """``name`` has one use in all: its one main-graph reader, no graph output, no subgraph read."""
        return self.idx.uses[name] == 1

    def is_const(self, name: str, target: str, other: str) -> bool:
        """``name`` is a one-element float32 constant within 1e-6 of ``target`` that broadcasts
        against ``other`` (the op's other operand) without changing its shape."""
        v = self.idx.constant(name)
        if v is None or v.dtype != np.float32 or v.size != 1 or abs(float(v.reshape(())) - _TARGETS[target]) > 1e-6:
            return False
        if v.ndim == 0:
            return True
        dims = self.shapes.dims(other)
        return dims is not None and len(dims) >= v.ndim

    def split(self, n: onnx.NodeProto, target: str) -> str | None:
        """The non-constant input of a binary node whose other input is the ``target`` constant."""
        if len(n.input) != 2:
            return None
        a, b = n.input[0], n.input[1]
        if self.is_const(b, target, a):
            return a
        return b if n.op_type != "Div" and self.is_const(a, target, b) else None


def _match(g: _Chain, y: onnx.NodeProto) -> tuple[str, onnx.NodeProto] | None:
    """``(x, the Erf node)`` when ``y`` ends an Erf-GELU of ``x`` (module doc), else None."""
    if not (is_op(y, "Mul") or is_op(y, "Div")) or len(y.input) != 2:
        return None
    candidates = []  # (x, a)
    if y.op_type == "Div" or (x_a := g.split(y, "half")) is not None:  # pattern B: (x * a) * 0.5 or / 2
        inner = g.split(y, "two") if y.op_type == "Div" else x_a
        if inner is not None and (m := g.node(inner, "Mul")) is not None and g.private(inner):
            candidates += [(m.input[k], m.input[1 - k]) for k in (0, 1)]
    if y.op_type == "Mul":
        for k in (0, 1):
            h, a = y.input[k], y.input[1 - k]
            if (m := g.node(h, "Mul")) is not None and g.private(h) and (x := g.split(m, "half")) is not None:
                candidates.append((x, a))  # pattern A: (x * 0.5) * a
            if (m := g.node(a, "Mul")) is not None and g.private(a) and (a2 := g.split(m, "half")) is not None:
                candidates.append((h, a2))  # pattern C: x * (a * 0.5)
    for x, a in candidates:
        add = g.node(a, "Add")
        if add is None or not g.private(a) or (e := g.split(add, "one")) is None:
            continue
        erf = g.node(e, "Erf")
        if erf is None or not g.private(e) or len(erf.input) != 1:
            continue
        s = erf.input[0]
        scale = g.node(s, "Mul") or g.node(s, "Div")
        if scale is None or not g.private(s):
            continue
        if g.split(scale, "inv_sqrt2" if scale.op_type == "Mul" else "sqrt2") == x:
            return x, erf
    return None


def fuse_gelu_at(idx: DefUseIndex, pos: int, shapes: Shapes) -> int:
    """The rule: if node ``pos`` ends an Erf-GELU of ``x`` (module doc), turn it into
    ``com.microsoft.Gelu(x)`` (same output name; named ``<Erf's name>_gelu``) and release its old
    inputs, which removes the rest of the chain and the constants only it read. Returns 1 if
    fused, else 0."""
    hit = _match(_Chain(idx, shapes), idx.nodes[pos])
    if hit is None:
        return 0
    x, erf = hit
    node = idx.nodes[pos]
    old = [t for t in node.input if t]
    node.op_type, node.domain, node.name = "Gelu", MS_DOMAIN, (erf.name + "_gelu") if erf.name else ""
    del node.input[:]
    del node.attribute[:]
    node.input.append(x)
    idx.uses[x] += 1
    idx.consumers[x].append((pos, 0))
    idx.release(old)
    if not any(o.domain == MS_DOMAIN for o in idx.model.opset_import):
        idx.model.opset_import.append(onnx.helper.make_opsetid(MS_DOMAIN, 1))
    return 1


def fuse_erf_gelu(model: onnx.ModelProto) -> PassResult:
    """Rewrite every Erf-GELU of the module doc into ``com.microsoft.Gelu``; the input is not modified.

    Returns:
        ``lab01_onnx.passes.PassResult(model, rewrites)``: ``rewrites`` = GELUs fused (0: the
        returned model equals the input).

    Raises:
        UserError: ``model`` is not an ``onnx.ModelProto``.
    """
    result = apply_rule(model, fuse_gelu_at)
    if result.rewrites:
        _drop_dead_constants(result.model)
    return result


def _drop_dead_constants(model: onnx.ModelProto) -> None:
    """Remove, in place, default-domain ``Constant`` nodes and non-input initializers without any
    use (outer-scope reads at any depth count: :class:`DefUseIndex`)."""
    idx = DefUseIndex(model)
    idx.removed |= {pos for pos, n in enumerate(idx.nodes)
                    if is_op(n, "Constant") and all(idx.uses[o] <= 0 for o in n.output if o)}
    idx.removed_inits |= {name for name in idx.initializers if idx.uses[name] <= 0}
    idx.finish()


def prove(model: onnx.ModelProto, feeds_list, atol: float = ATOL):
    """Lab 01's pass contract (:func:`lab01_onnx.proof.contract.check_variant`) for :func:`fuse_erf_gelu`.

    The reference side runs on the first runtime that can run the original (ORT's CPU EP with
    optimizations off, else ``onnx.reference``); outputs are compared at ``atol``.

    Returns:
        ``(runtime name, Outcome)``; ``Outcome.status`` is ``equal``, ``unchanged`` or the first
        broken clause.
    """
    from lab01_onnx.proof.conformance import run_reference_side
    from lab01_onnx.proof.contract import check_variant

    runtime, ref = run_reference_side(model, feeds_list)
    return runtime, check_variant(fuse_erf_gelu, model, feeds_list, runtime, ref, full_check=True, atol=atol)
