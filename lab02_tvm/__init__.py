"""Lab 02: Apache TVM 0.27 — PyTorch / ONNX → Relax → TIR → (MetaSchedule) → native code.

Modules (one per step family, see README.md):

- :mod:`lab02_tvm.pipeline` — ``python -m lab02_tvm.pipeline``: all steps in order (steps 1-4 here).
- :mod:`lab02_tvm.relax_import` — steps 1-3: import into Relax, struct-info summary, standard passes.
- :mod:`lab02_tvm.build` — step 4: untuned build for the host CPU, Relax VM run, the numeric gate.
- :mod:`lab02_tvm.tuned` — steps 5-7: hottest kernel, records or tuning + coverage gate, comparison.
- :mod:`lab02_tvm.schedules` — step 5: hand-written schedule of the hottest kernel.
- :mod:`lab02_tvm.tuning` — step 6: MetaSchedule tasks, budget, tuning, build from the database
  (:mod:`lab02_tvm.ms_setup`: its builder, runner, database and progress plumbing).
- :mod:`lab02_tvm.records` — the shipped tuning records (``python -m lab02_tvm.records``: the long run).
- :mod:`lab02_tvm.extras` — steps 8-12 as the pipeline calls them:
  :mod:`lab02_tvm.cross` (AArch64 cross-compile), :mod:`lab02_tvm.rpc` (tuning over RPC),
  :mod:`lab02_tvm.tir_pass` (a custom TIR pass), :mod:`lab02_tvm.roofline` (kernels under the
  roof), :mod:`lab02_tvm.peers` (eager, torch.compile, ONNX Runtime, TVM).
- :mod:`lab02_tvm.layout`, :mod:`lab02_tvm.search_space` — layout assignment; AutoTVM-style
  template vs MetaSchedule's generated space (their own commands).
- :mod:`lab02_tvm.cuda_remote` — build for CUDA here (no GPU needed), run and check on a GPU host.
"""

LAB = "lab02"
