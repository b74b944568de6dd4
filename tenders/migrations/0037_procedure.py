"""The procedure each tender follows (tenders/procedures.py): every tender so far is belowThreshold."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tenders', '0036_audit_events_one_tender_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='tender',
            name='procurement_method_type',
            field=models.CharField(db_default='belowThreshold', default='belowThreshold', editable=False, max_length=64),
        ),
    ]
