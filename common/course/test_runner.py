"""Tests of common.course.runner: a warm (forked) run killed by a signal is run again in a fresh interpreter;
a grader killed with SIGTERM or SIGINT takes its pytest child's process group with it.

The crashing test is real (it sends itself SIGSEGV); what tells the fork from the fresh interpreter is a module
the warm runner imported before forking (``tabnanny``, which neither pytest nor its plugins import).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from common.course.fixtures import PROJECT, env
from common.course.runner import WarmRunner

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and signals are POSIX")

CRASH_IN_FORK = '''
import os, signal, sys
def test_crashes_only_where_tabnanny_was_preloaded():
    if "tabnanny" in sys.modules:
        os.kill(os.getpid(), signal.SIGSEGV)
'''
CRASH_ALWAYS = '''
import os, signal
def test_crashes():
    os.kill(os.getpid(), signal.SIGSEGV)
'''


def _tree(tmp_path, text: str):
    (tmp_path / "test_it.py").write_text(text)
    return tmp_path


def test_a_crash_of_the_fork_alone_gets_the_fresh_interpreters_verdict(tmp_path):
    run = WarmRunner(preload=("tabnanny",))(_tree(tmp_path, CRASH_IN_FORK), ["-q", "-p", "no:cacheprovider"],
                                            timeout_s=120)
    assert run.rc == 0 and "1 passed" in run.output, run.output[-2000:]


def test_code_that_crashes_crashes_in_both(tmp_path):
    run = WarmRunner(preload=("tabnanny",))(_tree(tmp_path, CRASH_ALWAYS), ["-q", "-p", "no:cacheprovider"],
                                            timeout_s=120)
    assert run.rc == -signal.SIGSEGV and "1 passed" not in run.output

#: A test that starts a grandchild, writes both pids (atomically) and sleeps: what a hung grade looks like.
SLEEPS = """
import os, subprocess, sys, time
def test_sleeps():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["PIDS"] + ".tmp", "w") as fh:
        fh.write(f"{os.getpid()} {child.pid}")
    os.replace(os.environ["PIDS"] + ".tmp", os.environ["PIDS"])
    time.sleep(120)
"""
GRADER = """
import signal
import sys
from common.course.runner import WarmRunner, run_pytest
# Ctrl-C as a terminal gives it, whatever this test's parent had: a shell starts a background command with SIGINT
# ignored, and Python then installs no KeyboardInterrupt handler, so the SIGINT below would do nothing
signal.signal(signal.SIGINT, signal.default_int_handler)
runner = run_pytest if sys.argv[2] == "fresh" else WarmRunner(preload=())
runner(sys.argv[1], ["-q", "-p", "no:cacheprovider"], timeout_s=120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie nobody reaped yet (a container's init may not) is dead
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


@pytest.mark.parametrize("sig, runner", [(signal.SIGTERM, "fresh"), (signal.SIGINT, "warm")])
def test_a_grader_killed_takes_its_pytest_process_group_with_it(tmp_path, sig, runner):
    tree = tmp_path / "tree"
    tree.mkdir()
    pids = tmp_path / "pids"
    _tree(tree, SLEEPS)
    grader = subprocess.Popen([sys.executable, "-c", GRADER, str(tree), runner], cwd=PROJECT,
                              env={**env(), "PIDS": str(pids)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not pids.is_file():
        assert time.monotonic() < deadline and grader.poll() is None, "the test never started"
        time.sleep(0.05)
    child, grandchild = map(int, pids.read_text().split())
    grader.send_signal(sig)
    rc = grader.wait(timeout=30)
    assert rc == -sig  # the signal took its usual course after the kill (SIGINT: KeyboardInterrupt, then exit)
    deadline = time.monotonic() + 10
    while (_alive(child) or _alive(grandchild)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child) and not _alive(grandchild)
