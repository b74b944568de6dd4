import time

from django.core.management.base import BaseCommand
from django.utils import timezone

from portal import alerts, auction_started, reminders, watch

# Deadlines are looked for this often at most (they are told a day ahead; each pass reads every
# organization with something waiting).
REMINDERS_EVERY = 600.0


class Command(BaseCommand):
    help = (
        "E-mail the people who saved a search of the tenders newly published that it finds, and "
        "those who follow a tender of its changes (at once or once a day, as each asked), and "
        "the organizations of their deadlines a day ahead, and the bidders of an auction as it "
        "starts. Several may run at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one pass, then exit")
        parser.add_argument("--interval", type=float, default=60.0, help="seconds between passes")

    def handle(self, *args, once=False, interval=60.0, **options):
        reminded_at = None
        while True:
            sent = alerts.send_due(timezone.now())
            told = watch.send_due(timezone.now())
            started = auction_started.send_due(timezone.now())
            reminded = 0
            if once or reminded_at is None or time.monotonic() - reminded_at >= REMINDERS_EVERY:
                reminded_at = time.monotonic()
                reminded = reminders.send_due(timezone.now())
            if sent or told or started or reminded or once:
                self.stdout.write(
                    f"alerts: {sent} search mail(s), {told} tender change mail(s), "
                    f"{started} auction start mail(s), "
                    f"{reminded} reminder(s) queued"
                )
            if once:
                return
            time.sleep(interval)
