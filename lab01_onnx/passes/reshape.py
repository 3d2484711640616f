"""Pass 1: fuse consecutive Reshapes, ``Reshape(Reshape(x, s1), s2) -> Reshape(x, s2')``.

Spec (ONNX ``Reshape``, opset 5-25, https://onnx.ai/onnx/operators/onnx__Reshape.html): the
output holds the input's elements in row-major order; a ``-1`` entry is inferred from the element
count; a ``0`` entry "is unchanged (i.e. taken from the input tensor)" unless ``allowzero=1``
(opset >= 14), where it is a literal zero. So the second Reshape's result depends only on the
element count of its input (equal to ``x``'s), on ``s2`` and, for each ``0`` in ``s2`` under
``allowzero=0``, on the matching dim of the *middle* tensor ``m = Reshape(x, s1)`` -- not of ``x``.
"""
from __future__ import annotations

import numpy as np
import onnx

from .core import DefUseIndex, PassResult, apply_rule, attr_int, is_op
from .shapes import Shapes


def fuse_consecutive_reshapes(model: onnx.ModelProto) -> PassResult:
    """Rewrite ``Reshape(Reshape(x, s1), s2)`` into ``Reshape(x, s2')`` (see the module docstring).

    Preconditions (otherwise the pair is left alone):
      * both nodes are default-domain ``Reshape`` (opset >= 5, shape given as an input) and ``m``
        reaches the second node through its **data** input (input 0), never its shape input;
      * ``m`` has exactly one use: no other consumer, not a graph output, no outer-scope
        reference from an If/Loop/Scan body;
      * ``s2`` is a constant (an initializer that is not also a graph input -- a caller may feed
        another value for one that is, IR spec "Graphs" -- or a Constant node), or the second node
        has ``allowzero=1`` (then no entry of ``s2`` reads the input's dims and any runtime ``s2``
        works); a constant ``s2``, under either ``allowzero``, must be a shape as the spec types it,
        a 1-D int64 tensor: an int32, 0-D or 2-D one makes the node malformed and the pair is left
        alone;
      * every ``0`` in a constant ``s2`` with ``allowzero=0`` is resolved: from a constant ``s1``
        (``s1[i] > 0`` gives that dim, whatever the first node's ``allowzero``, which only acts
        on a ``0`` of ``s1``; ``s1[i] == 0`` with the first node's ``allowzero=0``
        copies ``x``'s dim ``i``, so the ``0`` stays valid in ``s2'``), else from a static dim of
        ``m`` after shape inference, completed through the current chain of constant-shape
        Reshapes that produces ``m`` (:meth:`Shapes.through_reshapes`); an unresolvable or
        zero-sized dim refuses the fusion.

    The fused node is the second node with data input ``x`` and shape ``s2'`` (``s2`` itself when
    no ``0`` had to be resolved); its ``allowzero`` is kept. The first Reshape is removed, and so
    is whatever only fed its shape input (e.g. a Shape->Gather->Concat chain); a shape initializer
    or node that another node still reads stays, and so does a replaced ``s2`` with other readers.
    Chains of any length fuse in one call, and a pair that a fusion's cleanup made fusable (it
    removed the other reader of that pair's ``m``) is fused too
    (:func:`~lab01_onnx.passes.core.apply_rule`), so the pass is idempotent.

    Returns:
        PassResult with ``rewrites`` = number of Reshape nodes removed.
    """
    return apply_rule(model, fuse_at, min_opset=5)


def fuse_at(idx: DefUseIndex, pos: int, shapes: Shapes) -> int:
    """Fuse the Reshape at ``pos`` with its producer Reshape, repeatedly; returns the fusions done."""
    ### BEGIN STUB lab01.reshape
    # node = idx.nodes[pos]
    # if not is_op(node, "Reshape") or len(node.input) < 2:
    #     return 0  # not this rule's pattern: nothing to rewrite at pos
    ### END STUB
    ### BEGIN SOLUTION lab01.reshape
    node, done = idx.nodes[pos], 0
    while is_op(node, "Reshape") and len(node.input) >= 2 and idx.alive(pos):
        mid = node.input[0]
        first_pos = idx.producer.get(mid)
        first = idx.producer_node(mid, "Reshape")
        if first is None or len(first.input) < 2:
            break
        if idx.uses[mid] != 1:  # another consumer, a graph output, a subgraph reference, or s2 itself
            break
        new_shape = fused_shape(node, first, idx, shapes)
        if new_shape is None:
            break
        idx.set_input(pos, 0, first.input[0], cascade=False)  # ``first`` is removed just below
        if new_shape is not True:
            name = idx.unique_name(f"{node.input[1]}_fused")
            idx.add_initializer(name, new_shape)
            idx.set_input(pos, 1, name)
        idx.remove_node(first_pos)
        shapes.invalidate()
        done += 1
    return done
    ### END SOLUTION


def fused_shape(node: onnx.NodeProto, first: onnx.NodeProto, idx: DefUseIndex, shapes: Shapes):
    """``s2'`` for the fused Reshape: ``True`` = keep ``s2`` as is, an int64 array, or None = refuse."""
    ### BEGIN SOLUTION lab01.reshape
    s2 = idx.constant(node.input[1])
    allowzero2 = attr_int(node, "allowzero", 0)
    if s2 is None:
        return True if allowzero2 == 1 else None
    if s2.ndim != 1 or s2.dtype != np.int64:
        return None
    if allowzero2 == 1 or not (s2 == 0).any():
        return True
    s1 = idx.constant(first.input[1])
    allowzero1 = attr_int(first, "allowzero", 0)
    out = s2.copy()
    for i in np.flatnonzero(s2 == 0):
        if s1 is not None and s1.ndim == 1 and i < s1.shape[0] and s1[i] != -1:
            if s1[i] > 0:
                out[i] = s1[i]
                continue
            if allowzero1 == 0:  # m's dim i is x's dim i, and a 0 in s2' copies exactly that
                continue
            return None  # m's dim i is a literal 0 (allowzero=1): refuse rather than reason about empty tensors
        dims = shapes.through_reshapes(node.input[0], idx)
        if dims is None or i >= len(dims) or not dims[i]:
            return None
        out[i] = dims[i]
    return out
    ### END SOLUTION
