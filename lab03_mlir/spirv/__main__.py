"""``python -m lab03_mlir.spirv``: the SPIR-V extension (:func:`lab03_mlir.spirv.run.main`)."""
from common.course.notimpl import stubs_as_errors
from common.errors import run_cli

from .run import main

raise SystemExit(run_cli(stubs_as_errors(main)))
