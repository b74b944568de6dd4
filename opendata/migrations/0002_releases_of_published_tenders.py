"""A release of every public tender published before releases were kept: the tender as it
stands (its earlier changes were not kept, and cannot be told now). Uses the live code that
writes releases (opendata.releases.keep_releases), which this migration exists to run once; 100
tenders a transaction, so that the registry stays writable meanwhile."""

from django.db import migrations, transaction


def keep_a_release_of_each(apps, schema_editor):
    from opendata.releases import keep_releases
    from tenders.models import Tender

    published = Tender.objects.filter(published__isnull=False).exclude(mode="test")
    ids = list(published.order_by("pk").values_list("id", flat=True))
    for start in range(0, len(ids), 100):
        chunk = ids[start : start + 100]
        with transaction.atomic():
            list(Tender.objects.select_for_update().filter(pk__in=chunk).values_list("pk"))
            keep_releases(Tender, tender_ids=chunk)


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("opendata", "0001_initial")]
    operations = [migrations.RunPython(keep_a_release_of_each, migrations.RunPython.noop)]
