"""Lab 03 extension: relu(A @ B + bias) lowered to SPIR-V, validated, and run on a CPU Vulkan driver.

    python -m lab03_mlir.spirv [--m 64 --n 64 --k 64] [--tile 8] [--schedule both] [-v|-vv] [--skip-vulkan]

The step: each schedule of :mod:`lab03_mlir.spirv.lowering` lowered (IR saved after every stage as
``results/lab03/spirv/<schedule>/NN_<stage>.mlir``), each binary checked by ``spirv-val
--target-env vulkan1.0`` (Debian spirv-tools) and run on Mesa's lavapipe
(:mod:`lab03_mlir.spirv.vulkan`), gated against NumPy at absolute 1e-5, timed beside NumPy; one
table row per schedule (``results/lab03/spirv/spirv.md``). Without spirv-val or a Vulkan driver,
that check is skipped with the reason in one line.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from common.budget import pick
from common.cli import parser, positive, step
from common.errors import GateFailed
from common.gates import gate
from common.results import results_dir as lab_results_dir, write_table
from common.timing import environment

from .. import builder
from .lowering import SCHEDULES, TARGET_ENV, SpirvBuild, lower_to_spirv
from .vulkan import run_launches, vulkan_reason

STEP = 10
ATOL = 1e-5  # absolute, the seed's Lab 03 bound; see SPIRV.md for the summation-order argument
SEED = 0
VAL_ENV = "vulkan1.0"


def validate(path: Path, target_env: str = VAL_ENV) -> str | None:
    """Run ``spirv-val --target-env <env>`` on a binary; ``None`` if valid, else why not checked.

    Returns:
        ``None`` when spirv-val accepted it, or the one-line reason it was skipped (no spirv-val).

    Raises:
        GateFailed: spirv-val rejected the binary (its first message line).
    """
    tool = shutil.which("spirv-val")
    if tool is None:
        return "spirv-val not found (apt-get install spirv-tools)"
    proc = subprocess.run([tool, "--target-env", target_env, str(path)], capture_output=True, text=True)
    if proc.returncode:
        msg = (proc.stderr or proc.stdout).strip().splitlines() or ["(no message)"]
        raise GateFailed(f"spirv-val rejected {path.name}: {msg[0]}")
    return None


def flops(m: int, n: int, k: int) -> float:
    """2MNK (multiply-add) + 2MN (bias add, max): as :func:`lab03_mlir.pipeline.flops`."""
    return 2.0 * m * n * k + 2.0 * m * n


def sequential_reference(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """``max(A @ B + bias, 0)`` summed in the kernels' order (k = 0, 1, ...; float32 after each add)."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for kk in range(a.shape[1]):
        acc += np.outer(a[:, kk], b[kk]).astype(np.float32)
    return np.maximum(acc + bias, np.float32(0))


def run_step(results_dir: Path, *, m: int = 64, n: int = 64, k: int = 64, verbose: int = 0,
             schedule: str = "fused", tile: int = 8, run_vulkan: bool = True, repeats: int | None = None,
             step_no: int | str = STEP) -> dict:
    """Lower, serialize, validate and (where possible) run on lavapipe; return one table row.

    Args:
        results_dir: the lab's results folder (``results/lab03``); files go to ``spirv/<schedule>/``.
        m, n, k: sizes; verbose: ``-v`` count (2 prints the IR of each stage).
        schedule, tile: see :func:`lower_to_spirv`; run_vulkan: False skips the Vulkan run.
        repeats: timed submissions (default 20, 5 under ``CI=true``); step_no: the N of ``[N spirv]``.

    Returns:
        ``{schedule, size, tile, kernels, launches, spirv_words, spirv_val, vulkan_device,
        max_abs_err, atol, err_vs_numpy_matmul, lavapipe_ms, numpy_ms, gflops, lp_num_threads}``;
        a skipped check carries ``skipped: <reason>`` instead of its numbers.

    Raises:
        UserError: see :func:`lower_to_spirv`. GateFailed: spirv-val or the NumPy gate failed.
    """
    out = Path(results_dir) / "spirv" / schedule
    build = lower_to_spirv(m, n, k, out, schedule=schedule, tile=tile, verbose=verbose >= 2)
    for s in build.stages[1:]:
        top = ", ".join(f"{d} {c}" for d, c in sorted(s.op_counts.items(), key=lambda x: -x[1])[:4])
        step(step_no, "spirv", f"{schedule}/{s.path.name:<16} {sum(s.op_counts.values()):4d} ops ({top})")
    launches = "; ".join(f"{L.module.removeprefix('__spv__')} grid {L.grid} x block {L.block}, args {L.args}"
                         for L in build.plan.launches)
    words = sum(len(b) // 4 for b in build.binaries.values())
    step(step_no, "spirv", f"{schedule}: {len(build.binaries)} SPIR-V binaries ({words} words, magic ok); "
                           f"{len(build.plan.buffers)} buffers; launches: {launches}")
    reasons = [r for r in (validate(p) for p in build.paths.values()) if r]
    val = reasons[0] if reasons else f"ok ({VAL_ENV})"
    step(step_no, "spirv", f"{schedule}: spirv-val {'skipped: ' + val if reasons else val}")
    row = {"schedule": schedule, "size": f"{m}x{n}x{k}", "tile": f"{tile}x{tile}", "kernels": len(build.binaries),
           "buffers": len(build.plan.buffers), "launches": launches, "spirv_words": words, "spirv_val": val}
    row.update(_run_row(build, m, n, k, run_vulkan, repeats, step_no))
    return row


def _run_row(build: SpirvBuild, m, n, k, run_vulkan, repeats, step_no) -> dict:
    reason = "skipped (--skip-vulkan)" if not run_vulkan else vulkan_reason()
    if reason:
        step(step_no, "spirv", f"{build.schedule}: Vulkan run skipped: {reason}")
        return {"vulkan_device": f"skipped: {reason}"}
    inputs = builder.random_inputs(m, n, k, seed=SEED)
    a, b, bias = inputs
    with _one_blas_thread():
        result = run_launches(build.plan, build.binaries, inputs, repeats=pick(20, 5) if repeats is None else repeats,
                              also_time={"numpy": lambda: np.maximum(a @ b + bias, np.float32(0))})
    err = gate({"y": sequential_reference(*inputs)}, {"y": result.output}, atol=ATOL,
               stage=f"lavapipe/{build.schedule}").rows[0]["max_abs"]
    blas_err = float(np.abs(result.output - builder.reference(*inputs)).max())
    ms, np_ms = result.timing["lavapipe"].median_ms, result.timing["numpy"].median_ms
    step(step_no, "spirv", f"{build.schedule}: {result.device}: max|err| {err:.1e} <= {ATOL} vs a k-ordered float32 "
                           f"NumPy loop, {blas_err:.2e} vs NumPy's a @ b; {ms:.3f} ms per submission vs NumPy "
                           f"{np_ms:.4f} ms (medians of {result.timing['lavapipe'].n}, interleaved, 1 BLAS thread, "
                           f"LP_NUM_THREADS={result.threads}; lavapipe is a CPU emulation, not a device time)")
    return {"vulkan_device": result.device, "max_abs_err": err, "atol": ATOL, "err_vs_numpy_matmul": blas_err,
            "lavapipe_ms": round(ms, 4), "numpy_ms": round(np_ms, 4), "x_numpy": round(ms / np_ms, 1),
            "gflops": round(flops(m, n, k) / ms / 1e6, 3), "lp_num_threads": result.threads}


def _one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: the NumPy timing then uses its default threads
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def main(argv: Sequence[str] | None = None) -> int:
    p = parser("python -m lab03_mlir.spirv", __doc__, steps=["vulkan"],
               epilog="\n\n".join(__doc__.split("\n\n")[2:]))  # what the step does: the title is the description
    p.add_argument("--m", type=int, default=64, help="rows of A and of the output (default %(default)s)")
    p.add_argument("--n", type=int, default=64, help="columns of B and of the output (default %(default)s)")
    p.add_argument("--k", type=int, default=64, help="reduction length (default %(default)s)")
    p.add_argument("--tile", type=int, default=8, help="workgroup edge: tile x tile invocations (default %(default)s)")
    p.add_argument("--schedule", choices=[*SCHEDULES, "both"], default="both",
                   help="which lowering to SPIR-V (lab03_mlir/spirv/lowering.py, SPIRV.md): loops = the pass "
                        "pipeline, two kernels (fill + matmul into a temporary buffer, then bias + ReLU); fused "
                        "= the transform-dialect schedule, one kernel, the accumulator in private memory; both "
                        "= each in turn, one table row each (default %(default)s)")
    p.add_argument("--repeats", type=int, default=None, help="timed Vulkan submissions (default 20, CI 5)")
    args = p.parse_args(argv)
    positive("--repeats", args.repeats)
    t0 = time.perf_counter()
    rows = [run_step(lab_results_dir("lab03"), m=args.m, n=args.n, k=args.k, verbose=args.verbose, schedule=s,
                     tile=args.tile, run_vulkan="vulkan" not in args.skip, repeats=args.repeats)
            for s in (SCHEDULES if args.schedule == "both" else (args.schedule,))]
    paths = write_table(
        "lab03/spirv", "spirv", rows, title="Lab 03: matmul + bias + ReLU as SPIR-V on lavapipe",
        env=environment(threads=None, lp_num_threads=os.environ.get("LP_NUM_THREADS")),
        meta={"seed": SEED, "atol": f"{ATOL} (absolute, vs a k-ordered float32 NumPy loop)",
              "target_env": TARGET_ENV, "spirv_val_env": VAL_ENV},
        notes="lavapipe (Mesa's llvmpipe-based Vulkan) runs the SPIR-V on the CPU: its time is a CPU emulation "
              "of a GPU dispatch, not a device time. Each schedule is timed interleaved with NumPy (1 BLAS "
              "thread, 1 lavapipe thread); compare x_numpy across schedules.")
    step(STEP, "spirv", f"table {paths['md']} ({time.perf_counter() - t0:.1f} s in all)")
    return 0
