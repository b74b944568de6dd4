"""PostgreSQL: the tenders' tables keep no pattern-ops index on their ids (core.indexes),
and the feed's plain index, which the covering one (0008) replaces there, goes too."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


def drop_plain_feed_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS tender_feed")


def create_plain_feed_index(apps, schema_editor):
    # (declared in Tender.Meta: back to what the migrations before this one left)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS tender_feed ON tenders_tender (date_modified, id)"
        )


class Migration(migrations.Migration):
    dependencies = [("tenders", "0009_search_apart")]

    operations = [
        migrations.RunPython(drop_pattern_indexes("tenders"), migrations.RunPython.noop),
        migrations.RunPython(drop_plain_feed_index, create_plain_feed_index),
    ]
