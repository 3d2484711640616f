"""Step 4: untuned build for the host CPU, run on the Relax VM, gate against the reference.

``tvm.compile(mod, target)`` (Relay's ``relay.build`` successor) runs the Relax build pipeline
(``relax.pipeline.default_build_pipeline``: LegalizeOps, memory planning, VM lowering — no fusion)
and the TIR lowering pipeline (``s_tir``), then LLVM. The result is a ``relax.VMExecutable`` run by
``relax.VirtualMachine``. Untuned TIR is the TOPI compute definition lowered as written: naive,
single-threaded loop nests, so it is one to two orders of magnitude slower than PyTorch eager —
that gap is what scheduling and tuning (steps 5-6) close.

Numeric gate (:func:`gate_for`): the seed's absolute ``|tvm - ref| <= 1e-4`` per element wherever
the output scale allows it (every output with ``max|ref| <= ABS_SCALE_LIMIT`` = 10: the test-size
models, BERT-base, LLaMA-tiny). fp32 reassociation (different loop orders, FMA contraction) moves
results by a few ulps of the *largest* partial sums, so on outputs of larger scale (full ResNet-50's
random-weight logits reach ~940; measured absolute error 1.1e-3 = 1.2e-6 of the scale) the gate is
**relative**: ``|tvm - ref| <= 1e-4 · max|ref|`` (``common.gates`` with ``scale_atol_by_ref``). The
gate's words name which one applied, and the tables put the measured absolute error beside them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from common.errors import MissingDependency

ATOL = 1e-4  # the seed's gate: max |tvm - reference| <= ATOL (absolute)
REL_TOL = 1e-4  # relative gate: max |tvm - reference| <= REL_TOL * max |reference|
ABS_SCALE_LIMIT = 10.0  # outputs up to this max |reference| get the absolute gate


def gate_for(reference: dict[str, np.ndarray]) -> tuple[dict, str]:
    """``(common.gates.compare keywords, the gate in words)`` for a model's reference outputs.

    Absolute ``ATOL`` when every output has ``max|ref| <= ABS_SCALE_LIMIT``; otherwise relative
    ``REL_TOL · max|ref|`` per output, and the words say "relative" and give the scale.
    """
    scale = max((float(np.max(np.abs(r))) for r in reference.values() if r.size), default=0.0)
    if scale <= ABS_SCALE_LIMIT:
        return {"atol": ATOL}, f"absolute |d| <= {ATOL:g}"
    return ({"atol": REL_TOL, "scale_atol_by_ref": True},
            f"relative |d| <= {REL_TOL:g}*max|ref| (output scale {scale:.3g} > {ABS_SCALE_LIMIT:g})")


def host_target() -> dict:
    """The CPU this run compiles for, as a TVM target dict: ``{"kind": "llvm", "mcpu": <LLVM CPU name>}``.

    ``mcpu`` is :func:`common.isa.target_cpu`: ``$MLC_CPU`` when set (run as if on another CPU this
    machine can execute, e.g. ``MLC_CPU=haswell``), else LLVM's name for the host
    (``sys::getHostCPUName``: ``znver4``, ``rocketlake``); omitted when LLVM says ``generic``.

    Raises:
        UserError: ``MLC_CPU`` names an unknown CPU or one whose instructions this host lacks.
    """
    from common.isa import target_cpu
    cpu = target_cpu()
    return {"kind": "llvm", "mcpu": cpu} if cpu and cpu != "generic" else {"kind": "llvm"}


def compile_module(mod, target: dict | str, *, tir_pipeline: str = "default"):
    """``tvm.compile`` a Relax module; returns ``(executable, seconds)``.

    Args:
        mod: Relax ``IRModule`` (fused or not; the build legalizes what is left).
        target: target dict (``{"kind": "llvm", "mcpu": ...}``) or string.
        tir_pipeline: name of a registered TIR lowering pipeline (``"default"`` = ``s_tir``;
            step 10 registers ``"lab02_loop_reorder"``).
    """
    import tvm
    t0 = time.perf_counter()
    ex = tvm.compile(mod, tvm.target.Target(target), tir_pipeline=tir_pipeline)
    return ex, time.perf_counter() - t0


def _to_numpy_list(out) -> list[np.ndarray]:
    if hasattr(out, "numpy"):
        return [out.numpy()]
    res: list[np.ndarray] = []
    for o in out:
        res.extend(_to_numpy_list(o))
    return res


class VMRunner:
    """A Relax VM bound to one model's inputs and weights: ``runner()`` runs ``main`` once.

    Args:
        executable: from :func:`compile_module` (or MetaSchedule's build).
        im: :class:`lab02_tvm.graph.frontend.ImportedModel` (inputs, params, output names).
        device: ``tvm.cpu()`` (default) or ``tvm.cuda(0)``.
        with_params: pass the weights after the inputs (``False`` for a module whose weights were
            bound as constants, e.g. the tuned build).
    """

    def __init__(self, executable, im, device=None, *, with_params: bool = True):
        import tvm
        from tvm import relax
        self.device = device or tvm.cpu()
        self._is_cpu = self.device.dlpack_device_type() == tvm.cpu().dlpack_device_type()
        self.vm = relax.VirtualMachine(executable, self.device)
        self.main = self.vm["main"]
        self.args = im.vm_args(device, with_params=with_params)
        self.output_names = list(im.output_names)
        self.last = None

    def __call__(self):
        self.last = self.main(*self.args)
        if not self._is_cpu:  # wait for the device kernels before the clock stops
            self.device.sync()
        return self.last

    def outputs(self) -> dict[str, np.ndarray]:
        """Named NumPy outputs of the last call (runs once if never run).

        Raises:
            AssertionError: the VM returned another number of outputs than the model has names for.
        """
        if self.last is None:
            self()
        arrays = _to_numpy_list(self.last)
        if len(arrays) != len(self.output_names):
            raise AssertionError(f"VM returned {len(arrays)} outputs, expected {self.output_names}")
        return dict(zip(self.output_names, arrays))


def error_summary(reference: dict[str, np.ndarray], candidate: dict[str, np.ndarray]) -> dict:
    """Worst errors over all outputs: ``{"max_abs": float, "max_ref": float, "rel_to_scale": float}``.

    ``rel_to_scale`` = ``max_abs / max|ref|`` of the output where ``max_abs`` is the largest ratio —
    the quantity the step-4 gate bounds by :data:`REL_TOL`.
    """
    worst = {"max_abs": 0.0, "max_ref": 0.0, "rel_to_scale": 0.0}
    for name, ref in reference.items():
        r = ref.astype(np.float64)
        d = float(np.max(np.abs(r - candidate[name].astype(np.float64)))) if r.size else 0.0
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        rel = d / scale if scale > 0 else d
        if rel >= worst["rel_to_scale"]:
            worst = {"max_abs": d, "max_ref": scale, "rel_to_scale": rel}
    return worst


def gate_outputs(im, outputs: dict[str, np.ndarray], *, stage: str):
    """Gate ``outputs`` against ``im.reference``: names → shapes → dtypes → values (:func:`gate_for`).

    Returns:
        ``common.gates.GateReport``.

    Raises:
        common.gates.GateError: the first output that differs, with the table.
    """
    from common.gates import gate
    return gate(im.reference, outputs, stage=stage, **gate_for(im.reference)[0])


@dataclass
class BuildRun:
    """One build of one model: the executable, its runner, times and errors.

    Attributes:
        build_s: seconds in ``tvm.compile`` (wall clock).
        first_run_ms: the gate run (also warms the VM), in ms.
        errors: :func:`error_summary` against the reference.
    """

    executable: object
    runner: VMRunner
    build_s: float
    first_run_ms: float
    errors: dict


def build_and_check(im, mod, target: dict, *, stage: str, tir_pipeline: str = "default",
                    device=None) -> BuildRun:
    """Compile ``mod``, run it once on ``im``'s inputs, gate against the reference.

    Args:
        im: :class:`lab02_tvm.graph.frontend.ImportedModel`; its ``reference`` (PyTorch eager or ONNX
            Runtime outputs, fp32 NumPy arrays) is the independent reference.
        mod: Relax ``IRModule`` whose ``main`` takes ``(*inputs, *weights)`` (weights not bound).
        target: TVM target dict, e.g. :func:`host_target`.
        stage: name of this build in the gate report.
        tir_pipeline: registered TIR lowering pipeline (see :func:`compile_module`).
        device: ``tvm.cpu()`` (default) or ``tvm.cuda(0)``.
    Returns:
        :class:`BuildRun` (``build_s`` in seconds, ``first_run_ms`` in ms, ``errors`` from
        :func:`error_summary`).
    Raises:
        common.gates.GateError: an output's name, shape or dtype differs, or a value is outside
            :func:`gate_for`'s tolerance (absolute 1e-4, or 1e-4 of the scale on large outputs).
    """
    ex, build_s = compile_module(mod, target, tir_pipeline=tir_pipeline)
    runner = VMRunner(ex, im, device)
    t0 = time.perf_counter()
    runner()
    first_ms = (time.perf_counter() - t0) * 1e3
    outs = runner.outputs()
    errors = error_summary(im.reference, outs)
    gate_outputs(im, outs, stage=stage)
    return BuildRun(executable=ex, runner=runner, build_s=build_s, first_run_ms=first_ms, errors=errors)


# ---------------------------------------------------------------------------------------------
# CUDA path
# ---------------------------------------------------------------------------------------------

def cuda_reason() -> str | None:
    """``None`` when TVM can run on a CUDA device here, else the one-line reason it cannot."""
    import tvm
    if not tvm.runtime.enabled("cuda"):
        return "this TVM build cannot load its CUDA runtime (no CUDA driver / libcuda on this machine)"
    if not tvm.cuda(0).exist:
        return "no CUDA device visible to TVM (tvm.cuda(0).exist is False)"
    return None


def cuda_target() -> dict:
    """``{"kind": "cuda", "arch": "sm_XY"}`` for device 0 (host code: llvm)."""
    import tvm
    dev = tvm.cuda(0)
    arch = "sm_" + str(dev.compute_version).replace(".", "")
    return {"kind": "cuda", "arch": arch, "host": {"kind": "llvm"}}


def build_cuda(im, fused_mod) -> BuildRun:
    """Untuned CUDA build: ``DefaultGPUSchedule`` binds every loop nest to blocks/threads, then build.

    Raises:
        MissingDependency: no usable CUDA device (the reason from :func:`cuda_reason`).
        common.gates.GateError: outputs differ from the reference beyond the gate.
    """
    import tvm
    reason = cuda_reason()
    if reason:
        raise MissingDependency(f"cuda target skipped: {reason}")
    target = cuda_target()
    with tvm.target.Target(target):
        mod = tvm.s_tir.transform.DefaultGPUSchedule()(fused_mod)
    return build_and_check(im, mod, target, stage="tvm_cuda_untuned", device=tvm.cuda(0))


#: The notes of ``untuned.md``.
UNTUNED_NOTES = ("Untuned TIR = naive single-threaded loop nests; n is tiny on purpose (seconds per run). "
                 "gflops / pct_peak: FLOPs counted by PyTorch (matmul/conv/attention) over the median, "
                 "against the measured FMA peak (common.roof; GPU rows: no roof). "
                 "gate: absolute 1e-4 where the output scale allows, relative (named) on ResNet-50's "
                 "logits; max_abs is the measured absolute error.")


def cuda_rows(ims: dict, passes: dict, say) -> list[dict]:
    """Step 4's CUDA rows: each model built untuned for the GPU and gated, or one row saying why not.

    Args:
        ims / passes: ``{model: ImportedModel}`` / ``{model: PassResult}`` (the fused modules).
        say: prints one line (the step's line printer).
    Returns:
        Rows of ``untuned.md`` (``target`` ``cuda``); one ``skipped: <reason>`` row without a GPU.
    Raises:
        common.gates.GateError: a CUDA build's outputs differ from the reference.
    """
    reason = cuda_reason()
    if reason:
        say(f"skipped: {reason}")
        return [{"model": "all", "target": "cuda", "note": f"skipped: {reason}"}]
    rows = []
    for name, im in ims.items():
        run = build_cuda(im, passes[name].fused_mod)
        say(f"{name}: build {run.build_s:.1f} s, first run {run.first_run_ms:.1f} ms, "
            f"max |d| {run.errors['max_abs']:.1e} - gate ok")
        rows.append({"model": name, "target": "cuda", "build_s": round(run.build_s, 2),
                     "median_ms": round(run.first_run_ms, 1), "n": 1, "max_abs": run.errors["max_abs"],
                     "max_ref": run.errors["max_ref"], "rel_to_scale": run.errors["rel_to_scale"],
                     "gate": gate_for(im.reference)[1]})
    return rows
