"""What a submission's Python file may not reach: the grader's static intake scan (:func:`tampering`).

The grader (:mod:`common.course.grade`) takes a student's task files into a copy of the reference and runs
the graded tests in the same process as the course's pytest plugin. Code under test could therefore import
the plugin and rebind how it scores (``common.course.plugin._outcome = ...``), patch pytest, or monkeypatch
the modules the tests compare with. Before a file is taken, :func:`tampering` reads it (:mod:`ast`, nothing
is run) and names what it reaches that code under test has no business reaching; such a file is not graded
(the handout's stub stands in) and the report lists the reason for a human to review.

A check in depth, not a sandbox: the plugin also binds its own helpers at load
(:func:`common.course.plugin._seal`), and code that builds names at run time can still get past a
static scan. Source: the threat is the one Gradescope's autograder documentation warns of (student code
runs with the autograder's permissions); the scan is this project's.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

#: Modules a student file may not import or reach (prefix -> what it is): the grader, the test framework,
#: the import machinery. A file that does is not taken (see :func:`tampering`).
GUARDED = {"common.course": "the grader", "common.grading": "the grader",
           "pytest": "the test framework", "_pytest": "the test framework", "pluggy": "the test framework",
           "hypothesis": "the test framework", "_hypothesis_pytestplugin": "the test framework",
           "pytest_timeout": "the test framework", "conftest": "the tests' configuration",
           "importlib": "the import machinery", "builtins": "the builtins",
           "sys.modules": "the table of loaded modules", "sys._getframe": "the caller's frames",
           "sys.settrace": "the tracer", "sys.setprofile": "the profiler", "sys.meta_path": "the import machinery",
           "sys.path_hooks": "the import machinery", "inspect.currentframe": "the caller's frames",
           "inspect.stack": "the caller's frames", "inspect.getouterframes": "the caller's frames",
           "inspect.trace": "the caller's frames", "gc.get_objects": "every live object",
           "gc.get_referrers": "every live object", "gc.get_referents": "every live object",
           "atexit": "exit hooks (they run after the tests, beside the grader's report)",
           "sys.argv": "the command line (it names the grader's report)", "sys.orig_argv": "the command line",
           "os._exit": "ending the test process", "signal": "signal handlers (the grader's timeouts)",
           "gc": "every live object", "runpy": "running other files (the grader's copy of the course sits beside the submission)",
           "types.FunctionType": "functions made from code objects", "types.CodeType": "code objects",
           "weakref.finalize": "exit hooks (they run after the tests, beside the grader's report)",
           "subprocess": "other programs", "multiprocessing": "other processes", "pty": "other processes",
           "threading.settrace": "the tracer", "threading.setprofile": "the profiler",
           **{f"os.{f}": "other processes or the grader's process" for f in (
               "system", "popen", "fork", "forkpty", "kill", "killpg", "setsid", "getppid", "readlink", "execv",
               "execve", "execl", "execle", "execlp", "execvp", "execvpe", "spawnv", "spawnve", "posix_spawn")}}
#: Native access (module -> what it reaches): refused unless the file's task declares the module in its
#: ``native = true`` (:mod:`common.course.tasks`), as a task whose reference points native code at NumPy memory.
NATIVE_WHY = ("raw memory and foreign calls: the grader's process and other programs; "
              "only the files of a task whose tasks.toml says native = true may")
NATIVE = dict.fromkeys(("ctypes", "_ctypes", "cffi", "numpy.ctypeslib", "numpy.lib.stride_tricks.as_strided",
                        "numpy.lib.array_utils.byte_bounds", "numpy.byte_bounds"), NATIVE_WHY)
#: Attributes and class attributes that reach raw memory whatever they hang on (an array's ``.ctypes``, an
#: object that hands NumPy an address): refused outside the files of a ``native`` task, as :data:`NATIVE` is.
NATIVE_ATTRS = ("ctypes", "_ctypes", "__array_interface__", "__array_struct__")
#: What the handout's stubs import (``NotImplementedTask``) and the reference uses: allowed.
ALLOWED = ("common.course.notimpl",)
#: Attributes that reach another module's globals, the builtins, a caller's frame or a function's hidden state,
#: or that assign around the scan, whatever they hang on (attribute -> what it reaches).
ESCAPES = {**dict.fromkeys(("__globals__", "__builtins__", "__subclasses__", "__code__", "f_back", "f_globals",
                            "f_locals", "tb_frame", "gi_frame", "cr_frame", "ag_frame"),
                           "another module's globals, the builtins or a caller's frame"),
           **dict.fromkeys(("__closure__", "cell_contents"), "a function's hidden state"),
           **dict.fromkeys(("__mro__", "__bases__", "__base__"), "every class through object")}
#: Names a student file may not use: dynamic import, the builtins' namespace, code the scan cannot read.
NAMES = {"__import__": "calls __import__ (the import machinery)", "__builtins__": "uses __builtins__ (the builtins)",
         "exec": "calls exec (code this check cannot read)", "eval": "calls eval (code this check cannot read)",
         "compile": "calls compile (code this check cannot read)",
         "globals": "uses globals() (a module's namespace, the builtins through it)"}
#: Third-party modules the graded tests check with: a student file that assigns their attributes is not taken
#: (so are the project's own packages and :data:`GUARDED`).
ORACLES = ("numpy", "onnx", "onnxruntime", "json", "math", "operator", "functools", "re")


def _guarded(name: str, imported: bool = False, native: bool = False) -> str | None:
    """What ``name`` (a dotted module or attribute path; ``imported``: a module an import names) reaches when
    :data:`GUARDED` or (unless ``native``) :data:`NATIVE` covers it (an imported test module:
    "the graded tests"), else None."""
    if any(name == a or name.startswith(a + ".") for a in ALLOWED):
        return None
    refused = GUARDED if native else {**GUARDED, **NATIVE}
    for prefix, what in refused.items():
        if name == prefix or name.startswith(prefix + "."):
            return what
    if imported and any(p == "conftest" or p.startswith("test_") or p.endswith("_test") for p in name.split(".")):
        return "the graded tests"
    return None


def _reaches(name: str, native: bool, *, last: bool) -> str | None:
    """What the dotted ``name`` reaches through any run of its parts (``os.sys.modules`` is ``sys.modules``;
    ``last``: the last part alone too, as for an imported name), unless :data:`ALLOWED` covers it whole."""
    if any(name == a or name.startswith(a + ".") for a in ALLOWED):
        return None
    parts = name.split(".")
    return next((w for j in range(len(parts) - (0 if last else 1)) for i in range(len(parts), j, -1)
                 if (w := _guarded(".".join(parts[j:i]), native=native))), None)


def _resolve(module: str | None, level: int, rel: str) -> str:
    """The absolute name of ``from <level dots><module> import ...`` in the file ``rel``."""
    if not level:
        return module or ""
    package = rel[:-3].split("/")[:-1]
    package = package[: len(package) - (level - 1)] if level - 1 <= len(package) else []
    return ".".join([*package, *([module] if module else [])])


def _dotted(node: ast.AST) -> tuple[str, list[str]] | None:
    """``(root name, [attr, ...])`` of a chain ``a.b.c``; None for anything else (a call, a subscript)."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    return (node.id, attrs[::-1]) if isinstance(node, ast.Name) else None


#: ``/proc`` files that describe the machine, not a process (the given code reads the CPU's flags).
_PROC_FACTS = ("/proc/cpuinfo", "/proc/meminfo")


def packages(root: Path) -> tuple[str, ...]:
    """The project's top-level packages (folders of ``root`` with an ``__init__.py``): :func:`tampering`'s
    ``packages``."""
    return tuple(sorted(p.name for p in root.iterdir() if (p / "__init__.py").is_file()))


def _is_main_guard(node: ast.AST) -> bool:
    """Whether ``node`` is ``if __name__ == "__main__":`` (its body runs only when the file is run as a script)."""
    t = node.test if isinstance(node, ast.If) else None
    return (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"
            and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq) and isinstance(t.comparators[0], ast.Constant)
            and t.comparators[0].value == "__main__")


def _listed_names(tree: ast.AST) -> set[str]:
    """Names that only a ``for`` loop or a comprehension binds, each time over a literal tuple, list or set of
    strings none of which starts with ``_`` (``{k: getattr(node, k) for k in ("op_type", "domain")}``): what
    ``getattr(x, k)`` can read is then in the file, and none of it is a dunder. A name bound anywhere else (an
    assignment, a parameter, an import, ``with ... as``, another loop) is not one."""
    loops: dict[str, bool] = {}
    targets: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(node.target, ast.Name):
            it = node.iter
            literal = isinstance(it, (ast.Tuple, ast.List, ast.Set)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) and not e.value.startswith("_")
                for e in it.elts)
            loops[node.target.id] = loops.get(node.target.id, True) and literal
            targets.add(id(node.target))
    bound_elsewhere = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                       and id(n) not in targets}
    bound_elsewhere |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    bound_elsewhere |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                        for a in n.names}
    bound_elsewhere |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                           ast.ClassDef, ast.ExceptHandler,
                                                                           ast.MatchAs, ast.MatchStar)) and n.name}
    bound_elsewhere |= {n.rest for n in ast.walk(tree) if isinstance(n, ast.MatchMapping) and n.rest}
    return {name for name, ok in loops.items() if ok and name not in bound_elsewhere}


def tampering(text: str, rel: str, packages: Iterable[str] = (), native: bool = False) -> list[str]:
    """Why the student file ``rel`` (its ``text``) may not be graded: one reason per thing it does that code
    under test has no business doing (``"imports common.course.plugin (the grader) at line 1"``); empty
    when none. Static (:mod:`ast`): imports of or attribute access to :data:`GUARDED` modules (the
    grader, the test framework, the import machinery, the tests themselves), the :data:`ESCAPES`
    attributes, the :data:`NAMES`, raw memory (:data:`NATIVE`, :data:`NATIVE_ATTRS`) unless ``native`` (its
    task says ``native = true``: :meth:`common.course.tasks.Course.native`), and assigning an attribute of the project's packages (``packages``)
    or an :data:`ORACLES` module (monkeypatching what the tests compare with), a module's ``__dict__``, and a
    ``/proc`` path; a module bound to another name (``s = sys``) counts as that module, and the body of
    ``if __name__ == "__main__":`` is not read (it never runs on import). A check in depth, not a sandbox:
    the plugin binds its own helpers and signs its report too (:mod:`common.course.plugin`)."""
    tree = ast.parse(text, rel)
    patched = (*packages, *ORACLES)
    aliases: dict[str, str] = {}
    out: list[tuple[int, str]] = []

    def flag(why: str, node: ast.AST) -> None:
        out.append((getattr(node, "lineno", 0), f"{why} at line {getattr(node, 'lineno', '?')}"))

    for node in ast.walk(tree):  # the import aliases first (a name used above its import still resolves)
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module, node.level, rel)
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{base}.{a.name}" if base else a.name

    def full(node: ast.AST) -> str | None:
        d = _dotted(node)
        if d is None or d[0] not in aliases:
            return None
        return ".".join([aliases[d[0]], *d[1]])

    for _ in range(3):  # a module given another name (``s = sys``, ``_n = np.testing``) is that module
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and (name := full(node.value)) is not None:
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        aliases[t.id] = name
    skipped = {id(n) for node in ast.walk(tree) if _is_main_guard(node) for b in node.body for n in ast.walk(b)}
    own_defs = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    listed = _listed_names(tree)
    outer: set[int] = set()  # inner links of a chain already judged whole
    for node in ast.walk(tree):
        if id(node) in skipped:  # ``if __name__ == "__main__":`` never runs under the grader (an import)
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("/proc") and \
                not node.value.startswith(_PROC_FACTS):
            flag("names /proc (the processes' files: the grader's command line and folders)", node)
        if isinstance(node, ast.Import):
            for a in node.names:
                what = _guarded(a.name, imported=True, native=native) or _reaches(a.name, native, last=True)
                if what:
                    flag(f"imports {a.name} ({what})", node)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module, node.level, rel)
            for a in node.names:
                name = base if a.name == "*" else f"{base}.{a.name}" if base else a.name
                what = _guarded(name, imported=True, native=native) or _reaches(name, native, last=True)
                if what:
                    flag(f"imports {name} ({what})", node)
        elif isinstance(node, ast.Name) and node.id in NAMES and node.id not in aliases and node.id not in own_defs:
            flag(NAMES[node.id], node)
        elif isinstance(node, ast.Name) and node.id == "__name__" and isinstance(node.ctx, (ast.Store, ast.Del)):
            flag("assigns __name__ (it decides which blocks run on import)", node)
        elif isinstance(node, ast.Name) and node.id in NATIVE_ATTRS and not native and \
                isinstance(node.ctx, ast.Store):  # a class body's __array_interface__ = {...}
            flag(f"defines {node.id} ({NATIVE_WHY})", node)
        elif isinstance(node, ast.Attribute):
            if node.attr in ESCAPES:
                flag(f"uses .{node.attr} ({ESCAPES[node.attr]})", node)
            if node.attr in NATIVE_ATTRS and not native:
                flag(f"uses .{node.attr} ({NATIVE_WHY})", node)
            if id(node) in outer:
                continue
            inner = node.value
            while isinstance(inner, ast.Attribute):
                outer.add(id(inner))
                inner = inner.value
            name = full(node)
            if name is None:
                continue
            parts = name.split(".")
            what = _reaches(name, native, last=False)  # os.sys.x is sys.x
            if what:
                flag(f"reaches {name} ({what})", node)
            elif isinstance(node.ctx, (ast.Store, ast.Del)) and parts[0] in patched:
                flag(f"assigns {name} (monkeypatches a module the tests use)", node)
            elif parts[-1] == "__dict__":
                flag(f"reaches {name} (a module's namespace)", node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and \
                node.func.id in ("getattr", "setattr", "delattr", "hasattr", "vars") and node.func.id not in own_defs:
            static = len(node.args) >= 2 and (isinstance(node.args[1], ast.Constant) or (
                node.func.id in ("getattr", "hasattr") and isinstance(node.args[1], ast.Name) and
                node.args[1].id in listed))  # a read by a name from a listed tuple: ``for k in ("a", "b")``
            if node.func.id != "vars" and not static:
                flag(f"calls {node.func.id} with a name built at run time (what it reaches this check cannot read; "
                     "a name of a for loop over a tuple of strings is read)", node)
                continue
            name = full(node.args[0])
            if name is None:
                continue
            if _reaches(name, native, last=True) or name == "sys" or (node.func.id != "getattr" and name.split(".")[0] in patched):
                flag(f"calls {node.func.id} on the module {name}", node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and \
                node.func.attr in ("__setattr__", "__delattr__") and (name := full(node.args[0])) is not None:
            flag(f"calls {node.func.attr} on the module {name} (assignment around this check)", node)
    return [why for _, why in sorted(out, key=lambda x: x[0])]
