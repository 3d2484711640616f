"""``python -m lab03_mlir.spirv``: the SPIR-V extension (:func:`lab03_mlir.spirv.run.main`), the pipeline's
step 10 (``spirv``); a handout stub it reaches is one ``error: step spirv needs a task ...`` line."""
from common.course.notimpl import naming_stubs, stubs_as_errors
from common.errors import run_cli

from .run import main as run_main


def main(argv=None) -> int:
    """:func:`lab03_mlir.spirv.run.main`, a stub it reaches named as step ``spirv`` (as the pipeline names its steps)."""
    with naming_stubs("spirv"):
        return run_main(argv)


raise SystemExit(run_cli(stubs_as_errors(main)))
