"""Limits hold across workers: gunicorn with three workers on PostgreSQL, counting in Redis.
Requests race from many threads, so every worker answers some of them; the limit is kept
exactly, and the access log shows owner tokens masked."""

import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest

from tests.helpers import basic
from tests.served import gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LIMIT_ANONYMOUS, LIMIT_BROKER = 10, 25


@pytest.fixture
def served(redis, brokers, tmp_path):
    """gunicorn serving this test's database with three workers; yields (base URL, log path)."""
    limits = {
        "API_RATE_ANONYMOUS_READS": f"{LIMIT_ANONYMOUS}/day",
        "API_RATE_BROKER_READS": f"{LIMIT_BROKER}/day",
    }
    with gunicorn(tmp_path, workers=3, redis=redis, **limits) as base:
        yield base, tmp_path / "access.log"


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
