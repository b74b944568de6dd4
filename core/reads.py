"""The reads asked on almost every request (a broker by its key, a tender's kept representation
by id, a tender locked for a change, a container's documents), written in SQL once from the
model's own description and run through `Model.objects.raw`.

Both are Django's public API: `raw` builds the instances as a queryset would (each field's own
converters), and only the SQL is not built again on every call. Building it (compiling a
queryset) costs a few hundred microseconds of Python, more than running such a read; `make bench`
measures what this is worth against the plain queryset."""

import weakref
from collections import namedtuple
from datetime import datetime

from django.apps import apps
from django.conf import settings
from django.db import connection, connections, models, router
from django.utils import timezone
from django.utils.dateparse import parse_datetime


def _quoted(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


class Read:
    """`Read("app.Model", where=[...])(*values)`: the rows of the model whose `where` fields
    equal `values` (and `equal`'s fields their values), as model instances.

    `fields`: the fields read (the others are deferred, as `only` defers them), or all but
    `defer`; `limit`: at most so many; `for_update`: their rows locked (on a database that locks
    rows; not the rows `also` reads). Ordered as the model's Meta says, unless `order_by` says
    otherwise. `also`: attributes read with them from the rows their relations name (name ->
    a path such as "auction__tender__status" through foreign keys that are never null, as
    `annotate(name=F(path))` would read it), as the database gives them (no field's
    converters: a moment is a string on SQLite)."""

    def __init__(self, model: str, *, where: list[str], equal: dict | None = None,
                 fields=None, defer=(), limit: int | None = None, for_update: bool = False,
                 order_by=None, also: dict | None = None):  # fmt: skip
        self.label, self.where, self.equal = model, list(where), dict(equal or {})
        self.fields, self.defer, self.limit = fields, set(defer), limit
        self.for_update, self.order_by = for_update, order_by
        self.also = dict(also or {})
        self._sql: str | None = None

    @property
    def model(self):
        return apps.get_model(self.label)

    def _column(self, name: str, model=None, table: str | None = None) -> str:
        meta = (model or self.model)._meta
        field = next((f for f in meta.concrete_fields if f.attname == name), None)
        column = _quoted((field or meta.get_field(name)).column)
        return f"{table or _quoted(meta.db_table)}.{column}"

    def _joined(self) -> tuple[list[str], list[str]]:
        """The columns `also` reads (each AS its name) and the joins they need."""
        table = _quoted(self.model._meta.db_table)
        joins: dict = {}
        columns = []
        for name, path in self.also.items():
            *relations, last = path.split("__")
            model, alias = self.model, table
            for relation in relations:
                field = model._meta.get_field(relation)
                if (alias, relation) not in joins:
                    joined = f"j{len(joins)}"
                    target = field.related_model._meta
                    joins[alias, relation] = (
                        joined,
                        f"INNER JOIN {_quoted(target.db_table)} {joined} ON "
                        f"{alias}.{_quoted(field.column)} = "
                        f"{joined}.{_quoted(field.target_field.column)}",
                    )
                alias, model = joins[alias, relation][0], field.related_model
            columns.append(f"{self._column(last, model, alias)} AS {_quoted(name)}")
        return columns, [join for _alias, join in joins.values()]

    @property
    def sql(self) -> str:
        if self._sql is None:
            meta = self.model._meta
            asked = [
                field
                for field in meta.concrete_fields
                if (self.fields is None or field.name in self.fields)
                and field.name not in self.defer
            ]
            read = [field for field in meta.concrete_fields if field.primary_key or field in asked]
            conditions = [f"{self._column(name)} = %s" for name in [*self.where, *self.equal]]
            table = _quoted(meta.db_table)
            also, joins = self._joined()
            columns = [f"{table}.{_quoted(field.column)}" for field in read] + also
            sql = (
                f"SELECT {', '.join(columns)} FROM {' '.join([table, *joins])} "
                f"WHERE {' AND '.join(conditions)}"
            )
            ordering = meta.ordering if self.order_by is None else self.order_by
            if ordering:
                sql += " ORDER BY " + ", ".join(
                    f"{self._column(name.lstrip('-'))}{' DESC' if name.startswith('-') else ''}"
                    for name in ordering
                )
            if self.limit is not None:
                sql += f" LIMIT {int(self.limit)}"
            if self.for_update and connection.features.has_select_for_update:
                sql += f" FOR UPDATE OF {table}" if joins else " FOR UPDATE"
            self._sql = sql
        return self._sql

    def __call__(self, *values) -> list:
        return list(self.model.objects.raw(self.sql, [*values, *self.equal.values()]))

    def first(self, *values):
        found = self(*values)
        return found[0] if found else None


class FeedRows:
    """A page of the feed as rows (named tuples of `id`, `date_modified` and `columns`) of the
    model's rows that `where` keeps (`where`: fields and the values they equal, or, for a
    field named `<field>__isnull` / `<field>__ne`, False / the value it differs from), in SQL
    written once per direction and run through a cursor (Django's public API). The same page as
    core/api/feed.py reads from a queryset: stamped at most `settled`, after `offset` in the
    page's direction, `limit` of them and the rest of the last one's stamp."""

    def __init__(self, model: str, *, columns, where: dict):
        self.label, self.columns, self.where = model, list(columns), dict(where)
        self._sql: dict = {}

    def _conditions(self) -> tuple[list[str], list]:
        meta = apps.get_model(self.label)._meta
        conditions, values = [], []
        for name, value in self.where.items():
            field, _, lookup = name.partition("__")
            column = _quoted(meta.get_field(field).column)
            if lookup == "isnull":
                conditions.append(f"{column} IS {'' if value else 'NOT '}NULL")
            elif lookup == "ne":
                conditions.append(f"{column} <> %s")
                values.append(value)
            else:
                conditions.append(f"{column} = %s")
                values.append(value)
        return conditions, values

    def _statement(self, kind: str, descending: bool) -> tuple[str, list, type]:
        key = (kind, descending)
        if key not in self._sql:
            meta = apps.get_model(self.label)._meta
            names = ["id", "date_modified", *self.columns]
            stamp, pk = _quoted(meta.get_field("date_modified").column), _quoted(meta.pk.column)
            conditions, values = self._conditions()
            later, way = ("<", " DESC") if descending else (">", "")
            conditions.append(f"{stamp} <= %s")
            if kind == "after":
                conditions.append(f"{stamp} {later} %s")
            elif kind == "ties":
                conditions += [f"{stamp} = %s", f"{pk} {later} %s"]
            sql = (
                f"SELECT {', '.join(_quoted(meta.get_field(n).column) for n in names)} "
                f"FROM {_quoted(meta.db_table)} WHERE {' AND '.join(conditions)} "
                f"ORDER BY {stamp}{way}, {pk}{way}"
            )
            if kind != "ties":
                sql += " LIMIT %s"
            moments = [isinstance(meta.get_field(name), models.DateTimeField) for name in names]
            self._sql[key] = (sql, values, namedtuple("Row", names), moments)
        return self._sql[key]

    def _rows(self, kind: str, descending: bool, *values) -> list:
        sql, fixed, row, moments = self._statement(kind, descending)
        # (the database Django's router picks for reading this model: a replica, core/replicas.py)
        model = apps.get_model(self.label)
        database = connections[router.db_for_read(model)]
        # A backend that keeps no time zone (SQLite: the connection's zone's wall time, as
        # text) takes a moment as the field writes it (an aware moment's own text would compare
        # as a string, not a moment) and gives one back naive, to be read as the field reads it.
        converting = not database.features.supports_timezones and any(moments)
        if converting:
            stamp = model._meta.get_field("date_modified")
            values = [
                stamp.get_db_prep_value(value, database) if isinstance(value, datetime) else value
                for value in values
            ]
        with database.cursor() as cursor:
            cursor.execute(sql, [*fixed, *values])
            found = cursor.fetchall()
        if not converting:
            return [row._make(columns) for columns in found]
        return [
            row._make(
                _moment(value, database) if moment else value
                for value, moment in zip(columns, moments, strict=True)
            )
            for columns in found
        ]

    def page(self, *, settled, offset, descending: bool, limit: int) -> list:
        if offset is None:
            rows = self._rows("first", descending, settled, limit + 1)
        else:
            rows = self._rows("after", descending, settled, offset, limit + 1)
        if len(rows) > limit:
            # A page never ends between two rows stamped alike: the rest of the stamp joins it.
            beyond = rows.pop()
            last = rows[-1]
            if beyond.date_modified == last.date_modified:
                rows += self._rows("ties", descending, settled, last.date_modified, last.id)
        return rows


def _moment(value, database):
    """A moment read from `database` as the DateTimeField reads it: aware, whatever the
    backend gives (SQLite: its connection's time zone's wall time, naive, or the text of it)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    if settings.USE_TZ and timezone.is_naive(value):
        value = timezone.make_aware(value, database.timezone)
    return value


class Prepared:
    """A statement written once and, on PostgreSQL, prepared once per connection (`PREPARE`,
    then `EXECUTE`): one whose planning costs more than its running (many subqueries) is
    planned once, not on every call. Its `sql` takes `%s` parameters, as any other; elsewhere it
    is run as it is."""

    def __init__(self, name: str, sql: str):
        self.name, self.sql = name, sql
        self._prepared_on: weakref.WeakSet = weakref.WeakSet()

    def execute(self, cursor, params: list) -> None:
        database = cursor.db
        if database.vendor != "postgresql":
            cursor.execute(self.sql, params)
            return
        raw = database.connection
        if raw not in self._prepared_on:
            numbered, count = self.sql, 0
            while "%s" in numbered:
                count += 1
                numbered = numbered.replace("%s", f"${count}", 1)
            cursor.execute(f"PREPARE {self.name} AS {numbered}")
            self._prepared_on.add(raw)
        marks = ", ".join(["%s"] * len(params))
        cursor.execute(f"EXECUTE {self.name}({marks})", params)
