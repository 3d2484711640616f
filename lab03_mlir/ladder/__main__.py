"""``python -m lab03_mlir.ladder``: step 9, the ladder (:func:`lab03_mlir.ladder.steps.main`), the pipeline's
step ``from_torch``; a handout stub it reaches is one ``error: step from_torch needs a task ...`` line."""
from common.course.notimpl import naming_stubs, stubs_as_errors
from common.errors import run_cli

from .steps import main as steps_main


def main(argv=None) -> int:
    """:func:`lab03_mlir.ladder.steps.main`, a stub it reaches named as step ``from_torch`` (the pipeline's name
    for step 9)."""
    with naming_stubs("from_torch"):
        return steps_main(argv)


raise SystemExit(run_cli(stubs_as_errors(main)))
