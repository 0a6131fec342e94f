# Two entry points set up a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

VLLM_VENV ?= .venv-vllm
SHARED ?= ../shared

.PHONY: serve build test lint test-vllm vllm-flags bench clean chromium wheel

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,perf]'
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

# The installable package: dist/vllm_recipes_builder-<version>-py3-none-any.whl (and the sdist), with the
# templates, static files, fonts, logos and the Pyodide runtime packed in (tools/build_backend.py).
wheel: $(STAMP) node_modules/.installed
	rm -rf dist
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w dist .
	$(PY) -c "import sys; sys.path.insert(0, 'tools'); import build_backend; build_backend.build_sdist('dist')"
	ls -l dist

serve: $(STAMP) node_modules/.installed
	$(PY) -m builder serve --port 8000

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy --strict builder/resolver

# Every test, on one more worker than there are cores (pytest-xdist; the session's shared sites are built once
# per run): a worker waiting for another's shared build, a server, a browser or a subprocess leaves its core
# to the extra one (fresh clone, 2 cores: 2 workers 7 min 38 s, 3 workers 6 min 23 s, 4 workers 8 min 4 s).
# Work stealing: each worker starts with its share of the run order, and one that runs out takes half of what
# another has left (xdist's default hands out a quarter of the tests up front, which left one idle for 95 s).
# Byte-compiled first: the many Python processes the tests start then load bytecode (PYTHONDONTWRITEBYTECODE,
# set on some machines, would have each of them compile the package from source again).
# The tests' folders go to RAM when /dev/shm has 8 GiB free: a run writes about 3 GB of builds, which on a
# journaled disk mounted with discard costs a third of the IO-heavy tests' time. Kept after a failed run.
TEST_WORKERS := $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
TEST_TMP := $(shell df -k --output=avail /dev/shm 2>/dev/null | \
	awk 'NR == 2 && $$1 > 8388608 {print "/dev/shm/vllm-recipes-tests"}')

test: $(STAMP) node_modules/.installed chromium lint
	$(PY) -m compileall -q builder tests > /dev/null
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal $(if $(TEST_TMP),--basetemp=$(TEST_TMP)) && rm -rf $(TEST_TMP)

# vLLM 0.33.0's real `vllm serve` parser on the CPU (about 80 s, 2.2 GB), for the lint's ground truth.
$(VLLM_VENV)/bin/vllm:
	bash $(SHARED)/vllm/install.sh $(VLLM_VENV)

# The real-parser suite on two workers: each has one zygote that imports vLLM once (about 8.8 s) and forks a
# child per script run (tests/vllm_real/scripts.py); the longest test starts first on one worker while the
# other runs the rest (tests/vllm_real/conftest.py), the golden verdicts computed once for both.
test-vllm: $(STAMP) $(VLLM_VENV)/bin/vllm
	VLLM_VENV=$(CURDIR)/$(VLLM_VENV) $(PY) -m pytest -q -n 2 --dist worksteal tests/vllm_real

# Regenerate builder/data/vllm-<version>-flags.json and -bench-serve-flags.json from the installed release.
vllm-flags: $(VLLM_VENV)/bin/vllm
	$(VLLM_VENV)/bin/python tools/vllm_flags.py

bench: $(STAMP) node_modules/.installed chromium
	$(PY) bench/build_upstream.py
	$(PY) bench/resolve.py
	$(PY) bench/incremental.py
	$(PY) bench/page_weight.py
	$(PY) bench/og_images.py
	$(PY) bench/page.py
	$(PY) bench/memory_cases.py

clean:
	rm -rf site $(VENV) $(VLLM_VENV) node_modules builder/packed build dist
