"""Lab 02: Apache TVM 0.27 — PyTorch / ONNX → Relax → TIR → (MetaSchedule) → native code.

Folders, one job each (README.md has the walk-through):

- ``pipeline/`` — ``python -m lab02_tvm.pipeline``: the run's settings (:mod:`.pipeline.settings`),
  every step as one function (:mod:`.pipeline.steps`), the entry point (:mod:`.pipeline.run`).
- :mod:`lab02_tvm.models` — the one model table (which models, built how, default budgets).
- ``graph/`` — steps 1-3: import into Relax, struct info, the standard passes, the GELU rewrite.
- :mod:`lab02_tvm.build` — step 4: untuned build for the host CPU, Relax VM run, the numeric gate.
- :mod:`lab02_tvm.profile` — each kernel's FLOPs, bytes and time in a Relax VM run (what the roofline,
  the comparisons and the search's in-model timing read).
- ``lowering/`` — below the schedule, shared by the search and the lessons: the fp32 register tile as a
  ``TensorIntrin``, FastExp (the TIR pass every tuned build lowers with), a kernel's anchor block.
- ``schedule/`` — the hand-written schedule of the hottest kernel (step 5), AutoTVM's template against
  MetaSchedule's space (step 14) and the custom TIR pass (step 10, the student task).
- ``tuning/`` — MetaSchedule: tasks, budget plan, the tune loop, the database, building from it,
  the shipped records and the long run that makes them, the method, RPC.
- ``measure/`` — the comparison, the roofline, the peers, the layout assignment and the method
  study.
- ``targets/`` — AArch64 cross-compilation and the CUDA build run on a GPU host.
"""

LAB = "lab02"
