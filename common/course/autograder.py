"""The Gradescope autograder bundle: ``python -m common.course autograder --out DIR`` writes ``DIR/autograder.zip``.

It follows Gradescope's autograder specification (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
the zip holds at its root

- ``setup.sh``: run once, as root, when Gradescope builds the autograder's Docker image (Ubuntu; pick the
  22.04 base image, whose archive has Python 3.11). It installs Python (the version ``pyproject.toml``'s
  ``requires-python`` names, from Ubuntu's archive when the image has none) and the project into ``/autograder/source/.venv`` the way ``make setup`` does:
  ``pip install -c requirements.lock -e .`` from PyPI, plus PyTorch's CPU wheel index when the lock pins a
  ``+cpu`` build (:data:`TORCH_CPU_INDEX`: those wheels exist nowhere else), then the project's own
  required-packages check;
- ``run_autograder``: run for every submission (working directory ``/autograder``; Gradescope unzips the
  bundle into ``/autograder/source`` and puts the student's files in ``/autograder/submission``). It copies the
  submission into a work folder laid out like the handout (:func:`common.course.submission.layout`), runs the same grader as
  ``make grade`` (``python -m common.course grade``: the per-test timeout and ``--hypothesis-seed=0`` of
  :mod:`common.course.grade`) on the bundle's labs, and merges the per-lab ``results.json`` into
  ``/autograder/results/results.json`` (:func:`merge`), written atomically (:func:`common.results.atomic_write`).
  Nothing downloads while it runs (Hugging Face offline, pip without an index). Every path has an environment
  override so the script runs outside Gradescope: ``AUTOGRADER_ROOT`` (default ``/autograder``), and
  ``AUTOGRADER_SOURCE``, ``AUTOGRADER_SUBMISSION``, ``AUTOGRADER_RESULTS``, ``AUTOGRADER_PYTHON`` (default
  ``<source>/.venv/bin/python``);
- the reference's tree: its files as :func:`common.course.sources.source_files` lists them, each task file as the
  handout has it (the stub: the zip holds no solution, since a submission's code runs where the zip is unpacked
  and could read it) and the hidden tests included (the grader runs them; see
  :meth:`common.course.grade.Reference.load`), without what the
  grader never reads (:data:`LEFT_OUT`: ``results/``, ``data/``, the known-wrong submissions and the course's own
  tests), without caches or ``.git``, and without what ``--out`` holds or an earlier ``autograder.zip``.

``--lab`` (repeatable; default: every lab with tasks) picks the labs ``run_autograder`` grades; ``--timeout`` the
seconds per graded test (default :data:`common.course.grade.DEFAULT_TIMEOUT_S`). The zip is deterministic (sorted
entries, a fixed date, mode 755 for the two scripts and the reference's executables, 644 otherwise). A submission
is found (:func:`common.course.submission.layout`) where the handout puts its files, in a folder up to three levels below (a zip of the
repository), or, for a file uploaded alone (Gradescope's drag and drop drops the folders), by its name when
exactly one student file has that name. The grader stops a lab's run after ``max(600, 20 * timeout)`` seconds;
Gradescope's own autograder timeout (a setting of the assignment) should leave room for every lab's.

``run_autograder`` also calls this module: ``python -m common.course.autograder layout SUB --out DIR`` and
``python -m common.course.autograder results GRADE_DIR --out results.json --lab L... [--exit-status N --log F]``.
When a lab's ``results.json`` is missing (the grader stopped: a bad course, a crash, no submission), the merged
file still lists every task of it at 0, and its output ends with the grader's last lines (once, not per task), so
Gradescope shows why. The messages name the submission ``your submission`` (``--shown-as``), never the script's
temporary folders.

Errors (:class:`~common.errors.UserError`, one ``error:`` line, exit 2): a bad course or a reference without
solutions, an unknown lab, an ``--out`` that is a file or cannot be written or holds the reference's own files
(:func:`common.course.cliargs.clear_of_reference`), a reference file that is named like one of the two scripts.
"""
from __future__ import annotations

import io
import json
import os
import re
import stat
import sys
import tomllib
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from common.cli import writable_folder
from common.errors import UserError
from common.results import atomic_write

from . import content, sources
from .cliargs import clear_of_reference
from .grade import DEFAULT_TIMEOUT_S, HYPOTHESIS_SEED, NOT_COPIED
from .submission import layout
from .tasks import Course, Lab, load_course

SPEC = "https://gradescope-autograders.readthedocs.io/en/latest/specs/"
ZIP_NAME = "autograder.zip"
SETUP, RUN = "setup.sh", "run_autograder"
#: Prefixes of the reference that stay out of the bundle: the grader never reads them.
LEFT_OUT = NOT_COPIED + sources.INSTRUCTOR_ONLY
#: The only index beyond PyPI that ``setup.sh`` may use: PyTorch's CPU wheels, when the lock pins ``torch==X+cpu``.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
_DATE = (1980, 1, 1, 0, 0, 0)

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope's setup.sh for {project}: written by `python -m common.course autograder`, regenerate it, do not edit.
# Spec: {spec}
# Runs once, as root, when Gradescope builds the autograder image (Ubuntu 22.04: its archive has Python {python}):
# Python {python} and the project's packages, pinned by requirements.lock (as `make setup` installs them), into
# <source>/.venv. Grading downloads nothing later.
set -euo pipefail
SOURCE="${{AUTOGRADER_SOURCE:-${{AUTOGRADER_ROOT:-/autograder}}/source}}"
if ! command -v python{python} >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python{python} python{python}-venv
fi
python{python} -m venv "$SOURCE/.venv"
PY="$SOURCE/.venv/bin/python"
"$PY" -m pip install -q --upgrade pip
"$PY" -m pip install -q {pip_args}-c "$SOURCE/requirements.lock" -e "$SOURCE"
cd "$SOURCE"
"$PY" -c "import sys; from common.errors import missing_required as m, required_distributions as r; \\
miss = m(r()); print('setup: missing ' + ', '.join(miss) if miss else 'setup ok'); sys.exit(bool(miss))"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope's run_autograder for {project}: written by `python -m common.course autograder`, regenerate it, do not edit.
# Spec: {spec}
# Grades /autograder/submission with `python -m common.course grade` (labs: {labs_text}; {timeout} s per graded
# test, --hypothesis-seed={seed}) and writes /autograder/results/results.json. Paths: AUTOGRADER_ROOT (default
# /autograder), AUTOGRADER_SOURCE, AUTOGRADER_SUBMISSION, AUTOGRADER_RESULTS, AUTOGRADER_PYTHON.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
SOURCE="${{AUTOGRADER_SOURCE:-$ROOT/source}}"
SUBMISSION="${{AUTOGRADER_SUBMISSION:-$ROOT/submission}}"
RESULTS="${{AUTOGRADER_RESULTS:-$ROOT/results}}"
PY="${{AUTOGRADER_PYTHON:-$SOURCE/.venv/bin/python}}"
LABS=({labs})
TIMEOUT={timeout}
SHOWN_AS="your submission"
# nothing downloads while grading
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PIP_NO_INDEX=1 MPLBACKEND=Agg
export PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$SOURCE${{PYTHONPATH:+:$PYTHONPATH}}"
WORK="$(mktemp -d "${{TMPDIR:-/tmp}}/autograder.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
lab_args=()
for lab in "${{LABS[@]}}"; do lab_args+=(--lab "$lab"); done
cd "$SOURCE" || exit 1
# the student reads "your submission", never this script's folders; no grade without a laid-out submission
"$PY" -m common.course.autograder --root "$SOURCE" layout "$SUBMISSION" --out "$WORK/submission" \\
  --shown-as "$SHOWN_AS" > "$WORK/grade.log" 2>&1 &&
"$PY" -m common.course --root "$SOURCE" grade "$WORK/submission" --out "$WORK/grade" --timeout "$TIMEOUT" \\
  --shown-as "$SHOWN_AS" "${{lab_args[@]}}" >> "$WORK/grade.log" 2>&1
rc=$?
cat "$WORK/grade.log"
"$PY" -m common.course.autograder --root "$SOURCE" results "$WORK/grade" --out "$RESULTS/results.json" \\
  --exit-status "$rc" --log "$WORK/grade.log" --timeout "$TIMEOUT" "${{lab_args[@]}}"
"""


def python_version(root: Path) -> str:
    """``X.Y`` of ``requires-python = ">=X.Y..."`` in ``root/pyproject.toml`` (``3`` when it names none)."""
    path = Path(root) / "pyproject.toml"
    spec = tomllib.loads(path.read_text()).get("project", {}).get("requires-python", "") if path.is_file() else ""
    m = re.search(r">=\s*(\d+\.\d+)", spec)
    return m.group(1) if m else "3"


def extra_index_urls(root: Path) -> list[str]:
    """Indexes beyond PyPI that ``requirements.lock`` needs: :data:`TORCH_CPU_INDEX` for a ``torch==X+cpu`` pin."""
    lock = Path(root) / "requirements.lock"
    text = lock.read_text() if lock.is_file() else ""
    return [TORCH_CPU_INDEX] if re.search(r"^torch==\S+\+cpu\s*$", text, re.M) else []


def pip_index_args(root: Path) -> str:
    """``--extra-index-url URL `` per :func:`extra_index_urls` (one string, each option followed by a space)."""
    return "".join(f"--extra-index-url {u} " for u in extra_index_urls(root))


def bundle_files(course: Course, out: Path | None = None) -> list[str]:
    """The reference files that go into the bundle (sorted): see the module docstring.

    Raises:
        UserError: the reference holds its own ``setup.sh`` or ``run_autograder`` (the bundle writes its own).
    """
    out = out.resolve() if out is not None else None
    keep = []
    for rel in sources.source_files(course.root):
        parts = Path(rel).parts
        if rel.startswith(LEFT_OUT) or sources.is_binary_result(rel) or rel.endswith((".pyc", ".pyo")):
            continue
        if any(p in sources.CACHE_PARTS or p == ".git" or p.endswith(".egg-info") for p in parts):
            continue
        if Path(rel).name == ZIP_NAME or out is not None and (course.root / rel).resolve().is_relative_to(out):
            continue  # a bundle written inside the tree, or what --out holds
        keep.append(rel)
    for name in (SETUP, RUN):
        if name in keep:
            raise UserError(f"the reference has its own {name}: the bundle writes one at the zip's root; rename it")
    return keep


def scripts(course: Course, labs: Sequence[Lab], timeout_s: int = DEFAULT_TIMEOUT_S) -> dict[str, str]:
    """``{"setup.sh": text, "run_autograder": text}`` for ``labs`` (see the module docstring)."""
    project = course.root.name
    pyproject = course.root / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text()).get("project", {}).get("name", project)
    fill = {"project": project, "spec": SPEC, "python": python_version(course.root), "timeout": timeout_s,
            "pip_args": pip_index_args(course.root), "seed": HYPOTHESIS_SEED,
            "labs": " ".join(lab.dir for lab in labs), "labs_text": ", ".join(lab.dir for lab in labs)}
    return {SETUP: SETUP_SH.format(**fill), RUN: RUN_AUTOGRADER.format(**fill)}


def _entry(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (stat.S_IFREG | mode) << 16
    return info


@dataclass
class Bundle:
    """What :func:`write` wrote: the zip, its entries (sorted), the labs it grades."""

    path: Path
    entries: list[str]
    labs: list[str]


def write(root: str | Path, out: str | Path, *, labs: Iterable[str] | None = None,
          timeout_s: int = DEFAULT_TIMEOUT_S) -> Bundle:
    """Write ``out/autograder.zip`` for the reference at ``root`` (see the module docstring).

    Raises:
        UserError: a bad course, a reference without solution blocks, an unknown lab, an unwritable ``out``.
    """
    course = load_course(root)
    chosen = [course.lab(name) for name in labs] if labs else list(course.labs)
    chosen = list(dict.fromkeys(chosen))
    out = writable_folder(clear_of_reference(course.root, out, sources.source_files(course.root)))
    files = bundle_files(course, out)
    scan = content.check(course, files)  # a reference, not a handout: its stubs and hidden tests are what grades
    stubbed = set(course.student_files)
    texts = scripts(course, chosen, timeout_s)
    buf = io.BytesIO()
    entries = sorted([*files, *texts])
    with zipfile.ZipFile(buf, "w") as zf:
        for rel in entries:
            if rel in texts:
                zf.writestr(_entry(rel, 0o755), texts[rel])
            else:
                mode = 0o755 if os.access(course.root / rel, os.X_OK) else 0o644
                data = (content.handout_text(course, rel, scan).encode() if rel in stubbed
                        else (course.root / rel).read_bytes())  # no solution in the zip: a student's code could read it
                zf.writestr(_entry(rel, mode), data)
    try:
        path = atomic_write(out / ZIP_NAME, buf.getvalue())
    except OSError as exc:
        raise UserError(f"cannot write {out / ZIP_NAME}: {exc.strerror or exc}") from None
    return Bundle(path=path, entries=entries, labs=[lab.dir for lab in chosen])




def _missing_lab(lab: Lab, rc: int | None, timeout_s: int) -> dict:
    """A lab's results when the grader wrote none: every task 0, each saying so (the grader's last lines are in
    the merged output, once: :func:`collect`)."""
    why = f"not graded: the grader stopped (exit status {rc}) before writing this lab's results"
    tests = [{"name": f"{t.number} {t.title} ({t.id})", "number": t.number, "score": 0, "max_score": t.points,
              "status": "failed", "output": f"{why} (its last lines: at the top of the results)",
              "tags": [lab.dir.split("_")[0], t.id], "visibility": "visible",
              "extra_data": {"task": t.id, "hypothesis_seed": HYPOTHESIS_SEED, "replay": None, "tests": []}}
             for t in lab.tasks]
    return {"score": 0, "execution_time": 0.0, "output": f"{lab.title}: 0/{sum(t.points for t in lab.tasks)} "
            f"points ({why})", "extra_data": {"lab": lab.dir, "hypothesis_seed": HYPOTHESIS_SEED,
                                              "timeout_s": timeout_s, "grader_exit_status": rc},
            "tests": tests}


def merge(per_lab: Sequence[dict], *, timeout_s: int = DEFAULT_TIMEOUT_S, exit_status: int | None = None) -> dict:
    """One Gradescope ``results.json`` object from the per-lab ones (:func:`common.course.grade.results_json`):
    the scores and times added, the tests in lab order, one output line per lab (the ignored files once)."""
    lines, ignored = [], None
    for r in per_lab:
        head, *rest = (r.get("output") or "").splitlines() or [""]
        lines.append(head)
        for ln in rest:
            if ln.startswith("Ignored") and ignored is None:
                ignored = ln
    if ignored:
        lines.append(ignored)
    return {"score": sum(r["score"] for r in per_lab),
            "execution_time": round(sum(r.get("execution_time", 0) for r in per_lab), 1),
            "output": "\n".join(lines), "output_format": "text", "visibility": "visible",
            "stdout_visibility": "hidden",
            "extra_data": {"labs": {r["extra_data"]["lab"]: r["extra_data"] for r in per_lab},
                           "hypothesis_seed": HYPOTHESIS_SEED, "timeout_s": timeout_s,
                           "grader_exit_status": exit_status},
            "tests": [t for r in per_lab for t in r["tests"]]}


def collect(course: Course, grade_dir: str | Path, labs: Iterable[str] | None = None, *, exit_status: int | None = None,
            log: str = "", timeout_s: int = DEFAULT_TIMEOUT_S) -> dict:
    """The merged results of ``grade_dir/<lab>/results.json`` for ``labs`` (default: all); a lab without its file
    (or with one that is not JSON) counts as 0 (see :func:`_missing_lab`), and the merged output then ends with
    the grader's last lines, once."""
    chosen = [course.lab(name) for name in labs] if labs else list(course.labs)
    per_lab, missing = [], False
    for lab in dict.fromkeys(chosen):
        path = Path(grade_dir) / lab.dir / "results.json"
        try:
            per_lab.append(json.loads(path.read_text()))
        except (OSError, json.JSONDecodeError):
            per_lab.append(_missing_lab(lab, exit_status, timeout_s))
            missing = True
    data = merge(per_lab, timeout_s=timeout_s, exit_status=exit_status)
    if missing:
        tail = "\n".join(log.strip().splitlines()[-5:]) or "(no output)"
        data["output"] += f"\nThe grader's last lines:\n{tail}"
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m common.course.autograder {layout,results}``: the two steps ``run_autograder`` runs itself."""
    from common.cli import parser, positive

    p = parser("python -m common.course.autograder", __doc__)
    p.add_argument("--root", default=str(Path(__file__).resolve().parents[2]), help="the reference (the bundle)")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=type(p))
    s = sub.add_parser("layout", help="copy a submission into a folder laid out like the handout")
    s.add_argument("sub")
    s.add_argument("--out", required=True)
    s.add_argument("--shown-as", help="how messages name SUB (default: as given)")
    s = sub.add_parser("results", help="merge the grader's per-lab results.json into one for Gradescope")
    s.add_argument("grade_dir")
    s.add_argument("--out", required=True)
    s.add_argument("--lab", action="append")
    s.add_argument("--exit-status", type=int, default=None)
    s.add_argument("--log", default=None)
    s.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S)
    args = p.parse_args(argv)
    course = load_course(args.root)
    if args.cmd == "layout":
        for line in layout(course, args.sub, args.out, args.shown_as):
            print(line)
        return 0
    positive("--timeout", args.timeout)
    log = Path(args.log).read_text(errors="replace") if args.log and Path(args.log).is_file() else ""
    data = collect(course, args.grade_dir, args.lab, exit_status=args.exit_status, log=log, timeout_s=args.timeout)
    try:
        atomic_write(args.out, json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise UserError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    print(f"results: {data['score']}/{sum(t['max_score'] for t in data['tests'])} points ({args.out})")
    return 0


if __name__ == "__main__":
    from common.errors import run_cli

    sys.exit(run_cli(main))
