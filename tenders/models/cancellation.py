from django.db import models
from django.utils.translation import get_language, override
from django.utils.translation import gettext_lazy as _

from core.actors import Actor, Role
from core.errors import NotAllowed, in_own_status, in_tender_status
from core.schema import merge_patch, validate
from core.transactions import atomic_change
from core.transitions import NEW, transition
from tenders.documents import PartDocuments
from tenders.part_schemas import CancellationSchema

from .base import PartOfTender, new_id
from .statuses import CancellationStatus, TenderStatus


class Cancellation(PartOfTender, PartDocuments):
    """The owner's decision to cancel the tender: pending (documents may be attached), then
    active, which cancels the tender."""

    TRANSITIONS = {
        "create": transition({NEW}, CancellationStatus.PENDING, Role.TENDER_OWNER),
        "edit": transition(
            {CancellationStatus.PENDING}, CancellationStatus.PENDING, Role.TENDER_OWNER
        ),
        "activate": transition(
            {CancellationStatus.PENDING}, CancellationStatus.ACTIVE, Role.TENDER_OWNER
        ),
    }

    # The grounds on which a buyer cancels a simplified procurement (the Law of Ukraine "On
    # Public Procurement", article 14), by Prozorro's later reasonType codes. 2.3.66's
    # belowThreshold cancellation has no field for it: the ground opens the reason's text.
    GROUNDS = {
        "noDemand": _("There is no further need to buy it."),
        "unFixable": _("Violations of the procurement law found in it cannot be remedied."),
        "expensesCut": _("The funds for the purchase were cut."),
    }

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    status = models.CharField(max_length=16, choices=CancellationStatus, editable=False)
    date = models.DateTimeField(editable=False)
    reason = models.TextField()
    # reason_en, reason_ru, cancellationOf
    data = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"cancellation of {self.tender_id} ({self.status})"

    def wire(self) -> dict:
        return {"reason": self.reason, "status": self.status, **self.data}

    @classmethod
    def on_ground(cls, ground: str, facts: str) -> dict:
        """The reason of a cancellation on one of GROUNDS, with its facts: in Ukrainian, and in
        English as reason_en."""
        with override("uk"):
            reason = f"{cls.GROUNDS[ground]} {facts}"
        with override("en"):
            reason_en = f"{cls.GROUNDS[ground]} {facts}"
        return {"reason": reason, "reason_en": reason_en}

    @property
    def reason_in_reader_language(self) -> str:
        """The reason in English for a reader of English, where it was written in English too."""
        if (get_language() or "")[:2] == "en":
            return self.data.get("reason_en") or self.reason
        return self.reason

    # --- its documents (the protocol of the decision to cancel) -------------------------

    def check_documents_open(self, verb: str) -> None:
        """Until the tender has ended (2.3)."""
        tender = self.tender
        if tender.status in TenderStatus.terminal():
            raise in_tender_status(f"{verb} document", tender)

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        return Role.TENDER_OWNER if by.acts_as(Role.TENDER_OWNER, self.tender) else None

    def check_context(self, action: str, by: Actor, now) -> None:
        tender = self.tender
        if tender.status in TenderStatus.terminal():
            raise in_tender_status("update cancellation", tender)
        tender.check_lot_active(self.related_lot, "update cancellation")

    @property
    def took_effect(self) -> bool:
        return self.status == CancellationStatus.ACTIVE

    @property
    def related_lot(self) -> str | None:
        """The lot it cancels, or None: the whole tender (2.3: a cancellation naming a lot
        cancels that lot)."""
        return self.data.get("relatedLot")

    def status_refusal(self, action: str) -> NotAllowed:
        return in_own_status("update cancellation", self)

    def check_rules(self, action: str, by: Actor, now) -> None:
        by.check_standing(in_public=self.tender.status != TenderStatus.DRAFT)

    # --- the owner's changes --------------------------------------------------------------

    def patch(self, *, by: Actor, data: dict) -> None:
        """PATCH /cancellations/{id}: edit the reason; status "active" cancels the tender."""
        with atomic_change():
            now = self.begin("edit", by)
            fields = validate(CancellationSchema, merge_patch(self.wire(), data))
            # What it cancels is fixed when it is made.
            for name in ("cancellationOf", "relatedLot"):
                fields.pop(name, None)
                if name in self.data:
                    fields[name] = self.data[name]
            status = fields.pop("status", self.status)
            reason = fields.pop("reason")
            if (reason, fields) != (self.reason, self.data):
                # Words, not a decision: the date stays.
                self.reason, self.data = reason, fields
                self.save(update_fields=["reason", "data"])
                self.record_change("edit", by, now, self.status, ["data", "reason"])
            if status == CancellationStatus.ACTIVE and self.status != status:
                self.activate(by, now)
            self.tender.stamp_change(now)

    def activate(self, by: Actor, now) -> None:
        self.perform("activate", by, now)
        self.tender.cancellation_activated(self, by, now)
