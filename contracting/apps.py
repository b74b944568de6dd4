from django.apps import AppConfig


class ContractingConfig(AppConfig):
    name = "contracting"
    # (its rows may be read from a replica a little behind: core/replicas.py)
    reads_may_be_stale = True
    verbose_name = "Contracting"
