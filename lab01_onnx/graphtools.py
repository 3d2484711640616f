"""Shared helpers of the Lab 01 inspection tools (fusions, whatran, memplan, customop).

* :func:`load_model` -- read an ``.onnx`` file or fail with one clear line (:class:`UserError`).
* :func:`subgraph_reads` -- outer-scope names read inside If/Loop/Scan bodies.
* :func:`op_key` / :func:`op_counts` -- op types, qualified by domain outside the default one
  (``"Conv"``, ``"com.microsoft.Gelu"``, ``"com.microsoft.nchwc.Conv"``).
* :func:`export_onnx` -- export a :class:`common.models.ModelBundle` (TorchScript or dynamo
  exporter, dynamic axes from the bundle, one file).
* :func:`ort_session` / :func:`ort_run` / :func:`ort_optimize` -- ONNX Runtime on the CPU
  execution provider at a chosen graph optimization level, optionally saving ORT's optimized graph
  (``SessionOptions.optimized_model_filepath``, https://onnxruntime.ai/docs/performance/model-optimizations/graph-optimizations.html).
"""
from __future__ import annotations

import collections
import contextlib
import os
import warnings
from pathlib import Path
from collections.abc import Mapping

import numpy as np
import onnx

from common.errors import UserError

DEFAULT_DOMAINS = ("", "ai.onnx")
ORT_LEVELS = ("DISABLE_ALL", "BASIC", "EXTENDED", "ALL")


def load_model(path: str | os.PathLike, *, load_external_data: bool = True) -> onnx.ModelProto:
    """Load an ONNX model file.

    Raises:
        UserError: the path is a directory or does not exist, the file is empty or is not a serialized ``onnx.ModelProto``
            (e.g. a text file or a PyTorch checkpoint), or holds no graph nodes.
    """
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{p}: is a directory; give the path of an .onnx model file")
    if not p.is_file():
        raise UserError(f"{p}: no such file; give the path of an .onnx model")
    if p.stat().st_size == 0:
        raise UserError(f"{p}: empty file, not an ONNX model")
    try:
        model = onnx.load(str(p), load_external_data=load_external_data)
    except Exception as exc:  # DecodeError, RuntimeWarning-as-error, missing external data
        raise UserError(f"{p}: not an ONNX model ({type(exc).__name__}); give a file written by onnx.save / torch.onnx.export") from None
    if not model.graph.node and not model.graph.output:
        raise UserError(f"{p}: not an ONNX model (parsed to an empty graph); give a file written by onnx.save / torch.onnx.export")
    check_dataflow(model, str(p))
    return model


def check_dataflow(model: onnx.ModelProto, label: str = "model") -> None:
    """The part of ``onnx.checker`` every tool here relies on, cheap enough for any model size.

    ONNX IR spec, "Graphs": nodes are listed in topological order and every value is assigned
    once, so each main-graph node input is empty (an omitted optional input), a graph input, an
    initializer, or an output of an earlier node. (The full checker is not run here: models saved
    by ONNX Runtime hold contrib-domain ops it does not know.)

    Raises:
        UserError: a node reads a value nothing defines before it, or a value is assigned twice.
    """
    g = model.graph
    defined = {i.name for i in g.input} | {t.name for t in g.initializer}
    for k, node in enumerate(g.node):
        for name in node.input:
            if name and name not in defined:
                raise UserError(f"{label} is not a valid ONNX graph: node {k} {node.name or node.op_type!r} ({node.op_type}) "
                                f"reads {name!r}, which no graph input, initializer or earlier node defines; "
                                "re-export it or fix the graph")
        for name in node.output:
            if name and name in defined:
                raise UserError(f"{label} is not a valid ONNX graph: {name!r} is assigned twice (node {k} "
                                f"{node.name or node.op_type!r}); re-export it or fix the graph")
            defined.add(name)


def op_key(node: onnx.NodeProto) -> str:
    """``op_type`` for the default ONNX domain, else ``"<domain>.<op_type>"``."""
    return node.op_type if node.domain in DEFAULT_DOMAINS else f"{node.domain}.{node.op_type}"


def op_counts(model: onnx.ModelProto) -> collections.Counter:
    """Node count per :func:`op_key` in the main graph (subgraphs not counted)."""
    return collections.Counter(op_key(n) for n in model.graph.node)


def export_onnx(bundle, path: str | os.PathLike, *, exporter: str = "torchscript", opset: int | None = None,
                constant_folding: bool = True, custom_translation_table: dict | None = None) -> Path:
    """Export ``bundle`` (:class:`common.models.ModelBundle`) to a single-file ONNX model.

    Args:
        exporter: ``"torchscript"`` (``torch.onnx.export(dynamo=False)``, opset 17 by default,
            dynamic axes from ``bundle.dynamic_axes``) or ``"dynamo"`` (``torch.export`` based,
            opset 18 by default, the same axes as ``torch.export.Dim`` s; its graph is already
            cleaned by the onnxscript optimizer).
        constant_folding: TorchScript exporter only. ``False`` keeps the graph as traced: the
            exporter's own eval-mode peephole (``_jit_pass_onnx_eval_peephole``) would otherwise
            fold BatchNormalization into Conv and hide the fusion the ONNX tools perform later.
        custom_translation_table: dynamo exporter only: ``{torch op overload: onnxscript
            function}``, the exporter's custom-op path (see :mod:`lab01_onnx.customop`).

    Returns:
        ``path``. The file is written under a temporary name and renamed, never half-written.

    Raises:
        UserError: unknown exporter.
    """
    import torch

    if exporter not in ("torchscript", "dynamo"):
        raise UserError(f"unknown exporter {exporter!r}; use torchscript or dynamo")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.onnx")
    kw: dict = dict(input_names=list(bundle.inputs), output_names=list(bundle.output_names), external_data=False)
    if exporter == "torchscript":
        kw.update(dynamo=False, opset_version=opset or 17, dynamic_axes=bundle.dynamic_axes,
                  do_constant_folding=constant_folding)
    else:
        dim_objs: dict[str, object] = {}
        shapes = {name: {ax: dim_objs.setdefault(d, torch.export.Dim(d)) for ax, d in bundle.dynamic_axes.get(name, {}).items()}
                  for name in bundle.inputs}
        kw.update(dynamo=True, opset_version=opset or 18, dynamic_shapes=shapes, verbose=False,
                  custom_translation_table=custom_translation_table)
    with warnings.catch_warnings(), _quiet():
        warnings.simplefilter("ignore")
        torch.onnx.export(bundle.model, (), str(tmp), kwargs=dict(bundle.inputs), **kw)
    os.replace(tmp, path)
    return path


@contextlib.contextmanager
def _quiet():
    """Silence the dynamo exporter's progress prints and torch loggers (stdout/stderr)."""
    import logging
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        level = logging.getLogger("torch").level
        logging.getLogger("torch").setLevel(logging.ERROR)
        try:
            yield
        finally:
            logging.getLogger("torch").setLevel(level)


def ort_session(model: str | os.PathLike | onnx.ModelProto, *, level: str = "DISABLE_ALL", threads: int = 1,
                optimized_path: str | os.PathLike | None = None, custom_ops_library: str | None = None):
    """An ``onnxruntime.InferenceSession`` on ``CPUExecutionProvider``.

    Args:
        model: a path or an in-memory model.
        level: graph optimization level, one of :data:`ORT_LEVELS`.
        threads: intra-op threads.
        optimized_path: if given, ORT writes its optimized graph there.
        custom_ops_library: shared library registered with ``SessionOptions.register_custom_ops_library``.
    """
    import onnxruntime as ort

    from common.timing import ort_session_options

    so = ort_session_options(threads, level=level,
                             optimized_model_path=str(optimized_path) if optimized_path else None)
    so.log_severity_level = 3
    if custom_ops_library:
        so.register_custom_ops_library(custom_ops_library)
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    return ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])


def ort_run(model, feeds: Mapping[str, np.ndarray], **session_kw) -> dict[str, np.ndarray]:
    """Run ``model`` once in ORT; returns ``{output_name: array}`` (see :func:`ort_session`)."""
    sess = ort_session(model, **session_kw)
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, dict(feeds))))


def ort_optimize(src: str | os.PathLike, dst: str | os.PathLike, level: str, *, threads: int = 1) -> onnx.ModelProto:
    """Let ORT optimize ``src`` at ``level`` and save the result to ``dst``; returns it loaded.

    The saved graph may hold ORT-only ops (``com.microsoft``, ``com.microsoft.nchwc`` domains); run
    it again with ``level="DISABLE_ALL"`` so it is executed as saved.
    """
    ort_session(src, level=level, threads=threads, optimized_path=dst)
    return onnx.load(str(dst))


def subgraph_reads(node: onnx.NodeProto) -> set[str]:
    """Names read inside the subgraphs (If/Loop/Scan bodies) of ``node`` that are defined outside them.

    ONNX IR spec, "Names Within a Graph": a subgraph may reference outer-scope values by name;
    such reads do not appear in ``node.input`` but are uses of the value all the same.
    """
    reads: set[str] = set()
    for attr in node.attribute:
        graphs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
        for g in graphs:
            defined = {i.name for i in g.input} | {i.name for i in g.initializer}
            for n in g.node:
                reads |= {t for t in n.input if t and t not in defined}
                reads |= subgraph_reads(n) - defined
                defined |= set(n.output)
    return reads


def tensor_nbytes(elem_type: int, shape) -> int:
    """Bytes of a dense tensor of ONNX ``elem_type`` and a static ``shape``."""
    itemsize = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type)).itemsize
    return int(np.prod(shape, dtype=np.int64)) * itemsize
