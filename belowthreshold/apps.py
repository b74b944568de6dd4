from django.apps import AppConfig


class BelowThresholdConfig(AppConfig):
    name = "belowthreshold"
    verbose_name = "The simplified procedure (belowThreshold)"

    def ready(self):
        from tenders.procedures import register

        from .procedure import BELOW_THRESHOLD

        register(BELOW_THRESHOLD)
