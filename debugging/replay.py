"""Replay a repro folder in the ONNX test-data layout: does the backend still diverge from the reference?

Usage::

    python -m debugging.replay DIR [--backend NAME]

``DIR`` holds ``model.onnx``, ``test_data_set_0/input_N.pb`` (``onnx.TensorProto``, named after the
graph inputs, in graph-input order) and ``output_N.pb`` (the *reference* outputs, in graph-output
order), the layout of the ONNX backend test suite and of ``torch.onnx.verification``'s repro
export, plus ``repro.json`` (backend, tolerance, provenance). The model runs on the backend named
in ``repro.json`` (or ``--backend``) and its outputs are gated against the reference outputs.

Backends (:data:`BACKENDS`): ``onnxruntime`` (ORT, graph optimizations ALL: what a user runs),
``onnxruntime-noopt`` (optimizations off), ``tvm-fp16-acc16`` / ``tvm-fp16-acc32`` (Relax import,
``ToMixedPrecision`` with an fp16 / fp32 accumulator, untuned CPU build), ``tvm-fp32``.

Exit codes: 1 the divergence reproduces (the gate fails: ``gate failed: ...`` and the table), 0 the
backend agrees with the reference within tolerance, 2 anything else, in one ``error:`` line: bad input (no such
folder, missing or misnamed files, a ``repro.json`` that is not an object or has a bad tolerance, inputs that do
not fit the model) or a backend that could not run the model at all. Only 1 means "reproduced".
"""
from __future__ import annotations

import json
import os
import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from common.cli import parser, step
from common.errors import UserError, run_cli

Backend = Callable[[onnx.ModelProto, Mapping[str, np.ndarray]], dict]


def ort_backend(level: str = "ALL") -> Backend:
    """ONNX Runtime (CPU, 1 thread) at optimization ``level``: ``run(model, feeds) -> {output: array}``.

    ``level``: ``DISABLE_ALL``, ``BASIC``, ``EXTENDED`` or ``ALL``; an unknown one raises ``UserError`` when
    ``run`` is called (:func:`common.onnx_utils.ort_session`), not here, as does a model ORT cannot load.
    """
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
            with warnings.catch_warnings():  # Relax renames ONNX names it cannot keep, one warning each: noise here
                warnings.filterwarnings("ignore", message="Renaming name", category=UserWarning)
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


#: What a repro folder holds (:func:`write_repro`); a folder holding anything else is not replaced by one.
REPRO_ENTRIES = {"model.onnx", "test_data_set_0", "repro.json"}


def repro_target(folder: str | os.PathLike) -> Path:
    """``folder`` (resolved) if a repro may be written there: absent, empty, or an earlier repro (nothing but
    :data:`REPRO_ENTRIES`), in a parent that can be written; checked before a search, not after it.

    Raises:
        UserError: ``folder`` is a file, a folder holding other files (a repro replaces the folder whole, so
            they would be lost), or under a parent that cannot be written.
    """
    from common.cli import writable_folder

    folder = Path(folder).resolve()
    if folder.exists() and not folder.is_dir():
        raise UserError(f"--out {folder} is a file: give a folder for the repro")
    if folder.is_dir() and (other := sorted(p.name for p in folder.iterdir() if p.name not in REPRO_ENTRIES)):
        raise UserError(f"--out {folder} holds {', '.join(other[:3])}{' ...' if len(other) > 3 else ''}, which is no "
                        "repro: a repro replaces its folder whole, so give a new or empty folder")
    writable_folder(folder.parent, "--out's folder")
    return folder


def write_repro(folder: str | os.PathLike, model: onnx.ModelProto, inputs: Mapping[str, np.ndarray],
                outputs: Mapping[str, np.ndarray], meta: dict) -> Path:
    """Write ``model.onnx`` + ``test_data_set_0/{input,output}_N.pb`` + ``repro.json`` as the folder ``folder``.

    ``inputs``/``outputs`` are in graph-input / graph-output order (each ``TensorProto`` named after its tensor).
    The repro is written beside ``folder`` and swapped in whole (:func:`common.results.new_folder`): ``folder`` is
    the old repro or the new one, never a mix of two.

    Raises:
        UserError: ``folder`` is no place for a repro (:func:`repro_target`) or cannot be written (one line;
            :class:`common.errors.CannotWrite`).
    """
    from common.results import atomic_write, new_folder

    folder = repro_target(folder)
    with new_folder(folder) as tmp:
        data = tmp / "test_data_set_0"
        atomic_write(tmp / "model.onnx", model.SerializeToString())
        for kind, values in (("input", inputs), ("output", outputs)):
            for i, (name, arr) in enumerate(values.items()):
                atomic_write(data / f"{kind}_{i}.pb", numpy_helper.from_array(np.asarray(arr), name).SerializeToString())
        atomic_write(tmp / "repro.json", json.dumps(meta, indent=1, default=str))
    return folder


#: ``repro.json``'s ``tolerance``: the :func:`common.gates.compare` keywords a repro may set.
TOLERANCE_KEYS = {"atol", "rtol", "scale_atol_by_ref"}
DEFAULT_TOLERANCE = {"atol": 1e-4, "rtol": 0.0, "scale_atol_by_ref": False}


def _tolerance(meta: dict, where: Path) -> dict:
    """``meta["tolerance"]`` checked: known keys, ``atol``/``rtol`` finite numbers >= 0, ``scale_atol_by_ref`` a bool."""
    from common.cli import positive

    tol = meta.get("tolerance", DEFAULT_TOLERANCE)
    if not isinstance(tol, dict) or set(tol) - TOLERANCE_KEYS:
        raise UserError(f"{where}: tolerance must be an object with keys from {sorted(TOLERANCE_KEYS)} (got {tol!r})")
    for key in ("atol", "rtol"):
        if key in tol:
            if isinstance(tol[key], bool) or not isinstance(tol[key], (int, float)):
                raise UserError(f"{where}: tolerance {key} must be a number (got {tol[key]!r})")
            positive(f"{where}: tolerance {key}", tol[key], strict=False)
    if not isinstance(tol.get("scale_atol_by_ref", False), bool):
        raise UserError(f"{where}: tolerance scale_atol_by_ref must be true or false")
    return {**DEFAULT_TOLERANCE, **tol}


def read_repro(folder: str | os.PathLike) -> tuple[onnx.ModelProto, dict, dict, dict]:
    """``(model, inputs, reference outputs, meta)`` of a repro folder; inputs and outputs keyed by the graph's own
    input and output names. The N-th ``.pb`` is the N-th graph input or output (the ONNX test-data layout); a
    ``TensorProto`` that carries the name of *another* graph input or output is refused (two files swapped).
    Without ``repro.json`` (a folder of the ONNX backend tests), ``meta`` is ``{"defaults": True}``.

    Raises:
        UserError: the folder, ``model.onnx`` or ``test_data_set_0`` is missing; a ``.pb`` is unreadable, not
            named ``input_N.pb`` / ``output_N.pb`` (N as written: ``0``, ``1``, ... ``10``), or holds another
            tensor's name; ``repro.json`` is not a JSON object or its tolerance is bad; the inputs do not fit the
            model's graph inputs or the reference outputs its graph outputs (dtype, rank, static sizes:
            :func:`common.onnx_utils.check_values`).
    """
    from common.onnx_utils import check_feeds, check_values, load_model

    folder = Path(folder)
    if folder.is_file():
        raise UserError(f"{folder} is a file: give the repro folder (model.onnx + test_data_set_0/)")
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder (expected model.onnx + test_data_set_0/: "
                        "python -m debugging.reduce writes one, e.g. --demo wrong-rewrite)")
    data = folder / "test_data_set_0"
    if not (folder / "model.onnx").is_file() or not data.is_dir():
        raise UserError(f"{folder}: expected model.onnx and test_data_set_0/ (the ONNX test-data layout)")
    model = load_model(folder / "model.onnx")

    def load(kind: str, names: Sequence[str]) -> dict:
        files = {}
        for f in data.glob(f"{kind}_*.pb"):
            index = f.stem.removeprefix(f"{kind}_")
            if not index.isdigit() or str(int(index)) != index:
                raise UserError(f"{f}: expected {kind}_N.pb with N the {kind}'s position as written (0, 1, ... 10)")
            files[int(index)] = f
        if sorted(files) != list(range(len(names))):
            raise UserError(f"{data}: {kind}_N.pb files {sorted(files)} for the {len(names)} graph {kind}s "
                            f"{list(names)} (expected N = 0..{len(names) - 1})")
        out = {}
        for i, name in enumerate(names):
            t = onnx.TensorProto()
            try:
                t.ParseFromString(files[i].read_bytes())
                out[name] = numpy_helper.to_array(t)
            except Exception as exc:  # protobuf DecodeError, or a TensorProto numpy_helper cannot read
                raise UserError(f"{files[i]}: not a serialized onnx.TensorProto ({exc})") from exc
            if t.name and t.name != name and t.name in names:
                raise UserError(f"{files[i]} holds {t.name!r}, but graph {kind} {i} is {name!r}: the files are in "
                                f"the order of the graph's {kind}s")
        return out

    inits = {t.name for t in model.graph.initializer}
    inputs = load("input", [i.name for i in model.graph.input if i.name not in inits])
    outputs = load("output", [o.name for o in model.graph.output])
    check_feeds(model, inputs, f"{folder}/model.onnx")
    check_values(model.graph.output, outputs, f"{folder}/model.onnx", "output")
    meta_path = folder / "repro.json"
    if meta_path.exists() and not meta_path.is_file():
        raise UserError(f"{meta_path} is not a file: the repro's backend and tolerance go there")
    try:
        meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {"defaults": True}
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{meta_path}: not JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise UserError(f"{meta_path}: expected a JSON object (backend, tolerance, ...), got {type(meta).__name__}")
    meta["tolerance"] = _tolerance(meta, meta_path)
    if "backend" in meta and meta["backend"] not in BACKENDS:
        raise UserError(f"{meta_path}: unknown backend {meta['backend']!r}; choose one of {', '.join(BACKENDS)}")
    return model, inputs, outputs, meta


def replay(folder: str | os.PathLike, backend: str | None = None):
    """Run a repro on its backend and gate it against the reference outputs.

    Returns:
        ``(report, meta)``: a :class:`common.gates.GateReport` (``passed`` False = the divergence
        reproduces) and the repro's metadata.

    Raises:
        UserError: a bad repro folder (:func:`read_repro`), an unknown backend, or a backend that could not
            run the model at all (its first line): a crash is not the divergence, so it never exits 1.
    """
    from common.gates import compare

    model, inputs, ref, meta = read_repro(folder)
    name = backend or meta.get("backend", "onnxruntime")
    run = get_backend(str(name))
    try:
        got = run(model, inputs)
    except (UserError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 (any runtime's failure: named in one line, exit 2, not "reproduced")
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise UserError(f"backend {name} could not run {folder}/model.onnx: {first}") from exc
    report = compare(ref, {k: got[k] for k in ref if k in got}, stage=name, check_dtype=False, **meta["tolerance"])
    return report, {**meta, "backend": name}


def main(argv: Sequence[str] | None = None) -> int:
    p = parser("python -m debugging.replay", __doc__, verbose=None)
    p.add_argument("folder", help="repro folder: model.onnx + test_data_set_0/ (+ repro.json)")
    p.add_argument("--backend", choices=list(BACKENDS), help="override the backend repro.json names")
    args = p.parse_args(argv)
    try:
        report, meta = replay(args.folder, args.backend)
    except (UserError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 (exit 1 means "reproduced": anything unforeseen is exit 2, one line)
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        raise UserError(f"replay could not check {args.folder}: {type(exc).__name__}: {first}") from exc
    if meta.get("defaults"):
        step(0, "replay", f"no repro.json in {args.folder}: backend {meta['backend']}, tolerance {meta['tolerance']} "
                          "(the defaults; --backend picks another backend)")
    nodes = meta.get("nodes_after")
    what = f"the {nodes}-node repro" if type(nodes) is int else "the repro"
    if report.passed:
        step(1, "replay", f"{meta['backend']}: no divergence: {what} agrees with its reference outputs")
        return 0
    from common.gates import GateError

    step(1, "replay", f"{meta['backend']}: divergence reproduced on {what} (the gate below says where)")
    raise GateError(report)


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
