"""The feed on PostgreSQL with writers that commit out of the order of their stamps: a crawler
at the head misses no change and sees none twice."""

import pytest

from tests.concurrency.conftest import committed_out_of_stamp_order
from tests.helpers import Clock, Crawler, create_tender

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_write_committing_after_a_later_stamped_one_is_not_skipped(
    fresh_api, time_machine, settings
):
    settings.FEED_WATERMARK_SECONDS = 5
    clock = Clock(time_machine)
    first, second = create_tender(fresh_api()), create_tender(fresh_api())
    clock.advance(minutes=1)
    crawler = Crawler(fresh_api(), "/api/2.3/tenders?limit=1")
    assert sorted(crawler.poll()) == sorted([first.id, second.id])

    seen = committed_out_of_stamp_order(
        clock,
        lambda: fresh_api().patch(first.path, {"title": "повільно"}, token=first.token),
        lambda: second.patch({"title": "швидко"}),
        crawler,
    )
    assert seen == [first.id, second.id]  # in stamp order, each once
    clock.advance(minutes=1)
    assert crawler.poll() == []
