"""Compile-time evaluation of a transpose of a constant (the weight of ``nn.Linear``).

torch-mlir imports ``nn.Linear`` as ``linalg.transpose`` of the weight (stored ``[out, in]``)
followed by ``linalg.matmul``; the weight is a constant (``dense_resource`` blob), so the
transpose gives the same answer on every call. :func:`fold_constant_transposes` computes it once
while compiling and puts the transposed array in the module as a new constant, the way IREE's
``iree-util-hoist-into-globals`` + ``iree-consteval-jit-globals`` evaluate constant expressions at
compile time. MLIR's own constant folder (``linalg-fuse-elementwise-ops``' ``FoldConstantTranspose``)
only reads ``DenseElementsAttr``, not ``dense_resource`` blobs, so the blob is read here from the
module's ``dialect_resources`` section: a hex string whose first 4 bytes are the blob's alignment
(MLIR LangRef, "Dialect resources"), then the little-endian elements.
"""
from __future__ import annotations

import re

import numpy as np
from mlir import ir
from mlir.dialects import arith

from .lowering import find_ops

_BLOB = re.compile(r'^\s*([\w.\-]+): "0x([0-9A-Fa-f]+)"', re.M)
_RESOURCE = re.compile(r"dense_resource<([\w.\-]+)>")
_DTYPES = {"f32": np.float32, "f64": np.float64}


def resource_blobs(module: ir.Module) -> dict[str, bytes]:
    """``{name: raw element bytes}`` of the module's ``builtin`` dense resources (alignment dropped)."""
    text = str(module)
    section = text.split("{-#", 1)[1] if "{-#" in text else ""
    return {name: bytes.fromhex(hexdata)[4:] for name, hexdata in _BLOB.findall(section)}


def constant_array(value: ir.Value, blobs: dict[str, bytes]) -> np.ndarray | None:
    """The NumPy array of an ``arith.constant`` tensor (dense or dense_resource), else ``None``."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.constant":
        return None
    t = ir.RankedTensorType(value.type) if isinstance(value.type, ir.RankedTensorType) else None
    dtype = _DTYPES.get(str(t.element_type)) if t is not None else None
    if dtype is None:
        return None
    attr = owner.attributes["value"]
    m = _RESOURCE.match(str(attr))
    if m and m.group(1) in blobs:
        data = np.frombuffer(blobs[m.group(1)], dtype=dtype)
        return data.reshape(t.shape) if data.size == np.prod(t.shape) else None
    if isinstance(attr, ir.DenseElementsAttr):
        return np.array(ir.DenseFPElementsAttr(attr)) if not attr.is_splat else None
    return None


def fold_constant_transposes(module: ir.Module) -> int:
    """Replace each ``linalg.transpose`` of a float constant by the transposed constant (in place).

    Folded: a transpose whose input is an ``arith.constant`` ranked tensor of ``f32`` or ``f64``, dense
    (not splat) or ``dense_resource`` (blob read by :func:`resource_blobs`); any other input is left as
    it is. The new constant is a ``DenseElementsAttr`` of the permuted array (IREE's compile-time
    evaluation, module docstring).

    Returns:
        The number of transposes folded.
    """
    blobs = None
    found = find_ops(module, "linalg.transpose")
    done = 0
    with module.context:
        for op in found:
            blobs = resource_blobs(module) if blobs is None else blobs
            data = constant_array(op.operands[0], blobs)
            if data is None:
                continue
            perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
            out = np.ascontiguousarray(data.transpose(perm))
            with ir.InsertionPoint(op), op.location:
                rtype = op.results[0].type
                new = arith.ConstantOp(rtype, ir.DenseElementsAttr.get(out))
            op.results[0].replace_all_uses_with(new.result)
            op.erase()
            done += 1
    return done
