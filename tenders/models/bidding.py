"""Bidding on a tender: when bids are taken, what a bid may offer, who may bid."""

from portal.core.actors import Actor, Role
from portal.core.errors import InvalidData, NotAllowed, PermissionDenied
from portal.core.schema import iso, to_json, validate
from portal.core.transactions import atomic_change
from tenders.schema import BidSchema, party_key

from .base import new_id
from .statuses import BidStatus, TenderStatus


class Bidding:
    """Mixed into Tender."""

    def active_bids(self) -> list:
        """The bids that take part (not drafts, not withdrawn), in the order they came; read
        from the bids loaded with the tender when they are."""
        return [bid for bid in self.bids.all() if bid.status == BidStatus.ACTIVE]

    def check_tendering(self, verb: str, now) -> None:
        """Bids are placed, changed and withdrawn only while tendering is open."""
        if self.status != TenderStatus.TENDERING:
            raise NotAllowed(f"Can't {verb} bid in current ({self.status}) tender status")
        if not self.tender_start <= now <= self.tender_end:
            past = {"add": "added", "update": "updated", "delete": "deleted"}[verb]
            period = f"from ({iso(self.tender_start)}) to ({iso(self.tender_end)})"
            raise NotAllowed(f"Bid can be {past} only during the tendering period: {period}.")

    def check_bid_value(self, value: dict) -> None:
        mine = self.data["value"]
        if value["amount"] > mine["amount"]:
            raise InvalidData.field("value", "value of bid should be less than value of tender")
        if value["currency"] != mine["currency"]:
            raise InvalidData.field(
                "value", "currency of bid should be identical to currency of value of tender"
            )
        if value["valueAddedTaxIncluded"] != mine["valueAddedTaxIncluded"]:
            raise InvalidData.field(
                "value",
                "valueAddedTaxIncluded of bid should be identical to "
                "valueAddedTaxIncluded of value of tender",
            )

    def check_tenderers(self, verb: str, tenderers: list[dict], *, active: bool, bid=None):
        """2.3 leaves these to the platforms; we keep them in the model, for both faces: the
        procuring entity does not bid on its own tender, and a tenderer has one active bid."""
        mine = {party_key(tenderer) for tenderer in tenderers}
        if party_key(self.data["procuringEntity"]) in mine:
            raise NotAllowed(
                f"Can't {verb} bid: the procuring entity can't bid on its own tender",
                location="body",
                name="tenderers",
            )
        if not active:
            return
        others = [other for other in self.active_bids() if other.pk != getattr(bid, "pk", None)]
        if any(mine & {party_key(t) for t in other.tenderers} for other in others):
            raise NotAllowed(
                f"Can't {verb} bid: the tenderer already has an active bid on this tender",
                location="body",
                name="tenderers",
            )

    def check_new_bid(self, tenderer: dict, now) -> None:
        """Would an active bid from `tenderer` be accepted now (before its value is known)?"""
        self.check_tendering("add", now)
        self.check_tenderers("add", [tenderer], active=True)

    def place_bid(self, *, by: Actor, data: dict, documents: list[dict] = ()):
        """POST /tenders/{id}/bids: returns the bid and its access token. `documents` (each
        the keywords of a document's first version: tenders.documents.document_fields) are
        attached to it in the same change, as 2.3 keeps the documents sent with a bid."""
        if by.role is not Role.AUTHENTICATED:
            raise PermissionDenied()
        fields = to_json(validate(BidSchema, data))
        with atomic_change():
            now = self._lock_and_catch_up()
            self.check_tendering("add", now)
            self.check_bid_value(fields["value"])
            self.check_tenderers(
                "add", fields["tenderers"], active=fields["status"] == BidStatus.ACTIVE
            )
            by.check_standing()
            bid = self.bids.model(
                id=new_id(),
                number=self.bids.count() + 1,
                tender=self,
                broker=by.broker,
                organization=by.organization,
                status=fields["status"],
                date=now,
                value=fields["value"],
                tenderers=fields["tenderers"],
            )
            token = bid.issue_token()
            bid.save(force_insert=True)
            self._record(bid, "create", by, now, to_status=bid.status)
            bidder = Actor(Role.BID_OWNER, broker=by.broker, user=by.user, subject=bid)
            bid._attach_sent(bidder, now, documents)
            self._touch(now)
        return bid, token
