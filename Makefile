# Developer and CI entry points.  `make test` creates .venv and installs the package
# (editable, with the dev extra) once; it re-installs only when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
STAMP  := $(VENV)/.installed

.PHONY: venv test demo lint clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/python -m pytest -q

demo: $(STAMP)
	$(VENV)/bin/tianshen demo

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
