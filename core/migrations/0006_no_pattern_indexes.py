"""PostgreSQL: the core's tables keep no pattern-ops index on their ids (core.indexes)."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("core", "0005_form_made")]

    operations = [migrations.RunPython(drop_pattern_indexes("core"), migrations.RunPython.noop)]
