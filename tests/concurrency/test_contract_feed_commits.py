"""The contracts' feed on PostgreSQL with writers that commit out of the order of their stamps:
a crawler at the head misses no change of a contract and sees none twice (the tenders' feed's
watermark, core/api/feed.py; each contract is stamped under its tender's lock)."""

import pytest

from tests.concurrency.conftest import committed_out_of_stamp_order
from tests.contracting.helpers import InContracting
from tests.helpers import Clock, Crawler

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_contract_s_change_committing_after_a_later_stamped_one_is_not_skipped(
    fresh_api, time_machine, settings
):
    settings.FEED_WATERMARK_SECONDS = 5
    clock = Clock(time_machine)
    first = InContracting(fresh_api(), fresh_api("broker2"), clock)
    second = InContracting(fresh_api(), fresh_api("broker2"), clock)
    clock.advance(minutes=1)
    crawler = Crawler(fresh_api(key=None), "/api/2.3/contracts?limit=1")
    assert sorted(crawler.poll()) == sorted([first.id, second.id])

    seen = committed_out_of_stamp_order(
        clock,
        lambda: fresh_api().patch(first.path, {"title": "повільно"}, token=first.token),
        lambda: fresh_api().patch(second.path, {"title": "швидко"}, token=second.token),
        crawler,
    )
    assert seen == [first.id, second.id]  # in stamp order, each once
    clock.advance(minutes=1)
    assert crawler.poll() == []
