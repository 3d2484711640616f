"""Lab 02 ``measure/``: compare (step 7), roofline, peers, layout, method study, records A/B, against ONNX Runtime, the GEMM ceiling (per-kernel times from :mod:`lab02_tvm.profile`)."""
