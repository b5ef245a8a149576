# Entry points: `make demo` (the live demo), `make test` (the suite, a few minutes) and
# `make test-all` (the suite plus the exhaustive fuzz sweeps and the five-CPython check: CI).
# Each creates the virtual environment it needs; nothing but python3 is assumed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The demo needs only jobgen, its server and the live display, not the test toolchain.
DEMO_STAMP := $(VENV)/.installed-demo

# Stoplight Prism, the validating proxy of tests/oracle, from npm at the version its
# package-lock.json pins (no install scripts run).
ORACLE := tests/oracle
ORACLE_STAMP := $(ORACLE)/node_modules/.installed

.PHONY: demo test test-all generate check lint clean oracle

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The project's own environment takes the exact versions of .ci/constraints.txt; users get
# the ranges of pyproject.toml.
CONSTRAINTS := .ci/constraints.txt

$(STAMP): pyproject.toml $(CONSTRAINTS) $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[serve,test,progress]'
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml $(CONSTRAINTS) $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[serve,progress]'
	touch $(DEMO_STAMP)

$(ORACLE_STAMP): $(ORACLE)/package.json $(ORACLE)/package-lock.json
	cd $(ORACLE) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(ORACLE_STAMP)

oracle: $(ORACLE_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/python -m jobgen.demo

# The tests of one module (and those sharing a real-spec SDK) run on one worker. Two workers
# more than the cores: the suite waits on real time in all for about 270 s (servers, workers,
# deadlines), and the extra workers fill those waits (docs/benchmarks.md).
WORKERS ?= $(shell echo $$(( $$(nproc) + 2 )))
PYTEST := $(BIN)/python -m pytest -n $(WORKERS) --dist loadgroup

# Python caches the bytecode of the checkout, the SDKs and the rewritten test modules as it
# does by default, even where the environment turns that off: the suite's many interpreters
# (workers, CLI runs, servers) would each compile them again.
test test-all: export PYTHONDONTWRITEBYTECODE :=

test: $(STAMP) $(ORACLE_STAMP)
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
	rm -rf $(VENV) .venv-sdk .pytest_cache .mypy_cache .hypothesis $(ORACLE)/node_modules
