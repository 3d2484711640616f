"""What the BLAS libraries reach on a model's own GEMMs: the ceiling a tuned kernel is measured against.

Lab 02's target for its hottest kernels is a share of the measured FMA peak (``common.roof``: a
register-resident FMA loop, no memory traffic). A real GEMM also loads its operands, and a small one
(ResNet-50's layer 4 has 7 x 7 = 49 output pixels) has little work to hide the loads behind. How much
of the peak a kernel of a given shape can reach is an empirical question; this module asks the
libraries a user would pick instead of TVM, on the exact shapes of the model:

* **NumPy** (``np.matmul`` into a preallocated output: the BLAS NumPy's wheel ships, OpenBLAS,
  limited to 1 thread with ``threadpoolctl``);
* **PyTorch** (``torch.mm(..., out=)``: PyTorch's CPU BLAS, MKL in the x86 wheels, 1 intra-op thread);
* **ONNX Runtime** (one ``MatMul`` node with the weight as an initializer, so MLAS prepacks it as
  ONNX Runtime does in a model; 1 intra-op thread).

The shapes come from one eager forward of the model with hooks on every ``nn.Linear`` and
``nn.Conv2d`` (:func:`model_gemms`): a linear layer on an ``[..., K]`` input is the GEMM
``M x K x N`` with ``M`` the product of the leading dims; a convolution (groups 1) is, as an implicit
GEMM (im2col; Chellapilla et al., "High Performance Convolutional Neural Networks for Document
Processing", 2006), ``M = batch * Ho * Wo``, ``K = Cin * kh * kw``, ``N = Cout`` -- the same FLOPs as
the convolution, without the im2col copy a direct or Winograd kernel does not make. A 1x1 stride-1
convolution in NHWC *is* that GEMM; for the others the GEMM's time is what a library takes for the same
multiplies, an estimate to hold a convolution kernel against, not the convolution's time nor a bound on it.

Each shape is timed with the three libraries in two interleaved runs (each round in a shuffled order,
:func:`common.timing.round_orders`):

* **warm**: the same operands every call, so a weight that fits the cache stays there; each sample
  repeats the GEMM for about 4 ms (``inner``), so the timer's overhead is under 0.1 %;
* **cold**: one call a sample, each after :data:`EVICT_BYTES` of other data went through the caches
  (untimed), as a model's other layers pass between two calls of one layer (ResNet-50 holds ~100 MB of
  weights): what the library reaches when its operands are not in the core's own caches (L1, L2), the
  condition of a model's kernel and of MetaSchedule's cache-flushed timing (``lab02_tvm.tuning.harness``).
  Whether they then come from a shared L3 or from memory depends on the host (its cache sizes are in the
  table's environment). On a tiny shape (LLaMA-tiny's, microseconds) a cold call is mostly the library's
  per-call overhead, not its arithmetic.

Every library's output is checked against a float64 NumPy product first (:data:`RTOL`).

``python -m lab02_tvm.measure.gemm_ceiling --model resnet50`` writes
``results/lab02/gemm_ceiling_<model>.{md,csv,json}`` (``_quick`` added with ``--quick``; the results root
is ``$MLC_RESULTS_DIR`` when set); % of peak needs this CPU's roof (``python -m common.roof``). Lab 02's
step 11 writes the same tables for ResNet-50 and BERT-base; Lab 02's MEASURED.md sets their % of peak beside the
tuned kernels' (``roofline_<model>.md``, ``vs_ort_resnet50.md``).
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import LAB

#: Relative tolerance of each library's product against float64 NumPy, in max |d| / max |ref|: float32
#: accumulation over K <= 4,608 terms of unit-normal products gives errors near sqrt(K) * 2**-24 * |term|
#: (about 1e-5 of the output's scale); 1e-4 leaves room for blocked summation orders and fails on a
#: wrong operand layout (errors of order 1).
RTOL = 1e-4
#: Target duration of one timed sample (seconds): the GEMM repeats ``inner`` times to fill it.
SAMPLE_S = 4e-3
#: Bytes streamed through the caches before each cold call: 64 MiB, past the 2 MiB L2 of a core and about the
#: data ResNet-50's other layers move between two calls of one layer.
EVICT_BYTES = 64 << 20
#: The libraries, in column order.
LIBRARIES = ("numpy", "torch", "onnxruntime")


@dataclass(frozen=True)
class Gemm:
    """One GEMM shape of a model: ``C[M, N] = A[M, K] @ B[K, N]`` in float32.

    Attributes:
        op: where it comes from, e.g. ``"linear 768->3072"`` or ``"conv 1x1 256->1024 at 14x14"``.
        m, k, n: the GEMM's dimensions.
        calls: how many layers of the model have this shape (one call each per forward).
    """

    op: str
    m: int
    k: int
    n: int
    calls: int = 1

    @property
    def flops(self) -> float:
        """2 * M * K * N FLOP per call (one multiply and one add per term)."""
        return 2.0 * self.m * self.k * self.n


def model_gemms(model, inputs: dict) -> list[Gemm]:
    """The GEMM shapes of one forward of ``model(**inputs)``: every ``nn.Linear`` and every ``nn.Conv2d`` with
    ``groups == 1``, deduplicated by ``(op, M, K, N)`` with their call counts, in order of first use.

    Args:
        model: a ``torch.nn.Module`` (eval mode).
        inputs: its keyword inputs (tensors).
    Returns:
        the shapes, e.g. ResNet-50 at 224 x 224: 23 convolution shapes + the classifier's linear layer.
    """
    import torch

    seen: dict[tuple, int] = {}

    def on_linear(mod, args, out):
        x = args[0]
        key = (f"linear {mod.in_features}->{mod.out_features}", math.prod(x.shape[:-1]), mod.in_features,
               mod.out_features)
        seen[key] = seen.get(key, 0) + 1

    def on_conv(mod, args, out):
        if mod.groups != 1:
            return
        kh, kw = mod.kernel_size
        b, cout, ho, wo = out.shape
        stride = "" if mod.stride == (1, 1) else f" stride {mod.stride[0]}"
        key = (f"conv {kh}x{kw} {mod.in_channels}->{cout}{stride} at {ho}x{wo}", b * ho * wo,
               mod.in_channels * kh * kw, cout)
        seen[key] = seen.get(key, 0) + 1

    hooks = [m.register_forward_hook(on_linear if isinstance(m, torch.nn.Linear) else on_conv)
             for m in model.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d))]
    try:
        with torch.no_grad():
            model(**inputs)
    finally:
        for h in hooks:
            h.remove()
    return [Gemm(op, m, k, n, calls) for (op, m, k, n), calls in seen.items()]


def _ort_matmul(b: np.ndarray, m: int):
    """An ONNX Runtime session computing ``A @ b`` for ``A: [m, K]`` (``b`` an initializer), 1 thread."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    from common.timing import ort_session_options

    k, n = b.shape
    graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["C"])], "gemm",
                              [helper.make_tensor_value_info("A", TensorProto.FLOAT, [m, k])],
                              [helper.make_tensor_value_info("C", TensorProto.FLOAT, [m, n])],
                              initializer=[numpy_helper.from_array(b, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return ort.InferenceSession(model.SerializeToString(), ort_session_options(1), providers=["CPUExecutionProvider"])


def library_calls(g: Gemm, seed: int = 0) -> tuple[dict[str, Callable[[], np.ndarray]], np.ndarray]:
    """One zero-argument function per library, each computing ``A @ B`` for ``g``'s shape on the same seeded
    unit-normal float32 operands, and the float64 reference product.

    Returns:
        ``({library: fn}, reference)``; each ``fn()`` returns the ``[M, N]`` float32 product.
    """
    import torch

    rng = np.random.default_rng(seed)
    a = rng.standard_normal((g.m, g.k), dtype=np.float32)
    b = rng.standard_normal((g.k, g.n), dtype=np.float32)
    c = np.empty((g.m, g.n), np.float32)
    ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.empty(g.m, g.n)
    sess = _ort_matmul(b, g.m)
    feed = {"A": a}

    def with_numpy():
        return np.matmul(a, b, out=c)

    def with_torch():
        return torch.mm(ta, tb, out=tc).numpy()

    def with_ort():
        return sess.run(None, feed)[0]

    return ({"numpy": with_numpy, "torch": with_torch, "onnxruntime": with_ort},
            a.astype(np.float64) @ b.astype(np.float64))


def check_against(reference: np.ndarray, out: np.ndarray, label: str) -> float:
    """``max |out - reference| / max |reference|``.

    Raises:
        AssertionError: above :data:`RTOL` (``label`` names the library and shape).
    """
    err = float(np.max(np.abs(out.astype(np.float64) - reference)) / max(float(np.max(np.abs(reference))), 1e-30))
    if not err <= RTOL:
        raise AssertionError(f"{label}: max |d| / max |ref| = {err:.2e} > {RTOL:g}")
    return err


def repeated(fn: Callable[[], object], inner: int) -> Callable[[], None]:
    """``fn`` called ``inner`` times in a row: one timed sample."""
    def run():
        for _ in range(inner):
            fn()
    return run


def evictor(nbytes: int = EVICT_BYTES) -> Callable[[], None]:
    """A function that reads and writes ``nbytes`` of its own buffer: what was in the caches before is evicted."""
    buf = np.ones(nbytes // 4, np.float32)

    def evict():
        np.add(buf, 1.0, out=buf)
    return evict


def cold_run(fns: dict[str, Callable[[], object]], *, repeats: int, evict: Callable[[], None]) -> dict:
    """``{label: TimingStats}`` of single calls, each right after ``evict()`` (untimed), in interleaved rounds
    (:func:`common.timing.interleaved`, no warm-up: a warm-up call would only warm what ``evict`` flushes)."""
    from common.timing import interleaved
    return interleaved(fns, warmup=0, repeats=repeats, before=evict)


def time_gemm(g: Gemm, *, repeats: int = 30, peak_gflops: float | None = None,
              evict: Callable[[], None] | None = None) -> dict:
    """One row: each library's ms per call warm and cold (medians over ``repeats`` interleaved rounds each), its
    % of ``peak_gflops``, and the best library's GFLOP/s either way.

    Args:
        g: the shape.
        repeats: timed rounds of each run.
        peak_gflops: the FMA peak the % are of (``None``: no % columns filled).
        evict: the cold run's eviction (default :func:`evictor`).
    Raises:
        AssertionError: a library's product differs from the float64 reference beyond :data:`RTOL`.
    """
    from common.roof import gflops as rate
    from common.timing import interleaved

    fns, ref = library_calls(g)
    errs = {lib: check_against(ref, fn(), f"{lib} on {g.op} ({g.m}x{g.k}x{g.n})") for lib, fn in fns.items()}
    t0 = time.perf_counter()
    fns["numpy"]()
    inner = max(1, round(SAMPLE_S / max(time.perf_counter() - t0, 1e-6)))
    warm = interleaved({lib: repeated(fn, inner) for lib, fn in fns.items()}, warmup=1, repeats=repeats)
    cold = cold_run(fns, repeats=repeats, evict=evict or evictor())
    row: dict = {"op": g.op, "calls": g.calls, "m": g.m, "k": g.k, "n": g.n, "mflop": round(g.flops / 1e6, 2)}

    def pct(ms: float) -> float | None:
        return None if not peak_gflops else round(100.0 * rate(g.flops, ms) / peak_gflops, 1)
    for lib in LIBRARIES:
        w, c = warm[lib].median_ms / inner, cold[lib].median_ms
        row |= {f"{lib}_ms": float(f"{w:.4g}"), f"{lib}_pct_peak": pct(w),
                f"{lib}_cold_ms": float(f"{c:.4g}"), f"{lib}_cold_pct_peak": pct(c)}
    best = min(LIBRARIES, key=lambda lib: row[f"{lib}_ms"])
    best_cold = min(LIBRARIES, key=lambda lib: row[f"{lib}_cold_ms"])
    row |= {"best": best, "best_gflops": round(rate(g.flops, row[f"{best}_ms"]), 1), "best_pct_peak": row[f"{best}_pct_peak"],
            "best_cold": best_cold, "best_cold_gflops": round(rate(g.flops, row[f"{best_cold}_cold_ms"]), 1),
            "best_cold_pct_peak": row[f"{best_cold}_cold_pct_peak"], "inner": inner,
            "max_rel_err": float(f"{max(errs.values()):.2e}")}
    return row


def blas_names() -> dict:
    """Which BLAS each library runs on this install: NumPy's from ``threadpoolctl`` (the library loaded from
    NumPy's own ``numpy.libs``: SciPy, once imported, loads another OpenBLAS), PyTorch's from its build
    configuration (``torch.__config__.show()``'s ``BLAS_INFO``)."""
    import re

    import torch
    from threadpoolctl import threadpool_info
    numpy_blas = next((f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()
                       if i.get("user_api") == "blas" and "numpy" in Path(i.get("filepath", "")).parent.name), "unknown")
    found = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    return {"numpy_blas": numpy_blas, "torch_blas": found.group(1) if found else "unknown",
            "onnxruntime_blas": "MLAS (its own kernels)"}


def cache_sizes() -> dict:
    """``{"caches": "L1d 48K, L2 2048K, L3 491520K"}`` from ``/sys/devices/system/cpu/cpu0/cache`` (empty where the
    host does not say): what "cold" means on this host."""
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    parts = []
    for idx in sorted(base.glob("index*")):
        try:
            level, kind, size = ((idx / f).read_text().strip() for f in ("level", "type", "size"))
        except OSError:
            continue
        if kind != "Instruction":
            parts.append(f"L{level}{'d' if kind == 'Data' else ''} {size}")
    return {"caches": ", ".join(parts)} if parts else {}


def measure_gemms(gemms: Sequence[Gemm], *, repeats: int = 30, progress: bool = True, desc: str = "gemm ceiling") -> list[dict]:
    """:func:`time_gemm` on each shape at 1 thread (NumPy's BLAS, PyTorch and ONNX Runtime), slowest first by the
    best library's cold total (calls x ms: where a model's time goes)."""
    from threadpoolctl import threadpool_limits

    from common.roof import cached_roof
    from common.timing import set_torch_threads

    peak = (cached_roof() or {}).get("peak_gflops")
    set_torch_threads(1)
    with threadpool_limits(limits=1):
        it = gemms
        if progress:
            from tqdm import tqdm
            it = tqdm(gemms, desc=desc, leave=False, disable=None)  # no bar in a log (not a tty)
        evict = evictor()
        rows = [time_gemm(g, repeats=repeats, peak_gflops=peak, evict=evict) for g in it]
    for r in rows:
        r["best_cold_total_ms"] = round(r["calls"] * r[f"{r['best_cold']}_cold_ms"], 3)
    return sorted(rows, key=lambda r: -r["best_cold_total_ms"])


def measure_model(model: str, *, repeats: int = 30, quick: bool = False, progress: bool = True) -> list[dict]:
    """:func:`measure_gemms` on every GEMM shape of a Lab 02 model (batch 1; ``quick``: its reduced configuration).

    Raises:
        UserError: an unknown model.
    """
    from ..models import build_bundle
    bundle = build_bundle(model, quick=quick)
    return measure_gemms(model_gemms(bundle.model, bundle.inputs), repeats=repeats, progress=progress,
                         desc=f"gemm ceiling {model}")


NOTES = ("One row per GEMM shape of the model (M x K x N; calls = layers of that shape), each library timed "
         "at 1 thread in two interleaved runs, warm (the same operands back to back; a sample repeats the GEMM `inner` "
         "times, ms = median sample / inner) and cold (one call a sample, each after 64 MiB of other data went through "
         "the caches): numpy = np.matmul into a preallocated output (its BLAS, threadpoolctl limit 1), torch = "
         "torch.mm(out=) (PyTorch's CPU BLAS), onnxruntime = one MatMul node with the weight as an initializer (MLAS, "
         "prepacked). % of peak against the measured FMA peak (common.roof; empty without a roof for this CPU). A "
         "convolution's row is its implicit GEMM (M = batch Ho Wo, K = Cin kh kw, N = Cout): the convolution's FLOPs, "
         "not its time. best / best_cold: the fastest library warm / cold; rows sorted by best_cold_total_ms = calls x "
         "the best cold ms (where a model's time would go). max_rel_err: the worst library's max |d| / max |ref| "
         "against a float64 product (bound 1e-4).")


def write_ceiling(model: str, rows: list[dict], *, repeats: int, quick: bool = False, name: str | None = None,
                  extra_env: dict | None = None) -> dict:
    """Write ``results/lab02/<name>.{md,csv,json}`` (default ``gemm_ceiling_<model>``, ``_quick`` added for the
    reduced model); returns the paths."""
    from common.results import write_table
    from common.timing import environment
    stem = name or f"gemm_ceiling_{model}{'_quick' if quick else ''}"
    return write_table(LAB, stem, rows, title=f"GEMM ceiling: {model}{' (reduced)' if quick else ''}", notes=NOTES,
                       env=environment(threads=1, machine_note="1 core", **blas_names(), **cache_sizes(), **(extra_env or {})),
                       meta={"model": model, "quick": quick, "repeats": repeats, "sample_s": SAMPLE_S,
                             "evict_bytes": EVICT_BYTES, "rtol": RTOL})


def summary_line(row: dict) -> str:
    """One row in a line: the shape and each library's % of the peak, warm / cold (ms without a roof)."""
    head = f"{row['op']} ({row['m']}x{row['k']}x{row['n']}, {row['calls']} calls): "
    if row[f"{LIBRARIES[0]}_pct_peak"] is None:
        return head + ", ".join(f"{lib} {row[f'{lib}_ms']} / {row[f'{lib}_cold_ms']} ms" for lib in LIBRARIES) + " (warm / cold)"
    return (head + ", ".join(f"{lib} {row[f'{lib}_pct_peak']} / {row[f'{lib}_cold_pct_peak']} %" for lib in LIBRARIES)
            + " of peak (warm / cold)")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lab02_tvm.measure.gemm_ceiling --model M [--repeats R] [--quick] [--name NAME]``."""
    from common.cli import parser, positive, step, table_name
    from common.results import results_dir
    from common.roof import cached_roof, host_check_seconds, host_speed

    from ..models import MODELS
    p = parser("python -m lab02_tvm.measure.gemm_ceiling", __doc__, quick="the model's reduced configuration",
               epilog="writes results/lab02/gemm_ceiling_<model>[_quick].{md,csv,json} (under $MLC_RESULTS_DIR when set); "
                      "% of peak needs this CPU's roof: python -m common.roof")
    p.add_argument("--model", required=True, choices=list(MODELS))
    p.add_argument("--repeats", type=int, default=30, help="timed rounds per shape and run (warm ~4 ms a sample)")
    p.add_argument("--name", default=None, help="table name (default gemm_ceiling_<model>)")
    args = p.parse_args(argv)
    positive("--repeats", args.repeats)
    table_name("--name", args.name)
    results_dir(LAB)  # an unwritable results folder fails here, before any timing
    if not (cached_roof() or {}).get("peak_gflops"):
        step(0, "gemm_ceiling", "no measured roof for this CPU (python -m common.roof): the % of peak columns stay empty")
    with host_speed(host_check_seconds()) as host:
        rows = measure_model(args.model, repeats=args.repeats, quick=args.quick)
    for r in rows[:8]:
        step(1, "gemm_ceiling", summary_line(r))
    paths = write_ceiling(args.model, rows, repeats=args.repeats, quick=args.quick, name=args.name, extra_env=host)
    step(2, "write", str(paths["md"]))
    return 0


if __name__ == "__main__":
    from common.errors import run_cli

    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
