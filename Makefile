# ml-compiler-labs: `make run` (all three labs, default budgets) and `make test` (the whole suite).
# Both create or reuse the project virtualenv (.venv) and install everything from pyproject.toml,
# pinned by requirements.lock. Re-running is idempotent: the install is redone only when
# pyproject.toml or requirements.lock change.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run test lab01 lab02 lab03 extras clean-venv

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c requirements.lock -e .
	@$(PY) -c "import torch, onnxruntime, tvm, mlir.ir, llvmlite; print('setup ok: torch', torch.__version__, '| tvm', tvm.__version__)"
	@du -sh $(VENV) | awk '{print "venv size: " $$1}'
	@touch $(STAMP)

run: setup lab01 lab02 lab03

lab01: setup
	$(PY) -m lab01_onnx.pipeline

lab02: setup
	$(PY) -m lab02_tvm.pipeline

lab03: setup
	$(PY) -m lab03_mlir.pipeline

test: setup
	$(PY) -m pytest

clean-venv:
	rm -rf $(VENV)
