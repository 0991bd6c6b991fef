# aimi — `make help` lists the targets. Every target that needs the environment sets it up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
TORCH_VERSION := 2.13.0
# how long `make soak` runs, in minutes (MINUTES=3 for a short run)
MINUTES ?= 20
# The data dir as the settings resolve it (AIMI_DATA_DIR, else .env, else ./data), for the targets
# that need its path; evaluated only when one of them runs, after setup.
DATA_DIR = $(shell $(BIN)/python -c 'from warehouse.settings import load_settings; print(load_settings().data_dir.resolve())')
FIND_LINKS := $(wildcard /opt/wheels)
# the project's packages (compiled to bytecode before the tests run)
PACKAGES := analytics pipelines serving warehouse demo tests $(wildcard cli)

.DEFAULT_GOAL := help
.PHONY: help setup lock run test test-fast lint dagster build serve clean-data notebooks client scale-test fault-test soak

help:  ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[1m%-12s\033[0m %s\n", $$1, $$2}'

$(BIN)/.installed: requirements.lock requirements-dev.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@# pip first: it reads the machine's pip configuration, which is where the CPU build of torch lives
	$(BIN)/pip install --quiet --disable-pip-version-check "torch==$(TORCH_VERSION)" "uv==$(UV_VERSION)"
	@# the development lock: the runtime lock's pins plus the test, lint and notebook tools
	@# --compile-bytecode: where PYTHONDONTWRITEBYTECODE is set (as on these machines) nothing
	@# writes .pyc files later, and every new interpreter (a server, a build's static-site child,
	@# each test's subprocess) compiled scipy, fastapi and the rest from source: seconds each
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(if $(FIND_LINKS),--find-links $(FIND_LINKS)) -r requirements-dev.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	@touch $@

setup: $(BIN)/.installed  ## create or update .venv/ for development, export the ONNX query and build encoders (idempotent)
	@# a second when the file is current; a failed export only slows search (torch serves it)
	@$(BIN)/aimi encoder export || echo "warning: search will use the slower torch query encoder" >&2
	@# the build's fp32 encoder (a build exports it itself when missing, and stops saying how to
	@# fix it when it cannot: AIMI_BUILD_ENCODER=torch builds without it)
	@$(BIN)/aimi encoder export --precision fp32 || echo "warning: builds will try to export the fp32 encoder again" >&2

lock:  ## re-resolve requirements.lock (runtime) and requirements-dev.lock (runtime + dev) from pyproject.toml
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 $(if $(FIND_LINKS),--find-links $(FIND_LINKS)) \
		--custom-compile-command "make lock" -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 $(if $(FIND_LINKS),--find-links $(FIND_LINKS)) \
		-c requirements.lock --custom-compile-command "make lock" -o requirements-dev.lock

run: setup  ## demo corpus if absent, build a snapshot, serve the API and the site on 127.0.0.1:8000, print a dev key
	$(BIN)/aimi demo-data --if-absent
	$(BIN)/aimi build --demo
	$(BIN)/aimi serve --dev --site

test: setup  ## run the whole test suite on every core (installs redis-server, nginx, postgresql and chromium for its tests if missing)
	@scripts/ensure-redis
	@scripts/ensure-nginx
	@scripts/ensure-postgres
	@scripts/ensure-chromium
	@# the project's own modules too, for the same reason (a second; __pycache__/ is ignored);
	@# and pytest may write bytecode: it keeps its assertion-rewritten test modules only then, so
	@# with PYTHONDONTWRITEBYTECODE set every worker re-parsed ~420 modules each run (~7 s)
	@$(BIN)/python -m compileall -q $(PACKAGES) > /dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder

test-fast: setup  ## the inner loop: every test that needs no demo snapshot and is not marked slow, on every core (pytest-xdist, one file per worker at a time)
	@$(BIN)/python -m compileall -q $(PACKAGES) > /dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -m "not snapshot and not slow" -n auto --dist loadfile

scale-test: setup  ## two replicas (2 workers each) behind nginx, Redis rate limits, snapshots through a local S3 server, a real rebuild under load; one summary line (docs/deployment.md)
	@scripts/ensure-redis
	@scripts/ensure-nginx
	$(BIN)/python scripts/scale_test.py

fault-test: setup  ## the scale-out arrangement with credentials, one fault at a time under load (Redis, a replica, the store before and during a transfer, a tampered snapshot, a killed publish, a full disk, a killed build, hostile clients), then a secrets scan; a line per case (CASES=redis,hostile for some, CASES=serving, publish, build-local or build-store for a group that fits 10 minutes; docs/deployment.md)
	@scripts/ensure-redis
	@scripts/ensure-nginx
	$(BIN)/python scripts/fault_test.py $(if $(CASES),--cases $(CASES))

soak: setup  ## 20 minutes of mixed keyed traffic through nginx with a publish due every 2 minutes (an overrun skips the next): RSS and open files of every server process per minute, 0 failed requests (not in CI; MINUTES=3 for a short run; docs/deployment.md)
	@scripts/ensure-redis
	@scripts/ensure-nginx
	$(BIN)/python scripts/soak.py --minutes $(MINUTES)

lint: setup  ## ruff check, ruff format --check, mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

dagster: setup  ## the Dagster UI on 127.0.0.1:3000 over the same data dir
	@mkdir -p $(DATA_DIR)/dagster && cp dagster.yaml $(DATA_DIR)/dagster/dagster.yaml
	@# run from DAGSTER_HOME: Dagster warns about a dagster.yaml in the working folder otherwise;
	@# the checkout's .env is exported first, since the settings look for .env in the working folder
	set -a; if [ -f .env ]; then . ./.env; fi; set +a; \
	cd $(DATA_DIR)/dagster && AIMI_DATA_DIR=$(DATA_DIR) DAGSTER_HOME=$(DATA_DIR)/dagster \
		$(CURDIR)/$(BIN)/dagster dev -m pipelines.definitions -h 127.0.0.1 -p 3000

notebooks: setup  ## Jupyter Lab on notebooks/ over the data dir (build a snapshot first: make build)
	AIMI_DATA_DIR=$(DATA_DIR) $(BIN)/jupyter lab --ip 127.0.0.1 notebooks/

build: setup  ## materialize every asset and publish a snapshot (AS_OF=2026-01-01 to fix the clock)
	$(BIN)/aimi build $(if $(AS_OF),--as-of $(AS_OF))

serve: setup  ## serve /v1 from the current snapshot
	$(BIN)/aimi serve

# the client generator runs in a uv tool environment of its own: it requires typer<0.28, below
# the project's pin (docs/decisions.md, "The typed Python client")
OPENAPI_PYTHON_CLIENT := 0.29.1
client: setup  ## regenerate the typed Python client clients/python/ from the app's OpenAPI document
	$(BIN)/python clients/dump_openapi.py clients/openapi.json
	$(BIN)/uv tool run --from openapi-python-client==$(OPENAPI_PYTHON_CLIENT) openapi-python-client \
		generate --path clients/openapi.json --config clients/python-client.yaml \
		--custom-template-path clients/python-templates --output-path clients/python --overwrite
	@# the document the client was generated from, which tests/clients/ checks
	cd clients && sha256sum openapi.json > python/openapi.json.sha256

clean-data: setup  ## delete the data dir (warehouse, snapshots, Dagster storage, keys)
	rm -rf $(DATA_DIR)
