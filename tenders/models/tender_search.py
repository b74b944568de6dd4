from django.db import models, transaction


class TenderSearch(models.Model):
    """What the portal's search finds a tender by (tenders/search.py): its words (with their
    lemmas), CPV codes, region, expected value and procedure type, apart from the tender's
    row, which every change rewrites. (The indexes of the words and codes on PostgreSQL are
    migration 0018's.)"""

    tender = models.OneToOneField(
        "Tender", primary_key=True, on_delete=models.CASCADE, related_name="search"
    )
    search_text = models.TextField(blank=True)
    cpv_codes = models.TextField(blank=True)
    region = models.CharField(max_length=200, blank=True)
    value_amount = models.DecimalField(max_digits=20, decimal_places=2, null=True)
    # procurementMethodType (no index: every tender is of the one type the registry takes).
    procedure = models.CharField(max_length=64, blank=True)

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


def rebuild(tender_model, search_model, *, chunk: int = 500) -> int:
    """Derive every tender's search columns anew from its document (after the way they are
    derived changed: migration 0032 gave the words their lemmas), `chunk` tenders at a time,
    so memory holds a chunk's documents, not the registry's. Works on a migration's historical
    models as on the real ones; returns how many rows it wrote."""
    from tenders.search import search_columns

    names = [field.name for field in search_model._meta.concrete_fields if not field.primary_key]
    written, last = 0, ""
    while True:
        # (the chunk's tenders locked while their words are written: a change of one of them
        # meanwhile would write its own words, which these would overwrite)
        with transaction.atomic():
            tenders = list(
                tender_model.objects.select_for_update()
                .filter(pk__gt=last)
                .order_by("pk")
                .values_list("pk", "title", "description", "data")[:chunk]
            )
            if not tenders:
                return written
            rows = []
            for pk, title, description, data in tenders:
                document = {**(data or {}), "title": title, "description": description}
                columns = search_columns(document)
                rows.append(search_model(tender_id=pk, **{n: columns[n] for n in names}))
            search_model.objects.bulk_update(rows, names)
        written += len(rows)
        last = tenders[-1][0]
