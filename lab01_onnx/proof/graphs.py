"""A hypothesis strategy for small valid ONNX graphs built from the passes' patterns and traps.

:func:`fuzz_graphs` builds a graph step by step (recipes), tracking every tensor's concrete value,
so each choice is valid by design:

* ``Reshape`` with ``0`` (copy the input's dim) and ``-1`` entries, ``allowzero`` absent/0/1
  (with empty tensors for literal zeros), chains (the newest tensor is the preferred source, and
  shrinking moves toward it), and shape tensors that are themselves computed:
  ``Concat`` of ``Gather(Shape(t), i)`` pieces, ``Shape(t)`` of another tensor, a ``Reshape``
  of a constant (a Reshape feeding another Reshape's *shape* input);
* ``Identity`` of anything (graph inputs, initializers, shape tensors), chained, feeding graph
  outputs, and read from the outer scope of ``If`` branches and ``Loop`` bodies;
* ``Gather`` with negative, rank-0 and 2-D indices, every axis, over initializers, ``Constant``
  nodes, runtime tensors and ``Shape`` (with ``start``/``end``), indices as int64 or int32;
* ``Shape``, elementwise ``Add``/``Mul``/``Neg``/``Relu``, and graph outputs in the middle of
  chains. Graph inputs sometimes declare symbolic dims (``dim_param``), so shape inference
  knows some dims and not others; some Gather data/indices are initializers that are also graph
  inputs (overridable defaults, ONNX IR spec "Graphs"), fed another value, so folding them is wrong.

Values are small integers stored as float32, so every op here is exact (opsets 13-21).
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

OPSETS = (13, 14, 15, 17, 18, 21)
IR_FOR_OPSET = {13: 7, 14: 7, 15: 8, 17: 8, 18: 8, 21: 10}
MAX_DIM = 4


# ---------------------------------------------------------------------------------------------
# Graph builder: every tensor's concrete value is tracked, so each choice is valid by design
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass
class FuzzCase:
    """A generated model, its feeds (input name -> array) and the features it exercises."""

    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    features: collections.Counter

    def text(self) -> str:
        """The graph in ONNX textual syntax (``onnx.printer``), for reports and tests."""
        return onnx.printer.to_text(self.model)


class Builder:
    """Collects nodes, initializers, inputs and outputs, and the value of every tensor."""

    def __init__(self, draw: Callable, opset: int):
        self.draw, self.opset = draw, opset
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[str] = []
        self.vals: dict[str, np.ndarray] = {}
        self.order: list[str] = []  # tensors in creation order (newest last)
        self.feeds: dict[str, np.ndarray] = {}
        self.features: collections.Counter = collections.Counter()
        self.count = 0

    # -- naming and registration --------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        """A new tensor name, ``prefix`` then a counter shared by all prefixes (``x1``, ``c2``, ...)."""
        self.count += 1
        return f"{prefix}{self.count}"

    def _define(self, name: str, value: np.ndarray) -> str:
        self.vals[name] = np.asarray(value)
        self.order.append(name)
        return name

    def node(self, op: str, inputs: Sequence[str], result: np.ndarray, prefix: str, /,
             **attrs) -> str:
        """Append ``op(inputs, **attrs)``; ``result`` is its (NumPy-computed) output value."""
        out = self.fresh(prefix)
        self.nodes.append(helper.make_node(op, list(inputs), [out], **attrs))
        self.features[op] += 1
        return self._define(out, result)

    def graph_input(self, value: np.ndarray, prefix: str = "x", symbolic: Sequence[bool] = ()) -> str:
        """A new graph input fed with ``value``; each axis ``i`` with ``symbolic[i]`` true gets a named dim
        (``<name>_d<i>``) instead of its size. Returns the input's name."""
        value = np.asarray(value)
        name = self.fresh(prefix)
        dims = [f"{name}_d{i}" if (i < len(symbolic) and symbolic[i]) else d
                for i, d in enumerate(value.shape)]
        if any(isinstance(d, str) for d in dims):
            self.features["symbolic_input_dim"] += 1
        elem = helper.np_dtype_to_tensor_dtype(value.dtype)
        self.inputs.append(helper.make_tensor_value_info(name, elem, dims))
        self.feeds[name] = value
        return self._define(name, value)

    def const(self, value: np.ndarray, prefix: str = "c", how: str | None = None) -> str:
        """A constant as an initializer or a ``Constant`` node (drawn unless ``how`` is given)."""
        how = how or self.draw(st.sampled_from(["init", "node"]))
        value = np.asarray(value)
        if how == "init":
            name = self.fresh(prefix)
            self.inits.append(numpy_helper.from_array(value, name))
            self.features["initializer"] += 1
            return self._define(name, value)
        return self.node("Constant", [], value, prefix,
                         value=numpy_helper.from_array(value, "value"))

    def overridable(self, default: np.ndarray, fed: np.ndarray, prefix: str) -> str:
        """An initializer that is also a graph input: only a default value (ONNX IR spec,
        "Graphs"), so no pass may fold it. The feeds give ``fed`` instead of ``default``."""
        fed = np.asarray(fed)
        name = self.fresh(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(default), name))
        elem = helper.np_dtype_to_tensor_dtype(fed.dtype)
        self.inputs.append(helper.make_tensor_value_info(name, elem, list(fed.shape)))
        self.feeds[name] = fed
        self.features["overridable_initializer"] += 1
        return self._define(name, fed)

    # -- choosing existing tensors --------------------------------------------------------------
    def pick(self, pred: Callable[[np.ndarray], bool] = lambda v: True, *, prefer_identity=False
             ) -> str | None:
        """An existing tensor satisfying ``pred``; index 0 is the newest, so shrinking builds
        chains (each op reads the previous one)."""
        names = [n for n in reversed(self.order) if pred(self.vals[n])]
        if prefer_identity:
            names = sorted(names, key=lambda n: not n.startswith("id"))
        if not names:
            return None
        return names[self.draw(st.integers(0, len(names) - 1))]

    def mark_output(self, name: str) -> None:
        """Make ``name`` a graph output (once; outputs keep the order of their first mark)."""
        if name not in self.outputs:
            self.outputs.append(name)

    # -- finishing --------------------------------------------------------------------------------
    def output_info(self, name: str) -> onnx.ValueInfoProto:
        """The ``ValueInfoProto`` of output ``name``: its element type, and either its static shape or, drawn, a
        shape of the same rank with every dim unknown."""
        v = self.vals[name]
        elem = helper.np_dtype_to_tensor_dtype(v.dtype)
        how = self.draw(st.sampled_from(["static", "unknown"]))
        dims = list(v.shape) if how == "static" else [None] * v.ndim
        return helper.make_tensor_value_info(name, elem, dims)

    def model(self) -> onnx.ModelProto:
        """The ``ModelProto`` of everything added: graph ``fuzz``, default-domain opset ``opset`` and the IR version
        of :data:`IR_FOR_OPSET` for it."""
        graph = helper.make_graph(self.nodes, "fuzz", self.inputs,
                                  [self.output_info(o) for o in self.outputs], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                  producer_name="lab01_onnx.proof.fuzz")
        model.ir_version = IR_FOR_OPSET[self.opset]
        return model


# ---------------------------------------------------------------------------------------------
# Recipes: each adds a few nodes
# ---------------------------------------------------------------------------------------------

def _factor(draw, numel: int, rank: int) -> list[int]:
    """Dims of ``rank`` whose product is ``numel`` (one of them 0 when numel is 0)."""
    if numel == 0:
        dims = [draw(st.integers(1, 3)) for _ in range(rank)]
        dims[draw(st.integers(0, rank - 1))] = 0
        return dims
    dims = [1] * rank
    n, p = numel, 2
    primes = []
    while n > 1:
        while n % p == 0:
            primes.append(p)
            n //= p
        p += 1
    for q in primes:
        dims[draw(st.integers(0, rank - 1))] *= q
    return dims


def _shape_entries(b: Builder, src: np.ndarray, dims: list[int], allowzero: int) -> list[int]:
    """Encode target ``dims`` as a Reshape shape: some entries become 0 (copy the input's dim,
    allowzero=0 only) and at most one -1 (inferred), as the spec allows."""
    draw = b.draw
    entries = list(dims)
    for i, d in enumerate(dims):
        if allowzero == 0 and i < src.ndim and src.shape[i] == d and draw(st.booleans()):
            entries[i] = 0
            b.features["reshape_zero_copy"] += 1
    if src.size > 0 and draw(st.booleans()):
        cands = [i for i in range(len(dims)) if entries[i] != 0]  # keep the 0-copies
        i = cands[draw(st.integers(0, len(cands) - 1))] if cands else None
        if i is not None:
            entries[i] = -1
            b.features["reshape_minus_one"] += 1
    if allowzero == 1 and 0 in entries and -1 in entries:
        entries[entries.index(-1)] = dims[entries.index(-1)]  # spec: 0 and -1 together invalid
    return entries


def _computed_shape(b: Builder, entries: list[int]) -> str:
    """Build the shape vector at runtime: Concat of constant pieces and Gather(Shape(t), i)."""
    draw = b.draw
    pieces = []
    for e in entries:
        holders = [n for n in b.order if e > 0 and b.vals[n].ndim >= 1 and e in b.vals[n].shape]
        if holders and draw(st.booleans()):
            t = holders[draw(st.integers(0, len(holders) - 1))]
            shp = b.vals[t].shape
            axis = [i for i, d in enumerate(shp) if d == e][0]
            s = b.node("Shape", [t], np.array(shp, np.int64), "s")
            idx_val = axis - len(shp) if draw(st.booleans()) else axis
            if draw(st.booleans()):  # rank-1 index: Gather keeps a 1-D result
                i = b.const(np.array([idx_val], np.int64), "i")
                pieces.append(b.node("Gather", [s, i], np.array([e], np.int64), "g", axis=0))
            else:  # rank-0 index, then Unsqueeze back to 1-D
                i = b.const(np.array(idx_val, np.int64), "i")
                g = b.node("Gather", [s, i], np.array(e, np.int64), "g", axis=0)
                ax = b.const(np.array([0], np.int64), "c", how="init")
                pieces.append(b.node("Unsqueeze", [g, ax], np.array([e], np.int64), "u"))
            b.features["gather_over_shape"] += 1
        else:
            pieces.append(b.const(np.array([e], np.int64)))
    if len(pieces) == 1:
        return pieces[0]
    b.features["computed_shape"] += 1
    return b.node("Concat", pieces, np.array(entries, np.int64), "cat", axis=0)


def add_reshape(b: Builder) -> None:
    """``Reshape(src, shape)`` with a drawn target, encoding and shape source."""
    draw = b.draw
    ok = lambda v: v.ndim >= 1 and v.size <= 256  # noqa: E731
    newest = [n for n in reversed(b.order) if n.startswith("r") and ok(b.vals[n])][:1]
    src = newest[0] if newest and draw(st.booleans()) else b.pick(ok)  # favour chains
    if src is None:
        return
    x = b.vals[src]
    rank = draw(st.integers(1, 4))
    # keep a prefix of the source's dims (so 0-copy entries are possible), factor the rest
    keep = draw(st.integers(0, min(rank - 1, x.ndim))) if x.size else 0
    head = list(x.shape[:keep])
    dims = head + _factor(draw, x.size // int(np.prod(head)), rank - keep)
    allowzero = draw(st.sampled_from([None, 0, 1])) if b.opset >= 14 else None
    if x.size == 0 and allowzero != 1:
        allowzero = 1 if b.opset >= 14 else None
        if allowzero is None:
            return
    entries = _shape_entries(b, x, dims, allowzero or 0)
    how = draw(st.sampled_from(["init", "node", "computed", "reshaped_const", "shape_of"]))
    shape_name = None
    if how == "shape_of":
        same = [n for n in b.order if b.vals[n].shape == tuple(dims) and n != src]
        if same:
            shape_name = b.node("Shape", [same[draw(st.integers(0, len(same) - 1))]],
                                np.array(dims, np.int64), "s")
            b.features["reshape_shape_of_tensor"] += 1
    if shape_name is None and how == "computed":
        shape_name = _computed_shape(b, entries)
    if shape_name is None and how == "reshaped_const":
        c2 = b.const(np.array(entries, np.int64).reshape(len(entries), 1), "c")
        flat = b.const(np.array([-1], np.int64), "c")
        shape_name = b.node("Reshape", [c2, flat], np.array(entries, np.int64), "r")
        b.features["reshape_feeds_shape_input"] += 1
    if shape_name is None:
        shape_name = b.const(np.array(entries, np.int64), "c", how="init" if how == "init" else "node")
    attrs = {} if allowzero is None else {"allowzero": allowzero}
    if allowzero == 1:
        b.features["reshape_allowzero_1"] += 1
    if src.startswith("r"):
        b.features["reshape_chain"] += 1
    b.node("Reshape", [src, shape_name], x.reshape(dims), "r", **attrs)
    if src.startswith("r") and x.dtype != np.bool_ and draw(st.integers(0, 3)) == 0:
        add_if(b, src)  # the chain's middle tensor is also read from a subgraph


def add_identity(b: Builder) -> None:
    """``Identity`` of any existing tensor (graph inputs and constants included)."""
    src = b.pick()
    if src is not None:
        if src.startswith("id"):
            b.features["identity_chain"] += 1
        if src in b.feeds:
            b.features["identity_of_graph_input"] += 1
        b.node("Identity", [src], b.vals[src], "id")


def add_gather(b: Builder) -> None:
    """``Gather`` over a runtime tensor, a constant or ``Shape``, any axis, varied indices."""
    draw = b.draw
    kind = draw(st.sampled_from(["const", "shape", "runtime"]))
    if kind == "shape":
        src = b.pick(lambda v: v.ndim >= 1)
        if src is None:
            return
        r = b.vals[src].ndim
        full = np.array(b.vals[src].shape, np.int64)
        attrs = {}
        if b.opset >= 15 and draw(st.booleans()):
            start, end = draw(st.integers(-r - 1, r)), draw(st.integers(-r, r + 1))
            attrs = {"start": start, "end": end}
            ns, ne = (min(max(v + r if v < 0 else v, 0), r) for v in (start, end))
            full = full[ns:ne]
            b.features["shape_start_end"] += 1
        data = b.node("Shape", [src], full, "s", **attrs)
        b.features["gather_over_shape"] += 1
    elif kind == "const":
        shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
        dtype = draw(st.sampled_from([np.int64, np.float32]))
        value = (np.arange(int(np.prod(shape))) - 2).reshape(shape).astype(dtype)
        if draw(st.integers(0, 5)) == 0:
            data = b.overridable(value, (value + 7).astype(dtype), "k")
        else:
            data = b.const(value, "k")
        b.features["gather_over_constant"] += 1
    else:
        data = b.pick(lambda v: v.ndim >= 1 and v.size > 0)
        if data is None:
            return
    dv = b.vals[data]
    if dv.ndim == 0 or dv.size == 0:
        return
    axis = draw(st.integers(-dv.ndim, dv.ndim - 1))
    s = dv.shape[axis]
    irank = draw(st.integers(0, 2))
    ishape = tuple(draw(st.integers(1, 2)) for _ in range(irank))
    idx = np.array(draw(st.lists(st.integers(-s, s - 1), min_size=int(np.prod(ishape)),
                                 max_size=int(np.prod(ishape))))).reshape(ishape)
    idx = idx.astype(draw(st.sampled_from([np.int64, np.int32])))
    if (idx < 0).any():
        b.features["gather_negative_index"] += 1
    b.features[f"gather_index_rank{irank}"] += 1
    where = draw(st.integers(0, 9))
    if where < 2:
        ind = b.graph_input(idx, "xi")  # runtime indices: never foldable
    elif where == 2 and s > 1:  # a default the caller overrides with other valid indices
        ind = b.overridable(idx, np.asarray((idx.astype(np.int64) + 1) % s, dtype=idx.dtype), "i")
        idx = b.vals[ind]
    else:
        ind = b.const(idx, "i")
    b.node("Gather", [data, ind], np.take(dv, idx.astype(np.int64), axis=axis), "g", axis=axis)


def add_shape(b: Builder) -> None:
    """``Shape`` of an existing tensor of rank >= 1 (int64 [rank]); adds nothing when there is none."""
    src = b.pick(lambda v: v.ndim >= 1)
    if src is not None:
        b.node("Shape", [src], np.array(b.vals[src].shape, np.int64), "s")


def add_elementwise(b: Builder) -> None:
    """Unary ``Neg``/``Relu`` or binary ``Add``/``Mul`` with a same-shape tensor or a scalar."""
    draw = b.draw
    src = b.pick(lambda v: v.dtype in (np.float32, np.int64))
    if src is None:
        return
    x = b.vals[src]
    op = draw(st.sampled_from(["Add", "Mul", "Neg", "Relu"]))
    if op == "Relu" and x.dtype != np.float32:
        op = "Neg"
    if op in ("Neg", "Relu"):
        b.node(op, [src], -x if op == "Neg" else np.maximum(x, 0), "e")
        return
    other = b.pick(lambda v: v.shape == x.shape and v.dtype == x.dtype)
    if other is None or draw(st.booleans()):
        other = b.const(np.array(draw(st.integers(-2, 2)), x.dtype), "c")
    y = b.vals[other]
    b.node(op, [src, other], (x + y if op == "Add" else x * y).astype(x.dtype), "e")


def _cond(b: Builder) -> tuple[str, bool]:
    if b.draw(st.booleans()):
        value = np.array(b.draw(st.booleans()))
        return b.graph_input(value, "cond"), bool(value)
    value = b.draw(st.booleans())
    return b.const(np.array(value), "c", how="node"), value


def add_if(b: Builder, a: str | None = None) -> None:
    """``If`` whose branches read outer-scope tensors: ``a`` when given (e.g. the middle of a
    Reshape chain, which then must not be fused away), else Identity outputs preferred."""
    draw = b.draw
    if a is not None:
        b.features["reshape_mid_read_by_if_branch"] += 1
    else:
        a = b.pick(lambda v: v.dtype != np.bool_, prefer_identity=True)
    if a is None:
        return
    if not a.startswith(("id", "r")) and draw(st.booleans()):
        a = b.node("Identity", [a], b.vals[a], "id")  # the trap: a body reads an Identity output
    av = b.vals[a]
    same = [n for n in b.order if b.vals[n].shape == av.shape and b.vals[n].dtype == av.dtype]
    other = same[draw(st.integers(0, len(same) - 1))]
    cond, cval = _cond(b)
    elem = helper.np_dtype_to_tensor_dtype(av.dtype)

    values = {}

    def branch(tag: str, src: str) -> onnx.GraphProto:
        """A one-node body reading ``src`` from the outer scope."""
        out = f"{tag}_out{b.count}"
        how = draw(st.sampled_from(["Identity", "Neg"]))
        values[tag] = b.vals[src] if how == "Identity" else -b.vals[src]
        return helper.make_graph([helper.make_node(how, [src], [out])], f"{tag}_branch", [],
                                 [helper.make_tensor_value_info(out, elem, [None] * av.ndim)])

    then_g, else_g = branch("then", a), branch("else", other)
    if a.startswith("id") or other.startswith("id"):
        b.features["identity_read_by_if_branch"] += 1
    value = values["then" if cval else "else"]
    b.node("If", [cond], value, "if", then_branch=then_g, else_branch=else_g)


def add_loop(b: Builder) -> None:
    """``Loop`` (2-3 trips) adding an outer-scope tensor to a carried value, with a scan output."""
    draw = b.draw
    a = b.pick(lambda v: v.dtype == np.float32, prefer_identity=True)
    if a is None:
        return
    if not a.startswith("id") and draw(st.booleans()):
        a = b.node("Identity", [a], b.vals[a], "id")
    av = b.vals[a]
    same = [n for n in b.order if b.vals[n].shape == av.shape and b.vals[n].dtype == av.dtype]
    init = same[draw(st.integers(0, len(same) - 1))]
    trips = draw(st.integers(1, 3))
    m = b.const(np.array(trips, np.int64), "trip")
    elem, unknown = TensorProto.FLOAT, [None] * av.ndim
    k = b.count
    body = helper.make_graph(
        [helper.make_node("Identity", [f"cond_in{k}"], [f"cond_out{k}"]),
         helper.make_node("Add", [f"v_in{k}", a], [f"v_out{k}"]),
         helper.make_node("Identity", [a], [f"scan{k}"])],
        "loop_body",
        [helper.make_tensor_value_info(f"i{k}", TensorProto.INT64, []),
         helper.make_tensor_value_info(f"cond_in{k}", TensorProto.BOOL, []),
         helper.make_tensor_value_info(f"v_in{k}", elem, unknown)],
        [helper.make_tensor_value_info(f"cond_out{k}", TensorProto.BOOL, []),
         helper.make_tensor_value_info(f"v_out{k}", elem, unknown),
         helper.make_tensor_value_info(f"scan{k}", elem, unknown)])
    final = b.vals[init] + trips * av
    scan = np.stack([av] * trips)
    out_v, out_s = b.fresh("loop"), b.fresh("scan")
    b.nodes.append(helper.make_node("Loop", [m, "", init], [out_v, out_s], body=body))
    b.features["Loop"] += 1
    if a.startswith("id"):
        b.features["identity_read_by_loop_body"] += 1
    b._define(out_v, final.astype(np.float32))
    b._define(out_s, scan.astype(np.float32))


def add_output(b: Builder) -> None:
    """Mark an existing tensor (often mid-chain) as a graph output."""
    src = b.pick(lambda v: True)
    if src is not None and src not in b.outputs:
        b.features["graph_output_mid_chain"] += 1
        b.mark_output(src)


RECIPES: dict[str, Callable[[Builder], None]] = {
    "reshape": add_reshape, "identity": add_identity, "gather": add_gather, "shape": add_shape,
    "elementwise": add_elementwise, "if": add_if, "loop": add_loop, "output": add_output}
# weights: reshape/identity/gather dominate
_RECIPE_CHOICES = (["reshape"] * 4 + ["identity"] * 3 + ["gather"] * 3 + ["output"] * 2
                   + ["shape", "elementwise", "if", "loop"])


@st.composite
def fuzz_graphs(draw: Callable, max_steps: int = 8) -> FuzzCase:
    """Hypothesis strategy: a small valid ONNX model (opset 13-21) with its feeds."""
    opset = draw(st.sampled_from(OPSETS))
    b = Builder(draw, opset)
    for _ in range(draw(st.integers(1, 2))):
        rank = draw(st.integers(1, 4))
        shape = [draw(st.integers(1, MAX_DIM)) for _ in range(rank)]
        if opset >= 14 and draw(st.integers(0, 9)) == 0:
            shape[draw(st.integers(0, rank - 1))] = 0  # an empty tensor
            b.features["empty_tensor"] += 1
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        value = rng.integers(-3, 4, size=shape).astype(np.float32)
        symbolic = [draw(st.integers(0, 3)) == 0 for _ in shape]
        b.graph_input(value, "x", symbolic)
    for _ in range(draw(st.integers(1, max_steps))):
        RECIPES[draw(st.sampled_from(_RECIPE_CHOICES))](b)
    newest = b.order[-1]
    b.mark_output(newest)
    return FuzzCase(b.model(), b.feeds, b.features)
