"""Lab 03: MLIR 22 Python bindings: linalg -> bufferization -> affine -> scf -> cf -> LLVM, a Python
loop-unroll pass, JIT through ExecutionEngine and llvmlite, transform-dialect tiling and TOSA.

Public API for reuse (e.g. torch-mlir output passed as text): :func:`lowering.lower`,
:data:`lowering.STAGES`, :func:`jit.run_with_engine`, :func:`jit.run_with_llvmlite`,
:func:`fast.tile_and_vectorize` with :data:`fast.FAST_STAGES`, :data:`tosa.TOSA_STAGES`.
"""
