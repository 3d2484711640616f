"""``python -m lab02_tvm.pipeline``: see :mod:`lab02_tvm.pipeline`.

In the handout, a step that reaches a task not written yet stops with one line naming it
(:func:`common.course.notimpl.stubs_as_errors`), not a traceback.
"""
from common.course.notimpl import stubs_as_errors
from common.errors import run_cli

from .run import main

raise SystemExit(run_cli(stubs_as_errors(main)))
