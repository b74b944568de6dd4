"""Our module's auction: the turns, the rounds, the refusals in the auction worker's words, and
its end through the one rule (Auction.record_results)."""

import json
from decimal import Decimal

import pytest

from auctions.course import course_of
from auctions.models import AuctionBid
from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, PermissionDenied
from docservice import storage
from docservice.models import StoredFile
from tenders.models import Tender
from tenders.models.auction import FIRST_PAUSE, PAUSE, TURN
from tests.factories import in_auction

pytestmark = pytest.mark.django_db


def offer(tender_pk, auction, by, amount):
    tender = Tender.objects.current(tender_pk, viewer=None)
    return AuctionBid.objects.offer(tender=tender, auction_id=auction.pk, by=by, amount=amount)


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


def test_only_the_bidder_whose_turn_it_is_bids_and_within_the_step(brokers, clock):
    tender, (high, _middle, low), auction = in_auction(brokers, clock)
    assert refusal(lambda: offer(tender.pk, auction, high, 300)) == "Stage not for bidding"
    clock.move_to(auction.start + FIRST_PAUSE)
    assert refusal(lambda: offer(tender.pk, auction, low, 300)) == "Not valid bidder"
    # The step is 35: from 450, at most 415.
    assert refusal(lambda: offer(tender.pk, auction, high, 416)) == ["Too high value"]
    assert refusal(lambda: offer(tender.pk, auction, high, 0)) == ["Too low value"]
    stranger = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    with pytest.raises(PermissionDenied):
        offer(tender.pk, auction, stranger, 300)
    offer(tender.pk, auction, high, 415)
    offer(tender.pk, auction, high, 390)  # the last of a turn counts
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 390
    offer(tender.pk, auction, high, None)  # taken back
    assert course(tender.pk, auction).prices[high.subject.pk].amount == 450
    offer(tender.pk, auction, high, 380)
    clock.advance(seconds=120)
    assert refusal(lambda: offer(tender.pk, auction, high, 370)) == "Not valid bidder"
    assert AuctionBid.objects.count() == 4  # nothing refused was kept


def test_the_order_follows_the_prices_each_round_and_the_best_price_wins(brokers, clock):
    tender, (high, middle, low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE)
    offer(tender.pk, auction, high, 380)  # the highest becomes the best
    second_round = course(tender.pk, auction).rounds[1]
    assert [t.bid_id for t in second_round] == [middle.subject.pk, low.subject.pk, high.subject.pk]
    clock.move_to(second_round[1].starts)
    offer(tender.pk, auction, low, 345)
    clock.move_to(course(tender.pk, auction).ends)

    ended = Tender.objects.current(tender.pk, viewer=None)
    assert ended.status == "active.qualification"
    [award] = ended.awards.all()
    assert (award.bid_id, award.value["amount"]) == (low.subject.pk, 345)
    bids = {bid.pk: bid for bid in ended.active_bids()}
    assert bids[high.subject.pk].value["amount"] == 380  # every final price is the bid's now
    assert bids[middle.subject.pk].value["amount"] == 420
    [auction] = ended.auctions.all()
    assert auction.ended == course(tender.pk, auction).ends
    # Its protocol is the tender's, the auction's: every offer of every turn, the results.
    [protocol] = ended.documents.all()
    assert (protocol.title, protocol.author, protocol.format) == (
        "auction-protocol.json", "auction", "application/json",
    )  # fmt: skip
    stored = StoredFile.objects.get(pk=protocol.key)
    with storage.open_file(stored.storage_name) as content:
        record = json.loads(content.read())
    first_turn = record["rounds"][0]["turns"][0]
    assert (first_turn["bidder"], first_turn["offers"][0]["amount"]) == (1, 380)
    assert "Учасник 1" not in json.dumps(record, ensure_ascii=False)  # (numbers, not names)
    assert [r["amount"] for r in record["results"]] == [345, 380, 420]


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


def test_a_price_a_step_below_is_taken_to_the_kopeck(brokers, clock):
    tender, (high, _middle, _low), auction = in_auction(
        brokers, clock, amounts=(450.15, 420, 400), minimalStep={"amount": 10.05, "currency": "UAH"}
    )
    clock.move_to(auction.start + FIRST_PAUSE)
    assert refusal(lambda: offer(tender.pk, auction, high, Decimal("440.11"))) == ["Too high value"]
    offer(tender.pk, auction, high, Decimal("440.10"))  # 450.15 - 10.05, exactly


def test_an_external_module_s_auction_takes_no_offer_here(brokers, clock, settings):
    tender, (high, _middle, _low), auction = in_auction(brokers, clock)
    clock.move_to(auction.start + FIRST_PAUSE)
    settings.AUCTION_MODULE = "external"
    assert refusal(lambda: offer(tender.pk, auction, high, 400)) == "Stage not for bidding"
