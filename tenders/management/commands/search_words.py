from django.core.management.base import BaseCommand

from tenders.models import Tender, TenderSearch
from tenders.models.tender_search import rebuild


class Command(BaseCommand):
    help = (
        "Derive every tender's search words (with their lemmas), codes, region, value and "
        "procedure type anew from its document: after the Ukrainian dictionary "
        "(pymorphy3-dicts-uk) is upgraded, or the way they are derived changes. A chunk of "
        "tenders at a time, each chunk's rows locked while it is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("--chunk", type=int, default=500, help="tenders per transaction")

    def handle(self, *args, chunk=500, **options):
        written = rebuild(Tender, TenderSearch, chunk=chunk)
        self.stdout.write(f"{written} tenders' search columns derived anew")
