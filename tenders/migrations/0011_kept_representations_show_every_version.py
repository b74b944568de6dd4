"""The tenders' 2.3 representation now lists every version of a document (the tender's and its
claims'), where it showed the newest alone: the kept representations written before (read by
tenders.api.stored) are emptied, and the next read of each tender renders it again. (Both ways:
a representation kept by this code is as wrong for the code before it.)"""

from django.db import migrations


def forget_kept_representations(apps, schema_editor):
    apps.get_model("tenders", "Tender").objects.exclude(public_text="").update(public_text="")


class Migration(migrations.Migration):
    dependencies = [("tenders", "0010_no_pattern_indexes")]

    operations = [
        migrations.RunPython(forget_kept_representations, forget_kept_representations),
    ]
