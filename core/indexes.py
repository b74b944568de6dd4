"""Indexes PostgreSQL need not keep.

Django gives every character primary key and foreign key on PostgreSQL a second index with
varchar_pattern_ops (named `…_like`), for LIKE 'prefix%' on the column. Nothing here matches
ids by pattern, and every insert and every update that moves a row writes each of them: the
chronograph's batches ran a fifth faster without them (bench/chronograph.py at 100k)."""

PATTERN_INDEXES = """
    SELECT i.relname FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_opclass o ON o.oid = x.indclass[0]
    WHERE t.relname LIKE %s AND t.relkind = 'r' AND o.opcname = 'varchar_pattern_ops'
      AND pg_table_is_visible(t.oid)
"""


def pattern_indexes(connection, app_label: str) -> list[str]:
    """The pattern-ops indexes on the tables of `app_label` (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute(PATTERN_INDEXES, [app_label.replace("_", r"\_") + r"\_%"])
        return sorted(name for (name,) in cursor.fetchall())


def drop_pattern_indexes(app_label: str):
    """A RunPython function dropping them (a no-op elsewhere than PostgreSQL). Django's own
    later operations drop an index with IF EXISTS, so their absence troubles no migration."""

    def drop(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        quote = schema_editor.quote_name
        for name in pattern_indexes(schema_editor.connection, app_label):
            schema_editor.execute(f"DROP INDEX IF EXISTS {quote(name)}")

    return drop
