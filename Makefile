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
PACKAGES := analytics warehouse retrieval fetch readmodel publishing pipelines serving demo cli tests

.DEFAULT_GOAL := help
.PHONY: help setup lock run test test-fast lint dagster build serve clean-data notebooks client scale-test fault-test soak \
	bench-data bench-search bench-stories bench-entities bench-analytics bench-api bench-build bench-publishing \
	bench-fetch

help:  ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[1m%-16s\033[0m %s\n", $$1, $$2}'

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
	$(BIN)/python -m tests.harness.scale_out

fault-test: setup  ## the scale-out arrangement with credentials, one fault at a time under load (Redis, a replica, the store before and during a transfer, a tampered snapshot, a killed publish, a full disk, a killed build, hostile clients), then a secrets scan; a line per case (CASES=redis,hostile for some, CASES=serving, publish, build-local or build-store for a group that fits 10 minutes; docs/deployment.md)
	@scripts/ensure-redis
	@scripts/ensure-nginx
	$(BIN)/python -m tests.harness.fault_matrix $(if $(CASES),--cases $(CASES))

soak: setup  ## 20 minutes of mixed keyed traffic through nginx with a publish due every 2 minutes (an overrun skips the next): RSS and open files of every server process per minute, 0 failed requests (not in CI; MINUTES=3 for a short run; docs/deployment.md)
	@scripts/ensure-redis
	@scripts/ensure-nginx
	$(BIN)/python -m tests.harness.soak --minutes $(MINUTES)

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
# the project's pin (docs/decisions/0058-the-typed-python-client.md)
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

# -- benchmarks and quality measurements (bench/README.md: what to run for which question) ------
# Each prints its figures; none runs in the test suite. The corpora are read in place, outside
# the repository; the data dirs live under /tmp.
SHARED_DATA ?= ../shared/data
# the AINews 2024 + 2025 build at as_of 2026-01-01 that most measurements read (make bench-data)
AINEWS_DIR ?= /tmp/ainews-full
# the demo build the API and publishing measurements read (built when missing)
DEMO_DIR ?= /tmp/aimi-api-bench
# every social post's title + text embedded once for the stories' baseline (corpus-derived text)
TITLE_TEXT ?= /tmp/stories/title_text.npz
# a folder holding pandas for the analytics reference (pip install --target /tmp/pd pandas)
PANDAS ?=
NEED_AINEWS = @test -f $(AINEWS_DIR)/snapshots/CURRENT || { echo "no build in $(AINEWS_DIR): run make bench-data" >&2; exit 1; }
NEED_DEMO = @test -f $(DEMO_DIR)/snapshots/CURRENT || { AIMI_DATA_DIR=$(DEMO_DIR) $(BIN)/aimi demo-data --if-absent && AIMI_DATA_DIR=$(DEMO_DIR) $(BIN)/aimi build --demo; }

bench-data: setup  ## ingest AINews 2024 + 2025 from SHARED_DATA into AINEWS_DIR and build it at as_of 2026-01-01 (a cold build took 917 s before the search stage existed: docs/quality.md)
	$(BIN)/aimi ingest --data-dir $(AINEWS_DIR) $(SHARED_DATA)/ainews/ainews-2024.jsonl $(SHARED_DATA)/ainews/ainews-2025.jsonl
	$(BIN)/aimi build --data-dir $(AINEWS_DIR) --as-of 2026-01-01

bench-search: setup  ## search quality on AINEWS_DIR (hit rate, recall, nDCG@10 of each leg and the fusion; ~20 s), then the query encoder's latency and throughput (~3 min)
	$(NEED_AINEWS)
	$(BIN)/python -m bench.search.quality.run $(AINEWS_DIR)
	$(BIN)/python -m bench.search.speed.encoder

bench-stories: setup  ## story ids across a rebuild (~10 s), then precision and recall against the judged event pairs per year, on AINEWS_DIR (embeds TITLE_TEXT first when missing: 1,283 s when last measured)
	$(NEED_AINEWS)
	$(BIN)/python -m bench.stories.ids --warehouse $(AINEWS_DIR)/warehouse
	@test -f $(TITLE_TEXT) || $(BIN)/python -m bench.stories.embed_cache --warehouse $(AINEWS_DIR)/warehouse --out $(TITLE_TEXT)
	$(BIN)/python -m bench.stories.events --warehouse $(AINEWS_DIR)/warehouse --title-text $(TITLE_TEXT)

bench-entities: setup  ## mention linking (CrossNER-AI, AINews labels) and discovery against its labels on SHARED_DATA, then each entity profile's counts against the served cards of AINEWS_DIR
	$(BIN)/python -m bench.entities.quality.linking $(SHARED_DATA)
	$(BIN)/python -m bench.entities.quality.discovery $(SHARED_DATA)
	$(NEED_AINEWS)
	$(BIN)/python -m bench.entities.quality.profile_recount $(AINEWS_DIR)

bench-analytics: setup  ## the trend and co-occurrence stage on 1M synthetic signals (against pandas with PANDAS=DIR), theme tagging (about 6 min) and unit extraction quality on SHARED_DATA
	$(if $(PANDAS),PYTHONPATH=$(PANDAS)) $(BIN)/python -m bench.analytics.speed.run --signals 1000000 $(if $(PANDAS),,--no-pandas)
	$(BIN)/python -m bench.analytics.quality.themes $(SHARED_DATA)
	$(BIN)/python -m bench.analytics.quality.units $(SHARED_DATA)

bench-api: setup  ## requests/s and latency of entities, signals and search under wrk, 1 and 2 workers, against a bare FastAPI app, on the demo build in DEMO_DIR (needs wrk; 11 runs of 15 s, plus the demo build the first time)
	$(NEED_DEMO)
	$(BIN)/python -m bench.api.speed.run --data-dir $(DEMO_DIR)

bench-build: setup  ## where a cold demo build's time goes, asset by asset (a fresh data dir; 4-14 min), and ingest records/s on AINews 2025
	rm -rf /tmp/aimi-bench-profile
	$(BIN)/python -m bench.build.speed.profile --data-dir /tmp/aimi-bench-profile --demo
	$(BIN)/python -m bench.build.speed.ingest $(SHARED_DATA)/ainews/ainews-2025.jsonl

bench-publishing: setup  ## feeds, bulk export and webhook batches, then the static site's full against incremental renders, on the demo build in DEMO_DIR (built the first time)
	$(NEED_DEMO)
	$(BIN)/python -m bench.publishing.speed.notify $(DEMO_DIR)
	rm -rf /tmp/aimi-bench-site && cp -a $(DEMO_DIR) /tmp/aimi-bench-site
	$(BIN)/python -m bench.publishing.speed.site /tmp/aimi-bench-site

bench-fetch: setup  ## 3,000 loopback article pages fetched, extracted and ingested with the delay at 0.01 s: pages/s and where the time goes (82.7 s under load 13, 2026-12-07)
	$(BIN)/python -m bench.fetch.speed.run
