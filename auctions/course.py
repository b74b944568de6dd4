"""The course of one of our module's auctions (Prozorro's auction worker's rules): three rounds
after a first pause; in each round every bidder has a turn, the highest price first and the
best last (on equal prices the later first), ordered again before each round; a pause between
rounds. Everything follows from the auction's start, the bidders' sealed prices and the bids
accepted so far, so an auction goes on from its stored state after a restart."""

import json
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from core.schema import iso, parse_iso
from tenders.models.auction import FIRST_PAUSE, PAUSE, ROUNDS, TURN
from tenders.models.bidding import Weighing
from tenders.schema import features_of


@dataclass(frozen=True)
class Turn:
    round: int  # 1, 2, 3
    bid_id: str
    starts: datetime
    ends: datetime

    def holds(self, moment: datetime) -> bool:
        return self.starts <= moment < self.ends


@dataclass
class Price:
    """A bidder's price as it stands: the amount, when it was offered, and the price it is
    ranked by (weighed by its features' values)."""

    amount: float
    at: datetime
    weighted: Fraction


class Course:
    """One auction's course, read from its tender (loaded with its bids) and its accepted bids
    (`placed`: AuctionBid rows, in the order they came)."""

    def __init__(self, auction, tender, placed):
        self.auction, self.tender = auction, tender
        self.line = auction.line
        speedup = tender.speedup or 1
        self.first_pause, self.turn, self.pause = (
            FIRST_PAUSE / speedup,
            TURN / speedup,
            PAUSE / speedup,
        )
        weighing = Weighing.of(features_of(tender.data, self.line))
        self.bids = {}
        self.sealed = {}
        for bid in tender.active_bids():
            sealed = auction.sealed.get(bid.pk)
            if sealed is None:
                continue
            self.bids[bid.pk] = bid
            self.sealed[bid.pk] = self._price(
                bid, sealed["amount"], parse_iso(sealed["date"]), weighing
            )
        self.weighing = weighing
        self.placed = list(placed)
        # Each bidder's offers in the order they came, and their times (a turn's are found by
        # bisection: an auction may take thousands of offers).
        self._offers: dict[str, list] = {}
        for placed_offer in self.placed:
            self._offers.setdefault(placed_offer.bid_id, []).append(placed_offer)
        self._times = {bid_id: [o.at for o in offers] for bid_id, offers in self._offers.items()}
        self.rounds, self.prices = self._run()

    def _price(self, bid, amount, at, weighing) -> Price:
        offer = {"value": {"amount": amount}}
        return Price(amount, at, self.tender.weighted(bid, offer, weighing))

    def _run(self) -> tuple[list[list[Turn]], dict]:
        """Each round's turns, and each bidder's price as it stands after the bids placed
        (and, for each turn, as it stood when the turn began)."""
        prices = dict(self.sealed)
        self._before: dict[Turn, Price] = {}
        rounds = []
        start = self.auction.start + self.first_pause
        for number in range(1, ROUNDS + 1):
            order = sorted(prices, key=lambda b: (prices[b].weighted, prices[b].at), reverse=True)
            turns = [
                Turn(number, bid_id, start + n * self.turn, start + (n + 1) * self.turn)
                for n, bid_id in enumerate(order)
            ]
            for turn in turns:
                self._before[turn] = prices[turn.bid_id]
                counted = self.counted_in(turn)
                if counted is not None and counted.amount is not None:
                    bid = self.bids[turn.bid_id]
                    prices[turn.bid_id] = self._price(
                        bid, float(counted.amount), counted.at, self.weighing
                    )
            rounds.append(turns)
            start += len(turns) * self.turn + self.pause
        return rounds, prices

    def counted_in(self, turn: Turn):
        """The bid that counts in `turn`: its bidder's last there (None: none; a withdrawal is
        a row without an amount)."""
        times = self._times.get(turn.bid_id, [])
        last = bisect_left(times, turn.ends) - 1
        if last < 0 or times[last] < turn.starts:
            return None
        return self._offers[turn.bid_id][last]

    def offers_in(self, turn: Turn) -> list:
        """Every offer its bidder made in `turn`, in order."""
        times = self._times.get(turn.bid_id, [])
        first, end = bisect_left(times, turn.starts), bisect_left(times, turn.ends)
        return self._offers.get(turn.bid_id, [])[first:end]

    def turn_at(self, moment: datetime) -> Turn | None:
        return next((t for turns in self.rounds for t in turns if t.holds(moment)), None)

    @property
    def ends(self) -> datetime:
        return self.rounds[-1][-1].ends if self.rounds[-1] else self.auction.start

    def price_before(self, turn: Turn) -> Price:
        """The bidder's price as it stood when `turn` began."""
        return self._before[turn]

    def final_prices(self) -> dict:
        """bid id -> (final amount, when it was offered) for the bids whose price the auction
        changed."""
        return {
            bid_id: (price.amount, iso(price.at))
            for bid_id, price in self.prices.items()
            if price.amount != self.sealed[bid_id].amount
        }


def course_of(auction, tender) -> Course:
    """`auction`'s course: its offers read in the order they came."""
    offers = auction.placed.only("bid_id", "amount", "at", "round").order_by("at", "pk")
    return Course(auction, tender, offers)


def outcome(auction, tender) -> tuple[dict, tuple[str, bytes]]:
    """What tenders asks at an auction's end (registered in AuctionsConfig.ready): the final
    prices and the protocol, from one reading of its course."""
    course = course_of(auction, tender)
    return course.final_prices(), protocol(course)


def protocol(course) -> tuple[str, bytes]:
    """The record of an auction held (published with the tender when it ends): every offer of
    every turn with its time, and the final prices, the best first."""
    auction, tender = course.auction, course.tender
    # Bidders by number (and their bids' ids): a lot's protocol is published while another
    # lot's auction may still be held among the same bidders, unnamed until it ends.
    ordered = sorted(course.bids.values(), key=lambda bid: bid.number)
    name = {bid.pk: n for n, bid in enumerate(ordered, start=1)}
    rounds = [
        {
            "round": n,
            "turns": [
                {
                    "bidder": name[turn.bid_id],
                    "bid_id": turn.bid_id,
                    "startDate": iso(turn.starts),
                    "endDate": iso(turn.ends),
                    "offers": [
                        {
                            "amount": None if placed.amount is None else float(placed.amount),
                            "date": iso(placed.at),
                        }
                        for placed in course.offers_in(turn)
                    ],
                }
                for turn in turns
            ],
        }
        for n, turns in enumerate(course.rounds, start=1)
    ]
    results = sorted(course.prices.items(), key=lambda item: (item[1].weighted, item[1].at))
    record = {
        "tenderID": tender.tender_id,
        "lotID": auction.lot_id or None,
        "auctionPeriod": {"startDate": iso(auction.start), "endDate": iso(course.ends)},
        "minimalStep": tender.expected_step(auction.line),
        "rounds": rounds,
        "results": [
            {
                "bidder": name[bid_id],
                "bid_id": bid_id,
                "amount": price.amount,
                "date": iso(price.at),
            }
            for bid_id, price in results
        ],
    }
    suffix = f"-{auction.lot_id}" if auction.lot_id else ""
    return f"auction-protocol{suffix}.json", json.dumps(
        record, ensure_ascii=False, indent=1
    ).encode()
