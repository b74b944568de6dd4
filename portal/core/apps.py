from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The kernel: what every app builds on, importing none of them."""

    name = "portal.core"
    label = "core"
    verbose_name = "Kernel"
