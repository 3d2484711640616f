"""``python -m common.course``: the course edition's commands.

    python -m common.course sheet [--check]                 write every lab's TASKS.md (--check: exit 1 if stale)
    python -m common.course student [--out build/student] [--classroom]   the student handout (make student)
    python -m common.course grade SUB [--out build/grade/<SUB's name>] [--lab lab01] [--task 1.3] [--timeout 120] [--shown-as NAME]   (make grade)
    python -m common.course gate [--all] [--json FILE]      the release gate (the suite runs it without --all)
    python -m common.course autograder [--out build/autograder] [--lab lab01] [--timeout 120]   Gradescope's autograder.zip
    python -m common.course classroom [--out build/classroom] [--timeout 120] [--minutes 10]   GitHub Classroom's workflow

``--root DIR`` (before the command) names another reference tree than this checkout.

``grade`` prints each lab's score, then one ``warning: <lab>: <reason>`` line on stderr per reason a human must
review the lab's grade (results.json's ``extra_data.review``: not graded for tampering, a task file refused, no task
file of the lab in the submission); the grade was made, so it exits 0 all the same.

Exit codes (the project's convention, :func:`common.errors.run_cli`): 0 ok, 1 a gate failed or a sheet
is stale, 2 bad input (one ``error:`` line).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from common.cli import parser
from common.errors import GateFailed, UserError, run_cli

from .cliargs import file_target
from .tasks import load_course

ROOT = Path(__file__).resolve().parents[2]
#: What a handout cannot do, per command (it lacks the hidden tests and the solutions).
NEEDS_REFERENCE = {"student": "student is made from the instructor's reference (--root <its checkout>)",
                   "autograder": "autograder is made from the instructor's reference (--root <its checkout>)",
                   "gate": "the release gate runs in the instructor's reference repository: run it there (or "
                           "give --root <its checkout>)"}


def main(argv=None) -> int:
    p = parser("python -m common.course", __doc__, verbose=None)
    p.add_argument("--root", default=str(ROOT), help="the reference's repository root (default: this checkout)")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=type(p))
    s = sub.add_parser("sheet", help="write every lab's TASKS.md from its tasks.toml")
    s.add_argument("--check", action="store_true", help="write nothing; exit 1 if a sheet is stale")
    s = sub.add_parser("student", help="write the student handout (a fresh git repository)")
    s.add_argument("--out", default="build/student", help="where (default build/student)")
    s.add_argument("--classroom", action="store_true",
                   help="also write the GitHub Classroom workflow (.github/workflows/classroom.yml) into it")
    s = sub.add_parser("grade", help="grade a submission folder")
    s.add_argument("sub", help="the submission: a folder laid out like the handout (or holding such a folder, up "
                   "to three levels down, as a repository's zip does)")
    s.add_argument("--out", help="where <lab>/results.json and results.md go (default build/grade/<SUB's name>)")
    s.add_argument("--lab", action="append", help="grade only this lab (lab01 or lab01_onnx); repeatable")
    s.add_argument("--task", action="append", help="grade only this task (id or number, like 1.3); repeatable")
    s.add_argument("--timeout", type=int, default=120, help="seconds per graded test (default 120)")
    s.add_argument("--shown-as", help="how messages name SUB (default: as given; the Gradescope autograder: "
                   "'your submission')")
    s = sub.add_parser("gate", help="the release gate: handout, reference, stubs, wrong submissions")
    s.add_argument("--all", action="store_true", help="stub every task one at a time and grade each wrong submission's whole lab (the suite: one lab "
                        "stubbed, each wrong submission's task alone)")
    s.add_argument("--json", help="also write the gate's findings as JSON here")
    s = sub.add_parser("autograder", help="write the Gradescope autograder bundle (autograder.zip)")
    s.add_argument("--out", default="build/autograder", help="the folder of autograder.zip (default build/autograder)")
    s.add_argument("--lab", action="append", help="grade only this lab (lab01 or lab01_onnx); repeatable; default all")
    s.add_argument("--timeout", type=int, default=120, help="seconds per graded test (default 120)")
    s = sub.add_parser("classroom", help="write the GitHub Classroom workflow (.github/workflows/classroom.yml)")
    s.add_argument("--out", default="build/classroom", help="the folder that gets .github/ (default build/classroom)")
    s.add_argument("--timeout", type=int, default=120, help="seconds per graded test (default 120)")
    s.add_argument("--minutes", type=int, default=10, help="minutes per task step (default 10)")
    args = p.parse_args(argv)
    root = Path(args.root)
    if args.cmd in ("student", "gate", "autograder"):
        course = load_course(root)
        if course.hidden_files and not all((course.root / f).is_file() for f in course.hidden_files):
            raise UserError(f"{course.root} is a student handout (its hidden tests are absent): "
                            f"{NEEDS_REFERENCE[args.cmd]}")
    if args.cmd == "autograder":
        from common.cli import positive

        from . import autograder
        positive("--timeout", args.timeout)
        b = autograder.write(root, args.out, labs=args.lab, timeout_s=args.timeout)
        print(f"autograder: {b.path} ({len(b.entries)} files; grades {', '.join(b.labs)}; {args.timeout} s per test)")
        return 0
    if args.cmd == "classroom":
        from common.cli import positive

        from . import classroom
        positive("--timeout", args.timeout)
        positive("--minutes", args.minutes)
        course = load_course(root)
        path = classroom.write(course, args.out, timeout_s=args.timeout, step_minutes=args.minutes)
        print(f"classroom: {path} ({len(course.tasks)} task steps, {sum(t.points for t in course.tasks.values())} points)")
        return 0
    if args.cmd == "sheet":
        from . import sheet
        course = load_course(root)
        if args.check:
            stale = sheet.stale(course)
            for rel in stale:
                print(f"stale: {rel} (run python -m common.course sheet)", file=sys.stderr)
            return 1 if stale else 0
        for rel in sheet.write(course):
            print(f"wrote {rel}")
        return 0
    if args.cmd == "student":
        from . import release
        t0 = time.perf_counter()
        extra = None
        if args.classroom:
            from . import classroom
            extra = {classroom.WORKFLOW: classroom.workflow(load_course(root)).encode()}
        h = release.build(root, args.out, extra=extra)
        stubs = ", ".join(f"{k} ({v})" for k, v in sorted(h.stubs.items()))
        print(f"handout: {h.out} ({h.files} files, one commit; {time.perf_counter() - t0:.1f} s)")
        print(f"stubbed solution blocks: {stubs}; hidden-test blocks dropped: {h.hidden_blocks}; "
              f"files left out: {len(h.left_out)}")
        return 0
    if args.cmd == "grade":
        from common.cli import made_folder, positive

        from . import grade, submission
        from .cliargs import clear_of_reference, folder_target, grade_owner, submission_folder
        positive("--timeout", args.timeout)
        ref = grade.Reference.load(root)
        chosen, wanted = grade.select(ref.course, args.lab, args.task)  # bad input first: nothing is made before
        submission_folder(args.sub, args.shown_as)
        out = args.out or f"build/grade/{Path(args.sub).resolve().name}"
        folder_target(clear_of_reference(ref.course.root, out, ref.files, what="the graded course tree"))
        owner = grade_owner(out, args.sub)  # another submission's grade there: refused before any work
        with made_folder(out) as out, submission.laid_out(ref.course, args.sub, grade.task_files(chosen, wanted),
                                                          args.shown_as) as (sub, notes):
            for line in notes:
                print(line, file=sys.stderr)
            results = grade.grade(ref, sub, out, labs=args.lab, tasks=args.task, timeout_s=args.timeout)
            if owner is not None:
                from common.results import atomic_write
                atomic_write(owner, f"{Path(args.sub).resolve()}\n")
        for g in results:
            print(f"{g.lab.dir}: {g.score}/{g.max_score} points ({g.report}.json, .md)")
            for t in g.tasks:
                hidden = f" ({t.hidden_unrun} in hidden tests, not run here)" if t.hidden_unrun else ""
                print(f"  {t.task.number} {t.task.id}: {t.score}/{t.task.points}{hidden}")
        ignored = results[0].ignored if results else []
        if ignored:
            print("ignored (not part of the grade): " + "; ".join(ignored))
        sys.stdout.flush()  # the scores first, then what needs a human (the grade was made: exit 0 all the same)
        for g in results:
            for reason in g.review:
                print(f"warning: {g.lab.dir}: {reason}", file=sys.stderr)
        return 0
    from . import gate
    if args.json:
        file_target(args.json, "--json")  # before the gate's minutes, not after
    findings = gate.run_gate(root, all_tasks=args.all)
    if args.json:
        import json

        from common.results import atomic_write
        try:
            atomic_write(args.json, json.dumps(findings, indent=2) + "\n")
        except OSError as exc:
            raise UserError(f"cannot write --json {args.json}: {exc.strerror or exc}") from None
    print(gate.summary(findings))
    if findings["problems"]:
        raise GateFailed(f"{len(findings['problems'])} problem(s): {findings['problems'][0]}\n"
                         + "\n".join(findings["problems"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
