"""common.native_output: what native code writes to a descriptor, captured, silenced, or filtered.

Reference: the bytes C's ``printf``/``write(2)`` put on the descriptor, read back through another capture.
"""
from __future__ import annotations

import ctypes
import os

import pytest

from common.native_output import capture_fd, silenced, without_lines


def _c_write(fd: int, text: str) -> None:
    """Write ``text`` from C (libc's ``write``), where ``sys.stderr`` redirection does not reach."""
    data = text.encode()
    assert ctypes.CDLL(None).write(fd, data, len(data)) == len(data)


def test_capture_fd_sees_c_output_and_buffered_printf():
    with capture_fd(1) as out:
        _c_write(1, "from write\n")
        ctypes.CDLL(None).printf(b"from printf\n")  # still in C's stdio buffer when the block ends
    assert out.text == "from write\nfrom printf\n"


def test_silenced_drops_everything_and_restores_the_descriptor():
    with capture_fd(2) as outer:
        with silenced((2,)):
            _c_write(2, "gone\n")
        _c_write(2, "back\n")
    assert outer.text == "back\n"


def test_without_lines_drops_only_the_named_lines_and_keeps_the_rest_in_order():
    with capture_fd(2) as outer, without_lines(2, "Fast mode segfaults"):
        _c_write(2, "first\n[03:47:06] transform.h:1261: Warning: Fast mode segfaults when ...\nlast\n")
    assert outer.text == "first\nlast\n"


def test_without_lines_passes_the_rest_on_when_the_block_raises():
    with capture_fd(2) as outer, pytest.raises(RuntimeError, match="boom"), without_lines(2, "drop me"):
        _c_write(2, "drop me\nkeep me\n")
        raise RuntimeError("boom")
    assert outer.text == "keep me\n"
    os.fstat(2)  # the descriptor is still open
