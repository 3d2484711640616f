"""Static dims for the passes: ONNX shape inference, run at most once per pass and only on demand.

``onnx.shape_inference.infer_shapes`` (non-strict, with data propagation so that shape values
computed by ``Shape -> Gather -> Concat`` are known) maps each value to its dims; a symbolic dim
is ``None``. Inference failures give no dims at all: every shape-dependent rewrite is then
refused, never guessed.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from common.onnx_graph import value_dims

Dims = list[int | None]


def static_shapes(model: onnx.ModelProto) -> dict[str, Dims | None]:
    """Value name -> dims (int, or None where symbolic); None where even the rank is unknown.

    An initializer that is also a graph input is a default a caller may replace (ONNX IR spec, "Graphs":
    "an initializer ... MAY also be specified as an input ... the value may be overridden"): inference runs
    without its value, so no dims computed from it (a Reshape's shape operand) are taken as known; its own dims
    are the input's declared ones.
    """
    model = without_overridable_initializers(exact_initializer_outputs(model))
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=True)
    except Exception:
        return {}
    out: dict[str, Dims | None] = {}
    g = inferred.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        dims = value_dims(vi)
        if dims is None:
            out.setdefault(vi.name, None)
            continue
        out[vi.name] = dims
    for t in g.initializer:
        out[t.name] = list(t.dims)
    return out


def without_overridable_initializers(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model``, or a copy without the initializers that are also graph inputs (their inputs stay): ONNX shape
    inference with data propagation reads such a default as a constant (a Reshape fed ``[6, 4]`` by default gets
    dims ``[6, 4]``, though a caller may feed ``[4, 6]``). The caller's model is never modified."""
    inputs = {i.name for i in model.graph.input}
    if not any(t.name in inputs for t in model.graph.initializer):
        return model
    out = onnx.ModelProto()
    out.CopyFrom(model)
    kept = [t for t in out.graph.initializer if t.name not in inputs]
    del out.graph.initializer[:]
    out.graph.initializer.extend(kept)
    return out


def exact_initializer_outputs(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model``, or a copy whose graph outputs that are (non-overridable) initializers declare the
    initializer's exact type.

    Shape inference takes such a value's type from the graph output's declaration, which may be
    looser than the tensor (``int64[?,?]`` for an ``int64[1,1]`` initializer), and then loses the
    shapes of everything computed from it -- which a second run, after those values were folded
    into initializers, would know. Declaring the exact type keeps the passes idempotent. The
    caller's model is never modified.
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


def reshape_dims(xd: Dims | None, s: np.ndarray, allowzero: int) -> Dims | None:
    """Output dims of ``Reshape(x, s)`` for dims ``xd`` of ``x`` (None entries unknown); None if ``s`` is invalid.

    ONNX ``Reshape``: ``0`` copies the input dim unless ``allowzero=1``; one ``-1`` is the element
    count over the product of the others.
    """
    out: Dims = []
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
            numel, rest = int(np.prod(xd, dtype=np.int64)), int(np.prod(others, dtype=np.int64))
            if rest > 0 and numel % rest == 0:
                out[infer] = numel // rest
    return out


class Shapes:
    """Dims of the values of one model (the untouched input of a pass), inferred on first use.

    :meth:`through_reshapes` completes them through the *current* chain of constant-shape
    Reshapes; its results are memoized, fully static ones for the whole pass (these rewrites
    preserve every value), others until :meth:`invalidate` (a fusion may shorten a chain).
    """

    def __init__(self, model: onnx.ModelProto):
        self._model, self._shapes = model, None
        self._memo: dict[str, tuple[int | None, Dims | None]] = {}
        self._generation = 0

    def dims(self, name: str) -> Dims | None:
        """Dims of ``name`` from shape inference of the pass's input (int, None where symbolic); None where unknown."""
        if self._shapes is None:
            self._shapes = static_shapes(self._model)
        return self._shapes.get(name)

    def invalidate(self) -> None:
        """Forget the non-static :meth:`through_reshapes` results (call after each fusion)."""
        self._generation += 1

    def through_reshapes(self, name: str, idx) -> Dims | None:
        """Dims of ``name``: shape inference of the input, completed through the current chain of
        Reshapes with constant shapes that produces it.

        A fusion rewires a Reshape past middle tensors whose shapes inference could not know (e.g.
        a computed shape input), so a later Reshape's output may only now be derivable from the
        Reshape spec (:func:`reshape_dims`). Deriving it here decides a fusion the way a second
        run (whose inference sees the rewritten graph) would. ``idx`` is the pass's
        :class:`~lab01_onnx.passes.core.DefUseIndex`.
        """
        memo, gen = self._memo, self._generation
        chain, cur, base, seen = [], name, None, set()
        while True:
            hit = memo.get(cur)
            if hit is not None and hit[0] in (None, gen):
                base = hit[1]
                break
            d = self.dims(cur)
            if d is not None and all(v is not None for v in d):
                base = d
                memo[cur] = (None, d)
                break
            p = idx.producer_node(cur, "Reshape")
            if p is None or len(p.input) < 2 or cur in seen or not p.input[0]:
                base = d
                break
            s = idx.constant(p.input[1])
            if s is None or s.ndim != 1 or s.dtype != np.int64:
                base = d
                break
            seen.add(cur)
            chain.append((cur, d, s, next((int(a.i) for a in p.attribute if a.name == "allowzero"), 0)))
            cur = p.input[0]
        for cur, d, s, allowzero in reversed(chain):
            derived = reshape_dims(base, s, allowzero)
            if derived is None or (d is not None and len(d) != len(derived)):
                base = d
            else:
                base = [a if a is not None else b for a, b in zip(d, derived)] if d is not None else derived
            memo[cur] = (None if base is not None and all(v is not None for v in base) else gen, base)
        return base
