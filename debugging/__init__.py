"""Debugging the ladder: Model Explorer with the labs' numbers, a reducer, and fp16 in TVM.

- :mod:`debugging.viewer`: Google's Model Explorer on any stage with node-data overlays
  (:mod:`debugging.overlays`: per-node max |diff|, removed/added nodes, bytes and liveness).
- :mod:`debugging.reduce` / :mod:`debugging.replay`: shrink a divergence to a minimal ONNX repro in
  the ONNX test-data layout and replay it.
- :mod:`debugging.fp16`: "right in PyTorch, NaN in TVM": Relax ``ToMixedPrecision`` builds,
  per-layer comparison against the fp32 build, and the fp32-accumulation fix.
"""
