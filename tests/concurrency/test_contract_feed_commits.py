"""The contracts' feed on PostgreSQL with writers that commit out of the order of their stamps:
a crawler at the head misses no change of a contract and sees none twice (the tenders' feed's
watermark, core/api/feed.py; each contract is stamped under its tender's lock)."""

import threading

import pytest
from django.db import connection, transaction

from tests.concurrency.conftest import crawl
from tests.contracting.helpers import InContracting
from tests.helpers import Clock

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_contract_s_change_committing_after_a_later_stamped_one_is_not_skipped(
    fresh_api, time_machine, settings
):
    settings.FEED_WATERMARK_SECONDS = 5
    clock = Clock(time_machine)
    first = InContracting(fresh_api(), fresh_api("broker2"), clock)
    second = InContracting(fresh_api(), fresh_api("broker2"), clock)
    clock.advance(minutes=1)
    crawler = fresh_api(key=None)
    seen, head = crawl(crawler, "/api/2.3/contracts?limit=1")
    assert sorted(seen) == sorted([first.id, second.id])

    stamped, release, outcome = threading.Event(), threading.Event(), {}

    def slow_writer():
        """Stamps its change now, then holds its transaction open until released."""
        try:
            with transaction.atomic():
                response = fresh_api().patch(first.path, {"title": "повільно"}, token=first.token)
                outcome["status"] = response.status_code
                stamped.set()
                release.wait(timeout=30)
        finally:
            stamped.set()
            connection.close()

    writer = threading.Thread(target=slow_writer)
    writer.start()
    assert stamped.wait(timeout=30)
    clock.advance(seconds=1)
    # A later stamp, committed first.
    assert (
        fresh_api().patch(second.path, {"title": "швидко"}, token=second.token).status_code == 200
    )
    try:
        for _ in range(3):
            clock.advance(seconds=1)  # the slow writer still commits within the watermark
            more, head = crawl(crawler, head)
            assert more == []  # neither change has settled: nothing is shown out of order
    finally:
        release.set()
    writer.join(timeout=30)
    assert outcome["status"] == 200

    clock.advance(seconds=5)
    more, head = crawl(crawler, head)
    assert more == [first.id, second.id]  # in stamp order, each once
    clock.advance(minutes=1)
    assert crawl(crawler, head)[0] == []
