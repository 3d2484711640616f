"""Replay a repro folder in the ONNX test-data layout: does the backend still diverge from the reference?

Usage::

    python -m debugging.replay DIR [--backend NAME] [-v]

``DIR`` holds ``model.onnx``, ``test_data_set_0/input_N.pb`` (``onnx.TensorProto``, named after the
graph inputs, in graph-input order) and ``output_N.pb`` (the *reference* outputs, in graph-output
order), the layout of the ONNX backend test suite and of ``torch.onnx.verification``'s repro
export, plus ``repro.json`` (backend, tolerance, provenance). The model runs on the backend named
in ``repro.json`` (or ``--backend``) and its outputs are gated against the reference outputs.

Backends (:data:`BACKENDS`): ``onnxruntime`` (ORT, graph optimizations ALL: what a user runs),
``onnxruntime-noopt`` (optimizations off), ``tvm-fp16-acc16`` / ``tvm-fp16-acc32`` (Relax import,
``ToMixedPrecision`` with an fp16 / fp32 accumulator, untuned CPU build), ``tvm-fp32``.

Exit codes: 1 the divergence reproduces (the gate fails: ``gate failed: ...`` and the table), 0 the
backend agrees with the reference within tolerance, 2 bad input (no such folder, missing files).
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from common.cli import parser, step
from common.errors import UserError, run_cli

Backend = Callable[[onnx.ModelProto, Mapping[str, np.ndarray]], dict]


def ort_backend(level: str = "ALL") -> Backend:
    """ONNX Runtime (CPU, 1 thread) at optimization ``level``: ``run(model, feeds) -> {output: array}``."""
    from common.onnx_utils import ort_run, ort_session

    def run(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> dict:
        return ort_run(ort_session(model, level=level), feeds)

    return run


def tvm_backend(accumulate: str | None) -> Backend:
    """TVM: Relax ONNX import (``lab02_tvm.graph.frontend.import_onnx``), then ``ToMixedPrecision`` with
    accumulator ``accumulate`` (``None``: stay fp32), untuned build for the host CPU."""

    def run(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> dict:
        from lab02_tvm.build import VMRunner, compile_module, host_target
        from lab02_tvm.graph.frontend import import_onnx

        from .fp16 import mixed_precision

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "sub.onnx"
            onnx.save(model, str(path))
            im = import_onnx(path, feeds, name="repro")
        mod = im.mod if accumulate is None else mixed_precision(im.mod, accumulate)
        ex, _ = compile_module(mod, host_target())
        return VMRunner(ex, im).outputs()

    return run


BACKENDS: dict[str, Callable[[], Backend]] = {
    "onnxruntime": lambda: ort_backend("ALL"),
    "onnxruntime-noopt": lambda: ort_backend("DISABLE_ALL"),
    "tvm-fp32": lambda: tvm_backend(None),
    "tvm-fp16-acc16": lambda: tvm_backend("float16"),
    "tvm-fp16-acc32": lambda: tvm_backend("float32"),
}


def get_backend(name: str) -> Backend:
    """The backend called ``name`` (UserError listing the choices otherwise)."""
    if name not in BACKENDS:
        raise UserError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    return BACKENDS[name]()


def write_repro(folder: str | os.PathLike, model: onnx.ModelProto, inputs: Mapping[str, np.ndarray],
                outputs: Mapping[str, np.ndarray], meta: dict) -> Path:
    """Write ``model.onnx`` + ``test_data_set_0/{input,output}_N.pb`` + ``repro.json`` into ``folder``.

    ``inputs``/``outputs`` are in graph-input / graph-output order (each ``TensorProto`` named after its tensor).
    """
    from common.results import atomic_write

    folder = Path(folder)
    data = folder / "test_data_set_0"
    data.mkdir(parents=True, exist_ok=True)
    for old in data.glob("*.pb"):
        old.unlink()
    atomic_write(folder / "model.onnx", model.SerializeToString())
    for kind, values in (("input", inputs), ("output", outputs)):
        for i, (name, arr) in enumerate(values.items()):
            atomic_write(data / f"{kind}_{i}.pb", numpy_helper.from_array(np.asarray(arr), name).SerializeToString())
    atomic_write(folder / "repro.json", json.dumps(meta, indent=1, default=str))
    return folder


def read_repro(folder: str | os.PathLike) -> tuple[onnx.ModelProto, dict, dict, dict]:
    """``(model, inputs, reference outputs, meta)`` of a repro folder.

    Raises:
        UserError: the folder, ``model.onnx`` or ``test_data_set_0`` is missing, or a ``.pb`` is unreadable.
    """
    from common.onnx_utils import load_model

    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder (expected model.onnx + test_data_set_0/)")
    data = folder / "test_data_set_0"
    if not (folder / "model.onnx").is_file() or not data.is_dir():
        raise UserError(f"{folder}: expected model.onnx and test_data_set_0/ (the ONNX test-data layout)")
    model = load_model(folder / "model.onnx")

    def load(kind: str, names: Sequence[str]) -> dict:
        files = sorted(data.glob(f"{kind}_*.pb"), key=lambda p: int(p.stem.split("_")[1]))
        if len(files) != len(names):
            raise UserError(f"{data}: {len(files)} {kind}_N.pb files for {len(names)} graph {kind}s")
        out = {}
        for name, f in zip(names, files):
            t = onnx.TensorProto()
            try:
                t.ParseFromString(f.read_bytes())
            except Exception as exc:  # protobuf DecodeError
                raise UserError(f"{f}: not a serialized onnx.TensorProto") from exc
            out[t.name or name] = numpy_helper.to_array(t)
        return out

    inits = {t.name for t in model.graph.initializer}
    inputs = load("input", [i.name for i in model.graph.input if i.name not in inits])
    outputs = load("output", [o.name for o in model.graph.output])
    meta_path = folder / "repro.json"
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    return model, inputs, outputs, meta


def replay(folder: str | os.PathLike, backend: str | None = None):
    """Run a repro on its backend and gate it against the reference outputs.

    Returns:
        ``(report, meta)``: a :class:`common.gates.GateReport` (``passed`` False = the divergence
        reproduces) and the repro's metadata.
    """
    from common.gates import compare

    model, inputs, ref, meta = read_repro(folder)
    name = backend or meta.get("backend", "onnxruntime")
    got = get_backend(name)(model, inputs)
    tol = meta.get("tolerance", {"atol": 1e-4, "rtol": 0.0, "scale_atol_by_ref": False})
    report = compare(ref, {k: got[k] for k in ref if k in got}, stage=name, check_dtype=False, **tol)
    return report, {**meta, "backend": name}


def main(argv: Sequence[str] | None = None) -> int:
    p = parser("python -m debugging.replay", __doc__)
    p.add_argument("folder", help="repro folder: model.onnx + test_data_set_0/ (+ repro.json)")
    p.add_argument("--backend", help=f"override the backend ({', '.join(BACKENDS)})")
    args = p.parse_args(argv)
    report, meta = replay(args.folder, args.backend)
    nodes = meta.get("nodes_after", "?")
    if report.passed:
        step(1, "replay", f"{meta['backend']}: no divergence: the {nodes}-node repro agrees with its reference outputs")
        return 0
    from common.gates import GateError

    step(1, "replay", f"{meta['backend']}: divergence reproduced on the {nodes}-node repro ({report.first_failure})")
    raise GateError(report)


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
