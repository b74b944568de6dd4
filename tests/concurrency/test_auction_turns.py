"""Offers racing the end of an auction's turn and the end of the auction, on PostgreSQL: the
turn's end is the server's clock read with the auction's tally locked, so an offer that gets the
lock after its turn ended is refused; and the auction's end reads the offers with the tally
locked, so an offer accepted before it is the bid's price at the auction's end."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction

from auctions.course import course_of
from auctions.models import AuctionBid, AuctionTally
from core.errors import DomainError
from tenders.models import Tender
from tests.concurrency.conftest import run_racing_holding
from tests.factories import in_auction
from tests.helpers import Clock

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def offered(auction, by, amount) -> str:
    try:
        AuctionBid.objects.offer(auction_id=auction.pk, by=by, amount=amount)
    except DomainError as refused:
        return refused.description
    return "accepted"


def test_offers_late_for_their_turn_are_refused_and_the_one_in_time_is_kept(brokers, time_machine):
    clock = Clock(time_machine)
    tender, (high, _middle, _low), auction = in_auction(brokers, clock)
    course = course_of(auction, Tender.objects.current(tender.pk, viewer=None))
    first = course.rounds[0][0]
    clock.move_to(first.ends - timedelta(milliseconds=1))
    assert offered(auction, high, 415) == "accepted"

    late = run_racing_holding(
        AuctionTally,
        auction.pk,
        *[lambda amount=amount: offered(auction, high, amount) for amount in (400, 390)],
        while_waiting=lambda: clock.move_to(first.ends),
    )

    assert late == ["Not valid bidder", "Not valid bidder"]  # the next turn is another's
    assert list(AuctionBid.objects.values_list("amount", flat=True)) == [415]
    clock.move_to(course.ends)
    ended = Tender.objects.current(tender.pk, viewer=None)
    assert ended.bids.get(pk=high.subject.pk).value["amount"] == 415


@pytest.mark.parametrize("first_offer", [True, False], ids=["its-first-offer", "after-others"])
def test_the_auction_s_end_waits_for_an_offer_accepted_in_the_last_turn(
    brokers, time_machine, first_offer
):
    clock = Clock(time_machine)
    tender, bidders, auction = in_auction(brokers, clock)
    course = course_of(auction, Tender.objects.current(tender.pk, viewer=None))
    if not first_offer:  # (the tally is made by the first)
        clock.move_to(course.rounds[0][0].starts)
        assert offered(auction, bidders[0], 415) == "accepted"
        course = course_of(auction, Tender.objects.current(tender.pk, viewer=None))
    last = course.rounds[-1][-1]
    [best] = [bidder for bidder in bidders if bidder.subject.pk == last.bid_id]
    clock.move_to(last.ends - timedelta(milliseconds=1))
    accepted, commit = threading.Event(), threading.Event()

    def offer_committed_late():
        try:
            with transaction.atomic():  # (the offer's change commits with it)
                AuctionBid.objects.offer(auction_id=auction.pk, by=best, amount=350)
                accepted.set()
                commit.wait(30)
        finally:
            connections.close_all()

    def end_the_auction():
        try:
            Tender.objects.current(tender.pk, viewer=None)  # (a read moves the tender on)
        finally:
            connections.close_all()

    offering = threading.Thread(target=offer_committed_late)
    offering.start()
    assert accepted.wait(10)
    clock.move_to(course.ends)
    ending = threading.Thread(target=end_the_auction)
    ending.start()
    assert _someone_waits_for_a_lock(), "the auction's end did not wait for the offer"
    commit.set()
    offering.join()
    ending.join()

    ended = Tender.objects.current(tender.pk, viewer=None)
    assert ended.status == "active.qualification"
    assert ended.bids.get(pk=best.subject.pk).value["amount"] == 350
    assert ended.awards.get().value["amount"] == 350


def _someone_waits_for_a_lock() -> bool:
    for _ in range(500):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if cursor.fetchone()[0]:
                return True
        threading.Event().wait(0.02)
    return False


def test_an_offer_waiting_for_the_auction_s_end_is_refused_whatever_its_clock(
    brokers, time_machine
):
    """The end closes the tally before it reads the offers: an offer that waited for it reads
    the closed tally, even from a server whose clock still says its turn is on."""
    clock = Clock(time_machine)
    tender, bidders, auction = in_auction(brokers, clock)
    course = course_of(auction, Tender.objects.current(tender.pk, viewer=None))
    clock.move_to(course.rounds[0][0].starts)
    assert offered(auction, bidders[0], 415) == "accepted"  # (its tally is made)
    course = course_of(auction, Tender.objects.current(tender.pk, viewer=None))
    last = course.rounds[-1][-1]
    [best] = [bidder for bidder in bidders if bidder.subject.pk == last.bid_id]
    clock.move_to(course.ends)
    ended, commit = threading.Event(), threading.Event()
    outcome = {}

    def end_committed_late():
        try:
            with transaction.atomic():
                Tender.objects.current(tender.pk, viewer=None)  # (a read moves the tender on)
                ended.set()
                commit.wait(30)
        finally:
            connections.close_all()

    def offer_waiting():
        try:
            outcome["offer"] = offered(auction, best, 350)
        finally:
            connections.close_all()

    ending = threading.Thread(target=end_committed_late)
    ending.start()
    assert ended.wait(10)
    offering = threading.Thread(target=offer_waiting)
    offering.start()
    assert _someone_waits_for_a_lock(), "the offer did not wait for the auction's end"
    clock.move_to(last.ends - timedelta(milliseconds=1))  # (the offer's server is behind)
    commit.set()
    ending.join()
    offering.join()

    assert outcome["offer"] == "Stage not for bidding"
    assert AuctionBid.objects.count() == 1
    done = Tender.objects.current(tender.pk, viewer=None)
    assert done.bids.get(pk=best.subject.pk).value["amount"] == 400
