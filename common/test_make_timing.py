"""``python -m common.make_timing``: each make target timed into ``make_run``, stopping at the first failure.

The reference is the clock and the exit statuses the test's own Makefile fixes: a part that sleeps 0.3 s takes at
least 0.3 s of wall time and next to no CPU; a part that spins 0.3 s of CPU uses at least most of it (``getrusage``
counts in clock ticks, so 0.25 s is the bound; minutes are rounded to 0.001, 0.03 s either way); a part whose
recipe exits 3 stops the run with make's status for it, 2 (GNU make manual, "How to Run make": 2 when make
encounters an error).
"""
from __future__ import annotations

import shutil

import pytest

from common import make_timing
from common.errors import UserError
from common.results import read_table

MAKEFILE = """\
nap:
\t@sleep 0.3
spin:
\t@python3 -c "$$SPIN"
fail:
\t@exit 3
elsewhere:
\t@setsid python3 -c "$$SPIN; open('spun', 'w').close()" < /dev/null > /dev/null 2>&1 &
\t@while [ ! -e spun ]; do sleep 0.02; done
"""
SPIN = "import time; t = time.process_time(); exec('while time.process_time() - t < 0.3: pass')"


@pytest.fixture
def project(tmp_path, monkeypatch):
    if shutil.which("make") is None:
        pytest.fail("GNU make is required (the README's two commands run it): apt-get install make")
    (tmp_path / "Makefile").write_text(MAKEFILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLC_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("SPIN", SPIN)
    return tmp_path


def test_each_part_is_timed_and_the_table_has_a_total(project):
    assert make_timing.main(["nap", "spin", "--budget-min", "5"]) == 0
    doc = read_table(project / "results" / "make_run.json")
    rows = {r["part"]: r for r in doc["rows"]}
    assert list(rows) == ["nap", "spin", "total"]
    seconds = {part: (r["wall_min"] * 60, r["cpu_min"] * 60) for part, r in rows.items()}
    assert seconds["nap"][0] >= 0.3 - 0.03 and seconds["nap"][1] < 0.25 - 0.03
    assert seconds["spin"][1] >= 0.25 - 0.03 and rows["spin"]["cores_busy"] > rows["nap"]["cores_busy"]
    assert seconds["total"][0] >= seconds["nap"][0] + seconds["spin"][0] - 0.06
    assert all(r["exit"] == 0 for r in rows.values())
    assert doc["meta"]["within_budget"] is True and doc["meta"]["parts_done"] == "2 of 2"
    assert doc["env"]["vector_isa"] and doc["env"]["cpu"]


def test_cpu_used_by_other_processes_is_counted_apart(project):
    """``elsewhere`` starts a spinner in its own session (``setsid``: not a child make waits for, so not in the
    part's ``cpu_min``) and waits for it: its 0.3 s of CPU show in ``others_cpu_min`` (from ``/proc/stat``)."""
    assert make_timing.main(["elsewhere"]) == 0
    row = read_table(project / "results" / "make_run.json")["rows"][0]
    assert row["others_cpu_min"] * 60 >= 0.25 - 0.03 and row["cpu_min"] * 60 < 0.25 - 0.03


def test_the_first_failing_part_stops_the_run_with_its_status(project):
    assert make_timing.main(["nap", "fail", "spin"]) == 2
    doc = read_table(project / "results" / "make_run.json")
    assert [(r["part"], r["exit"]) for r in doc["rows"]] == [("nap", 0), ("fail", 2), ("total", 2)]
    assert doc["meta"]["parts_done"] == "2 of 3"


def test_keep_going_runs_every_part_and_exits_with_the_first_failure(project):
    assert make_timing.main(["fail", "nap", "--keep-going"]) == 2
    doc = read_table(project / "results" / "make_run.json")
    assert [(r["part"], r["exit"]) for r in doc["rows"]] == [("fail", 2), ("nap", 0), ("total", 2)]
    assert doc["meta"]["parts_done"] == "2 of 2"


def test_a_missing_make_program_is_one_line(project):
    with pytest.raises(UserError, match="--make no-such-make: no such program"):
        make_timing.main(["nap", "--make", "no-such-make"])
    with pytest.raises(UserError, match="--budget-min must be > 0"):
        make_timing.main(["nap", "--budget-min", "0"])
