"""ONNX Runtime's QNN execution provider on the HTP backend: registration, sessions, static shapes.

The QNN EP ships as a *plugin* execution provider (``pip install onnxruntime-qnn``, 2.7.0 for
onnxruntime >= 1.24): the wheel carries ``libonnxruntime_providers_qnn.so`` plus Qualcomm's QNN
libraries (``libQnnHtp.so``: the HTP backend, which on x86 Linux runs the Hexagon graph through
its own emulation; ``libHtpPrepare.so``: the graph preparer, i.e. the QNN compiler). A session
gets it in two steps (https://onnxruntime.ai/docs/execution-providers/QNN-ExecutionProvider.html)::

    ort.register_execution_provider_library("QNNExecutionProvider", onnxruntime_qnn.get_library_path())
    so.add_provider_for_devices([d for d in ort.get_ep_devices() if d.ep_name == "QNNExecutionProvider"],
                                {"backend_type": "htp", ...})

Precision of a float model on HTP (measured here with onnxruntime-qnn 2.7.0, QNN 2.40):

* ``fp16`` (``enable_htp_fp16_precision=1``, the EP's own default and this module's): everything in
  fp16 (a 64-wide MatMul is off by ~1e-3 relative). The preparer refuses to finalize it
  ("QNN_COMMON_ERROR_MEM_ALLOC") unless ``soc_model`` and ``htp_arch`` are set, so this module sets
  ``soc_model=43`` (SM8550), ``htp_arch=73`` (Hexagon v73) by default; a bare
  ``{"backend_type": "htp"}`` fails on a float model.
* ``fp32`` (``enable_htp_fp16_precision=0``) with no SoC named: a 64-wide MatMul stays fp32 (4e-6),
  elementwise ops come back at fp16 resolution (a lone Relu is off by up to 2^-11 relative), and
  LLaMA-tiny fails to finalize. With any ``soc_model``/``htp_arch`` the float path is fp16 whatever
  the flag. So gates are stated for fp16, relative to each output's scale.

Bad settings: an unknown ``soc_model`` / ``htp_arch`` is only a warning or an error *line in the
log* and ORT silently falls back to the CPU; :func:`qnn_session` reads the log and raises
:class:`~common.errors.UserError` with QNN's own message instead.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

import onnx

from common.errors import UserError, require
from common.onnx_dims import DIMS_OPTION, all_numbers, dynamic_inputs  # noqa: F401 (all_numbers: Task 4.1)
from common.native_output import capture_fd
from common.onnx_graph import dim_labels as _dims  # noqa: F401 (Task 4.1's fix_dims reads dims with it)

EP = "QNNExecutionProvider"
PIP_NAME = "onnxruntime-qnn"
#: soc_model / htp_arch used when fp16 needs them: 43 = SM8550 (Snapdragon 8 Gen 2), whose NPU is a
#: Hexagon v73 (QNN's own message names 43 <-> SM8550; "SM8550" is accepted as well).
DEFAULT_SOC, DEFAULT_ARCH = "43", "73"
PRECISIONS = ("fp32", "fp16")
#: The option that takes the sizes of symbolic dims: the common ``--dims a=1,b=2``
#: (:data:`common.onnx_dims.DIMS_OPTION`, parsed by :func:`common.onnx_dims.add_dims_argument`).
FIX_DIMS_OPTION = DIMS_OPTION


def require_qnn():
    """Import ``onnxruntime_qnn`` or raise :class:`~common.errors.MissingDependency` with the install line."""
    return require("onnxruntime_qnn", PIP_NAME, "Lab 04 (ONNX Runtime's QNN execution provider, HTP backend)")


def qnn_devices() -> list:
    """Register the QNN plugin EP once per process and return its ``OrtEpDevice`` list.

    Raises:
        MissingDependency: ``onnxruntime-qnn`` is not installed (message carries the pip line).
        UserError: the library registers but offers no device.
    """
    mod = require_qnn()
    import onnxruntime as ort

    devs = [d for d in ort.get_ep_devices() if d.ep_name == EP]
    if not devs:
        ort.register_execution_provider_library(EP, mod.get_library_path())
        devs = [d for d in ort.get_ep_devices() if d.ep_name == EP]
    if not devs:
        raise UserError(f"{PIP_NAME} registered {mod.get_library_path()} but it offers no {EP} device")
    return devs


def provider_options(precision: str = "fp16", soc_model: str | None = None, htp_arch: str | None = None,
                     **extra: str) -> dict[str, str]:
    """QNN EP options for the HTP backend at ``precision`` (``fp16``, the default, or ``fp32``; see module doc).

    Raises:
        UserError: unknown precision.
    """
    if precision not in PRECISIONS:
        raise UserError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
    opts = {"backend_type": "htp", "enable_htp_fp16_precision": "1" if precision == "fp16" else "0"}
    if precision == "fp16":
        soc_model, htp_arch = soc_model or DEFAULT_SOC, htp_arch or DEFAULT_ARCH
    if soc_model:
        opts["soc_model"] = str(soc_model)
    if htp_arch:
        opts["htp_arch"] = str(htp_arch)
    opts.update({k: str(v) for k, v in extra.items()})
    return opts


# ------------------------------------------------------------------------------------------------
# static shapes
# ------------------------------------------------------------------------------------------------

def check_static(model: onnx.ModelProto, option: str = FIX_DIMS_OPTION) -> None:
    """Raise a one-line :class:`UserError` naming the first input with a dynamic dim and the fix.

    QNN's HTP graph preparer compiles for fixed shapes (an NPU binary has its buffers laid out at
    compile time), so a symbolic ``batch``/``sequence`` must be fixed first. Dynamic inputs are
    :func:`common.onnx_dims.dynamic_inputs` (an axis that is not a number >= 0).
    """
    dyn = dynamic_inputs(model)
    if dyn:
        name, dims = next(iter(dyn.items()))
        params = sorted({d for v in dyn.values() for d in v if isinstance(d, str)})
        example = ",".join(f"{p}=1" for p in params if p != "?")
        fixes = [f"fix them with {option} {example} (onnxruntime.tools.onnx_model_utils.make_dim_param_fixed)"] if example else []
        if "?" in params or any(isinstance(d, int) and d < 0 for v in dyn.values() for d in v):
            # an unset dim (or a negative size, as some converters write a dynamic axis) has no name for --dims
            fixes.append("an axis with no name ('?' or a negative size) needs the input's shape fixed "
                         "(onnxruntime.tools.onnx_model_utils.make_input_shape_fixed) or a name at export")
        raise UserError(f"input {name!r} has dynamic dims {dims}: QNN's HTP backend needs static shapes; "
                        + "; ".join(fixes))


def fix_dims(model: onnx.ModelProto, dims: Mapping[str, int]) -> onnx.ModelProto:
    """A copy of ``model`` whose symbolic dims ``dims`` (e.g. ``{"batch": 1, "sequence": 32}``) are numbers.

    Task 4.1 (``lab04.static``; lab04_npu/TASKS.md). QNN's HTP graph preparer lays every buffer out at
    compile time, so it takes only static shapes (:func:`check_static`).

    Contract:

    * ``model`` is not modified; the copy is ``model`` with the dims below changed and nothing else: the
      same nodes, initializers, ``value_info`` entries (none added or dropped), names, opsets, IR
      version, local functions, metadata and doc strings;
    * every ``dim_param`` named in ``dims``, wherever it occurs (graph inputs, outputs, ``value_info``,
      subgraphs at any depth, their inputs included), becomes ``dim_value = dims[name]``, also where
      shape inference could not size it; every other dim stays as it was;
    * a graph output with a dim still not a number afterwards (a name the exporter made itself, e.g.
      ``2*sequence`` of a Concat, or an unset dim) gets the shape ONNX shape inference gives it from the
      fixed inputs, when that shape is fully static (every dim a number >= 0: a zero-size axis is a number;
      otherwise it stays as it was). Left open: whether
      an output declaring no shape at all (rank unknown) takes a fully static inferred shape, whether
      inference propagates data (``data_prop``), and whether a fixed dim keeps its ``denotation``;
    * afterwards no graph input has a dynamic dim (:func:`check_static`: a name, an unset dim or a
      negative size), also when ``dims`` is empty.

    What ``onnxruntime.tools.onnx_model_utils.make_dim_param_fixed`` (per name) and
    ``fix_output_shapes`` do (the latter counts a 0 dim as dynamic; https://onnxruntime.ai/docs/tutorials/mobile/helpers/make-dynamic-shape-fixed.html);
    shape inference (https://onnx.ai/onnx/api/shape_inference.html) need not see the weights: run it
    on :func:`lab04_npu.graphfacts.skeleton` (same types, no large initializers).

    Args:
        model: an ONNX model with symbolic dims (Lab 01's export: ``batch``, ``sequence``).
        dims: ``{dim_param: value}``, each value an int > 0.

    Raises:
        UserError: a name that is not a ``dim_param`` of the model's graph inputs or outputs (also one
            only a ``value_info`` or a subgraph declares, ``""``, ``"?"``, an ``INPUT:AXIS`` name, or any
            name for a model with no symbolic dims; the message names it and lists the ones the model
            has), a value that is not > 0, or a graph input left
            with a dynamic dim (:func:`check_static`'s message: the input and the ``--dims`` fix). The
            message is one line; which error a call with several faults reports is left open.
    """
    ### BEGIN SOLUTION lab04.static
    from onnxruntime.tools.onnx_model_utils import make_dim_param_fixed

    known = {d for vi in list(model.graph.input) + list(model.graph.output) for d in _dims(vi)
             if isinstance(d, str) and d != "?"}  # "?": an unset dim, which has no name
    for name, value in dims.items():
        if name not in known:
            raise UserError(f"{FIX_DIMS_OPTION}: the model has no symbolic dim {name!r}; it has {sorted(known) or 'none'}")
        if int(value) <= 0:
            raise UserError(f"{FIX_DIMS_OPTION}: {name}={value} must be > 0")
    from lab04_npu.graphfacts import skeleton

    out = onnx.ModelProto()
    out.CopyFrom(model)
    for name, value in dims.items():
        make_dim_param_fixed(out.graph, name, int(value))
    def static(vi: onnx.ValueInfoProto) -> bool:  # a shape whose every dim is a number >= 0 (0: an empty axis)
        return vi.type.tensor_type.HasField("shape") and all_numbers(_dims(vi))

    # onnxruntime.tools.onnx_model_utils.fix_output_shapes's rule, save that it counts a 0 dim as dynamic
    inferred = onnx.shape_inference.infer_shapes(skeleton(out))  # not on 400 MB of weights
    for o, io in zip(out.graph.output, inferred.graph.output):
        if not static(o) and static(io):
            o.type.tensor_type.shape.CopyFrom(io.type.tensor_type.shape)
    check_static(out)
    return out
    ### END SOLUTION


# ------------------------------------------------------------------------------------------------
# sessions
# ------------------------------------------------------------------------------------------------

#: log lines that mean QNN did not take the settings: turned into one UserError line
_SETTING_ERRORS = re.compile(
    r"(Unrecognized soc_model [^\n]*|Invalid HTP architecture[^\n]*|QNN SetupBackend failed[^\n]*"
    r"|Failed to finalize QNN graph[^\n]*)")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: The one line the HTP backend's emulation library (libnative, inside ``libQnnHtp.so``) prints on
#: *stdout* when the first session of a process loads it: it found no ``libnative_tls.conf`` and keeps
#: its default thread-local storage. Information only; no option or log level of the EP turns it off
#: (setting ``LIBNATIVE_CONFIG`` prints other lines instead and changes that behaviour), so
#: :func:`qnn_session` captures stdout around session creation, drops this line and passes on the rest.
_LIBNATIVE_BANNER = re.compile(r"^[ \t]*# LIBNATIVE: No alternate configuration present[^\n]*(?:\n|$)", re.M)


@dataclass
class QnnSession:
    """An ``InferenceSession`` with the QNN EP, and the verbose log written while it was created.

    Attributes:
        session: ``onnxruntime.InferenceSession``.
        log: ORT + QNN log text of session creation (severity 0 when ``verbose_log``).
        options: the QNN provider options used.
    """

    session: object
    log: str = ""
    options: dict = field(default_factory=dict)

    def run(self, feeds: Mapping) -> dict:
        """Run and return ``{output name: np.ndarray}``."""
        names = [o.name for o in self.session.get_outputs()]
        with capture_fd(2):  # a session created with the verbose log also logs every run
            values = self.session.run(names, dict(feeds))
        return dict(zip(names, values))


def _setting_error(log: str, options: Mapping[str, str]) -> str | None:
    m = _SETTING_ERRORS.search(_ANSI.sub("", log))
    if not m:
        return None
    chosen = ", ".join(f"{k}={options[k]}" for k in ("soc_model", "htp_arch") if k in options)
    return f"QNN rejected the HTP settings ({chosen or 'defaults'}): {m.group(1).strip()}"


def qnn_session(model: onnx.ModelProto | str | os.PathLike, *, precision: str = "fp16",
                soc_model: str | None = None, htp_arch: str | None = None, level: str = "DISABLE_ALL",
                verbose_log: bool = False, config: Mapping[str, str] | None = None,
                threads: int = 1, **extra: str) -> QnnSession:
    """Create a session with the QNN EP (HTP backend) first and the CPU EP as fallback.

    Args:
        model: a static-shape model (ModelProto or path). A path keeps external files (an
            EP-context model's ``*_qnn.bin``) resolvable next to it.
        precision, soc_model, htp_arch, extra: see :func:`provider_options`.
        level: ORT graph optimization level (``DISABLE_ALL`` keeps every node of the file, so the
            log's verdicts map one-to-one onto it; ``ALL`` is what a deployment uses).
        verbose_log: log at severity 0 (every node's QNN verdict) and keep it in ``.log``.
        config: extra session config entries (e.g. ``ep.context_enable``).
        threads: ORT intra-op threads (the CPU EP's share of the graph); inter-op is 1.

    Returns:
        :class:`QnnSession` (``.log`` empty unless ``verbose_log``).

    Raises:
        UserError: dynamic input shapes (:func:`check_static`); unknown ``precision``; the QNN
            library offers no device; QNN rejected ``soc_model``/``htp_arch`` or could not finalize
            the graph (QNN's message in one line); ORT could not create the session.
        MissingDependency: ``onnxruntime-qnn`` is absent.
        ValueError: unknown ``level`` (:func:`common.timing.ort_session_options`).
        OSError: ``model`` is a path that cannot be read (``onnx.load``).
    """
    import onnxruntime as ort

    from common.timing import ort_session_options

    proto = model if isinstance(model, onnx.ModelProto) else onnx.load(str(model), load_external_data=False)
    check_static(proto)
    devs = qnn_devices()
    opts = provider_options(precision, soc_model, htp_arch, **extra)
    so = ort_session_options(threads, level)
    so.log_severity_level = 0 if verbose_log else 2
    so.log_verbosity_level = 0
    for k, v in (config or {}).items():
        so.add_session_config_entry(k, str(v))
    so.add_provider_for_devices(devs, opts)
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    with capture_fd(1) as printed, capture_fd(2) as cap:
        try:
            sess = ort.InferenceSession(src, so)
            err = None
        except Exception as exc:  # ORT raises a generic RuntimeError/Fail with QNN's text
            sess, err = None, exc
    other = _LIBNATIVE_BANNER.sub("", printed.text)
    if other:  # anything else a native library printed: not ours to hide
        sys.stdout.write(other)
        sys.stdout.flush()
    why = _setting_error(cap.text, opts)
    if why:
        raise UserError(why)
    if err is not None:
        from common.onnx_utils import ort_message

        raise UserError(f"onnxruntime could not create the QNN session: {ort_message(err, 300)}") from err
    return QnnSession(sess, cap.text if verbose_log else "", opts)
