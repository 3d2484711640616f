# ml-compiler-labs: `make run` (all three labs, default budgets) and `make test` (the whole suite).
# Both create or reuse the project virtualenv (.venv) and install everything from pyproject.toml,
# pinned by requirements.lock. Re-running is idempotent: the install is redone only when
# pyproject.toml or requirements.lock change.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: roof optional-debs cross-toolchain setup run test lab01 lab01-tools lab02 lab03 lab04 debugging gpu-export gpu-run clean-venv grade

# Reinstalls when pyproject.toml or requirements.lock changed, or when a required package went missing
# (the check the test suite runs at start-up: common.errors.missing_required).
setup: $(STAMP)
	@$(PY) -c "import sys; from common.errors import missing_required as m, required_distributions as r; \
	  sys.exit(bool(m(r())))" 2>/dev/null || { echo "required packages missing: reinstalling"; rm -f $(STAMP); \
	  $(MAKE) --no-print-directory $(STAMP); }

# A venv holds one checkout's editable install: installing this checkout into another's (a .venv linked
# or copied from it) would point that checkout's imports here, so that is refused in one line.
$(STAMP): pyproject.toml requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@u=$$(sed -n 's|.*"url": *"file://\([^"]*\)".*|\1|p' $(VENV)/lib/python*/site-packages/ml_compiler_labs-*.dist-info/direct_url.json 2>/dev/null | head -1); \
	  if [ -n "$$u" ] && [ "$$u" != "$(CURDIR)" ] && [ -f "$$u/pyproject.toml" ]; then \
	  echo "error: $(VENV) holds the checkout at $$u (a linked or copied venv): give this checkout its own (rm $(VENV); make setup)" >&2; exit 2; fi
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c requirements.lock -e .
	@$(PY) -c "import torch, onnxruntime, tvm, mlir.ir, llvmlite; print('setup ok: torch', torch.__version__, '| tvm', tvm.__version__)"
	@du -sh $(VENV) | awk '{print "venv size: " $$1}'
	@touch $(STAMP)

# The main job: every lab pipeline and tool with its default budget (~30 min on 2 cores), each part timed
# into results/make_run.md (common/make_timing.py; it stops at the first part that fails).
# (MAKE_PROGRAM, not $(MAKE) itself, on the recipe line: `make -n run` then prints the line, not runs it;
# `make -k run` passes --keep-going: the parts after a failed one still run.)
RUN_PARTS := roof lab01 lab01-tools lab02 lab03 lab04
MAKE_PROGRAM = $(MAKE)
KEEP_GOING = $(if $(findstring k,$(firstword -$(MAKEFLAGS))),--keep-going)
run: setup optional-debs
	$(PY) -m common.make_timing --make "$(MAKE_PROGRAM)" $(KEEP_GOING) $(RUN_PARTS)

# Optional Debian parts, best effort (never fails the make; installs only as root with apt-get), and
# what is skipped without each: the AArch64 cross gcc (Lab 02 links a .so for the board, else it keeps
# the tar of objects and its link test skips), chromium (the headless browser of the graph-viewer
# test), spirv-tools and the Vulkan loader + mesa's lavapipe CPU driver (Lab 03's SPIR-V step:
# spirv-val and the run on a Vulkan device). `make run` and `make test` both depend on it.
OPTIONAL_DEBS := gcc-aarch64-linux-gnu libc6-dev-arm64-cross chromium spirv-tools libvulkan1 mesa-vulkan-drivers

optional-debs:
	-@missing() { for p in $(OPTIONAL_DEBS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	    grep -q 'ok installed' || echo $$p; done; }; \
	need=$$(missing); \
	if [ -n "$$need" ] && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  echo "installing optional Debian parts: "$$need; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$need; } \
	    >/dev/null 2>&1 || true; need=$$(missing); \
	fi; \
	skip=""; for p in $$need; do case $$p in \
	  gcc-aarch64*|libc6-dev-arm64*) s="Lab 02 keeps a tar of AArch64 objects (no linked .so; its link test skips)";; \
	  chromium) s="the graph-viewer browser test skips";; \
	  spirv-tools) s="Lab 03 SPIR-V: spirv-val skips";; \
	  *) s="Lab 03 SPIR-V: the run on a Vulkan device skips";; esac; \
	  case "$$skip" in *"$$s"*) ;; *) skip="$$skip$${skip:+; }$$s";; esac; done; \
	if [ -n "$$need" ]; then echo "note: optional Debian parts not installed: "$$need" (apt-get install, as root);" \
	  "so $$skip"; else echo "optional Debian parts present: $(OPTIONAL_DEBS)"; fi

# Older name of the same step.
cross-toolchain: optional-debs

# The machine's roof (FMA peak, sgemm, bandwidth; ~10 s), cached in results/roof.json so every table records it.
roof: setup
	$(PY) -m common.roof

lab01: setup
	$(PY) -m lab01_onnx.pipeline

# Lab 01's proof harness (backend suite + fuzzing) and the four optimizer-reading tools (TOOLS.md).
lab01-tools: setup
	$(PY) -m lab01_onnx.proof.conformance
	$(PY) -m lab01_onnx.proof.fuzz --n 10000
	$(PY) -m lab01_onnx.tools.fusions
	$(PY) -m lab01_onnx.tools.whatran
	$(PY) -m lab01_onnx.tools.memplan
	$(PY) -m lab01_onnx.tools.customop

lab02: setup
	$(PY) -m lab02_tvm.pipeline

lab03: setup
	$(PY) -m lab03_mlir.pipeline

# The NPU end: ONNX Runtime's QNN execution provider on the HTP backend (x86 emulation of the NPU).
lab04: setup
	$(PY) -m lab04_npu.pipeline

# The debugging tools' reference tables (fp16 in TVM, the reducer's two demos): ~10-20 min, not in `make run`.
debugging: setup
	$(PY) -m debugging.fp16
	$(PY) -m debugging.reduce --demo wrong-rewrite
	$(PY) -m debugging.reduce --demo fp16

# TVM for an NVIDIA GPU: build here (needs nvcc, no GPU), then run on the GPU host (see lab02_tvm/README.md).
gpu-export: setup
	$(PY) -m lab02_tvm.targets.cuda_remote export --model all --out build/cuda

gpu-run: setup
	$(PY) -m lab02_tvm.targets.cuda_remote run --dir build/cuda

# The same pytest command CI runs (.ci/run is `CI=true make test`); the linter runs inside it.
test: setup optional-debs
	$(PY) -m pytest --durations=15 --durations-min=15  # and the tests over 15 s, slowest first (budget: 15 min)

# The course edition (common/course): `make grade SUB=<folder> [OUT=build/grade/<name>] [LAB=lab02]
# [TASK=lab02.tune]` grades one submission into OUT/<lab>/results.json (Gradescope) and results.md; give each
# student their own OUT (default build/grade/<SUB's folder name>) so that one class summary can read them all.
# LAB and TASK take several, separated by spaces or commas (TASK="lab01.gate lab01.export"): one --lab/--task each.
comma := ,
grade: setup
	@test -n "$(SUB)" || { echo "error: make grade needs SUB=<folder of a submission> (e.g. SUB=build/student)" >&2; exit 2; }
	MLC_GRADE_VIA=make $(PY) -m common.course grade "$(SUB)" --out $(or $(OUT),build/grade/$(notdir $(abspath $(SUB)))) \
		$(foreach l,$(subst $(comma), ,$(LAB)),--lab $(l)) $(foreach t,$(subst $(comma), ,$(TASK)),--task $(t))

# The targets that publish the course (student, summary, autograder, classroom): the instructor's edition only.
-include course.mk

clean-venv:
	rm -rf $(VENV)
