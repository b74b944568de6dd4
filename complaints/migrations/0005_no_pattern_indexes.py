"""PostgreSQL: the claims' tables keep no pattern-ops index on their ids
(core.indexes)."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("complaints", "0004_broker_in_core")]

    operations = [migrations.RunPython(drop_pattern_indexes("complaints"), migrations.RunPython.noop)]
