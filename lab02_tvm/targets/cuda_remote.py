"""Build for an NVIDIA GPU on a machine without one; run and check on the machine that has it.

The same split as cross-compiling for a board (step 8), for a GPU target: the *build host* needs
the TVM compiler and CUDA's ``nvcc`` but no GPU (the target names the architecture, e.g.
``{"kind": "cuda", "arch": "sm_90"}`` for Hopper); the *device host* needs only TVM's runtime
(``TVM_USE_RUNTIME_LIB=1`` loads ``libtvm_runtime`` + ``libtvm_runtime_cuda``, no compiler) and
the CUDA driver.

What travels is small on purpose: the exported library (kernels + host code, no weights), the
example inputs, the PyTorch reference outputs computed here, and the *recipe* of the weights rather
than the weights (ResNet-50 alone is 102 MB in fp32). Weights are regenerated on both sides by
:func:`regenerate_state`: for every floating tensor of the model's ``state_dict`` a stream of
``numpy.random.default_rng([seed, crc32(name)]).random()`` doubles, Box-Muller to normals with the
tensor's original mean and standard deviation, clipped to its original [min, max]. A float64
checksum per tensor is stored and checked on the device before anything runs.

The build host has no GPU, so TVM's CUDA runtime is not linked there and ``tvm.compile`` keeps the
generated CUDA C kernels as source in the library; the device host compiles them with ``nvcc`` for
the target architecture when the library is loaded (:func:`_register_nvcc`).

Commands::

    python -m lab02_tvm.targets.cuda_remote export --model resnet50 --out build/cuda   # here (no GPU)
    python -m lab02_tvm.targets.cuda_remote run --dir build/cuda --out results/lab02   # on the GPU machine

``run`` gates TVM-CUDA against the PyTorch CPU reference (the CPU build's gate,
``lab02_tvm.build.gate_for``: absolute 1e-4, or 1e-4 of the scale on ResNet-50's large logits), times it against PyTorch eager on the same GPU (when torch and transformers are
there), and writes ``cuda_remote.{md,csv,json}``.
"""
from __future__ import annotations

import io
import json
import os
import time
import zlib
from pathlib import Path
from collections.abc import Sequence

import numpy as np

from common.errors import GateFailed, MissingDependency, UserError, run_cli
from common.results import atomic_output, atomic_write

from ..build import gate_for

DEFAULT_ARCH = "sm_90"


# ---------------------------------------------------------------------------------------------
# deterministic weights

def _tensor_stream(seed: int, name: str, n: int) -> np.ndarray:
    """``n`` standard normals from ``default_rng([seed, crc32(name)])`` via Box-Muller on ``random()``."""
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    m = (n + 1) // 2
    u1 = 1.0 - rng.random(m)  # (0, 1]
    u2 = rng.random(m)
    r = np.sqrt(-2.0 * np.log(u1))
    z = np.concatenate([r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)])
    return z[:n]


def weight_recipe(state: dict) -> dict:
    """Per floating tensor: shape, dtype, mean, std, min, max (the recipe :func:`regenerate_state` uses)."""
    out = {}
    for name, t in state.items():
        a = t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)
        if a.dtype.kind != "f" or a.size == 0:
            continue
        a64 = a.astype(np.float64)
        out[name] = {"shape": list(a.shape), "dtype": str(a.dtype), "mean": float(a64.mean()),
                     "std": float(a64.std()), "min": float(a64.min()), "max": float(a64.max())}
    return out


def regenerate_state(recipe: dict, seed: int) -> dict[str, np.ndarray]:
    """Arrays following ``recipe`` (see module docstring); identical on every machine for one seed."""
    arrays = {}
    for name, r in recipe.items():
        n = int(np.prod(r["shape"])) if r["shape"] else 1
        z = _tensor_stream(seed, name, n)
        a = np.clip(r["mean"] + r["std"] * z, r["min"], r["max"]) if r["std"] > 0 else np.full(n, r["mean"])
        arrays[name] = a.reshape(r["shape"]).astype(r["dtype"])
    return arrays


def checksums(arrays: dict[str, np.ndarray]) -> dict[str, float]:
    """float64 sum of each array (a cheap fingerprint to prove both sides regenerated the same weights)."""
    return {k: float(v.astype(np.float64).sum()) for k, v in arrays.items()}


def load_state(model, arrays: dict[str, np.ndarray]) -> None:
    """Copy ``arrays`` into the matching entries of ``model.state_dict()``.

    Raises:
        UserError: a name is missing or a shape differs (e.g. another transformers version renamed it).
    """
    import torch
    state = model.state_dict()
    for name, a in arrays.items():
        if name not in state or tuple(state[name].shape) != a.shape:
            raise UserError(f"weight {name} {a.shape} has no match in this model's state_dict "
                            "(different transformers version?)")
        with torch.no_grad():
            state[name].copy_(torch.from_numpy(a))


# ---------------------------------------------------------------------------------------------
# build host

def _bundle(model: str, seed: int):
    from common.models import build_model
    kw = {"batch": 1}
    if model == "bert":
        kw["seq"] = 128
    return build_model(model, seed=seed, **kw)


def export(model: str, out_dir: Path, *, arch: str = DEFAULT_ARCH, seed: int = 0) -> dict:
    """Import ``model`` into Relax, build it for ``cuda -arch=<arch>`` here, save what the GPU host needs.

    Writes ``<out_dir>/<model>/``: ``lib.so`` (exported Relax VM executable), ``inputs.npz``,
    ``reference.npz`` (PyTorch CPU outputs with the regenerated weights), ``manifest.json``
    (weight recipe, checksums, parameter order, target, build seconds).

    Raises:
        MissingDependency: no ``nvcc`` on PATH (TVM needs it to compile CUDA kernels).
    """
    import shutil

    import tvm

    from ..build import host_target
    from ..graph.frontend import import_torch

    if shutil.which("nvcc") is None:
        raise MissingDependency("building for CUDA needs nvcc (the CUDA toolkit) on PATH; install it or skip the GPU step")
    bundle = _bundle(model, seed)
    recipe = weight_recipe(bundle.model.state_dict())
    arrays = regenerate_state(recipe, seed)
    load_state(bundle.model, arrays)
    im = import_torch(bundle)
    names = [n for n, _ in bundle.model.named_parameters()]
    if len(names) != len(im.params):
        raise UserError(f"{model}: {len(im.params)} Relax parameters but {len(names)} torch parameters")
    for n, p in zip(names, im.params):  # prove the parameter order before trusting it on the GPU host
        if not np.array_equal(p.numpy(), arrays[n]):
            raise UserError(f"{model}: Relax parameter order differs from torch's at {n}")
    target = tvm.target.Target({"kind": "cuda", "arch": arch}, host=host_target())
    t0 = time.perf_counter()
    ex = tvm.compile(im.mod, target)  # the CUDA relax pipeline: legalize, fuse, dlight default schedules
    build_s = time.perf_counter() - t0
    d = out_dir / model
    d.mkdir(parents=True, exist_ok=True)
    with atomic_output(d / "lib.so") as tmp:
        ex.export_library(str(tmp))
    for file, arrays_ in (("inputs.npz", im.inputs), ("reference.npz", im.reference)):
        buf = io.BytesIO()
        np.savez(buf, **arrays_)
        atomic_write(d / file, buf.getvalue())
    manifest = {"model": model, "seed": seed, "arch": arch, "target": str(target), "build_s": build_s,
                "inputs": list(im.inputs), "outputs": im.output_names, "param_order": names,
                "recipe": recipe, "checksums": checksums(arrays), "meta": bundle.meta}
    atomic_write(d / "manifest.json", json.dumps(manifest, indent=1))
    print(f"[cuda-export] {model}: built for {arch} in {build_s:.1f} s; lib.so {(d / 'lib.so').stat().st_size / 1e6:.1f} MB")
    return manifest


# ---------------------------------------------------------------------------------------------
# device host

def _time(fn, sync, warmup: int, repeats: int):
    """:class:`common.timing.TimingStats` of ``fn(); sync()`` (device work finished inside each sample)."""
    from common.timing import measure
    return measure(lambda: (fn(), sync()), warmup=warmup, repeats=repeats)


def _load_cuda_runtime() -> None:
    """Load ``libtvm_runtime_cuda.so`` beside ``libtvm_runtime``: runtime-only TVM does not load it itself."""
    import ctypes

    import tvm
    if tvm.runtime.enabled("cuda"):
        return
    lib = Path(tvm.__file__).parent / "lib" / "libtvm_runtime_cuda.so"
    try:
        ctypes.CDLL(str(lib), ctypes.RTLD_GLOBAL)
    except OSError as exc:
        raise MissingDependency(f"TVM's CUDA runtime ({lib.name}) does not load: {exc}; put libcudart on LD_LIBRARY_PATH") from exc


def _register_nvcc(arch: str) -> None:
    """Compile the library's CUDA C kernels with ``nvcc --fatbin -arch=<arch>`` when it is loaded.

    Without a GPU on the build host, TVM's CUDA runtime is not linked there, so ``tvm.compile``
    stores the generated CUDA C source in a fallback module that compiles on first load through the
    ``tvm_callback_cuda_compile`` global function. TVM's own callback needs the compiler library
    (``Target.current``), absent in runtime-only TVM, so this registers one that calls nvcc.

    Raises:
        MissingDependency: no nvcc on PATH or in /usr/local/cuda/bin.
    """
    import shutil
    import subprocess
    import tempfile

    import tvm_ffi
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    if nvcc is None:
        raise MissingDependency("loading the CUDA kernels needs nvcc on the device host (CUDA toolkit)")

    @tvm_ffi.register_global_func("tvm_callback_cuda_compile", override=True)
    def _compile(code, *_):
        with tempfile.TemporaryDirectory() as td:
            src, out = Path(td) / "k.cu", Path(td) / "k.fatbin"
            src.write_text(code)
            proc = subprocess.run([nvcc, "--fatbin", "-O3", f"-arch={arch}", "-o", str(out), str(src)],
                                  capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(f"nvcc failed: {proc.stderr[-2000:]}")
            return bytearray(out.read_bytes())


def run_one(d: Path, *, repeats: int = 50) -> dict:
    """Load ``d/lib.so`` with TVM's runtime on ``cuda(0)``, gate it, time it (and PyTorch eager on CUDA).

    Returns:
        one table row; times in ms (median and p90 of ``repeats`` runs), load in s. A failed gate does not
        raise: the row's ``gate`` says ``FAIL: ...``.

    Raises:
        MissingDependency: TVM's CUDA runtime does not load, no CUDA device is visible, or no ``nvcc`` (it
            compiles the kernels at load).
        UserError: the weights regenerated here differ from the build host's (``manifest.json`` checksums).
    """
    import tvm
    from tvm.runtime.vm import VirtualMachine

    from common.gates import compare

    manifest = json.loads((d / "manifest.json").read_text())
    _load_cuda_runtime()
    dev = tvm.cuda(0)
    if not dev.exist:
        raise MissingDependency("no CUDA device visible to TVM (tvm.cuda(0).exist is False)")
    arrays = regenerate_state(manifest["recipe"], manifest["seed"])
    sums = checksums(arrays)
    bad = [k for k, v in manifest["checksums"].items() if not np.isclose(sums[k], v, rtol=1e-12, atol=1e-9)]
    if bad:
        raise UserError(f"regenerated weights differ from the build host's for {len(bad)} tensors (first: {bad[0]})")
    inputs = dict(np.load(d / "inputs.npz"))
    reference = dict(np.load(d / "reference.npz"))
    _register_nvcc(manifest["arch"])
    t0 = time.perf_counter()
    vm = VirtualMachine(tvm.runtime.load_module(str(d / "lib.so")), dev)
    load_s = time.perf_counter() - t0
    args = [tvm.runtime.tensor(inputs[k], dev) for k in manifest["inputs"]]
    args += [tvm.runtime.tensor(arrays[n], dev) for n in manifest["param_order"]]
    out = vm["main"](*args)
    outs = [out] if hasattr(out, "numpy") else list(out)
    got = {n: o.numpy() for n, o in zip(manifest["outputs"], outs)}
    gate_kw, gate_words = gate_for(reference)
    rep = compare(reference, got, stage="tvm_cuda", **gate_kw)
    tvm_ms = _time(lambda: vm["main"](*args), dev.sync, 5, repeats)
    row = {"model": manifest["model"], "arch": manifest["arch"], "gpu": _gpu_name(),
           "gate": "pass" if rep.passed else f"FAIL: {rep.first_failure}", "gate_rule": gate_words,
           "max_abs": rep.max_abs(),
           "tvm_cuda_untuned_ms": tvm_ms.median_ms, "tvm_cuda_p90_ms": tvm_ms.p90_ms,
           "build_s_on_cpu_host": manifest["build_s"],
           "load_and_nvcc_s": load_s}
    row.update(_torch_cuda(manifest, arrays, inputs, reference, repeats))
    if isinstance(row.get("torch_cuda_eager_ms"), float):
        row["speedup_tvm_over_eager"] = row["torch_cuda_eager_ms"] / row["tvm_cuda_untuned_ms"]
    return row


def _gpu_name() -> str:
    try:
        import torch
        return torch.cuda.get_device_name(0)
    except Exception:  # torch absent or no device: the name is informational only
        return "unknown"


def _torch_cuda(manifest: dict, arrays, inputs, reference, repeats: int) -> dict:
    """PyTorch eager on cuda(0) with the same weights (TF32 off), or the reason it was skipped."""
    try:
        import torch
        if not torch.cuda.is_available():
            return {"torch_cuda_eager_ms": "skipped: torch sees no CUDA device"}
        bundle = _bundle(manifest["model"], manifest["seed"])
        load_state(bundle.model, arrays)
    except (ImportError, UserError, TypeError, ValueError) as exc:
        return {"torch_cuda_eager_ms": f"skipped: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"}
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = bundle.model.to("cuda").eval()
    feed = {k: torch.from_numpy(v).to("cuda") for k, v in inputs.items()}
    with torch.no_grad():
        out = model(**feed)
        outs = (out,) if isinstance(out, torch.Tensor) else out
        ref0 = reference[manifest["outputs"][0]]
        err = float(np.abs(outs[0].float().cpu().numpy() - ref0).max() / max(np.abs(ref0).max(), 1e-30))
        ms = _time(lambda: model(**feed), torch.cuda.synchronize, 5, repeats)
    return {"torch_cuda_eager_ms": ms.median_ms, "torch_cuda_rel_err": err,
            "torch_version": torch.__version__}


def _main(argv: Sequence[str] | None = None) -> int:
    """CLI: ``export`` (build here) or ``run`` (on the GPU host); 0 when every gate passes.

    Raises:
        UserError: bad arguments, or no exported models under ``--dir``.
        GateFailed: a model's CUDA outputs differ from PyTorch's (after the table is written).
    """
    from common.cli import parser
    ap = parser("python -m lab02_tvm.targets.cuda_remote", __doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="build for CUDA here (needs nvcc, no GPU)")
    e.add_argument("--model", choices=["resnet50", "bert", "llama_tiny", "all"], default="all")
    e.add_argument("--arch", default=DEFAULT_ARCH, help="CUDA architecture, e.g. sm_90 (H100/H200), sm_80 (A100)")
    e.add_argument("--out", type=Path, default=Path("build/cuda"))
    e.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("run", help="run the exported libraries on cuda(0) and write the table")
    r.add_argument("--dir", type=Path, default=Path("build/cuda"))
    r.add_argument("--out", type=Path, default=None, help="results folder (default results/lab02)")
    r.add_argument("--repeats", type=int, default=50)
    args = ap.parse_args(argv)
    if args.cmd == "run" and args.repeats < 1:
        raise UserError(f"--repeats must be >= 1 (got {args.repeats})")
    if args.cmd == "export" and not (args.arch.startswith("sm_") and args.arch[3:].rstrip("af").isdigit()):
        raise UserError(f"--arch must name a CUDA architecture such as sm_90 or sm_80 (got {args.arch!r})")
    if args.cmd == "export":
        for m in (["resnet50", "bert"] if args.model == "all" else [args.model]):
            export(m, args.out, arch=args.arch, seed=args.seed)
        return 0
    if args.out is not None:
        os.environ["MLC_RESULTS_DIR"] = str(args.out)
    from common.results import write_table
    from common.timing import environment
    dirs = sorted(p.parent for p in args.dir.glob("*/manifest.json"))
    if not dirs:
        raise UserError(f"no exported models under {args.dir} (run `export` first)")
    rows = []
    for d in dirs:
        row = run_one(d, repeats=args.repeats)
        print(json.dumps(row))
        rows.append(row)
    write_table("lab02" if args.out is None else "", "cuda_remote", rows,
                title="TVM CUDA (untuned, dlight default schedules) vs PyTorch eager CUDA, batch 1",
                env=environment(threads=None, repeats=args.repeats),
                meta={"build": "built on a CPU-only host with nvcc; run with TVM's runtime-only library",
                      "gate": "lab02_tvm.build.gate_for: absolute 1e-4 up to output scale 10, else relative "
                              "1e-4 * max|pytorch_cpu| (gate_rule column)", "tf32": "off"})
    failed = [f"{r['model']}: {r['gate']}" for r in rows if r["gate"] != "pass"]
    if failed:
        raise GateFailed("; ".join(failed))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(_main))
