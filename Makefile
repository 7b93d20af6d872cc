# The two commands of the quickstart: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench docs install clean chromium postgresql

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
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

bench: $(STAMP)
	$(BIN)/python benchmarks/markers.py
	$(BIN)/python benchmarks/ranking.py
	$(BIN)/python benchmarks/ranking_scale.py
	$(BIN)/python benchmarks/differences.py
	$(BIN)/python benchmarks/judgments.py
	$(BIN)/python benchmarks/clustering_session.py
	$(BIN)/python benchmarks/annotation_crowd.py

clean:
	rm -rf $(VENV) paucity-demo docs/_build docs/api
