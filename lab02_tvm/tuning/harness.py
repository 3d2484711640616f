"""MetaSchedule plumbing for a small shared CPU machine: builder, runner, progress, environment.

What :mod:`lab02_tvm.tuning.tune` runs MetaSchedule with. Measured on the 2-core machine this lab
was built on: MetaSchedule's default builder function imports ``tvm.s_tir.tensor_intrin`` in every
build worker (25-55 s), so with its 30 s timeout about half the candidates "failed to build" and a
trial cost ~20 s; its ``TuneContext`` imports the whole package in the tuning process too (70 s,
55 s of it CUDA intrinsics). Hence:

* :func:`fast_build` / :class:`PooledBuilder` — the default build without the ``tensor_intrin``
  import, in a persistent pool of worker processes;
* :func:`make_runner` / :class:`RecycledRunner` / :func:`evaluator_config` — one candidate measured at a time, in
  a worker process replaced every :data:`RUNNER_RECYCLE` candidates;
* :func:`shared_pools` / :func:`worker_pool` / :func:`release` — their worker processes, kept across calls
  inside a ``shared_pools`` block;
* :class:`ProgressCallback` — a tqdm bar and build/run error counts;
* :func:`cpu_tensor_intrinsics`, :func:`tuning_environment`, :func:`quiet_ms_console` — what the
  tuning process and its workers need around a ``tune_tasks`` call.
"""
from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tvm
from tvm.ir.utils import derived_object
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.meta_schedule.builder import BuilderResult, PyBuilder
from tvm.s_tir.meta_schedule.builder.local_builder import _serialize_params
from tvm.s_tir.meta_schedule.builder.local_builder import _worker_func as _build_worker
from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback
from tvm.support.popen_pool import PopenPoolExecutor, StatusKind


REPO_ROOT = Path(__file__).resolve().parents[2]
MS_LOGGER = "tvm.s_tir.meta_schedule"
#: Build timeout per candidate, seconds (MetaSchedule's default is 30 s).
BUILD_TIMEOUT_S = 60.0


def target_cores(target: tvm.target.Target) -> int:
    """The ``num-cores`` attribute of a CPU target (1 when absent)."""
    try:
        return int(target.attrs.get("num-cores", 1) or 1)
    except Exception:  # noqa: BLE001 - attrs differ per target kind
        return 1


# --------------------------------------------------------------------------------------------
# Builder and runner
# --------------------------------------------------------------------------------------------
def fast_build(mod: tvm.IRModule, target: tvm.target.Target, _params: Any = None) -> Any:
    """MetaSchedule builder function: ``default_build`` without importing ``tensor_intrin``.

    Same steps as ``s_tir.meta_schedule.builder.default_build`` (strip the weight-layout
    rewrite blocks, ``tvm.compile`` the PrimFunc) but without ``import tvm.s_tir.tensor_intrin``,
    which costs 25-55 s per build worker here and made half the candidates time out, and lowered
    with :mod:`lab02_tvm.lowering.fast_exp` first, as every build from records is, so the search
    times the code that ships. Runs inside MetaSchedule's build worker processes (they import this
    module by name).
    """
    from tvm.driver import build as tvm_build
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    from ..lowering import fast_exp

    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    return tvm_build(mod, target=target, pipeline=fast_exp.register())


#: worker pools :func:`shared_pools` keeps, by their settings (``None``: outside a block, every pool is new)
_SHARED: dict[tuple, PopenPoolExecutor] | None = None


@contextlib.contextmanager
def shared_pools() -> Iterator[None]:
    """Inside the block, builders and runners made with the same settings share their worker processes.

    Each worker is a fresh Python process that imports TVM (2.6 s on Zen 4) before its first candidate, so a
    process that tunes, re-times or climbs many times (Lab 02's tests: 20 builders and 22 runners) pays that
    per call. Inside the block it pays it once per kind of pool. Workers still start at their first candidate
    and are still replaced after their own number of uses; what reaches a worker only when it starts is part of
    the key (``TVM_NUM_THREADS``, ``PYTHONPATH``: :func:`tuning_environment`). On exit the pools are shut down;
    a nested block uses the outer one's.
    """
    global _SHARED
    if _SHARED is not None:
        yield
        return
    _SHARED = {}
    try:
        yield
    finally:
        pools, _SHARED = _SHARED, None
        for pool in pools.values():
            pool.shutdown()


def worker_pool(max_workers: int, timeout: float, *, uses: int | None = None, stderr: Any = None) -> PopenPoolExecutor:
    """TVM's process pool (``PopenPoolExecutor``: ``max_workers`` processes, ``timeout`` s a call, each worker
    replaced after ``uses`` calls): the one :func:`shared_pools` keeps for these settings, else a new one."""
    def make() -> PopenPoolExecutor:
        return PopenPoolExecutor(max_workers=max_workers, timeout=timeout, maximum_process_uses=uses, stderr=stderr)

    if _SHARED is None:
        return make()
    key = (max_workers, timeout, uses, stderr, os.environ.get("TVM_NUM_THREADS"), os.environ.get("PYTHONPATH"))
    if key not in _SHARED:
        _SHARED[key] = make()
    return _SHARED[key]


def release(pool: PopenPoolExecutor) -> None:
    """Shut ``pool`` down, unless :func:`shared_pools` keeps it (its block shuts it down)."""
    if not any(pool is kept for kept in (_SHARED or {}).values()):
        pool.shutdown()


@derived_object
class PooledBuilder(PyBuilder):
    """MetaSchedule builder: :func:`fast_build` in a *persistent* pool of worker processes.

    ``LocalBuilder`` starts a fresh process pool for every batch (a guard against a slow memory
    leak in long runs); each worker then pays ``import tvm`` (7-9 s on a loaded 2-core machine),
    about 1 s per trial at 16 candidates per batch. This builder keeps its workers and replaces each
    after its share of ``restart_every`` candidates instead (:func:`worker_pool`). Results and error
    strings are those of ``LocalBuilder`` (same worker function).
    """

    def __init__(self, max_workers: int | None = None, timeout_sec: float = BUILD_TIMEOUT_S,
                 restart_every: int = 512) -> None:
        super().__init__()
        self.max_workers = max_workers or os.cpu_count() or 1
        self.timeout_sec = timeout_sec
        self.restart_every = restart_every
        self._pool = None

    def build(self, build_inputs: list) -> list:
        """Build each input in the worker pool, one ``BuilderResult`` per input in order: the artifact, or an error
        message on a timeout (``timeout_sec``) or an exception."""
        if self._pool is None:
            self._pool = worker_pool(self.max_workers, self.timeout_sec,
                                     uses=max(1, self.restart_every // self.max_workers))
        pool = self._pool
        args = [(fast_build, None, b.mod, b.target, _serialize_params(b.params))
                for b in build_inputs]
        results = []
        for res in pool.map_with_error_catching(lambda x: _build_worker(*x), args):
            if res.status == StatusKind.COMPLETE:
                results.append(BuilderResult(res.value, None))
            elif res.status == StatusKind.TIMEOUT:
                results.append(BuilderResult(
                    None, f"PooledBuilder: Timeout, killed after {self.timeout_sec} seconds"))
            else:
                results.append(BuilderResult(None, "PooledBuilder: An exception occurred\n"
                                             + str(res.value)))
        return results

    def close(self) -> None:
        """Let the worker processes go (:func:`release`; idempotent)."""
        if self._pool is not None:
            release(self._pool)
            self._pool = None


def make_builder(num_workers: int | None = None) -> Any:
    """:class:`PooledBuilder` with ``num_workers`` build processes (default: CPU count)."""
    return PooledBuilder(max_workers=num_workers or os.cpu_count() or 1)


#: runs per candidate when every run is cold (TLCBench's ``repeat=10``)
COLD_REPEATS = 10


def evaluator_config(cache_flush: bool = False) -> ms.runner.EvaluatorConfig:
    """How each candidate is timed.

    ``cache_flush=False`` (warm): 3 runs per repeat, 1 repeat, at least 50 ms, so a short kernel runs
    many times back to back and its weights stay in cache after the first run.

    ``cache_flush=True`` (cold): every timed run starts with the kernel's operands flushed from the
    caches, as TLCBench tuned: ``number=1``, ``repeat=COLD_REPEATS``, ``min_repeat_ms=0``,
    ``enable_cpu_cache_flush``. TVM's time evaluator (``WrapTimeEvaluator``) calls the flush
    (``cache_flush_cpu_non_first_arg``: every argument but the
    first, so the activations stay warm and the weights and outputs go) once per *repeat*, before
    ``number`` runs that ``min_repeat_ms`` may multiply: with ``number=3, min_repeat_ms=50`` only the
    first of dozens of runs was cold. With one run per repeat every measurement sees its weights come
    from memory, as in the model, where other kernels ran between two calls of this one.
    """
    if cache_flush:
        return ms.runner.EvaluatorConfig(number=1, repeat=COLD_REPEATS, min_repeat_ms=0, enable_cpu_cache_flush=True)
    return ms.runner.EvaluatorConfig(number=3, repeat=1, min_repeat_ms=50, enable_cpu_cache_flush=False)


#: Candidates one runner worker process measures before it is replaced by a fresh one (:class:`RecycledRunner`)
RUNNER_RECYCLE = 256


@derived_object
class RecycledRunner(ms.runner.LocalRunner._cls):
    """MetaSchedule's ``LocalRunner`` whose one worker process is replaced every ``recycle_every`` candidates.

    ``LocalRunner`` keeps its worker for the whole run, and the worker's memory grows with every candidate it
    loads and times: measured on Zen 4 (2026-12-07), a BERT-base top-up's runner worker held 16.5 GB after ~2,650
    trials (about 6 MB a trial, cold timing; a ResNet-50 one, warm, 4.4 GB after ~1,000), until the 24 GB machine
    ran out of memory and a trial took 27 s instead of 1.5. Replacing the worker (TVM's ``PopenPoolExecutor``
    ``maximum_process_uses``) bounds that to ``recycle_every`` candidates' worth, at one ``import tvm`` (a few
    seconds) each time. Timings are those of ``LocalRunner`` (same worker function, same evaluator).
    """

    def __init__(self, *, recycle_every: int = RUNNER_RECYCLE, **kwargs) -> None:
        super().__init__(**kwargs)  # a pool that never recycles its worker (none started: see _sanity_check)
        self.pool.shutdown()
        self.pool = worker_pool(1, self.timeout_sec, uses=recycle_every, stderr=subprocess.DEVNULL)

    def _sanity_check(self) -> None:
        """Nothing: ``LocalRunner``'s check starts a worker (an ``import tvm``, 2.6 s on Zen 4) to look up its three
        functions by name, in the pool this class replaces at once. The functions are MetaSchedule's defaults
        (none is passed by name), which every worker has; the first candidate starts the worker that times it."""


def make_runner(cache_flush: bool = False, recycle_every: int = RUNNER_RECYCLE) -> ms.runner.LocalRunner:
    """:class:`RecycledRunner`: one worker process measures one candidate at a time (timings do not overlap), a
    fresh worker every ``recycle_every`` candidates."""
    return RecycledRunner(evaluator_config=evaluator_config(cache_flush), timeout_sec=60, recycle_every=recycle_every)


# --------------------------------------------------------------------------------------------
# Progress and statistics
# --------------------------------------------------------------------------------------------
@derived_object
class ProgressCallback(PyMeasureCallback):
    """Measure callback: advances a tqdm bar and counts build/run errors per batch."""

    def __init__(self, bar: Any, stats: dict) -> None:
        super().__init__()
        self.bar = bar
        self.stats = stats

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
        """After each measured batch: add to ``stats`` the trials, build and run errors, the best mean run time (ms)
        and the first build error's last line, then advance the bar."""
        n = len(measure_candidates)
        build_err = sum(1 for b in builder_results if b.error_msg is not None)
        run_err = sum(1 for b, r in zip(builder_results, runner_results)
                      if b.error_msg is None and r.error_msg is not None)
        self.stats["trials"] += n
        self.stats["build_errors"] += build_err
        self.stats["run_errors"] += run_err
        for r in runner_results:
            if r.error_msg is None and r.run_secs:
                ms_ = 1e3 * sum(float(s) for s in r.run_secs) / len(r.run_secs)
                cur = self.stats["best_ms"]
                self.stats["best_ms"] = ms_ if cur is None else min(cur, ms_)
        if build_err and not self.stats.get("first_build_error"):
            msg = next(b.error_msg for b in builder_results if b.error_msg is not None)
            self.stats["first_build_error"] = msg.strip().splitlines()[-1][:300]
        if self.bar is not None:
            self.bar.update(n)
            postfix = {"task": self.stats.get("task", "")[:28], "build_err": self.stats["build_errors"]}
            if self.stats["best_ms"] is not None:
                postfix["best_ms"] = f"{self.stats['best_ms']:.3f}"
            self.bar.set_postfix(postfix, refresh=False)


_STUB_DOC = "CPU-only tensor intrinsics (lab02_tvm.tuning)"


@contextlib.contextmanager
def cpu_tensor_intrinsics(target: tvm.target.Target) -> Iterator[None]:
    """Inside the block, ``tvm.s_tir.tensor_intrin`` holds only the CPU tensor intrinsics.

    ``TuneContext.__init__`` runs ``import tvm.s_tir.tensor_intrin``, whose package ``__init__``
    parses every intrinsic of every backend as TVMScript; the CUDA set alone took 55 s of a 70 s
    import here (``python -X importtime``). For an ``llvm`` target only the x86 and Arm CPU sets
    can be used by the schedule rules, so the package is installed with just those two
    submodules and the later ``import`` is a no-op. On exit the stub package is removed again
    (the two submodules stay registered and cached), so a later full import, e.g. for a CUDA
    target, still loads everything. Other targets, or an already imported package: no change.
    """
    name = "tvm.s_tir.tensor_intrin"
    if name in sys.modules or target.kind.name != "llvm":
        yield
        return
    import importlib
    import importlib.util
    import types

    import tvm.s_tir

    spec = importlib.util.find_spec(name)
    pkg = types.ModuleType(name, _STUB_DOC)
    pkg.__path__ = list(spec.submodule_search_locations or [])
    pkg.__file__ = spec.origin
    pkg.__package__ = name
    pkg.__spec__ = spec
    sys.modules[name] = pkg
    try:
        for sub in ("x86", "arm_cpu"):
            setattr(pkg, sub, importlib.import_module(f"{name}.{sub}"))
    except Exception:  # noqa: BLE001 - fall back to the full (slow) import
        del sys.modules[name]
        importlib.import_module(name)
    try:
        yield
    finally:
        if getattr(sys.modules.get(name), "__doc__", None) == _STUB_DOC:
            del sys.modules[name]
            if getattr(tvm.s_tir, "tensor_intrin", None) is pkg:
                delattr(tvm.s_tir, "tensor_intrin")


@contextlib.contextmanager
def tuning_environment(target: tvm.target.Target, verbose: bool = False) -> Iterator[None]:
    """Environment for MetaSchedule's worker processes, restored afterwards.

    * ``TVM_NUM_THREADS`` = the target's ``num-cores`` (unless already set), so candidates are
      measured with the thread count the model will run with;
    * ``PYTHONPATH`` gains the repository root, so build workers can import :func:`fast_build`;
    * MetaSchedule's console log is limited to warnings (the full log is in ``work_dir/logs``)
      unless ``verbose``.
    """
    saved = {k: os.environ.get(k) for k in ("TVM_NUM_THREADS", "PYTHONPATH")}
    os.environ.setdefault("TVM_NUM_THREADS", str(target_cores(target)))
    paths = [str(REPO_ROOT)] + [p for p in (saved["PYTHONPATH"] or "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    logging.getLogger(MS_LOGGER).setLevel(logging.INFO if verbose else logging.WARNING)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def quiet_ms_console(verbose: bool) -> None:
    """Reset MetaSchedule's global logger before it is configured again for a tuning call.

    ``create_loggers`` re-lists the logger's current handlers by name in a ``dictConfig``; a
    handler left from an earlier configuration (or added by a test harness) breaks it, so the
    old handlers are closed and removed. The console handler it then creates gets the logger's
    current level: WARNING unless ``verbose`` (the full log goes to ``work_dir/logs``).
    """
    lg = logging.getLogger(MS_LOGGER)
    for h in list(lg.handlers):
        lg.removeHandler(h)
        h.close()
    lg.setLevel(logging.INFO if verbose else logging.WARNING)
