# ml-compiler-labs: `make run` (all three labs, default budgets) and `make test` (the whole suite).
# Both create or reuse the project virtualenv (.venv) and install everything from pyproject.toml,
# pinned by requirements.lock. Re-running is idempotent: the install is redone only when
# pyproject.toml or requirements.lock change.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: cross-toolchain setup run test lab01 lab01-tools lab02 lab03 gpu-export gpu-run clean-venv

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c requirements.lock -e .
	@$(PY) -c "import torch, onnxruntime, tvm, mlir.ir, llvmlite; print('setup ok: torch', torch.__version__, '| tvm', tvm.__version__)"
	@du -sh $(VENV) | awk '{print "venv size: " $$1}'
	@touch $(STAMP)

# The main job: every lab pipeline and tool with its default budget (~30 min on 2 cores).
run: setup cross-toolchain lab01 lab01-tools lab02 lab03

# Best effort: Debian's AArch64 cross gcc lets Lab 02 link a .so for the board (else it keeps the tar of objects).
cross-toolchain:
	-@command -v aarch64-linux-gnu-gcc >/dev/null || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
	  apt-get update -qq && apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null; } || \
	  echo "note: no AArch64 cross gcc (apt-get install gcc-aarch64-linux-gnu); Lab 02 exports a tar of objects instead"

lab01: setup
	$(PY) -m lab01_onnx.pipeline

# Lab 01's proof harness (backend suite + fuzzing) and the warm-up guide's tools.
lab01-tools: setup
	$(PY) -m lab01_onnx.conformance
	$(PY) -m lab01_onnx.fuzz --n 10000
	$(PY) -m lab01_onnx.fusions
	$(PY) -m lab01_onnx.whatran
	$(PY) -m lab01_onnx.memplan
	$(PY) -m lab01_onnx.customop

lab02: setup
	$(PY) -m lab02_tvm.pipeline

lab03: setup
	$(PY) -m lab03_mlir.pipeline

# TVM for an NVIDIA GPU: build here (needs nvcc, no GPU), then run on the GPU host (see lab02_tvm/README.md).
gpu-export: setup
	$(PY) -m lab02_tvm.cuda_remote export --model all --out build/cuda

gpu-run: setup
	$(PY) -m lab02_tvm.cuda_remote run --dir build/cuda

test: setup
	$(PY) -m pytest

clean-venv:
	rm -rf $(VENV)
