"""A draft cancelled before it was published was never public: a database that applied 0019
before it knew so has its stamp taken back. The feed's index carries `published`, which its
filter now reads (so that a page is still read from the index alone on PostgreSQL)."""

from django.db import migrations

COVERING = "tender_feed_covering"


def unstamp_never_public(apps, schema_editor):
    Tender = apps.get_model("tenders", "Tender")
    AuditEvent = apps.get_model("tenders", "AuditEvent")
    drafted = AuditEvent.objects.filter(action="register", to_status="draft")
    published = AuditEvent.objects.filter(action="publish").values("tender_id")
    never_public = drafted.exclude(tender_id__in=published).values("tender_id")
    Tender.objects.filter(pk__in=never_public).update(published=None)


def covering(columns: str):
    def create(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(f"DROP INDEX IF EXISTS {COVERING}")
        schema_editor.execute(
            f"CREATE INDEX {COVERING} ON tenders_tender (date_modified, id) INCLUDE ({columns})"
        )

    return create


class Migration(migrations.Migration):
    dependencies = [("tenders", "0019_tenders_say_when_published")]

    operations = [
        migrations.RunPython(unstamp_never_public, migrations.RunPython.noop),
        migrations.RunPython(
            covering("status, mode, published"), covering("status, mode")
        ),
    ]
