"""Tests of common.course.runner: a warm (forked) run killed by a signal is run again in a fresh interpreter.

The crashing test is real (it sends itself SIGSEGV); what tells the fork from the fresh interpreter is a module
the warm runner imported before forking (``tabnanny``, which neither pytest nor its plugins import).
"""
from __future__ import annotations

import signal
import sys

import pytest

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
