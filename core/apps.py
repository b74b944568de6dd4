from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The kernel: what every app builds on, importing none of them."""

    name = "core"
    label = "core"
    verbose_name = "Kernel"
