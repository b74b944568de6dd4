"""The rows of an object and of what hangs on it, taken as they stand in one statement, and put
back inside a savepoint to be read as they were (then the savepoint is rolled back).

What for: open data tells of each state a tender was in (tenders/models/untold.py). A change to a
tender whose last state was not told yet takes that state's rows first (one statement, however
many rows), and the background renders them later by putting them back where they were, inside
a savepoint, reading the tender as usual, and rolling the savepoint back. Nobody else sees rows
put back: they are never committed, and the rows they replace are locked meanwhile.

The database takes the rows as JSON in the statement that stores them (PostgreSQL's `to_jsonb`,
SQLite's `json_object`) and puts them back from it (PostgreSQL's `jsonb_populate_recordset`: each
column's own type; SQLite's `json_each`: each value as it was stored)."""

import json
from dataclasses import dataclass

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
    # How far from the root (the root 0, its rows 1, theirs 2): `where` reads the tables
    # between, so the deepest rows are deleted first.
    depth: int = 0


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
            depths = {model._meta.db_table: 0}
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
                depths[table] = max(depths.get(table, 0), path.count("__") + 1)
                conditions.setdefault(table, []).append(where)
            conditions[model._meta.db_table] = [f"{_quoted(model._meta.pk.column)} = {{root}}"]
            self._tables = [
                Table(
                    name,
                    tuple(field.column for field in models[name]._meta.concrete_fields),
                    " OR ".join(f"({where})" for where in dict.fromkeys(wheres)),
                    depths[name],
                )
                for name, wheres in conditions.items()
            ]
        return self._tables

    # --- taking them ----------------------------------------------------------------------

    def json_sql(self, root: str, vendor: str) -> str:
        """An SQL expression of the rows hanging on the root `root` (an SQL expression), as one
        JSON object's text: table name -> its rows."""
        parts = []
        for table in self.tables:
            where = table.where.format(root=root)
            if vendor == "postgresql":
                blank = "".join(
                    f" || jsonb_build_object('{column}', '')"
                    for column in table.columns
                    if column in self.blank
                )
                rows = (
                    f"(SELECT coalesce(jsonb_agg(to_jsonb(x){blank}), '[]') FROM "
                    f"{_quoted(table.name)} x WHERE {where})"
                )
            else:
                fields = ", ".join(
                    f"'{column}', " + ("''" if column in self.blank else f"x.{_quoted(column)}")
                    for column in table.columns
                )
                rows = (
                    f"json((SELECT json_group_array(json_object({fields})) FROM "
                    f"{_quoted(table.name)} x WHERE {where}))"
                )
            parts.append(f"'{table.name}', {rows}")
        if vendor == "postgresql":
            return f"jsonb_build_object({', '.join(parts)})::text"
        return f"json_object({', '.join(parts)})"

    # --- putting them back ----------------------------------------------------------------

    def put_back(self, root_id, text: str) -> None:
        """The rows hanging on `root_id` replaced by those taken (`text`), in the transaction
        now open (a savepoint the caller rolls back; the foreign keys are checked at commit,
        which never comes)."""
        taken = json.loads(text)
        postgres = connection.vendor == "postgresql"
        with connection.cursor() as cursor:
            # (the deepest first: a contract's changes are found through its contract's row)
            for table in sorted(self.tables, key=lambda table: -table.depth):
                cursor.execute(
                    f"DELETE FROM {_quoted(table.name)} WHERE {table.where.format(root='%s')}",
                    [root_id] * table.where.count("{root}"),
                )
            for table in self.tables:
                rows = taken.get(table.name) or []
                if not rows:
                    continue
                columns = ", ".join(_quoted(column) for column in table.columns)
                if postgres:
                    source = (
                        f"SELECT {columns} FROM "
                        f"jsonb_populate_recordset(NULL::{_quoted(table.name)}, %s::jsonb)"
                    )
                else:
                    values = ", ".join(
                        f"json_extract(value, '$.\"{column}\"')" for column in table.columns
                    )
                    source = f"SELECT {values} FROM json_each(%s)"
                cursor.execute(
                    f"INSERT INTO {_quoted(table.name)} ({columns}) {source}", [json.dumps(rows)]
                )
