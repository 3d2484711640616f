"""Latency measurement: warm-up, repeats, median / p10 / p90, interleaved A/B/C runs, threads.

On the shared 2-core machines this course was built on, 2-thread timings swing 2-4x between
processes while 1-thread timings hold within about 15%; defaults are therefore **1 thread** and
comparisons are made as **ratios of interleaved runs in one process** (:func:`interleaved` runs every
candidate once per round, so slow phases of the machine hit every candidate alike, and shuffles each
round's order, so no candidate always runs right after the same one).
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import os
import platform
import random
import time
from dataclasses import asdict, dataclass, field
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from . import roof as _roof
from .isa import cpu_model  # noqa: F401  (re-exported: timing tables name the CPU)

DEFAULT_THREADS = 1
PACKAGES = ("torch", "onnx", "onnxruntime", "onnxoptimizer", "onnxscript", "transformers", "apache-tvm",
            "apache-tvm-ffi", "xtc-mlir-python-bindings", "llvmlite", "numpy", "torch-mlir", "iree-base-compiler")


@dataclass
class TimingStats:
    """Latency statistics in milliseconds over ``n`` timed repeats (after warm-up)."""

    median_ms: float
    p10_ms: float
    p90_ms: float
    mean_ms: float
    min_ms: float
    n: int
    samples_ms: list[float] = field(default_factory=list, repr=False)

    @classmethod
    def from_samples(cls, samples_s: list[float]) -> "TimingStats":
        """Build from samples in **seconds**.

        Raises:
            ValueError: no samples.
        """
        if not samples_s:
            raise ValueError("no timing samples")
        ms = np.asarray(samples_s, dtype=np.float64) * 1e3
        return cls(median_ms=float(np.median(ms)), p10_ms=float(np.percentile(ms, 10)),
                   p90_ms=float(np.percentile(ms, 90)), mean_ms=float(ms.mean()), min_ms=float(ms.min()),
                   n=int(ms.size), samples_ms=[float(x) for x in ms])

    def summary(self) -> dict:
        """The statistics without the raw samples (for tables)."""
        d = asdict(self)
        d.pop("samples_ms")
        return d


def measure(fn: Callable[[], object], *, warmup: int = 3, repeats: int = 20,
            min_time_s: float | None = None) -> TimingStats:
    """Time ``fn()``: ``warmup`` untimed calls, then ``repeats`` timed calls (``perf_counter``).

    If ``min_time_s`` is given, keeps repeating past ``repeats`` until that much time was spent.
    """
    for _ in range(warmup):
        fn()
    samples: list[float] = []
    start = time.perf_counter()
    while len(samples) < repeats or (min_time_s is not None and time.perf_counter() - start < min_time_s):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return TimingStats.from_samples(samples)


def round_orders(labels: Sequence[str], rounds: int, *, seed: int = 0, after: str | None = None) -> list[list[str]]:
    """The order of each timed round of :func:`interleaved`: a seeded shuffle, never starting with the last.

    A fixed order (A, B, C, A, B, C, ...) gives every candidate the same predecessor in every round, and
    what ran before a candidate changes its time (caches, branch predictors, frequency): measured on
    Lab 02's records A/B, the folder timed second ran about 0.8 % faster, whichever it was. A fresh random
    order each round spreads predecessors and positions over all candidates alike (Google Benchmark's
    ``--benchmark_enable_random_interleaving``, docs/random_interleaving.md; randomized setup against
    measurement bias: Mytkowicz et al., "Producing Wrong Data Without Doing Anything Obviously Wrong!",
    ASPLOS 2009). A round never starts with the candidate that ended the round before, so none runs
    twice in a row on its own warm caches; with two candidates that leaves A, B, A, B, ...

    Args:
        labels: the candidates (at least one).
        rounds: how many rounds.
        seed: the shuffle's seed (the same seed gives the same orders).
        after: the candidate that ran just before the first round (the warm-up's last), if any.

    Returns:
        ``rounds`` lists, each a permutation of ``labels``.
    """
    rng = random.Random(seed)
    orders: list[list[str]] = []
    last = after
    for _ in range(rounds):
        order = list(labels)
        rng.shuffle(order)
        if len(order) > 1 and order[0] == last:
            swap = rng.randrange(1, len(order))
            order[0], order[swap] = order[swap], order[0]
        orders.append(order)
        last = order[-1]
    return orders


def interleaved(fns: dict[str, Callable[[], object]], *, warmup: int = 3, repeats: int = 20,
                progress: bool = False, seed: int = 0, before: Callable[[], object] | None = None) -> dict[str, TimingStats]:
    """Time several candidates in interleaved rounds, so their ratios come from one run.

    Each round runs every candidate once, in that round's order from :func:`round_orders` (a seeded
    shuffle, so no candidate always follows the same one); warm-up rounds run them in ``fns`` order.

    Args:
        fns: ``{label: zero-argument callable}``.
        warmup: untimed rounds before timing.
        repeats: timed rounds; each candidate gets this many samples.
        progress: show a tqdm bar over rounds (on a terminal; a log or a pipe gets none).
        seed: the seed of the rounds' orders.
        before: called untimed right before every timed call (e.g. a cache flush, for cold timings).

    Returns:
        ``{label: TimingStats}``.
    """
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    samples: dict[str, list[float]] = {k: [] for k in fns}
    rounds = round_orders(list(fns), repeats, seed=seed, after=list(fns)[-1] if warmup and fns else None)
    if progress:
        from tqdm import tqdm
        rounds = tqdm(rounds, desc="timing", leave=False, disable=None)  # None: on a terminal only, not in logs
    for order in rounds:
        for label in order:
            fn = fns[label]
            if before is not None:
                before()
            t0 = time.perf_counter()
            fn()
            samples[label].append(time.perf_counter() - t0)
    return {k: TimingStats.from_samples(v) for k, v in samples.items()}


def set_torch_threads(n: int = DEFAULT_THREADS) -> None:
    """Fix PyTorch's intra-op threads to ``n`` (inter-op threads can only be set once per process)."""
    import torch
    torch.set_num_threads(n)
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)


def ort_session_options(threads: int = DEFAULT_THREADS, level: str | None = None,
                        optimized_model_path: str | None = None):
    """``onnxruntime.SessionOptions`` with fixed intra/inter-op threads and an optional optimization level.

    Args:
        threads: intra-op threads (inter-op is 1, sequential execution).
        level: one of ``DISABLE_ALL``, ``BASIC``, ``EXTENDED``, ``ALL`` (ORT ``GraphOptimizationLevel``
            names, also ``ORT_ENABLE_*``); ``None`` keeps ORT's default (ALL).
        optimized_model_path: where ORT saves the model after its graph optimizations.

    Raises:
        ValueError: unknown level.
    """
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    if level is not None:
        key = level.upper().removeprefix("ORT_").removeprefix("ENABLE_")
        levels = {"DISABLE_ALL": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
                  "BASIC": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                  "EXTENDED": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                  "ALL": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
        if key not in levels:
            raise ValueError(f"unknown ORT optimization level {level!r}; use one of {list(levels)}")
        so.graph_optimization_level = levels[key]
    if optimized_model_path:
        so.optimized_model_filepath = str(optimized_model_path)
    return so


@contextlib.contextmanager
def tvm_threads(n: int = DEFAULT_THREADS) -> Iterator[None]:
    """Run TVM's CPU runtime with ``n`` worker threads inside the block.

    Sets ``TVM_NUM_THREADS`` and, when TVM is imported, resizes its thread pool through the
    ``runtime.config_threadpool`` global function (mode 0, ``n`` threads).
    """
    old = os.environ.get("TVM_NUM_THREADS")
    os.environ["TVM_NUM_THREADS"] = str(n)
    _config_tvm_pool(n)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TVM_NUM_THREADS", None)
        else:
            os.environ["TVM_NUM_THREADS"] = old
        _config_tvm_pool(int(old) if old else (os.cpu_count() or 1))


def _config_tvm_pool(n: int) -> None:
    import sys
    if "tvm" not in sys.modules:
        return
    import tvm
    f = tvm.get_global_func("runtime.config_threadpool", allow_missing=True)
    if f is not None:
        f(0, n)


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Installed versions of ``names`` (``"absent"`` when not installed)."""
    out = {}
    for n in names:
        try:
            out[n] = importlib.metadata.version(n)
        except importlib.metadata.PackageNotFoundError:
            out[n] = "absent"
    return out


ROOF_KEYS = ("peak_gflops", "sgemm_gflops", "bandwidth_gbs", "date")


def measured_roof() -> dict | None:
    """The machine's measured roof in short, or ``None`` when none is cached for this CPU.

    Reads ``common.roof.cached_roof()`` (the cache ``python -m common.roof`` writes; nothing is
    measured here) and keeps ``ROOF_KEYS``: single-thread FP32 FMA peak and 1-thread sgemm in
    GFLOP/s, STREAM bandwidth in GB/s, the date measured. Any failure (module or function absent,
    unreadable cache) gives ``None``.
    """
    try:
        roof_now = _roof.cached_roof()
    except Exception:  # an optional record: never let it break a measurement
        return None
    if not isinstance(roof_now, dict):
        return None
    return {k: roof_now[k] for k in ROOF_KEYS if k in roof_now} or None


def environment(threads: int | None = DEFAULT_THREADS, **extra) -> dict:
    """The environment a measurement was taken in: CPU, cores, threads, Python, package versions, and
    ``load_avg``: the 1-, 5- and 15-minute load averages when the table is written (``os.getloadavg``;
    the measurement's own thread counts about 1, so on N cores a 1-minute load well above ``threads``
    means other jobs shared the machine, and timings swing more).

    Adds ``roof`` (:func:`measured_roof`: peak GFLOP/s, sgemm GFLOP/s, bandwidth GB/s, date) when a
    measured roof is cached for this CPU. ``extra`` keys (budgets, seeds, data source, …) are added
    as given.
    """
    env = {
        "cpu": cpu_model(),
        "machine": platform.machine(),
        "logical_cores": os.cpu_count(),
        "threads": threads,
        "python": platform.python_version(),
        "os": platform.platform(terse=True),
        "ci": os.environ.get("CI", ""),
        "load_avg": dict(zip(("1min", "5min", "15min"), (round(x, 2) for x in os.getloadavg()))),
        "packages": package_versions(),
    }
    roof = measured_roof()
    if roof:
        env["roof"] = roof
    env.update(extra)
    return env
