"""Lab 01 proof harness: the pass contract, the ONNX backend-suite run and the fuzzer."""
