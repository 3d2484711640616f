"""Lab 02 against its peers: PyTorch eager, torch.compile, ONNX Runtime and TVM in one interleaved run.

What a user would pick instead of TVM, on the same inputs, at 1 thread, timed in interleaved rounds in one
process (``common.timing.interleaved``: slow phases of a shared machine hit every peer alike, each
round in a fresh shuffled order so no peer always runs after the same one):

* ``pytorch_eager`` -- the reference: every other peer's outputs are gated against it;
* ``torch_compile`` -- ``torch.compile`` (TorchInductor, C++/OpenMP code for the CPU); skipped with
  the reason when no C++ compiler is found or compilation fails;
* ``onnxruntime`` -- Lab 01's export path (``common.onnx_utils.export_torchscript``, static shapes)
  run by ONNX Runtime's CPU provider at optimization level ALL (its layout optimizations included);
* ``tvm_*`` -- any TVM builds passed in as zero-argument callables (``build.VMRunner`` objects:
  untuned, tuned this run, tuned from the shipped records).

Gates (names -> shapes -> dtypes -> values, ``common.gates``): ``|peer - eager| <= ATOL`` for
BERT and LLaMA-tiny; ResNet-50's logits (magnitude ~1e2) get a gate *relative to their scale*,
``|peer - eager| <= REL_SCALE * max|eager|``. A peer that fails its gate is not timed; its row says
why and the CLI exits 1 after writing the table.

FLOPs: ``torch.utils.flop_counter.FlopCounterMode`` over one eager run (matmul, conv, bmm, addmm,
attention; 2 FLOP per multiply-add; elementwise ops are not counted), so GFLOP/s is a lower bound
and % of peak is against ``common.roof`` (the measured single-thread FMA peak).
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from common.errors import UserError

from .. import LAB
ATOL = 1e-3  # fp32, outputs of magnitude <= ~10: reassociation and fused kernels move ~1e-5..1e-4
REL_SCALE = 1e-4  # ResNet-50 logits: |diff| <= 1e-4 * max|logits|


def gate_kwargs(model_name: str) -> tuple[dict, str]:
    """``(common.gates.compare keywords, the gate in words)`` for a model."""
    if model_name.startswith("resnet"):
        return ({"atol": REL_SCALE, "scale_atol_by_ref": True},
                f"relative to scale: |d| <= {REL_SCALE:g} * max|eager|")
    return {"atol": ATOL}, f"|d| <= {ATOL:g} (absolute)"


def _named(out: Any, names: Sequence[str]) -> dict[str, np.ndarray]:
    """Outputs of any peer (tensor, tuple, TVM array, dict) as ``{name: np.ndarray}``."""
    if isinstance(out, Mapping):
        return {str(k): _np(v) for k, v in out.items()}
    flat: list = []

    def walk(o):
        if hasattr(o, "numpy") or hasattr(o, "detach") or isinstance(o, np.ndarray):
            flat.append(_np(o))
        else:
            for x in o:
                walk(x)

    walk(out)
    return dict(zip(names, flat)) if len(flat) == len(names) else {f"output_{i}": a for i, a in enumerate(flat)}


def _np(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else x)


def cxx_compiler() -> str | None:
    """Path of the C++ compiler Inductor would use (``$CXX``, ``g++``, ``c++``, ``clang++``), or None."""
    import os
    for c in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def torch_peers(bundle, workdir: str | Path, *, compile_: bool = True, ort: bool = True
                ) -> tuple[dict[str, Callable[[], Any]], dict[str, str]]:
    """The non-TVM peers of ``bundle`` as zero-argument callables, plus ``{peer: reason}`` skipped.

    ``torch_compile`` and ``onnxruntime`` are built (and run once) here, so a failure becomes a
    skip reason instead of an exception.
    """
    import torch

    peers, skipped = {"pytorch_eager": bundle.eager()}, {}
    if compile_:
        if cxx_compiler() is None:
            skipped["torch_compile"] = "no C++ compiler (g++/c++/clang++) for TorchInductor's CPU code"
        else:
            try:
                torch._dynamo.reset()
                comp = bundle.eager(module=torch.compile(bundle.model))
                comp()
                peers["torch_compile"] = comp
            except Exception as exc:  # noqa: BLE001 - Inductor raises many types; the row says why
                skipped["torch_compile"] = f"torch.compile failed: {str(exc).strip().splitlines()[0][:200]}"
    if ort:
        from common.onnx_utils import export_torchscript, ort_session
        try:
            path = export_torchscript(bundle, Path(workdir) / f"{bundle.name}.onnx", dynamic=False)
            sess = ort_session(path, level="ALL", threads=1)
            np_feed = bundle.numpy_inputs()
            names = [o.name for o in sess.get_outputs()]

            def ort_run():
                return sess.run(names, np_feed)

            ort_run()
            peers["onnxruntime"] = ort_run
        except UserError as exc:
            skipped["onnxruntime"] = str(exc)
    return peers, skipped


def compare_peers(bundle, *, label: str | None = None, tvm: Mapping[str, Callable[[], Any]] | None = None,
                  notes: Mapping[str, str] | None = None, compile_: bool = True, ort: bool = True,
                  repeats: int = 20, warmup: int = 2, roof: dict | None = None,
                  progress: bool = False) -> list[dict]:
    """Run every peer once, gate it against PyTorch eager, time the passing ones interleaved.

    Args:
        bundle: :class:`common.models.ModelBundle` (inputs are shared by all peers).
        label: model name in the rows (default ``bundle.name``); ``resnet*`` picks the scale gate.
        tvm: ``{peer name: zero-argument callable returning the outputs}``, e.g.
            ``{"tvm_tuned_records": runner}`` with a ``build.VMRunner`` (weights bound or not).
        notes: ``{peer name: text}`` added to the row (e.g. records coverage).
        compile_, ort: include torch.compile / ONNX Runtime.
        repeats, warmup: interleaved rounds (each peer gets ``repeats`` samples).
        roof: for % of peak (default ``common.roof.cached_roof()``).
    Returns:
        One row per peer: ``model, peer, status (ok | skipped: ... | gate failed: ...), median_ms,
        p10_ms, p90_ms, n, vs_eager (eager median / peer median: > 1 is faster), gflop, gflops,
        pct_peak, max_abs_err, gate, note`` (times in ms, 1 thread).
    """
    from common import roof as roof_mod
    from common.gates import compare
    from common.timing import interleaved, set_torch_threads, tvm_threads

    label = label or bundle.name
    set_torch_threads(1)
    roof = roof if roof is not None else roof_mod.cached_roof()
    flops = bundle.flops()
    gkw, gdesc = gate_kwargs(label)
    notes = dict(notes or {})
    with tempfile.TemporaryDirectory(prefix="peers_") as tmp, tvm_threads(1):
        peers, skipped = torch_peers(bundle, tmp, compile_=compile_, ort=ort)
        peers.update(tvm or {})
        ref = bundle.run()
        names = list(bundle.output_names)
        passed, status, errs = {}, {}, {}
        for name, fn in peers.items():
            rep = compare(ref, _named(fn(), names), stage=name, check_dtype=False, **gkw)
            errs[name] = rep.max_abs()
            if rep.passed:
                passed[name] = fn
                status[name] = "ok"
            else:
                status[name] = f"gate failed: {rep.first_failure}"
        stats = interleaved(passed, warmup=warmup, repeats=repeats, progress=progress)
    eager_ms = stats["pytorch_eager"].median_ms
    rows = []
    for name in [*peers, *skipped]:
        row = {"model": label, "peer": name, "status": status.get(name, f"skipped: {skipped.get(name)}"),
               "median_ms": None, "p10_ms": None, "p90_ms": None, "n": 0, "vs_eager": None,
               "gflop": float(f"{flops / 1e9:.4g}"), "gflops": None, "pct_peak": None,
               "max_abs_err": errs.get(name), "gate": gdesc, "note": notes.get(name, "")}
        if name in stats:
            s = stats[name]
            row.update(median_ms=round(s.median_ms, 3), p10_ms=round(s.p10_ms, 3), p90_ms=round(s.p90_ms, 3),
                       n=s.n, vs_eager=round(eager_ms / s.median_ms, 3),
                       **roof_mod.rate_columns(flops, s.median_ms, roof or {}))
        rows.append(row)
    return rows


def write_peers(rows: list[dict], *, name: str = "peers", roof: dict | None = None,
                extra_env: dict | None = None) -> dict:
    """Write ``results/lab02/<name>.{md,csv,json}`` with the roof (and ``extra_env``, e.g. ``host_speed``)
    in the environment."""
    from common import roof as roof_mod
    from common.results import write_table
    from common.timing import environment
    env = environment(threads=1, roof=roof_mod.roof_env(roof),
                      machine_note="timings at 1 thread", **(extra_env or {}))
    notes = ("One interleaved run per model at 1 thread (PyTorch, ONNX Runtime and TVM intra-op threads 1). "
             "vs_eager = eager median / peer median (> 1 is faster). GFLOP/s from FlopCounterMode's count "
             "(matmul/conv/attention, 2 FLOP per multiply-add) over the median; pct_peak against the measured "
             "single-thread FMA peak (common.roof). Every peer is gated against PyTorch eager before timing "
             "(gate column); a failed or skipped peer is not timed.")
    return write_table(LAB, name, rows, title="Lab 02 peers: PyTorch eager, torch.compile, ONNX Runtime, TVM",
                       notes=notes, env=env)
