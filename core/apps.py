from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The kernel: what every app builds on, importing none of them."""

    name = "core"
    label = "core"
    verbose_name = "Kernel"

    def ready(self):
        from django.db.backends.signals import connection_created

        from .databases import plan_prepared_statements_generically

        connection_created.connect(
            plan_prepared_statements_generically, dispatch_uid="core.generic_plans"
        )
