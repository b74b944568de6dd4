"""The rows of an object and of what hangs on it, taken as they stand in one statement, and put
back inside a savepoint to be read as they were (then the savepoint is rolled back).

What for: open data tells of each state a tender was in (tenders/models/untold.py). A change to a
tender whose last state was not told yet takes that state's rows first (one statement, however
many rows), and the background renders them later by putting them back where they were, inside
a savepoint, reading the tender as usual, and rolling the savepoint back. Nobody else sees rows
put back: they are never committed, and the rows they replace are locked meanwhile.

On PostgreSQL the rows are taken as JSON by the database in the statement that stores them, and
put back by `jsonb_populate_recordset` (each column's own type); elsewhere (SQLite, embedded:
one process, statements cost little) they are read through a cursor, one table at a time, and
put back as read."""

import json
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal

from django.apps import apps
from django.db import connection


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]
    # The rows that hang on the root whose id is `{root}` (an SQL expression).
    where: str


class Rows:
    """The rows of a `root` model's instance and of the models that hang on it along `paths`
    (reverse relations, "bids__documents"), columns `blank` taken as empty strings (what no
    reading of them needs: the text a read kept, say)."""

    def __init__(self, root: str, paths, *, blank=()):
        self.root, self.paths, self.blank = root, tuple(paths), frozenset(blank)
        self._tables: list[Table] | None = None

    @property
    def tables(self) -> list[Table]:
        if self._tables is None:
            model = apps.get_model(self.root)
            conditions: dict[str, list[str]] = {}
            models = {model._meta.db_table: model}
            for path in self.paths:
                parent, where = model, None
                for name in path.split("__"):
                    relation = parent._meta.get_field(name)
                    column = _quoted(relation.field.column)
                    if where is None:
                        where = f"{column} = {{root}}"
                    else:
                        where = (
                            f"{column} IN (SELECT {_quoted(parent._meta.pk.column)} FROM "
                            f"{_quoted(parent._meta.db_table)} WHERE {where})"
                        )
                    parent = relation.related_model
                table = parent._meta.db_table
                models[table] = parent
                conditions.setdefault(table, []).append(where)
            conditions[model._meta.db_table] = [f"{_quoted(model._meta.pk.column)} = {{root}}"]
            self._tables = [
                Table(
                    name,
                    tuple(field.column for field in models[name]._meta.concrete_fields),
                    " OR ".join(f"({where})" for where in dict.fromkeys(wheres)),
                )
                for name, wheres in conditions.items()
            ]
        return self._tables

    # --- taking them ----------------------------------------------------------------------

    def json_sql(self, root: str) -> str:
        """(PostgreSQL) An SQL expression of the rows hanging on the root `root` (an SQL
        expression), as one JSON object: table name -> its rows."""
        parts = []
        for table in self.tables:
            blank = "".join(
                f" || jsonb_build_object('{column}', '')"
                for column in table.columns
                if column in self.blank
            )
            parts.append(
                f"'{table.name}', (SELECT coalesce(jsonb_agg(to_jsonb(x){blank}), '[]') FROM "
                f"{_quoted(table.name)} x WHERE {table.where.format(root=root)})"
            )
        return f"jsonb_build_object({', '.join(parts)})::text"

    def read(self, root_id) -> str:
        """(not PostgreSQL) The rows hanging on `root_id`, read table by table, as JSON text."""
        taken = {}
        with connection.cursor() as cursor:
            for table in self.tables:
                columns = ", ".join(_quoted(column) for column in table.columns)
                cursor.execute(
                    f"SELECT {columns} FROM {_quoted(table.name)} "
                    f"WHERE {table.where.format(root='%s')}",
                    [root_id] * table.where.count("{root}"),
                )
                taken[table.name] = [
                    {
                        column: "" if column in self.blank else value
                        for column, value in zip(table.columns, row, strict=True)
                    }
                    for row in cursor.fetchall()
                ]
        return json.dumps(taken, default=_tagged)

    # --- putting them back ----------------------------------------------------------------

    def put_back(self, root_id, text: str) -> None:
        """The rows hanging on `root_id` replaced by those taken (`text`), in the transaction
        now open (a savepoint the caller rolls back; the foreign keys are checked at commit,
        which never comes)."""
        postgres = connection.vendor == "postgresql"
        taken = json.loads(text) if postgres else json.loads(text, object_hook=_untagged)
        with connection.cursor() as cursor:
            for table in self.tables:
                name = _quoted(table.name)
                cursor.execute(
                    f"DELETE FROM {name} WHERE {table.where.format(root='%s')}",
                    [root_id] * table.where.count("{root}"),
                )
            for table in self.tables:
                rows = taken.get(table.name) or []
                if not rows:
                    continue
                columns = ", ".join(_quoted(column) for column in table.columns)
                if postgres:
                    cursor.execute(
                        f"INSERT INTO {_quoted(table.name)} ({columns}) SELECT {columns} FROM "
                        f"jsonb_populate_recordset(NULL::{_quoted(table.name)}, %s::jsonb)",
                        [json.dumps(rows)],
                    )
                else:
                    marks = ", ".join(["%s"] * len(table.columns))
                    cursor.executemany(
                        f"INSERT INTO {_quoted(table.name)} ({columns}) VALUES ({marks})",
                        [[row[column] for column in table.columns] for row in rows],
                    )


# (not PostgreSQL) What a cursor gives besides JSON's own types, tagged to be given back as read.
_TYPES = {"datetime": datetime, "date": date, "time": time, "decimal": Decimal}


def _tagged(value) -> dict:
    for tag, kind in _TYPES.items():
        if isinstance(value, kind):
            return {"$": tag, "v": str(value) if kind is Decimal else value.isoformat()}
    raise TypeError(f"a column's value of type {type(value).__name__} is not kept")


def _untagged(found: dict):
    kind = _TYPES.get(found.get("$")) if set(found) == {"$", "v"} else None
    if kind is None:
        return found
    return Decimal(found["v"]) if kind is Decimal else kind.fromisoformat(found["v"])
