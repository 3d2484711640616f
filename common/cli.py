"""One command-line convention for every pipeline and tool of the labs.

- Usage errors are one line: ``error: <what> (see --help)`` on stderr, exit code 2 (like any
  :class:`~common.errors.UserError`); a failed numeric gate prints the gate's table and exits 1
  (:func:`common.errors.run_cli` does both).
- ``-v`` is counted, like tinygrad's ``DEBUG`` levels: ``-v`` prints what each step did in more
  detail (rewrites and their counts, per-op tables), ``-vv`` also prints the IR after each stage.
- ``--quick`` always means "small budgets for a fast check" and takes no value; its tables go to
  :data:`QUICK_RESULTS` (``build/results-quick/``) unless ``MLC_RESULTS_DIR`` names a folder, so a quick
  look never overwrites the committed full-run tables under ``results/``; a step is skipped
  with ``--skip-<step>`` (never ``--no-<step>``); budgets under ``CI=true`` come from
  :mod:`common.budget`, never from a flag's default, so a full run can always be asked for.
- Every step prints lines that start with ``[N step]`` (step number, short name), e.g.
  ``[3 passes] 623 -> 596 nodes``, in all three labs.

Example::

    p = parser("python -m lab02_tvm.pipeline", __doc__, steps=["tuning", "onnx"])
    p.add_argument("--trials", type=int, default=None)
    args = p.parse_args(argv)          # args.verbose: int, args.quick: bool, args.skip: set[str]
    step(1, "import", "ResNet-50: 321 Relax bindings")
    if want_ir(args):
        print(mod.script())
"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from .errors import UserError

__all__ = ["Parser", "parser", "step", "want_ir", "positive", "QUICK_RESULTS"]

#: Where a ``--quick`` run writes its tables when ``MLC_RESULTS_DIR`` is not set (:func:`quick_results`).
QUICK_RESULTS = Path(__file__).resolve().parent.parent / "build" / "results-quick"


def quick_results(why: str = "--quick") -> Path:
    """Point this process's results at :data:`QUICK_RESULTS`, unless ``MLC_RESULTS_DIR`` is set; return the folder.

    A ``--quick`` run measures reduced models and budgets: its rows beside the committed full-run tables of
    ``results/`` (which the READMEs quote) would replace them with numbers of another experiment. So would a
    run that skips part of a table's rows (``why`` names it in the printed line).
    """
    if not os.environ.get("MLC_RESULTS_DIR"):
        os.environ["MLC_RESULTS_DIR"] = str(QUICK_RESULTS)
        print(f"{why}: tables go to {QUICK_RESULTS} (results/ keeps the full runs; MLC_RESULTS_DIR chooses "
              f"another folder)", flush=True)
    return Path(os.environ["MLC_RESULTS_DIR"])


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error raises :class:`UserError` (one ``error:`` line, exit 2)."""

    def error(self, message: str):  # noqa: D401 - argparse API
        """Raise the usage error instead of printing usage and exiting (argparse's ``error`` API).

        Raises:
            UserError: always, ``"<message> (see --help)"``; :func:`common.errors.run_cli` prints it as one
                ``error:`` line and exits 2.
        """
        raise UserError(f"{message} (see --help)")


#: The help of the shared ``-v`` in the lab pipelines.
VERBOSE_HELP = "more detail: -v per-step tables and rewrites, -vv also the IR after each stage"


def parser(prog: str, doc: str | None = None, *, steps: Iterable[str] = (), quick: str | None = None,
           epilog: str | None = None, verbose: str | None = VERBOSE_HELP) -> Parser:
    """A :class:`Parser` with the shared options already added.

    Args:
        prog: the command as a user types it, e.g. ``"python -m lab01_onnx.pipeline"``.
        doc: the module docstring; its first paragraph becomes the description.
        steps: names of skippable steps; each becomes ``--skip-<name>`` (dashes kept) and, when
            given, lands in ``args.skip`` (a set of names) after parsing.
        quick: help text for ``--quick`` (what it shrinks); ``None`` leaves ``--quick`` out.
        epilog: text after the options (e.g. the step list).
        verbose: help text for ``-v``/``--verbose`` (what it adds); ``None`` leaves the option out (a command
            that prints the same at every level).

    Returns:
        the parser; ``parse_args`` gives ``verbose`` (int, 0 by default) and, where asked for,
        ``quick`` (bool) and ``skip`` (``set[str]``).
    """
    desc = (doc or "").strip().split("\n\n")[0] or None
    p = Parser(prog=prog, description=desc, epilog=epilog,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    if verbose is not None:
        p.add_argument("-v", "--verbose", action="count", default=0, help=verbose)
    else:
        p.set_defaults(verbose=0)
    if quick is not None:
        p.add_argument("--quick", action="store_true", help=quick)
    names = list(steps)
    for name in names:
        p.add_argument(f"--skip-{name}", action="append_const", const=name, dest="skip",
                       help=f"skip the {name} step")
    p.set_defaults(skip=None)
    _orig = p.parse_args

    def parse_args(args: Sequence[str] | None = None, namespace=None):
        ns = _orig(args, namespace)
        ns.skip = set(ns.skip or ())
        if getattr(ns, "quick", False):
            quick_results()
        return ns

    p.parse_args = parse_args  # type: ignore[method-assign]
    return p


#: environment variable a pipeline sets for a child that prints its own steps: ``9.`` makes ``[1 build]`` ``[9.1 build]``
STEP_PREFIX_ENV = "MLC_STEP_PREFIX"


def step(n: int | str, name: str, msg: str) -> str:
    """Print and return one step line, ``[N name] msg`` (the format shared by the three labs).

    ``N`` carries the prefix in ``$MLC_STEP_PREFIX`` when a parent pipeline runs this one as one of its steps
    (``[9.1 build]``: step 1 of the child that is step 9 of the parent).
    """
    line = f"[{os.environ.get(STEP_PREFIX_ENV, '')}{n} {name}] {msg}"
    print(line, flush=True)
    return line


def want_ir(args: argparse.Namespace, level: int = 2) -> bool:
    """True when ``-v`` was given at least ``level`` times (``-vv`` prints IR by convention)."""
    return int(getattr(args, "verbose", 0) or 0) >= level


def positive(name: str, value: float | int | None, *, strict: bool = True) -> None:
    """Raise :class:`UserError` unless ``value`` is ``None`` or a finite number > 0 (>= 0 with ``strict=False``):
    ``nan`` and ``inf``, which ``float()`` parses, are refused too.

    Args:
        name: the option as typed, e.g. ``"--trials"``.
        value: the parsed value.
        strict: require > 0 (default) rather than >= 0.
    """
    if value is None:
        return
    if not math.isfinite(value):
        raise UserError(f"{name} must be a finite number (got {value})")
    if (value <= 0) if strict else (value < 0):
        raise UserError(f"{name} must be {'>' if strict else '>='} 0 (got {value})")


def positive_ints(name: str, text: str, count: int | None = None) -> tuple[int, ...]:
    """``"4,16,32"`` -> ``(4, 16, 32)``: comma-separated integers > 0, blanks ignored (``""`` -> ``()``).

    Args:
        name: the option as typed, e.g. ``"--sizes"``.
        text: what was given.
        count: how many there must be (None: any number).

    Raises:
        UserError: an item that is not an integer, one <= 0, or not ``count`` of them.
    """
    try:
        vals = tuple(int(t) for t in str(text).split(",") if t.strip())
    except ValueError:
        vals = None
    if vals is None or any(v <= 0 for v in vals) or (count is not None and len(vals) != count):
        many = f"{count} " if count is not None else ""
        raise UserError(f"{name} must be {many}positive comma-separated integers (got {text!r})")
    return vals


def fraction(name: str, value: float) -> None:
    """Raise :class:`UserError` unless ``0 <= value < 1`` (a least gain, a share; NaN and infinities fail too).

    Args:
        name: the option as typed, e.g. ``"--min-gain"``.
        value: the parsed value.
    """
    if not 0 <= value < 1:
        raise UserError(f"{name} must be in [0, 1), a fraction such as 0.03 for 3 % (got {value})")


def table_name(name: str, value: str | None) -> None:
    """Raise :class:`UserError` unless ``value`` is ``None`` or a plain file stem (letters, digits, ``_``, ``-``):
    a results table's name, which must not write outside its results folder.

    Args:
        name: the option as typed, e.g. ``"--name"``.
        value: the parsed value.
    """
    import re
    if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        raise UserError(f"{name} {value!r}: letters, digits, '_' and '-' only (it names files in the results folder)")


def writable_folder(out: str | Path, flag: str = "--out") -> Path:
    """``out`` as a folder that exists and can be written (made if missing), checked before any work is done.

    Raises:
        UserError: ``out`` is a file, cannot be made, or cannot be written (one line naming ``flag``).
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"{flag} {out} is a file: give a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {flag} {out}: {exc.strerror or exc}") from None
    try:  # a real write: root passes os.access on /proc and /sys, whose files refuse to be created
        import tempfile
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        raise UserError(f"cannot write to {flag} {out}: {exc.strerror or exc}") from None
    return out


@contextlib.contextmanager
def made_folder(out: str | Path, flag: str = "--out") -> Iterator[Path]:
    """``out`` made (:func:`writable_folder`) for the block; if the block raises, the folders this call created
    (``out`` and its missing parents, and any folder made inside them) are removed again where they are still
    empty: a refused run leaves nothing behind, and a file written there is never removed."""
    out = Path(out)
    top = out if not out.exists() else None
    while top is not None and not top.parent.exists():
        top = top.parent
    made = writable_folder(out, flag)
    try:
        yield made
    except BaseException:
        if top is not None:
            for dirpath, _, _ in sorted(os.walk(top), key=lambda w: -len(Path(w[0]).parts)):
                with contextlib.suppress(OSError):
                    os.rmdir(dirpath)  # only an empty folder goes
        raise


def command_line(module: str, argv: Sequence[str] | None = None) -> str:
    """``python -m <module> <args>`` as typed (``argv``, default ``sys.argv[1:]``), shell-quoted, each absolute
    path inside this checkout made relative to it (``--root /home/me/ml-compiler-labs/build/x`` -> ``--root
    build/x``): the command a table or a ``PROVENANCE.json`` records, the same on every machine."""
    import shlex
    import sys

    root = Path(__file__).resolve().parents[1]

    def portable(arg: str) -> str:
        if arg.startswith("--") and "=" in arg:
            flag, value = arg.split("=", 1)
            return f"{flag}={portable(value)}"
        path = Path(arg)
        if path.is_absolute() and path.resolve().is_relative_to(root):
            return path.resolve().relative_to(root).as_posix()
        return arg

    return shlex.join(["python", "-m", module, *(portable(a) for a in (sys.argv[1:] if argv is None else argv))])
