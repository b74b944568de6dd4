"""Our module's bids in an auction: each price a bidder offers in its turn (or takes back), kept
in the order they came. The course of the auction (course.py) is read from them."""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext_noop

from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, PermissionDenied
from core.reads import Read
from core.transactions import atomic_change
from core.words import money
from core.writes import WrittenWithTheChange
from tenders.models import Auction, Tender
from tenders.models.auction import builtin
from tenders.models.bidding import is_price_in_doubt
from tenders.models.lots import lot_of
from tenders.models.statuses import LotStatus, TenderStatus

from .course import Schedule, Tally, course_of
from .protocol import protocol

# The auction worker's words (the page says them in its reader's language).
TOO_HIGH, TOO_LOW = gettext_noop("Too high value"), gettext_noop("Too low value")


class OfferRefused(InvalidData):
    """An offer's amount refused, in the worker's words, with what the page says beside them
    (the words of its code, core/refusals.py: the highest price allowed, the price it is far
    below)."""

    field = "amount"

    def __init__(self, description: str, *, code: str, **params):
        super().__init__({"amount": [description]})
        self.code, self.params = code, params


def price_too_high(highest: Decimal, step: Decimal) -> OfferRefused:
    return OfferRefused(
        TOO_HIGH, code="auction_too_high",
        highest=money({"amount": highest}), step=money({"amount": step}),
    )  # fmt: skip


def price_in_doubt(amount, current: Decimal) -> OfferRefused:
    """An offer far below its bidder's own price, not yet confirmed: the same offer, confirmed
    (`confirmed` its amount), is taken in the same turn."""
    return OfferRefused(
        "Offer far below the bidder's price", code="auction_price_in_doubt",
        amount=money({"amount": amount}), current=money({"amount": current}),
    )  # fmt: skip


class AuctionBidQuerySet(models.QuerySet):
    def offer(self, *, auction_id: str, by: Actor, amount, confirmed=None) -> None:
        """A bidder (`by`, owning its bid) offers `amount` in its turn (None: takes back its
        offer of this turn); an amount far below its price as the round began is taken only
        when `confirmed` is that amount (price_in_doubt). The turn is the server's clock's,
        read with the auction's tally locked: an offer that comes after its turn ended is
        refused, one accepted is kept (the auction's end closes the tally before it reads the
        offers). The worker's words when not. Reads the tally (with what it needs of the
        auction and its tender), and writes the offer and the tally, in one statement."""
        try:
            self._offer(auction_id, by, amount, confirmed)
        except AuctionTally.DoesNotExist:
            # Its first offer: the tally is made in a change of its own (a refused offer does
            # not undo it, and the next is not made to wait for it again).
            AuctionTally.objects.begin(auction_id)
            self._offer(auction_id, by, amount, confirmed)

    def _offer(self, auction_id: str, by: Actor, amount, confirmed) -> None:
        with atomic_change():
            kept = AuctionTally.objects.locked(auction_id)
            # (never behind the offer before, whose server's clock may have been ahead: the
            # offers' times keep the order they were taken in, which the course reads them by)
            now = max(timezone.now(), kept.last_offer or kept.start)
            bid_id = by.subject.pk if by.role is Role.BID_OWNER else None
            if bid_id not in kept.tally.sealed:
                raise PermissionDenied()
            by.check_standing()
            position = kept.schedule.position_at(now) if now < kept.ends else None
            tally = kept.tally
            if position is None or position[0] < tally.round:
                raise NotAllowed("Stage not for bidding", code="auction_stage")
            number, index = position
            if number > tally.round:
                tally.begin_round(number)
            if tally.order[index] != bid_id:
                raise NotAllowed("Not valid bidder", code="auction_turn")
            turn = (number - 1) * len(tally.bidders) + index + 1
            made = kept.turn_offers if kept.turn == turn else 0
            if made >= settings.AUCTION_OFFERS_PER_TURN:
                raise NotAllowed("Too many offers in one turn", code="auction_offers")
            if amount is not None:
                _check_amount(amount, tally.before[bid_id][0], kept.step, confirmed)
            # (the offer's row is its record, as the audit trail's are: it names no tender, so
            # that it waits for no change of the tender's, which may be waiting for the tally)
            self.create(
                auction_id=auction_id, bid_id=bid_id, round=number, amount=amount, at=now,
                by=by.name,
            )  # fmt: skip
            tally.take(bid_id, amount, now)
            kept.keep(tally, now, turn=turn, turn_offers=made + 1)


def _check_amount(amount, current: Decimal, step: Decimal, confirmed) -> None:
    """Above zero, at least the step below the bidder's own price (counted in decimals, as the
    prices are written: 450.15 - 10.05 is 440.10), and not far below it unless confirmed."""
    amount = Decimal(str(amount))
    if amount <= 0:
        raise InvalidData.field("amount", TOO_LOW)
    if amount > current - step:
        raise price_too_high(current - step, step)
    if is_price_in_doubt(amount, current) and (
        confirmed is None or Decimal(str(confirmed)) != amount
    ):
        raise price_in_doubt(amount, current)


def outcome(auction, tender) -> tuple[dict, tuple[str, bytes]]:
    """What tenders asks at an auction's end (registered in AuctionsConfig.ready): the final
    prices and the protocol, from one reading of its course. The auction's row is locked (as
    its tally is made) and its tally closed (written: an offer waiting for it reads it again,
    whatever its server's clock says) before the offers are read: an offer accepted in its turn
    is in them, however late it commits, and none is accepted after."""
    list(Auction.objects.select_for_update(no_key=True).filter(pk=auction.pk).values_list("pk"))
    AuctionTally.objects.filter(pk=auction.pk).update(closed=timezone.now())
    course = course_of(auction, tender)
    return course.final_prices(), protocol(course)


class AuctionTallyQuerySet(models.QuerySet):
    def locked(self, auction_id: str) -> "AuctionTally":
        """The tally of the auction our module holds now (its tender in its auction, its lot
        still active, it not ended), its row locked. Refused in the worker's words when the
        auction is not held; DoesNotExist when it has no tally yet."""
        kept = _LOCKED_TALLY.first(auction_id)
        if kept is None:
            raise self.model.DoesNotExist
        if (
            kept.closed is not None
            or kept.ended is not None
            or not builtin()
            or kept.tender_status != TenderStatus.AUCTION
            or (kept.lot_id and _lot_status(kept.tender_id, kept.lot_id) != LotStatus.ACTIVE)
        ):
            raise NotAllowed("Stage not for bidding", code="auction_stage")
        return kept

    def begin(self, auction_id: str) -> None:
        """Make the tally of an auction our module holds, as its course stands now (worked out
        from its tender and its offers so far: none, unless it began before tallies were
        kept), with the auction's row locked; unless it has one."""
        with atomic_change():
            auction = Auction.objects.select_for_update(no_key=True).filter(pk=auction_id).first()
            # (its bidders are sealed as tendering closes: before, there is nothing to tally)
            if auction is None or auction.bidders < 2 or auction.ended or not builtin():
                raise NotAllowed("Stage not for bidding", code="auction_stage")
            if self.filter(pk=auction_id).exists():
                return
            tender = Tender.objects.defer("public_text").prefetch_related("bids")
            tender = tender.get(pk=auction.tender_id)
            course, now = course_of(auction, tender), timezone.now()
            begun = sum(1 for turns in course.rounds if turns and turns[0].starts <= now)
            tally = course.tallies[begun - 1] if begun else course.sealed_tally
            self.create(
                auction=auction,
                start=auction.start,
                ends=auction.expected_end(tender),
                step=Decimal(str(tender.expected_step(auction.line))),
                speedup=tender.speedup or 1,
                sealed=tally.sealed_json(),
                state=tally.to_json(),
                last_offer=course.placed[-1].at if course.placed else None,
            )


# The tally, its row locked, with what it needs of its auction and its tender (written in SQL
# once: core.reads).
_LOCKED_TALLY = Read(
    "auctions.AuctionTally",
    where=["auction_id"],
    for_update=True,
    also={
        "ended": "auction__ended",
        "tender_id": "auction__tender_id",
        "lot_id": "auction__lot_id",
        "tender_status": "auction__tender__status",
    },
)


def _lot_status(tender_id: str, lot_id: str) -> str | None:
    """The status of a tender's lot (its lots read alone)."""
    lots = Tender.objects.filter(pk=tender_id).values_list("data__lots", flat=True).first()
    lot = lot_of({"lots": lots or []}, lot_id)
    return lot["status"] if lot else None


class AuctionTally(WrittenWithTheChange, models.Model):
    """Our module's tally of one auction (course.Tally: each bidder's price as it stands and as
    the round began, the round's order), kept as each offer changes it, with what its course
    reads from the auction and the tender once (the bidders and their divisors, the schedule,
    the step), so that an offer reads this row alone. Made at the auction's first offer,
    closed by its end."""

    auction = models.OneToOneField(
        "tenders.Auction", primary_key=True, on_delete=models.CASCADE, related_name="kept_tally"
    )
    start = models.DateTimeField()
    ends = models.DateTimeField()
    step = models.DecimalField(max_digits=30, decimal_places=12)  # (as 2.3's float is written)
    speedup = models.PositiveIntegerField(default=1)
    sealed = models.JSONField()  # Tally.sealed_json(): the bidders as the auction began
    state = models.JSONField()  # Tally.to_json(): what the offers changed
    last_offer = models.DateTimeField(null=True, blank=True)
    # The turn of the last offer (counted from 1 through the rounds), and its offers so far.
    turn = models.PositiveIntegerField(default=0)
    turn_offers = models.PositiveSmallIntegerField(default=0)
    closed = models.DateTimeField(null=True, blank=True)  # by the auction's end: no offer after

    objects = AuctionTallyQuerySet.as_manager()

    def __str__(self) -> str:
        return f"tally of {self.auction_id}"

    @property
    def schedule(self) -> Schedule:
        return Schedule(self.start, len(self.sealed), self.speedup)

    @cached_property
    def tally(self) -> Tally:
        return Tally.from_json(self.sealed, self.state)

    def keep(self, tally: Tally, offered_at, *, turn: int, turn_offers: int) -> None:
        self.state, self.last_offer = tally.to_json(), offered_at
        self.turn, self.turn_offers = turn, turn_offers
        self.save(update_fields=["state", "last_offer", "turn", "turn_offers"])


class AuctionBid(WrittenWithTheChange, models.Model):
    APPEND_ONLY = True  # (a record: written with the tally, in one statement)

    # (its index is the one of the auction's offers in order, below)
    auction = models.ForeignKey(
        "tenders.Auction", on_delete=models.CASCADE, related_name="placed", db_index=False
    )
    bid = models.ForeignKey("tenders.Bid", on_delete=models.CASCADE, related_name="+")
    round = models.PositiveSmallIntegerField()
    # None: the bidder took back its offer of this turn.
    amount = models.DecimalField(max_digits=20, decimal_places=2, null=True, blank=True)
    at = models.DateTimeField()
    by = models.CharField(max_length=150, blank=True)  # who offered (as the audit trail names)

    objects = AuctionBidQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["auction", "at"], name="auction_bids_in_order")]

    def __str__(self) -> str:
        return f"{self.bid_id} in round {self.round}: {self.amount}"
