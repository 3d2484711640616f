"""``python -m common.grading``: the instructor's commands over graded submissions.

    python -m common.grading summary REPORT... [--out DIR]

``summary``: one table of a class from the grader's reports (REPORT: a Gradescope ``results.json`` or a
``make grade`` output folder holding ``<lab>/results.json``; ``NAME=REPORT`` names its row): score per task and submission, the totals,
per-task mean and median, Markdown on stdout; ``--out DIR`` also writes ``summary.md``, ``summary.csv``,
``summary.json`` and a histogram PNG per task (see :mod:`common.course.summary`). A submission whose
reports lack a task others have shows it ``missing`` with a partial total, and one ``warning:`` line on
stderr names its reports and the labs they lack; a lab of this checkout's course that no report grades is
named in one more ``warning:`` line and under the table (it is in neither the table nor its total). A submission
whose reports flag something for a human (``extra_data.review``: a lab not graded for tampering, a refused task file,
no task file of a lab; or files the grade ignored) has its reasons in a last ``review`` column and one
``warning: <name>: review: ...`` line on stderr.

Exit codes (:func:`common.errors.run_cli`): 0 ok, 2 bad input (one ``error:`` line: a missing report,
a file that is not a Gradescope results.json, ...).
"""
from __future__ import annotations

import sys
from pathlib import Path

from common.cli import parser
from common.errors import UserError, run_cli


def main(argv=None) -> int:
    p = parser("python -m common.grading", __doc__, verbose=None)
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=type(p))
    s = sub.add_parser("summary", help="one table of a class: score per task and submission, mean, median")
    s.add_argument("reports", nargs="+", metavar="REPORT", help="results.json files or make grade --out folders; NAME=REPORT names the row")
    s.add_argument("--out", help="also write summary.md, summary.csv, summary.json and histograms here")
    args = p.parse_args(argv)
    from common.cli import writable_folder
    from common.course import summary
    from common.course.tasks import load_course

    if args.out:
        writable_folder(args.out)  # before anything is printed
    table = summary.collect(args.reports)
    try:  # the labs of this checkout's course that no report grades (named, never guessed as 0)
        table.ungraded = summary.ungraded_labs(table, load_course(Path(__file__).resolve().parents[1]))
    except UserError:  # no course sheets in this checkout: nothing to name
        pass
    for line in table.warnings():
        print(line, file=sys.stderr)
    sys.stdout.write(summary.markdown(table))
    if args.out:
        paths = summary.write(table, args.out)
        print(f"\nwrote {len(paths)} files under {args.out}: summary.md, summary.csv, summary.json, "
              f"{len(paths) - 3} histograms")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
