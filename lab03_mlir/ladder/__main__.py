"""``python -m lab03_mlir.ladder``: step 9, the ladder (:func:`lab03_mlir.ladder.steps.main`)."""
from common.course.notimpl import stubs_as_errors
from common.errors import run_cli

from .steps import main

raise SystemExit(run_cli(stubs_as_errors(main)))
