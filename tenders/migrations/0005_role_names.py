"""The roles of the audit trail renamed: "broker" (known, owning nothing here) is
"authenticated", "chronograph" (changes nobody asks for) is "system"."""

from django.db import migrations

RENAMED = {"broker": "authenticated", "chronograph": "system"}


def rename(apps, schema_editor, names=RENAMED):
    events = apps.get_model("tenders", "AuditEvent").objects
    for old, new in names.items():
        events.filter(actor_role=old).update(actor_role=new)


def rename_back(apps, schema_editor):
    rename(apps, schema_editor, {new: old for old, new in RENAMED.items()})


class Migration(migrations.Migration):
    dependencies = [("tenders", "0004_broker_in_core")]

    operations = [migrations.RunPython(rename, rename_back)]
