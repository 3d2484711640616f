"""Step 9's production anchor and stopwatch: IREE compiles and runs the same text; interleaved latency.

* :func:`iree_compile` runs ``iree-compile`` (the ``iree-base-compiler`` wheel's command line tool)
  in a **subprocess**: ``iree.compiler`` is a third MLIR build whose nanobind symbols clash with the
  upstream ``mlir`` bindings in one process (see :mod:`lab03_mlir.ladder.from_torch`). The flags
  (:func:`iree_flags`) select the local CPU device and LLVM CPU code generation for this host (or the
  CPU ``MLC_CPU`` names).
* :class:`IreeModule` loads the ``.vmfb`` with ``iree.runtime`` (no MLIR inside, imports fine
  in-process) on the single-threaded ``local-sync`` driver.
* :func:`latency_ladder` times candidates on one block's input, interleaved, one thread.

Source: IREE docs, "CPU deployment" (llvm-cpu backend, ``local-sync`` / ``local-task`` drivers).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from collections.abc import Callable

import numpy as np

from common.errors import MissingDependency, UserError, require

from .from_torch import FUNC_NAME, TorchBlock  # noqa: F401  (TorchBlock: annotations)

#: ``iree-compile`` flags: the local CPU device and LLVM CPU code generation (the CPU: :func:`iree_flags`).
IREE_FLAGS = ("--iree-hal-target-device=local",
              "--iree-hal-local-target-device-backends=llvm-cpu")
#: ``local-sync`` runs dispatches inline on the calling thread: single-threaded by construction.
IREE_DRIVER = "local-sync"

def iree_flags() -> tuple[str, ...]:
    """:data:`IREE_FLAGS` and the CPU to generate code for: ``host`` (IREE's name for the machine it runs on),
    or the CPU ``MLC_CPU`` names (:func:`common.isa.simulated_cpu`), so a simulated host (``MLC_CPU=haswell``:
    AVX2 code on an AVX-512 machine) reaches IREE as it reaches TVM and llvmlite.

    Raises:
        UserError: ``MLC_CPU`` names a CPU this host cannot execute (:func:`common.isa.target_cpu`).
    """
    from common.isa import simulated_cpu
    return (*IREE_FLAGS, f"--iree-llvmcpu-target-cpu={simulated_cpu() or 'host'}")


def iree_compile_tool() -> str:
    """Path of the ``iree-compile`` executable from the ``iree-base-compiler`` wheel.

    Looks beside the running Python first (a venv's ``bin/``), then on ``PATH``.

    Raises:
        MissingDependency: not found.
    """
    here = Path(sys.executable).parent / "iree-compile"
    if here.exists():
        return str(here)
    found = shutil.which("iree-compile")
    if found:
        return found
    raise MissingDependency("the IREE anchor needs the package iree-base-compiler (no iree-compile "
                            "executable found); install it with `.venv/bin/pip install iree-base-compiler`")


def iree_compile(text: str, out_path: Path, *, tool: str | None = None, dump_to: Path | None = None) -> float:
    """Compile MLIR ``text`` (linalg-on-tensors or StableHLO) to an IREE VM flatbuffer (.vmfb).

    Runs ``iree-compile`` in a subprocess (see the module docstring: ``iree.compiler`` cannot share
    a process with the upstream ``mlir`` bindings) with :func:`iree_flags`; the input dialect is
    detected by ``--iree-input-type=auto`` (the default). ``dump_to``: a folder for each dispatch's
    LLVM IR, object and assembly (``*.s``; ``--iree-hal-dump-executable-intermediates-to``).

    Returns:
        Compile time in seconds.

    Raises:
        UserError: the compiler fails (first error line quoted).
        MissingDependency: no ``iree-compile``.
    """
    tool = tool or iree_compile_tool()
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write(text)
        src = fh.name
    t0 = time.perf_counter()
    try:
        dump = [f"--iree-hal-dump-executable-intermediates-to={dump_to}"] if dump_to else []
        proc = subprocess.run([tool, src, *iree_flags(), *dump, "-o", str(out_path)], capture_output=True,
                              text=True, timeout=300)
    finally:
        os.unlink(src)
    if proc.returncode != 0:
        first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:200])
        raise UserError(f"iree-compile failed: {first}")
    return time.perf_counter() - t0


class IreeModule:
    """A compiled ``.vmfb`` loaded with ``iree.runtime`` on the :data:`IREE_DRIVER` driver.

    ``IreeModule(path)(x, ...)`` calls the module's function ``func`` (default ``forward``, the
    torch-mlir blocks' name) with NumPy arrays and returns its one result copied to a NumPy array.

    Raises:
        MissingDependency: iree-base-runtime is not installed.
        UserError: the module has no function ``func``.
    """

    def __init__(self, vmfb: Path, func: str = FUNC_NAME):
        rt = require("iree.runtime", "iree-base-runtime", "the IREE anchor")
        self.path = Path(vmfb)
        self._module = rt.load_vm_flatbuffer_file(str(self.path), driver=IREE_DRIVER)
        try:
            self._fn = self._module[func]
        except KeyError:  # iree.runtime's lookup of a function name
            raise UserError(f"{self.path.name} has no function @{func}") from None

    def __call__(self, *args: np.ndarray) -> np.ndarray:
        return np.asarray(self._fn(*args).to_host())


def latency_ladder(block: TorchBlock, candidates: dict[str, Callable[[np.ndarray], np.ndarray]], *,
                   repeats: int, warmup: int = 3, threads: int = 1) -> list[dict]:
    """Single-thread latency of ``candidates`` on ``block``'s input, interleaved in one run.

    Args:
        block: gives the input and the FLOP count.
        candidates: ``{backend name: run(x) -> y}``; the first one is the baseline of ``x_vs_first``.
        repeats, warmup: rounds of :func:`common.timing.interleaved`.
        threads: PyTorch intra-op threads (the JIT and IREE ``local-sync`` are single-threaded).

    Returns:
        One row per backend: block, backend, median_ms, p10_ms, p90_ms, gflops (GFLOP/s at the
        median), x_vs_<first> (median / first's median), threads, repeats.
    """
    from common.roof import gflops
    from common.timing import interleaved, set_torch_threads
    set_torch_threads(threads)
    x = block.input_np
    stats = interleaved({k: (lambda f=f: f(x)) for k, f in candidates.items()},
                        warmup=warmup, repeats=repeats, progress=True)
    first = next(iter(stats))
    rows = []
    for name, st in stats.items():
        rows.append({"block": block.name, "backend": name, "median_ms": st.median_ms, "p10_ms": st.p10_ms,
                     "p90_ms": st.p90_ms, "gflops": gflops(block.flops, st.median_ms),
                     f"x_vs_{first.split()[0].lower()}": st.median_ms / stats[first].median_ms,
                     "threads": threads, "repeats": repeats})
    return rows
