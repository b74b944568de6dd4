from django.db import connection, models
from django.utils.translation import gettext_lazy as _

from core import tokens
from core.actors import Actor
from core.ids import new_id as new_id
from core.transitions import StatusMachine  # the id columns' default, by this path in migrations
from core.writes import WrittenWithTheChange


class Owned(models.Model):
    """Something created through the API or the portal and changed only by whoever created it.

    A broker proves ownership with its key *and* the access token issued at creation; a token
    presented with another broker's key matches nothing.
    """

    broker = models.ForeignKey(
        "core.Broker", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Created in the portal: the signed-in user's organization owns it (any of its users acts).
    organization = models.ForeignKey(
        "portal.Organization", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    token_digest = models.CharField(max_length=64, editable=False)

    class Meta:
        abstract = True

    def issue_token(self) -> str:
        token = tokens.new_token()
        self.token_digest = tokens.digest(token)
        return token

    def is_owned_by(self, *, broker=None, token: str | None = None) -> bool:
        return (
            broker is not None
            and self.broker_id == broker.pk
            and tokens.matches(token, self.token_digest)
        )

    def is_owned_by_organization(self, organization) -> bool:
        return organization is not None and self.organization_id == organization.pk


class ChangedUnderItsTendersLock(StatusMachine):
    """The status machines changed only with their tender's row locked (bids, awards,
    contracts, cancellations, claims): the frame's lock and record for them."""

    def lock_for_change(self):
        """Lock the tender (applying the changes that became due), reload this object; returns
        `now`."""
        tender = self.tender
        now = tender.lock_for_change()
        if self.holds_lock and not tender.caught_up:
            return now
        self.refresh_from_db()
        # refresh_from_db() forgets the cached tender; keep the locked instance, so that every
        # change in this transaction is made to (and saved from) the same object.
        self.tender = tender
        tender.adopt(self)
        self.mark_locked()
        return now

    def record_change(self, action: str, by, now, before: str, fields: list[str]):
        """The audit event, on the tender's trail. The method that made the change stamps the
        tender, once, after everything the change causes."""
        self.tender.record_event(
            self, action, by, now, from_status=before, to_status=self.status, fields=fields
        )


class PartOfTender(ChangedUnderItsTendersLock, models.Model):
    """Bids, awards, contracts, cancellations: numbered in the order they were made, and
    changed only with their tender's row locked."""

    tender = models.ForeignKey(
        "tenders.Tender", on_delete=models.CASCADE, related_name="%(class)ss", editable=False
    )
    number = models.PositiveIntegerField(editable=False)

    class Meta:
        abstract = True
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tender", "number"], name="%(app_label)s_%(class)s_number_unique"
            )
        ]


class Counter(models.Model):
    """Named sequences (tenderIDs per day, complaint numbers per tender), safe under concurrency."""

    key = models.CharField(primary_key=True, max_length=100)
    value = models.BigIntegerField()

    def __str__(self) -> str:
        return f"{self.key} = {self.value}"

    @classmethod
    def next(cls, key: str) -> int:
        table = connection.ops.quote_name(cls._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (key, value) VALUES (%s, 1) "
                f"ON CONFLICT (key) DO UPDATE SET value = {table}.value + 1 RETURNING value",
                [key],
            )
            return cursor.fetchone()[0]


class AuditEvent(WrittenWithTheChange, models.Model):
    """One row per change: who did what to which object, from which status to which, when."""

    APPEND_ONLY = True  # (a record: never changed once written)

    # (found by the trail's index below, the tender first: no index of its own, which every
    # event would write too)
    tender = models.ForeignKey(
        "tenders.Tender", on_delete=models.CASCADE, related_name="events", db_index=False
    )
    subject_type = models.CharField(max_length=32)
    subject_id = models.CharField(max_length=32)
    action = models.CharField(max_length=64)
    from_status = models.CharField(max_length=32, blank=True)
    to_status = models.CharField(max_length=32, blank=True)
    actor_role = models.CharField(max_length=32)
    actor_name = models.CharField(max_length=150)
    at = models.DateTimeField()
    payload = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "id"]
        indexes = [
            models.Index(fields=["subject_type", "subject_id"]),
            # A tender's trail past a watermark (the followers' mail, portal/watch.py).
            models.Index(fields=["tender", "id"], name="tenders_event_trail"),
        ]
        verbose_name, verbose_name_plural = _("audit event"), _("audit events")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.subject_type}"

    @classmethod
    def record(
        cls, *, tender, subject, action, by: Actor, at, from_status="", to_status="", **payload
    ):
        event = cls(
            tender=tender,
            # (a proxy, the signed contract, is its row: "contract")
            subject_type=subject._meta.concrete_model._meta.model_name,
            subject_id=subject.pk,
            action=action,
            from_status=from_status or "",
            to_status=to_status or "",
            actor_role=str(by.role),
            actor_name=by.name,
            at=at,
            payload=payload,
        )
        event.save()
        return event
