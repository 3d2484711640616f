"""The release gate runs beside the rest of the suite (its one run feeds ``test_gate.py``).

``python -m common.course gate --json`` grades the handout, the reference, each task of the first lab stubbed
and every known-wrong submission (about 170 runs: one core busy for about six minutes), and
``test_gate.py`` only reads its findings. When a run collects ``test_gate.py`` together with other tests, the
gate starts as a subprocess as soon as collection ends and ``test_gate.py`` moves to the end of the run, so
the gate uses the second core while the suite runs on the first (2 cores: the suite's 15-minute budget). Run
alone, ``test_gate.py`` starts it the same way and waits. :func:`gate_run` (a fixture) waits for it, at most
:data:`GATE_LIMIT_S` from its start; the subprocess is killed when the session ends, whatever it was doing.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from common.course.fixtures import PROJECT, env

GATE_TESTS = Path(__file__).resolve().parent / "test_gate.py"
GATE_LIMIT_S = 600
_GATE = pytest.StashKey["GateRun"]()


@dataclass
class GateRun:
    """The gate subprocess, where it writes (``json``, ``log``), when it started (``time.monotonic()``)."""

    proc: subprocess.Popen
    folder: Path
    started: float

    @property
    def json(self) -> Path:
        return self.folder / "gate.json"

    @property
    def log(self) -> Path:
        return self.folder / "gate.log"

    def wait(self) -> subprocess.CompletedProcess:
        """The finished run (its stdout and stderr together as ``stdout``); kills it past :data:`GATE_LIMIT_S`."""
        try:
            rc = self.proc.wait(timeout=max(1.0, GATE_LIMIT_S - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.stop()
            rc = 124
        return subprocess.CompletedProcess(self.proc.args, rc, self.log.read_text(errors="replace"), "")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _start(config) -> GateRun:
    folder = Path(tempfile.mkdtemp(prefix="suite-gate-"))
    with open(folder / "gate.log", "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "common.course", "gate", "--json", str(folder / "gate.json")],
                                cwd=PROJECT, env=env(), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    run = config.stash[_GATE] = GateRun(proc, folder, time.monotonic())
    return run


def pytest_collection_modifyitems(session, config, items):
    gate = [i for i in items if i.path == GATE_TESTS]
    if gate and len(gate) < len(items):
        items[:] = [i for i in items if i.path != GATE_TESTS] + gate


def pytest_collection_finish(session):
    if session.config.option.collectonly:
        return
    if any(i.path == GATE_TESTS for i in session.items) and _GATE not in session.config.stash:
        _start(session.config)


def pytest_unconfigure(config):
    run = config.stash.get(_GATE, None)
    if run is not None:
        run.stop()
        shutil.rmtree(run.folder, ignore_errors=True)
        del config.stash[_GATE]


@pytest.fixture(scope="session")
def gate_run(pytestconfig) -> tuple[subprocess.CompletedProcess, Path]:
    """The gate's finished run and its ``--json`` file (started at collection; see the module docstring)."""
    run = pytestconfig.stash.get(_GATE, None) or _start(pytestconfig)
    return run.wait(), run.json
