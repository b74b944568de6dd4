import os
import socket

import pytest
from django.db import connection

from tests.helpers import (
    Api,
    Clock,
    assert_kept_representations_are_current,
    assert_releases_are_current,
    settings_for_tests,
)


def pytest_report_header(config):
    from django.conf import settings

    return f"database: {settings.DATABASES['default']['ENGINE']}"


def pytest_collection_modifyitems(config, items):
    from django.conf import settings

    on_postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    if os.environ.get("REQUIRE_POSTGRES") and not on_postgres:
        raise pytest.UsageError("REQUIRE_POSTGRES is set but DATABASE_URL is not PostgreSQL")
    if on_postgres:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgres://... (CI does)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _test_settings(settings, tmp_path):
    from django.core.cache import cache

    for name, value in settings_for_tests(tmp_path / "documents").items():
        setattr(settings, name, value)
    cache.clear()


@pytest.fixture(autouse=True)
def _kept_representations_stay_current(request):
    """After every test that used the database, every tender's kept representation is still
    what rendering it gives (no change forgot to empty it), and every change the public sees
    has its OCDS release."""
    transactional = "transactional_db" in request.fixturenames or any(
        marker.kwargs.get("transaction") for marker in request.node.iter_markers("django_db")
    )
    uses_db = "db" in request.fixturenames or request.node.get_closest_marker("django_db")
    if not (uses_db or transactional):
        yield
        return
    request.getfixturevalue("transactional_db" if transactional else "db")
    yield
    assert_kept_representations_are_current()
    assert_releases_are_current()


@pytest.fixture
def redis():
    """The URL of a real Redis (CI starts one); the test is skipped where none answers, unless
    REQUIRE_REDIS says it must not be."""
    host, port = "127.0.0.1", 6379
    try:
        with socket.create_connection((host, port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            answers = connection.recv(16).startswith(b"+PONG")
    except OSError:
        answers = False
    if not answers:
        if os.environ.get("REQUIRE_REDIS"):
            pytest.fail("REQUIRE_REDIS is set but Redis does not answer on 127.0.0.1:6379")
        pytest.skip("needs Redis on 127.0.0.1:6379 (CI starts it)")
    return os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def brokers(db):
    from core.models import Broker

    made = {}
    for name in ("broker", "broker2"):
        broker = Broker(name=name)
        broker.set_key(name, short_allowed=True)
        broker.save()
        made[name] = broker
    return made


@pytest.fixture
def api(client, brokers):
    """The 2.3 API as broker `broker` sees it (Basic auth, key "broker")."""
    return Api(client, key="broker")


@pytest.fixture
def api2(client, brokers):
    """Another broker."""
    return Api(client, key="broker2")


@pytest.fixture
def anonymous(client, brokers):
    return Api(client, key=None)


@pytest.fixture
def unbounded_writes(settings):
    """For tests that race many writes of one broker on purpose: none waits for a place (how
    many of a caller's writes are answered at once is tested in test_writes_in_flight.py)."""
    settings.API_CONCURRENT_WRITES = 0


@pytest.fixture
def query_count():
    from django.test.utils import CaptureQueriesContext

    def capture():
        return CaptureQueriesContext(connection)

    return capture


@pytest.fixture
def clock(time_machine):
    """A frozen clock the test moves by hand."""
    return Clock(time_machine)
