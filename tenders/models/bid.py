from django.db import models

from core.actors import Actor, Role
from core.errors import NotAllowed, NotFound, in_own_status, in_tender_status
from core.schema import merge_patch, parse_iso, to_json, validate
from core.transactions import atomic_change
from core.transitions import NEW, UNCHANGED, transition
from tenders.documents import PartDocuments
from tenders.part_schemas import BidSchema

from .base import Owned, PartOfTender, new_id
from .statuses import AwardStatus, BidStatus, TenderStatus


class BidQuerySet(models.QuerySet):
    def placed_by(self, organization):
        """`organization`'s bids that take part or are drafts, newest first, each with its
        tender and the decisions on it."""
        return (
            self.filter(organization=organization, status__in=Bid.LIVE)
            .select_related("tender")
            .prefetch_related("awards__contracts")
            .order_by("-date")
        )


class Bid(PartOfTender, PartDocuments, Owned):
    LIVE = {BidStatus.DRAFT, BidStatus.ACTIVE}
    TRANSITIONS = {
        # Placed taking part at once, or as a draft (the status the bidder sends picks).
        "place": transition({NEW}, BidStatus.ACTIVE, Role.BID_OWNER),
        "place_draft": transition({NEW}, BidStatus.DRAFT, Role.BID_OWNER),
        # Value and tenderers; with a status sent, a draft starts to take part (or an active
        # bid becomes a draft again).
        "edit": transition(LIVE, UNCHANGED, Role.BID_OWNER),
        "activate": transition({BidStatus.DRAFT}, BidStatus.ACTIVE, Role.BID_OWNER),
        "back_to_draft": transition({BidStatus.ACTIVE}, BidStatus.DRAFT, Role.BID_OWNER),
        "withdraw": transition(LIVE, BidStatus.DELETED, Role.BID_OWNER),
    }
    # The 2.3 words for each action.
    VERBS = {
        "place": "add", "place_draft": "add", "edit": "update", "activate": "update",
        "back_to_draft": "update", "withdraw": "delete",
    }  # fmt: skip
    # A bid's date is when it was placed, or its amount last changed (Bid.patch), as in 2.3.
    STAMP_FIELD = None

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    status = models.CharField(max_length=16, choices=BidStatus, editable=False)
    date = models.DateTimeField(editable=False)
    # On a tender without lots, its value; with lots, an offer for each lot it competes for
    # (lotValues: value, relatedLot, and the date its amount was last set).
    value = models.JSONField(null=True, blank=True)
    lot_values = models.JSONField(default=list, blank=True)
    # Its value for each of the tender's features it is weighed by (code, value).
    parameters = models.JSONField(default=list, blank=True)
    tenderers = models.JSONField()
    # Where its bidder enters the auction, reported by an external auction module (per lot: in
    # its lotValues); shown to the bid's owner alone.
    participation_url = models.URLField(max_length=1000, blank=True, editable=False)

    objects = BidQuerySet.as_manager()

    def __str__(self) -> str:
        return f"bid {self.pk} on {self.tender_id}"

    def wire(self) -> dict:
        wire = {"tenderers": self.tenderers, "status": self.status}
        if self.value is not None:
            wire["value"] = self.value
        if self.lot_values:
            wire["lotValues"] = self.lot_values
        if self.parameters:
            wire["parameters"] = self.parameters
        return wire

    @property
    def tenderer_name(self) -> str:
        return (self.tenderers or [{}])[0].get("name", "")

    def offer_for(self, lot_id: str | None) -> dict | None:
        """What this bid offers for the lot (None: for the tender without lots), or None."""
        if lot_id is None:
            return {"value": self.value} if self.value is not None else None
        return next((offer for offer in self.lot_values if offer["relatedLot"] == lot_id), None)

    def rank_of(self, offer: dict, weighing) -> tuple:
        """Bids are ranked by price, weighed by the values they name for the features of the
        line (`weighing`), then by when the price was set: the lot offer's date, or the bid's
        (2.3)."""
        when = parse_iso(offer["date"]) if "date" in offer else self.date
        return self.tender.weighted(self, offer, weighing), when, self.number

    def check_visible(self, by: Actor, noun: str = "bid") -> None:
        """A bid (and what `noun` names of it: its documents) is its owner's alone until
        tendering closes; then the bids that took part are public (drafts never are). A
        withdrawn bid is gone for everyone, its bidder too (2.3 removes it; we keep its row
        for the audit trail)."""
        if self.status == BidStatus.DELETED:
            raise NotFound("bid_id")
        if by.acts_as(Role.BID_OWNER, self):
            return
        self.tender.check_bids_visible(noun)
        if self.status != BidStatus.ACTIVE:
            raise NotFound("bid_id")

    # --- its documents (sealed with it) -------------------------------------------------

    @property
    def documents_sealed(self) -> bool:
        return not self.tender.bids_are_public

    def check_documents_open(self, verb: str) -> None:
        """The bidder's, while tendering is open, and in qualification while its award is
        pending (2.3: to answer the buyer's questions about the bid); never a withdrawn bid's."""
        if self.status not in self.LIVE:
            raise NotAllowed(
                f"Can't {verb} document at '{self.status}' bid status",
                code="own_status",
                params={"status": self.get_status_display()},
            )
        tender = self.tender
        if tender.status not in (TenderStatus.TENDERING, TenderStatus.QUALIFICATION):
            raise in_tender_status(f"{verb} document", tender)
        if tender.status == TenderStatus.QUALIFICATION and not any(
            award.bid_id == self.pk and award.status == AwardStatus.PENDING
            for award in tender.awards.all()
        ):
            raise NotAllowed(
                f"Can't {verb} document because award of bid is not in pending state",
                code="bid_not_considered",
            )

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        return Role.BID_OWNER if by.acts_as(Role.BID_OWNER, self) else None

    def check_context(self, action: str, by: Actor, now) -> None:
        self.tender.check_tendering(self.VERBS[action], now)

    def standing(self, now) -> str:
        """Where the bid stands, for its bidder: "draft", "sealed" (bids are still taken),
        "opening" (bidding closed, no decision yet), "in auction", "considered", "won",
        "contracted" (won, its contract signed), "disqualified", "withdrawn decision" (taken
        back), "waiting" (another bid is considered first), "not chosen" (the decisions went to
        other bids), "failed" or "cancelled" (the tender's end)."""
        tender = self.tender
        if tender.status == TenderStatus.CANCELLED:
            return "cancelled"
        if tender.status == TenderStatus.UNSUCCESSFUL:
            return "failed"
        if self.status == BidStatus.DRAFT:
            return "draft"
        if tender.status in (TenderStatus.ENQUIRIES, TenderStatus.TENDERING):
            return "sealed" if now <= tender.tender_end else "opening"
        if tender.status == TenderStatus.AUCTION:
            return "in auction"
        decisions = sorted(self.awards.all(), key=lambda award: award.date)
        if not decisions:
            return "waiting" if tender.status == TenderStatus.QUALIFICATION else "not chosen"
        last = decisions[-1]
        if last.won and any(contract.is_signed for contract in last.contracts.all()):
            return "contracted"
        return {
            AwardStatus.PENDING: "considered",
            AwardStatus.ACTIVE: "won",
            AwardStatus.UNSUCCESSFUL: "disqualified",
            AwardStatus.CANCELLED: "withdrawn decision",
        }[last.status]

    def status_refusal(self, action: str) -> NotAllowed:
        return in_own_status(f"{self.VERBS[action]} bid", self)

    def check_rules(self, action: str, by: Actor, now) -> None:
        by.check_standing()

    def record_change(self, action: str, by: Actor, now, before: str, fields: list[str]):
        super().record_change(action, by, now, before, fields)
        self.tender.stamp_change(now)

    # --- the bidder's changes -------------------------------------------------------------

    def patch(self, *, by: Actor, data: dict) -> bool:
        """PATCH a bid while tendering is open: tenderers, value, draft/active."""
        with atomic_change():
            now = self.begin("edit", by)
            merged = merge_patch(self.wire(), data)
            fields = to_json(validate(BidSchema, merged, lots=bool(self.tender.lots)))
            kept = [{k: v for k, v in offer.items() if k != "date"} for offer in self.lot_values]
            self.tender.check_bid_offer(fields, "update", kept)
            fields = self.tender.date_offers(fields, self.lot_values, now)
            if fields == self.wire():
                return False
            # Asked of a change of who bids or of a bid that starts to take part, so that bids
            # placed before these rules still take other changes.
            activated = fields["status"] == BidStatus.ACTIVE != self.status
            if fields["tenderers"] != self.tenderers or activated:
                self.tender.check_tenderers(
                    "update",
                    fields["tenderers"],
                    active=fields["status"] == BidStatus.ACTIVE,
                    bid=self,
                )
            # 2.3 dates a bid again when its amount changes (equal amounts rank by date).
            repriced = (fields.get("value") or {}).get("amount") != (self.value or {}).get("amount")
            action = "edit"
            if fields["status"] != self.status:
                action = self.transition_to(fields["status"], Role.BID_OWNER)
                self.guard(action, by, now)
            self.apply(
                action,
                by,
                now,
                **({"date": now} if repriced else {}),
                value=fields.get("value"),
                lot_values=fields.get("lotValues", []),
                parameters=fields.get("parameters", []),
                tenderers=fields["tenderers"],
            )
            return True

    def withdraw(self, *, by: Actor) -> None:
        """DELETE a bid while tendering is open. The row stays, for the audit trail."""
        with atomic_change():
            now = self.begin("withdraw", by)
            self.apply("withdraw", by, now)
