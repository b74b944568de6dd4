"""The feed's index also carries the columns its filters read (status, mode), so that a page
is read from the index alone on PostgreSQL; other databases keep the plain index."""

from django.db import migrations

COVERING = "tender_feed_covering"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {COVERING} ON tenders_tender (date_modified, id) "
        "INCLUDE (status, mode)"
    )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {COVERING}")


class Migration(migrations.Migration):
    dependencies = [("tenders", "0007_kept_representation")]

    operations = [migrations.RunPython(create, drop)]
