"""The electronic auction of a tender, or of each of its lots with two or more bids: when it is
planned (the chronograph's slots), how long it lasts, and how its results become the bids'
final prices. Who runs it is the AUCTION_MODULE setting: our own module ("builtin"), or a
separate one speaking 2.3's /auction routes ("external"). docs/auction.md has the facts."""

from datetime import datetime, time, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.crypto import constant_time_compare, salted_hmac

from core.errors import InvalidData
from core.schema import KYIV, iso, parse_iso
from core.transactions import one_at_a_time
from tenders import workdays
from tenders.extensions import AUCTION_OUTCOME

from .base import new_id
from .bidding import value_refusal
from .statuses import LotStatus, TenderStatus

# auctionPeriod.shouldStartAfter is shown in these statuses (2.3).
PLANNING = frozenset({TenderStatus.TENDERING, TenderStatus.AUCTION})

# 2.3's chronograph: auctions start on working days from 11:00 to 16:00 Kyiv time, in slots of
# half an hour, each slot holding up to AUCTION_STREAMS auctions at once.
FIRST_SLOT, LAST_SLOT_END = time(11), time(16)
SLOT = timedelta(minutes=30)
# And at least this long after it should start (a day off first for the bidders to prepare).
LEAD = timedelta(hours=1)

# Our module's rules (Prozorro's auction worker): three rounds, a first pause, each bidder's turn,
# a pause between rounds.
ROUNDS = 3
FIRST_PAUSE = timedelta(seconds=300)
TURN = timedelta(seconds=120)
PAUSE = timedelta(seconds=120)

# How long 2.3 expects an external module's auction to take (then it is lost, and planned again).
EXTERNAL_PER_BIDDER = timedelta(minutes=6)
EXTERNAL_SERVICE = timedelta(minutes=9) + timedelta(minutes=15)


def builtin() -> bool:
    return settings.AUCTION_MODULE == "builtin"


def outcome_of(auction, tender) -> tuple[dict, list[tuple[str, bytes]]]:
    """How our module's auction ended. The auctions app, above this one, keeps its offers and
    plugs how to read them into AUCTION_OUTCOME: the final prices, {bid id: (final amount, when
    offered)} for the bids whose price it changed, and its protocol's files, [(file name,
    bytes)]. Without it the sealed prices stand, unrecorded."""
    outcome = AUCTION_OUTCOME.get("outcome")
    return outcome(auction, tender) if outcome is not None else ({}, [])


def participation_token(auction_id: str, bid_id: str) -> str:
    """What lets a bid's bidder into our module's auction without an account here (in its
    participationUrl): a keyed digest of the auction and the bid, good for those two only."""
    key = f"{auction_id}:{bid_id}"
    return salted_hmac("auction-participation", key, algorithm="sha256").hexdigest()


def is_participation_token(auction_id: str, bid_id: str, token: str) -> bool:
    return constant_time_compare(participation_token(auction_id, bid_id), token or "")


def page_path(auction) -> str:
    """Our module's page of `auction`, on this site."""
    args = [auction.tender_id, auction.lot_id] if auction.lot_id else [auction.tender_id]
    return reverse("auction-page", args=args)


def page_url(auction) -> str:
    """Our module's page of `auction` as others are given it (its auctionUrl)."""
    return settings.SITE_URL + page_path(auction)


def participation_url(bid, line: str | None) -> str:
    """Where `bid`'s bidder enters the auction of `line` (empty: none to enter): our module's
    page with the bid's token, or the link an external module reported."""
    if not builtin():
        if line is None:
            return bid.participation_url
        return (bid.offer_for(line) or {}).get("participationUrl", "")
    auction = next((a for a in bid.tender.auctions.all() if a.lot_id == (line or "")), None)
    if auction is None or auction.bidders < 2:
        return ""
    return f"{page_url(auction)}?bidder={bid.pk}:{participation_token(auction.pk, bid.pk)}"


def is_quick(tender) -> bool:
    """Sandbox quick mode (submissionMethodDetails "quick..."): planned right after tendering,
    without working days or slots."""
    return settings.SANDBOX_MODE and "quick" in tender.data.get("submissionMethodDetails", "")


def without_auction(tender) -> bool:
    """Sandbox "quick(mode:no-auction)" and "quick(mode:fast-forward)": the auction ends as it
    starts, the bids' sealed prices its results. (Outside the sandbox the tender's document is
    not read: the chronograph's passes leave it unloaded.)"""
    if not is_quick(tender):
        return False
    details = tender.data.get("submissionMethodDetails", "")
    return "mode:no-auction" in details or "mode:fast-forward" in details


def should_start_after(tender, auction: "Auction | None", now) -> datetime:
    """When an auction may start: the end of tendering, or the end a planned auction should have
    had when it is past and the auction never ended (a lost auction); outside quick mode,
    rounded up to the next midnight in Kyiv."""
    start_after = tender.tender_end
    if auction is not None and auction.ended is None and auction.start is not None:
        expected = auction.expected_end(tender)
        if now > expected:
            start_after = expected
    if is_quick(tender):
        return start_after
    local = start_after.astimezone(KYIV)
    midnight = datetime.combine(local.date(), time(0), tzinfo=KYIV)
    return midnight if local == midnight else midnight + timedelta(days=1)


def first_free_slot(after: datetime) -> datetime:
    """The first slot at or after `after` on a working day, between 11:00 and 16:00 Kyiv time,
    holding fewer than AUCTION_STREAMS planned auctions."""
    local = after.astimezone(KYIV)
    day = local.date()
    while True:
        if workdays.is_working_day(day):
            _plan_alone(day)
            slot = datetime.combine(day, FIRST_SLOT, tzinfo=KYIV)
            last = datetime.combine(day, LAST_SLOT_END, tzinfo=KYIV)
            taken = Auction.objects.taken_slots(slot, last)
            while slot < last:
                if slot >= local and taken.get(slot, 0) < settings.AUCTION_STREAMS:
                    return slot
                slot += SLOT
        day += timedelta(days=1)


def _plan_alone(day) -> None:
    """Auctions are planned on `day` one change at a time (until the change commits), so that
    two changes counting its slots at once do not both take the last place of one."""
    one_at_a_time(PLANNING_LOCK, day.toordinal())


# The planning of auctions, among what is done one at a time (the key is the day).
PLANNING_LOCK = 31


class AuctionQuerySet(models.QuerySet):
    def awaited_by(self, organization):
        """The auctions still to be held on tenders `organization` has a bid taking part in,
        soonest first (a lot's: Auction.held_for tells whether its bid is in it; the work
        queue's count counts them all)."""
        from .bid import Bid
        from .statuses import BidStatus

        bid_in = Bid.objects.filter(organization=organization, status=BidStatus.ACTIVE)
        return (
            self.filter(
                tender__in=bid_in.values("tender"),
                tender__status=TenderStatus.AUCTION,  # (its auctions have two bids or more)
                ended__isnull=True,
            )
            .select_related("tender")
            .order_by("start")
        )

    def started_between(self, since: datetime, until: datetime):
        """The auctions held (two bids or more) that started after `since`, by `until`, not
        ended, with their tenders (by the start's index)."""
        return (
            self.filter(start__gt=since, start__lte=until, ended__isnull=True)
            .filter(tender__status=TenderStatus.AUCTION)
            .exclude(sealed={})
            .select_related("tender")
            .order_by("start")
        )

    def held_for(self, organization, *, most: int) -> list:
        """Of those, up to `most` still open in which a bid of `organization` is (a lot's
        auction may hold none of its bids): one more query, for its bids."""
        from .bid import Bid
        from .statuses import BidStatus

        awaited = list(self.awaited_by(organization)[:most])
        mine = set(
            Bid.objects.filter(
                organization=organization,
                status=BidStatus.ACTIVE,
                tender__in={auction.tender_id for auction in awaited},
            ).values_list("pk", flat=True)
        )
        return [a for a in awaited if a.is_open(a.tender) and mine & set(a.sealed)]

    def taken_slots(self, start: datetime, end: datetime) -> dict:
        """How many auctions start in each slot from `start` to `end` (a cancelled or ended
        tender's take none: they will not be held)."""
        taken: dict = {}
        planned_in = self.filter(start__gte=start, start__lt=end).exclude(
            tender__status__in=TenderStatus.terminal()
        )
        for planned in planned_in.values_list("start", flat=True):
            slot = start + SLOT * ((planned - start) // SLOT)
            taken[slot] = taken.get(slot, 0) + 1
        return taken


class Auction(models.Model):
    """The auction of one line: a tender without lots (lot_id ""), or one of its lots. Planned
    when tendering starts, kept when two or more bids compete for its line when tendering
    closes, ended by its results. Changed under its tender's lock, with its tender's change."""

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="auctions")
    lot_id = models.CharField(max_length=32, blank=True)
    start = models.DateTimeField(null=True, blank=True)
    ended = models.DateTimeField(null=True, blank=True)
    # The external module's address of the auction (ours is the portal's page of it).
    url = models.URLField(max_length=1000, blank=True)
    # The sealed prices of the bids competing in it (bid id -> {"amount", "date"}), as
    # tendering closed: the auction starts from them whatever it makes the bids' prices.
    sealed = models.JSONField(default=dict, blank=True)

    objects = AuctionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tender", "lot_id"], name="one_auction_per_line")
        ]
        indexes = [models.Index(fields=["start"], name="auction_start")]

    def __str__(self) -> str:
        return f"auction of {self.tender_id} {self.lot_id}".strip()

    def sealed_prices(self) -> dict:
        """bid id -> (the price it was sealed at as tendering closed, when it was set)."""
        return {
            bid_id: (Decimal(str(price["amount"])), parse_iso(price["date"]))
            for bid_id, price in self.sealed.items()
        }

    @property
    def bidders(self) -> int:
        """How many bids compete in it (none until tendering closes)."""
        return len(self.sealed)

    @property
    def line(self) -> str | None:
        return self.lot_id or None

    def length(self, tender) -> timedelta:
        """How long our module's auction lasts: the first pause, each bidder's turn in each
        round, a pause between rounds (shortened by the sandbox accelerator)."""
        speedup = tender.speedup or 1  # (each length divided, as our module's schedule does)
        return (
            FIRST_PAUSE / speedup
            + ROUNDS * self.bidders * (TURN / speedup)
            + (ROUNDS - 1) * (PAUSE / speedup)
        )

    def expected_end(self, tender) -> datetime:
        """When it is over: our module's by its rules; an external module's when 2.3 expects
        it (past that without results it is lost, and planned again)."""
        if builtin() and without_auction(tender):
            return self.start
        if builtin():
            return self.start + self.length(tender)
        return self.start + self.bidders * EXTERNAL_PER_BIDDER + EXTERNAL_SERVICE

    def plan(self, tender, now) -> None:
        """Give it a start: the first free slot an hour after it should start (in quick mode,
        when it should start)."""
        after = should_start_after(tender, self, now)
        self.start = after if is_quick(tender) else first_free_slot(after + LEAD)
        self.save()

    def period(self, tender, now) -> dict:
        """auctionPeriod on the wire: startDate, endDate, and while it is to come the computed
        shouldStartAfter (2.3)."""
        shown = {}
        if self.start is not None:
            shown["startDate"] = iso(self.start)
        if self.ended is not None:
            shown["endDate"] = iso(self.ended)
        elif tender.status in PLANNING and self.is_open(tender):
            shown["shouldStartAfter"] = iso(should_start_after(tender, self, now))
        return shown

    def is_open(self, tender) -> bool:
        """Still to be held: not ended, and its line still competing (a lot cancelled meanwhile
        has none)."""
        if self.ended is not None:
            return False
        return not self.lot_id or tender.lot_status(self.lot_id) == LotStatus.ACTIVE

    def record_results(self, tender, prices: dict, at, *, order: list | None = None) -> None:
        """The auction ended at `at` with `prices`: bid id -> (its final amount, when it was
        offered), for the bids whose price changed. The one rule both ways an auction ends by
        (2.3's POST /auction, and our module's last turn). A price above the line's expected
        value is refused as a bid would be (2.3's words), the bids named in `order` (their ids
        as reported; by default the tender's order)."""
        refusals = {}
        for bid in tender.active_bids():
            offer = bid.offer_for(self.line)
            if bid.pk not in prices or offer is None:
                continue
            amount, date = prices[bid.pk]
            value = {**offer["value"], "amount": amount}
            refusal = value_refusal(value, tender.expected_value(self.line), self.what)
            if refusal:
                refusals[bid.pk] = {"value": [refusal]}
                continue
            if self.lot_id:
                bid.lot_values = [
                    {**o, "value": value, "date": date} if o["relatedLot"] == self.lot_id else o
                    for o in bid.lot_values
                ]
            else:
                bid.value, bid.date = value, parse_iso(date)
            bid.save()
        if refusals:
            named = order or [bid.pk for bid in tender.active_bids()]
            raise InvalidData({"bids": [refusals.get(bid_id, {}) for bid_id in named]})
        self.ended = at
        self.save()

    @property
    def watched_at(self) -> str:
        """Where the portal links to it: our page, on this site, from the moment it is planned
        (until its bidders are known, a countdown to its start); or the external module's."""
        if builtin():
            return page_path(self) if self.start else ""
        return self.url

    @property
    def link(self) -> str:
        """auctionUrl: our page with the site's address once its bidders are known (2.3 gives
        none sooner); or the external module's."""
        if builtin():
            return settings.SITE_URL + page_path(self) if self.bidders >= 2 else ""
        return self.url

    @property
    def what(self) -> str:
        return "lot" if self.lot_id else "tender"


def auction_fields(tender, now) -> tuple[dict, dict]:
    """What the wire shows of the auctions: the tender's own fields (auctionPeriod, auctionUrl;
    none on a lot tender) and each lot's, by its id (none in a procedure without an auction).
    Reads the auctions loaded with it."""
    if not tender.procedure.has_auction:
        return {}, {}
    by_line = {auction.lot_id: auction for auction in tender.auctions.all()}
    lines = [lot["id"] for lot in tender.lots] if tender.has_lots else [""]
    shown = {}
    for line in lines:
        auction, fields = by_line.get(line), {}
        if auction is not None:
            fields["auctionPeriod"] = auction.period(tender, now)
            fields["auctionUrl"] = auction.link
        elif tender.status == TenderStatus.TENDERING and tender.lot_status(line or None) in (
            None,
            LotStatus.ACTIVE,
        ):
            # (tendering started before auctions were planned: planned when it closes)
            fields["auctionPeriod"] = {
                "shouldStartAfter": iso(should_start_after(tender, None, now))
            }
        shown[line] = {name: value for name, value in fields.items() if value}
    return shown.pop("", {}), shown
