"""Lab 01: ONNX export, three custom graph passes, validation gates, latency, INT8 QDQ, bisection.

Entry points: ``python -m lab01_onnx.pipeline`` (the seed's steps), ``python -m lab01_onnx.divergence``,
``python -m lab01_onnx.proof.{conformance,fuzz}`` and ``python -m lab01_onnx.tools.{fusions,whatran,
memplan,customop}``; see README.md for the layout.
"""
