# Developer and CI entry points.  `make test` creates .venv and installs the package
# (editable, with the dev extra) once; it re-installs only when pyproject.toml changes.
# The install: the venv's pip fetches uv, and uv installs the package (9 s in a fresh clone
# with an empty uv cache, pip 35-45 s); when uv cannot be had or its install fails (no way
# to PyPI), plain pip installs it.  --no-compile (and uv's default): Python compiles what it
# imports when it first imports it, not every installed module up front.

PYTHON ?= python3
VENV   ?= .venv
STAMP  := $(VENV)/.installed

.PHONY: venv test demo lint clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check --timeout 15 --retries 1 uv \
	  && $(VENV)/bin/python -m uv pip install --python $(VENV)/bin/python -e '.[dev]' \
	  || $(VENV)/bin/python -m pip install --no-compile --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# PYTHONDONTWRITEBYTECODE cleared: pytest caches its rewritten test modules (collection
# 1.8 s instead of 11 s); -n 3: pytest-xdist on three workers (tests/conftest.py orders them):
# on two idle cores a third worker fills the live games' waits (4 min 26 s against 5 min 4 s
# for two, docs/testing.md, issue 33).
PYTEST_WORKERS ?= 3

test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest -q -n $(PYTEST_WORKERS)

demo: $(STAMP)
	$(VENV)/bin/tianshen demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
