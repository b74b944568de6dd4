from django.apps import AppConfig


class BelowThresholdConfig(AppConfig):
    name = "belowthreshold"
    verbose_name = "The simplified procedure (belowThreshold)"

    def ready(self):
        from tenders.extensions import PROCEDURES

        from .procedure import BELOW_THRESHOLD

        PROCEDURES.plug(BELOW_THRESHOLD.method_type, BELOW_THRESHOLD)
