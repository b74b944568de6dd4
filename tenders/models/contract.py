from django.db import models, transaction

from portal.core.actors import Actor, Role
from portal.core.errors import InvalidData, NotAllowed
from portal.core.schema import iso, to_json, validate
from tenders.schema import ContractPatchSchema

from .base import PartOfTender, new_id
from .statuses import AwardStatus, ContractStatus, TenderStatus


class Contract(PartOfTender):
    """The contract with an active award's supplier; signing it completes the tender."""

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    award = models.ForeignKey("tenders.Award", on_delete=models.PROTECT, related_name="contracts")
    contract_id = models.CharField(max_length=64, editable=False)
    status = models.CharField(max_length=16, choices=ContractStatus, editable=False)
    date = models.DateTimeField(editable=False)
    date_signed = models.DateTimeField(null=True, blank=True, editable=False)
    # value, suppliers and items copied from the award; title, description, contractNumber,
    # period as the owner wrote them
    data = models.JSONField(default=dict)

    def __str__(self) -> str:
        return self.contract_id

    def _begin(self, by: Actor):
        now = self._lock_tender()
        tender = self.tender
        tender.require(by, Role.TENDER_OWNER)
        if tender.status not in TenderStatus.deciding():
            raise NotAllowed(f"Can't update contract in current ({tender.status}) tender status")
        if self.status != ContractStatus.PENDING:
            raise NotAllowed(f"Can't update contract in current ({self.status}) status")
        by.check_standing()
        return now

    def patch(self, *, by: Actor, data: dict) -> None:
        """PATCH /contracts/{id}: the owner's edits of a pending contract, and signing it
        (status "active")."""
        fields = validate(ContractPatchSchema, data)
        with transaction.atomic():
            now = self._begin(by)
            requested = fields.pop("status", self.status)
            if requested not in (ContractStatus.PENDING, ContractStatus.ACTIVE):
                raise NotAllowed("Can't update contract status")
            date_signed = fields.pop("dateSigned", None)
            edits = to_json(fields)
            if edits and {**self.data, **edits} != self.data:
                self.data = {**self.data, **edits}
                self.save()
                self.tender._touch(now)
                self.tender._record(self, "edit", by, now, fields=sorted(edits))
            if requested == ContractStatus.ACTIVE:
                self.sign(by=by, date_signed=date_signed)
            elif date_signed is not None:
                self._check_date_signed(date_signed, now)
                self.date_signed = date_signed
                self.save()
                self.tender._touch(now)

    def _check_date_signed(self, date_signed, now) -> None:
        if date_signed > now:
            raise InvalidData.field("dateSigned", "Contract signature date can't be in the future")
        end = self.award.complaint_period_end
        if end and date_signed < end:
            raise InvalidData.field(
                "dateSigned",
                "Contract signature date should be after award complaint period end date "
                f"({iso(end)})",
            )

    def _check_signing(self, now) -> None:
        award = self.award
        if award.status != AwardStatus.ACTIVE:
            raise NotAllowed(f"Can't update contract in current ({award.status}) award status")
        end = award.complaint_period_end
        if end and end > now:
            raise NotAllowed(f"Can't sign contract before stand-still period end ({iso(end)})")
        if award.complaints.answered().exists():
            raise NotAllowed("Can't sign contract before reviewing all complaints")

    def signing_refusal(self, by: Actor, now) -> str | None:
        """Why `by` may not sign this contract now (the 2.3 description), or None if it may."""
        tender = self.tender
        if not by.acts_as(Role.TENDER_OWNER, tender) or self.status != ContractStatus.PENDING:
            return "Forbidden"
        try:
            self._check_signing(now)
        except NotAllowed as refusal:
            return refusal.description
        return None

    def sign(self, *, by: Actor, date_signed=None) -> None:
        """Sign once the award's complaint period is over; the tender is then complete."""
        with transaction.atomic():
            now = self._begin(by)
            self._check_signing(now)
            if date_signed is not None:
                self._check_date_signed(date_signed, now)
            self.status = ContractStatus.ACTIVE
            self.date_signed = date_signed or now
            self.save()
            tender = self.tender
            tender._record(
                self, "sign", by, now, from_status=ContractStatus.PENDING, to_status=self.status
            )
            before = tender.status
            tender._set_status(TenderStatus.COMPLETE, now)
            tender._record(tender, "complete", by, now, from_status=before, to_status=tender.status)
            tender._touch(now)
