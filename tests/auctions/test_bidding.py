"""Our module's auction: the turns, the rounds, the refusals in the auction worker's words, and
its end through the one rule (Auction.record_results)."""

import json
import random
import re
from datetime import timedelta
from decimal import Decimal

import pytest

from auctions.course import course_of
from auctions.models import AuctionBid, AuctionTally
from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, PermissionDenied
from core.schema import parse_iso
from docservice import storage
from docservice.models import StoredFile
from tenders.models import Auction, Bid, Tender
from tenders.models.auction import FIRST_PAUSE, PAUSE, TURN
from tests.factories import in_auction
from tests.helpers import FIRST, SECOND, bid_data, bid_on, open_two_lots, tender_data
from tests.helpers import offer as offer_for

pytestmark = pytest.mark.django_db


def offer(auction, by, amount):
    return AuctionBid.objects.offer(auction_id=auction.pk, by=by, amount=amount)


def course(tender_pk, auction):
    tender = Tender.objects.current(tender_pk, viewer=None)
    return course_of(auction, tender)


def refusal(call) -> str:
    with pytest.raises((NotAllowed, InvalidData)) as refused:
        call()
    error = refused.value
    if isinstance(error, InvalidData):
        return error.errors["amount"]
    return error.description


def test_the_highest_bids_first_and_the_best_last_in_turns_of_two_minutes(brokers, clock):
    tender, bidders, auction = in_auction(brokers, clock)
    seen = course(tender.pk, auction)
    [first_round, second, third] = seen.rounds
    assert [t.bid_id for t in first_round] == [b.subject.pk for b in bidders]  # 450, 420, 400
    assert first_round[0].starts == auction.start + FIRST_PAUSE
    assert [t.ends - t.starts for t in first_round] == [TURN] * 3
    assert second[0].starts == first_round[-1].ends + PAUSE
    assert seen.ends == third[-1].ends == auction.start + auction.length(tender)


def test_no_offer_before_tendering_closes_nor_a_tally(brokers, clock):
    tender, _token = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]), data=tender_data(clock.now())
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    bid, _bid_token = tender.place_bid(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]), data=bid_data(450)
    )
    [auction] = Tender.objects.current(tender.pk, viewer=None).auctions.all()  # (planned)
    bidder = Actor(Role.BID_OWNER, broker=brokers["broker2"], subject=bid)
    assert refusal(lambda: offer(auction, bidder, 400)) == "Stage not for bidding"
    assert not AuctionTally.objects.exists()


def test_only_the_bidder_whose_turn_it_is_bids_and_within_the_step(brokers, clock):
    tender, (high, _middle, low), auction = in_auction(brokers, clock)
    assert refusal(lambda: offer(auction, high, 300)) == "Stage not for bidding"
    clock.move_to(auction.start + FIRST_PAUSE)
    assert refusal(lambda: offer(auction, low, 300)) == "Not valid bidder"
    # The step is 35: from 450, at most 415.
    assert refusal(lambda: offer(auction, high, 416)) == ["Too high value"]
    assert refusal(lambda: offer(auction, high, 0)) == ["Too low value"]
    stranger = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    with pytest.raises(PermissionDenied):
        offer(auction, stranger, 300)
    offer(auction, high, 415)
    offer(auction, high, 390)  # the last of a turn counts
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 390
    offer(auction, high, None)  # taken back
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 450
    offer(auction, high, 380)
    clock.advance(seconds=120)
    assert refusal(lambda: offer(auction, high, 370)) == "Not valid bidder"
    assert AuctionBid.objects.count() == 4  # nothing refused was kept


def test_an_offer_far_below_the_bidder_s_price_is_taken_only_confirmed(brokers, clock):
    tender, (high, _middle, _low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE)
    # Under 30% of its price as the round began (450: under 135) is asked about first.
    with pytest.raises(InvalidData) as asked:
        offer(auction, high, 134)
    assert asked.value.code == "auction_price_in_doubt"
    assert asked.value.errors == {"amount": ["Offer far below the bidder's price"]}
    assert asked.value.params == {"amount": "134,00", "current": "450,00"}
    refused = asked.value
    with pytest.raises(InvalidData) as again:  # (confirmed: another amount)
        AuctionBid.objects.offer(auction_id=auction.pk, by=high, amount=134, confirmed=140)
    assert again.value.code == refused.code
    assert not AuctionBid.objects.exists()
    offer(auction, high, 135)  # (30% itself is no slip)
    AuctionBid.objects.offer(
        auction_id=auction.pk, by=high, amount=Decimal("1.00"), confirmed=Decimal("1")
    )
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 1
    # Too high says how much it may be at most: the price as the round began less the step.
    with pytest.raises(InvalidData) as too_high:
        offer(auction, high, 416)
    assert too_high.value.params == {"highest": "415,00", "step": "35,00"}


def test_the_order_follows_the_prices_each_round_and_the_best_price_wins(
    brokers, clock, django_capture_on_commit_callbacks
):
    tender, (high, middle, low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE)
    offer(auction, high, 380)  # the highest becomes the best
    second_round = course(tender.pk, auction).rounds[1]
    assert [t.bid_id for t in second_round] == [middle.subject.pk, low.subject.pk, high.subject.pk]
    clock.move_to(second_round[1].starts)
    offer(auction, low, 345)
    clock.move_to(course(tender.pk, auction).ends)

    # (the protocol is stored by a job the end queues, done once the end commits)
    with django_capture_on_commit_callbacks(execute=True):
        ended = Tender.objects.current(tender.pk, viewer=None)
    assert ended.status == "active.qualification"
    [award] = ended.awards.all()
    assert (award.bid_id, award.value["amount"]) == (low.subject.pk, 345)
    bids = {bid.pk: bid for bid in ended.active_bids()}
    assert bids[high.subject.pk].value["amount"] == 380  # every final price is the bid's now
    assert bids[middle.subject.pk].value["amount"] == 420
    [auction] = ended.auctions.all()
    assert auction.ended == course(tender.pk, auction).ends
    # Its protocol is the tender's, the auction's, twice: as data (every offer of every turn,
    # the results with the sealed prices) and as a page to read; 2.3 knows no type for it.
    documents = Tender.objects.get(pk=tender.pk).documents.all()
    protocol = {d.title: d for d in documents}
    assert {(d.title, d.author, d.format, d.metadata.get("documentType")) for d in documents} == {
        ("auction-protocol.json", "auction", "application/json", None),
        ("auction-protocol.html", "auction", "text/html", None),
    }
    record = json.loads(stored_content(protocol["auction-protocol.json"]))
    first_turn = record["rounds"][0]["turns"][0]
    assert (first_turn["bidder"], first_turn["offers"][0]["amount"]) == (1, 380)
    assert "Учасник 1" not in json.dumps(record, ensure_ascii=False)  # (numbers, not names)
    assert [(r["initialAmount"], r["amount"]) for r in record["results"]] == [
        (400, 345), (450, 380), (420, 420),
    ]  # fmt: skip
    page = stored_content(protocol["auction-protocol.html"]).decode()
    assert "<h1>Протокол аукціону</h1>" in page
    # The results, the best first: place, bidder, sealed price, final price, the reduction.
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page)
    assert cells[:18] == [
        "1", "Учасник 3", "400,00", "345,00", "55,00", "13,75",
        "2", "Учасник 1", "450,00", "380,00", "70,00", "15,56",
        "3", "Учасник 2", "420,00", "420,00", "0,00", "0,00",
    ]  # fmt: skip
    assert page.count("<caption>Раунд ") == 3


def stored_content(version) -> bytes:
    stored = StoredFile.objects.get(pk=version.key)
    with storage.open_file(stored.storage_name) as content:
        return content.read()


def test_with_features_the_weighted_prices_order_the_turns(brokers, clock):
    feature = {
        "code": "delivery", "featureOf": "tenderer", "title": "Доставка",
        "enum": [{"value": 0, "title": "звичайна"}, {"value": 0.15, "title": "швидка"}],
    }  # fmt: skip
    named = [[{"code": "delivery", "value": 0.15}], [{"code": "delivery", "value": 0}]]
    tender, (fast, plain), auction = in_auction(
        brokers, clock, amounts=(450, 420), parameters=named, features=[feature]
    )
    # 450 with fast delivery weighs 450 / (1 + 0.15 / 0.85) = 382.5: better than 420, so last.
    seen = course(tender.pk, auction)
    assert [t.bid_id for t in seen.rounds[0]] == [plain.subject.pk, fast.subject.pk]
    assert float(seen.prices[fast.subject.pk].weighted) == pytest.approx(382.5)
    # The step applies to the price typed; the kept tally weighs as the course does: plain's
    # 370 (370) is better than fast's 450 (382.5), so plain goes last in round 2.
    clock.move_to(seen.rounds[0][0].starts)
    offer(auction, plain, 370)
    kept = AuctionTally.objects.get(pk=auction.pk).tally
    second = course(tender.pk, auction).rounds[1]
    assert [t.bid_id for t in second] == [fast.subject.pk, plain.subject.pk]
    clock.move_to(second[0].starts)
    offer(auction, fast, 410)  # (the tally's round 2 begins: its order is the course's)
    assert AuctionTally.objects.get(pk=auction.pk).tally.order == [t.bid_id for t in second]
    assert kept.weighted(fast.subject.pk) == seen.prices[fast.subject.pk].weighted


def test_a_price_a_step_below_is_taken_to_the_kopeck(brokers, clock):
    _tender, (high, _middle, _low), auction = in_auction(
        brokers, clock, amounts=(450.15, 420, 400), minimalStep={"amount": 10.05, "currency": "UAH"}
    )
    clock.move_to(auction.start + FIRST_PAUSE)
    assert refusal(lambda: offer(auction, high, Decimal("440.11"))) == ["Too high value"]
    offer(auction, high, Decimal("440.10"))  # 450.15 - 10.05, exactly


def test_an_external_module_s_auction_takes_no_offer_here(brokers, clock, settings):
    _tender, (high, _middle, _low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE)
    settings.AUCTION_MODULE = "external"
    assert refusal(lambda: offer(auction, high, 400)) == "Stage not for bidding"


def test_the_tally_an_offer_reads_is_the_course_s_whatever_the_offers(brokers, clock):
    """An offer is checked against the tally kept with the auction (each bidder's price, the
    round's order), not against every offer before it: whatever the offers (taken back, one
    after another in a turn, none in a turn), it is what the course works out from them all,
    also when it is made again from them (a tally lost, or an auction begun before tallies)."""
    chance = random.Random(31)
    tender, bidders, auction = in_auction(brokers, clock, amounts=(450, 420, 400, 380))
    owner = {bidder.subject.pk: bidder for bidder in bidders}
    step = Decimal(35)
    for number in range(3):
        for index in range(len(bidders)):
            turn = course(tender.pk, auction).rounds[number][index]
            clock.move_to(turn.starts + timedelta(seconds=1))
            for _ in range(chance.randint(0, 3)):
                seen = course(tender.pk, auction)
                before = seen.tallies[number].before[turn.bid_id][0]
                amount = None if chance.random() < 0.25 else before - step - chance.randint(0, 9)
                offer(auction, owner[turn.bid_id], amount)
                clock.advance(seconds=1)
                kept = AuctionTally.objects.get(pk=auction.pk).tally
                seen = course(tender.pk, auction)
                assert {bid_id: float(amount) for bid_id, (amount, _at) in kept.prices.items()} == {
                    bid_id: price.amount for bid_id, price in seen.prices.items()
                }
                assert kept.order == [t.bid_id for t in seen.rounds[kept.round - 1]]
        if number == 0:
            AuctionTally.objects.filter(pk=auction.pk).delete()  # (made again at the next offer)
    assert AuctionBid.objects.filter(auction=auction).count() >= 6


def test_no_offer_is_taken_in_a_cancelled_lot_s_auction_nor_a_cancelled_tender_s(api, api2, clock):
    tender = open_two_lots(api, clock)
    first, _token = bid_on(api2, tender, offer_for(FIRST, 280), offer_for(SECOND, 190))
    bid_on(api2, tender, offer_for(FIRST, 270), offer_for(SECOND, 180), identifier="00000002")
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    assert tender.read()["status"] == "active.auction"
    auctions = {a.lot_id: a for a in Auction.objects.filter(tender_id=tender.id)}
    bidder = Actor(Role.BID_OWNER, subject=Bid.objects.get(pk=first))  # (the highest: first)
    clock.move_to(auctions[FIRST].start + FIRST_PAUSE)
    offer(auctions[SECOND], bidder, 150)  # (its tally is made by its first offer)
    cancelled = api.post(
        f"{tender.path}/cancellations",
        {"reason": "лот більше не потрібен", "relatedLot": SECOND, "status": "active"},
        token=tender.token,
    )
    assert cancelled.status_code == 201, cancelled.content

    assert refusal(lambda: offer(auctions[SECOND], bidder, 140)) == "Stage not for bidding"
    offer(auctions[FIRST], bidder, 250)
    cancelled = api.post(
        f"{tender.path}/cancellations",
        {"reason": "закупівля більше не потрібна", "status": "active"},
        token=tender.token,
    )
    assert cancelled.status_code == 201, cancelled.content
    assert refusal(lambda: offer(auctions[FIRST], bidder, 240)) == "Stage not for bidding"
    assert AuctionBid.objects.count() == 2


def test_a_turn_ends_on_its_microsecond_and_a_silent_round_keeps_its_order(brokers, clock):
    tender, (high, middle, low), auction = in_auction(brokers, clock)
    first = course(tender.pk, auction).rounds[0][0]
    clock.move_to(first.ends)
    assert refusal(lambda: offer(auction, high, 400)) == "Not valid bidder"
    assert AuctionTally.objects.filter(pk=auction.pk).exists()  # (made, though it was refused)
    clock.move_to(first.ends - timedelta(microseconds=1))
    offer(auction, high, 415)
    # Nobody offers in round 2; round 3 is ordered by the prices as they stand.
    third = course(tender.pk, auction).rounds[2]
    assert [t.bid_id for t in third] == [middle.subject.pk, high.subject.pk, low.subject.pk]
    clock.move_to(third[1].starts)
    assert refusal(lambda: offer(auction, high, 381)) == ["Too high value"]  # 415 - 35 at most
    offer(auction, high, 380)
    kept = AuctionTally.objects.get(pk=auction.pk).tally
    assert (kept.round, kept.order) == (3, [t.bid_id for t in third])
    assert kept.prices[high.subject.pk][0] == 380


def test_the_tally_made_in_a_pause_goes_on_from_the_offers_before_it(brokers, clock):
    tender, (high, middle, low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE)
    offer(auction, high, 380)  # (the best now: last in round 2)
    AuctionTally.objects.filter(pk=auction.pk).delete()  # (an auction begun before tallies)
    second = course(tender.pk, auction).rounds[1]
    clock.move_to(second[0].starts - PAUSE / 2)
    assert refusal(lambda: offer(auction, middle, 300)) == "Stage not for bidding"
    clock.move_to(second[-1].starts)
    assert refusal(lambda: offer(auction, high, 346)) == ["Too high value"]  # 380 - 35 at most
    offer(auction, high, 345)
    assert [t.bid_id for t in second] == [middle.subject.pk, low.subject.pk, high.subject.pk]
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 345


def test_offers_keep_the_order_they_were_taken_in_whatever_the_clock(brokers, clock):
    """Two servers' clocks may differ: an offer is never dated before the one taken before it
    (the course reads a turn's offers by their dates, the last counting)."""
    tender, (high, _middle, _low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE + timedelta(seconds=10))
    offer(auction, high, 400)
    clock.advance(seconds=-5)  # (the next offer is taken by a server whose clock is behind)
    offer(auction, high, 390)
    first, second = AuctionBid.objects.order_by("pk")
    assert second.at == first.at
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 390
    assert AuctionTally.objects.get(pk=auction.pk).tally.prices[high.subject.pk][0] == 390


def test_a_step_is_taken_as_written_to_its_last_digit(brokers, clock):
    _tender, (high, _middle, _low), auction = in_auction(
        brokers,
        clock,
        amounts=(450.15, 420, 400),
        minimalStep={"amount": 10.004, "currency": "UAH"},
    )
    clock.move_to(auction.start + FIRST_PAUSE)
    assert refusal(lambda: offer(auction, high, Decimal("440.15"))) == ["Too high value"]
    offer(auction, high, Decimal("440.14"))  # 450.15 - 10.004 is 440.146


def test_a_turn_takes_so_many_offers_and_the_next_turn_as_many(brokers, clock, settings):
    """Every offer is kept and published, and the course reads them all: a bidder offering (or
    taking back) a thousand times a minute is stopped at AUCTION_OFFERS_PER_TURN."""
    settings.AUCTION_OFFERS_PER_TURN = 3
    tender, (high, _middle, _low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE)
    for amount in (415, None, 410):
        offer(auction, high, amount)
        clock.advance(seconds=1)
    assert refusal(lambda: offer(auction, high, 400)) == "Too many offers in one turn"
    assert AuctionBid.objects.count() == 3
    second = course(tender.pk, auction).rounds[1]
    [turn] = [t for t in second if t.bid_id == high.subject.pk]
    clock.move_to(turn.starts)
    for amount in (370, 360, 350):
        offer(auction, high, amount)
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 350


def test_the_readable_protocol_escapes_what_the_buyer_wrote(
    brokers, clock, django_capture_on_commit_callbacks
):
    tender, _bidders, auction = in_auction(
        brokers, clock, title='Футляри <script>alert("x")</script>'
    )
    clock.move_to(course(tender.pk, auction).ends)
    with django_capture_on_commit_callbacks(execute=True):
        Tender.objects.current(tender.pk, viewer=None)
    [page] = [
        d for d in Tender.objects.get(pk=tender.pk).documents.all() if d.format == "text/html"
    ]
    html = stored_content(page).decode()
    assert "<script>" not in html and "Футляри &lt;script&gt;" in html
