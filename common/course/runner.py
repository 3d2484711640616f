"""Run pytest on a tree of files: in a fresh interpreter, or forked from a warm one.

:func:`run_pytest` is what ``make grade`` uses: ``python -m pytest ARGS`` in the tree (``cwd`` and the
front of ``PYTHONPATH``, so the tree's own packages win over the editable install of the reference),
in its own process group (a new session), killed with the group after ``timeout_s``, when the run ends
(whatever it left running), and when the grader itself gets SIGTERM, SIGINT or SIGHUP (:class:`_Reaper`:
the group is killed, then the signal takes its usual course: the grader ends or raises KeyboardInterrupt).
A process the run detached from its group (a double fork and ``setsid``, to outlive the grade and rewrite its
report) is reparented to the grader, the run's child subreaper on Linux, and killed with the run too.

:class:`WarmRunner` gives the same result faster when many trees are graded in a row (the release
gate grades about twenty): it imports the heavy third-party packages once (:data:`PRELOAD`: TVM,
MLIR, ONNX, NumPy, Hypothesis, pytest), then forks one child per run. The child forgets every module
of the project (top-level packages of the tree, ``conftest``), moves into the tree and calls
``pytest.main``; what it prints goes to a file the parent reads. Only POSIX has ``fork``; elsewhere
the warm runner falls back to :func:`run_pytest`. A forked child killed by a signal is run once more in a
fresh interpreter (:func:`run_pytest`), whose result stands: a fork of a process that holds TVM's and MLIR's
threads and JIT state can crash where a fresh interpreter does not (a release gate's reference run died with
SIGSEGV once in ``lab03_mlir/test_task_lower.py``, 2026-12-05, and passed alone and in every other run),
while code under test that crashes crashes there too.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Third-party modules a warm runner imports before forking (each one best effort).
PRELOAD = ("numpy", "pytest", "hypothesis", "onnx", "onnx.reference", "onnx.shape_inference", "onnxruntime",
           "mlir.ir", "mlir.passmanager", "mlir.execution_engine", "mlir.dialects.affine", "mlir.dialects.arith",
           "mlir.dialects.func", "mlir.dialects.linalg", "mlir.dialects.tensor", "torch_mlir.ir", "tvm", "tvm.te",
           "tvm.topi", "tvm.s_tir", "llvmlite.binding", "pytest_timeout")


@dataclass
class Run:
    """One pytest run: exit status (negative: killed by that signal; 124: timed out), output, seconds."""

    rc: int
    output: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        """Whether the run was stopped at its time limit (``rc == 124``)."""
        return self.rc == 124


def _kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (and ``pid`` itself, should it not lead one yet)."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _children() -> set[int]:
    """The pids whose parent is this process (Linux ``/proc``; empty elsewhere)."""
    me, out = os.getpid(), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == me:
                out.add(int(stat.parent.name))
    return out


def _become_subreaper() -> bool:
    """Make this process the Linux *child subreaper* of its descendants (``prctl(PR_SET_CHILD_SUBREAPER)``,
    proc(5)/prctl(2)): a process a test detaches (a double fork, ``setsid``) leaves the run's process group, but
    when its parent dies it is reparented here, not to init, so :class:`_Reaper` still ends it. False where
    there is no such call (not Linux)."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # 36: PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


class _Reaper:
    """While a child runs: its process group dies with the block (an exception, a normal end: whatever the
    tests left running) and when this process gets SIGTERM, SIGINT or SIGHUP (then the signal is delivered
    again under the handler that was there before). Handlers are installed from the main thread only."""

    SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, n))

    def __init__(self):
        self.pid: int | None = None
        self.old: dict[int, object] = {}
        self.before: set[int] = set()

    def _handler(self, signum, frame):
        if self.pid is not None:
            _kill_group(self.pid)
        self._restore()
        signal.raise_signal(signum)

    def _restore(self) -> None:
        for sig, old in self.old.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(sig, old if old is not None else signal.SIG_DFL)
        self.old.clear()

    def __enter__(self) -> _Reaper:
        _become_subreaper()
        self.before = _children()
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                old = signal.getsignal(sig)
                if old is signal.SIG_IGN:  # ignored here (nohup): the grader goes on, and so may its child
                    continue
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(sig, self._handler)
                    self.old[sig] = old
        return self

    def __exit__(self, *exc) -> None:
        try:
            if self.pid is not None:
                _kill_group(self.pid)
            self._end_orphans()
        finally:
            self._restore()

    def _end_orphans(self) -> None:
        """SIGKILL and wait for the processes the run left behind that were reparented here (see
        :func:`_become_subreaper`): this process's children now that were not before the run."""
        for pid in _children() - self.before - ({self.pid} if self.pid else set()):
            _kill_group(pid)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


def _env(tree: Path, env: Mapping[str, str] | None) -> dict[str, str]:
    out = dict(os.environ)
    out.update(env or {})
    out["PYTHONPATH"] = os.pathsep.join([str(tree)] + [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p])
    out["PYTHONDONTWRITEBYTECODE"] = "1"  # no run writes bytecode into the tree (the grader checks it)
    return out


def _key_pipe(key: bytes | None) -> int | None:
    """The read end of a pipe that holds ``key`` (the write end closed), for the child's ``--task-key-fd``: the
    key travels in no argument, environment variable or file that code under test could read later."""
    if key is None:
        return None
    r, w = os.pipe()
    os.write(w, key)
    os.close(w)
    return r


def run_pytest(tree: str | Path, args: Sequence[str], *, env: Mapping[str, str] | None = None,
               timeout_s: float = 900, key: bytes | None = None) -> Run:
    """``python -m pytest *args`` in ``tree`` (a fresh interpreter); see the module docstring. ``key``: the
    report's signing key, handed over on a pipe (``--task-key-fd``, :mod:`common.course.plugin`)."""
    tree = Path(tree)
    t0 = time.perf_counter()
    fd = _key_pipe(key)
    args = [*args, f"--task-key-fd={fd}"] if fd is not None else list(args)
    with _Reaper() as reaper:
        try:
            proc = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=tree, env=_env(tree, env),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    start_new_session=True, pass_fds=() if fd is None else (fd,))
        finally:
            if fd is not None:
                os.close(fd)
        reaper.pid = proc.pid
        try:
            out, _ = proc.communicate(timeout=timeout_s)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            out, _ = proc.communicate()
            rc = 124
        except BaseException:
            _kill_group(proc.pid)
            proc.wait()
            raise
    return Run(rc, out or "", time.perf_counter() - t0)


class WarmRunner:
    """Forks pytest runs from a process that imported :data:`PRELOAD` once (see the module docstring)."""

    def __init__(self, preload: Sequence[str] = PRELOAD):
        self.loaded = []
        if not hasattr(os, "fork"):  # pragma: no cover - not POSIX
            return
        for name in preload:
            try:
                importlib.import_module(name)
                self.loaded.append(name)
            except Exception:  # noqa: BLE001 - an optional speed-up: the child imports what is missing
                pass

    def __call__(self, tree: str | Path, args: Sequence[str], *, env: Mapping[str, str] | None = None,
                 timeout_s: float = 900, key: bytes | None = None) -> Run:
        tree = Path(tree).resolve()
        if not hasattr(os, "fork"):  # pragma: no cover
            return run_pytest(tree, args, env=env, timeout_s=timeout_s, key=key)
        fd, log = tempfile.mkstemp(prefix="course-run-", suffix=".log")
        t0 = time.perf_counter()
        sys.stdout.flush()
        sys.stderr.flush()
        key_fd = None
        try:  # the log goes whatever happens (an exception or a kill in the fork left empty ones in /tmp)
            key_fd = _key_pipe(key)
            forked = [*args, f"--task-key-fd={key_fd}"] if key_fd is not None else list(args)
            with _Reaper() as reaper:
                rc = self._fork(reaper, fd, tree, forked, env, timeout_s)
            output = Path(log).read_text(errors="replace")
        finally:
            if key_fd is not None:
                os.close(key_fd)
            Path(log).unlink(missing_ok=True)
        if rc < 0:  # killed by a signal in the fork: the fresh interpreter's verdict stands (module docstring)
            return run_pytest(tree, args, env=env, timeout_s=timeout_s, key=key)
        return Run(rc, output, time.perf_counter() - t0)

    @staticmethod
    def _fork(reaper: _Reaper, fd: int, tree: Path, args: Sequence[str], env: Mapping[str, str] | None,
              timeout_s: float) -> int:
        """Fork the child (it runs :func:`_child`, writing to ``fd``) and wait for it: its exit status."""
        pid = os.fork()
        if pid == 0:  # the child never returns
            rc = 70
            try:
                reaper._restore()  # the child keeps the handlers the parent had before this run
                os.setsid()
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - the child's whole life
                sys.stderr = sys.stdout
                rc = _child(tree, args, _env(tree, env))
            except BaseException as exc:  # noqa: BLE001 - report and exit, never return into the parent's code
                print(f"course runner: {type(exc).__name__}: {exc}", flush=True)
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                os._exit(rc)
        reaper.pid = pid
        os.close(fd)
        rc = None
        deadline = time.monotonic() + timeout_s
        try:
            while rc is None:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    rc = os.waitstatus_to_exitcode(status)
                elif time.monotonic() > deadline:
                    _kill_group(pid)
                    os.waitpid(pid, 0)
                    rc = 124
                else:
                    time.sleep(0.02)
        except BaseException:
            _kill_group(pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            raise
        return rc


def _child(tree: Path, args: Sequence[str], env: dict[str, str]) -> int:
    """In the forked child: forget the project's modules, enter ``tree``, run pytest."""
    packages = {p.name for p in tree.iterdir() if (p / "__init__.py").is_file()} | {"conftest"}
    for name in list(sys.modules):
        top = name.split(".", 1)[0]
        if top in packages or top.startswith("test_"):
            del sys.modules[name]
    importlib.invalidate_caches()
    os.environ.clear()
    os.environ.update(env)
    sys.dont_write_bytecode = True  # as PYTHONDONTWRITEBYTECODE makes a fresh interpreter: the grader's check
    os.chdir(tree)
    sys.path[:] = [str(tree)] + [p for p in sys.path if p not in ("", str(tree))]
    # the parent imported these plugins already, so pytest cannot rewrite their asserts: say nothing of it
    args = ["-W", "ignore::pytest.PytestAssertRewriteWarning", *args]
    sys.argv = ["pytest", *args]
    import pytest
    return int(pytest.main(args))
