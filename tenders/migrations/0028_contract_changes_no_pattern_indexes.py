"""The contract changes' ids need no pattern indexes either (core.indexes); Django creates them
at the end of the migration that creates the table, so they are dropped in the next one."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("tenders", "0027_contracting")]

    operations = [migrations.RunPython(drop_pattern_indexes("tenders"), migrations.RunPython.noop)]
