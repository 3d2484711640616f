"""The ranked memref descriptor: how a NumPy array is handed to a lowered MLIR function.

A memref argument of rank ``r`` crosses the C interface (``llvm.emit_c_interface``) as a pointer to
``{T *allocated, T *aligned, i64 offset, i64 sizes[r], i64 strides[r]}``, offset and strides counted in
*elements* (MLIR docs "LLVM IR Target", section "Ranked MemRef Types"; ``mlir.runtime`` builds the same
structure). Element ``[i0, ..., ir]`` lies at ``aligned + offset + sum(i_d * strides[d])``.

* :func:`contiguous_descriptor`: the fast path for a C-contiguous array (one ctypes class per rank and
  dtype, offset 0); what the pipeline's step 5 (``EngineKernel.prepare``) uses;
* :func:`memref_descriptor` (Task 3.3, ``lab03.jit``): any array or view, without copying; its only
  caller is ``EngineKernel.call_views``, which only Task 3.3's tests call: the pipeline never runs it,
  ``pytest --task lab03.jit`` checks it;
* :func:`check_descriptor`: refuse a descriptor that addresses memory outside its array, before
  native code reads it.

Used by :mod:`lab03_mlir.jit`, which calls the lowered functions.
"""
from __future__ import annotations

import ctypes
import functools

import numpy as np
from mlir.runtime import as_ctype, get_ranked_memref_descriptor, make_nd_memref_descriptor

from common.errors import UserError


@functools.cache
def _descriptor_class(ndim: int, dtype: np.dtype):
    ctype = as_ctype(dtype)
    return make_nd_memref_descriptor(ndim, ctype), ctypes.POINTER(ctype)


def contiguous_descriptor(a: np.ndarray):
    """The ranked memref descriptor of a C-contiguous array, without copying.

    Like ``mlir.runtime.get_ranked_memref_descriptor``, but the ctypes Structure class is made
    once per (rank, dtype): that function creates a new class on every call, which costs ~50 us
    per argument (most of it in ``ctypes.pointer`` of the new type) and dominated the call time of
    the small kernels in the latency ladder.

    Returns:
        An instance of :func:`descriptor_type` ``(a.ndim, a.dtype)``: ``allocated`` and ``aligned`` at
        ``a``'s first element, ``offset`` 0, ``shape`` = ``a.shape``, ``strides`` = ``a.strides`` in elements
        (MLIR docs "LLVM IR Target", "Ranked MemRef Types"). A 0-d array gets ``mlir.runtime``'s own
        rank-0 descriptor. Nothing is checked, and the identity-layout functions ``lower`` makes assume
        row-major strides, so callers pass ``np.ascontiguousarray`` copies (``EngineKernel.prepare``) and
        keep them alive while the descriptor is used.
    """
    if a.ndim == 0:
        return get_ranked_memref_descriptor(a)
    cls, pointer = _descriptor_class(a.ndim, a.dtype)
    d = cls()
    d.allocated = a.ctypes.data
    d.aligned = ctypes.cast(d.allocated, pointer)
    d.offset = 0
    d.shape = (ctypes.c_longlong * a.ndim)(*a.shape)
    d.strides = (ctypes.c_longlong * a.ndim)(*[st // a.itemsize for st in a.strides])
    return d


def descriptor_type(ndim: int, dtype) -> type:
    """The ctypes Structure of a rank-``ndim`` memref descriptor of ``dtype`` elements (one class per
    rank and dtype): fields ``allocated`` (``c_longlong``), ``aligned`` (``POINTER(element)``),
    ``offset`` (``c_longlong``), ``shape`` and ``strides`` (``c_longlong * ndim``).

    Raises:
        UserError: ``ndim < 1`` (a 0-d array), or a dtype with no ctypes element type.
    """
    if ndim < 1:
        raise UserError("a ranked memref descriptor here has rank >= 1; got a 0-d array")
    try:
        return _descriptor_class(ndim, np.dtype(dtype))[0]
    except (TypeError, ValueError, NotImplementedError) as exc:
        raise UserError(f"no ctypes type for dtype {np.dtype(dtype)}: {exc}") from None


def memref_descriptor(a: np.ndarray):
    """The ranked memref descriptor of the NumPy array ``a`` (rank >= 1), pointing into ``a``'s own
    memory: nothing is copied, so a view (a transpose, a slice with steps, a reversed axis, a
    broadcast) is passed as it lies in memory.

    The descriptor (MLIR docs "LLVM IR Target", "Ranked MemRef Types"; the C interface of
    ``llvm.emit_c_interface``) is an instance of ``descriptor_type(a.ndim, a.dtype)`` with:

    - ``allocated``: the address the buffer was allocated at, as an integer; here the same address
      as ``aligned`` (NumPy owns the memory; MLIR never frees an argument it did not allocate);
    - ``aligned``: a pointer into the memory that holds ``a`` (its own buffer, or for a view its base array's),
      at or before its first element ``a[0, ..., 0]``;
    - ``offset``: how many *elements* from ``aligned`` to ``a[0, ..., 0]`` (``>= 0``);
    - ``shape``: the sizes, ``a.shape``;
    - ``strides``: per axis, how many *elements* apart two neighbours along it lie (NumPy's
      ``a.strides`` are in bytes; they may be negative or 0).

    Element ``a[i0, ..., ir]`` is then at ``aligned + offset + sum(i_d * strides[d])`` elements.

    Raises:
        UserError: ``a`` is 0-d, or a stride is not a whole number of elements (a field of a
            structured array, a byte-offset view): each axis's own stride is checked, in ``itemsize``
            bytes (not the dtype's alignment). Where no two elements are a stride apart (an axis of
            size 1, an array with no element) refusing is allowed, not required.
    """
    a = np.asarray(a)
    cls = descriptor_type(a.ndim, a.dtype)
    ### BEGIN SOLUTION lab03.jit
    item = a.itemsize
    if any(st % item for st in a.strides):
        raise UserError(f"strides {a.strides} (bytes) are not whole numbers of {item}-byte elements")
    strides = [st // item for st in a.strides]
    # the lowest address the array reaches: the first element moved back along every reversed axis
    low = a.ctypes.data + sum(st * (n - 1) * item for st, n in zip(strides, a.shape) if st < 0 and n > 0)
    d = cls()
    d.allocated = low
    d.aligned = ctypes.cast(low, type(d.aligned))
    d.offset = (a.ctypes.data - low) // item
    d.shape = (ctypes.c_longlong * a.ndim)(*a.shape)
    d.strides = (ctypes.c_longlong * a.ndim)(*strides)
    return d
    ### END SOLUTION


def _addressed_bytes(desc, a: np.ndarray) -> tuple[int, int]:
    """``[low, high)``: the bytes the descriptor addresses for ``a``'s shape (read from its fields)."""
    item = a.itemsize
    aligned = ctypes.cast(desc.aligned, ctypes.c_void_p).value or 0
    first = aligned + desc.offset * item
    shape, strides = list(desc.shape), list(desc.strides)
    low = first + sum(s * (n - 1) * item for s, n in zip(strides, shape) if s < 0)
    high = first + sum(s * (n - 1) * item for s, n in zip(strides, shape) if s > 0) + item
    return low, high


def check_descriptor(desc, a: np.ndarray, what: str = "the array") -> None:
    """Raise :class:`UserError` unless ``desc`` describes ``a``'s sizes and addresses no byte outside
    ``a``'s memory (``numpy.lib.array_utils.byte_bounds``): checked before native code reads it."""
    from numpy.lib.array_utils import byte_bounds

    if a.size == 0:
        return
    if list(desc.shape) != list(a.shape):
        raise UserError(f"the descriptor of {what} has sizes {list(desc.shape)}, the array's shape is {list(a.shape)}")
    low, high = _addressed_bytes(desc, a)
    lo, hi = byte_bounds(a)
    if low < lo or high > hi:
        raise UserError(f"the descriptor of {what} addresses bytes [{low:#x}, {high:#x}) outside the array's "
                        f"memory [{lo:#x}, {hi:#x}): not calling native code with it")
