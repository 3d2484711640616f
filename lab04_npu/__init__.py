"""Lab 04: the NPU end of the ladder, ONNX Runtime's QNN execution provider on the HTP backend.

PyTorch -> ONNX (Lab 01's export and passes) -> static shapes -> QNN (HTP graph preparer) ->
context binary (``*_qnn.bin``) -> Hexagon runtime. See README.md.
"""
