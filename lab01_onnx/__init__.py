"""Lab 01: ONNX export, three custom graph passes, validation gates, latency, INT8 QDQ, bisection.

Entry points: ``python -m lab01_onnx.pipeline`` and ``python -m lab01_onnx.bisect``; see README.md.
"""
