"""The weight-less skeleton of an ONNX model, and shape inference run on it.

``onnx.shape_inference.infer_shapes`` and ``onnx.checker`` serialize the whole model (a 400 MB
BERT copies 400 MB). Types and shapes do not depend on the *values* of large initializers, only on
their element type and dims (ONNX IR spec, "Graphs": an initializer is a value of the graph, like
an input, https://onnx.ai/onnx/repo-docs/IR.html), so :func:`skeleton` declares each large
initializer as a typed graph input of the same name, dtype and dims instead, and keeps the small
ones (shape vectors, axes, scalars), whose values shape inference with data propagation reads.
:func:`infer_shapes` is shape inference on that skeleton.
"""
from __future__ import annotations

import numpy as np
import onnx

__all__ = ["SMALL_ELEMENTS", "skeleton", "infer_shapes"]

#: Initializers with at most this many elements stay in the skeleton (a rank-8 shape vector, a
#: scalar, a few axes); larger ones become typed graph inputs.
SMALL_ELEMENTS = 64


def skeleton(model: onnx.ModelProto, max_elements: int = SMALL_ELEMENTS) -> onnx.ModelProto:
    """A model with ``model``'s graph (nodes, inputs, outputs, ``value_info``, name), opsets, local
    functions and IR version (at least 4, where initializers need not be graph inputs), whose dense
    initializers of more than ``max_elements`` elements are graph inputs of the same name, element
    type and dims (an initializer already declared as an input keeps that declaration); smaller
    ones and the sparse initializers stay as they are. ``model`` is not modified; the result shares
    no message with it."""
    g = onnx.GraphProto(name=model.graph.name)
    for f in ("node", "input", "output", "value_info", "sparse_initializer"):
        getattr(g, f).extend(getattr(model.graph, f))
    declared = {i.name for i in g.input}
    for t in model.graph.initializer:
        if int(np.prod(t.dims, dtype=np.int64)) <= max_elements:
            g.initializer.append(t)
        elif t.name not in declared:
            g.input.append(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    out = onnx.ModelProto(ir_version=max(model.ir_version, 4), producer_name=model.producer_name)
    out.opset_import.extend(model.opset_import)
    out.functions.extend(model.functions)
    out.graph.CopyFrom(g)
    return out


def infer_shapes(model: onnx.ModelProto, *, data_prop: bool = False, check_type: bool = False) -> onnx.ModelProto:
    """``onnx.shape_inference.infer_shapes`` (https://onnx.ai/onnx/api/shape_inference.html) on
    :func:`skeleton` of ``model``, non-strict (a node it cannot infer leaves its outputs untyped).

    Returns:
        the inferred skeleton: its ``graph.value_info`` holds the types found for intermediate
        values, ``graph.input`` / ``graph.output`` the declared ones (outputs completed); the large
        initializers are among its inputs, not its initializers.

    Raises:
        onnx.shape_inference.InferenceError, onnx.checker.ValidationError: the model is malformed
            (``check_type``: also a type mismatch between a node and its inputs).
    """
    return onnx.shape_inference.infer_shapes(skeleton(model), check_type=check_type, strict_mode=False,
                                             data_prop=data_prop)
