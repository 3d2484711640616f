"""Step 8: cross-compile for an edge board (AArch64, Cortex-A55) without the board.

LLVM inside TVM emits AArch64 object code for ``{"kind": "llvm", "mtriple": "aarch64-linux-gnu",
"mcpu": "cortex-a55"}`` on any host. Packaging:

- a **tar of object files** (``export_library("x.tar")``) needs no cross toolchain; link it on the
  board (``gcc -shared``) or into a firmware image;
- a **shared library** (``.so``) needs a cross linker: ``aarch64-linux-gnu-gcc`` (Debian/Ubuntu:
  ``apt install gcc-aarch64-linux-gnu``). When it is absent we say so in one line and keep the tar.

The check reads the ELF header of every object: ``e_machine`` (bytes 18-19, endianness from
``EI_DATA`` at byte 5) must be 183 = ``EM_AARCH64`` (System V ABI, ELF header, and the
``elf.h`` constant table).
"""
from __future__ import annotations

import shutil
import struct
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from common.results import atomic_output

AARCH64_TARGET = {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a55"}
CROSS_CC = "aarch64-linux-gnu-gcc"
EM_NAMES = {3: "x86", 40: "ARM", 62: "x86-64", 183: "AArch64", 243: "RISC-V"}
EM_AARCH64 = 183


def elf_machine(data: bytes) -> tuple[int, str]:
    """``(e_machine, name)`` from the first bytes of an ELF file.

    The ELF header (System V ABI, ch. 4) starts with ``e_ident``: bytes 0-3 the magic ``\\x7fELF``,
    byte 4 ``EI_CLASS`` (1: ELF32, 2: ELF64), byte 5 ``EI_DATA`` (1: little-endian, 2: big-endian).
    Then ``e_type`` (bytes 16-17) and ``e_machine`` (bytes 18-19, an unsigned 16-bit integer in the
    byte order of ``EI_DATA``) at the same offsets in both classes. ``name`` is :data:`EM_NAMES`'s
    entry, ``"unknown(<e_machine>)"`` for any other value.

    Args:
        data: at least the first 20 bytes of the file.

    Raises:
        ValueError: not an ELF file (magic ``\\x7fELF`` missing), truncated header (under 20 bytes),
            or an ``EI_DATA`` byte other than 1 or 2.
    """
    ### BEGIN SOLUTION lab02.cross
    if len(data) < 20 or data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file (missing \\x7fELF magic)")
    endian = {1: "<", 2: ">"}.get(data[5])
    if endian is None:
        raise ValueError(f"bad ELF EI_DATA byte {data[5]}")
    (machine,) = struct.unpack(endian + "H", data[18:20])
    return machine, EM_NAMES.get(machine, f"unknown({machine})")
    ### END SOLUTION


def elf_machines_in(path: str | Path) -> dict[str, str]:
    """``{member_or_file: machine name}`` for an ELF file or every ELF object inside a tar."""
    path = Path(path)
    if tarfile.is_tarfile(path):
        out = {}
        with tarfile.open(path) as tar:
            for m in tar.getmembers():
                if m.isfile():
                    head = tar.extractfile(m).read(64)
                    if head[:4] == b"\x7fELF":
                        out[m.name] = elf_machine(head)[1]
        return out
    return {path.name: elf_machine(path.read_bytes()[:64])[1]}


@dataclass
class CrossResult:
    """What :func:`cross_compile` produced.

    Attributes:
        tar_path: tar of objects (always written).
        so_path: shared library, or ``None`` when no cross compiler is installed.
        note: one line on how the ``.so`` was made or why it was not.
        machines: ``{object: ELF machine}`` for every ELF object written.
        build_s: seconds in ``tvm.compile`` for the AArch64 target.
        tar_bytes / so_bytes: file sizes in bytes.
    """

    tar_path: Path
    so_path: Path | None
    note: str
    machines: dict[str, str] = field(default_factory=dict)
    build_s: float = 0.0
    tar_bytes: int = 0
    so_bytes: int = 0

    @property
    def all_aarch64(self) -> bool:
        """True when at least one ELF object was found and every one is AArch64."""
        return bool(self.machines) and all(m == "AArch64" for m in self.machines.values())


def cross_compile(mod, out_dir: str | Path, name: str, *, target: dict | None = None,
                  cross_cc: str | None = CROSS_CC) -> CrossResult:
    """Build ``mod`` for AArch64 and export it as ``<name>.tar`` (+ ``<name>.so`` if a cross gcc exists).

    Args:
        mod: Relax module (fused or not; weights stay runtime inputs, shipped separately).
        out_dir: folder for the artefacts (``results/lab02/cross/``).
        target: defaults to :data:`AARCH64_TARGET`.
        cross_cc: cross compiler driver looked up on ``PATH`` (``None``: skip the ``.so``).

    Raises:
        AssertionError: no ELF object was found, or one is not AArch64 (the check of Task 2.3,
            ``lab02.cross``: the message lists ``machines``); the artefacts stay on disk.
    """
    import time

    import tvm
    from tvm.support import cc

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    ex = tvm.compile(mod, tvm.target.Target(target or AARCH64_TARGET))
    build_s = time.perf_counter() - t0
    tar_path = out / f"{name}.tar"
    with atomic_output(tar_path) as tmp:
        ex.export_library(str(tmp))
    machines = {f"{tar_path.name}:{k}": v for k, v in elf_machines_in(tar_path).items()}
    so_path = None
    found = shutil.which(cross_cc) if cross_cc else None
    if found:
        so_path = out / f"{name}.so"
        try:
            with atomic_output(so_path) as tmp:
                ex.export_library(str(tmp), fcompile=cc.cross_compiler(found))
            machines.update({f"{so_path.name}": v for v in elf_machines_in(so_path).values()})
            note = f".so linked with {found}"
        except RuntimeError as exc:  # e.g. the cross libc (crti.o) is missing
            so_path = None
            why = next((ln for ln in str(exc).splitlines() if "error" in ln.lower() or "cannot" in ln), "link failed")
            note = (f"{found} could not link a .so ({why.strip()}; apt install libc6-dev-arm64-cross): "
                    "wrote the tar of objects only")
    else:
        note = (f"no {cross_cc} on PATH (apt install gcc-aarch64-linux-gnu): wrote the tar of objects only"
                if cross_cc else "cross linking disabled: tar of objects only")
    res = CrossResult(tar_path=tar_path, so_path=so_path, note=note, machines=machines, build_s=build_s,
                      tar_bytes=tar_path.stat().st_size, so_bytes=so_path.stat().st_size if so_path else 0)
    ### BEGIN SOLUTION lab02.cross
    if not res.all_aarch64:
        raise AssertionError(f"cross-compiled objects are not all AArch64: {machines}")
    ### END SOLUTION
    return res
