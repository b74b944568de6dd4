"""Offers racing the end of an auction's turn, on PostgreSQL: the turn's end is the server's
clock read with the tender's row locked, so an offer that gets the lock after the turn ended is
refused, and an offer accepted before it is the bid's price at the auction's end."""

from datetime import timedelta

import pytest

from auctions.course import course_of
from auctions.models import AuctionBid
from core.errors import DomainError
from tenders.models import Tender
from tests.concurrency.conftest import run_racing_for
from tests.factories import in_auction
from tests.helpers import Clock

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def offered(tender_pk, auction, by, amount) -> str:
    tender = Tender.objects.current(tender_pk, viewer=None)
    try:
        AuctionBid.objects.offer(tender=tender, auction_id=auction.pk, by=by, amount=amount)
    except DomainError as refused:
        return refused.description
    return "accepted"


def test_offers_late_for_their_turn_are_refused_and_the_one_in_time_is_kept(brokers, time_machine):
    clock = Clock(time_machine)
    tender, (high, _middle, _low), auction = in_auction(brokers, clock)
    course = course_of(auction, Tender.objects.current(tender.pk, viewer=None))
    first = course.rounds[0][0]
    clock.move_to(first.ends - timedelta(milliseconds=1))
    assert offered(tender.pk, auction, high, 415) == "accepted"

    late = run_racing_for(
        tender.pk,
        *[lambda amount=amount: offered(tender.pk, auction, high, amount) for amount in (400, 390)],
        while_waiting=lambda: clock.move_to(first.ends),
    )

    assert late == ["Not valid bidder", "Not valid bidder"]  # the next turn is another's
    assert list(AuctionBid.objects.values_list("amount", flat=True)) == [415]
    clock.move_to(course.ends)
    ended = Tender.objects.current(tender.pk, viewer=None)
    assert ended.bids.get(pk=high.subject.pk).value["amount"] == 415
