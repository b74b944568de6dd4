from django.db import models


class TenderSearch(models.Model):
    """What the portal's search finds a tender by (tenders/search.py): its words, CPV codes,
    region and expected value, apart from the tender's row, which every change rewrites. (The
    indexes of the words and codes on PostgreSQL are migration 0018's.)"""

    tender = models.OneToOneField(
        "Tender", primary_key=True, on_delete=models.CASCADE, related_name="search"
    )
    search_text = models.TextField(blank=True)
    cpv_codes = models.TextField(blank=True)
    region = models.CharField(max_length=200, blank=True)
    value_amount = models.DecimalField(max_digits=20, decimal_places=2, null=True)

    class Meta:
        indexes = [
            models.Index(fields=["region"], name="tender_search_region"),
            models.Index(fields=["value_amount"], name="tender_search_value"),
        ]

    def __str__(self) -> str:
        return self.search_text[:60]

    @classmethod
    def write(cls, tender, *, new: bool) -> None:
        """Write the words and codes the tender's document gave (`tender.found_by`; only
        when they changed: their index is costly to rewrite)."""
        if new:
            cls.objects.create(tender=tender, **tender.found_by)
        else:
            cls.objects.filter(tender=tender).update(**tender.found_by)
