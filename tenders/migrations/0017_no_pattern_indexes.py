"""PostgreSQL: the questions' table keeps no pattern-ops index on its ids (core.indexes;
in a migration of its own: the indexes of a model are made at the end of the migration that
creates it)."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("tenders", "0016_questions")]

    operations = [migrations.RunPython(drop_pattern_indexes("tenders"), migrations.RunPython.noop)]
