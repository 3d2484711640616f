"""Per-kernel facts and times of a built Relax model: FLOPs and bytes of each PrimFunc, and its time in a VM run.

The Relax VM of TVM 0.27 has no ``profile=True`` (``tvm/runtime/vm.py``: the ``VirtualMachine``
constructor takes an executable, devices and a memory config only); it has an *instrument hook*,
``vm.set_instrument(f)``, called before and after every ``Call`` instruction as
``f(func, func_symbol, before_run, ret_value, *args)`` (return 0 = run normally). This module
times each call between its "before" and "after" callbacks (``perf_counter``; the callback's own
cost, a few microseconds, is inside every kernel's time and is reported as the difference
between the kernel sum and an un-instrumented whole-model run).
"""
from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class KernelInfo:
    """Static facts of one PrimFunc: FLOPs per call and bytes of its buffer parameters."""

    name: str
    flops: float
    nbytes: int



def kernel_infos(mod) -> dict[str, KernelInfo]:
    """``{PrimFunc name: KernelInfo}`` for every TIR function of ``mod``.

    Args:
        mod: an IRModule holding the kernels as TIR PrimFuncs (e.g. the fused module the build
            compiled: ``relax.passes.run_standard_passes(...).fused_mod`` or
            ``tuning.tasks.fuse_for_tasks(bound_mod, target)``).
    Returns:
        FLOPs from ``estimate_tir_flops`` (float, per call) and bytes = sum over buffer parameters
        of ``prod(shape) * itemsize`` (shapes must be static; dynamic ones count 0).
    """
    import tvm
    from tvm.s_tir.analysis import estimate_tir_flops

    out = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        try:
            flops = float(estimate_tir_flops(tvm.IRModule({"main": func})))
        except Exception:  # noqa: BLE001 - some extern/opaque kernels cannot be estimated
            flops = float("nan")
        nbytes = 0
        for p in func.params:
            shape = getattr(p, "shape", None)
            if shape is None:
                continue
            try:
                dims = [int(d) for d in shape]
            except TypeError:
                continue
            nbytes += int(np.prod(dims, dtype=np.int64)) * np.dtype(str(p.dtype)).itemsize
        out[gv.name_hint] = KernelInfo(gv.name_hint, flops, nbytes)
    return out



def is_kernel(symbol: str) -> bool:
    """Whether an instrumented call is a kernel (a PrimFunc), not one of the VM's built-ins (``vm.*``)."""
    return not symbol.startswith("vm.")



def profile_vm(vm, args: Sequence[Any], *, func: str = "main", repeats: int = 3) -> dict:
    """Time every kernel call of ``vm[func](*args)`` with the VM's instrument hook.

    Args:
        vm: a ``relax.VirtualMachine`` (or anything with ``.vm``, e.g. ``build.VMRunner``).
        args: the arguments of ``func`` (TVM tensors).
        repeats: instrumented runs (after one warm-up run); also the un-instrumented runs timed.
    Returns:
        ``{"kernels": {name: {"calls": per run, "ms": median over runs of the summed time,
        "arg_bytes": bytes of the runtime arguments of one call}}, "kernel_sum_ms": median of
        the per-run sums, "whole_ms": median un-instrumented run, "sum_frac": fastest kernel
        sum / fastest plain run (rounds interleave one plain and one instrumented run; on a shared
        machine noise only slows a run, so the fastest of each is the stable pair), "repeats"}``.
    """
    vm = getattr(vm, "vm", vm)
    main = vm[func]
    main(*args)
    whole: list[float] = []
    per_run: list[dict[str, float]] = []
    calls: dict[str, int] = defaultdict(int)
    arg_bytes: dict[str, int] = {}
    state: dict = {}

    def instrument(_f, symbol, before, _ret, *a):
        now = time.perf_counter()
        if not is_kernel(symbol):
            return 0
        if before:
            if symbol not in arg_bytes:
                arg_bytes[symbol] = int(sum(int(np.prod(x.shape, dtype=np.int64)) * np.dtype(str(x.dtype)).itemsize
                                            for x in a if hasattr(x, "shape") and hasattr(x, "dtype")))
            state["t"] = time.perf_counter()
        else:
            state["run"][symbol] += now - state["t"]
            if state["first"]:
                calls[symbol] += 1
        return 0

    try:
        for r in range(repeats):  # interleaved: a plain run, then an instrumented one
            clear_instrument(vm)
            t0 = time.perf_counter()
            main(*args)
            whole.append(time.perf_counter() - t0)
            vm.set_instrument(instrument)
            state.update(run=defaultdict(float), first=r == 0)
            main(*args)
            per_run.append(dict(state["run"]))
    finally:
        clear_instrument(vm)
    kernels = {n: {"calls": calls[n], "ms": 1e3 * float(np.median([run.get(n, 0.0) for run in per_run])),
                   "arg_bytes": arg_bytes.get(n, 0)} for n in calls}
    sums = [sum(r.values()) for r in per_run]
    return {"kernels": kernels, "kernel_sum_ms": 1e3 * float(np.median(sums)),
            "whole_ms": 1e3 * float(np.median(whole)),
            "sum_frac": float(min(sums) / min(whole)), "repeats": repeats}



def clear_instrument(vm) -> None:
    """Remove the hook (``None``); where the FFI refuses ``None``, a no-op hook."""
    try:
        vm.set_instrument(None)
    except Exception:  # noqa: BLE001 - the FFI may reject None
        vm.set_instrument(lambda *a: 0)
