"""The grader against hostile or broken submissions (:mod:`common.course.grade`) on the demo course: a task
file that rewrites the grader, a test that crashes the process, a property that never returns, a failed
property's failing example in the report, and the report files' mode."""
from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from common.course import content, grade, intake
from common.course.fixtures import MOD, PROJECT, TASKS, TESTS, make_course, make_demo, run_pytest_in

#: The exploit of the review: two lines at the top of a task file that made every graded test pass.
EXPLOIT = 'import common.course.plugin as _p\n_p._outcome = lambda phases: ("passed", "")\n'

#: Graded properties of both tasks (plain asserts, no Counterexample), after the demo's tests.
PROPERTIES = TESTS + '''

from hypothesis import given, strategies as st


@pytest.mark.task("lab09.double", points=1)
@given(st.integers(0, 10**6))
def test_double_prop(x):
    assert mod.double(x) == 2 * x
'''


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo course with a graded property of lab09.double (now 5 points), and its handout."""
    root = tmp_path_factory.mktemp("robust")
    tasks = TASKS.replace("points = 4\n", "points = 5\nnative = true\n", 1)  # mod.py may use ctypes
    return make_demo(root, tests=PROPERTIES, tasks=tasks)


def _submission(demo, tmp_path, mod: str):
    sub = tmp_path / "sub"
    shutil.copytree(demo[1], sub)
    (sub / "lab09_demo/mod.py").write_text(mod)
    return sub


def test_a_task_file_that_rewrites_the_grader_is_not_taken_and_is_listed(demo, tmp_path):
    """The review's exploit on the handout's stubs: full marks before; now 0, the file named with the reason."""
    stub = (demo[1] / "lab09_demo/mod.py").read_text()
    (g,) = grade.grade(demo[0], _submission(demo, tmp_path, EXPLOIT + stub))
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert g.ignored[0] == ("lab09_demo/mod.py: imports common.course.plugin (the grader) at line 1 (and 1 more): "
                            "not graded, left as the handout's"), g.ignored
    assert all(r["outcome"] == "not_implemented" for t in g.tasks for r in t.items)
    assert grade.results_json(g)["extra_data"]["review"] == [  # for a human to look at, not just a 0
        "lab09_demo/mod.py: imports common.course.plugin (the grader) at line 1 (and 1 more)"]
    assert "lab09_demo/mod.py is not graded: it imports common.course.plugin (the grader) at line 1 (and 1 more)" \
        in g.tasks[0].output()


def test_the_plugin_ignores_its_reassigned_module_attributes(demo, tmp_path):
    """Defence in depth: the exploit run by pytest directly (no intake scan) changes no outcome."""
    sub = _submission(demo, tmp_path, EXPLOIT + (demo[1] / "lab09_demo/mod.py").read_text())
    report = tmp_path / "r.jsonl"
    run = run_pytest_in(sub, "--graded", f"--task-report={report}", "-q")
    items = [r for r in map(json.loads, report.read_text().splitlines()) if r["kind"] == "item"]
    assert len(items) == 5 and {r["outcome"] for r in items} == {"not_implemented"}, run.stdout[-2000:]
    assert "task 9.1 lab09.double: 0/5 points: 4 not implemented" in run.stdout, run.stdout[-2000:]


@pytest.mark.parametrize("line, reason", [
    ("from common.course import plugin", "imports common.course.plugin (the grader) at line 2"),
    ("import common.course.notimpl as n\nn.X = 1", "assigns common.course.notimpl.X (monkeypatches"),  # read only
    ("import sys\nsys.modules['common.course.plugin']", "reaches sys.modules (the table of loaded modules) at line 3"),
    ("import _pytest.runner", "imports _pytest.runner (the test framework)"),
    ("from hypothesis import settings", "imports hypothesis.settings (the test framework)"),
    ("import importlib", "imports importlib (the import machinery)"),
    ("import builtins", "imports builtins (the builtins)"),
    ("from . import test_mod", "imports lab09_demo.test_mod (the graded tests)"),
    ("x = __import__('common.course.plugin')", "calls __import__ (the import machinery)"),
    ("exec('import pytest')", "calls exec (code this check cannot read)"),
    ("def f():\n    return f.__globals__", "uses .__globals__"),
    ("import inspect\ninspect.currentframe().f_back.f_locals['x'] = 1", "reaches inspect.currentframe"),
    ("import numpy as np\nnp.testing.assert_allclose = print", "assigns numpy.testing.assert_allclose (monkeypatches"),
    ("import common.gates\ncommon.gates.compare = print", "assigns common.gates.compare (monkeypatches"),
    ("import sys\ngetattr(sys, 'mod' + 'ules')", "calls getattr with a name built at run time"),
    ("import sys\ngetattr(sys, 'modules')", "calls getattr on the module sys"),
    # a reviewer's evasion: an exit hook that rewrote the report file named on the command line to "passed"
    ("import atexit, sys\natexit.register(lambda: open(sys.argv[-1], 'a'))", "imports atexit (exit hooks"),
    ("import sys\np = [a for a in sys.argv if a.startswith('--task-report')]", "reaches sys.argv (the command line"),
    ("import os\nos._exit(0)", "reaches os._exit (ending the test process)"),
    # a second review's evasions: a module under another name, its namespace, hooks and /proc
    ("import sys\ns = sys\ns.modules['x']", "reaches sys.modules (the table of loaded modules) at line 4"),
    ("import sys\nsys.__dict__['mod' + 'ules']", "reaches sys.__dict__ (a module's namespace)"),
    ("import numpy as np\n_n = np\n_n.testing.assert_array_equal = print", "assigns numpy.testing.assert_array_equal"),
    ("import numpy as np\nobject.__setattr__(np.testing, 'x', 1)", "calls __setattr__ on the module numpy.testing"),
    # a third review's: a script block made to run on import, sys through os, names built at run time
    ("__name__ = '__main__'\nif __name__ == '__main__':\n    import pytest", "assigns __name__"),
    ("import os\nos.sys.modules['pytest']", "reaches os.sys.modules (the table of loaded modules)"),
    ("import numpy as np\nb = getattr(np, '__buil' + 'tins__')", "calls getattr with a name built at run time"),
    ("import gc", "imports gc (every live object)"),
    # a loop's name reads what the loop lists: not a dunder, not a name bound elsewhere too, not for setattr
    ("def f(g):\n    return [getattr(g, k) for k in ('__globals__',)]", "calls getattr with a name built at run time"),
    ("def f(g, k):\n    return [getattr(g, k) for k in ('a',)]", "calls getattr with a name built at run time"),
    ("k = '__globals__'\ndef f(g):\n    return [getattr(g, k) for k in ('a',)]", "calls getattr with a name built"),
    ("def f(g, names):\n    return [getattr(g, k) for k in names]", "calls getattr with a name built at run time"),
    ("def f(g, s):\n    match s:\n        case str() as k:\n            pass\n    return [getattr(g, k) for k in ('a',)]",
     "calls getattr with a name built at run time"),
    ("def f(g):\n    for k in ('a',):\n        setattr(g, k, 1)", "calls setattr with a name built at run time"),
    ("x = int.__mro__[1]", "uses .__mro__ (every class through object)"),
    ("b = globals()['__builtins__']", "uses globals()"),
    ("f = compile('1', 'f', 'eval')", "calls compile (code this check cannot read)"),
    ("import types\ntypes.FunctionType(None, {})", "reaches types.FunctionType"),
    ("import weakref\nweakref.finalize(object(), print)", "reaches weakref.finalize (exit hooks"),
    ("import os\nos.readlink(f'/proc/{os.getppid()}/cwd')", "reaches os.readlink"),
    ("x = open('/proc/self/cmdline').read()", "names /proc"),
    ("def f():\n    return f.__closure__", "uses .__closure__ (a function's hidden state)"),
    # raw memory (the grader's key) and foreign calls, outside a task that says native = true
    ("import ctypes\nctypes.string_at(0x1000, 64)", "imports ctypes (raw memory and foreign calls"),
    ("from ctypes import CDLL", "imports ctypes.CDLL (raw memory and foreign calls"),
    ("import _ctypes", "imports _ctypes (raw memory"),
    # a fourth review's: the same through NumPy (every one read or wrote any address in a non-native file)
    ("import numpy as np\nv = np.ctypeslib.c_intp.from_address(1 << 20).value", "reaches numpy.ctypeslib.c_intp"),
    ("import numpy as np\nnp.zeros(1).ctypes._ctypes.string_at(1 << 20, 8)", "uses .ctypes (raw memory"),
    ("from numpy.ctypeslib import ctypes as c\ngetattr(c, 'memmove')", "imports numpy.ctypeslib.ctypes (raw memory"),
    ("class V:\n    __array_interface__ = {'data': (1 << 20, False)}", "defines __array_interface__ (raw memory"),
    ("from numpy.lib import stride_tricks as st\nst.as_strided(1)", "reaches numpy.lib.stride_tricks.as_strided"),
])
def test_the_intake_scan_names_what_a_file_must_not_do(line, reason):
    text = "from __future__ import annotations\n" + line + "\n"
    got = intake.tampering(text, "lab09_demo/mod.py", ("common", "lab09_demo"))
    assert any(reason in g for g in got), got


@pytest.mark.parametrize("code", [
    "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass A:\n    x: float\n"
    "    def __post_init__(self):\n        object.__setattr__(self, 'x', float(self.x))",  # a frozen dataclass
    "def compile(x):\n    return x\ny = compile(1)",                                     # its own compile
    "flags = open('/proc/cpuinfo').read()",                                            # the machine, not a process
    "def f(node):\n    return {k: getattr(node, k) for k in ('op_type', 'domain')}",       # names from a listed tuple
    "def f(node):\n    for k in ['name', 'input']:\n        if hasattr(node, k):\n            return k",
])
def test_the_intake_scan_passes_ordinary_idioms_a_review_saw_refused(code):
    assert intake.tampering(code + "\n", "lab09_demo/mod.py", ("common", "lab09_demo")) == []


def test_a_file_with_a_bom_is_graded_as_python_reads_it_and_bytecode_planted_in_the_tree_scores_0(demo, tmp_path):
    """A correct answer saved with a UTF-8 BOM (Python runs it) gets full marks, where it was "does not compile";
    code that writes a compiled module into the grading tree's ``__pycache__`` (run instead of its source by a
    later import) scores 0, named."""
    answer = (demo[0] / "lab09_demo/mod.py").read_text()
    sub = _submission(demo, tmp_path, "")
    (sub / "lab09_demo/mod.py").write_bytes(b"\xef\xbb\xbf" + answer.encode())
    (g,) = grade.grade(demo[0], sub)
    assert g.scores() == {"lab09.double": 5, "lab09.inc": 4}, g.tasks[0].output()
    plant = ('\nimport os as _os\n_d = _os.path.join(_os.path.dirname(__file__), "__pycache__")\n'
             '_os.makedirs(_d, exist_ok=True)\nopen(_os.path.join(_d, "test_mod.cpython-311-pytest-9.pyc"), "wb")\n')
    (sub / "lab09_demo/mod.py").write_text(answer + plant)
    (g,) = grade.grade(demo[0], sub)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert "lab09_demo/__pycache__/test_mod.cpython-311-pytest-9.pyc appeared in the grading tree" \
        in g.tasks[0].output(), g.tasks[0].output()


def test_the_intake_scan_passes_the_reference_and_the_handout_and_ordinary_code():
    ref = grade.Reference.load(PROJECT)
    own = intake.packages(ref.course.root)
    for rel in ref.course.student_files:
        native = ref.course.native(rel)  # without it, memref.py (ctypes, byte_bounds) would be refused
        assert intake.tampering((PROJECT / rel).read_text(), rel, own, native) == [], rel
        assert intake.tampering(content.handout_text(ref.course, rel, ref.scan), rel, own, native) == [], rel
    ordinary = ("import os, sys\nimport numpy as np\nfrom common.course.notimpl import NotImplementedTask\n"
                "from .core import x\nsys.path.insert(0, '.')\nos.environ['A'] = '1'\ny = np.zeros(3)\ny.shape = (3,)\n"
                "getattr(np, 'float32')\nclass A:\n    def __init__(self):\n        self.test_mode = 1\n")
    assert intake.tampering(ordinary, "lab09_demo/mod.py", own) == []
    native = "import ctypes\nfrom ctypes import c_void_p\np = ctypes.cast(0, c_void_p)\nq = y.ctypes.data\n"
    assert intake.tampering(native, "lab09_demo/mod.py", own, True) == []  # its task says native = true
    assert ref.course.native("lab03_mlir/memref.py") and not ref.course.native("lab04_npu/qnn.py")


def test_a_crash_scores_its_tests_0_and_the_later_tasks_still_run(demo, tmp_path):
    """The review's lab03 case in small: double segfaults (ctypes.string_at(0)); inc, run after it, keeps 4/4."""
    crash = MOD.replace("    return 2 * x\n", "    import ctypes\n    return ctypes.string_at(0)\n")
    (g,) = grade.grade(demo[0], _submission(demo, tmp_path, crash))
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 4}
    double = g.tasks[0]
    assert {r["outcome"] for r in double.items} == {"failed"} and len(double.items) == 4
    assert "- lab09_demo/test_mod.py::test_double (2 pt): failed: crashed the test process (SIGSEGV, signal 11)" \
        in double.output()
    assert "ended early" not in double.output() + g.tasks[1].output()  # every test reported in the end
    assert [r.rc for r in g.runs] == [-11] * 4  # one run per crash; the last crash was in the last test


def test_a_hanging_property_is_stopped_by_the_per_test_timeout(demo, tmp_path):
    """``while True`` from x >= 10**5 on: the signal method never stopped it (Hypothesis caught the timeout
    and replayed the example); the thread method ends the run, the test scores 0, the others still run."""
    hang = MOD.replace("    return 2 * x\n", "    while x >= 10**5:\n        pass\n    return 2 * x\n")
    t0 = time.monotonic()
    (g,) = grade.grade(demo[0], _submission(demo, tmp_path, hang), timeout_s=2)
    assert time.monotonic() - t0 < 40
    assert g.scores() == {"lab09.double": 4, "lab09.inc": 4}
    assert "- lab09_demo/test_mod.py::test_double_prop (1 pt): failed: timed out (over the 2 s limit per test)" \
        in g.tasks[0].output()


def test_a_failed_property_line_shows_its_example_and_the_replay(demo, tmp_path):
    buggy = MOD.replace("    return 2 * x\n", "    return 2 * x if x < 1000 else 2 * x + 1\n")
    out = tmp_path / "out"
    (g,) = grade.grade(demo[0], _submission(demo, tmp_path, buggy), out)
    line = ("- lab09_demo/test_mod.py::test_double_prop (1 pt): failed: AssertionError: assert 2001 == (2 * 1000); "
            "falsifying example: test_double_prop(x=1000); replay: .venv/bin/python -m pytest lab09_demo/test_mod.py::test_double_prop "
            "--hypothesis-seed=0 --hypothesis-profile=course-grade")
    assert line in g.tasks[0].output()
    data = json.loads((out / "lab09_demo/results.json").read_text())
    assert line in data["tests"][0]["output"]
    assert line[2:] in (out / "lab09_demo/results.md").read_text()
    mask = os.umask(0o022)
    os.umask(mask)
    for name in ("results.json", "results.md"):  # not mkstemp's 0600
        assert (out / "lab09_demo" / name).stat().st_mode & 0o777 == 0o666 & ~mask


#: A review's forgery: at exit, append a new ``begin`` and a passed record for every graded test that started
#: to the report (found beside the grading tree), so the reader kept only the forged run: full marks for stubs.
#: (The review hooked the exit with ``weakref.finalize``, which the intake scan now refuses; an object's
#: ``__del__`` at the interpreter's end is another hook no static check sees.)
FORGE = '''
import glob as _glob
import json as _json


def _forge(here=__file__, glob=_glob, json=_json, open=open):
    work = here.rsplit("/", 3)[0]
    for path in glob.glob(work + "/*.jsonl"):
        starts = [r for r in map(json.loads, open(path).read().splitlines()) if r.get("kind") == "start"]
        with open(path, "a") as fh:
            fh.write(json.dumps({"kind": "begin", "pid": 1}) + "\\n")
            for r in starts:
                fh.write(json.dumps({"kind": "item", "nodeid": r["nodeid"], "task": r.get("task"),
                                     "points": r.get("points", 0), "outcome": "passed", "message": ""}) + "\\n")
            fh.write(json.dumps({"kind": "session", "exitstatus": 0}) + "\\n")


class _AtExit:
    def __del__(self, forge=_forge):
        forge()


_at_exit = _AtExit()
'''


def test_a_forged_test_report_scores_the_lab_0_and_says_so(demo, tmp_path):
    """Records not signed with the run's key (handed to the plugin on a pipe) end the reading: the lab scores 0
    with the reason, where the forged run used to stand (full marks for the handout's stubs)."""
    stub = (demo[1] / "lab09_demo/mod.py").read_text()
    sub = _submission(demo, tmp_path, stub + FORGE)
    assert intake.tampering((sub / "lab09_demo/mod.py").read_text(), "lab09_demo/mod.py", ("lab09_demo",)) == []
    (g,) = grade.grade(demo[0], sub)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert "not graded: line" in g.tasks[0].output() and "is not a record the grader's plugin signed" \
        in g.tasks[0].output(), g.tasks[0].output()


def test_code_that_edits_the_grading_tree_scores_its_lab_0_and_says_which_file(demo, tmp_path):
    """A correct answer that also rewrites a test module of the grading tree while the tests run (what a later
    run or another lab would import) scores 0, the file named; before, it kept full marks and altered the rest."""
    edit = '\nopen(__file__.rsplit("/", 1)[0] + "/test_mod.py", "a").write("\\n# edited\\n")\n'
    sub = _submission(demo, tmp_path, (demo[0] / "lab09_demo/mod.py").read_text() + edit)
    (g,) = grade.grade(demo[0], sub)
    assert g.scores() == {"lab09.double": 0, "lab09.inc": 0}
    assert "not graded: lab09_demo/test_mod.py was changed in the grading tree while the lab's tests ran" \
        in g.tasks[1].output(), g.tasks[1].output()
    # the lab's own line says it too, in Gradescope's top-level output and under results.md's table
    assert "Not graded: lab09_demo/test_mod.py was changed" in grade.results_json(g)["output"]
    assert "**Not graded**: lab09_demo/test_mod.py was changed" in grade.results_md(g)
    assert grade.results_json(g)["extra_data"]["review"] == [  # and in a field a script can read
        "not graded: lab09_demo/test_mod.py was changed in the grading tree while the lab's tests ran (every task "
        "scores 0)"]


def test_the_local_check_warns_of_a_file_the_grader_would_refuse_and_a_script_block_is_not_read(tmp_path):
    """``pytest --task`` passes a correct answer that also reads ``sys.argv``; it now says that ``make grade`` would
    take the stub instead. The same read inside ``if __name__ == "__main__":`` (never run on import) is fine."""
    ref = make_course(tmp_path / "ref")
    mod = ref / "lab09_demo/mod.py"
    answer = mod.read_text()
    mod.write_text("import sys\nARGS = sys.argv[1:]\n" + answer)
    run = run_pytest_in(ref, "--task", "lab09.double", "-q")
    assert "warning: lab09_demo/mod.py would not be graded (the grader takes the handout's stub instead): it " \
           "reaches sys.argv (the command line (it names the grader's report)) at line 2" in run.stdout, run.stdout
    script = answer + '\n\nif __name__ == "__main__":\n    import sys\n    print(sys.argv[1:])\n'
    assert intake.tampering(script, "lab09_demo/mod.py", ("lab09_demo",)) == []
    mod.write_text(script)
    assert "would not be graded" not in run_pytest_in(ref, "--task", "lab09.double", "-q").stdout


#: A review's detached process: forked through ctypes (no os.fork for the scan to see), out of the run's session
#: (setsid) and its output pipes, it outlived the grader and rewrote results.json seconds later.
DETACH = '''
import ctypes as _ctypes
import os as _os
import time as _time


def _detach(marker=MARKER):
    libc = _ctypes.CDLL(None)
    if libc.fork() == 0:
        libc.setsid()
        if libc.fork() == 0:
            null = _os.open(_os.devnull, _os.O_RDWR)
            for fd in (0, 1, 2):
                _os.dup2(null, fd)
            _os.closerange(3, 4096)  # pytest's saved copies of the output pipe too: the run's end waits for none
            for _ in range(300):  # until the test says the grade is over (30 s at most)
                if _os.path.exists(marker + ".go"):
                    open(marker, "w").write("outlived the grader")
                    break
                _time.sleep(0.1)
        libc._exit(0)


_detach()
'''


def test_a_process_detached_by_code_under_test_ends_with_the_run(demo, tmp_path):
    """The grader is the child subreaper of its runs: a double-forked, setsid process is reparented to it when its
    parent exits and is killed when the run ends, so it never outlives the grade (it waited for the grade to end,
    then wrote its file)."""
    import time

    marker = tmp_path / "outlived"
    answer = (demo[0] / "lab09_demo/mod.py").read_text()
    sub = _submission(demo, tmp_path, answer + DETACH.replace("MARKER", repr(str(marker))))
    text = (sub / "lab09_demo/mod.py").read_text()
    assert intake.tampering(text, "lab09_demo/mod.py", ("lab09_demo",), True) == []  # its task: native = true
    assert "imports ctypes" in intake.tampering(text, "lab09_demo/mod.py", ("lab09_demo",))[0]  # any other task
    grade.grade(demo[0], sub)
    (tmp_path / "outlived.go").write_text("the grade is over")
    time.sleep(1.0)  # a live process polls every 0.1 s
    assert not marker.exists()
