"""Convolution by convolution: the tuned TVM build against ONNX Runtime, where a model's gap to it is.

The peers table (step 12) says how far the tuned build is from ONNX Runtime on a whole model; this
step says *which layers* make the difference. Both runtimes time every convolution of one inference:

* **TVM** -- the Relax VM's per-kernel instrument (:func:`lab02_tvm.profile.profile_vm`), the
  tuned build the peers step timed;
* **ONNX Runtime** -- its own profiler (``SessionOptions.enable_profiling``; one ``"Node"`` event
  ``<node>_kernel_time`` per node run, ``dur`` in microseconds, with the node's ``op_name`` and its
  ``input_type_shape`` / ``output_type_shape``: ONNX Runtime's ``onnxruntime/core/common/profiler.cc``),
  on the session the peers step times (graph optimizations ALL: its convolutions run as NCHWc ``Conv``
  nodes with the bias, the residual ``Add`` and the ``Relu`` fused in).

The two graphs fuse differently, so a row is a **convolution shape** (input channels and size,
output channels, kernel, output size), not a node: every kernel or node computing that
convolution, whatever it fused with it. A row's FLOPs are ``2 Cout Ho Wo Cin kh kw`` per call
(multiply + add = 2, no groups: ResNet-50 has none), the same count for both, so GFLOP/s and %
of the measured FMA peak (:mod:`common.roof`) compare like with like. Rounds interleave one
instrumented TVM inference and one profiled ONNX Runtime inference, so a slow phase of the host
hits both (:func:`common.timing.interleaved`'s rule); each side's per-shape time is the median over
rounds of its per-inference sum. ``lost_vs_ort_ms`` (TVM ms - ONNX Runtime ms) sorts the table:
the first rows are where the stretch target is lost.
"""
from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from common.errors import UserError

from .. import LAB
from ..tuning.method import task_of_kernel

#: ONNX Runtime op names that are convolutions (``Conv`` in the ONNX and NCHWc domains, the fused forms)
ORT_CONV_OPS = ("Conv", "FusedConv")


class ConvShape(NamedTuple):
    """One convolution's shape: input channels and size, output channels, kernel, output size (batch 1)."""

    cin: int
    h: int
    w: int
    cout: int
    kh: int
    kw: int
    ho: int
    wo: int

    @property
    def flops(self) -> float:
        """FLOPs of one call: ``2 Cout Ho Wo Cin kh kw`` (a multiply-add is 2)."""
        return 2.0 * self.cout * self.ho * self.wo * self.cin * self.kh * self.kw

    def __str__(self) -> str:
        return f"{self.kh}x{self.kw} {self.cin}->{self.cout}, {self.h}x{self.w}->{self.ho}x{self.wo}"


def _dims(shape) -> list[int]:
    return [int(d) for d in shape]


def _nhwc(x: list[int], wt: list[int], y: list[int]) -> tuple[ConvShape, int]:
    """An NHWC conv's shape from its data, weights and output: weights ``[Cout, kh, kw, Cin]`` (OHWI) when their
    first and last dims are the output's and the data's channels, else ``[kh, kw, Cin, Cout]`` (HWIO)."""
    if wt[0] == y[3] and wt[3] == x[3]:
        return ConvShape(x[3], x[1], x[2], wt[0], wt[1], wt[2], y[1], y[2]), wt[3]
    return ConvShape(x[3], x[1], x[2], wt[3], wt[0], wt[1], y[1], y[2]), wt[2]


#: The block that writes a convolution's output in a TVM kernel, and how its parameters read as a
#: :class:`ConvShape`: ``(data, weights, output) -> (shape, the weights' input channels)``.
CONV_BLOCKS = {
    "conv2d_nhwc": lambda x, wt, y: _nhwc(x, wt, y),  # OHWI or HWIO weights (tuning.method's kernel_layout)
    "conv2d_nchw": lambda x, wt, y: (ConvShape(x[1], x[2], x[3], wt[0], wt[2], wt[3], y[2], y[3]), wt[1]),  # OIHW
    # lab02_tvm.graph.winograd: a 3x3 filter enters as U = [alpha, alpha, Cout, Cin]
    "conv2d_winograd": lambda x, wt, y: (ConvShape(x[3], x[1], x[2], wt[2], 3, 3, y[1], y[2]), wt[3]),
}


def tvm_conv_shape(func) -> ConvShape | None:
    """The convolution a fused TIR kernel computes, or ``None`` if it has no block of :data:`CONV_BLOCKS`.

    Reads the kernel's first parameter (the data, ``[1, H, W, Cin]`` in NHWC or ``[1, Cin, H, W]`` in
    NCHW), its second (the weights, ``[Cout, kh, kw, Cin]`` (OHWI), ``[kh, kw, Cin, Cout]`` (HWIO), ``[Cout, Cin, kh, kw]``, or Winograd's
    ``[alpha, alpha, Cout, Cin]``) and its last (the output), as Relax's ``FuseOps`` orders a fused conv's
    arguments.
    """
    import tvm
    from tvm import s_tir
    sch = s_tir.Schedule(tvm.IRModule({"main": func}))
    for block, read in CONV_BLOCKS.items():
        try:
            sch.get_sblock(block)
        except Exception:  # noqa: BLE001 - ScheduleError: no such block
            continue
        params = list(func.params)
        if len(params) < 3:
            return None
        x, wt, y = (_dims(p.shape) for p in (params[0], params[1], params[-1]))
        if len(x) != 4 or len(wt) != 4 or len(y) != 4:
            return None
        shape, cin_w = read(x, wt, y)
        return shape if cin_w == shape.cin else None
    return None


def tvm_conv_kernels(fused_mod) -> dict[str, ConvShape]:
    """``{kernel name: ConvShape}`` for every convolution kernel of ``fused_mod`` (the fused module the
    tuned build compiled; a kernel whose weights the build repacked runs as ``<name>_prepacked``)."""
    import tvm
    out = {}
    for gv, func in fused_mod.functions.items():
        if isinstance(func, tvm.tirx.PrimFunc) and "conv2d" in gv.name_hint:
            shape = tvm_conv_shape(func)
            if shape is not None:
                out[gv.name_hint] = shape
    return out


def ort_node_times(events: Sequence[dict]) -> dict[str, dict]:
    """``{node: {"op": op_name, "inputs": [shapes], "outputs": [shapes], "us": [dur per run]}}`` from
    ONNX Runtime's profile (the list ``end_profiling()``'s JSON file holds).

    Only ``"cat": "Node"`` events named ``<node>_kernel_time`` count (the ``_fence_before`` /
    ``_fence_after`` events are bookkeeping). A node's ``us`` list has one entry per run, in run order.
    """
    nodes: dict[str, dict] = {}
    for e in events:
        if e.get("cat") != "Node" or not str(e.get("name", "")).endswith("_kernel_time"):
            continue
        name = e["name"].removesuffix("_kernel_time")
        args = e.get("args", {})
        n = nodes.setdefault(name, {"op": args.get("op_name"), "us": [],
                                    "inputs": [next(iter(s.values())) for s in args.get("input_type_shape", [])],
                                    "outputs": [next(iter(s.values())) for s in args.get("output_type_shape", [])]})
        n["us"].append(float(e["dur"]))
    return nodes


def ort_conv_shape(node: dict) -> ConvShape | None:
    """The convolution an ONNX Runtime ``Conv`` node computes, from its logical shapes (data ``[1, Cin, H, W]``,
    weights ``[Cout, Cin, kh, kw]``, output ``[1, Cout, Ho, Wo]``); ``None`` for other ops or grouped convs."""
    if node["op"] not in ORT_CONV_OPS or len(node["inputs"]) < 2 or not node["outputs"]:
        return None
    x, wt, y = node["inputs"][0], node["inputs"][1], node["outputs"][0]
    if len(x) != 4 or len(wt) != 4 or len(y) != 4 or wt[1] != x[1]:
        return None
    return ConvShape(x[1], x[2], x[3], wt[0], wt[2], wt[3], y[2], y[3])


def _median_sum(per_run: list[dict], keys) -> float:
    return float(np.median([sum(r.get(k, 0.0) for k in keys) for r in per_run])) if per_run else 0.0


def match_shapes(tvm_by: dict, calls: dict[str, int], ort_by: dict) -> None:
    """Check that both graphs compute the same convolutions: the same shapes, and per shape as many TVM
    kernel calls (``calls``: per inference) as ONNX Runtime nodes.

    Raises:
        UserError: one line naming the shapes only one side has, or the first shape whose counts differ.
    """
    if set(tvm_by) != set(ort_by):
        raise UserError(f"TVM and ONNX Runtime disagree on the convolutions: only TVM "
                        f"{sorted(map(str, set(tvm_by) - set(ort_by)))}, only ONNX Runtime "
                        f"{sorted(map(str, set(ort_by) - set(tvm_by)))}")
    for shape, kernels in tvm_by.items():
        n = sum(calls[k] for k in kernels)
        if n != len(ort_by[shape]):
            raise UserError(f"conv {shape}: TVM calls it {n} times, ONNX Runtime has {len(ort_by[shape])} nodes")


def compare_convs(runner: Any, fused_mod, ort_session_factory, feed: dict, *, rounds: int = 10,
                  tvm_profile: Callable[[], dict] | None = None) -> dict:
    """Time every convolution in TVM and ONNX Runtime, interleaved, and group both by :class:`ConvShape`.

    Args:
        runner: the tuned build (``build.VMRunner``: ``.vm`` and ``.args``).
        fused_mod: the fused module that build compiled (names its kernels).
        ort_session_factory: ``f(profile_prefix) -> onnxruntime.InferenceSession`` with profiling on.
        feed: ONNX Runtime's inputs (``{name: ndarray}``).
        rounds: interleaved rounds (each: one instrumented TVM inference, one profiled ORT inference),
            after one warm-up inference each.
        tvm_profile: one round's TVM profile (default: :func:`~lab02_tvm.profile.profile_vm` of ``runner``,
            one instrumented run after a warm-up and a plain run).
    Returns:
        ``{"rows": per shape (sorted by lost_vs_ort_ms), "totals": convs / other / whole per side, "rounds"}``.
    Raises:
        UserError: ``rounds`` < 1; ONNX Runtime's profile lacks a node's event in some run; the two graphs
            disagree on the convolutions (a shape one has and the other has not, or a different number of
            calls), so a row would compare different work.
    """
    from common.roof import rate_columns

    from ..profile import profile_vm

    if rounds < 1:
        raise UserError(f"rounds must be at least 1, got {rounds}")
    shapes = tvm_conv_kernels(fused_mod)
    with tempfile.TemporaryDirectory(prefix="lab02_vs_ort_") as tmp:
        sess = ort_session_factory(str(Path(tmp) / "ort"))
        sess.run(None, feed)  # warm-up: its events are dropped below
        tvm_runs, calls = [], {}
        for _ in range(rounds):
            prof = tvm_profile() if tvm_profile else profile_vm(runner, runner.args, repeats=1)
            tvm_runs.append({k: v["ms"] for k, v in prof["kernels"].items()})
            calls = {k: v["calls"] for k, v in prof["kernels"].items()}
            sess.run(None, feed)
        events = json.loads(Path(sess.end_profiling()).read_text())
    nodes = ort_node_times(events)
    short = sorted(n for n, d in nodes.items() if len(d["us"]) != rounds + 1)
    if short:  # a node missing from a run would shift its later runs onto the wrong rounds
        raise UserError(f"ONNX Runtime's profile has not one event per run for {len(short)} node(s), e.g. {short[0]!r} "
                        f"({len(nodes[short[0]]['us'])} events for {rounds + 1} runs)")
    ort_runs = [{n: d["us"][i + 1] / 1e3 for n, d in nodes.items()} for i in range(rounds)]  # run 0: the warm-up

    tvm_by: dict[ConvShape, list[str]] = defaultdict(list)
    for kernel in calls:
        shape = shapes.get(kernel) or shapes.get(task_of_kernel(kernel))
        if shape is not None:
            tvm_by[shape].append(kernel)
    ort_by: dict[ConvShape, list[str]] = defaultdict(list)
    for node, d in nodes.items():
        shape = ort_conv_shape(d)
        if shape is not None:
            ort_by[shape].append(node)
    match_shapes(tvm_by, calls, ort_by)
    rows = []
    for shape in tvm_by:
        n_tvm = sum(calls[k] for k in tvm_by[shape])
        t_ms, o_ms = _median_sum(tvm_runs, tvm_by[shape]), _median_sum(ort_runs, ort_by[shape])
        flops = shape.flops * n_tvm
        tr, orr = rate_columns(flops, t_ms), rate_columns(flops, o_ms)
        rows.append({"conv": str(shape), "calls": n_tvm, "mflop": round(flops / 1e6, 3),
                     "tvm_ms": round(t_ms, 3), "ort_ms": round(o_ms, 3),
                     "tvm_pct_peak": tr["pct_peak"], "ort_pct_peak": orr["pct_peak"],
                     "tvm_vs_ort": round(o_ms / t_ms, 3) if t_ms > 0 else None,
                     "lost_vs_ort_ms": round(t_ms - o_ms, 3),
                     "tvm_kernels": " ".join(sorted(set(tvm_by[shape])))})
    rows.sort(key=lambda r: -r["lost_vs_ort_ms"])
    conv_k = [k for ks in tvm_by.values() for k in ks]
    conv_n = [n for ns in ort_by.values() for n in ns]
    totals = {}
    for side, runs, conv in (("tvm", tvm_runs, conv_k), ("ort", ort_runs, conv_n)):
        everything = sorted(set().union(*runs))
        totals[side] = {"convs_ms": _median_sum(runs, conv),
                        "other_ms": _median_sum(runs, [k for k in everything if k not in set(conv)]),
                        "whole_ms": _median_sum(runs, everything)}
    return {"rows": rows, "totals": totals, "rounds": rounds}


def compare_model(bundle, runner: Any, fused_mod, *, rounds: int = 10) -> dict:
    """:func:`compare_convs` for a model bundle: exports it as Lab 01 does (``common.onnx_utils.export_torchscript``,
    static shapes, the ONNX file the peers step times) and opens ONNX Runtime's session (graph optimizations
    ALL, 1 thread) with its profiler on.

    Raises:
        UserError: the export or ONNX Runtime failed (one line), or the graphs disagree (:func:`compare_convs`).
    """
    from common.onnx_utils import export_torchscript, ort_session
    with tempfile.TemporaryDirectory(prefix="lab02_vs_ort_onnx_") as tmp:
        path = export_torchscript(bundle, Path(tmp) / f"{bundle.name}.onnx", dynamic=False)
        return compare_convs(runner, fused_mod,
                             lambda prefix: ort_session(path, level="ALL", threads=1, profile_prefix=prefix),
                             bundle.numpy_inputs(), rounds=rounds)


def total_rows(res: dict) -> list[dict]:
    """The table's last rows: all convolutions, everything else, the whole instrumented inference."""
    t, o = res["totals"]["tvm"], res["totals"]["ort"]
    out = []
    for label, key in (("all convolutions", "convs_ms"), ("everything else", "other_ms"),
                       ("whole inference (instrumented)", "whole_ms")):
        out.append({"conv": label, "tvm_ms": round(t[key], 3), "ort_ms": round(o[key], 3),
                    "tvm_vs_ort": round(o[key] / t[key], 3) if t[key] > 0 else None,
                    "lost_vs_ort_ms": round(t[key] - o[key], 3)})
    return out


def write_vs_ort(res: dict, *, model: str, name: str = "vs_ort_resnet50", extra_env: dict | None = None) -> dict:
    """Write ``results/lab02/<name>.{md,csv,json}``: the per-shape rows, then :func:`total_rows`."""
    from common import roof as roof_mod
    from common.results import write_table
    from common.timing import environment
    env = environment(threads=1, roof=roof_mod.roof_env(), machine_note="timings at 1 thread",
                      model=model, rounds=res["rounds"], **(extra_env or {}))
    notes = ("One row per convolution shape (kh x kw Cin->Cout, input -> output size); calls = TVM kernel "
             "calls = ONNX Runtime Conv nodes of that shape per inference. tvm_ms: the tuned build's kernels, "
             "the Relax VM's per-kernel instrument; ort_ms: ONNX Runtime's profiler (graph optimizations ALL, "
             "NCHWc convolutions with bias/residual/ReLU fused). Both the median over interleaved rounds of the "
             "per-inference sum, 1 thread. tvm_vs_ort = ort_ms / tvm_ms (> 1: TVM faster); lost_vs_ort_ms = "
             "tvm_ms - ort_ms (sorted: where TVM loses most first). % of peak from 2 Cout Ho Wo Cin kh kw FLOPs "
             "a call against the measured FMA peak (common.roof).")
    return write_table(LAB, name, res["rows"] + total_rows(res), env=env, notes=notes,
                       title=f"Lab 02: {model} convolution by convolution, tuned TVM against ONNX Runtime")
