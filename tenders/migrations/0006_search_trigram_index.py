"""A trigram index that serves the portal's keyword search (LIKE '%word%' on the folded search
text) on PostgreSQL; other databases scan, as before."""

from django.db import migrations

INDEX = "tender_search_trigram"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    # pg_trgm is a trusted extension: the database's owner may create it.
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {INDEX} ON tenders_tender USING gin (search_text gin_trgm_ops)"
    )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("tenders", "0005_role_names")]

    operations = [migrations.RunPython(create, drop)]
