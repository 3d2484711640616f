"""Lab 03 test setup: fix the load order of the two MLIR builds before any test module runs.

Importing :mod:`lab03_mlir.ladder.from_torch` imports the upstream ``mlir`` bindings and then loads
torch-mlir's native MLIR (when installed). Loading torch-mlir only after a test has JIT-compiled
with MLIR's runner-utils library aborts the whole pytest process ("LLVM ERROR: inconsistency in
registered CommandLine options"), whatever order the lab03 test files run in; loading it here,
first, makes every order safe (see ``from_torch.preload_torch_mlir``).
"""
from lab03_mlir.ladder import from_torch  # noqa: F401  (side effect: mlir, then torch_mlir.ir)
