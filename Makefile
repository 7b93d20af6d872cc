# The two commands of the quickstart: `make demo` and `make test`.
# The Pythons paucity is tested on, newest first. `make` builds .venv with the newest of them found, on PATH
# (python3.13, ...) or installed by pyenv, so that the newest release of every dependency resolves (numpy 2.5,
# scanpy 1.12 and anndata 0.13 need Python 3.12 or newer); `make PYTHON=python3.11 test` chooses another.
PYTHONS := 3.13 3.12 3.11
find_python = $(shell for v in $(1); do for p in python$$v "$$(pyenv root 2>/dev/null)/versions/$$(pyenv latest $$v 2>/dev/null)/bin/python"; do \
  "$$p" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$$v'.split('.'))))" >/dev/null 2>&1 && { command -v "$$p"; exit 0; }; \
  done; done; echo python3)
PYTHON ?= $(call find_python,$(PYTHONS))
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow test-lowest bench docs install clean chromium postgresql

install: $(STAMP)

# uv resolves and installs in seconds where pip takes a minute or two: it is installed into the environment from
# PyPI, and pip does the install where uv cannot be had. Both resolve the newest release of every dependency.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet uv || true
	$(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python -e ".[all]" || \
	  $(BIN)/python -m pip install --quiet -e ".[all]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/paucity demo

# The documentation site (Sphinx: the guides and an API page per subpackage), built offline with warnings as errors;
# CI builds it after `make test` (.ci/run); tests/test_docs_site.py checks it in `make test-slow`. Open docs/_build/html/index.html.
docs: $(STAMP)
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html
	@echo "docs/_build/html/index.html"

# The browser tests drive Debian's chromium (a browser cannot be downloaded at install time). Installed here when
# it is missing and apt can be used as root; otherwise the browser tests skip and say why. Never fails the build.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u 2>/dev/null)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq chromium >/dev/null 2>&1 || \
	      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; } || \
	      echo "chromium could not be installed; the browser tests will be skipped"; \
	  else \
	    echo "chromium is missing and apt-get cannot be run as root here; the browser tests will be skipped"; \
	  fi; }

# The session tests start a throw-away PostgreSQL server with Debian's postgresql (initdb and pg_ctl), installed here
# when it is missing and apt can be used as root; otherwise the PostgreSQL tests skip and say why. Never fails the build.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u 2>/dev/null)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's postgresql for the session tests"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq postgresql >/dev/null 2>&1 || \
	      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq postgresql >/dev/null 2>&1; } || \
	      echo "postgresql could not be installed; the PostgreSQL tests will be skipped"; \
	  else \
	    echo "postgresql is missing and apt-get cannot be run as root here; the PostgreSQL tests will be skipped"; \
	  fi; }

# The tests run on $(WORKERS) processes (pytest-xdist; `make test WORKERS=0` runs them in this one), each with one BLAS and
# OpenMP thread so that the processes do not fight over the cores; numba's kernels choose their threads by the load.
WORKERS ?= 2
# The suite starts hundreds of Python processes (the guides' blocks, the commands, concurrent writers): each reads
# paucity's modules from __pycache__ once the first has compiled them, even where the environment says not to write
# bytecode (PYTHONDONTWRITEBYTECODE), which would make every process compile them again.
test test-slow: export PYTHONDONTWRITEBYTECODE =
test: export OMP_NUM_THREADS = 1
test: export OPENBLAS_NUM_THREADS = 1
test: export MKL_NUM_THREADS = 1
test: chromium postgresql
test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -q -n $(WORKERS) --durations=15

test-slow: postgresql
test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow -q

# The oldest versions pyproject.toml allows, as CI runs them after `make test` (.ci/run): .venv-lowest holds every
# dependency at its lower bound (uv's lowest-direct resolution: what those need, at its newest) on the oldest Python
# claimed, and runs a subset of the suite that imports every subpackage, fits every estimator and runs every command
# (tests/cli), without the fuzzers, in about three minutes on two cores.
LOWEST := .venv-lowest
PYTHON_LOWEST ?= $(call find_python,3.11)
LOWEST_TESTS := tests/test_imports.py tests/info/test_measures.py tests/info/test_counts.py \
  tests/markers/test_selector.py tests/markers/test_adata.py tests/markers/test_result.py \
  tests/markers/test_estimator_checks.py tests/ranking/test_comparisons.py tests/ranking/test_btl.py \
  tests/ranking/test_centrality.py tests/ranking/test_plackett_luce.py tests/differences/test_pda.py \
  tests/differences/test_cv_and_adata.py tests/judgments/test_regressor.py tests/judgments/test_plan.py \
  tests/clustering/test_session.py tests/clustering/test_oracles.py tests/crowd/test_labels.py \
  tests/crowd/test_bbmc.py tests/crowd/test_aggregation.py tests/gp/test_classification.py tests/gp/test_regression.py \
  tests/io/test_io.py tests/io/test_tables.py tests/datasets/test_bundled.py tests/datasets/test_synthetic.py \
  tests/serve/test_crowd.py tests/serve/test_review_api.py tests/cli

$(LOWEST)/.installed: pyproject.toml
	@test -x $(LOWEST)/bin/python || $(PYTHON_LOWEST) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet uv
	$(LOWEST)/bin/python -m uv pip install --quiet --compile-bytecode --python $(LOWEST)/bin/python \
	  --resolution lowest-direct -e ".[all]"
	@touch $@

test-lowest: export PYTHONDONTWRITEBYTECODE =
test-lowest: export OMP_NUM_THREADS = 1
test-lowest: export OPENBLAS_NUM_THREADS = 1
test-lowest: export MKL_NUM_THREADS = 1
test-lowest: postgresql $(LOWEST)/.installed
	$(LOWEST)/bin/python -m pytest -m "not slow" -k "not fuzz and not any_" -q -n $(WORKERS) --durations=5 \
	  $(LOWEST_TESTS)

bench: $(STAMP)
	$(BIN)/python benchmarks/markers.py
	$(BIN)/python benchmarks/ranking.py
	$(BIN)/python benchmarks/ranking_scale.py
	$(BIN)/python benchmarks/differences.py
	$(BIN)/python benchmarks/judgments.py
	$(BIN)/python benchmarks/clustering_session.py
	$(BIN)/python benchmarks/annotation_crowd.py

clean:
	rm -rf $(VENV) $(LOWEST) paucity-demo docs/_build docs/api
