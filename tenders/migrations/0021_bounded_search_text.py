"""A tender's words kept for search are each word once, at most SEARCH_TEXT_MAX characters
(tenders.search.searchable): the rows kept before are cut the same way."""

from django.db import migrations
from django.db.models.functions import Length

from tenders.search import SEARCH_TEXT_MAX, searchable


def bound(apps, schema_editor):
    TenderSearch = apps.get_model("tenders", "TenderSearch")
    longer = TenderSearch.objects.annotate(size=Length("search_text")).filter(
        size__gt=SEARCH_TEXT_MAX
    )
    for row in longer.only("pk", "search_text").iterator(chunk_size=200):
        TenderSearch.objects.filter(pk=row.pk).update(search_text=searchable(row.search_text))


class Migration(migrations.Migration):
    dependencies = [("tenders", "0020_never_public_drafts")]

    operations = [migrations.RunPython(bound, migrations.RunPython.noop)]
