# `make run`: set everything up and serve the demo on http://127.0.0.1:8000
# `make test`: set everything up and run every test (on PostgreSQL when DATABASE_URL says so)

PYTHON ?= $(shell command -v python3.13 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Development settings for `make run`; production sets SECRET_KEY, ALLOWED_HOSTS, HTTPS=1.
RUN_ENV := DEBUG=1 SANDBOX_MODE=1
TEST_ENV := SECRET_KEY=$(or $(SECRET_KEY),insecure-key-for-tests-only)

.PHONY: run test fuzz bench bench-auction load cluster cluster-test lint install clean

$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' || \
		{ echo "Python 3.13 is needed (found $$($(PYTHON) --version)); set PYTHON=/path/to/python3.13"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet '.[dev]'
	@touch $@

install: $(INSTALLED)

# Two processes beside the server: the demo's setup (migrating first), then the background work
# (the chronograph, the mail worker and the alerts, in one process).
run: $(INSTALLED)
	$(RUN_ENV) $(BIN)/python manage.py load_demo --migrate
	@echo "Serving on http://127.0.0.1:8000 (the chronograph, the mail worker and the alerts of saved searches and followed tenders run beside it; Ctrl-C stops them all)"
	@$(RUN_ENV) $(BIN)/python manage.py background & background=$$!; \
		trap 'kill $$background 2>/dev/null' EXIT INT TERM; \
		$(RUN_ENV) $(BIN)/python manage.py runserver 127.0.0.1:8000

# Then the replication tests, against a PostgreSQL primary and streaming replica of their own
# (cluster/postgres.py: initdb and pg_basebackup on two free ports below the ephemeral range, removed after).
test: $(INSTALLED)
	$(TEST_ENV) $(BIN)/python -m pytest $(PYTEST_ARGS)
	$(TEST_ENV) $(BIN)/python -m cluster.postgres run -- $(BIN)/python -m pytest tests/replication $(PYTEST_ARGS)

# The longer fuzzing run (about 20,000 requests, 5 minutes): its last result is in the README.
FUZZ_EXAMPLES ?= 150
fuzz: $(INSTALLED)
	$(TEST_ENV) FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest tests/fuzz $(PYTEST_ARGS)
	@cat build/fuzz-report.txt

# The benchmark against a bare floor, at 1,000 and 100,000 tenders, on PostgreSQL, this code beside
# the code of BENCH_BEFORE (a commit, checked out under build/; empty: none). BENCH_DATABASE_URL
# names the server; the built registries are kept as template databases. Not a test: it prints
# the table (also written to build/bench.md) and fails nothing. About an hour the first time.
# Then the auction's rows (bench-auction).
bench: $(INSTALLED)
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.auction

# An auction of our module held now: a watcher's renewal and an offer against the bare read
# floor (about three minutes). Not a test: it prints the table (also build/bench-auction.md).
bench-auction: $(INSTALLED)
	$(BIN)/python -m bench.auction

# What readers see while one broker sends the largest tenders the API takes (gunicorn with four
# workers, PostgreSQL, Redis; about two minutes). Not a test: it prints the table (also written
# to build/load.md), quoted in the README's "Limits".
load: $(INSTALLED)
	$(BIN)/python -m bench.load

# The registry as several machines run it, on this one (README "Running on several machines"):
# a PostgreSQL primary and streaming replica, Redis, SeaweedFS (S3), the document service apart,
# two application nodes behind a balancer on http://127.0.0.1:26400, two chronographs, two mail
# workers, two alert runners. Ctrl-C stops everything.
cluster: $(INSTALLED)
	$(BIN)/python -m cluster.topology

# That cluster under a bounded mixed load (CLUSTER_TEST_SECONDS, 90) while an application node, a
# chronograph and the replica are killed; fails when an acknowledged write is lost, the feed
# misses or repeats a change, or a job is done twice or left undone (about three minutes; the
# report is also written to build/cluster-test.md, quoted in the README).
cluster-test: $(INSTALLED)
	$(BIN)/python -m cluster.under_load

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
