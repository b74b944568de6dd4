"""The chronograph's rate when every tender is due (`python -m bench.chronograph`): the clock is
moved past every complaint period, and the chronograph's passes run for up to
BENCH_CHRONOGRAPH_SECONDS."""

import os
import time
from datetime import timedelta

import django

django.setup()

import time_machine  # noqa: E402
from django.utils import timezone  # noqa: E402

from tenders.management.commands.chronograph import BATCH  # noqa: E402
from tenders.models import Tender  # noqa: E402

SECONDS = float(os.environ.get("BENCH_CHRONOGRAPH_SECONDS", "20"))


def main() -> None:
    with time_machine.travel(timezone.now() + timedelta(days=30), tick=True):
        due = Tender.objects.filter(next_check__lte=timezone.now()).count()
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < SECONDS:
            changed = Tender.objects.catch_up_due(limit=BATCH)
            done += changed
            if not changed:
                break
        elapsed = time.perf_counter() - start
    print(
        f"{done / elapsed:.0f} due tenders/s "
        f"({done:,} of {due:,} brought up to date in {elapsed:.1f} s)"
    )


if __name__ == "__main__":
    main()
