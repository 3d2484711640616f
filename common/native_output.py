"""What native code writes to a file descriptor: captured, silenced, or passed on without a known line.

``sys.stderr`` redirection does not see ``std::cerr`` (ONNX Runtime's C++ logger, TVM's ``LOG(WARNING)``)
or C's ``printf``: these helpers point the descriptor itself elsewhere for a block (``os.dup2``), flushing
Python's and C's stdio buffers (``fflush(NULL)`` through ctypes) before it is restored, so buffered native
output lands where the block sent it. Used by :mod:`lab04_npu.qnn` (the QNN EP's log), by
:mod:`common.onnx_utils` (the TorchScript exporter's dump) and by :mod:`lab02_tvm.graph.frontend` (topi's
warning on every embedding lookup).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Captured", "capture_fd", "silenced", "without_lines"]


@dataclass
class Captured:
    """Text written to a file descriptor inside :func:`capture_fd` (set when the block exits)."""

    text: str = ""


def _flush_all() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with contextlib.suppress(Exception):  # printf() of a native library, still in C's buffer
        ctypes.CDLL(None).fflush(None)


@contextlib.contextmanager
def capture_fd(fd: int = 2) -> Iterator[Captured]:
    """Capture everything written to file descriptor ``fd`` (default stderr) at the OS level.

    The descriptor points at a temporary file for the block; the text (UTF-8, undecodable bytes
    replaced) is in the yielded :class:`Captured` once the block exits, also when it raised.
    """
    out = Captured()
    _flush_all()
    saved = os.dup(fd)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), fd)
        try:
            yield out
        finally:
            _flush_all()
            os.dup2(saved, fd)
            os.close(saved)
            tmp.seek(0)
            out.text = tmp.read().decode("utf-8", "replace")


@contextlib.contextmanager
def silenced(fds: tuple[int, ...] = (1, 2)) -> Iterator[None]:
    """Point file descriptors ``fds`` (default stdout and stderr) at ``/dev/null`` for the block."""
    _flush_all()
    saved = [os.dup(fd) for fd in fds]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in fds:
            os.dup2(devnull, fd)
        yield
    finally:
        _flush_all()
        for fd, keep in zip(fds, saved):
            os.dup2(keep, fd)
        for fd in (*saved, devnull):
            os.close(fd)


@contextlib.contextmanager
def without_lines(fd: int, *substrings: str) -> Iterator[None]:
    """Pass on what the block writes to ``fd``, less the lines that contain one of ``substrings``.

    The other lines reach ``fd`` unchanged and in order when the block exits (also when it raised),
    so a message nobody asked to drop is delayed, never lost.
    """
    try:
        with capture_fd(fd) as cap:
            yield
    finally:
        kept = [line for line in cap.text.splitlines(keepends=True) if not any(s in line for s in substrings)]
        if kept:
            os.write(fd, "".join(kept).encode("utf-8"))
