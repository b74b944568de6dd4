"""Brokers and form tokens move into the kernel; their tables (portal_*) stay as they are."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("portal", "0004_organization_event_labels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The table stays where it is: only Django's idea of its owner moves.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Broker',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=64, unique=True, validators=[django.core.validators.RegexValidator('^[A-Za-z0-9_.-]+$', 'Letters, digits, _ . - only.')], verbose_name='name')),
                        ('key_digest', models.CharField(editable=False, max_length=64, unique=True)),
                        ('is_active', models.BooleanField(default=True, verbose_name='active')),
                        ('created', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'portal_broker',
                    },
                ),
                migrations.CreateModel(
                    name='FormSubmission',
                    fields=[
                        ('token', models.CharField(max_length=32, primary_key=True, serialize=False)),
                        ('at', models.DateTimeField(auto_now_add=True)),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'portal_formsubmission',
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
