"""The bulk feed of OCDS releases on PostgreSQL while tenders change: a crawler sees every
release once, whatever order the tellings commit in (a release is written by the background or
by a read of a tender's OCDS, stamped as the last step of its transaction, and paged by the
feed's watermark, core/api/feed.py)."""

import threading
import time

import pytest
from django.db import connection

from opendata.models import Release
from tenders.models import Tender
from tests.concurrency.conftest import committed_out_of_stamp_order
from tests.helpers import Clock, Crawler, create_tender, tell_every_change

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def kept_release_ids() -> list[str]:
    from core.schema import iso

    return [
        f"{release.tender.tender_id}-{iso(release.tender_modified)}"
        for release in Release.objects.select_related("tender")
    ]


def test_a_release_committing_after_a_later_stamped_one_is_not_skipped(
    fresh_api, time_machine, settings
):
    settings.FEED_WATERMARK_SECONDS = 5
    clock = Clock(time_machine)
    first, second = create_tender(fresh_api()), create_tender(fresh_api())
    tell_every_change()
    clock.advance(minutes=1)
    crawler = Crawler(fresh_api(key=None), "/api/2.3/releases?limit=1", listed="releases")
    assert len(crawler.poll()) == 2
    assert first.patch({"title": "перша зміна"}).status_code == 200
    assert second.patch({"title": "друга зміна"}).status_code == 200  # (both untold)

    # A read of each one's OCDS tells of its change (its release written then).
    reader = fresh_api(key=None)
    seen = committed_out_of_stamp_order(
        clock,
        lambda: reader.get(first.path, {"opt_schema": "ocds"}),
        lambda: fresh_api(key=None).get(second.path, {"opt_schema": "ocds"}),
        crawler,
    )

    tender_ids = [first.read()["tenderID"], second.read()["tenderID"]]
    assert [release_id.rsplit("-", 3)[0] for release_id in seen] == tender_ids  # each once
    clock.advance(minutes=1)
    assert crawler.poll() == []


def test_a_crawler_paging_while_tenders_change_sees_every_release_once(fresh_api, settings):
    settings.FEED_WATERMARK_SECONDS = 1
    tenders = [create_tender(fresh_api()) for _ in range(4)]
    tell_every_change()
    crawler = Crawler(fresh_api(key=None), "/api/2.3/releases?limit=2", listed="releases")
    seen = crawler.poll()
    failures = []

    def writer(tender, number):
        try:
            api = fresh_api()
            for change in range(6):
                title = f"Папір, партія {number}-{change}"
                response = api.patch(tender.path, {"title": title}, token=tender.token)
                if response.status_code != 200:
                    failures.append(response.content)
        finally:
            connection.close()

    def background(done):
        """Tells of changes as the chronograph's loop does, beside the writers."""
        try:
            while not done.is_set():
                Tender.objects.tell_untold()
                time.sleep(0.01)
        except BaseException as error:  # reported to the test, never swallowed
            failures.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=writer, args=(tender, number))
        for number, tender in enumerate(tenders * 2)
    ]
    done = threading.Event()
    teller = threading.Thread(target=background, args=(done,))
    teller.start()
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        seen += crawler.poll()  # pages while the writers commit
        time.sleep(0.05)
    for thread in threads:
        thread.join()
    done.set()
    teller.join()
    tell_every_change()  # (the background's step: the last change of each)
    time.sleep(settings.FEED_WATERMARK_SECONDS + 0.5)
    seen += crawler.poll()

    assert failures == []
    assert len(seen) == len(set(seen))  # none twice
    assert sorted(seen) == sorted(kept_release_ids())  # none missed
    assert len(seen) == 4 + 4 * 2 * 6  # each tender's first, and one per change
