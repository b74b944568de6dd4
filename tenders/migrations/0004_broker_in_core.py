"""The broker model now lives in the kernel (core); the foreign keys point at the same table."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('core', '0001_initial'),
        ('tenders', '0003_portal_ownership'),
    ]

    operations = [
        # The table stays where it is: only Django's idea of its owner moves.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='bid',
                    name='broker',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='core.broker'),
                ),
                migrations.AlterField(
                    model_name='tender',
                    name='broker',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='core.broker'),
                ),
            ],
            database_operations=[],
        ),
    ]
