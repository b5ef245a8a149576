# Entry points: `make demo` (the live demo), `make test` (the suite, a few minutes) and
# `make test-all` (the suite plus the exhaustive fuzz sweeps and the five-CPython check: CI).
# Each creates the virtual environment it needs; nothing but python3 is assumed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all generate check lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[serve,test,progress]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m generator.demo

# One pytest worker per core; the tests that share the real-spec SDKs run on one worker.
PYTEST := $(BIN)/python -m pytest -n auto --dist loadgroup

test: $(STAMP)
	$(BIN)/jobgen generate --check
	$(PYTEST)

test-all: test
	$(PYTEST) -m exhaustive

generate: $(STAMP)
	$(BIN)/jobgen generate

lint: $(STAMP)
	$(BIN)/ruff check generator tests
	$(BIN)/mypy generator

clean:
	rm -rf $(VENV) .venv-sdk .pytest_cache .mypy_cache .hypothesis
