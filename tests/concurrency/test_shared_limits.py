"""Limits hold across workers: gunicorn with three workers on PostgreSQL, counting in Redis.
Requests race from many threads, so every worker answers some of them; the limit is kept
exactly, and the access log shows owner tokens masked."""

import os
import socket
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from django.conf import settings

from tests.helpers import basic

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
LIMIT_ANONYMOUS, LIMIT_BROKER = 10, 25


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url() -> str:
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    return (
        f"postgres://{user}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
    )


@pytest.fixture
def served(redis, brokers, tmp_path):
    """gunicorn serving this test's database with three workers; yields (base URL, log path)."""
    port, log = free_port(), tmp_path / "access.log"
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis,
        # Each run counts apart from any other on the same Redis.
        "CACHE_KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        "SECRET_KEY": "a-test-secret-key-long-enough-to-be-a-real-one-0123456789",
        "ALLOWED_HOSTS": "127.0.0.1",
        "API_RATE_ANONYMOUS_READS": f"{LIMIT_ANONYMOUS}/day",
        "API_RATE_BROKER_READS": f"{LIMIT_BROKER}/day",
    }
    environment.pop("DEBUG", None)
    server = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "portal.wsgi",
            "--workers", "3", "--bind", f"127.0.0.1:{port}",
            "--access-logfile", str(log), "--error-logfile", str(tmp_path / "error.log"),
        ],
        cwd=ROOT, env=environment,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("gunicorn did not start: " + (tmp_path / "error.log").read_text())
        yield base, log
    finally:
        server.terminate()
        server.wait(timeout=30)


def fetch(url: str, **headers) -> tuple[int, dict]:
    try:
        with urlopen(Request(url, headers=headers), timeout=30) as answer:
            return answer.status, dict(answer.headers)
    except HTTPError as refused:
        return refused.code, dict(refused.headers)


def away_from_midnight():
    """The test's windows are days (UTC): do not start a run that would straddle one."""
    now = datetime.now(UTC)
    seconds_left = 86400 - (now.hour * 3600 + now.minute * 60 + now.second)
    if seconds_left < 60:
        time.sleep(seconds_left + 1)


def test_limits_hold_across_workers_and_the_access_log_masks_tokens(served):
    base, log = served
    away_from_midnight()
    feed = f"{base}/api/2.3/tenders?acc_token=s3cret-token-value"
    with ThreadPoolExecutor(max_workers=12) as pool:
        anonymous = list(pool.map(lambda _: fetch(feed), range(3 * LIMIT_ANONYMOUS)))
        keyed = list(
            pool.map(
                lambda _: fetch(f"{base}/api/2.3/tenders", Authorization=basic("broker")),
                range(2 * LIMIT_BROKER),
            )
        )

    for answers, limit in ((anonymous, LIMIT_ANONYMOUS), (keyed, LIMIT_BROKER)):
        statuses = sorted(status for status, _ in answers)
        assert statuses == [200] * limit + [429] * (len(answers) - limit)
        assert all(int(headers["Retry-After"]) > 0 for status, headers in answers if status == 429)

    time.sleep(0.5)  # the access log is written after each answer
    lines = [line for line in log.read_text().splitlines() if "/api/2.3/tenders" in line]
    assert len(lines) == len(anonymous) + len(keyed)
    assert not any("s3cret" in line for line in lines)
    assert not any("broker" in line for line in lines), "the key is the Basic-auth user name"
    assert sum("acc_token=***" in line for line in lines) == len(anonymous)
    workers = {line.rsplit(" ", 1)[1] for line in lines}
    assert len(workers) > 1, "every request was answered by one worker: nothing was shared"
