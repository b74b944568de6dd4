"""A contract's changes are contracting's (contracting.models.ContractChange, migration
contracting 0001): the model leaves this app's state; its table stays as it is."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("tenders", "0037_procedure"), ("contracting", "0001_initial")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveConstraint(
                    model_name="contractchange", name="one_number_per_change"
                ),
                migrations.DeleteModel(name="ContractChange"),
            ],
        )
    ]
