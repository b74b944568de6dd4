from django.db import models, transaction

from portal.core.actors import Actor, Role
from portal.core.errors import NotAllowed, offered
from portal.core.schema import validate
from tenders.schema import AwardPatchSchema
from tenders.workdays import STAND_STILL

from .base import PartOfTender, new_id
from .statuses import AwardStatus, ContractStatus, TenderStatus

# Claims against a disqualification that let the owner reopen it.
RECONSIDERING_CLAIMS = ("claim", "answered", "resolved")
EDITABLE_FIELDS = (
    "title",
    "title_en",
    "title_ru",
    "description",
    "description_en",
    "description_ru",
)


class Award(PartOfTender):
    """A decision on one bid. The tender owner activates it (the bid wins) or disqualifies it
    (the next lowest bid gets an award); either starts the complaint period."""

    # action: (from, to). The methods, the PATCH dispatch and the portal read this table.
    TRANSITIONS = {
        "activate": ({AwardStatus.PENDING}, AwardStatus.ACTIVE),
        "disqualify": ({AwardStatus.PENDING}, AwardStatus.UNSUCCESSFUL),
        # An active award is taken back; a disqualification is reconsidered after a claim.
        "cancel": ({AwardStatus.ACTIVE, AwardStatus.UNSUCCESSFUL}, AwardStatus.CANCELLED),
    }

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    bid = models.ForeignKey("tenders.Bid", on_delete=models.PROTECT, related_name="awards")
    status = models.CharField(max_length=16, choices=AwardStatus, editable=False)
    date = models.DateTimeField(editable=False)
    value = models.JSONField()
    suppliers = models.JSONField()
    # title, description and their translations, as the owner wrote them
    data = models.JSONField(default=dict, blank=True)
    complaint_period_start = models.DateTimeField(editable=False)
    complaint_period_end = models.DateTimeField(null=True, blank=True, editable=False)

    def __str__(self) -> str:
        return f"award {self.pk} ({self.status})"

    @classmethod
    def action_for(cls, current: str, requested: str) -> str | None:
        for action, (sources, target) in cls.TRANSITIONS.items():
            if current in sources and target == requested:
                return action
        return None

    def accepts_claims_at(self, now) -> bool:
        """Inside the complaint period: from the award's creation to two working days after
        the decision."""
        end = self.complaint_period_end
        return self.complaint_period_start <= now and (end is None or now < end)

    def may_be_claimed_by(self, by: Actor, now) -> bool:
        """May `by` file a claim against this decision now? The claim model decides; the
        tender reaches it through the relation, never by importing it."""
        return self.complaints.model.may_file(self, by, now)

    def available_actions(self, by: Actor) -> list[str]:
        return [action for action in self.TRANSITIONS if offered(self._check, by, action)]

    def _begin(self, by: Actor, action: str | None):
        """Lock the tender, reload this award, check the change; returns `now`."""
        now = self._lock_tender()
        self._check(by, action)
        return now

    def _check(self, by: Actor, action: str | None) -> None:
        """Who acts, in which tender status, on which award status (`action` None: an edit of
        a pending award)."""
        tender = self.tender
        tender.require(by, Role.TENDER_OWNER)
        if tender.status not in TenderStatus.deciding():
            raise NotAllowed(f"Can't update award in current ({tender.status}) tender status")
        expected = self.TRANSITIONS[action][0] if action else {AwardStatus.PENDING}
        if self.status not in expected:
            raise NotAllowed(f"Can't update award in current ({self.status}) status")
        # A disqualification is reopened only to remedy a claim against it.
        if (
            action == "cancel"
            and self.status == AwardStatus.UNSUCCESSFUL
            and not self.complaints.filter(status__in=RECONSIDERING_CLAIMS).exists()
        ):
            raise NotAllowed(f"Can't update award in current ({self.status}) status")
        by.check_standing()

    def patch(self, *, by: Actor, data: dict) -> None:
        """PATCH /awards/{id}: the owner's edits of a pending award, and the transition the
        requested status selects."""
        fields = validate(AwardPatchSchema, data)
        with transaction.atomic():
            now = self._lock_tender()
            requested = fields.pop("status", self.status)
            action = self.action_for(self.status, requested)
            self._check(by, action)
            if requested != self.status and action is None:
                raise NotAllowed(f"Can't update award in current ({self.status}) status")
            edits = {k: v for k, v in fields.items() if k in EDITABLE_FIELDS}
            if edits and {**self.data, **edits} != self.data:
                self.data = {**self.data, **edits}
                self.save()
                self.tender._touch(now)
                self.tender._record(self, "edit", by, now, fields=sorted(edits))
            if action:
                getattr(self, action)(by=by)

    def _decide(self, status: AwardStatus, by: Actor, now, action: str) -> None:
        before = self.status
        self.status = status
        self.date = now
        self.save()
        self.tender._record(self, action, by, now, from_status=before, to_status=status)

    def activate(self, *, by: Actor) -> None:
        """The bid wins: a pending contract is drawn up and the complaint period runs."""
        with transaction.atomic():
            now = self._begin(by, "activate")
            tender = self.tender
            self.complaint_period_end = tender.shift(now, STAND_STILL, working_days=True)
            self._decide(AwardStatus.ACTIVE, by, now, "activate")
            number = tender.contracts.count() + 1
            tender.contracts.create(
                id=new_id(),
                number=number,
                award=self,
                contract_id=f"{tender.tender_id}-{number}",
                status=ContractStatus.PENDING,
                date=now,
                data={
                    "value": self.value,
                    "suppliers": self.suppliers,
                    "items": tender.data["items"],
                },
            )
            tender._set_status(TenderStatus.AWARDED, now)
            tender.award_period_end = now
            tender._touch(now)

    def disqualify(self, *, by: Actor) -> None:
        """The bid is out: the next lowest bid gets a pending award, if there is one."""
        with transaction.atomic():
            now = self._begin(by, "disqualify")
            self.complaint_period_end = self.tender.shift(now, STAND_STILL, working_days=True)
            self._decide(AwardStatus.UNSUCCESSFUL, by, now, "disqualify")
            self.tender._award_next_bid(at=now, by=by)
            self.tender._touch(now)

    def cancel(self, *, by: Actor) -> None:
        """Take a decision back. An active award's contract is cancelled; a disqualification
        reopened after a claim cancels it and every later award. Open claims against the
        cancelled awards are cancelled with them; qualification starts over from the best bid
        still in the running."""
        with transaction.atomic():
            now = self._begin(by, "cancel")
            tender = self.tender
            cancelled = [self]
            if self.status == AwardStatus.UNSUCCESSFUL:
                cancelled += [
                    award for award in tender.awards.filter(number__gt=self.number)
                    if award.status != AwardStatus.CANCELLED
                ]  # fmt: skip
            for award in cancelled:
                award.tender = tender
                award.complaint_period_end = now
                award._decide(AwardStatus.CANCELLED, by, now, "cancel")
                award.contracts.exclude(status=ContractStatus.CANCELLED).update(
                    status=ContractStatus.CANCELLED
                )
                for complaint in award.complaints.open():
                    complaint.tender = tender
                    complaint._void(by, now)
            tender._award_next_bid(at=now, by=by)
            tender._touch(now)
