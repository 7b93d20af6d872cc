# The two commands of the quickstart: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/paucity demo

test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow -q

bench: $(STAMP)
	$(BIN)/python benchmarks/markers.py
	$(BIN)/python benchmarks/ranking.py
	$(BIN)/python benchmarks/ranking_scale.py
	$(BIN)/python benchmarks/differences.py
	$(BIN)/python benchmarks/judgments.py

clean:
	rm -rf $(VENV) paucity-demo
