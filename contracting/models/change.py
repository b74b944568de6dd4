"""A change of a signed contract (2.3's contracting changes): its reasons, pending while the
owner writes it (and changes the terms it names), active once signed."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, in_own_status
from core.schema import iso
from core.transitions import NEW, transition
from tenders.models.base import ChangedUnderItsTendersLock, new_id


class ChangeStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    ACTIVE = "active", _("active")


class ContractChange(ChangedUnderItsTendersLock, models.Model):
    TRANSITIONS = {
        "create": transition({NEW}, ChangeStatus.PENDING, Role.CONTRACT_OWNER),
        "edit": transition({ChangeStatus.PENDING}, ChangeStatus.PENDING, Role.CONTRACT_OWNER),
        "activate": transition({ChangeStatus.PENDING}, ChangeStatus.ACTIVE, Role.CONTRACT_OWNER),
    }
    STAMP_FIELD = None  # (its date: when it was made, and again when signed, as 2.3 sets it)

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    contract = models.ForeignKey(
        "contracting.SignedContract",
        on_delete=models.CASCADE,
        related_name="changes",
        editable=False,
    )
    number = models.PositiveIntegerField(editable=False)
    status = models.CharField(max_length=16, choices=ChangeStatus, editable=False)
    date = models.DateTimeField(editable=False)
    date_signed = models.DateTimeField(null=True, blank=True)
    rationale = models.TextField()
    rationale_types = models.JSONField(default=list)
    contract_number = models.CharField(max_length=255, blank=True)
    # rationale_en, rationale_ru
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        # (made in the tenders app: the table keeps its first name)
        db_table = "tenders_contractchange"
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["contract", "number"], name="one_number_per_change")
        ]

    def __str__(self) -> str:
        return f"change {self.number} of {self.contract_id} ({self.status})"

    @property
    def is_signed(self) -> bool:
        return self.status == ChangeStatus.ACTIVE

    @classmethod
    def signed_of(cls, contract_ids):
        """The signed changes of these contracts, each contract's in their order."""
        return cls.objects.filter(
            contract_id__in=contract_ids, status=ChangeStatus.ACTIVE
        ).order_by("contract_id", "number")

    @property
    def tender(self):
        return self.contract.tender

    def wire(self) -> dict:
        return {
            "id": self.id,
            "status": self.status,
            "date": iso(self.date),
            "rationale": self.rationale,
            **self.data,
            "rationaleTypes": self.rationale_types,
            "contractNumber": self.contract_number,
            "dateSigned": iso(self.date_signed),
        }

    # --- the frame's questions ------------------------------------------------------------

    def lock_for_change(self):
        contract = self.contract
        now = contract.lock_for_change()
        if not self._state.adding:
            self.refresh_from_db()
            self.contract = contract
        self.mark_locked()
        return now

    def role_of(self, by: Actor) -> Role | None:
        held = by.acts_as(Role.CONTRACT_OWNER, self.contract) and self.contract.still_held_by(by)
        return Role.CONTRACT_OWNER if held else None

    def status_refusal(self, action: str) -> NotAllowed:
        return in_own_status("update contract change", self)

    def check_rules(self, action: str, by: Actor, now) -> None:
        by.check_standing()

    # --- its signature --------------------------------------------------------------------

    def check_date_signed(self, date_signed, now) -> None:
        """Not in the future, and not before the contract's last signature (its last active
        change's, or its own): 2.3's words."""
        if date_signed > now:
            raise InvalidData.field("dateSigned", "Contract signature date can't be in the future")
        signed = [
            change
            for change in self.contract.changes.all()
            if change.status == ChangeStatus.ACTIVE and change.pk != self.pk
        ]
        if signed:
            then, whose = signed[-1].date_signed or signed[-1].date, "last active change"
        else:
            then, whose = self.contract.date_signed, "contract"
        if then is not None and date_signed < then:
            raise NotAllowed(
                f"Change dateSigned ({iso(date_signed)}) can't be earlier than {whose} "
                f"dateSigned ({iso(then)})",
                code="change_date_signed",
            )
