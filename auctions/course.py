"""The course of one of our module's auctions (Prozorro's auction worker's rules): three rounds
after a first pause; in each round every bidder has a turn, the highest price first and the
best last (on equal prices the later first), ordered again before each round; a pause between
rounds. Everything follows from the auction's start, the bidders' sealed prices and the bids
accepted so far, so an auction goes on from its stored state after a restart."""

from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from core.schema import iso
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


@dataclass(frozen=True)
class Schedule:
    """When each turn is: from the auction's start, the first pause, then in every round each
    bidder's turn, a pause between rounds (every length divided by the sandbox accelerator)."""

    start: datetime
    bidders: int
    speedup: int = 1

    @property
    def first_turn(self) -> datetime:
        return self.start + FIRST_PAUSE / self.speedup

    @property
    def turn(self) -> timedelta:
        return TURN / self.speedup

    @property
    def round_length(self) -> timedelta:
        return self.bidders * self.turn + PAUSE / self.speedup

    def turn_of(self, number: int, index: int) -> tuple[datetime, datetime]:
        """When the `index`th turn (from 0) of round `number` (from 1) starts and ends."""
        starts = self.first_turn + (number - 1) * self.round_length + index * self.turn
        return starts, starts + self.turn

    @property
    def ends(self) -> datetime:
        return self.turn_of(ROUNDS, self.bidders)[0] if self.bidders else self.start

    def position_at(self, moment: datetime) -> tuple[int, int] | None:
        """The round and the turn's index at `moment` (None: before, between or after them)."""
        if moment < self.first_turn or moment >= self.ends or not self.bidders:
            return None
        number, into = divmod(moment - self.first_turn, self.round_length)
        index = into // self.turn
        return (number + 1, index) if index < self.bidders else None


class Tally:
    """Each bidder's price as it stands and as it stood when the round began, the round, and
    its order of turns (the highest weighted price first, the best last; on equal prices the
    later first). Everything an offer is checked against: the course works it out from every
    offer, and our module keeps it with each auction (auctions.models.AuctionTally), changed by
    each offer, so that an offer does not read them all."""

    def __init__(self, sealed: dict, divisors: dict, *, prices=None, before=None, number=0,
                 order=()):  # fmt: skip
        # bid id -> (amount, when offered): as tendering closed, in the tender's order
        self.sealed: dict[str, tuple[Decimal, datetime]] = sealed
        self.bidders = list(sealed)
        self.divisors: dict[str, Fraction] = divisors  # (features: Weighing.divisor)
        self.prices = dict(prices if prices is not None else sealed)
        self.before = dict(before if before is not None else self.prices)
        self.round, self.order = number, list(order)

    def weighted(self, bid_id: str) -> Fraction:
        return Fraction(self.prices[bid_id][0]) / self.divisors.get(bid_id, 1)

    def begin_round(self, number: int) -> None:
        self.round, self.before = number, dict(self.prices)
        self.order = sorted(
            self.bidders, key=lambda b: (self.weighted(b), self.prices[b][1]), reverse=True
        )

    def take(self, bid_id: str, amount, at: datetime) -> None:
        """`bid_id`'s offer of its turn (None: its offer taken back, its price as it was)."""
        if amount is None:
            self.prices[bid_id] = self.before[bid_id]
        else:
            self.prices[bid_id] = (Decimal(str(amount)), at)

    def copy(self) -> "Tally":
        return Tally(
            self.sealed, self.divisors,
            prices=self.prices, before=self.before, number=self.round, order=self.order,
        )  # fmt: skip

    # Kept as JSON: the bidders, their sealed prices and divisors once (`sealed_json`), and what
    # the offers changed (`to_json`: bidders by their places, the prices that differ from the
    # sealed ones, the prices before the round that differ from those now).

    def sealed_json(self) -> list:
        return [
            [b, str(amount), at.isoformat(), str(self.divisors.get(b, 1))]
            for b, (amount, at) in self.sealed.items()
        ]

    def to_json(self) -> dict:
        def written(prices, differing_from):
            return {
                n: [str(prices[b][0]), prices[b][1].isoformat()]
                for n, b in enumerate(self.bidders)
                if prices[b] != differing_from[b]
            }

        place = {bid_id: n for n, bid_id in enumerate(self.bidders)}
        return {
            "round": self.round,
            "order": [place[bid_id] for bid_id in self.order],
            "prices": written(self.prices, self.sealed),
            "before": written(self.before, self.prices),
        }

    @classmethod
    def from_json(cls, sealed: list, kept: dict) -> "Tally":
        def price(amount, at):
            return Decimal(amount), datetime.fromisoformat(at)

        sealed_prices = {b: price(amount, at) for b, amount, at, _divisor in sealed}
        bidders = list(sealed_prices)
        prices = dict(sealed_prices)
        prices.update({bidders[int(n)]: price(*kept) for n, kept in kept["prices"].items()})
        before = dict(prices)
        before.update({bidders[int(n)]: price(*kept) for n, kept in kept["before"].items()})
        return cls(
            sealed_prices,
            {b: Fraction(divisor) for b, _amount, _at, divisor in sealed if divisor != "1"},
            prices=prices,
            before=before,
            number=kept["round"],
            order=[bidders[n] for n in kept["order"]],
        )


@dataclass
class Price:
    """A bidder's price as it stands: the amount, when it was offered, and the price it is
    ranked by (weighed by its features' values)."""

    amount: float
    at: datetime
    weighted: Fraction


@dataclass(frozen=True)
class Result:
    """A bid in the auction's results: its sealed price, its price now (offered `at`) and by how
    much the auction lowered it (in UAH and in per cent of the sealed price)."""

    bid_id: str
    initial: Decimal
    amount: Decimal
    at: datetime

    @property
    def reduction(self) -> Decimal:
        return self.initial - self.amount

    @property
    def reduction_percent(self) -> Decimal:
        if not self.initial:
            return Decimal(0)
        return (self.reduction * 100 / self.initial).quantize(Decimal("0.01"))


class Course:
    """One auction's course, read from its tender (loaded with its bids) and its accepted bids
    (`placed`: AuctionBid rows, in the order they came)."""

    def __init__(self, auction, tender, placed):
        self.auction, self.tender = auction, tender
        self.line = auction.line
        weighing = Weighing.of(features_of(tender.data, self.line))
        self.bids = {bid.pk: bid for bid in tender.active_bids() if bid.pk in auction.sealed}
        sealed = auction.sealed_prices()
        self.sealed_tally = Tally(
            {bid_id: sealed[bid_id] for bid_id in self.bids},
            {bid_id: weighing.divisor(bid) for bid_id, bid in self.bids.items()},
        )
        self.schedule = Schedule(auction.start, len(self.bids), tender.speedup or 1)
        self.sealed = self._prices(self.sealed_tally, self.sealed_tally.prices)
        self.placed = list(placed)
        # Each bidder's offers in the order they came, and their times (a turn's are found by
        # bisection: an auction may take thousands of offers).
        self._offers: dict[str, list] = {}
        for placed_offer in self.placed:
            self._offers.setdefault(placed_offer.bid_id, []).append(placed_offer)
        self._times = {bid_id: [o.at for o in offers] for bid_id, offers in self._offers.items()}
        self.rounds, self.tallies = self._run()
        self.prices = self._prices(self.tallies[-1], self.tallies[-1].prices)

    @staticmethod
    def _prices(tally: Tally, prices: dict) -> dict:
        return {
            bid_id: Price(float(amount), at, Fraction(amount) / tally.divisors.get(bid_id, 1))
            for bid_id, (amount, at) in prices.items()
        }

    def _run(self) -> tuple[list[list[Turn]], list[Tally]]:
        """Each round's turns, and the tally as each round ended (with each bidder's price as
        it stood when the round began: the price before its turn)."""
        tally = self.sealed_tally.copy()
        rounds, tallies = [], []
        for number in range(1, ROUNDS + 1):
            tally.begin_round(number)
            turns = [
                Turn(number, bid_id, *self.schedule.turn_of(number, index))
                for index, bid_id in enumerate(tally.order)
            ]
            for turn in turns:
                counted = self.counted_in(turn)
                if counted is not None:
                    tally.take(turn.bid_id, counted.amount, counted.at)
            rounds.append(turns)
            tallies.append(tally.copy())
        return rounds, tallies

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
        position = self.schedule.position_at(moment)
        return None if position is None else self.rounds[position[0] - 1][position[1]]

    def next_round_at(self, moment: datetime) -> tuple[int, datetime] | None:
        """The number and start of the first round not begun at `moment` (None: all began)."""
        return next(
            ((n, turns[0].starts) for n, turns in enumerate(self.rounds, 1)
             if turns and turns[0].starts > moment),
            None,
        )  # fmt: skip

    def price_before(self, turn: Turn) -> Decimal:
        """Its bidder's price as `turn`'s round began: an offer there is measured against it."""
        tally = self.tallies[turn.round - 2] if turn.round > 1 else self.sealed_tally
        return tally.prices[turn.bid_id][0]

    @property
    def step(self) -> Decimal:
        """The minimal step down (counted in decimals, as AuctionTally keeps it)."""
        return Decimal(str(self.tender.expected_step(self.line)))

    def highest_offer(self, turn: Turn) -> Decimal:
        """The most its bidder may offer in `turn`: its price as the round began less the step
        (as AuctionBid.objects.offer checks it)."""
        return self.price_before(turn) - self.step

    @property
    def ends(self) -> datetime:
        return self.schedule.ends

    @property
    def numbers(self) -> dict[str, int]:
        """Each bid's number among the bidders (from 1, in the order the bids came): how they are
        named until the bids are public."""
        ordered = sorted(self.bids.values(), key=lambda bid: bid.number)
        return {bid.pk: n for n, bid in enumerate(ordered, start=1)}

    def ranked(self) -> list[tuple[str, Price]]:
        """Each bid's price as it stands, the best first (the lowest weighted, the earlier)."""
        return sorted(self.prices.items(), key=lambda item: (item[1].weighted, item[1].at))

    def results(self) -> list[Result]:
        """Each bid, the best first, with its sealed price and its price now."""
        return [
            Result(
                bid_id,
                Decimal(str(self.sealed[bid_id].amount)),
                Decimal(str(price.amount)),
                price.at,
            )
            for bid_id, price in self.ranked()
        ]

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
