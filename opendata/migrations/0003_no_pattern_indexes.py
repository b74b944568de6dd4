"""PostgreSQL: the releases' table keeps no pattern-ops index on their ids (core.indexes)."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("opendata", "0002_tell_of_published_tenders")]

    operations = [migrations.RunPython(drop_pattern_indexes("opendata"), migrations.RunPython.noop)]
