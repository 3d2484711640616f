"""Graded tests of Task 2.3 (``lab02.cross``): the ELF check of the AArch64 cross build.

``elf_machine`` against ELF headers packed here with ``struct`` (ELF32 and ELF64, both byte orders,
laid out per the System V ABI's ELF header: ``e_ident``, then ``e_type``, ``e_machine``, ...), against
a real shared library of this host, and ``cross_compile`` on a tiny Relax module: the tar it writes
holds AArch64 objects only (big-endian AArch64 too), and builds for other machines (the host's x86-64,
32-bit ARM, RISC-V, PowerPC: LLVM emits them on any host) are refused, as is a tar for another machine next
to an AArch64 ``.so``. No lab pass runs here (the
module is built with ``relax.BlockBuilder``), so this task is graded on its own.

``elf_machine``'s answer is checked for its type (:func:`machine_of`: a ``tuple`` of an ``int`` and a
``str``, exactly) before it is compared: an object of another type may define its own ``==``.

Run: ``.venv/bin/python -m pytest --task lab02.cross`` (or ``.venv/bin/python -m pytest lab02_tvm/test_task_cross.py``).
"""
from __future__ import annotations

import platform
import struct
import tarfile
from pathlib import Path

import pytest
import tvm

pytestmark = pytest.mark.lab02


def machine_of(data: bytes) -> tuple[int, str]:
    """``elf_machine(data)``, checked to be the ``(e_machine, name)`` pair its signature promises: a tuple (a
    namedtuple too: read through a plain ``tuple`` copy) of exactly an ``int`` and a ``str`` (exact types: a subclass
    may redefine ``==``)."""
    from lab02_tvm.targets.cross import elf_machine
    got = elf_machine(data)
    plain = tuple(got) if isinstance(got, tuple) else None
    assert plain is not None and len(plain) == 2 and type(plain[0]) is int and type(plain[1]) is str, (
        f"elf_machine returned {got!r} ({type(got).__qualname__}"
        + (f" of {', '.join(type(x).__qualname__ for x in plain)}" if plain is not None else "")
        + "), not a tuple (int, str)")
    return plain


def elf_header(machine: int, *, bits: int = 64, endian: str = "<", e_type: int = 1) -> bytes:
    """A complete ELF header (52 or 64 bytes) for ``machine`` (``e_type`` 1 = relocatable object)."""
    ident = b"\x7fELF" + bytes([1 if bits == 32 else 2, 1 if endian == "<" else 2, 1]) + bytes(9)
    if bits == 64:  # e_type e_machine e_version e_entry e_phoff e_shoff e_flags e_ehsize ... e_shstrndx
        return struct.pack(endian + "16sHHIQQQIHHHHHH", ident, e_type, machine, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)
    return struct.pack(endian + "16sHHIIIIIHHHHHH", ident, e_type, machine, 1, 0, 0, 0, 0, 52, 32, 0, 40, 0, 0)


def test_a_namedtuple_answer_is_read_as_its_plain_tuple(monkeypatch):
    """Not graded: the check itself. ``elf_machine`` returning ``ElfMachine(e_machine, name)``, a namedtuple, meets
    the signature's ``tuple[int, str]`` and is compared as the plain tuple it holds (a correct solution written so
    must not lose points); a list of the same two values is still refused."""
    import collections

    from lab02_tvm.targets import cross

    named = collections.namedtuple("ElfMachine", "e_machine name")
    real = cross.elf_machine
    monkeypatch.setattr(cross, "elf_machine", lambda data: named(*real(data)))
    assert machine_of(elf_header(62)) == (62, "x86-64")
    monkeypatch.setattr(cross, "elf_machine", lambda data: list(real(data)))
    with pytest.raises(AssertionError, match="not a tuple"):
        machine_of(elf_header(62))


@pytest.mark.task("lab02.cross", points=1)
@pytest.mark.parametrize("machine, bits, endian, name", [
    (62, 64, "<", "x86-64"), (183, 64, "<", "AArch64"), (243, 64, "<", "RISC-V"),
    (183, 64, ">", "AArch64"), (40, 32, "<", "ARM")],
    ids=["x86-64", "aarch64", "riscv64", "aarch64-big-endian", "arm32"])
def test_elf_machine_reads_e_machine(machine, bits, endian, name):
    hdr = elf_header(machine, bits=bits, endian=endian)
    assert machine_of(hdr) == (machine, name)
    assert machine_of(hdr[:20]) == (machine, name)  # 20 bytes are enough


@pytest.mark.task("lab02.cross", points=1)
def test_elf_machine_unknown_machine_and_bad_headers():
    from lab02_tvm.targets.cross import elf_machine
    assert machine_of(elf_header(0x1234, e_type=3)) == (0x1234, f"unknown({0x1234})")
    assert machine_of(elf_header(0x3412, endian=">", e_type=2)) == (0x3412, f"unknown({0x3412})")
    # EM_NONE (0) is a value like any other outside EM_NAMES: named, not refused (ValueError is for the header only)
    assert machine_of(elf_header(0)) == (0, "unknown(0)")
    # the high byte counts: 0x13E and 0x1B7 end in the bytes of x86-64 (62) and AArch64 (183) but are neither
    for machine in (0x100 | 62, 0x100 | 183):
        for endian in "<>":
            assert machine_of(elf_header(machine, endian=endian)) == (machine, f"unknown({machine})")
    good = elf_header(183)
    for bad in (b"MZ" + bytes(62), good[:19], b"", good[:5] + b"\x00" + good[6:], good[:5] + b"\x03" + good[6:],
                b"\x00" + good[1:], b"\x7e" + good[1:],  # all four magic bytes are the magic, each one checked:
                good[:1] + b"e" + good[2:], good[:2] + b"l" + good[3:], good[:3] + b"f" + good[4:],  # case counts
                good[:1] + b"\x00" + good[2:], good[:2] + b"\x00" + good[3:], good[:3] + b"G" + good[4:]):
        with pytest.raises(ValueError):
            elf_machine(bad)


@pytest.mark.task("lab02.cross", points=1)
def test_elf_machine_e_machine_is_unsigned():
    """``e_machine`` is an ``Elf64_Half``, an unsigned 16-bit field (System V ABI): 0xFFFF is 65535, not -1."""
    for machine in (0x8000, 0x9026, 0xFFFF):
        for endian in "<>":
            assert machine_of(elf_header(machine, endian=endian)) == (machine, f"unknown({machine})")


@pytest.mark.task("lab02.cross", points=1)
def test_elf_machine_on_a_real_library_of_this_host():
    expected = {"x86_64": (62, "x86-64"), "aarch64": (183, "AArch64")}.get(platform.machine())
    if expected is None:
        pytest.skip(f"no expected ELF machine for host {platform.machine()}")
    lib = next(Path(tvm.__file__).parent.rglob("*.so"))
    assert machine_of(lib.read_bytes()[:64]) == expected


def _tiny_module():
    from tvm import relax
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((4, 16), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.relu(relax.op.add(x, x)))
            gv = bb.emit_output(y)
        bb.emit_func_output(gv)
    return bb.get()


@pytest.mark.task("lab02.cross", points=2)
def test_cross_compile_writes_a_tar_of_aarch64_objects(tmp_path):
    from lab02_tvm.targets.cross import cross_compile
    res = cross_compile(_tiny_module(), tmp_path, "tiny", cross_cc=None)
    assert res.tar_path.exists() and res.so_path is None and res.all_aarch64 and res.machines
    with tarfile.open(res.tar_path) as tar:  # every object in the tar, read here independently
        heads = [tar.extractfile(m).read(20) for m in tar.getmembers() if m.isfile()]
    heads = [h for h in heads if h[:4] == b"\x7fELF"]
    assert heads and all(struct.unpack("<H" if h[5] == 1 else ">H", h[18:20])[0] == 183 for h in heads)
    assert len(res.machines) == len(heads)
    # big-endian AArch64 (aarch64_be: EI_DATA 2, e_machine 183 stored high byte first) is AArch64 too
    res = cross_compile(_tiny_module(), tmp_path / "be", "tiny_be", target={"kind": "llvm", "mtriple": "aarch64_be-linux-gnu"},
                        cross_cc=None)
    assert res.all_aarch64 and res.machines


@pytest.mark.task("lab02.cross", points=1)
def test_cross_compile_refuses_objects_for_another_machine(tmp_path):
    """Every ELF machine but AArch64 is refused: the host's x86-64 (on an x86-64 host), and whatever the host, 32-bit
    ARM (another machine than AArch64, ``EM_ARM`` = 40), RISC-V and a machine outside ``EM_NAMES`` (PowerPC 64,
    ``EM_PPC64`` = 21, read as ``unknown(21)``): the check asks for AArch64, it does not list machines to refuse."""
    from lab02_tvm.targets.cross import cross_compile
    others = [("armv7a-linux-gnueabihf", "ARM"), ("riscv64-linux-gnu", "RISC-V"), ("powerpc64-linux-gnu", "unknown")]
    if platform.machine() == "x86_64":
        others.insert(0, ("x86_64-linux-gnu", "x86-64"))
    for i, (mtriple, name) in enumerate(others):
        with pytest.raises(AssertionError, match=name):
            cross_compile(_tiny_module(), tmp_path, f"other{i}", target={"kind": "llvm", "mtriple": mtriple},
                          cross_cc=None)
        assert (tmp_path / f"other{i}.tar").exists()  # the artefact stays, the check refuses it


@pytest.mark.task("lab02.cross", points=1)
def test_cross_compile_refuses_a_build_with_no_elf_object(tmp_path):
    """``arm64-apple-darwin`` is AArch64 code in Mach-O objects: the tar holds no ELF object, so there is
    nothing the check has seen to be AArch64 ("at least one ELF object", the task's step 2)."""
    from lab02_tvm.targets.cross import cross_compile
    with pytest.raises(AssertionError):
        cross_compile(_tiny_module(), tmp_path, "mac", target={"kind": "llvm", "mtriple": "arm64-apple-darwin"},
                      cross_cc=None)
    with tarfile.open(tmp_path / "mac.tar") as tar:  # read here: no member starts with the ELF magic
        assert not [m for m in tar.getmembers() if m.isfile() and tar.extractfile(m).read(4) == b"\x7fELF"]


@pytest.mark.task("lab02.cross", points=1)
def test_cross_compile_refuses_a_shared_library_for_another_machine(tmp_path):
    """A "cross gcc" that links an x86-64 library (here a script that writes an x86-64 ELF header as the
    ``.so``) next to the tar's AArch64 objects: every ELF object written is checked, the ``.so`` included."""
    from lab02_tvm.targets.cross import cross_compile
    header = tmp_path / "x86_64.bin"
    header.write_bytes(elf_header(62, e_type=3))  # ET_DYN, EM_X86_64
    fake = tmp_path / "aarch64-linux-gnu-gcc"
    fake.write_text('#!/bin/sh\nout=""\nwhile [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done\n'
                    f'cp "{header}" "$out"\n')
    fake.chmod(0o755)
    with pytest.raises(AssertionError, match="x86-64"):
        cross_compile(_tiny_module(), tmp_path / "out", "tiny", cross_cc=str(fake))
    # and the other way round: an AArch64 ``.so`` does not excuse the tar's objects (built here for RISC-V)
    header.write_bytes(elf_header(183, e_type=3))  # ET_DYN, EM_AARCH64
    with pytest.raises(AssertionError, match="RISC-V"):
        cross_compile(_tiny_module(), tmp_path / "out2", "tiny", target={"kind": "llvm", "mtriple": "riscv64-linux-gnu"},
                      cross_cc=str(fake))
