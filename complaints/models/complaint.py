"""Claims (2.3 complaints of type "claim") against an award decision or against the tender's
conditions, and their one status machine; what differs by kind is data (kinds.py).

    draft --submit--> claim --answer--> answered --resolve--> resolved
    draft|claim|answered --cancel--> cancelled
    answered --(3 days, nobody closed it)--> invalid | resolved | declined  (its resolutionType)
    claim --(the tender ended unanswered)--> ignored

Every change goes through one method per transition. Each locks the tender's row, checks the
actor and the statuses against TRANSITIONS, stamps its dates from one `now`, records an audit
event and moves the tender's dateModified. `available_actions()` and the API's PATCH dispatch
read the same table.
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from complaints import notifications
from core.actors import Actor, Role
from core.errors import (
    InvalidData,
    NotAllowed,
    RoleNotAllowed,
    in_own_status,
    in_tender_status,
    worth_offering,
)
from core.transactions import atomic_change
from tenders.documents import HasDocuments
from tenders.models import Owned, new_id
from tenders.models.base import ChangedUnderItsTendersLock

from .kinds import AGAINST_AWARD, AGAINST_TENDER, ClaimKind
from .queries import ComplaintQuerySet
from .readers import SeenByReaders
from .table import (
    ANSWER_STANDSTILL,
    DOCUMENT_STATUSES,
    FILING,
    MIN_RESOLUTION_LENGTH,
    OPEN,
    OUTCOMES,
    PRIVATE_ACTIONS,
    RECONSIDERING,
    RESOLUTION_MEANING,
    TRANSITIONS,
    VOIDED,
    WITHIN_COMPLAINT_PERIOD,
    ComplaintStatus,
    Outcome,
    ResolutionType,
    S,
)


class Complaint(SeenByReaders, ChangedUnderItsTendersLock, HasDocuments, Owned):
    MIN_RESOLUTION_LENGTH = MIN_RESOLUTION_LENGTH
    TRANSITIONS = TRANSITIONS

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    tender = models.ForeignKey(
        "tenders.Tender", on_delete=models.CASCADE, related_name="complaints", editable=False
    )
    # The decision it contests; none for a claim against the tender's conditions.
    award = models.ForeignKey(
        "tenders.Award", on_delete=models.CASCADE, related_name="complaints", null=True,
        blank=True, editable=False,
    )  # fmt: skip
    # The bid whose owner filed a claim against an award (the filer's standing; not shown).
    bid = models.ForeignKey(
        "tenders.Bid",
        on_delete=models.PROTECT,
        related_name="complaints",
        null=True,
        blank=True,
        editable=False,
    )
    # The lot it concerns (2.3's relatedLot): its award's, or the one named when it was filed
    # against the tender; empty on a tender without lots, or for the whole tender.
    related_lot = models.CharField(max_length=64, blank=True, default="", editable=False)
    number = models.PositiveIntegerField(editable=False)
    complaint_id = models.CharField(_("complaint ID"), max_length=64, editable=False)
    status = models.CharField(_("status"), max_length=16, choices=ComplaintStatus, editable=False)
    title = models.TextField(_("title"))
    description = models.TextField(_("description"), blank=True)
    author = models.JSONField(_("author"))
    date = models.DateTimeField(editable=False)
    date_submitted = models.DateTimeField(null=True, blank=True, editable=False)
    resolution = models.TextField(_("resolution"), blank=True)
    resolution_type = models.CharField(
        _("resolution type"), max_length=16, choices=ResolutionType, blank=True
    )
    tenderer_action = models.TextField(_("action taken"), blank=True)
    tenderer_action_date = models.DateTimeField(null=True, blank=True, editable=False)
    date_answered = models.DateTimeField(null=True, blank=True, editable=False)
    satisfied = models.BooleanField(_("satisfied"), null=True, blank=True)
    cancellation_reason = models.TextField(_("cancellation reason"), blank=True)
    date_canceled = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ComplaintQuerySet.as_manager()
    # What time-driven changes (the chronograph's batches) never read.
    UNREAD_BY_TIME = ("title", "description", "author", "resolution", "tenderer_action",
                      "cancellation_reason")  # fmt: skip

    class Meta:
        ordering, verbose_name, verbose_name_plural = ["number"], _("claim"), _("claims")
        constraints = [
            models.UniqueConstraint(fields=["tender", "number"], name="complaint_number_unique"),
            models.CheckConstraint(
                condition=Q(status__in=(S.DRAFT, S.CANCELLED)) | Q(date_submitted__isnull=False),
                name="complaint_submitted_has_date",
            ),
            models.CheckConstraint(
                condition=~Q(status__in=(S.ANSWERED, S.RESOLVED, S.INVALID, S.DECLINED))
                | Q(date_answered__isnull=False, resolution_type__gt=""),
                name="complaint_answered_has_answer",
            ),
            models.CheckConstraint(
                condition=~Q(status=S.CANCELLED) | Q(date_canceled__isnull=False),
                name="complaint_cancelled_has_date",
            ),
            models.CheckConstraint(
                condition=Q(award__isnull=True) | Q(bid__isnull=False),
                name="complaint_against_award_has_bid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.complaint_id} ({self.status})"

    @property
    def outcome(self) -> Outcome:
        voided = self.status == S.CANCELLED and self.cancellation_reason == VOIDED
        answered = self.status in (S.RESOLVED, S.INVALID, S.DECLINED)
        return OUTCOMES["voided" if voided else self.status, self.satisfied if answered else None]

    def outcome_after(self, status: str) -> str:
        """How a change that left the claim in `status` is named: by the claim's outcome where
        that status is still its own (a closed claim's is its last), else by the status."""
        return self.outcome.label if self.status == status else ComplaintStatus(status).label

    @property
    def answer_meaning(self) -> str:
        return RESOLUTION_MEANING.get(self.resolution_type, "")

    @property
    def kind(self) -> ClaimKind:
        return AGAINST_AWARD if self.award_id else AGAINST_TENDER

    # --- who may do what ------------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        if by.acts_as(Role.COMPLAINT_OWNER, self):
            return Role.COMPLAINT_OWNER
        if by.acts_as(Role.TENDER_OWNER, self.tender):
            return Role.TENDER_OWNER
        return None

    def check_context(self, action: str, by: Actor, now) -> None:
        """A party changes a claim only in a tender still deciding its awards, and only while
        the claim is open."""
        if by.role is Role.SYSTEM or action in FILING:
            return
        if self.tender.status not in self.kind.changed_in:
            raise in_tender_status("update complaint", self.tender)
        if self.status not in OPEN:
            raise in_own_status("update complaint", self)
        if self.kind.follows_its_lot:
            self.tender.check_lot_active(self.related_lot, "update complaint")

    def status_refusal(self, action: str) -> NotAllowed:
        return NotAllowed("Can't update complaint", code="claim_closed")

    def check_rules(self, action: str, by: Actor, now) -> None:
        if by.role is Role.SYSTEM:
            return
        if action in WITHIN_COMPLAINT_PERIOD and not self._in_filing_time(now):
            raise NotAllowed(self.kind.late_draft, code="claims_time_over")
        by.check_standing(in_public=self._in_public(action))

    def _in_filing_time(self, now) -> bool:
        if self.award_id is None:  # against the tender
            return self.tender.status in self.kind.filed_in
        return self.award.in_complaint_period(now)

    def _in_public(self, action: str) -> bool:
        """Editing a draft, saving an answer before sending it and withdrawing a draft are
        seen by nobody else; every other change is public."""
        return action not in PRIVATE_ACTIONS and not (action == "cancel" and self.status == S.DRAFT)

    # What the tender's rules ask of its claims (tenders.models.tender_time), by instance: the
    # tender reads the claims it loaded under its lock, whose statuses its changes keep current.
    @property
    def is_open(self) -> bool:
        return self.status in OPEN

    @property
    def is_closed(self) -> bool:
        return self.status not in OPEN

    @property
    def is_draft(self) -> bool:
        return self.status == S.DRAFT

    @property
    def last_step(self) -> str | None:
        """What the claim's story ends with after the answer, for its timeline: "rated" (the
        claimant said what it thinks of the answer, the claim still open), "closed_by_claimant",
        "closed_by_time" (it took the answer's type), "withdrawn", "ignored"; None: nothing
        yet."""
        if self.status == S.RESOLVED and self.satisfied is not None:
            return "closed_by_claimant"
        if self.status == S.ANSWERED and self.satisfied is not None:
            return "rated"
        return {
            S.INVALID: "closed_by_time", S.DECLINED: "closed_by_time",
            S.RESOLVED: "closed_by_time", S.CANCELLED: "withdrawn", S.IGNORED: "ignored",
        }.get(self.status)  # fmt: skip

    @property
    def awaits_answer(self) -> bool:
        return self.status == S.CLAIM

    @property
    def is_answered(self) -> bool:
        return self.status == S.ANSWERED

    @property
    def is_granted_and_accepted(self) -> bool:
        """The buyer granted it (its decision to be taken back) and the claimant accepted that."""
        return (
            self.status == S.RESOLVED
            and self.resolution_type == ResolutionType.RESOLVED
            and self.satisfied is True
        )

    @property
    def holds_up_tender(self) -> bool:
        """Its line (its lot, or the tender) cannot fail before it is closed (kinds.py)."""
        return self.status in self.kind.holds_up

    def concerns_line(self, lot_id: str | None) -> bool:
        """Does it concern the line `lot_id` (None: a tender without lots)? A claim against
        the whole tender concerns every lot."""
        return self.related_lot in ("", lot_id or "")

    @property
    def lets_reconsider(self) -> bool:
        return self.status in RECONSIDERING

    def action_for(self, by: Actor, requested: str) -> str:
        """The transition a PATCH asking for status `requested` means for this actor (2.3)."""
        role = self.check_party(by)
        self.check_context("", by, timezone.now())
        action = self.transition_to(requested, role)
        if action is not None:
            return action
        # 2.3: the claimant may always ask to cancel; otherwise an actor may patch only in the
        # statuses where it has something to do. Anything else of theirs "can't" be done.
        may_patch = any(
            row.role is role
            and (
                (requested == S.CANCELLED and row.targets == {S.CANCELLED})
                or (S.CANCELLED not in row.targets and self.status in row.sources)
            )
            for row in TRANSITIONS.values()
        )
        if not may_patch:
            raise RoleNotAllowed()
        raise NotAllowed("Can't update complaint", code="claim_closed")

    # --- the frame of every change --------------------------------------------------------

    def record_change(self, action: str, by: Actor, now, before: str, fields: list[str]):
        tender = self.tender
        tender.record_event(
            self, action, by, now, from_status=before, to_status=self.status, fields=fields
        )
        # A change by time or by another decision is made inside the tender's own change,
        # which stamps the tender once.
        if by.role is not Role.SYSTEM:
            tender.stamp_change(now)
        if self.status != before:
            notifications.notify(self)

    def _changes(self, **proposed) -> dict:
        """The fields among `proposed` given (not None) and other than they are."""
        return {k: v for k, v in proposed.items() if v is not None and getattr(self, k) != v}

    # --- the claimant ---------------------------------------------------------------------

    def edit(self, *, by: Actor, title=None, description=None, author=None) -> None:
        with atomic_change():
            now = self.begin("edit", by)
            changes = self._changes(title=title, description=description, author=author)
            if changes:
                self.apply("edit", by, now, **changes)

    def submit(self, *, by: Actor, title=None, description=None, author=None) -> None:
        """Send the draft to the tender owner (with any last edits); its documents stay."""
        with atomic_change():
            now = self.begin("submit", by)
            changes = self._changes(title=title, description=description, author=author)
            self.apply("submit", by, now, date_submitted=now, **changes)

    def rate_answer(self, *, by: Actor, satisfied: bool | None = None) -> None:
        """Record whether the answer satisfies the claimant, leaving the claim answered."""
        with atomic_change():
            now = self.begin("rate_answer", by)
            if satisfied is not None and satisfied != self.satisfied:
                self.apply("rate_answer", by, now, satisfied=satisfied)

    def resolve(self, *, by: Actor, satisfied: bool | None = None) -> None:
        """Close the claim: satisfied with the answer, or not (both end as "resolved")."""
        with atomic_change():
            now = self.begin("resolve", by)
            satisfied = self.satisfied if satisfied is None else satisfied
            if satisfied is None:
                raise InvalidData.field("satisfied", "This field is required.")
            self.apply("resolve", by, now, satisfied=satisfied)

    def cancel(self, *, by: Actor, reason: str | None = None) -> None:
        with atomic_change():
            now = self.begin("cancel", by)
            if not reason:
                raise InvalidData.field("cancellationReason", "This field is required.")
            self.apply("cancel", by, now, cancellation_reason=reason, date_canceled=now)

    # --- the tender owner -----------------------------------------------------------------

    def prepare_answer(
        self, *, by: Actor, resolution=None, resolution_type=None, tenderer_action=None
    ) -> None:
        """Save the answer being written; the claim stays submitted."""
        with atomic_change():
            now = self.begin("prepare_answer", by)
            changes = self._changes(
                resolution=resolution,
                resolution_type=resolution_type,
                tenderer_action=tenderer_action,
            )
            if changes.get("tenderer_action") and not self.tenderer_action_date:
                changes["tenderer_action_date"] = now
            if changes:
                self.apply("prepare_answer", by, now, **changes)

    def answer(
        self, *, by: Actor, resolution=None, resolution_type=None, tenderer_action=None
    ) -> None:
        """Answer the claim. What was saved with prepare_answer counts."""
        with atomic_change():
            now = self.begin("answer", by)
            resolution = self.resolution if resolution is None else resolution
            resolution_type = resolution_type or self.resolution_type
            tenderer_action = self.tenderer_action if tenderer_action is None else tenderer_action
            if not resolution_type:
                raise InvalidData.field("resolutionType", "This field is required.")
            if len(resolution.strip()) < MIN_RESOLUTION_LENGTH:
                raise NotAllowed(
                    self.kind.short_answer,
                    code="resolution_too_short",
                    field="resolution",
                    params={"count": MIN_RESOLUTION_LENGTH},
                )
            fields = {"resolution": resolution, "resolution_type": resolution_type,
                      "tenderer_action": tenderer_action, "date_answered": now}  # fmt: skip
            if tenderer_action and not self.tenderer_action_date:
                fields["tenderer_action_date"] = now
            self.apply("answer", by, now, **fields)

    # --- documents ------------------------------------------------------------------------

    @property
    def document_tender(self):
        return self.tender

    def check_document_change(self, by: Actor, verb: str, document_id: str | None = None) -> str:
        role = self.check_party(by)
        tender = self.tender
        if tender.status not in self.kind.changed_in:
            raise in_tender_status(f"{verb} document", tender)
        if self.status not in DOCUMENT_STATUSES[role]:
            raise NotAllowed(
                f"Can't {verb} document in current ({self.status}) complaint status",
                code="own_status",
                params={"status": self.get_status_display()},
            )
        if self.kind.follows_its_lot:
            tender.check_lot_active(self.related_lot, f"{verb} document")
        if document_id:
            self.check_document_author(role, document_id)
        by.check_standing(in_public=not (role is Role.COMPLAINT_OWNER and self.status == S.DRAFT))
        return role

    def can_add_documents(self, by: Actor) -> bool:
        return worth_offering(self.check_document_change, by, "add")

    def _documents_changed(self, version, action: str, by: Actor, now) -> None:
        self.date = now
        self.save(update_fields=["date"])
        self.tender.record_event(
            self, action, by, now, document_id=version.document_id, version=version.version
        )
        self.tender.stamp_change(now)

    # --- caused by time or by another decision (called under the tender's lock) -------------

    @property
    def closes_at(self):
        """When an answered claim nobody closed takes its resolution type."""
        return self.tender.shift(self.date_answered, ANSWER_STANDSTILL)

    def status_its_answer_gives(self) -> ComplaintStatus:
        """Where an answered claim nobody closed goes: the answer's resolution type."""
        return ComplaintStatus(self.resolution_type)

    def expire(self, at) -> None:
        """Answered, and closed by nobody within its time: it takes its answer's type."""
        self.perform("expire", Actor.system(), at)

    def ignore(self, at) -> None:
        """Not answered before its tender (or lot) ended."""
        self.perform("ignore", Actor.system(), at)

    def void(self, at) -> None:
        """Still open when the decision it contests was taken back, or its draft's lot was
        deleted."""
        self.perform("void", Actor.system(), at, cancellation_reason=VOIDED, date_canceled=at)
