# The kit's two set-up commands: `make demo` (the main job) and `make test` (the test suite).
# Both create .venv and install the project into it when it is missing or out of date.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The grading kernels' own environment (kit/sandbox/kernelenv.py): what students may import, no more.
KVENV  := $(VENV)-kernel
KSTAMP := $(KVENV)/.kpca-kernel-env
# nbgrader calls the `alembic` executable: keep the venv's bin on PATH for every recipe.
export PATH := $(CURDIR)/$(BIN):$(PATH)
export MPLBACKEND := Agg

.PHONY: venv test check lint demo hub release bench bench-grading bench-scale bench-stats clean

venv: $(STAMP) $(KSTAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The distribution was called kpca_ref before it took the project's name: a venv made then
	# would keep its entry points (the provisioner's old class path) beside the new ones.
	$(BIN)/python -m pip uninstall --quiet --yes kpca_ref 2>/dev/null || true
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# rfc3987-syntax (optional, pulled in by jupyter-events) compiles grammars at every
	# nbformat import: ~1.5 s per nbgrader process, for validation the kit never uses.
	$(BIN)/python -m pip uninstall --quiet --yes rfc3987-syntax
	# Grading kernels run inside bubblewrap (kit/sandbox/wrapper.py): install it when missing.
	@command -v bwrap >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq bubblewrap; } \
	  || echo "*** bubblewrap (bwrap) is missing: grading will refuse to run until it is" \
	          "installed (as root: apt-get install bubblewrap)" >&2
	# Browser tests (tests/browser/) drive Debian's chromium: install it when missing.
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq chromium; } \
	  || echo "*** chromium is missing: the browser tests will fail until it is" \
	          "installed (as root: apt-get install chromium)" >&2
	# `make hub` runs JupyterHub behind Debian's configurable-http-proxy (node, NODE_PATH below).
	@command -v configurable-http-proxy >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq \
	  && apt-get install -y -qq node-configurable-http-proxy node-commander; } \
	  || echo "*** configurable-http-proxy is missing: make hub will refuse to start until it is" \
	          "installed (as root: apt-get install node-configurable-http-proxy node-commander)" >&2
	$(BIN)/python -m kit.sandbox --install
	# The Assignments panel's due dates (kit/duepanel): a pre-built lab extension and its server
	# route, copied into the venv (an editable install places no data files; no Node needed);
	# with them, formgrader's pages rendered by the feedback's exporter (kit/handback/formgrader.py).
	$(BIN)/python -m kit.duepanel --install
	# The grader's secret (.grading_secret, never committed) salts each student's hidden inputs.
	$(BIN)/python -m kit.secret
	touch $(STAMP)

# numpy, scipy, sympy, matplotlib and ipykernel at .venv's versions (~1 minute, ~500 MB);
# rebuilt when those versions or the import message change, then checked: nothing of the
# grader (scikit-learn, kpca_ref, nbgrader, pytest, ...) may be importable in it.
$(KSTAMP): $(STAMP) kit/sandbox/kernelenv.py kit/sandbox/offered.py
	$(BIN)/python -m kit.kernelenv --build

lint: venv
	$(BIN)/ruff check .

test: venv lint
	$(BIN)/python -m tests.run_groups

# The inner loop (about 2 minutes): lint, the reference's tests and doctests, and one problem
# set (KPCA_CHECK_PS, default ps1_circle_lift) graded end to end. `make test` before a push.
check: venv lint
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/ref kpca_ref kpca_probe tests/check

release: venv
	$(BIN)/python -m kit.release

demo: venv
	$(BIN)/python -m kit.demo

# JupyterHub on 127.0.0.1:8000 for the demo class (kit/hub.py; README, "For TAs"); Ctrl-C stops it.
hub: venv
	NODE_PATH=/usr/share/nodejs $(BIN)/python -m kit.hub

bench: venv
	$(BIN)/python benchmarks/bench_kernel_pca.py

# About 25 minutes on 2 cores: 280 notebooks graded three times (stock serial, then the kit with
# cold kernels and with warm ones).
bench-grading: venv
	$(BIN)/python benchmarks/bench_grading.py --students 40

# A few minutes on 2 cores: local grading + sqlite against a cluster of this machine (dask
# scheduler, dask worker processes) + a throwaway PostgreSQL server, CPU per process kind, the
# recording rates and the projections to large classes; then recording notebooks through
# nbgrader's ORM against the kit's batches, into both.
bench-scale: venv
	$(BIN)/python benchmarks/bench_scale.py --students 20
	$(BIN)/python benchmarks/bench_recording.py

# The class report's item statistics and fairness tests on a synthetic class of 1,000 students
# x 7 problem sets (goal: under a minute), then 40 classes without any effect (false flags).
bench-stats: venv
	$(BIN)/python benchmarks/bench_stats.py --students 1000 --sets 7 --null 40

clean:
	rm -rf $(VENV) $(KVENV) gradebook.db downloaded submitted received autograded feedback reports
