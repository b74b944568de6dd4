import time

from django.core.management.base import BaseCommand
from django.utils import timezone

from tenders.models import Tender

# Tenders changed per transaction: their rows stay locked while the batch runs (a write to one
# of them waits for it, a quarter of a second at most here).
BATCH = 500


class Command(BaseCommand):
    help = (
        "Apply time-driven changes (enquiries ending, tendering closing, qualification failing) "
        "to tenders nobody reads or writes, so that the feed shows them, and tell open data of "
        "every change it was not told of yet. Several may run at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one pass, then exit")
        parser.add_argument("--interval", type=float, default=5.0, help="seconds between passes")
        parser.add_argument("--batch", type=int, default=BATCH, help="tenders per transaction")

    def handle(self, *args, once=False, interval=5.0, batch=BATCH, **options):
        while True:
            total = 0
            # A batch counts the tenders something happened to; one whose due change was waiting
            # on something else only had its next check moved. Go on while any is still due.
            while changed := Tender.objects.catch_up_due(limit=batch):
                total += changed
                if not Tender.objects.filter(next_check__lte=timezone.now()).exists():
                    break
            # (after the time-driven changes: they are told in the same step as the others)
            told = 0
            while more := Tender.objects.tell_untold():
                told += more
            if total or told or once:
                self.stdout.write(
                    f"chronograph: {total} tender(s) brought up to date, {told} told to open data"
                )
            if once:
                return
            time.sleep(interval)
