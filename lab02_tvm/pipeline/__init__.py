"""Lab 02 pipeline: PyTorch / ONNX → Relax → TIR → MetaSchedule → native code (``python -m lab02_tvm.pipeline``).

Steps (one function each in :mod:`.steps`, run in order by :func:`.run.main`; each prints ``[N step]``
lines and checks a gate; ``--only STEP`` runs one step and what it builds on, ``--skip-STEP`` drops it and the steps that
build on it, e.g. ``--skip-passes`` every step made from the pass list):

1. import ResNet-50, BERT-base and LLaMA-tiny (sequence 32 and 128) with torch.export → Relax, and
   Lab 01's LLaMA-tiny ONNX (from_onnx, gated against ONNX Runtime);
2. struct info / well-formedness summary;
3. standard Relax passes with a before/after counts table;
4. untuned build for the host CPU (``llvm`` + host ``mcpu``), gated against PyTorch; the ``cuda``
   path, skipped with the reason when there is no GPU;
5. manual schedule of the hottest kernel (naive vs manual vs tuned) — :mod:`lab02_tvm.schedule.manual`; its
   tuned point comes from step 6, so ``--only schedule`` runs step 6 too, which with ``--quick`` (no shipped
   records) tunes for up to ``--tune-minutes`` (``--tune-minutes 1`` keeps it short);
6. tuning records: the shipped ones for this host target (``results/lab02/tuning/<target>/<model>``),
   else MetaSchedule tuning with this run's budget; build from them, coverage and numeric gates —
   :mod:`lab02_tvm.tuning.records`, :mod:`lab02_tvm.tuning.serve`;
7. comparison table + plot: PyTorch eager vs TVM untuned vs TVM tuned — :mod:`lab02_tvm.measure.compare`;
8. cross-compile for AArch64 Cortex-A55, ELF check — :mod:`lab02_tvm.targets.cross`;
9. tuning over an RPC tracker on loopback — :mod:`lab02_tvm.tuning.rpc`;
10. extension: the custom TIR loop-reordering pass in the lowering pipeline, measured — :mod:`lab02_tvm.schedule.tir_pass`;
11. roofline: every kernel of the untuned and tuned builds under the machine's roof — :mod:`lab02_tvm.measure.roofline`;
    and the GEMM shapes of ResNet-50 and BERT-base in NumPy's, PyTorch's and ONNX Runtime's BLAS, warm and
    cold: what a library reaches on them — :mod:`lab02_tvm.measure.gemm_ceiling`;
12. peers: PyTorch eager, torch.compile, ONNX Runtime and TVM tuned in one run — :mod:`lab02_tvm.measure.peers`;
13. layout assignment on ResNet-50, NCHW vs NHWC — :mod:`lab02_tvm.measure.layout`;
14. AutoTVM-style template vs MetaSchedule's space on the hottest kernel — :mod:`lab02_tvm.schedule.search_space`;
15. ResNet-50 convolution by convolution, the tuned build against ONNX Runtime's profiler, interleaved:
    where step 12's gap to ONNX Runtime is — :mod:`lab02_tvm.measure.vs_ort`.

Timings: 1 thread by default (``--threads``), PyTorch eager and TVM tuned interleaved in one run.
Untuned TVM runs naive single-threaded loops (ResNet-50 ~4 s, BERT-base ~25 s per inference), so
its repeats are tiny (``--untuned-repeats``); those numbers are a baseline, not a benchmark.
"""
