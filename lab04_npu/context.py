"""The NPU binary: QNN's context binary and the EP-context ONNX model that points at it.

With ``ep.context_enable=1`` a QNN session, after the HTP graph preparer compiled each partition,
serializes the QNN *context* (the compiled graphs, with their weights laid out for the HTP) into
``<stem>_qnn.bin`` and writes ``<stem>.onnx``: a model whose QNN partitions became ``EPContext``
nodes (domain ``com.microsoft``; attribute ``ep_cache_context`` names the ``.bin``, ``embed_mode=0``)
beside whatever stayed on the CPU. Loading that model skips ONNX parsing and QNN compilation: the
EP hands the binary to the runtime (on a device: the Hexagon runtime through ``libQnnHtp.so``).
Spec: https://onnxruntime.ai/docs/execution-providers/EP-Context-Design.html

ORT refuses to overwrite an existing context model, so :func:`write_context` compiles into a fresh
temporary folder beside the target and moves both files into place (``os.replace``, the ``.bin``
first, so a reader never sees an ``.onnx`` whose binary is missing).
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import onnx

from common.errors import UserError


@dataclass
class ContextFiles:
    """The two files: ``model`` (EP-context ONNX), ``binary`` (``*_qnn.bin``), their sizes in bytes
    (``model_bytes``, ``binary_bytes``) and ``partitions``: the ``EPContext`` nodes of the model (one per
    QNN partition)."""

    model: Path
    binary: Path
    model_bytes: int
    binary_bytes: int
    partitions: int


def write_context(model: onnx.ModelProto, out_model: str | os.PathLike, **session_kw) -> ContextFiles:
    """Compile ``model`` with the QNN EP and write its EP-context model + context binary.

    Args:
        model: a static-shape model.
        out_model: path of the EP-context model (``.onnx``); the binary is ``<stem>_qnn.bin`` beside it.
        session_kw: :func:`lab04_npu.qnn.qnn_session` options (``precision``, ``soc_model``, ...), except
            ``config``, which this function sets (the ``ep.context_*`` entries, embed mode 0).

    Returns:
        :class:`ContextFiles` of the two files, moved into place (an existing pair is replaced).

    Raises:
        UserError: QNN wrote no binary (nothing was placed on the NPU), or the session failed
            (:func:`lab04_npu.qnn.qnn_session`'s errors).
    """
    from lab04_npu.qnn import qnn_session

    out = Path(out_model).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".ctx.") as scratch:
        tmp = Path(scratch) / out.name
        qnn_session(model, config={"ep.context_enable": "1", "ep.context_file_path": str(tmp),
                                   "ep.context_embed_mode": "0"}, **session_kw)
        bins = sorted(Path(scratch).glob("*.bin"))
        if not tmp.is_file() or not bins:
            raise UserError(f"QNN wrote no context binary for {out.name}: no node was placed on the NPU")
        ctx = onnx.load(str(tmp), load_external_data=False)
        nodes = [n for n in ctx.graph.node if n.op_type == "EPContext"]
        binary = out.with_name(bins[0].name)
        os.replace(bins[0], binary)
        os.replace(tmp, out)
    return ContextFiles(out, binary, out.stat().st_size, binary.stat().st_size, len(nodes))


def load_context(path: str | os.PathLike, **session_kw):
    """A new QNN session from an EP-context model alone (its ``_qnn.bin`` must sit beside it).

    ``session_kw`` go to :func:`lab04_npu.qnn.qnn_session` (use those the context was written with);
    returns its :class:`~lab04_npu.qnn.QnnSession`.

    Raises:
        UserError: the file is missing, holds no ``EPContext`` node, or its binary is missing.
    """
    from lab04_npu.qnn import qnn_session

    p = Path(path)
    if not p.is_file():
        raise UserError(f"{p}: no such EP-context model; write it with the pipeline's context step first")
    ctx = onnx.load(str(p), load_external_data=False)
    refs = [a.s.decode() for n in ctx.graph.node if n.op_type == "EPContext"
            for a in n.attribute if a.name == "ep_cache_context"]
    if not refs:
        raise UserError(f"{p} holds no EPContext node; it is not a QNN context model")
    missing = [r for r in refs if not (p.parent / r).is_file()]
    if missing:
        raise UserError(f"{p} points at {missing[0]}, which is not beside it; copy the .bin with the model")
    return qnn_session(p, **session_kw)
