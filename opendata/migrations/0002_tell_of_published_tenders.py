"""Every public tender published before releases were kept is left for open data to be told
of (its `untold` set): the background then writes its first release, the tender as it stands
(its earlier changes were not kept, and cannot be told now)."""

from django.db import migrations


def leave_published_tenders_untold(apps, schema_editor):
    tenders = apps.get_model("tenders", "Tender").objects
    tenders.filter(published__isnull=False).exclude(mode="test").update(untold=True)


class Migration(migrations.Migration):
    dependencies = [("opendata", "0001_initial")]
    operations = [migrations.RunPython(leave_published_tenders_untold, migrations.RunPython.noop)]
