"""Brokers and form tokens now belong to the kernel (core); their tables stay."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('complaints', '0004_broker_in_core'),
        ('docservice', '0002_broker_in_core'),
        ('portal', '0004_organization_event_labels'),
        ('tenders', '0004_broker_in_core'),
    ]

    operations = [
        # The table stays where it is: only Django's idea of its owner moves.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(
                    name='Broker',
                ),
                migrations.DeleteModel(
                    name='FormSubmission',
                ),
            ],
            database_operations=[],
        ),
    ]
