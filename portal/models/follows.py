"""Following a tender: a signed-in person is told by e-mail of a published tender's changes
(answers, documents, dates, decisions, claims, cancellation), at once or once a day
(portal/watch.py sends them, reading the tender's audit trail past a watermark)."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.db.models import Exists, Max, OuterRef
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from core import limits
from core.errors import DomainError
from tenders.models import AuditEvent

from .alerts import looked_at_when_due


class CannotFollow(DomainError):
    http_status = 409
    code = "cannot_follow"


class FollowQuerySet(models.QuerySet):
    def due(self, now):
        """The follows with something new on their tender's trail whose mail is due at
        `now`."""
        newer = AuditEvent.objects.filter(tender=OuterRef("tender"), pk__gt=OuterRef("told_until"))
        return self.filter(looked_at_when_due(now), Exists(newer))


class Follow(models.Model):
    class Frequency(models.TextChoices):
        AT_ONCE = "at_once", _("at once, as they happen")
        DAILY = "daily", _("once a day")

    # Tenders one person may follow: each is looked at on every pass of the alerts.
    MAX_PER_PERSON = 100

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="+")
    frequency = models.CharField(
        _("e-mail"), max_length=10, choices=Frequency.choices, default=Frequency.AT_ONCE
    )
    # The language of the pages the person followed it from: its mails are written in it.
    language = models.CharField(max_length=8, default="uk", editable=False)
    created = models.DateTimeField(editable=False)
    last_looked = models.DateTimeField(editable=False)
    last_sent = models.DateTimeField(null=True, blank=True, editable=False)
    # The watermark: the tender's audit events up to this id were told (or were not to be).
    told_until = models.BigIntegerField(default=0, editable=False)

    objects = FollowQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "tender"], name="one_follow_per_tender")
        ]
        ordering = ["-created", "pk"]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.tender_id}"

    @classmethod
    def refusal(cls, user, tender) -> CannotFollow | None:
        """Why `user` may not follow `tender` at all: a draft; an address not confirmed (the
        mail goes to it). (Beyond MAX_PER_PERSON is known only under the person's lock.)"""
        if tender.is_draft:
            return CannotFollow(_("Only a published tender can be followed."))
        if user.email_confirmed_at is None:
            return CannotFollow(_("Confirm your e-mail address first: the changes are sent to it."))
        return None

    @classmethod
    def start(cls, user, tender, *, frequency: str, language: str, now) -> "Follow":
        """`user` follows `tender` from `now` on (told of what changes after it); following
        it again changes nothing. Refused as `refusal` says, and beyond MAX_PER_PERSON."""
        refusal = cls.refusal(user, tender)
        if refusal is not None:
            raise refusal
        with transaction.atomic():
            # (the person's row, locked: two follows at once count one another)
            get_user_model().objects.select_for_update().filter(pk=user.pk).first()
            kept = cls.objects.filter(user=user, tender=tender).first()
            if kept is not None:
                return kept
            count_follow_change(user)
            if cls.objects.filter(user=user).count() >= cls.MAX_PER_PERSON:
                raise CannotFollow(
                    _("You follow %(count)s tenders already: stop following one first.")
                    % {"count": cls.MAX_PER_PERSON}
                )
            told = AuditEvent.objects.filter(tender=tender).aggregate(last=Max("pk"))["last"]
            return cls.objects.create(
                user=user,
                tender=tender,
                frequency=frequency,
                language=language,
                created=now,
                last_looked=now,
                told_until=told or 0,
            )

    def stop(self) -> None:
        """Its person no longer follows the tender: nothing more is told."""
        count_follow_change(self.user)
        self.delete()

    def change(self, *, frequency: str, language: str) -> None:
        self.frequency, self.language = frequency, language
        self.save(update_fields=["frequency", "language"])

    def pass_over(self, now) -> None:
        """Its tender's trail up to now is passed over untold (its mail could not be made; the
        tender's page has every change): one change that fails never silences the rest."""
        told = AuditEvent.objects.filter(tender_id=self.tender_id).aggregate(last=Max("pk"))
        self.looked(now, told_until=told["last"] or 0, sent=False)

    def looked(self, now, *, told_until: int, sent: bool) -> None:
        """Its tender's trail was read at `now` up to the event `told_until`; `sent`: a mail
        went out."""
        self.last_looked, self.told_until = now, max(self.told_until, told_until)
        if sent:
            self.last_sent = now
        self.save(update_fields=["last_looked", "told_until", "last_sent"])


def count_follow_change(user) -> None:
    """Following and unfollowing count against the person (FOLLOW_RATE): each is a write, and
    a follow costs a look on every pass of the alerts."""
    limits.hit(
        "follows",
        f"user:{user.pk}",
        limits.Rate.setting("FOLLOW_RATE"),
        gettext_noop("You have followed and unfollowed tenders too often. Try again later."),
    )


# --- what a follower is told ----------------------------------------------------------------

DOCUMENT_ACTIONS = {"add_document", "replace_document", "edit_document"}
# The parts of a tender whose documents are public (a bid's are sealed until the bids are
# opened, and a claim's draft is its filer's: neither is told).
PUBLIC_DOCUMENTS_OF = {"tender", "award", "cancellation", "contract"}
DECISIONS = {
    ("award", "activate"), ("award", "disqualify"), ("award", "cancel"),
    ("award", "fall_with_earlier"), ("contract", "sign"),
}  # fmt: skip
LOT_CHANGES = {"add_lot", "update_lot", "delete_lot", "lot_unsuccessful", "lot_complete"}
CLAIM_FILED = {"file", "submit"}
CLAIM_CLOSED = {"resolve", "expire", "ignore", "cancel", "void"}
DRAFT = "draft"


def told_as(event) -> str:
    """What a follower is told of an audit event of its tender: "answer", "document", "dates",
    "conditions", "lots", "status", "decision", "claim_filed", "claim_answered",
    "claim_closed", "cancellation"; or "" (nothing: a bid, a draft claim, a prepared answer,
    the auction's plumbing). A cancellation is told by its own events, not again by the
    tender's (or the lot's) status it changes."""
    subject, action = event.subject_type, event.action
    if action in DOCUMENT_ACTIONS:
        return "document" if subject in PUBLIC_DOCUMENTS_OF else ""
    if subject == "question":
        return "answer" if action == "answer" else ""
    if (subject, action) in DECISIONS:
        return "decision"
    if subject == "cancellation":
        return "cancellation" if action in ("create", "activate") else ""
    if subject == "complaint":
        return _told_of_claim(action, event.from_status)
    if subject != "tender":
        return ""
    if action == "edit":
        fields = event.payload.get("fields", [])
        return "dates" if any(name.endswith("Period") for name in fields) else "conditions"
    if action == "lot_cancelled":  # (told by the cancellation's own events, naming the lot)
        return ""
    if action in LOT_CHANGES:
        return "lots"
    changed = event.from_status and event.to_status and event.from_status != event.to_status
    return "status" if changed and action != "cancel" else ""


def _told_of_claim(action: str, before: str) -> str:
    if action in CLAIM_FILED:
        return "claim_filed"
    if action == "answer":
        return "claim_answered"
    # (a draft withdrawn was never public)
    if action in CLAIM_CLOSED and before != DRAFT:
        return "claim_closed"
    return ""
