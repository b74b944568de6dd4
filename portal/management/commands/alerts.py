import time

from django.core.management.base import BaseCommand
from django.utils import timezone

from portal.alerts import send_due


class Command(BaseCommand):
    help = (
        "E-mail the people who saved a search of the tenders newly published that it finds, at "
        "once or once a day as each asked. Several may run at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one pass, then exit")
        parser.add_argument("--interval", type=float, default=60.0, help="seconds between passes")

    def handle(self, *args, once=False, interval=60.0, **options):
        while True:
            sent = send_due(timezone.now())
            if sent or once:
                self.stdout.write(f"alerts: {sent} mail(s) queued")
            if once:
                return
            time.sleep(interval)
