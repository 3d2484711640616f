"""``make setup`` (the Makefile's install rule): it never installs this checkout into another checkout's venv.

A venv holds one editable install of the project (pip's ``direct_url.json`` names the checkout). A ``.venv``
linked or copied from another checkout would, on ``pip install -e .``, point that checkout's imports here; the
rule refuses in one line instead. The venv's Python is stood in for by ``/bin/echo``: nothing is installed.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _checkout(tmp_path: Path, owner: Path) -> Path:
    """A copy of the install rule's inputs whose ``.venv`` holds the editable install of ``owner``."""
    here = tmp_path / "here"
    here.mkdir()
    for name in ("Makefile", "pyproject.toml", "requirements.lock"):
        shutil.copy(ROOT / name, here / name)
    info = here / ".venv/lib/python3.11/site-packages/ml_compiler_labs-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "direct_url.json").write_text(json.dumps({"dir_info": {"editable": True}, "url": f"file://{owner}"}))
    return here


def _install(here: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "-C", str(here), ".venv/.installed", "PY=/bin/echo"],
                          capture_output=True, text=True, timeout=60)


def test_setup_refuses_another_checkouts_venv_and_installs_into_its_own(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text("")
    run = _install(_checkout(tmp_path, other))
    assert run.returncode != 0 and run.stderr.splitlines()[0:1] == [  # then make's own "*** Error 2" line
        f"error: .venv holds the checkout at {other} (a linked or copied venv): give this checkout its own "
        "(rm .venv; make setup)"], run.stdout + run.stderr
    assert "pip install" not in run.stdout and not run.stdout.strip()  # the error on stderr, nothing on stdout
    here = tmp_path / "here"
    (here / ".venv/lib/python3.11/site-packages/ml_compiler_labs-0.1.0.dist-info/direct_url.json").write_text(
        json.dumps({"url": f"file://{here}"}))
    run = _install(here)
    assert run.returncode == 0 and "-m pip install -q -c requirements.lock -e ." in run.stdout, run.stdout + run.stderr
