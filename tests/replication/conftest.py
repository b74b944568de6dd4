"""The replication tests run against a primary and a streaming replica of their own
(`python -m cluster.postgres run -- pytest tests/replication`, which `make test` runs): skipped
where REPLICA_URLS names none."""

import os
from pathlib import Path

import pytest

from cluster.postgres import Server
from core import replicas


def pytest_collection_modifyitems(config, items):
    if os.environ.get("REPLICA_URLS"):
        return
    skip = pytest.mark.skip(reason="no replica (python -m cluster.postgres run -- pytest ...)")
    for item in items:
        if "tests/replication/" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _lags_measured_afresh():
    replicas._lags.clear()
    yield
    replicas._lags.clear()


@pytest.fixture
def replica_server():
    """The replica's server, to pause its replay or stop it (started again after the test)."""
    folder = Path(os.environ["PG_PAIR_FOLDER"])
    server = Server(folder / "replica", int(os.environ["PG_PAIR_PORT"]) + 1)
    yield server
    if not (server.folder / "postmaster.pid").exists():
        server.start()
    server.sql("SELECT pg_wal_replay_resume()")
