import logging
import threading
import time

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connection

logger = logging.getLogger(__name__)

# What runs beside the site, each as its own command would: (command, seconds between passes).
LOOPS = (("chronograph", 2.0), ("alerts", 10.0))
# A loop that failed starts again after this long (the database restarting, say).
RESTART_AFTER = 5.0


class Command(BaseCommand):
    help = (
        "The background work of `make run` in one process: the chronograph and the alerts each "
        "in a thread, the worker (e-mail, the auctions' protocols: manage.py worker) in the main "
        "one. A production deployment runs the three commands as processes of their own, as "
        "many of each as it needs."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--once", action="store_true", help="one pass of each in turn (every queued mail)"
        )

    def handle(self, *args, once=False, **options):
        if once:
            for command, _interval in LOOPS:
                call_command(command, once=True, stdout=self.stdout)
            call_command("worker", batch=True, stdout=self.stdout)
            return
        for command, interval in LOOPS:
            threading.Thread(
                target=_keep_running, args=(command, interval), name=command, daemon=True
            ).start()
        # (the worker stops on SIGINT or SIGTERM, which only the main thread receives; the
        # loops' threads end with the process)
        call_command("worker", interval=1, stdout=self.stdout)


def _keep_running(command: str, interval: float) -> None:
    while True:
        try:
            call_command(command, interval=interval)
        except Exception:
            logger.exception("%s stopped; it starts again in %s s", command, RESTART_AFTER)
            # (a thread gets no request's end, where Django drops a broken connection: its
            # own is closed here, and the next pass opens a new one)
            connection.close()
            time.sleep(RESTART_AFTER)
