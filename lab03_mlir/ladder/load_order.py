"""The load order of the MLIR builds in one process: upstream ``mlir``, then torch-mlir's MLIR, then the JIT.

Importing this module loads the upstream bindings (``mlir.ir``, ``mlir.passmanager``, ``mlir.runtime``: what
Lab 03's modules import) and then torch-mlir's native MLIR (``torch_mlir.ir``, no torch import), if installed.
The reasons are in :mod:`lab03_mlir.ladder.from_torch`'s docstring: torch-mlir loaded first breaks the JIT's
symbol resolution; torch-mlir loaded after MLIR's runner-utils library (the JIT) aborts the process. Lab 03's
``conftest.py`` imports this module first, and imports no task file doing so (a student's broken file must
fail its own tests, not every lab's collection).
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

#: torch-mlir was imported before the upstream bindings (the JIT cannot resolve symbols then)
TORCH_MLIR_FIRST = "torch_mlir" in sys.modules and "mlir" not in sys.modules

import mlir.ir  # noqa: E402, F401  (the upstream bindings first)
import mlir.passmanager  # noqa: E402, F401
import mlir.runtime  # noqa: E402, F401


def runner_utils_loaded() -> bool:
    """True when MLIR's ``libmlir_c_runner_utils`` is mapped into this process (Linux only)."""
    try:
        return "libmlir_c_runner_utils" in Path("/proc/self/maps").read_text()
    except OSError:
        return False


def preload_torch_mlir() -> str | None:
    """Load torch-mlir's native MLIR (``torch_mlir.ir``, no torch import) now, if installed.

    Loading it *after* this process has loaded MLIR's runner-utils library (what
    :mod:`lab03_mlir.jit` passes to ``ExecutionEngine`` and llvmlite when a module needs it) aborts
    the whole process with "LLVM ERROR: inconsistency in registered CommandLine options" (both
    register LLVM's command-line options); the order mlir -> torch_mlir -> JIT is safe. So this
    module calls it at import time, and :func:`lab03_mlir.ladder.from_torch.import_block` calls it again.

    Returns:
        None when torch-mlir is loaded (or not installed: ``import_block`` names the package),
        else the one-line reason it cannot be loaded safely any more.
    """
    if "torch_mlir.ir" in sys.modules:
        return None
    if runner_utils_loaded():
        return ("torch-mlir cannot be loaded into this process: MLIR's runner-utils library is already "
                "loaded (the JIT ran first) and loading torch-mlir now would abort the process; import "
                "lab03_mlir.ladder.from_torch before running the JIT, or run `python -m lab03_mlir.ladder`")
    try:
        importlib.import_module("torch_mlir.ir")
    except (ImportError, OSError):  # not installed or broken: import_block names it when needed
        pass
    return None


preload_torch_mlir()
