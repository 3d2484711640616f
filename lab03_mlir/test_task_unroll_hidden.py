"""Hidden graded tests of Task 3.2 (``lab03.unroll``): random bounds, steps and factors.

Listed in ``lab03_mlir/tasks.toml`` as ``hidden_tests``: the grader runs this file, the student handout
leaves it out. The property: for any constant bounds and factor, the unrolled kernel computes exactly
what the loop computes (same order), and no innermost loop of one iteration is left. The ``@example`` cases run
every time (edge cases a random draw may miss).
"""
from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lab03_mlir import unroll
from lab03_mlir.testing import check_numbers, kernel, loops, loops_message, module

pytestmark = pytest.mark.lab03


@pytest.mark.task("lab03.unroll", points=5)
@settings(max_examples=15, deadline=None)
@given(lb=st.integers(0, 8), trip=st.integers(0, 14), step=st.integers(1, 3), factor=st.integers(1, 6))
@example(lb=3, trip=1, step=1, factor=4)    # a one-iteration loop below the factor: short, left alone
@example(lb=2, trip=10, step=3, factor=4)   # a remainder of 2 iterations at step 3
def test_any_bounds_and_factor_keep_the_numbers(lb, trip, step, factor):
    ub = lb + trip * step
    mod = module(kernel(lb, ub, step))
    unroll.unroll(mod, factor)
    if factor == 1:
        want = [] if trip == 1 else [(lb, step, trip, 0)]
    elif trip < factor:
        want = [(lb, step, trip, 0)]
    else:
        main, rest = divmod(trip, factor)
        want = ([(lb, step * factor, main, 0)] if main > 1 else []) + \
               ([(lb + main * factor * step, step, rest, 0)] if rest > 1 else [])
    assert loops(mod) == want, loops_message(f"unrolling `for i = {lb} to {ub} step {step}` (trip count {trip}) "
                                             f"by {factor}")
    check_numbers(lb, ub, step, factor)
