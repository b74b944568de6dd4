from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection, models

from core import tokens, transactions
from core.actors import Actor
from core.ids import new_id as new_id
from core.transitions import StatusMachine  # the id columns' default, by this path in migrations


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


# Audit events and tender rows gathered by `written_together`, or None (written at once).
_gathered: ContextVar["Gathered | None"] = ContextVar("gathered", default=None)


class Gathered:
    def __init__(self):
        self.events: list[AuditEvent] = []
        self.rows: dict = {}  # (model, pk) -> (the instance, the columns to write)

    def gather(self, instance, columns) -> None:
        key = (type(instance), instance.pk)
        gathered, gathered_columns = self.rows.setdefault(key, (instance, set()))
        if gathered is not instance:
            # Written from one copy only, the other's changes would be lost.
            raise RuntimeError(f"Two copies of {key} were changed in one write")
        gathered_columns.update(columns)

    def mark(self) -> tuple:
        return len(self.events), {key: (i, set(c)) for key, (i, c) in self.rows.items()}

    def back_to(self, mark: tuple) -> None:
        """Forget what was gathered since `mark` (a change that failed inside)."""
        events, rows = mark
        del self.events[events:]
        self.rows = rows

    def write(self) -> None:
        """Everything gathered, in one statement on PostgreSQL (the INSERT and the UPDATEs as
        data-modifying parts of one WITH: one round trip); elsewhere one statement each."""
        statements = [(*self._insert(self.events), False)] if self.events else []
        by_columns: dict = {}
        for instance, columns in self.rows.values():
            by_columns.setdefault((type(instance), frozenset(columns)), []).append(instance)
        for (model, columns), instances in by_columns.items():
            statements += self._updates(model, sorted(columns), instances)
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql" and len(statements) > 1:
                parts = ", ".join(f"w{n} AS ({sql})" for n, (sql, *_) in enumerate(statements))
                cursor.execute(
                    f"WITH {parts} SELECT 1",
                    [value for _, params, _many in statements for value in params],
                )
                return
            for sql, params, many in statements:
                if many:
                    cursor.executemany(sql, params)
                else:
                    cursor.execute(sql, params)

    @staticmethod
    def _insert(events: list) -> tuple[str, list]:
        """One INSERT of every event (its columns from the model's description, each value as
        its field prepares it for the database)."""
        quote = connection.ops.quote_name
        fields = [field for field in AuditEvent._meta.concrete_fields if not field.primary_key]
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        sql = (
            f"INSERT INTO {quote(AuditEvent._meta.db_table)} "
            f"({', '.join(quote(field.column) for field in fields)}) "
            f"VALUES {', '.join([row] * len(events))}"
        )
        params = [
            field.get_db_prep_save(field.pre_save(event, add=True), connection)
            for event in events
            for field in fields
        ]
        return sql, params

    @staticmethod
    def _updates(model, columns: list[str], instances: list) -> list[tuple[str, list, bool]]:
        """The rows' new values: on PostgreSQL one UPDATE joined to a VALUES list per thousand
        rows (500 UPDATEs by primary key, even pipelined, took three times as long; Django's
        bulk_update builds a CASE per row and column, which costs more than the rows);
        elsewhere one UPDATE by primary key, sent for every row (`many`)."""
        quote = connection.ops.quote_name
        fields = [model._meta.get_field(name) for name in columns]
        pk = model._meta.pk
        table = quote(model._meta.db_table)
        rows = [
            [pk.get_db_prep_save(instance.pk, connection)]
            + [
                field.get_db_prep_save(getattr(instance, field.attname), connection)
                for field in fields
            ]
            for instance in instances
        ]
        if connection.vendor != "postgresql":
            assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
            sql = f"UPDATE {table} SET {assignments} WHERE {quote(pk.column)} = %s"
            return [(sql, [row[1:] + row[:1] for row in rows], True)]
        names = [f"c{n}" for n in range(len(fields))]
        assignments = ", ".join(
            # (the type without its length: a cast to varchar(n) would cut a longer value)
            f"{quote(field.column)} = CAST(v.{name} AS {field.db_type(connection).split('(')[0]})"
            for field, name in zip(fields, names, strict=True)
        )
        row = "(" + ", ".join(["%s"] * (len(fields) + 1)) + ")"
        statements = []
        for start in range(0, len(rows), 1000):
            chunk = rows[start : start + 1000]
            sql = (
                f"UPDATE {table} SET {assignments} FROM (VALUES {', '.join([row] * len(chunk))}) "
                f"AS v(pk, {', '.join(names)}) WHERE {table}.{quote(pk.column)} = v.pk"
            )
            statements.append((sql, [value for values in chunk for value in values], False))
        return statements


@contextmanager
def written_together():
    """Inside, audit events and the rows saved with `save_later` are gathered, and written
    together at the end (one statement on PostgreSQL): the chronograph changes many tenders in
    one transaction, a claim's change its row, its tender's and the audit event. Nothing inside
    may read them back from the database. Inside another, the outer one writes them."""
    outer = _gathered.get()
    if outer is not None:
        mark = outer.mark()
        try:
            yield
        except BaseException:
            outer.back_to(mark)  # a caller that recovers writes none of it
            raise
        return
    gathered = Gathered()
    token = _gathered.set(gathered)
    try:
        yield
    finally:
        _gathered.reset(token)
    gathered.write()


def write_gathered() -> None:
    """Write what is gathered so far (before a row is read again from the database)."""
    gathered = _gathered.get()
    if gathered is not None and (gathered.events or gathered.rows):
        gathered.write()
        gathered.events, gathered.rows = [], {}


def save_later(instance, columns) -> bool:
    """Inside `written_together`, gather `columns` of `instance` to be written at its end (and
    say so); outside, False (the caller saves)."""
    gathered = _gathered.get()
    if gathered is None:
        return False
    gathered.gather(instance, columns)
    return True


def mark_locked(*instances) -> None:
    """These instances were loaded with their tender's row locked (FOR UPDATE) by the
    transaction, or savepoint, now running: a change made before it ends needs not lock or
    reload them again."""
    block = transactions.current()
    for instance in instances:
        instance._lock_block = block


def holds_lock(instance) -> bool:
    """Was `instance` loaded under a lock the running transaction (or savepoint) still holds?"""
    return transactions.is_open(getattr(instance, "_lock_block", None))


class ChangedUnderItsTendersLock(StatusMachine):
    """The status machines changed only with their tender's row locked (bids, awards,
    contracts, cancellations, claims): the frame's lock and record for them."""

    def lock_for_change(self):
        """Lock the tender (applying the changes that became due), reload this object; returns
        `now`."""
        tender = self.tender
        now = tender.lock_for_change()
        if holds_lock(self) and not tender.caught_up:
            return now
        write_gathered()  # what time just changed, this row among them
        self.refresh_from_db()
        # refresh_from_db() forgets the cached tender; keep the locked instance, so that every
        # change in this transaction is made to (and saved from) the same object.
        self.tender = tender
        tender.adopt(self)
        mark_locked(self)
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


class AuditEvent(models.Model):
    """One row per change: who did what to which object, from which status to which, when."""

    tender = models.ForeignKey("tenders.Tender", on_delete=models.CASCADE, related_name="events")
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
        indexes = [models.Index(fields=["subject_type", "subject_id"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.subject_type}"

    @classmethod
    def record(
        cls, *, tender, subject, action, by: Actor, at, from_status="", to_status="", **payload
    ):
        event = cls(
            tender=tender,
            subject_type=subject._meta.model_name,
            subject_id=subject.pk,
            action=action,
            from_status=from_status or "",
            to_status=to_status or "",
            actor_role=str(by.role),
            actor_name=by.name,
            at=at,
            payload=payload,
        )
        gathered = _gathered.get()
        if gathered is not None:
            gathered.events.append(event)
        else:
            event.save(force_insert=True)
        return event
