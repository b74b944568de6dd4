"""The search's words and codes move to a table of their own (TenderSearch), with their
trigram index: every change of a tender rewrote its row and, with it, every index of the row,
the costly trigram index included."""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "tender_search_text_trigram"


def copy_and_index(apps, schema_editor):
    Tender = apps.get_model("tenders", "Tender")
    TenderSearch = apps.get_model("tenders", "TenderSearch")
    table = TenderSearch._meta.db_table
    schema_editor.execute(
        f"INSERT INTO {table} (tender_id, search_text, cpv_codes) "
        f"SELECT id, search_text, cpv_codes FROM {Tender._meta.db_table}"
    )
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON {table} USING gin (search_text gin_trgm_ops)"
        )


def copy_back(apps, schema_editor):
    Tender = apps.get_model("tenders", "Tender")
    TenderSearch = apps.get_model("tenders", "TenderSearch")
    for row in TenderSearch.objects.all():
        Tender.objects.filter(pk=row.tender_id).update(
            search_text=row.search_text, cpv_codes=row.cpv_codes
        )
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS tender_search_trigram ON tenders_tender "
            "USING gin (search_text gin_trgm_ops)"
        )


class Migration(migrations.Migration):
    dependencies = [("tenders", "0008_feed_index_covers_filters")]

    operations = [
        migrations.CreateModel(
            name="TenderSearch",
            fields=[
                (
                    "tender",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="search",
                        serialize=False,
                        to="tenders.tender",
                    ),
                ),
                ("search_text", models.TextField(blank=True)),
                ("cpv_codes", models.TextField(blank=True)),
            ],
        ),
        migrations.RunPython(copy_and_index, copy_back),
        # Dropping the column drops its trigram index (migration 0006) with it.
        migrations.RemoveField(model_name="tender", name="search_text"),
        migrations.RemoveField(model_name="tender", name="cpv_codes"),
    ]
