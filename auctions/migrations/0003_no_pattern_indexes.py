"""PostgreSQL: the auction's tables keep no pattern-ops index on their ids (core.indexes)."""

from django.db import migrations

from core.indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [("auctions", "0002_auction_tally")]

    operations = [migrations.RunPython(drop_pattern_indexes("auctions"), migrations.RunPython.noop)]
