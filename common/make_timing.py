"""``make run``'s clock: run make targets one after another, timed, into a results table.

``python -m common.make_timing --make make roof lab01 lab01-tools lab02 lab03 lab04`` (the ``run`` target of
the Makefile) runs ``make <target>`` for each target in order and writes ``results/make_run.{md,csv,json}``
(or under ``$MLC_RESULTS_DIR``) after every one, so an interrupted run keeps the parts it finished:

- ``wall_min``: wall-clock minutes of the part (``time.monotonic``);
- ``cpu_min``: CPU minutes its processes used, user + system, children included (``getrusage(RUSAGE_CHILDREN)``,
  POSIX ``getrusage``: a child's time counts once it has been waited for, which ``make`` does);
- ``cores_busy``: ``cpu_min / wall_min``, how many cores the part kept busy on average;
- ``load_before``: the 1-minute load average when the part started (``os.getloadavg``): above ~0.5 another job
  shared the machine, and the wall time is longer than on a quiet one;
- ``exit``: the part's exit status (0: passed).

The last row, ``total``, sums them; ``meta.within_budget`` says whether it stayed inside ``--budget-min`` (the
README's "about 30 minutes"). The run stops at the first part that fails and exits with its status, as
``make`` would. The Makefile stays the one home of each part's commands; this module only times them.
"""
from __future__ import annotations

import os
import resource
import subprocess
import time
from collections.abc import Sequence

from . import cli
from .errors import UserError, run_cli

TABLE = "make_run"
DEFAULT_BUDGET_MIN = 30.0


def _children_cpu_s() -> float:
    """User + system CPU seconds of this process's waited-for children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def part_row(target: str, wall_s: float, cpu_s: float, load: float, code: int) -> dict:
    """One row of the table: minutes rounded to 0.001 (0.06 s), ``cores_busy`` to 0.01 (0 for a part under 1 ms)."""
    return {"part": target, "wall_min": round(wall_s / 60, 3), "cpu_min": round(cpu_s / 60, 3),
            "cores_busy": round(cpu_s / wall_s, 2) if wall_s > 1e-3 else 0.0, "load_before": round(load, 2),
            "exit": code}


def total_row(rows: Sequence[dict], wall_s: float, cpu_s: float) -> dict:
    """The ``total`` row: wall and CPU of the whole run, the worst exit status, the first part's load."""
    return part_row("total", wall_s, cpu_s, rows[0]["load_before"] if rows else 0.0,
                    max((r["exit"] for r in rows), key=abs, default=0))


def write(rows: list[dict], wall_s: float, cpu_s: float, targets: Sequence[str], budget_min: float) -> None:
    """Write the table with its ``total`` row and the environment (CPU, ISA, cores, versions)."""
    from .isa import describe
    from .results import write_table
    from .timing import environment

    total = total_row(rows, wall_s, cpu_s)
    meta = {"targets": " ".join(targets), "parts_done": f"{len(rows)} of {len(targets)}",
            "budget_min": budget_min, "within_budget": total["wall_min"] <= budget_min,
            "units": "minutes of wall clock and of CPU (user + system, children included)"}
    write_table("", TABLE, [*rows, total], title="make run, part by part", env=environment(threads=None, **describe()),
                meta=meta, notes="load_before above ~0.5: another job shared the machine during that part.")


def main(argv: Sequence[str] | None = None) -> int:
    p = cli.parser("python -m common.make_timing", __doc__, verbose=None)
    p.add_argument("targets", nargs="+", help="make targets, run in this order")
    p.add_argument("--make", default="make", help="the make program (the Makefile passes $(MAKE))")
    p.add_argument("--budget-min", type=float, default=DEFAULT_BUDGET_MIN,
                   help=f"the run's budget in minutes, recorded as within_budget (default {DEFAULT_BUDGET_MIN:g})")
    args = p.parse_args(argv)
    cli.positive("--budget-min", args.budget_min)
    rows: list[dict] = []
    start, cpu0 = time.monotonic(), _children_cpu_s()
    for i, target in enumerate(args.targets, 1):
        t0, c0, load = time.monotonic(), _children_cpu_s(), os.getloadavg()[0]
        cli.step(i, target, f"make {target} (after {(t0 - start) / 60:.1f} min)")
        try:
            code = subprocess.run([args.make, "--no-print-directory", target]).returncode
        except FileNotFoundError:
            raise UserError(f"--make {args.make}: no such program; give GNU make's path") from None
        rows.append(part_row(target, time.monotonic() - t0, _children_cpu_s() - c0, load, code))
        write(rows, time.monotonic() - start, _children_cpu_s() - cpu0, args.targets, args.budget_min)
        if code:
            cli.step(i, target, f"failed with exit status {code}; the table keeps the {i} parts run")
            return code if code > 0 else 128 - code  # killed by signal N: 128 + N, as a shell says
    total = time.monotonic() - start
    cli.step(len(args.targets) + 1, "total", f"{total / 60:.1f} min (budget {args.budget_min:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
