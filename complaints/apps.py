from django.apps import AppConfig


class ComplaintsConfig(AppConfig):
    name = "complaints"
    # (its rows may be read from a replica a little behind: core/replicas.py)
    reads_may_be_stale = True
    verbose_name = "Claims"

    def ready(self):
        # Tenders know nothing of claims; the claims app shows its own inside each award.
        from tenders.extensions import AWARD_PARTS, TENDER_PARTS

        from .api.serializers import award_complaints, tender_complaints

        AWARD_PARTS.plug("complaints", award_complaints)
        TENDER_PARTS.plug("complaints", tender_complaints)
