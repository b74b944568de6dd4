"""The content types (and so the permissions and admin history) of brokers and form tokens
follow them into the kernel: renamed, not created anew, on a database that had them."""

from django.db import migrations

MODELS = ("broker", "formsubmission")


def move(apps, schema_editor, source="portal", target="core"):
    content_types = apps.get_model("contenttypes", "ContentType").objects
    for model in MODELS:
        if not content_types.filter(app_label=target, model=model).exists():
            content_types.filter(app_label=source, model=model).update(app_label=target)


def move_back(apps, schema_editor):
    move(apps, schema_editor, source="core", target="portal")


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("portal", "0005_broker_and_form_tokens_to_core"),
    ]

    operations = [migrations.RunPython(move, move_back)]
