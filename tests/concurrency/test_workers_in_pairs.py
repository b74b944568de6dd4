"""Two chronographs and two alert runners at once against one PostgreSQL database, as a
deployment of several machines runs them (README "Running on several machines"): every due
change is applied once, every follower told of it once, open data told of it once."""

import json
import threading
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connections
from django.utils import timezone

from opendata.models import Release
from portal import watch
from tenders.models import AuditEvent, Tender
from tests.factories import sign_up
from tests.portal.follows import buyer_and_watcher, follow, published

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_chronographs_and_two_alert_runners_do_each_job_once(clock):
    buyer, first = buyer_and_watcher()
    tenders = [published(buyer, clock) for _ in range(6)]
    watchers = [first, *(sign_up(f"watcher{n}") for n in range(2))]
    for tender in tenders:
        for watcher in watchers:
            follow(watcher, tender, clock)
    mail.outbox.clear()
    clock.move_to(tenders[0].tender_start + timedelta(minutes=1))  # every enquiry period over
    done, failures = threading.Event(), []

    def chronograph():
        """`manage.py chronograph`'s loop: small batches, so that the two share the work."""
        while Tender.objects.catch_up_due(limit=2) or Tender.objects.tell_untold(limit=2):
            pass

    def alerts():
        """`manage.py alerts`' loop, passing until the chronographs are done, then once more."""
        while not done.is_set():
            watch.send_due(timezone.now())
            time.sleep(0.01)
        watch.send_due(timezone.now())

    def in_thread(job):
        def run():
            try:
                job()
            except BaseException as error:  # reported to the test, never swallowed
                failures.append(error)
            finally:
                connections.close_all()

        thread = threading.Thread(target=run)
        thread.start()
        return thread

    chronographs = [in_thread(chronograph) for _ in range(2)]
    runners = [in_thread(alerts) for _ in range(2)]
    for thread in chronographs:
        thread.join(timeout=60)
    done.set()
    for thread in runners:
        thread.join(timeout=60)

    assert not any(thread.is_alive() for thread in chronographs + runners)  # (none hung)
    assert failures == []
    for tender in tenders:  # each due change applied once
        started = AuditEvent.objects.filter(tender_id=tender.pk, action="start_tendering")
        assert started.count() == 1
        assert Tender.objects.get(pk=tender.pk).status == "active.tendering"
        kept = Release.objects.filter(tender_id=tender.pk).order_by("tender_modified")
        assert [json.loads(release.text)["tag"] for release in kept] == [
            ["tender"],
            ["tenderUpdate"],
        ]  # open data told of each change once
    told = sorted((sent.to[0], sent.subject) for sent in mail.outbox)
    assert len(told) == len(set(told)) == len(tenders) * len(watchers)  # each follower, once
    assert watch.send_due(timezone.now()) == 0
    assert not Tender.objects.filter(untold=True).exists()
