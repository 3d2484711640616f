"""Lab 03 pipeline: relu(A @ B + bias) from linalg to native code with MLIR 22's Python bindings.

    python -m lab03_mlir.pipeline [--m 256 --n 256 --k 256] [--sizes 256,512,1024] [-v|-vv]
        [--quick] [--skip-unroll] [--skip-timing] [--skip-from-torch] [--skip-spirv]

Steps (each prints one line and is followed by its gate):
 1. build     linalg on tensors with the Python builder API; verify()
 2. save      print the linalg IR and save it as results/lab03/00_linalg.mlir
 3. lower     named stages (bufferize, affine, scf, cf, llvm); IR after each + op-count table
 4. unroll    the Python AffineLoopUnroll pass vs builtin affine-loop-unroll (same IR, same numbers);
               --skip-unroll skips it, and the unrolled kernel in steps 5 and 6 (Task 3.2 not written yet)
 5. jit       ExecutionEngine and llvmlite against NumPy
 6. fast      transform-dialect schedule (tile, vectorize, hoist, lower vectors), IR after each
               schedule step; single-thread timing vs NumPy (--skip-timing skips the timing)
 7. tosa      the same function in TOSA through tosa-to-linalg-pipeline and the same stages
 8. tables    results/lab03/*.md|csv|json
 9. from_torch a PyTorch MLP and conv block through torch-mlir into these stages, and IREE as the
               production anchor (lab03_mlir/ladder/: steps.py, from_torch.py; LADDER.md); --skip-from-torch skips it
10. spirv     the kernel through the gpu dialect to SPIR-V, spirv-val, and a run on a CPU Vulkan
               (lab03_mlir/spirv/run.py, SPIRV.md); the Vulkan run skips with its reason where no
               Vulkan driver is installed; --skip-spirv skips the step

-v prints more per step, -vv also the IR after every stage and schedule step. A failed gate
prints the gate and exits 1; bad input is one ``error:`` line and exit 2.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from collections.abc import Sequence

import numpy as np

from common.budget import ci, pick
from common.cli import STEP_PREFIX_ENV, parser, positive_ints, step, want_ir
from common.course.notimpl import naming_stubs, stubs_as_errors
from common.errors import UserError, run_cli
from common.gates import GateChain, GateError, GateReport, compare
from common.results import atomic_write, results_dir, write_table
from common.timing import environment, interleaved

from . import builder, fast, jit, lowering, tosa, unroll

LAB = "lab03"
ATOL = 1e-5  # times max|reference| (see README: float32 sums of K products reassociate)
SEED = 0


def gate_failed(stage: str, msg: str) -> GateError:
    """A structural gate's failure (no numeric table): ``GateError`` naming the stage."""
    return GateError(GateReport(stage, first_failure=msg))


def expected_nests(m: int, n: int, k: int) -> list[tuple]:
    """The affine loop nests of relu(A @ B + bias), as :meth:`lowering.Loop.nest` tuples.

    fill ``i < M, j < N``; matmul ``i < M, j < N, k < K`` (the reduction innermost); bias + ReLU
    ``i < M, j < N``; every loop from 0 with step 1.
    """
    ij = (0, m, 1, ((0, n, 1, ()),))
    return [ij, (0, m, 1, ((0, n, 1, ((0, k, 1, ()),)),)), ij]


def flops(m: int, n: int, k: int) -> float:
    """Floating-point operations of relu(A @ B + bias): 2MNK (multiply-add) + MN (add) + MN (max)."""
    return 2.0 * m * n * k + 2.0 * m * n


def numpy_single_thread():
    """A context that limits NumPy's BLAS to 1 thread (threadpoolctl) and a description of BLAS."""
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return contextlib.nullcontext(), "unknown BLAS; threads not limited (pip install threadpoolctl)"
    info = [f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})"
            for i in threadpool_info() if i.get("user_api") == "blas"]
    return threadpool_limits(1, user_api="blas"), ", ".join(info) or "no BLAS found"


def step_build(args):
    """Step 1: ``relu(A @ B + bias)`` as linalg on tensors (``builder.build_matmul_bias_relu``, Task 3.1) at
    ``--m/--n/--k``, verified; returns the ``ir.Module``."""
    module = builder.build_matmul_bias_relu(args.m, args.n, args.k)
    counts = lowering.op_counts(module)
    step(1, "build", f"linalg on tensors for relu(A[{args.m}x{args.k}] @ B[{args.k}x{args.n}] + bias): "
         f"{sum(counts.values())} ops {counts}, verify() = {module.operation.verify()}")
    return module


def step_save(module, out: Path, args) -> Path:
    """Step 2: the linalg IR written to ``out/00_linalg.mlir`` (atomically); gate: it holds a ``linalg.matmul``.

    Raises:
        GateError: the saved IR holds no ``linalg.matmul``.
        CannotWrite: the file cannot be written (:func:`common.results.atomic_write`).
    """
    path = out / "00_linalg.mlir"
    atomic_write(path, str(module))
    step(2, "save", f"{path} ({path.stat().st_size} bytes)")
    if args.verbose:
        print(module)
    if "linalg.matmul" not in path.read_text():
        raise gate_failed("save", "the saved IR has no linalg.matmul")
    return path


def step_lower(module, out: Path, args):
    """Step 3: the named stages (bufferize, affine: Task 3.4; scf, cf, llvm: given) with the IR after each in
    ``out``; gates: the affine loop nests have the expected bounds and steps, and only ``llvm`` ops are left.
    Returns :class:`lab03_mlir.lowering.LoweringResult`.

    Raises:
        UserError: a stage fails or does not parse (:func:`lab03_mlir.lowering.lower`).
        GateError: the affine loop nests differ from :func:`expected_nests`, or ops other than ``llvm`` are left.
    """
    res = lowering.lower(module, save_dir=out, input_name="linalg", verbose=want_ir(args))
    for i, s in enumerate(res.stages[1:], start=1):
        top = ", ".join(f"{d} {c}" for d, c in sorted(s.op_counts.items(), key=lambda x: -x[1])[:3])
        step(3, "lower", f"{i:02d}_{s.name:<9} {sum(s.op_counts.values()):5d} ops ({top}) "
             f"{s.seconds * 1e3:6.1f} ms -> {s.path.name}")
    nests = [n.nest() for n in lowering.loop_structure(lowering.as_module(res.ir("affine")))]
    if nests != expected_nests(args.m, args.n, args.k):
        raise gate_failed("affine", f"loop nests {nests}, expected {expected_nests(args.m, args.n, args.k)} "
                                    "(fill i,j; matmul i,j,k; bias+relu i,j)")
    if set(res.stages[-1].op_counts) != {"llvm"}:
        raise gate_failed("llvm", f"non-LLVM ops left: {res.stages[-1].op_counts}")
    step(3, "lower", "gate: affine nests fill (i, j), matmul (i, j, k), bias+relu (i, j): every bound and step "
         "as expected; last stage only llvm ops")
    return res


def step_unroll(args, lowered, out: Path):
    """Step 4: ``(the unrolled lowering, the unroll table's row)``, or ``(None, None)`` under ``--skip-unroll``.

    Raises:
        UserError: the custom unroll or a stage fails (:func:`lab03_mlir.unroll.compare_with_builtin`,
            :func:`lab03_mlir.lowering.lower`).
        mlir.ir.MLIRError: upstream ``affine-loop-unroll`` fails (passed through unchanged).
        GateError: the custom unroll's canonical IR differs from the builtin's (both saved under ``out/unroll``).
    """
    if "unroll" in args.skip:
        step(4, "unroll", "skipped (--skip-unroll): steps 5 and 6 leave out the unrolled kernel")
        return None, None
    affine_ir = lowered.ir("affine")
    before = unroll.innermost_trip_counts(lowering.as_module(affine_ir))
    ours, builtin_ir, stats = unroll.compare_with_builtin(affine_ir, args.unroll_factor)
    res = lowering.lower(lowered.stages[0].ir, stages=unroll.with_unroll(args.unroll_factor),
                         save_dir=out / "unroll", input_name="linalg", verbose=want_ir(args))
    after = unroll.innermost_trip_counts(lowering.as_module(res.ir("unroll")))
    equal = ours == builtin_ir
    step(4, "unroll", f"AffineLoopUnroll x{args.unroll_factor}: {stats.unrolled} loops unrolled, "
         f"{stats.remainder_loops} remainder loops, {stats.promoted} promoted; innermost trip counts "
         f"{before} -> {after}; IR == builtin affine-loop-unroll after canonicalize: {equal}")
    if not equal:
        atomic_write(out / "unroll" / "custom_canonical.mlir", ours)
        atomic_write(out / "unroll" / "builtin_canonical.mlir", builtin_ir)
        raise gate_failed("unroll", "custom unroll IR differs from builtin affine-loop-unroll (files saved)")
    return res, {"factor": args.unroll_factor, "innermost_trip_before": str(before),
                 "innermost_trip_after": str(after), "unrolled": stats.unrolled,
                 "remainder_loops": stats.remainder_loops, "equal_to_builtin": equal}


def step_jit(args, lowered, unrolled, chain: GateChain, inputs):
    """Step 5: the lowered module through ExecutionEngine and llvmlite, and ``unrolled`` (None: step 4 skipped)
    through ExecutionEngine, each gated against NumPy; the unrolled kernel must equal the naive one bitwise.

    Raises:
        UserError: a kernel does not compile or its arguments do not match (:mod:`lab03_mlir.jit`).
        GateError: a result is off NumPy's by more than ``ATOL x max|ref|`` (``chain``), or the unrolled
            kernel's numbers differ from the naive one's.
    """
    ref = builder.reference(*inputs)
    eng = jit.run_with_engine(lowered, builder.FUNC_NAME, inputs)[0]
    lite = jit.run_with_llvmlite(lowered, builder.FUNC_NAME, inputs)[0]
    outs = [("execution_engine", eng), ("llvmlite", lite)]
    if unrolled is not None:
        outs.append(("unrolled", jit.run_with_engine(unrolled, builder.FUNC_NAME, inputs)[0]))
    for stage, out in outs:
        chain.check(stage, {"y": out})
    same = unrolled is None or bool(np.array_equal(eng, outs[-1][1]))
    err = float(np.abs(eng - ref).max())
    step(5, "jit", f"ExecutionEngine and llvmlite match NumPy: max|err| {err:.2e} "
         f"(tol {ATOL} x max|ref| = {ATOL * float(np.abs(ref).max()):.2e}); unrolled == naive bitwise: "
         + ("(step 4 skipped)" if unrolled is None else str(same)))
    if not same:
        raise gate_failed("unrolled", "the unrolled kernel's numbers differ from the naive kernel's")


def _kernels(m, n, k, unroll_factor: int | None):
    """The MLIR variants as ``{name: EngineKernel}``: naive, unrolled (not when ``unroll_factor`` is None: step 4
    skipped), tiled_vectorized."""
    base = builder.build_matmul_bias_relu(m, n, k)
    built = [("naive", lowering.lower(base))]
    if unroll_factor is not None:
        built.append(("unrolled", lowering.lower(base, stages=unroll.with_unroll(unroll_factor))))
    built.append(("tiled_vectorized", lowering.lower(fast.tile_and_vectorize(base), stages=fast.FAST_STAGES)))
    return {name: jit.EngineKernel(r.module, builder.FUNC_NAME) for name, r in built}


def _checked_calls(size: int, unroll_factor: int | None, inputs) -> dict:
    """Compile the MLIR variants (:func:`_kernels`) for ``size``^3, run each once and gate it against NumPy."""
    ref = builder.reference(*inputs)
    calls = {}
    for name, kern in _kernels(size, size, size, unroll_factor).items():
        call, outs = kern.prepare(inputs)
        call()  # also the naive variants' warm-up
        compare({"y": ref}, {"y": outs[0]}, atol=ATOL, scale_atol_by_ref=True, stage=name).raise_if_failed()
        calls[name] = call
    return calls


def _time_size(size: int, args) -> list[dict]:
    """Time one size: {tiled+vectorized, NumPy} interleaved with enough repeats, then the slow
    {naive, unrolled} interleaved with few (1 call at 1024^3: ~10 s each here, not extrapolated)."""
    inputs = builder.random_inputs(size, size, size, seed=SEED)
    calls = _checked_calls(size, None if "unroll" in args.skip else args.unroll_factor, inputs)
    a, b, bias = inputs
    fast_fns = {"tiled_vectorized": calls["tiled_vectorized"],
                "numpy": lambda: np.maximum(a @ b + bias, np.float32(0))}
    stats = interleaved(fast_fns, warmup=1, repeats=args.repeats or pick(10, 3), progress=True)
    slow_repeats = args.repeats or pick({256: 5, 512: 2}.get(size, 1), 2)
    stats.update(interleaved({k: calls[k] for k in ("naive", "unrolled") if k in calls}, warmup=0,
                             repeats=slow_repeats, progress=True))
    np_ms = stats["numpy"].median_ms
    return [{"size": f"{size}^3", "variant": name, "median_ms": round(st.median_ms, 3),
             "p10_ms": round(st.p10_ms, 3), "p90_ms": round(st.p90_ms, 3), "repeats": st.n,
             "gflops": round(flops(size, size, size) / st.median_ms / 1e6, 2),
             "time_vs_numpy": round(st.median_ms / np_ms, 2)}
            for name, st in sorted(stats.items(), key=lambda kv: ["naive", "unrolled", "tiled_vectorized",
                                                                   "numpy"].index(kv[0]))]


def step_fast(args, out: Path, blas_ctx, blas: str):
    """Step 6: the transform-dialect schedule (:mod:`lab03_mlir.fast`) with the IR after each schedule step in
    ``out/fast``, then (unless ``--skip-timing``) each ``--sizes`` cube timed against NumPy's BLAS at 1 thread
    (``blas_ctx`` limits it); returns the timing rows (GFLOP/s, time vs NumPy)."""
    base = builder.build_matmul_bias_relu(args.m, args.n, args.k)
    tiled = fast.tile_and_vectorize(base, save_dir=out / "fast", verbose=want_ir(args))
    lowering.lower(tiled, stages=fast.FAST_STAGES, save_dir=out / "fast", input_name="tiled_vectorized",
                   verbose=want_ir(args))
    step(6, "fast", f"schedule {' -> '.join(fast.SCHEDULE_STEPS)}: IR after each step in {out / 'fast'}/s*.mlir")
    rows = []
    if "timing" in args.skip:
        step(6, "fast", "timing skipped (--skip-timing)")
        return rows
    with blas_ctx:
        for size in args.sizes:
            size_rows = _time_size(size, args)
            rows += size_rows
            ratio = next(r["time_vs_numpy"] for r in size_rows if r["variant"] == "tiled_vectorized")
            step(6, "fast", f"{size}^3: " + ", ".join(f"{r['variant']} {r['gflops']} GFLOP/s" for r in size_rows)
                 + f"; tiled+vectorized time = {ratio:.2f}x NumPy's (goal <= 1.1x: "
                 + ("reached" if ratio <= 1.1 else "not reached") + ")")
    step(6, "fast", f"gate: every variant matched NumPy at every size (NumPy BLAS: {blas}, 1 thread)")
    return rows


def step_tosa(args, out: Path, chain: GateChain, inputs):
    """Step 7: the same function built in TOSA, through ``tosa-to-linalg-pipeline`` and the same stages, run
    by ExecutionEngine and gated against NumPy in ``chain``."""
    module = tosa.build_tosa_matmul_bias_relu(args.m, args.n, args.k)
    res = lowering.lower(module, stages=tosa.TOSA_STAGES, save_dir=out / "tosa", input_name="tosa_input",
                         verbose=want_ir(args))
    y = jit.run_with_engine(res, builder.FUNC_NAME, inputs)[0]
    rep = chain.check("tosa", {"y": y})
    ops = res.stages[0].op_counts
    step(7, "tosa", f"TOSA ({ops}) -> linalg -> LLVM -> ExecutionEngine: max|err| "
         f"{rep.rows[0]['max_abs']:.2e}, gate {'ok' if rep.passed else 'FAILED'}")
    return res


def step_tables(args, lowered, unroll_row, chain, timing_rows, blas):
    """Step 8: the tables (op counts per stage, the unroll row, outputs vs NumPy, timing) under
    ``results/lab03/`` as Markdown, CSV and JSON with the environment (:func:`common.results.write_table`)."""
    env = environment(threads=1, numpy_blas=blas)
    meta = {"m": args.m, "n": args.n, "k": args.k, "seed": SEED, "sizes": args.sizes,
            "unroll_factor": args.unroll_factor, "atol": f"{ATOL} x max|ref|", "ci": ci(),
            "quick": args.quick}
    paths = [
        write_table(LAB, "stage_op_counts", lowered.op_count_rows(), title="Lab 03: op counts by dialect per stage",
                    env=env, meta=meta, notes="Ops counted by dialect prefix after each stage (module op excluded)."),
        write_table(LAB, "verification", chain.rows, title="Lab 03: outputs vs NumPy", env=env, meta=meta),
    ]
    if unroll_row is not None:  # step 4 ran
        paths.insert(1, write_table(LAB, "unroll", [unroll_row], env=env, meta=meta,
                                    title="Lab 03: AffineLoopUnroll vs builtin affine-loop-unroll"))
    if timing_rows:
        paths.append(write_table(
            LAB, "timing", timing_rows, title="Lab 03: single-thread matmul + bias + ReLU", env=env, meta=meta,
            notes="1 thread each (MLIR code is single-threaded; NumPy's BLAS limited with threadpoolctl). "
                  "tiled_vectorized and numpy are interleaved with each other; naive and unrolled are "
                  "interleaved with each other right after, with fewer repeats (at 1024^3 one timed call each, "
                  "after the verification call). GFLOP/s = (2MNK + 2MN) / median time. Shared machines are "
                  "noisy: compare ratios from one run, not absolute numbers across runs."))
    step(8, "tables", ", ".join(str(p["md"]) for p in paths))


def step_from_torch(args) -> int:
    """Step 9: close the ladder (PyTorch -> torch-mlir -> these stages -> JIT, IREE beside it).

    Runs ``python -m lab03_mlir.ladder`` in a child process: torch-mlir bundles its own MLIR and
    LLVM, and loading it into a process that already holds the upstream bindings *and* llvmlite
    aborts on duplicate LLVM command-line options. The child prints its own steps and gates, numbered
    under this one (``[9.1 build]`` ... ``[9.6 done]``, through ``$MLC_STEP_PREFIX``).
    torch-mlir and IREE are required: any failure of the child fails this step (skip it only
    with ``--skip-from-torch``).

    Raises:
        GateError: a from_torch gate failed (the child's exit code 1).
        UserError: the child could not run (exit code 2: its one-line error is printed above, e.g.
            a missing package) or crashed.
    """
    import os
    import subprocess
    import sys
    if "from-torch" in args.skip:
        step(9, "from_torch", "skipped (--skip-from-torch)")
        return 0
    cmd = [sys.executable, "-m", "lab03_mlir.ladder"]
    if "timing" in args.skip:
        cmd.append("--skip-timing")
    if args.quick:  # never implied: under CI=true the child shrinks its own budgets (common.budget)
        cmd.append("--quick")
    cmd += ["-v"] * args.verbose
    rc = subprocess.run(cmd, env={**os.environ, STEP_PREFIX_ENV: "9."}).returncode  # its lines read [9.1 build] ...
    if rc == 1:
        raise gate_failed("from_torch", "a torch-mlir or IREE path does not match PyTorch "
                                        "(see the table above and results/lab03/from_torch_gates.md)")
    if rc:
        raise UserError(f"step 9 (python -m lab03_mlir.ladder) failed with exit code {rc}; "
                        "see its error above (skip the step with --skip-from-torch)")
    step(9, "from_torch", "every torch-mlir path and IREE match PyTorch within 1e-5")
    return rc


def step_spirv(args) -> int:
    """Step 10: the SPIR-V extension (``python -m lab03_mlir.spirv``, its own [10 spirv] lines and
    table ``results/lab03/spirv/spirv.md``); a missing Vulkan driver skips only the Vulkan run,
    with the reason. Raises what it raises (GateFailed: spirv-val or the NumPy gate failed)."""
    if "spirv" in args.skip:
        step(10, "spirv", "skipped (--skip-spirv)")
        return 0
    from .spirv import run as spirv
    return spirv.main(["-v"] * args.verbose)


def parse_args(argv):
    """The options of the pipeline, with the defaults filled in: ``m``, ``n``, ``k`` (ints), ``sizes``
    (``list[int]``; empty adds ``timing`` to ``skip``), ``repeats`` (None: by size), ``unroll_factor``, ``quick``,
    ``skip`` (set of step names), ``verbose``. ``--quick`` sends the tables to the folder of
    :func:`common.cli.quick_results`.

    Raises:
        UserError: an unknown flag or bad value (:class:`common.cli.Parser`; :func:`common.errors.run_cli` exits 2),
            ``--m``/``--n``/``--k``, ``--unroll-factor``, ``--repeats`` or a ``--sizes`` item that is not a
            positive integer.
    """
    p = parser("python -m lab03_mlir.pipeline", __doc__, steps=["unroll", "timing", "from-torch", "spirv"],
               quick="small shapes (64x48x40), timing sizes 64,128, and step 9's --quick; never implied "
                     "(CI=true only shrinks the budgets: timing sizes and repeats)",
               epilog="\n\n".join(__doc__.split("\n\n")[2:]))  # the step list: the title is the description
    p.add_argument("--m", type=int, default=None, help="rows of A and of the output (default 256; --quick 64)")
    p.add_argument("--n", type=int, default=None, help="columns of B and of the output (default 256; --quick 48)")
    p.add_argument("--k", type=int, default=None, help="reduction length (default 256; --quick 40)")
    p.add_argument("--sizes", default=None,
                   help="comma-separated square sizes for the timing step (default 256,512,1024; "
                        "64,128 with --quick or under CI=true)")
    p.add_argument("--repeats", type=int, default=None, help="timed rounds per size (default: by size)")
    p.add_argument("--unroll-factor", type=int, default=4, help="AffineLoopUnroll factor, positive (default %(default)s)")
    args = p.parse_args(argv)
    args.m = args.m if args.m is not None else (64 if args.quick else 256)
    args.n = args.n if args.n is not None else (48 if args.quick else 256)
    args.k = args.k if args.k is not None else (40 if args.quick else 256)
    if args.sizes is not None:
        sizes = args.sizes
    else:  # a time budget: shrinks under CI=true (common.budget); --quick is never implied
        sizes = "64,128" if args.quick else pick("256,512,1024", "64,128")
    builder.check_shape(args.m, args.n, args.k)
    unroll.check_factor(args.unroll_factor)
    args.sizes = list(positive_ints("--sizes", sizes))
    if not args.sizes:
        args.skip.add("timing")
    if args.repeats is not None and args.repeats <= 0:
        raise UserError(f"--repeats must be a positive integer, got {args.repeats}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out = results_dir(LAB)
    inputs = builder.random_inputs(args.m, args.n, args.k, seed=SEED)
    chain = GateChain("numpy", {"y": builder.reference(*inputs)}, atol=ATOL, scale_atol_by_ref=True)
    blas_ctx, blas = numpy_single_thread()
    with naming_stubs("build", later=True):
        module = step_build(args)
    step_save(module, out, args)
    with naming_stubs("lower", later=True):
        lowered = step_lower(module, out, args)
    with naming_stubs("unroll", skip="--skip-unroll"):
        unrolled, unroll_row = step_unroll(args, lowered, out)
    with naming_stubs("jit"):
        step_jit(args, lowered.module, None if unrolled is None else unrolled.module, chain, inputs)
    timing_rows = step_fast(args, out, blas_ctx, blas)
    step_tosa(args, out, chain, inputs)
    step_tables(args, lowered, unroll_row, chain, timing_rows, blas)
    step_from_torch(args)
    step_spirv(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(stubs_as_errors(main)))
