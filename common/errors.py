"""User-facing errors: one clear line, a non-zero exit, nothing lost.

Library code raises :class:`UserError` (or a subclass) with a message that names the problem and
what to do. Command-line entry points run through :func:`run_cli`, which prints ``error: <msg>``
on stderr and returns exit code 2 instead of a traceback.
"""
from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Callable, Sequence


class UserError(Exception):
    """A problem the user can fix (bad argument, bad file, missing package); one-line message."""


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


def run_cli(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Run a CLI ``main(argv)``; turn :class:`UserError` into one stderr line and exit code 2.

    Returns:
        ``main``'s return value (``0`` when it returns ``None``), or 2 after a :class:`UserError`.
    """
    try:
        rc = main(argv)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    return 0 if rc is None else int(rc)
