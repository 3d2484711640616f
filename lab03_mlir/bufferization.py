"""Task 3.4 (``lab03.lower``): the first two stages of step 3's lowering, as pass pipelines.

:func:`lab03_mlir.lowering.lower` runs its stages in order on a module of public ``func.func``\\ s on
tensors (the func, linalg, arith and tensor dialects, as :mod:`lab03_mlir.builder` emits them). The
last three stages (``scf``, ``cf``, ``llvm``) are given; the first two are the pipelines below. Each is
one textual pass pipeline anchored on the module, ``"builtin.module(pass-a{option=value}, pass-b, ...)"``,
the syntax ``mlir-opt --pass-pipeline=...`` and ``PassManager.parse`` take.

``bufferize`` (:func:`bufferize_pipeline`): tensors -> memrefs. After it

1. no value, argument or result of any function has a tensor type (every tensor became a memref);
2. every public function's arguments are memrefs with the **identity layout** (``memref<8x4xf32>``,
   not ``memref<8x4xf32, strided<[?, ?], offset: ?>>``): the JIT passes contiguous NumPy arrays;
3. every public function **returns nothing**: its ``R`` tensor results became its last ``R`` memref
   arguments, which the caller allocates (the C interface the JIT calls through cannot hand a
   callee-allocated buffer back to NumPy), and the function computes each result straight into its
   argument: no ``memref.copy`` from a buffer of its own into an output. A result the function does
   not compute (an argument returned as it is, or a view of one such as a reshape) is copied into its
   output: every output holds its result when the function returns. (The kernels of this lab call no
   other function; a result handed back by a call would need that copy too, and the rule does not
   cover such modules);
4. every buffer the function allocates for a temporary (``memref.alloc``) is freed before it returns
   (``memref.dealloc``): no leak per call. A temporary over 1 KiB stays a heap buffer: only smaller
   ones may move to the stack (a thread's stack is small, and temporaries grow with the shapes).

``affine`` (:func:`affine_pipeline`): every linalg op becomes a loop nest of ``affine.for`` over
``affine.load``/``affine.store`` (one loop per iteration dimension of the op, in its order: 3 deep for
a matmul, 2 for a fill): no ``linalg`` op is left. One nest per op, in the order of the ops, each loop
from 0 to its dimension's size with step 1: nothing fused, tiled, unrolled or vectorized (later
stages do that). The Python pass of Task 3.2 unrolls these loops, and the given ``scf`` stage
(``lower-affine``) takes them on to ``scf.for``.

Sources: MLIR docs "Bufferization" (https://mlir.llvm.org/docs/Bufferization/: One-Shot Bufferize,
function boundaries, memref layouts, buffer deallocation), "Passes" (https://mlir.llvm.org/docs/Passes/:
each pass's options), "Pass Infrastructure" (the textual pipeline syntax).
"""
from __future__ import annotations


def bufferize_pipeline() -> str:
    """The ``bufferize`` stage: a pass pipeline (text) that meets rules 1-4 of the module docstring.

    Returns:
        ``"builtin.module(...)"``: parsed by ``PassManager.parse`` when the stage runs (an unknown
        pass or option is a one-line ``UserError`` naming the stage).
    """
    ### BEGIN SOLUTION lab03.lower
    return (
        "builtin.module("
        # rule 1 across calls too: function signatures are bufferized with the bodies; rule 2: the
        # default boundary layout is fully dynamic (strided<[?, ?], offset: ?>), identity is asked for
        "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, "
        # rule 3: the returned memref becomes a caller-owned last argument; hoist-static-allocs writes
        # the result straight into it instead of allocating and copying
        "buffer-results-to-out-params{modify-public-functions hoist-static-allocs}, "
        # rule 4: ownership-based deallocation frees every temporary (LLVM 17+: the old
        # buffer-deallocation pass is gone)
        "buffer-deallocation-pipeline, "
        "canonicalize, cse)"
    )
    ### END SOLUTION


def affine_pipeline() -> str:
    """The ``affine`` stage: a pass pipeline (text) that turns every linalg op into ``affine.for`` nests.

    Returns:
        ``"builtin.module(...)"``, as :func:`bufferize_pipeline`.
    """
    ### BEGIN SOLUTION lab03.lower
    return "builtin.module(func.func(convert-linalg-to-affine-loops))"  # a func.func pass: nest it
    ### END SOLUTION
