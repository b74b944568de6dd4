from django.apps import AppConfig


class ContractingConfig(AppConfig):
    name = "contracting"
    verbose_name = "Contracting"
