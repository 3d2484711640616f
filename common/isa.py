"""Which CPU a run compiles for, which instructions that CPU has, and whether this host can run them.

Every answer comes from LLVM's own tables, not from a hand-kept list:

* the features of a named CPU (``-mcpu=znver3``) are LLVM's (TVM's
  ``tvm.target.codegen.llvm_get_cpu_features``);
* the features this host *has* are what LLVM's host detection reads from CPUID
  (``llvm::sys::getHostCPUFeatures``, through ``llvmlite.binding.get_host_cpu_features``).

A CPU's LLVM feature list mixes instruction-set extensions (``avx2``, ``fma``, ``avx512f``, ``sse4a``)
with tuning flags (``fast-lzcnt``, ``slow-3ops-lea``, ``branchfusion``) that change which instructions
the compiler *prefers*, never which exist. The instruction-set part is the part host detection can
report (the keys of ``get_host_cpu_features``); :func:`isa_features` keeps only that part. Code built for
CPU ``A`` runs on a host whose instruction set includes ``isa_features(A)``.

``MLC_CPU`` names an LLVM CPU to compile for instead of the host's (``MLC_CPU=haswell`` runs a pipeline
as if on an AVX2 machine: TVM's target, llvmlite's and IREE's ``--iree-llvmcpu-target-cpu`` all take it);
:func:`target_cpu` refuses one this host cannot execute.

``python -m common.isa`` prints the CPU model, LLVM's name for it, the widest vector ISA and the
x86-64 micro-architecture level (``.ci/run`` prints it first, so a red run says on which kind).
"""
from __future__ import annotations

import functools
import os
import platform

from common.errors import UserError

ENV = "MLC_CPU"
#: The x86-64 psABI micro-architecture levels, which LLVM knows as CPU names (oldest first).
X86_LEVELS = ("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4")
#: Widest vector ISA names, widest first, by the LLVM feature that defines each.
VECTOR_ISAS = (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"), ("sse4.2", "SSE4.2"), ("sse2", "SSE2"))


@functools.cache
def _host_feature_map() -> dict[str, bool]:
    import llvmlite.binding as llvm
    return {str(k): bool(v) for k, v in dict(llvm.get_host_cpu_features()).items()}


def isa_universe() -> frozenset[str]:
    """Every instruction-set feature LLVM's host detection can report on this architecture."""
    return frozenset(_host_feature_map())


def host_features() -> frozenset[str]:
    """The instruction-set features this host has (CPUID, as LLVM's host detection reads it)."""
    return frozenset(k for k, v in _host_feature_map().items() if v)


def system_cpu() -> str:
    """LLVM's name for this host's CPU (``sys::getHostCPUName``: ``znver3``, ``rocketlake``; ``generic``)."""
    from tvm.target import codegen
    return str(codegen.llvm_get_system_cpu() or "generic")


def is_valid_cpu(cpu: str) -> bool:
    """True when LLVM's x86-64 backend knows ``cpu`` as an ``-mcpu`` name."""
    from tvm.target import codegen
    return bool(codegen.llvm_is_valid_cpu(cpu, "x86_64-unknown-linux-gnu")) if platform.machine() in (
        "x86_64", "AMD64") else bool(cpu)


@functools.cache
def cpu_features(cpu: str) -> frozenset[str]:
    """LLVM's full feature list of ``-mcpu=cpu`` (instruction sets and tuning flags).

    Raises:
        UserError: LLVM does not know ``cpu``.
    """
    import tvm
    from tvm.target import codegen
    if not is_valid_cpu(cpu):
        raise UserError(f"unknown LLVM CPU {cpu!r} (try one of haswell, skylake-avx512, znver3, znver4, "
                        "x86-64-v3, x86-64-v4)")
    feats = codegen.llvm_get_cpu_features(tvm.target.Target({"kind": "llvm", "mcpu": cpu}))
    return frozenset(str(f) for f in feats)


def isa_features(cpu: str) -> frozenset[str]:
    """The instruction-set features of ``-mcpu=cpu``: its LLVM features that host detection can report."""
    return cpu_features(cpu) & isa_universe()


def missing_on(cpu: str, have: frozenset[str]) -> list[str]:
    """The instruction-set features of ``cpu`` absent from ``have`` (sorted; ``[]``: code for ``cpu`` runs)."""
    return sorted(isa_features(cpu) - have)


def features_of_host(cpu: str) -> frozenset[str]:
    """The instruction set a run on ``cpu`` may use: the real host's for the host's own CPU name, else
    ``isa_features(cpu)`` (a simulated host: ``MLC_CPU`` or a test naming another CPU)."""
    return host_features() if cpu == system_cpu() else isa_features(cpu)


def target_cpu() -> str:
    """The CPU this run compiles for: ``$MLC_CPU`` when set, else :func:`system_cpu`.

    Raises:
        UserError: ``MLC_CPU`` names a CPU LLVM does not know, or one with instructions this host
            lacks (code built for it could die with SIGILL): one line naming the missing features.
    """
    cpu = os.environ.get(ENV, "").strip()
    host = system_cpu()
    if not cpu or cpu == host:
        return host
    missing = missing_on(cpu, host_features())
    if missing:
        shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        raise UserError(f"{ENV}={cpu}: this host ({host}, {widest_vectors(host_features())}) cannot execute "
                        f"{cpu}'s {shown}: pick a CPU whose instructions it has (e.g. x86-64-v3), or unset {ENV}")
    return cpu


def simulated_cpu() -> str | None:
    """The CPU ``MLC_CPU`` names when it is not this host's own (code generators take it in place of their
    "host" default), else ``None``.

    Raises:
        UserError: as :func:`target_cpu`.
    """
    cpu = target_cpu()
    return None if cpu == system_cpu() else cpu


def widest_vectors(features: frozenset[str]) -> str:
    """``"AVX-512"``, ``"AVX2"``, ... for a feature set (``"scalar"`` when it has no SSE2)."""
    return next((name for feat, name in VECTOR_ISAS if feat in features), "scalar")


def x86_level(features: frozenset[str]) -> str | None:
    """The highest x86-64 level (``x86-64-v3``) whose instruction set ``features`` include, or ``None``."""
    best = None
    for level in X86_LEVELS:
        if isa_features(level) <= features:
            best = level
    return best


def executable_levels() -> list[str]:
    """The x86-64 levels from ``x86-64-v2`` up that this host can execute (each a ``-mcpu`` to test on)."""
    have = host_features()
    return [lv for lv in X86_LEVELS[1:] if isa_features(lv) <= have]


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (``platform.processor()`` elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe() -> dict:
    """``{"cpu_model", "llvm_cpu", "target_cpu", "vector_isa", "x86_level"}`` of this host."""
    have = host_features()
    return {"cpu_model": cpu_model(), "llvm_cpu": system_cpu(), "target_cpu": target_cpu(),
            "vector_isa": widest_vectors(have), "x86_level": x86_level(have)}


def summary_line() -> str:
    """One line: CPU model, LLVM CPU, widest vector ISA, x86-64 level (and ``MLC_CPU`` when set).

    The line ``.ci/run``, ``python -m common.isa`` and the test session's header print, so a red run
    says on which kind of machine, and for which CPU, it compiled.
    """
    d = describe()
    override = f", compiling for {ENV}={d['target_cpu']}" if d["target_cpu"] != d["llvm_cpu"] else ""
    return (f"cpu: {d['cpu_model']} | LLVM cpu {d['llvm_cpu']} | widest vectors {d['vector_isa']} | "
            f"{d['x86_level'] or 'below x86-64'}{override}")


def main(argv=None) -> int:
    """Print :func:`summary_line`."""
    from common.cli import parser
    parser("python -m common.isa", __doc__).parse_args(argv)
    print(summary_line())
    return 0


if __name__ == "__main__":
    from common.errors import run_cli
    raise SystemExit(run_cli(main))
