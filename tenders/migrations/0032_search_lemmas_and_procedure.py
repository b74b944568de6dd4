"""The kept words of a tender carry the lemmas of its Ukrainian words (tenders.lemmas), and the
procedure type is kept for the search's filter: every tender's search columns are derived anew,
a chunk of tenders at a time."""

from django.db import migrations, models

from tenders.models.tender_search import rebuild


def derive_anew(apps, schema_editor):
    rebuild(apps.get_model("tenders", "Tender"), apps.get_model("tenders", "TenderSearch"))


class Migration(migrations.Migration):
    # Not one transaction: each chunk of `rebuild` commits on its own, so a tender is locked
    # only while its chunk is written, not until every tender is (about two minutes at 100,000).
    atomic = False

    dependencies = [
        ('tenders', '0031_verbose_names'),
    ]

    operations = [
        migrations.AddField(
            model_name='tendersearch',
            name='procedure',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(derive_anew, migrations.RunPython.noop),
    ]
