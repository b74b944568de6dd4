from django.db import models, transaction

from portal.core.actors import Actor, Role
from portal.core.errors import NotAllowed
from portal.core.schema import merge_patch, validate
from tenders.schema import CancellationSchema

from .base import PartOfTender, new_id
from .statuses import CancellationStatus, TenderStatus


class Cancellation(PartOfTender):
    """The owner's decision to cancel the tender: pending (documents may be attached), then
    active, which cancels the tender."""

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    status = models.CharField(max_length=16, choices=CancellationStatus, editable=False)
    date = models.DateTimeField(editable=False)
    reason = models.TextField()
    # reason_en, reason_ru, cancellationOf
    data = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"cancellation of {self.tender_id} ({self.status})"

    def document(self) -> dict:
        return {"reason": self.reason, "status": self.status, **self.data}

    def patch(self, *, by: Actor, data: dict) -> None:
        """PATCH /cancellations/{id}: edit the reason; status "active" cancels the tender."""
        with transaction.atomic():
            now = self._lock_tender()
            tender = self.tender
            tender.require(by, Role.TENDER_OWNER)
            if tender.status in TenderStatus.terminal():
                raise NotAllowed(
                    f"Can't update cancellation in current ({tender.status}) tender status"
                )
            by.check_standing(in_public=tender.status != TenderStatus.DRAFT)
            fields = validate(CancellationSchema, merge_patch(self.document(), data))
            status = fields.pop("status", self.status)
            reason = fields.pop("reason")
            if (reason, fields) != (self.reason, self.data):
                self.reason, self.data = reason, fields
                self.save()
                tender._record(self, "edit", by, now)
            if status == CancellationStatus.ACTIVE and self.status != status:
                self._activate(by, now)
            tender._touch(now)

    def _activate(self, by: Actor, now) -> None:
        self.status = CancellationStatus.ACTIVE
        self.date = now
        self.save()
        self.tender._record(
            self, "activate", by, now, from_status=CancellationStatus.PENDING, to_status=self.status
        )
        self.tender._cancel(by, now)
