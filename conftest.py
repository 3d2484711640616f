"""Root pytest configuration: required packages, Hypothesis policy, lab markers, GPU skipping, results folder.

- **Required packages.** At start-up every distribution in ``pyproject.toml``'s
  ``[project].dependencies`` must be installed (checked with ``importlib.metadata`` and
  ``importlib.util.find_spec``, no heavy imports); otherwise the run stops before collecting, non-zero
  (pytest's usage-error exit 4), with one line per missing package:
  ``missing required package X: run make setup (or .venv/bin/pip install -c requirements.lock X)``.
  A broken install is a failure, never a skip. ``$MLC_EXTRA_REQUIRED`` (comma-separated distribution
  names) adds names to the list; the tests use it to check this behaviour.
- **Hypothesis.** The profile ``mlc`` (also registered as ``ci``, replacing Hypothesis's built-in
  ``ci`` profile whose ``derandomize=True`` would replay the same examples on every CI run) explores
  *new* examples on every run: ``derandomize=False``, ``max_examples=100`` per property unless a test
  states its own, ``print_blob=True`` (a failure prints a ``@reproduce_failure`` blob),
  ``deadline=None`` (no wall-clock asserts on a shared machine). The session draws one seed, prints it
  in the header (and again after a failing run): ``pytest --hypothesis-seed=N`` replays that run.
  ``--hypothesis-profile=default`` or ``--hypothesis-seed`` given on the command line win.
- Markers (declared in pyproject.toml): ``lab01``, ``lab02``, ``lab03``, ``lab04``, ``debugging``, ``slow``,
  ``gpu``.
  Tests marked ``gpu`` are skipped with the reason when no CUDA device is visible.
- **A crash names its test.** TVM's FFI library installs its own SIGSEGV handler when it is loaded (it prints a
  C backtrace to file descriptor 2, which pytest captures and loses with the process), replacing the handler
  of pytest's ``faulthandler`` plugin: a segfault in native code then ended the run with no line at all.
  Before each test's setup and call, Python's :mod:`faulthandler` is installed again over it (it writes the
  Python stack, test function included, to a copy of the terminal's stderr; the process then dies of the
  signal, exit code -11 or 139). ``-p no:faulthandler`` turns this off with pytest's own.
- With ``CI=true`` the labs shrink their budgets (see :mod:`common.budget`).
"""
from __future__ import annotations

import faulthandler
import os
import random
import sys

import pytest

from common.errors import missing_required, missing_required_lines, required_distributions

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")

HYPOTHESIS_MAX_EXAMPLES = 100
try:  # hypothesis is a required package: when it is absent, pytest_configure reports it with the others
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover
    settings = None
else:
    for _name in ("mlc", "ci"):
        settings.register_profile(_name, settings.get_profile("default"), derandomize=False, print_blob=True,
                                  max_examples=HYPOTHESIS_MAX_EXAMPLES, deadline=None,
                                  suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("mlc")
_SEED: dict[str, int | str | None] = {"seed": None}


def required_missing_lines() -> list[str]:
    """One line per required distribution (pyproject + ``$MLC_EXTRA_REQUIRED``) that is not installed."""
    extra = [d.strip() for d in os.environ.get("MLC_EXTRA_REQUIRED", "").split(",") if d.strip()]
    return missing_required_lines(missing_required(required_distributions() + extra))


_FAULT_FD = pytest.StashKey[int]()


def stderr_fileno() -> int:
    """The file descriptor of ``sys.stderr``, else of ``sys.__stderr__`` when ``sys.stderr`` is no file (a runner
    that captures it, as mutmut does, or -1): the rule of pytest's ``faulthandler.get_stderr_fileno``."""
    try:
        fileno = sys.stderr.fileno()
        if fileno >= 0:
            return fileno
    except (AttributeError, ValueError):  # io.UnsupportedOperation is a ValueError
        pass
    return sys.__stderr__.fileno()


def pytest_configure(config):
    if config.pluginmanager.has_plugin("faulthandler"):  # the terminal's stderr, as pytest's faulthandler takes it
        config.stash[_FAULT_FD] = os.dup(stderr_fileno())
    lines = required_missing_lines()
    if lines:
        raise pytest.UsageError(f"{len(lines)} required package(s) missing, the install is broken:\n"
                                + "\n".join(lines))
    from hypothesis import core
    given = config.getoption("--hypothesis-seed", default=None)
    if given is None:
        seed = random.SystemRandom().randrange(2**32)
        core.global_force_seed = seed
    else:
        seed = given
    _SEED["seed"], _SEED["drawn"] = seed, given is None


def _seed_line() -> str:
    seed = _SEED["seed"]
    drawn = "new examples every run" if _SEED.get("drawn") else "the seed given"
    return (f"hypothesis: profile {settings.get_current_profile_name()!r} ({drawn}, "
            f"max_examples={settings.default.max_examples}), seed {seed}: replay with --hypothesis-seed={seed}")


def _cpu_line() -> str:
    """Which kind of machine ran the suite (CPU model, LLVM CPU, widest vectors): :mod:`common.isa`."""
    try:
        from common import isa
        return isa.summary_line()
    except Exception as exc:  # noqa: BLE001 - a header line must never stop the run (the tests report it)
        return f"cpu: unknown ({type(exc).__name__}: {str(exc)[:80]})"


def _faulthandler_on_top(config) -> None:
    """Python's fatal-signal handler over any a native library installed since (see the module docstring)."""
    if _FAULT_FD in config.stash:
        faulthandler.disable()  # enable() alone keeps a handler it thinks is still installed
        faulthandler.enable(file=config.stash[_FAULT_FD], all_threads=True)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _faulthandler_on_top(item.config)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    _faulthandler_on_top(item.config)


def pytest_unconfigure(config):
    if _FAULT_FD in config.stash:
        os.close(config.stash[_FAULT_FD])
        del config.stash[_FAULT_FD]


def pytest_report_header(config):
    """The machine and the Hypothesis seed lines in the session header."""
    return [_cpu_line(), _seed_line()]


def pytest_sessionstart(session):
    """Under ``-q`` pytest prints no header: print the machine and seed lines at the start all the same."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and session.config.get_verbosity() < 0:
        reporter.write_line(_cpu_line())
        reporter.write_line(_seed_line())


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if exitstatus == pytest.ExitCode.TESTS_FAILED:
        terminalreporter.write_line(_cpu_line())
        terminalreporter.write_line(_seed_line())


def cuda_reason() -> str | None:
    """``None`` when a CUDA device is usable (PyTorch sees one), else why not."""
    try:
        import torch
    except ImportError:  # pragma: no cover
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device on this machine (torch.cuda.is_available() is False)"
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if "gpu" in item.keywords:
            reason = reason or cuda_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(autouse=True)
def _results_env_restored():
    """``$MLC_RESULTS_DIR`` as it was before each test: a ``--quick`` command line a test parses points it at
    ``build/results-quick`` (:func:`common.cli.quick_results`) for the rest of the process otherwise."""
    before = os.environ.get("MLC_RESULTS_DIR")
    yield
    if before is None:
        os.environ.pop("MLC_RESULTS_DIR", None)
    else:
        os.environ["MLC_RESULTS_DIR"] = before


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    """A temporary results root (``$MLC_RESULTS_DIR``) so tests never touch the committed results/."""
    root = tmp_path / "results"
    root.mkdir()
    monkeypatch.setenv("MLC_RESULTS_DIR", str(root))
    return root


@pytest.fixture
def ci() -> bool:
    """True when running with ``CI=true`` (budgets are shrunk)."""
    from common.budget import ci as _ci
    return _ci()
