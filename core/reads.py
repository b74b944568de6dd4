"""The reads asked on almost every request (a broker by its key, a tender's kept representation
by id, a tender locked for a change, a container's documents), written in SQL once from the
model's own description and run through `Model.objects.raw`.

Both are Django's public API: `raw` builds the instances as a queryset would (each field's own
converters), and only the SQL is not built again on every call. Building it (compiling a
queryset) costs a few hundred microseconds of Python, more than running such a read; `make bench`
measures what this is worth against the plain queryset."""

from django.apps import apps
from django.db import connection


def _quoted(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


class Read:
    """`Read("app.Model", where=[...])(*values)`: the rows of the model whose `where` fields
    equal `values` (and `equal`'s fields their values), as model instances.

    `fields`: the fields read (the others are deferred, as `only` defers them), or all but
    `defer`; `limit`: at most so many; `for_update`: their rows locked (on a database that locks
    rows). Ordered as the model's Meta says, unless `order_by` says otherwise."""

    def __init__(self, model: str, *, where: list[str], equal: dict | None = None,
                 fields=None, defer=(), limit: int | None = None, for_update: bool = False,
                 order_by=None):  # fmt: skip
        self.label, self.where, self.equal = model, list(where), dict(equal or {})
        self.fields, self.defer, self.limit = fields, set(defer), limit
        self.for_update, self.order_by = for_update, order_by
        self._sql: str | None = None

    @property
    def model(self):
        return apps.get_model(self.label)

    def _column(self, name: str) -> str:
        meta = self.model._meta
        field = next((f for f in meta.concrete_fields if f.attname == name), None)
        return _quoted((field or meta.get_field(name)).column)

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
            sql = (
                f"SELECT {', '.join(_quoted(field.column) for field in read)} "
                f"FROM {_quoted(meta.db_table)} WHERE {' AND '.join(conditions)}"
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
                sql += " FOR UPDATE"
            self._sql = sql
        return self._sql

    def __call__(self, *values) -> list:
        return list(self.model.objects.raw(self.sql, [*values, *self.equal.values()]))

    def first(self, *values):
        found = self(*values)
        return found[0] if found else None
