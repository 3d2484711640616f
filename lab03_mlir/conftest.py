"""Lab 03 test setup: fix the load order of the two MLIR builds before any test module runs.

Importing :mod:`lab03_mlir.ladder.load_order` imports the upstream ``mlir`` bindings and then loads
torch-mlir's native MLIR (when installed), and no task file (a student's file that does not import fails
its own tests only, not the collection of every lab). Loading torch-mlir only after a test has JIT-compiled
with MLIR's runner-utils library aborts the whole pytest process ("LLVM ERROR: inconsistency in
registered CommandLine options"), whatever order the lab03 test files run in; loading it here,
first, makes every order safe (see ``load_order.preload_torch_mlir``).
"""
from lab03_mlir.ladder import load_order  # noqa: F401  (side effect: mlir, then torch_mlir.ir)
