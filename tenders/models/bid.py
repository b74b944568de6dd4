from django.db import models, transaction

from portal.core.actors import Actor, Role
from portal.core.errors import NotAllowed, NotFound
from portal.core.schema import merge_patch, to_json, validate
from tenders.schema import BidSchema

from .base import Owned, PartOfTender, new_id
from .statuses import BidStatus


class Bid(PartOfTender, Owned):
    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    status = models.CharField(max_length=16, choices=BidStatus, editable=False)
    date = models.DateTimeField(editable=False)
    value = models.JSONField()
    tenderers = models.JSONField()

    def __str__(self) -> str:
        return f"bid {self.pk} on {self.tender_id}"

    def document(self) -> dict:
        return {"tenderers": self.tenderers, "value": self.value, "status": self.status}

    def check_visible(self, by: Actor) -> None:
        """A bid is its owner's alone until tendering closes; then the bids that took part are
        public (drafts and withdrawn bids never are)."""
        if by.acts_as(Role.BID_OWNER, self):
            return
        self.tender.check_bids_visible("bid")
        if self.status != BidStatus.ACTIVE:
            raise NotFound("bid_id")

    def _begin(self, by: Actor, verb: str):
        now = self._lock_tender()
        self.require(by, Role.BID_OWNER)
        self.tender.require_tendering(verb, now)
        if self.status == BidStatus.DELETED:
            raise NotAllowed(f"Can't {verb} bid in current ({self.status}) status")
        by.check_standing()
        return now

    def edit(self, *, by: Actor, patch: dict) -> bool:
        """PATCH a bid while tendering is open: tenderers, value, draft/active."""
        with transaction.atomic():
            now = self._begin(by, "update")
            fields = to_json(validate(BidSchema, merge_patch(self.document(), patch)))
            self.tender.check_bid_value(fields["value"])
            self.tender.check_tenderers(
                "update", fields["tenderers"], active=fields["status"] == BidStatus.ACTIVE, bid=self
            )
            if fields == self.document():
                return False
            before = self.status
            self.status, self.value, self.tenderers = (
                fields["status"],
                fields["value"],
                fields["tenderers"],
            )
            self.save()
            self.tender._touch(now)
            self.tender._record(self, "edit", by, now, from_status=before, to_status=self.status)
            return True

    def withdraw(self, *, by: Actor) -> None:
        """DELETE a bid while tendering is open. The row stays, for the audit trail."""
        with transaction.atomic():
            now = self._begin(by, "delete")
            before = self.status
            self.status = BidStatus.DELETED
            self.save()
            self.tender._touch(now)
            self.tender._record(
                self, "withdraw", by, now, from_status=before, to_status=self.status
            )
