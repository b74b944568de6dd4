from django.db import models
from django.utils.translation import gettext_lazy as _

from core.actors import Actor, Role
from core.errors import NotAllowed, in_own_status, in_tender_status
from core.schema import validate
from core.transactions import atomic_change
from core.transitions import NEW, transition
from tenders import notifications
from tenders.documents import PartDocuments
from tenders.part_schemas import AwardPatchSchema
from tenders.schema import party_key

from .base import PartOfTender, new_id
from .legal_periods import decision_due
from .statuses import AwardStatus, BidStatus, ContractStatus, TenderStatus

DECISION_LABELS = {
    AwardStatus.PENDING: _("being considered"),
    AwardStatus.ACTIVE: _("winner"),
    AwardStatus.UNSUCCESSFUL: _("disqualified"),
    AwardStatus.CANCELLED: _("decision cancelled"),
}

EDITABLE_FIELDS = (
    "title",
    "title_en",
    "title_ru",
    "description",
    "description_en",
    "description_ru",
)


class AwardQuerySet(models.QuerySet):
    def to_decide_by(self, organization):
        """The awards waiting for `organization`'s decision as the tenders' buyer."""
        return self.filter(
            tender__organization=organization,
            tender__status__in=TenderStatus.deciding(),
            status=AwardStatus.PENDING,
        ).select_related("tender")

    def won(self, tender_ids) -> dict[str, list[str]]:
        """The winners (an active award's supplier) of each of `tender_ids`, by name (one
        query; a lot tender may have several)."""
        winners = {}
        for award in self.filter(tender_id__in=tender_ids, status=AwardStatus.ACTIVE).only(
            "tender_id", "suppliers"
        ):
            winners.setdefault(award.tender_id, []).append(award.supplier_name)
        return winners

    def open_to_claims_of(self, organization, now):
        """The decisions on tenders `organization` bids in whose claim window is open `now`
        (but its own bid's win, and a competitor's disqualification on a line its bid won)."""
        from .bid import Bid

        bid_in = Bid.objects.filter(organization=organization, status=BidStatus.ACTIVE)
        won_here = self.model.objects.filter(
            tender=models.OuterRef("tender"),
            lot_id=models.OuterRef("lot_id"),
            status=AwardStatus.ACTIVE,
            bid__organization=organization,
        )
        return (
            self.filter(
                tender__in=bid_in.values("tender"),
                tender__status__in=TenderStatus.deciding(),
                status__in=[AwardStatus.ACTIVE, AwardStatus.UNSUCCESSFUL],
                complaint_period_end__gt=now,
            )
            .exclude(status=AwardStatus.ACTIVE, bid__organization=organization)
            .exclude(models.Q(status=AwardStatus.UNSUCCESSFUL) & models.Exists(won_here))
            .select_related("tender")
        )


class Award(PartOfTender, PartDocuments):
    """A decision on one bid. The tender owner activates it (the bid wins) or disqualifies it
    (the next lowest bid gets an award); either starts the complaint period."""

    TRANSITIONS = {
        # Drawn up for the best bid still in the running, when a line needs a decision.
        "create": transition({NEW}, AwardStatus.PENDING, Role.SYSTEM),
        # The owner's edits of a pending award (title, description).
        "edit": transition({AwardStatus.PENDING}, AwardStatus.PENDING, Role.TENDER_OWNER),
        "activate": transition({AwardStatus.PENDING}, AwardStatus.ACTIVE, Role.TENDER_OWNER),
        "disqualify": transition(
            {AwardStatus.PENDING}, AwardStatus.UNSUCCESSFUL, Role.TENDER_OWNER
        ),
        # An active award is taken back; a disqualification is reconsidered after a claim.
        "cancel": transition(
            {AwardStatus.ACTIVE, AwardStatus.UNSUCCESSFUL}, AwardStatus.CANCELLED, Role.TENDER_OWNER
        ),
        # A later award of the same line, when a disqualification before it is reconsidered.
        "fall_with_earlier": transition(
            {AwardStatus.PENDING, AwardStatus.ACTIVE, AwardStatus.UNSUCCESSFUL},
            AwardStatus.CANCELLED,
            Role.SYSTEM,
        ),
    }
    # The transitions that decide (the portal's buttons); "edit" changes words only.
    DECISIONS = ("activate", "disqualify", "cancel")
    # What time-driven changes (the chronograph's batches) never read.
    UNREAD_BY_TIME = ("value", "suppliers", "data")

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    bid = models.ForeignKey("tenders.Bid", on_delete=models.PROTECT, related_name="awards")
    # The lot it decides (empty on a tender without lots).
    lot_id = models.CharField(max_length=64, blank=True, default="", editable=False)
    status = models.CharField(max_length=16, choices=AwardStatus, editable=False)
    date = models.DateTimeField(editable=False)
    value = models.JSONField()
    suppliers = models.JSONField()
    # title, description and their translations, as the owner wrote them
    data = models.JSONField(default=dict, blank=True)
    complaint_period_start = models.DateTimeField(editable=False)
    complaint_period_end = models.DateTimeField(null=True, blank=True, editable=False)

    objects = AwardQuerySet.as_manager()

    def __str__(self) -> str:
        return f"award {self.pk} ({self.status})"

    def in_complaint_period(self, now) -> bool:
        """Inside the complaint period: from the award's creation to its procedure's stand-still
        after the decision."""
        end = self.complaint_period_end
        return self.complaint_period_start <= now and (end is None or now < end)

    def can_be_claimed_by(self, by: Actor, now) -> bool:
        """May `by` file a claim against this decision now? The claim model decides; the
        tender reaches it through the relation, never by importing it."""
        return self.complaints.model.objects.can_file(self, by, now)

    @property
    def won(self) -> bool:
        """Its bid is chosen as the winner (the award is active)."""
        return self.status == AwardStatus.ACTIVE

    @property
    def disqualified(self) -> bool:
        return self.status == AwardStatus.UNSUCCESSFUL

    @property
    def takes_claims_until(self):
        """When claims against this decision may no longer be filed (None: not decided yet,
        or taken back)."""
        return None if self.status == AwardStatus.CANCELLED else self.complaint_period_end

    @property
    def decision_due(self):
        """By when the law expects the procuring entity to decide on the bid, while it is being
        considered (None once decided): legal_periods.decision_due. Nothing happens by itself
        when it passes (the law allows more time with a reason; 2.3 keeps no such date)."""
        return decision_due(self.date) if self.status == AwardStatus.PENDING else None

    @property
    def decision_label(self) -> str:
        """What the decision is, in the reader's words."""
        return DECISION_LABELS[self.status]

    @property
    def supplier_name(self) -> str:
        """Whose bid it is, by name."""
        return (self.suppliers or [{}])[0].get("name", "")

    def claims_end_if_decided_at(self, moment):
        """When claims against a decision taken at `moment` may no longer be filed: the
        stand-still period, in working days."""
        return self.tender.shift(moment, self.tender.procedure.stand_still, working_days=True)

    def next_if_disqualified(self) -> tuple | None:
        """The bid considered next once this one is disqualified, with its offer; None when
        no bid is left for its line (which then fails)."""
        leaving_out = {self.bid_id} | {
            award.bid_id
            for award in self.tender.awards.all()
            if award.lot_id == self.lot_id and award.status == AwardStatus.UNSUCCESSFUL
        }
        return self.tender.best_bid_for(self.lot_id or None, leaving_out=leaving_out)

    def decisions(self, by: Actor, now=None) -> list[str]:
        return [action for action in self.available_actions(by, now) if action in self.DECISIONS]

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        return Role.TENDER_OWNER if by.acts_as(Role.TENDER_OWNER, self.tender) else None

    def check_context(self, action: str, by: Actor, now) -> None:
        tender = self.tender
        if tender.status not in TenderStatus.deciding():
            raise in_tender_status("update award", tender)
        tender.check_lot_active(self.lot_id, "update award")

    def status_refusal(self, action: str) -> NotAllowed:
        return in_own_status("update award", self)

    def check_rules(self, action: str, by: Actor, now) -> None:
        # A disqualification is reopened only to remedy a claim against it.
        if (
            action == "cancel"
            and self.status == AwardStatus.UNSUCCESSFUL
            # (read from the claims already loaded with the tender, when they are)
            and not any(claim.lets_reconsider for claim in self.complaints.all())
        ):
            refusal = self.status_refusal(action)
            refusal.code = "no_claim_to_remedy"
            raise refusal
        by.check_standing()

    # --- its documents (the decision's protocol) ----------------------------------------

    def check_documents_open(self, verb: str) -> None:
        """While the tender is in qualification (2.3): the papers of a decision are published
        with it, not rewritten once the award stands."""
        tender = self.tender
        if tender.status != TenderStatus.QUALIFICATION:
            raise in_tender_status(f"{verb} document", tender)
        tender.check_lot_active(self.lot_id, f"{verb} document")

    # --- the owner's changes --------------------------------------------------------------

    def patch(self, *, by: Actor, data: dict) -> None:
        """PATCH /awards/{id}: the owner's edits of a pending award, and the transition the
        requested status selects."""
        fields = validate(AwardPatchSchema, data)
        with atomic_change():
            now = self.lock_for_change()
            requested = fields.pop("status", self.status)
            action = (
                self.transition_to(requested, Role.TENDER_OWNER)
                if requested != self.status
                else None
            )
            self.guard(action or "edit", by, now)
            if requested != self.status and action is None:
                raise self.status_refusal("edit")
            edits = {k: v for k, v in fields.items() if k in EDITABLE_FIELDS}
            if self._write_words(edits, by, now):
                self.tender.stamp_change(now)
            if action:
                getattr(self, action)(by=by)

    def decide(self, *, by: Actor, action: str, description: str = "", documents=()) -> None:
        """A decision (activate, disqualify, cancel) as the portal makes it, in one change:
        its reason written on the award and its papers (the protocol: document_fields'
        keywords) attached first, while the award is still open to them."""
        with atomic_change():
            now = self.lock_for_change()
            self.guard(action, by, now)
            if documents:
                self.check_document_change(by, "add")
                self.attach_sent(by, now, documents)
            if description:
                self._write_words({"description": description}, by, now)
            getattr(self, action)(by=by)  # (which stamps the tender)

    def _write_words(self, edits: dict, by: Actor, now) -> bool:
        """The owner's words on the award (title, description...); True if they changed. Words,
        not a decision: the award's date stays."""
        if not edits or {**self.data, **edits} == self.data:
            return False
        self.data = {**self.data, **edits}
        self.save(update_fields=["data"])
        self.record_change("edit", by, now, self.status, sorted(edits))
        return True

    def activate(self, *, by: Actor) -> None:
        """The bid wins: a pending contract is drawn up and the complaint period runs."""
        with atomic_change():
            now = self.begin("activate", by)
            tender = self.tender
            self.apply(
                "activate",
                by,
                now,
                complaint_period_end=self.claims_end_if_decided_at(now),
            )
            number = tender.contracts.count() + 1
            contract = tender.contracts.model(
                id=new_id(),
                tender=tender,
                number=number,
                award=self,
                contract_id=f"{tender.tender_id}-{number}",
                supplier_code=party_key(self.suppliers[0])[1] if self.suppliers else "",
                date=now,
                data={
                    "value": self.value,
                    "suppliers": self.suppliers,
                    "items": [
                        item
                        for item in tender.data["items"]
                        if not self.lot_id or item.get("relatedLot") == self.lot_id
                    ],
                },
            )
            contract.perform("create", Actor.system(), now)
            if tender.has_lots:
                # (The tender is awarded once no lot's award is pending.)
                tender.award_next_bid(at=now, by=by)
            else:
                tender.perform("awarded", Actor.system(), now)
                tender.award_period_end = now
            tender.stamp_change(now)
            notifications.award_decided(self)

    def disqualify(self, *, by: Actor) -> None:
        """The bid is out: the next lowest bid gets a pending award, if there is one."""
        with atomic_change():
            now = self.begin("disqualify", by)
            self.apply(
                "disqualify",
                by,
                now,
                complaint_period_end=self.claims_end_if_decided_at(now),
            )
            self.tender.award_next_bid(at=now, by=by)
            self.tender.stamp_change(now)
            notifications.award_decided(self)

    def cancel(self, *, by: Actor) -> None:
        """Take a decision back. An active award's contract is cancelled; a disqualification
        reopened after a claim cancels it and every later award. Open claims against the
        cancelled awards are voided with them; qualification starts over from the best bid
        still in the running."""
        with atomic_change():
            now = self.begin("cancel", by)
            tender = self.tender
            cancelled = [self]
            if self.status == AwardStatus.UNSUCCESSFUL:
                cancelled += [
                    award
                    for award in tender.awards.filter(number__gt=self.number, lot_id=self.lot_id)
                    if award.status != AwardStatus.CANCELLED
                ]
            for award in cancelled:
                # The later awards fall with this one: part of this transition, under its lock.
                award.tender = tender
                if award is self:
                    self.apply("cancel", by, now, complaint_period_end=now)
                else:
                    award.perform(
                        "fall_with_earlier", Actor.system(), now, complaint_period_end=now
                    )
                for contract in award.contracts.exclude(status=ContractStatus.CANCELLED):
                    contract.tender, contract.award = tender, award
                    contract.void(now)
                for complaint in tender.claims():
                    if complaint.award_id == award.pk and complaint.is_open:
                        complaint.tender = tender
                        complaint.void(now)
            tender.award_next_bid(at=now, by=by)
            tender.stamp_change(now)
            considered = tender.awards.filter(
                lot_id=self.lot_id, status=AwardStatus.PENDING
            ).first()
            notifications.award_taken_back(self, considered)
