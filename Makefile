# The kit's two set-up commands: `make demo` (the main job) and `make test` (the test suite).
# Both create .venv and install the project into it when it is missing or out of date.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# nbgrader calls the `alembic` executable: keep the venv's bin on PATH for every recipe.
export PATH := $(CURDIR)/$(BIN):$(PATH)
export MPLBACKEND := Agg

.PHONY: venv test lint demo release bench bench-grading clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# rfc3987-syntax (optional, pulled in by jupyter-events) compiles grammars at every
	# nbformat import: ~1.5 s per nbgrader process, for validation the kit never uses.
	$(BIN)/python -m pip uninstall --quiet --yes rfc3987-syntax
	# Grading kernels run inside bubblewrap (kit/sandbox.py): install it when missing.
	@command -v bwrap >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq bubblewrap; } \
	  || echo "*** bubblewrap (bwrap) is missing: grading will refuse to run until it is" \
	          "installed (as root: apt-get install bubblewrap)" >&2
	# Browser tests (tests/browser/) drive Debian's chromium: install it when missing.
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq chromium; } \
	  || echo "*** chromium is missing: the browser tests will fail until it is" \
	          "installed (as root: apt-get install chromium)" >&2
	$(BIN)/python -m kit.sandbox --install
	# The grader's secret (.grading_secret, never committed) salts each student's hidden inputs.
	$(BIN)/python -m kit.secret
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) lint
	$(BIN)/python -m pytest -q

release: $(STAMP)
	$(BIN)/python -m kit.release

demo: $(STAMP)
	$(BIN)/python -m kit.demo

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_kernel_pca.py

# About 20 minutes on 2 cores: 200 notebooks graded twice (stock serial, then the kit's way).
bench-grading: $(STAMP)
	$(BIN)/python benchmarks/bench_grading.py --students 40

clean:
	rm -rf $(VENV) gradebook.db downloaded submitted autograded feedback reports
