# The kit's two set-up commands: `make demo` (the main job) and `make test` (the test suite).
# Both create .venv and install the project into it when it is missing or out of date.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# nbgrader calls the `alembic` executable: keep the venv's bin on PATH for every recipe.
export PATH := $(CURDIR)/$(BIN):$(PATH)
export MPLBACKEND := Agg

.PHONY: venv test lint demo release bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) lint
	$(BIN)/python -m pytest -q

release: $(STAMP)
	$(BIN)/python -m nbgrader generate_assignment --force --all

demo: $(STAMP) release

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_kernel_pca.py

clean:
	rm -rf $(VENV) gradebook.db submitted autograded feedback reports
