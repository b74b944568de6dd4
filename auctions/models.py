"""Our module's bids in an auction: each price a bidder offers in its turn (or takes back), kept
in the order they came. The course of the auction (course.py) is read from them."""

from decimal import Decimal

from django.core.cache import cache
from django.db import models, transaction
from django.utils.translation import gettext_noop

from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, PermissionDenied
from core.transactions import atomic_change
from tenders.models.auction import builtin

from .course import course_of

# The auction worker's words (the page says them in its reader's language).
TOO_HIGH, TOO_LOW = gettext_noop("Too high value"), gettext_noop("Too low value")


def offers_version(tender_id: str, lot_id: str) -> int:
    """What moves with every offer accepted in the auction (watchers' kept states name it)."""
    return cache.get(f"auction-offers:{tender_id}:{lot_id}", 0)


def offers_changed(tender_id: str, lot_id: str) -> None:
    key = f"auction-offers:{tender_id}:{lot_id}"
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, None)


class AuctionBidQuerySet(models.QuerySet):
    def offer(self, *, tender, auction_id: str, by: Actor, amount) -> "AuctionBid":
        """A bidder offers `amount` in its turn (None: takes back its offer of this turn). The
        turn is the server's clock's, read with the tender's row locked: an offer that comes
        after its turn ended is refused, one accepted is kept. The worker's words when not."""
        with atomic_change():
            now = tender.lock_for_change()
            auction = next((a for a in tender.open_auctions() if a.pk == auction_id), None)
            if auction is None or auction.start is None or not builtin():
                raise NotAllowed("Stage not for bidding", code="auction_stage")
            course = course_of(auction, tender)
            mine = next(
                (bid for bid in course.bids.values() if by.acts_as(Role.BID_OWNER, bid)), None
            )
            if mine is None:
                raise PermissionDenied()
            by.check_standing()
            turn = course.turn_at(now)
            if turn is None:
                raise NotAllowed("Stage not for bidding", code="auction_stage")
            if turn.bid_id != mine.pk:
                raise NotAllowed("Not valid bidder", code="auction_turn")
            if amount is not None:
                self._check_amount(tender, auction, course.price_before(turn).amount, amount)
            placed = self.create(auction=auction, bid=mine, round=turn.round, amount=amount, at=now)
            tender.record_event(
                tender, "auction_bid", by, now, lot_id=auction.lot_id, round=turn.round,
                amount=None if amount is None else float(amount),
            )  # fmt: skip
            transaction.on_commit(lambda: offers_changed(tender.pk, auction.lot_id))
        return placed

    @staticmethod
    def _check_amount(tender, auction, current: float, amount) -> None:
        """Above zero, and at least the step below the bidder's own price (counted in
        decimals, as the prices are written: 450.15 - 10.05 is 440.10)."""
        step = Decimal(str(tender.expected_step(auction.line)))
        if amount <= 0:
            raise InvalidData.field("amount", TOO_LOW)
        if Decimal(str(amount)) > Decimal(str(current)) - step:
            raise InvalidData.field("amount", TOO_HIGH)


class AuctionBid(models.Model):
    auction = models.ForeignKey("tenders.Auction", on_delete=models.CASCADE, related_name="placed")
    bid = models.ForeignKey("tenders.Bid", on_delete=models.CASCADE, related_name="+")
    round = models.PositiveSmallIntegerField()
    # None: the bidder took back its offer of this turn.
    amount = models.DecimalField(max_digits=20, decimal_places=2, null=True, blank=True)
    at = models.DateTimeField()

    objects = AuctionBidQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["auction", "at"], name="auction_bids_in_order")]

    def __str__(self) -> str:
        return f"{self.bid_id} in round {self.round}: {self.amount}"
