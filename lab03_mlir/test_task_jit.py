"""Graded tests of Task 3.3 (``lab03.jit``): the ranked memref descriptor of a NumPy array.

Through the public contract only (``memref.memref_descriptor`` and its docstring; ``EngineKernel.call_views``
of the given kit): the fields against what NumPy itself says of the array (its data pointer, shape and
byte strides) and, for contiguous arrays, what ``mlir.runtime.get_ranked_memref_descriptor`` makes of
them, on several shapes and dtypes, contiguous and not (transposed, stepped, reversed, broadcast, offset,
rank-1 and stride-trick views); a stride that is no whole number of elements refused on any axis; then
native code reading and writing *through* the descriptor: small kernels whose memref arguments have a strided layout, lowered by the lab's stages and JIT-compiled, copy and add
views, compared with NumPy. A copy and one float32 addition per element round exactly as NumPy's do, so
the comparison is bitwise (no tolerance). ``aligned`` may point at the first element (``offset`` 0) or
below it (``offset`` > 0): both are correct descriptors and both pass.

Run: ``.venv/bin/python -m pytest --task lab03.jit``.
"""
from __future__ import annotations

import ctypes
import functools

import numpy as np
import pytest

from common.errors import UserError
from lab03_mlir import jit, lowering, memref

pytestmark = pytest.mark.lab03


def fields(d) -> dict:
    return {"allocated": int(d.allocated), "aligned": ctypes.cast(d.aligned, ctypes.c_void_p).value or 0,
            "offset": int(d.offset), "shape": list(d.shape), "strides": list(d.strides)}


def check_fields(a: np.ndarray) -> None:
    d = memref.memref_descriptor(a)
    assert [name for name, _ in type(d)._fields_] == ["allocated", "aligned", "offset", "shape", "strides"]
    f = fields(d)
    assert f["shape"] == list(a.shape)
    assert f["strides"] == [s // a.itemsize for s in a.strides]  # elements, not bytes
    assert f["offset"] >= 0
    assert f["aligned"] + f["offset"] * a.itemsize == a.ctypes.data  # aligned + offset is a[0, ..., 0]
    assert f["allocated"] == f["aligned"]


BASE = np.arange(4 * 6 * 5, dtype=np.float32).reshape(4, 6, 5)
VIEWS = {
    "transposed": lambda: BASE[0].T,
    "stepped": lambda: BASE[1, ::2, 1::2],
    "reversed": lambda: BASE[2, ::-1, :],
    "reversed-both": lambda: BASE[3, ::-2, ::-1],
    "fortran": lambda: np.asfortranarray(BASE[1]),
    "broadcast": lambda: np.broadcast_to(BASE[0, 0], (3, 5)),
    "offset": lambda: BASE[1, 2:, 3:],
    "empty-reversed": lambda: BASE[2, ::-1, :][6:],  # no element: no axis moves the lowest address back
    # rank 1: a reversed, stepped row (stride -2 elements, not 1)
    "rank1-reversed-stepped": lambda: BASE[1, 3, ::-2],
    # NumPy's stride tricks: windows of a reversed vector, the first one dropped. The view's ``.base`` is the
    # window array, whose data pointer (the reversed vector's first element, BASE[0, 5, 4]) lies one element
    # *above* this view's first element: an offset counted from ``a.base`` would be -1, below 0
    "windows-of-reversed": lambda: np.lib.stride_tricks.sliding_window_view(BASE[0].ravel()[::-1], 4)[1:],
}


CONTIGUOUS_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.float16, np.int8, np.bool_]


@pytest.mark.task("lab03.jit", points=1)
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
def test_contiguous_array_fields(shape):
    """A fresh C-contiguous array of each dtype (element sizes 1 to 8 bytes): the fields as NumPy gives them
    (``check_fields``), and the element address and strides as ``mlir.runtime.get_ranked_memref_descriptor``,
    MLIR's own helper for exactly this case, gives them (``aligned + offset`` at its ``aligned``, offset 0 there)."""
    from mlir.runtime import get_ranked_memref_descriptor
    for dtype in CONTIGUOUS_DTYPES:
        a = (np.arange(int(np.prod(shape))) % 3).astype(dtype).reshape(shape)
        check_fields(a)
        f, ref = fields(memref.memref_descriptor(a)), fields(get_ranked_memref_descriptor(a))
        assert (f["shape"], f["strides"]) == (ref["shape"], ref["strides"]), dtype
        assert f["aligned"] + f["offset"] * a.itemsize == ref["aligned"] + ref["offset"] * a.itemsize, dtype


@pytest.mark.task("lab03.jit", points=1)
@pytest.mark.parametrize("view", list(VIEWS))
def test_view_fields(view):
    check_fields(VIEWS[view]())


@pytest.mark.task("lab03.jit", points=1)
def test_stride_that_is_no_whole_element_is_refused():
    packed = np.zeros(6, dtype=[("x", "<f4"), ("tag", "u1")])  # 5-byte records: field x has stride 5
    with pytest.raises(UserError):
        memref.memref_descriptor(packed["x"])


STRIDED = "memref<{dims}x{t}, strided<[{strides}], offset: ?>>"


def _type(rank: int, t: str) -> str:
    return STRIDED.format(dims="x".join(["?"] * rank), t=t, strides=", ".join(["?"] * rank))


@functools.cache
def copy_kernel(t: str) -> jit.EngineKernel:
    """``out[i, j] = a[i, j]`` over ``a``'s sizes; both arguments strided with dynamic offset."""
    mt = _type(2, t)
    text = f"""
func.func @copy(%a: {mt}, %out: {mt}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : {mt}
  %n = memref.dim %a, %c1 : {mt}
  affine.for %i = 0 to %m {{
    affine.for %j = 0 to %n {{
      %v = affine.load %a[%i, %j] : {mt}
      affine.store %v, %out[%i, %j] : {mt}
    }}
  }}
  return
}}"""
    return jit.EngineKernel(lowering.lower(text, stages=lowering.STAGES[2:]).module, "copy")


@functools.cache
def add3_kernel() -> jit.EngineKernel:
    """``out[i, j, k] = a[i, j, k] + b[i, j, k]`` (rank 3, float32, strided arguments)."""
    mt = _type(3, "f32")
    text = f"""
func.func @add(%a: {mt}, %b: {mt}, %out: {mt}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = memref.dim %a, %c0 : {mt}
  %m = memref.dim %a, %c1 : {mt}
  %n = memref.dim %a, %c2 : {mt}
  affine.for %i = 0 to %p {{
    affine.for %j = 0 to %m {{
      affine.for %k = 0 to %n {{
        %x = affine.load %a[%i, %j, %k] : {mt}
        %y = affine.load %b[%i, %j, %k] : {mt}
        %s = arith.addf %x, %y : f32
        affine.store %s, %out[%i, %j, %k] : {mt}
      }}
    }}
  }}
  return
}}"""
    return jit.EngineKernel(lowering.lower(text, stages=lowering.STAGES[2:]).module, "add")


@pytest.mark.task("lab03.jit", points=1)
@pytest.mark.parametrize("view", ["transposed", "stepped", "reversed-both", "broadcast", "offset"])
def test_native_copy_reads_a_view_like_numpy(view):
    a = VIEWS[view]()
    out = np.full(a.shape, -1.0, np.float32)
    copy_kernel("f32").call_views([a, out])
    np.testing.assert_array_equal(out, a)


@pytest.mark.task("lab03.jit", points=1)
@pytest.mark.parametrize("shape", [(1, 9), (5, 3), (8, 8)])
def test_native_copy_writes_into_a_view(shape):
    """float64, several shapes: the output is a stepped, reversed window of a larger array."""
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal((shape[1], shape[0])).T  # a transposed input
    big = np.zeros((2 * shape[0] + 1, 3 * shape[1]), np.float64)
    out = big[1::2, ::-3]
    copy_kernel("f64").call_views([a, out])
    np.testing.assert_array_equal(out, a)
    untouched = np.ones(big.shape, bool)
    untouched[1::2, ::-3] = False
    assert not big[untouched].any()  # nothing written outside the view


@pytest.mark.task("lab03.jit", points=1)
def test_native_add_of_rank3_views():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 5, 8)).astype(np.float32)
    a = x[::2, 1:, ::-2]                        # stepped, offset, reversed
    b = np.transpose(x, (2, 1, 0))[::-2, 1:, ::2].transpose(2, 1, 0)  # the same shape, other strides
    assert a.shape == b.shape
    out = np.empty(a.shape[::-1], np.float32).T  # a Fortran-ordered output
    add3_kernel().call_views([a, b, out])
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.task("lab03.jit", points=1)
def test_a_stride_that_is_no_whole_element_on_any_axis_is_refused():
    """Every axis's byte stride is checked, each on its own (the docstring: "a stride is not a whole number of
    elements"). The float32 field of 5-byte records, transposed: byte strides (5, 20), NumPy's own; axis 0's 5 bytes
    are no whole float32, though the last axis's 20 are. Not transposed: (20, 5), the bad stride on the last axis.
    6-byte records, shape (2, 3): strides (18, 6), neither a whole number of 4-byte elements, though their sum (24) is."""
    rec = np.zeros((3, 4), dtype=[("x", "<f4"), ("tag", "u1")])
    rec6 = np.zeros((2, 3), dtype=[("x", "<f4"), ("tag", "<u2")])
    assert rec["x"].T.strides == (5, 20) and rec["x"].strides == (20, 5) and rec6["x"].strides == (18, 6)
    for view in (rec["x"].T, rec["x"], rec6["x"]):
        with pytest.raises(UserError):
            memref.memref_descriptor(view)


@pytest.mark.task("lab03.jit", points=1)
def test_aligned_points_into_the_arrays_memory():
    """The docstring: ``aligned`` points into the memory that holds ``a`` (its own, or its base array's for a view;
    MLIR's subviews keep the allocation's pointer and an offset), at or before ``a[0, ..., 0]``. Views reversed
    along whole axes of their base, whose lowest element is the base's first byte: one stride lower is outside."""
    from numpy.lib.array_utils import byte_bounds
    base = np.arange(6 * 5, dtype=np.float32).reshape(6, 5)
    for a in (base[::-1, :], base[:, ::-1], base[::-1, ::-1], base[::-3, :]):
        f = fields(memref.memref_descriptor(a))
        low, high = byte_bounds(base)
        assert low <= f["aligned"] <= a.ctypes.data < high, (a.strides, f, (low, high))


@pytest.mark.task("lab03.jit", points=1)
def test_complex_elements_are_counted_by_itemsize():
    """complex64: itemsize 8 bytes, alignment 4; strides and offsets count elements of ``itemsize`` bytes. So the
    complex64 field of 12-byte records (byte stride 12: three alignment units, a well-aligned array for NumPy's
    ``flags.aligned``) has a stride of 1.5 elements: no whole number, refused (``12 // 8`` would read the wrong bytes)."""
    c = (np.arange(6) + 1j).astype(np.complex64).reshape(2, 3)
    check_fields(c)
    check_fields(c[:, ::-1])
    z = np.zeros(5, dtype=[("z", "<c8"), ("w", "<f4")])["z"]
    assert z.strides == (12,) and z.flags.aligned
    with pytest.raises(UserError):
        memref.memref_descriptor(z)


@pytest.mark.task("lab03.jit", points=1)
def test_a_negative_stride_that_is_no_whole_element_is_refused():
    """A reversed view of 6-byte steps over float32 (NumPy's ``as_strided`` makes it; byte stride -6): no whole
    number of 4-byte elements either, so it is refused as the positive one is (``-6 % 4`` is 2 in Python)."""
    base = np.zeros(16, np.float32)
    view = np.lib.stride_tricks.as_strided(base[-1:], shape=(3,), strides=(-6,))
    assert view.strides == (-6,)
    with pytest.raises(UserError):
        memref.memref_descriptor(view)
