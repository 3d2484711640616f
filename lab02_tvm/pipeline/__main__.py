"""``python -m lab02_tvm.pipeline``: see :mod:`lab02_tvm.pipeline`."""
from common.errors import run_cli

from .run import main

raise SystemExit(run_cli(main))
