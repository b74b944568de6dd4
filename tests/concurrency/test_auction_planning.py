"""Two tenders whose tendering starts at once plan their auctions at once, on PostgreSQL: a day's
slots are counted one change at a time (core.transactions.one_at_a_time), so two changes never
both take the last place of a slot."""

from datetime import timedelta

import pytest

from core.actors import Actor, Role
from core.schema import KYIV
from core.transactions import one_at_a_time
from tenders.models import Auction, Tender
from tenders.models.auction import LEAD, PLANNING_LOCK, first_free_slot, should_start_after
from tests.concurrency.conftest import run_racing_behind
from tests.helpers import Clock, tender_data

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_plannings_at_once_take_two_slots_when_a_slot_holds_one(
    brokers, time_machine, settings
):
    settings.AUCTION_STREAMS = 1
    clock = Clock(time_machine)
    by = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    first, _ = Tender.objects.register(by=by, data=tender_data(clock.now()))
    second, _ = Tender.objects.register(by=by, data=tender_data(clock.now()))
    clock.move_to(first.tender_start + timedelta(minutes=1))
    slot = first_free_slot(should_start_after(first, None, clock.now()) + LEAD)

    run_racing_behind(
        lambda: one_at_a_time(PLANNING_LOCK, slot.astimezone(KYIV).date().toordinal()),
        *[
            lambda pk=tender.pk: Tender.objects.current(pk, viewer=None)
            for tender in (first, second)
        ],
    )

    starts = sorted(Auction.objects.values_list("start", flat=True))
    assert starts == [slot, slot + timedelta(minutes=30)]
