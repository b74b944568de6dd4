from django.apps import AppConfig


class ComplaintsConfig(AppConfig):
    name = "complaints"
    verbose_name = "Claims"

    def ready(self):
        # Tenders know nothing of claims; the claims app shows its own inside each award.
        from tenders.api.serializers import embed_in_awards, embed_in_tender

        from .api.serializers import award_complaints, tender_complaints

        embed_in_awards("complaints", award_complaints)
        embed_in_tender("complaints", tender_complaints)
