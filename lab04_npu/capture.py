"""Capture what native code writes to a file descriptor (ORT's C++ logger, a library's printf).

``sys.stderr`` redirection does not see ``std::cerr`` or C's ``printf``: :func:`capture_fd` points the descriptor
itself at a temporary file for a block (``os.dup2``), and flushes C's stdio buffers (``fflush(NULL)`` through
ctypes) before restoring it. Given code, used by :mod:`lab04_npu.qnn` and its tests.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass
class Captured:
    """Text written to a file descriptor inside :func:`capture_fd` (set when the block exits)."""

    text: str = ""


@contextlib.contextmanager
def capture_fd(fd: int = 2) -> Iterator[Captured]:
    """Capture everything written to file descriptor ``fd`` (default stderr) at the OS level.

    ORT's default logger writes to ``std::cerr`` from C++, which ``sys.stderr`` redirection does
    not see; this points the descriptor itself at a temporary file for the block. C's own stdio
    buffers are flushed before the descriptor is restored, so buffered native output lands in the file.
    """
    out = Captured()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), fd)
        try:
            yield out
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            with contextlib.suppress(Exception):  # printf() of a native library, still in C's buffer
                ctypes.CDLL(None).fflush(None)
            os.dup2(saved, fd)
            os.close(saved)
            tmp.seek(0)
            out.text = tmp.read().decode("utf-8", "replace")
