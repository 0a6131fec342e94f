# Two entry points set up a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: serve build test lint test-vllm bench clean chromium

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

node_modules/.installed: $(wildcard package.json package-lock.json)
	if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; fi
	mkdir -p node_modules && touch node_modules/.installed

# Debian's Chromium for the browser tests (installed when missing and we are root).
chromium:
	@command -v /usr/bin/chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "browser tests need /usr/bin/chromium (apt-get install chromium)"; fi; }

build: $(STAMP) node_modules/.installed
	$(PY) -m builder build

serve: $(STAMP) node_modules/.installed
	$(PY) -m builder serve --port 8000

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP) node_modules/.installed chromium lint
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/build_upstream.py

clean:
	rm -rf site $(VENV) node_modules
