"""How a change's rows reach the database: the unit of work behind the frame.

The models save as any Django model does (`save()`, `save(update_fields=...)`). Inside the
transaction of a change (core/transactions.py opens one unit per outermost transaction), the
saves of the models that take part (`WrittenWithTheChange`: every status machine, and the audit
trail) are gathered instead of sent one by one: the columns a save names, and the new rows of
records written once (`APPEND_ONLY`: an audit event). They are written together, in one
statement on PostgreSQL, just before the next statement the transaction sends, whatever it is
(a read, a lock, another write: `connection.execute_wrapper`, Django's public hook), and at the
latest before it commits. So every read inside a change sees every write made before it, and a
change whose writes come last (a claim's answer: its row, its tender's stamp, its audit event)
sends them in one round trip.

A tracked instance (`track_changes`, which the frame calls once it has locked and loaded a row)
saves only the columns changed since it was loaded.
"""

import json
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection


class _Unit:
    """The writes gathered in one transaction, not sent yet."""

    def __init__(self):
        self.inserts: list = []
        self.rows: dict = {}  # (model, pk) -> (the instance, the columns to write)
        self.writing = False
        self.writes = 0  # how many times it has written what it gathered

    @property
    def holds_writes(self) -> bool:
        return bool(self.inserts or self.rows)

    def update(self, instance, columns) -> None:
        key = (type(instance), instance.pk)
        gathered, gathered_columns = self.rows.setdefault(key, (instance, set()))
        if gathered is not instance:
            # Written from one copy only, the other's changes would be lost.
            raise RuntimeError(f"Two copies of {key} were changed in one change")
        gathered_columns.update(columns)

    def mark(self) -> tuple:
        rows = {key: (i, set(c)) for key, (i, c) in self.rows.items()}
        return self.writes, len(self.inserts), rows

    def back_to(self, mark: tuple) -> None:
        """Forget what was gathered since `mark` (a change that failed inside). If it was
        written meanwhile (a failed change without a savepoint of its own), the transaction is
        failed whole and rolled back: nothing gathered is worth writing."""
        writes, inserts, rows = mark
        if writes != self.writes:
            self.inserts, self.rows = [], {}
            return
        del self.inserts[inserts:]
        self.rows = rows

    def before_statement(self, execute, sql, params, many, context):
        if self.holds_writes and not self.writing:
            self.write()
        return execute(sql, params, many, context)

    def write(self) -> None:
        """Everything gathered, in one statement on PostgreSQL (the INSERTs and the UPDATEs as
        data-modifying parts of one WITH: one round trip); elsewhere one statement each."""
        # (set first: a value read while the statements are made, a deferred field's, is read
        # without writing again)
        self.writing = True
        self.writes += 1
        try:
            statements = self._statements()
            self.inserts, self.rows = [], {}
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
        finally:
            self.writing = False

    def _statements(self) -> list[tuple[str, list, bool]]:
        statements = []
        by_model: dict = {}
        for instance in self.inserts:
            by_model.setdefault(type(instance), []).append(instance)
        for model, instances in by_model.items():
            statements.append((*_insert(model, instances), False))
        by_columns: dict = {}
        for instance, columns in self.rows.values():
            by_columns.setdefault((type(instance), frozenset(columns)), []).append(instance)
        for (model, columns), instances in by_columns.items():
            statements += _updates(model, sorted(columns), instances)
        return statements


def _insert(model, instances: list) -> tuple[str, list]:
    """One INSERT of every instance (its columns from the model's description, each value as
    its field prepares it for the database)."""
    quote = connection.ops.quote_name
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} "
        f"({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES {', '.join([row] * len(instances))}"
    )
    params = [
        field.get_db_prep_save(field.pre_save(instance, add=True), connection)
        for instance in instances
        for field in fields
    ]
    return sql, params


def _updates(model, columns: list[str], instances: list) -> list[tuple[str, list, bool]]:
    """The rows' new values: on PostgreSQL one UPDATE joined to a VALUES list per thousand rows
    (500 UPDATEs by primary key, even pipelined, took three times as long; Django's bulk_update
    builds a CASE per row and column, which costs more than the rows); elsewhere one UPDATE by
    primary key, sent for every row (`many`)."""
    quote = connection.ops.quote_name
    fields = [model._meta.get_field(name) for name in columns]
    pk = model._meta.pk
    table = quote(model._meta.db_table)
    rows = [
        [pk.get_db_prep_save(instance.pk, connection)]
        + [
            field.get_db_prep_save(field.pre_save(instance, add=False), connection)
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


_unit: ContextVar[_Unit | None] = ContextVar("unit_of_work", default=None)


@contextmanager
def unit_of_work():
    """The writes of the transaction now opening, gathered (see the module's description); a
    unit inside another is part of it, and forgets its own writes if it fails."""
    outer = _unit.get()
    if outer is not None:
        mark = outer.mark()
        try:
            yield
        except BaseException:
            outer.back_to(mark)  # a caller that recovers writes none of it
            raise
        return
    unit = _Unit()
    token = _unit.set(unit)
    try:
        with connection.execute_wrapper(unit.before_statement):
            yield
            if unit.holds_writes:
                unit.write()
    finally:
        _unit.reset(token)


class WrittenWithTheChange:
    """Mixin for the models whose saves a change's unit of work gathers (it must come before
    `models.Model` among the bases). New rows are written at once, unless the model's rows are
    never changed once written (`APPEND_ONLY`, a record such as the audit trail's) and their key
    is the database's: then they are gathered too."""

    APPEND_ONLY = False

    def save(self, *args, **kwargs):
        update_fields = kwargs.get("update_fields")
        loaded = getattr(self, "_loaded_columns", None)
        if loaded is not None and update_fields is None and not self._state.adding and not args:
            current = self._column_values()
            update_fields = [name for name, value in current.items() if loaded.get(name) != value]
            self._loaded_columns = current
            if not update_fields:
                return
            kwargs["update_fields"] = update_fields
        elif loaded is not None and update_fields is not None:
            current = self._column_values()
            written = (self._meta.get_field(name).attname for name in update_fields)
            loaded.update({name: current[name] for name in written if name in current})
        unit = _unit.get()
        if unit is not None and not args:
            if update_fields is not None and not self._state.adding:
                if not update_fields:
                    return  # (as Django does: nothing to write)
                unit.update(self, [self._meta.get_field(name).attname for name in update_fields])
                return
            if self._state.adding and self._written_later():
                unit.inserts.append(self)
                self._state.adding = False
                self._gathered_insert = True
                return
        if getattr(self, "_gathered_insert", False):
            raise RuntimeError(f"{self._meta.label} rows are written once (APPEND_ONLY)")
        super().save(*args, **kwargs)

    def _written_later(self) -> bool:
        """A new row of a record never changed, whose key the database gives and no other row
        can name."""
        meta = self._meta
        return (
            self.APPEND_ONLY
            and self.pk is None
            and meta.pk.db_returning
            and not meta.related_objects
        )

    def track_changes(self) -> None:
        """From now on `save()` writes only the columns changed since this moment."""
        self._loaded_columns = self._column_values()

    def refresh_from_db(self, using=None, fields=None, from_queryset=None):
        super().refresh_from_db(using, fields, from_queryset)
        loaded = getattr(self, "_loaded_columns", None)
        if loaded is not None:
            # Read again: as loaded, not changed.
            current = self._column_values()
            if fields is not None:
                attnames = (self._meta.get_field(name).attname for name in fields)
                current = {name: current[name] for name in attnames if name in current}
            loaded.update(current)

    def _column_values(self) -> dict:
        """The loaded columns' values to compare; JSON as its text, so that a change made to it
        in place is still seen as a change (a text is made in a tenth of a deep copy's time)."""
        deferred = self.get_deferred_fields()
        return {
            field.attname: json.dumps(value, default=str)
            if isinstance(value, (dict, list))
            else value
            for field in self._meta.concrete_fields
            if field.attname not in deferred
            for value in (getattr(self, field.attname),)
        }
