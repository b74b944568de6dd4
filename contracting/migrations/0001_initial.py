"""Contracting's own models: the signed contract (a proxy of the tender's contract, one row)
and the contract's changes, which were made in the tenders app: their table, tenders_contractchange,
stays as it is (only the state moves here)."""

import core.ids
import django.db.models.deletion
import tenders.models.base
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('tenders', '0037_procedure'),
    ]

    operations = [
        migrations.CreateModel(
            name='SignedContract',
            fields=[
            ],
            options={
                'proxy': True,
                'indexes': [],
                'constraints': [],
            },
            bases=('tenders.contract',),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ContractChange',
                    fields=[
                        ('id', models.CharField(default=core.ids.new_id, editable=False, max_length=32, primary_key=True, serialize=False)),
                        ('number', models.PositiveIntegerField(editable=False)),
                        ('status', models.CharField(choices=[('pending', 'pending'), ('active', 'active')], editable=False, max_length=16)),
                        ('date', models.DateTimeField(editable=False)),
                        ('date_signed', models.DateTimeField(blank=True, null=True)),
                        ('rationale', models.TextField()),
                        ('rationale_types', models.JSONField(default=list)),
                        ('contract_number', models.CharField(blank=True, max_length=255)),
                        ('data', models.JSONField(blank=True, default=dict)),
                        ('contract', models.ForeignKey(editable=False, on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='contracting.signedcontract')),
                    ],
                    options={
                        'db_table': 'tenders_contractchange',
                        'ordering': ['number'],
                        'constraints': [models.UniqueConstraint(fields=('contract', 'number'), name='one_number_per_change')],
                    },
                    bases=(tenders.models.base.ChangedUnderItsTendersLock, models.Model),
                ),
            ],
        ),
    ]
