"""Graph helpers the inspection tools share (loading, exporting and running live in
:mod:`common.onnx_utils`).

* :func:`subgraph_reads` -- outer-scope names read inside If/Loop/Scan bodies.
* :func:`tensor_nbytes` -- bytes of a dense tensor of an ONNX element type and static shape.
"""
from __future__ import annotations

import numpy as np
import onnx


def subgraph_reads(node: onnx.NodeProto) -> set[str]:
    """Names read inside the subgraphs (If/Loop/Scan bodies) of ``node`` that are defined outside them.

    ONNX IR spec, "Names Within a Graph": a subgraph may reference outer-scope values by name;
    such reads do not appear in ``node.input`` but are uses of the value all the same.
    """
    reads: set[str] = set()
    for attr in node.attribute:
        graphs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
        for g in graphs:
            defined = {i.name for i in g.input} | {i.name for i in g.initializer}
            for n in g.node:
                reads |= {t for t in n.input if t and t not in defined}
                reads |= subgraph_reads(n) - defined
                defined |= set(n.output)
    return reads


def tensor_nbytes(elem_type: int, shape) -> int:
    """Bytes of a dense tensor of ONNX ``elem_type`` and a static ``shape``."""
    itemsize = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type)).itemsize
    return int(np.prod(shape, dtype=np.int64)) * itemsize
