"""What each ``python -m <module> [sub]`` command a doc shows answers to ``--help``: exit code and output.

Each command runs as ``python -m`` runs it: ``runpy.run_module(module, run_name="__main__")`` with
``sys.argv`` set, in a process of its own that no other command ran in (a module's top-level code, e.g.
``torch.library.custom_op``, registers things once per process). The processes are forked from a
``multiprocessing`` *forkserver* that imported the heavy libraries (torch, TVM, ONNX Runtime) once: a
fresh interpreter per command paid those imports 40 times (22 s of ``common/test_docs.py`` on Zen 4, 40 s
on a clean clone), a forked one pays only the command's own modules. The forkserver is a process started
for this purpose (Python docs, ``multiprocessing`` "Contexts and start methods": it is single threaded, so
forking from it is safe), never the test process itself.
"""
from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import runpy
import sys
import traceback
from collections.abc import Sequence

from . import REPO

#: libraries the forkserver imports once, before it forks a process per command
PRELOAD = ("numpy", "torch", "onnx", "onnxruntime", "tvm", "tvm.relax")

Key = tuple[str, "str | None"]


def answer_help(key: Key) -> tuple[int, str]:
    """``python -m <module> [sub] --help`` in this process: ``(exit code, stdout + stderr)``.

    The exit code is the interpreter's for the ``SystemExit`` the command raised (``None``: 0, an int: itself,
    anything else: 1 with it printed, as ``python`` does); an uncaught exception is 1 with its traceback.
    """
    mod, sub = key
    os.chdir(REPO)
    sys.path.insert(0, str(REPO))  # what ``python -m`` puts first: the working directory
    sys.dont_write_bytecode = True
    sys.argv = [mod, *([sub] if sub else []), "--help"]
    buf = io.StringIO()
    rc = 0
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            runpy.run_module(mod, run_name="__main__", alter_sys=True)
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                rc = e.code or 0
            else:
                print(e.code, file=sys.stderr)
                rc = 1
        except BaseException:  # noqa: BLE001 - reported as the interpreter would, exit 1
            traceback.print_exc()
            rc = 1
    return rc, buf.getvalue()


def answers(keys: Sequence[Key], timeout_s: float = 120.0, workers: int | None = None) -> dict[Key, tuple[int, str]]:
    """:func:`answer_help` for every key, each in a fresh process forked from a forkserver (:data:`PRELOAD`).

    Args:
        keys: ``(module, subcommand or None)`` pairs.
        timeout_s: the longest one command may take; one that takes longer is ``(-1, "timed out after ... s")``
            and the rest still run.
        workers: processes at a time (default: the CPU count).
    Returns:
        ``{key: (exit code, output)}`` in the order of ``keys``.
    """
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(PRELOAD))  # takes effect when this process starts its forkserver
    out: dict[Key, tuple[int, str]] = {}
    pool = ctx.Pool(processes=workers or os.cpu_count() or 1, maxtasksperchild=1)
    try:
        pending = {key: pool.apply_async(answer_help, (key,)) for key in keys}
        for key, res in pending.items():
            try:
                out[key] = res.get(timeout_s)
            except multiprocessing.TimeoutError:
                out[key] = (-1, f"timed out after {timeout_s:g} s")
    finally:
        pool.terminate()
        pool.join()
    return out
