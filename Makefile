# aimi — `make help` lists the targets. Every target that needs the environment sets it up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
TORCH_VERSION := 2.13.0
export AIMI_DATA_DIR ?= $(CURDIR)/data
FIND_LINKS := $(wildcard /opt/wheels)

.DEFAULT_GOAL := help
.PHONY: help setup run test lint typecheck dagster demo build serve clean-data notebooks

help:  ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[1m%-12s\033[0m %s\n", $$1, $$2}'

$(BIN)/.installed: requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# pip first: it reads the machine's pip configuration, which is where the CPU build of torch lives
	$(BIN)/pip install --quiet --disable-pip-version-check "torch==$(TORCH_VERSION)" "uv==$(UV_VERSION)"
	$(BIN)/uv pip install --quiet --python $(BIN)/python $(if $(FIND_LINKS),--find-links $(FIND_LINKS)) -r requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	@touch $@

setup: $(BIN)/.installed  ## create or update .venv/ (idempotent)

lock:  ## re-resolve requirements.lock from pyproject.toml (needs setup)
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 $(if $(FIND_LINKS),--find-links $(FIND_LINKS)) -o requirements.lock

run: setup  ## demo corpus if absent, build a snapshot, serve on 127.0.0.1:8000, print a dev key
	$(BIN)/aimi demo-data --if-absent
	$(BIN)/aimi build --demo
	$(BIN)/aimi serve --dev

test: setup  ## run the whole test suite (installs redis-server for its tests if missing)
	@scripts/ensure-redis
	$(BIN)/python -m pytest

lint: setup  ## ruff check, ruff format --check, mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

dagster: setup  ## the Dagster UI on 127.0.0.1:3000 over the same data dir
	@mkdir -p $(AIMI_DATA_DIR)/dagster && cp dagster.yaml $(AIMI_DATA_DIR)/dagster/dagster.yaml
	@# run from DAGSTER_HOME: Dagster warns about a dagster.yaml in the working folder otherwise
	cd $(AIMI_DATA_DIR)/dagster && DAGSTER_HOME=$(AIMI_DATA_DIR)/dagster \
		$(CURDIR)/$(BIN)/dagster dev -m pipelines.definitions -h 127.0.0.1 -p 3000

notebooks: setup  ## Jupyter Lab on notebooks/ over the data dir (build a snapshot first: make build)
	$(BIN)/jupyter lab --ip 127.0.0.1 notebooks/

build: setup  ## materialize every asset and publish a snapshot (AS_OF=2026-01-01 to fix the clock)
	$(BIN)/aimi build $(if $(AS_OF),--as-of $(AS_OF))

serve: setup  ## serve /v1 from the current snapshot
	$(BIN)/aimi serve

clean-data:  ## delete the data dir (warehouse, snapshots, Dagster storage)
	rm -rf $(AIMI_DATA_DIR)
