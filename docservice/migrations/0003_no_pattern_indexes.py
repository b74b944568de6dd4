"""PostgreSQL: the stored files' table keeps no pattern-ops index on its id
(core.indexes)."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("docservice", "0002_broker_in_core")]

    operations = [migrations.RunPython(drop_pattern_indexes("docservice"), migrations.RunPython.noop)]
