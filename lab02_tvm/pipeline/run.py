"""The Lab 02 pipeline's entry point: settings once, then every step of :data:`~lab02_tvm.pipeline.steps.STEPS` that the run selects."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from common.budget import ci
from common.cli import step
from common.results import results_dir

from . import __doc__ as PIPELINE_DOC
from ..tuning.records import rel
from .settings import Settings, parse_args, resolve
from .steps import (Products, choose_records, compare, cross, import_models, import_onnx, layout, manual_schedule,
                    peers, relax_passes, roofline, rpc, search_spaces, struct_info, tir_pass, tune_and_build,
                    untuned_build, vs_ort)


# ---------------------------------------------------------------------------------------------
# The table of steps and which of them a run selects
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One entry of :data:`STEPS`.

    Attributes:
        name: the name ``--only`` and ``--skip-<name>`` take.
        run: the step function ``(settings, products) -> None``.
        needs: steps that must run for this one to run (``--skip-passes`` drops ``untuned``).
        uses: steps whose results it shows when they ran (``--only`` pulls them in).
        skippable: has a ``--skip-<name>`` flag.
        always: runs in every run, ``--only`` or not (``import``, ``types``).
        hidden: not selectable; runs when a running step needs it.
    """

    name: str
    run: Callable
    needs: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    skippable: bool = True
    always: bool = False
    hidden: bool = False


#: The seed's steps in the order they run (step 6's records choice prints before step 5: the
#: hand schedule's tuned point reads the chosen records).
STEPS = (
    Step("import", import_models, skippable=False, always=True),
    Step("onnx", import_onnx),
    Step("types", struct_info, needs=("import",), skippable=False, always=True),
    Step("passes", relax_passes, needs=("import",)),
    Step("untuned", untuned_build, needs=("passes",)),
    Step("records", choose_records, needs=("import",), skippable=False, hidden=True),
    Step("schedule", manual_schedule, needs=("records", "tuning")),
    Step("tuning", tune_and_build, needs=("records", "passes")),  # the tuning module is built with the pass list
    Step("compare", compare, uses=("untuned", "tuning", "schedule"), skippable=False),
    Step("cross", cross, needs=("passes",)),
    Step("rpc", rpc, needs=("tuning",)),
    Step("tir-pass", tir_pass, needs=("untuned",)),
    Step("roofline", roofline, uses=("untuned", "tuning")),
    Step("peers", peers, uses=("tuning",)),
    Step("layout", layout, needs=("passes",)),
    Step("spaces", search_spaces, needs=("tuning",)),
    Step("vs-ort", vs_ort, needs=("tuning",)),
)

#: Steps a run can drop (``--skip-<step>``) and select (``--only``).
SKIPPABLE = tuple(s.name for s in STEPS if s.skippable)
SELECTABLE = tuple(s.name for s in STEPS if not s.hidden)


def select_steps(only: set[str] | None, skip: set[str]) -> frozenset[str]:
    """The steps of a run, in :data:`STEPS`' terms.

    Without ``only``: every step but the skipped ones. With ``only``: those steps, the steps they
    need and the steps whose results they use (``python -m lab02_tvm.pipeline --only roofline``
    builds untuned and tuned first). Either way a step whose ``needs`` do not all run does not run,
    and a hidden step runs only when a running step needs it.
    """
    by = {s.name: s for s in STEPS}
    if only is None:
        want = {s.name for s in STEPS if not s.hidden}
    else:
        want, todo = set(), [*only, *(s.name for s in STEPS if s.always)]
        while todo:
            n = todo.pop()
            if n not in want and n not in skip:  # a skipped step pulls in nothing it would have needed
                want.add(n)
                todo += [*by[n].needs, *by[n].uses]
    want -= skip
    changed = True
    while changed:  # drop what lost a prerequisite; pull in the hidden steps still needed
        changed = False
        for s in STEPS:
            if s.name in want and not set(s.needs) <= (want | {h.name for h in STEPS if h.hidden}):
                want.discard(s.name)
                changed = True
        hidden = {n for s in STEPS if s.name in want for n in s.needs if by[n].hidden}
        for h in (s.name for s in STEPS if s.hidden):
            if (h in hidden) != (h in want):
                (want.add if h in hidden else want.discard)(h)
                changed = True
    return frozenset(want)


def describe(s: Settings) -> str:
    """The setup line's tail: CI budgets, quick, the steps that do not run."""
    off = sorted(set(SELECTABLE) - s.steps)
    return (f"{' (CI budgets)' if ci() else ''}{' (quick)' if s.quick else ''}"
            f"{', skipping ' + ', '.join(off) if off else ''}")


def settings(argv: Sequence[str] | None = None) -> Settings:
    """The run's :class:`Settings` from a command line (parsed, steps selected, budgets and host resolved).

    Raises:
        UserError: bad command line, or ``MLC_CPU`` names a CPU this host cannot execute (exit 2).
    """
    doc = PIPELINE_DOC.split("\n\n")
    args = parse_args(argv, skippable=SKIPPABLE, selectable=SELECTABLE, doc=PIPELINE_DOC, epilog="\n\n".join(doc[1:3]))
    return resolve(args, select_steps(args.only, args.skip))


def _roof_for_this_host(quick: bool) -> None:
    """The roof the tables' % of peak divide by: when none is cached for this CPU (``make run`` measures it first;
    a roof of another CPU is ignored), measure it now (``python -m common.roof``'s budgets: 1 + 1 s with
    ``--quick``, else 6 + 3 s) and cache it in the results folder, so no table says "roof None"."""
    from common import roof

    if roof.cached_roof() is not None:
        return
    secs, bw_secs = (1.0, 1.0) if quick else (6.0, 3.0)
    measured = roof.measure_roof(secs, bw_secs)
    path = roof.save_roof(measured)
    step(0, "roof", f"none cached for this CPU: measured {secs + bw_secs:.0f} s, FMA peak {measured['peak_gflops']} "
                    f"GFLOP/s, {measured['bandwidth_gbs']} GB/s -> {rel(path)}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the selected Lab 02 steps in order; returns 0 (a gate raises ``GateError``: exit 1 through ``run_cli``).

    Raises:
        UserError: bad command line, or ``MLC_CPU`` names a CPU this host cannot execute (exit 2).
    """
    s = settings(argv)
    t_start = time.perf_counter()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import tvm  # noqa: F401  (import before torch threads are fixed)
    from common.course.notimpl import naming_stubs
    from common.timing import set_torch_threads, tvm_threads

    set_torch_threads(s.threads)
    step(0, "setup", f"Lab 02 - TVM {tvm.__version__}, target {s.target}, {s.threads} thread(s), models "
                     f"{list(s.models)}{describe(s)}")
    _roof_for_this_host(s.quick)
    products = Products()
    with tvm_threads(s.threads):
        for st in STEPS:
            if s.runs(st.name):
                with naming_stubs(st.name, skip=f"--skip-{st.name}" if st.skippable else None):  # the handout
                    st.run(s, products)
    step(15, "done", f"Lab 02 in {(time.perf_counter() - t_start) / 60:.1f} min: tables and plots under {rel(results_dir('lab02'))}/")
    return 0
