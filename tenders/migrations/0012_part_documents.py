"""Documents of a tender's parts: bids, awards, contracts and cancellations, kept as versions
like the tender's. (The kept representations stay right: a part without documents shows none,
its empty list left out as before.)"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tenders", "0011_kept_representations_show_every_version")]

    operations = [
        migrations.CreateModel(
            name="AwardDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("document_id", models.CharField(editable=False, max_length=32)),
                ("version", models.PositiveIntegerField(editable=False)),
                ("key", models.CharField(editable=False, max_length=32)),
                ("md5", models.CharField(editable=False, max_length=32)),
                ("title", models.TextField()),
                ("format", models.CharField(max_length=255)),
                ("metadata", models.JSONField(blank=True, default=dict)),
                ("author", models.CharField(editable=False, max_length=32)),
                ("date_published", models.DateTimeField(editable=False)),
                ("date_modified", models.DateTimeField(editable=False)),
                (
                    "award",
                    models.ForeignKey(
                        editable=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="tenders.award",
                    ),
                ),
            ],
            options={
                "ordering": ["date_modified", "version", "id"],
                "abstract": False,
                "constraints": [
                    models.UniqueConstraint(
                        fields=("award", "document_id", "version"),
                        name="award_document_version_unique",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="ContractDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("document_id", models.CharField(editable=False, max_length=32)),
                ("version", models.PositiveIntegerField(editable=False)),
                ("key", models.CharField(editable=False, max_length=32)),
                ("md5", models.CharField(editable=False, max_length=32)),
                ("title", models.TextField()),
                ("format", models.CharField(max_length=255)),
                ("metadata", models.JSONField(blank=True, default=dict)),
                ("author", models.CharField(editable=False, max_length=32)),
                ("date_published", models.DateTimeField(editable=False)),
                ("date_modified", models.DateTimeField(editable=False)),
                (
                    "contract",
                    models.ForeignKey(
                        editable=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="tenders.contract",
                    ),
                ),
            ],
            options={
                "ordering": ["date_modified", "version", "id"],
                "abstract": False,
                "constraints": [
                    models.UniqueConstraint(
                        fields=("contract", "document_id", "version"),
                        name="contract_document_version_unique",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="CancellationDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("document_id", models.CharField(editable=False, max_length=32)),
                ("version", models.PositiveIntegerField(editable=False)),
                ("key", models.CharField(editable=False, max_length=32)),
                ("md5", models.CharField(editable=False, max_length=32)),
                ("title", models.TextField()),
                ("format", models.CharField(max_length=255)),
                ("metadata", models.JSONField(blank=True, default=dict)),
                ("author", models.CharField(editable=False, max_length=32)),
                ("date_published", models.DateTimeField(editable=False)),
                ("date_modified", models.DateTimeField(editable=False)),
                (
                    "cancellation",
                    models.ForeignKey(
                        editable=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="tenders.cancellation",
                    ),
                ),
            ],
            options={
                "ordering": ["date_modified", "version", "id"],
                "abstract": False,
                "constraints": [
                    models.UniqueConstraint(
                        fields=("cancellation", "document_id", "version"),
                        name="cancellation_document_version_unique",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="BidDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("document_id", models.CharField(editable=False, max_length=32)),
                ("version", models.PositiveIntegerField(editable=False)),
                ("key", models.CharField(editable=False, max_length=32)),
                ("md5", models.CharField(editable=False, max_length=32)),
                ("title", models.TextField()),
                ("format", models.CharField(max_length=255)),
                ("metadata", models.JSONField(blank=True, default=dict)),
                ("author", models.CharField(editable=False, max_length=32)),
                ("date_published", models.DateTimeField(editable=False)),
                ("date_modified", models.DateTimeField(editable=False)),
                (
                    "bid",
                    models.ForeignKey(
                        editable=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="documents",
                        to="tenders.bid",
                    ),
                ),
            ],
            options={
                "ordering": ["date_modified", "version", "id"],
                "abstract": False,
                "constraints": [
                    models.UniqueConstraint(
                        fields=("bid", "document_id", "version"),
                        name="bid_document_version_unique",
                    )
                ],
            },
        ),
    ]
