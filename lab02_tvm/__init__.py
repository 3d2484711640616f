"""Lab 02: Apache TVM 0.27 — PyTorch / ONNX → Relax → TIR → (MetaSchedule) → native code.

Modules (one per step family, see README.md):

- :mod:`lab02_tvm.relax_import` — steps 1-3: import into Relax, struct-info summary, standard passes.
- :mod:`lab02_tvm.build` — step 4: untuned build for the host CPU, Relax VM run, numeric gate.
- :mod:`lab02_tvm.schedules` — step 5: hand-written schedule of the hottest kernel.
- :mod:`lab02_tvm.tuning` — step 6: MetaSchedule tuning and build from the database.
- :mod:`lab02_tvm.cross` — step 8: cross-compile for AArch64 (Cortex-A55), ELF check.
- :mod:`lab02_tvm.rpc` — step 9: tuning through an RPC tracker on loopback.
- :mod:`lab02_tvm.cuda_remote` — build for CUDA here (no GPU needed), run and check on a GPU host.
- :mod:`lab02_tvm.tir_pass` — step 10: a custom TIR loop-reordering pass in the lowering pipeline.
- :mod:`lab02_tvm.pipeline` — ``python -m lab02_tvm.pipeline``: all steps in order.
"""

LAB = "lab02"
