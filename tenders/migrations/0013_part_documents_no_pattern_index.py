"""PostgreSQL keeps no pattern-ops index on the keys of the documents of bids, awards, contracts and cancellations (core.indexes).
A migration of its own: Django creates a new table's foreign-key indexes as the migration that
creates it ends, after any operation of its own."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("tenders", "0012_part_documents")]

    operations = [migrations.RunPython(drop_pattern_indexes("tenders"), migrations.RunPython.noop)]
