"""``make run``'s clock: run make targets one after another, timed, into a results table.

``python -m common.make_timing --make make roof lab01 lab01-tools lab02 lab03 lab04`` (the ``run`` target of
the Makefile) runs ``make <target>`` for each target in order and writes ``results/make_run.{md,csv,json}``
(or under ``$MLC_RESULTS_DIR``) after every one, so an interrupted run keeps the parts it finished:

- ``wall_min``: wall-clock minutes of the part (``time.monotonic``);
- ``cpu_min``: CPU minutes its processes used, user + system, children included (``getrusage(RUSAGE_CHILDREN)``,
  POSIX ``getrusage``: a child's time counts once it has been waited for, which ``make`` does);
- ``cores_busy``: ``cpu_min / wall_min``, how many cores the part kept busy on average;
- ``others_cpu_min``: CPU minutes the *other* processes of the machine used meanwhile: the busy time of all
  cores (``/proc/stat``'s first line: user, nice, system, irq, softirq, steal; proc(5)) less ``cpu_min``. Near
  0 on a quiet machine; on 2 cores, a part with ``cores_busy`` 1 and ``others_cpu_min`` near ``wall_min``
  shared the machine with a job as busy as itself, and ran slower than on a quiet one. Empty where there is
  no ``/proc/stat``;
- ``exit``: the part's exit status (0: passed).

The last row, ``total``, is the whole run on the same clocks (its exit: the largest part's);
``meta.within_budget`` says whether it stayed inside ``--budget-min`` (the README's "about 30 minutes").
The run stops at the first part that fails and exits with its status, as ``make`` would; with
``--keep-going`` (the Makefile passes it under ``make -k run``) it runs the other parts too and exits
with the first failure's status. The Makefile stays the one home of each part's commands;
this module only times them.
"""
from __future__ import annotations

import os
import resource
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass

from . import cli
from .errors import UserError, run_cli

TABLE = "make_run"
DEFAULT_BUDGET_MIN = 30.0


def _children_cpu_s() -> float:
    """User + system CPU seconds of this process's waited-for children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def system_busy_s() -> float | None:
    """Busy CPU seconds of all cores since boot (``/proc/stat``, first line: user, nice, system, irq, softirq,
    steal, in ``SC_CLK_TCK`` ticks; guest time is already inside user); None where there is no ``/proc/stat``."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            f = [int(x) for x in fh.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = f
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


@dataclass
class Clock:
    """Wall, own CPU (waited-for children) and machine-wide busy seconds at one moment."""
    wall: float
    cpu: float
    busy: float | None

    @classmethod
    def now(cls) -> "Clock":
        """The clock now: ``time.monotonic()`` seconds, CPU seconds of waited-for children, machine-wide busy CPU
        seconds (None without ``/proc/stat``)."""
        return cls(time.monotonic(), _children_cpu_s(), system_busy_s())


def part_row(target: str, start: Clock, end: Clock, code: int) -> dict:
    """One row of the table from two :class:`Clock` readings: minutes rounded to 0.001 (0.06 s), ``cores_busy``
    to 0.01 (0 for a part under 1 ms)."""
    wall_s, cpu_s = end.wall - start.wall, end.cpu - start.cpu
    others = None if None in (start.busy, end.busy) else round(max(0.0, end.busy - start.busy - cpu_s) / 60, 3)
    return {"part": target, "wall_min": round(wall_s / 60, 3), "cpu_min": round(cpu_s / 60, 3),
            "cores_busy": round(cpu_s / wall_s, 2) if wall_s > 1e-3 else 0.0, "others_cpu_min": others,
            "exit": code}


def write(rows: list[dict], total: dict, targets: Sequence[str], budget_min: float) -> None:
    """Write the table with its ``total`` row and the environment (CPU, ISA, cores, versions)."""
    from .isa import describe
    from .results import write_table
    from .timing import environment

    meta = {"targets": " ".join(targets), "parts_done": f"{len(rows)} of {len(targets)}",
            "budget_min": budget_min, "within_budget": total["wall_min"] <= budget_min,
            "units": "minutes of wall clock and of CPU (user + system, children included)"}
    write_table("", TABLE, [*rows, total], title="make run, part by part", env=environment(threads=None, **describe()),
                meta=meta, notes="others_cpu_min: CPU minutes other processes used during the part (near 0: a quiet "
                                 "machine).")


def _status(code: int) -> int:
    """A part's exit status as this process's: killed by signal N (``-N``) becomes 128 + N, as a shell says."""
    return code if code > 0 else 128 - code


def main(argv: Sequence[str] | None = None) -> int:
    p = cli.parser("python -m common.make_timing", __doc__, verbose=None)
    p.add_argument("targets", nargs="+", help="make targets, run in this order")
    p.add_argument("--make", default="make", help="the make program (the Makefile passes $(MAKE))")
    p.add_argument("--keep-going", action="store_true",
                   help="run every part even after one fails (make -k); exit with the first failure's status")
    p.add_argument("--budget-min", type=float, default=DEFAULT_BUDGET_MIN,
                   help=f"the run's budget in minutes, recorded as within_budget (default {DEFAULT_BUDGET_MIN:g})")
    args = p.parse_args(argv)
    cli.positive("--budget-min", args.budget_min)
    rows: list[dict] = []
    first = Clock.now()
    for i, target in enumerate(args.targets, 1):
        before = Clock.now()
        cli.step(i, target, f"make {target} (after {(before.wall - first.wall) / 60:.1f} min)")
        try:
            code = subprocess.run([args.make, "--no-print-directory", target]).returncode
        except FileNotFoundError:
            raise UserError(f"--make {args.make}: no such program; give GNU make's path") from None
        after = Clock.now()
        rows.append(part_row(target, before, after, code))
        worst = max((r["exit"] for r in rows), key=abs)
        write(rows, part_row("total", first, after, worst), args.targets, args.budget_min)
        if code and not args.keep_going:
            cli.step(i, target, f"failed with exit status {code}; the table keeps the {i} parts run")
            return _status(code)
    failed = [r for r in rows if r["exit"]]
    if failed:
        cli.step(len(args.targets) + 1, "total", f"{len(failed)} part(s) failed: "
                 + ", ".join(f"{r['part']} (exit {r['exit']})" for r in failed))
        return _status(failed[0]["exit"])
    total = time.monotonic() - first.wall
    cli.step(len(args.targets) + 1, "total", f"{total / 60:.1f} min (budget {args.budget_min:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
