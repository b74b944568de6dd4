"""What telling open data of a tender's changes costs, in process (`ALLOWED_HOSTS=testserver
python -m bench.releases [ITEMS]`, DATABASE_URL naming a migrated database it may write in): a
tender of ITEMS items (20 by default) is changed through the API (PATCH of its title) ROUNDS
times WRITES writes each way, alternating: each write after the background told of the one
before (the floor: what a write costs), and each write keeping the state the one before left
(what a write costs when a tender changes again before the background told of its last change).
Prints the median write of each, their ratio with the spread of the rounds' ratios, and the
median time the background takes to tell of one change, and of one state a change kept (its
rows put back in a savepoint, read, rolled back)."""

import os
import statistics
import sys
import time
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
django.setup()

from django.test import Client  # noqa: E402

from core.models import Broker  # noqa: E402
from tenders.models import Tender  # noqa: E402
from tests.helpers import Api, item, tender_data  # noqa: E402

ROUNDS = 7
WRITES = 20


def writes(api: Api, path: str, token: str, *, told_between: bool) -> tuple[float, float]:
    """The median of WRITES title changes, and of the background's telling between them, in
    milliseconds (the telling 0 when not told between)."""
    took, telling = [], []
    for _ in range(WRITES):
        if told_between:
            start = time.perf_counter()
            Tender.objects.tell_untold()
            telling.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        response = api.patch(path, {"title": f"Папір {uuid.uuid4().hex[:8]}"}, token=token)
        took.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.content[:300]
    return statistics.median(took), statistics.median(telling) if telling else 0.0


def main(items: int) -> None:
    key = f"bench-releases-{uuid.uuid4().hex}"
    broker = Broker(name=key[:40])
    broker.set_key(key)
    broker.save()
    api = Api(Client(), key=key)
    created = api.post(
        "/tenders", tender_data(items=[item(None, f"папір {n}") for n in range(items)])
    )
    assert created.status_code == 201, created.content[:300]
    path = f"/tenders/{created.json()['data']['id']}"
    token = created.json()["access"]["token"]
    writes(api, path, token, told_between=False)  # (warm)
    floor, telling, background, kept = [], [], [], []
    for _ in range(ROUNDS):
        write, told = writes(api, path, token, told_between=True)
        floor.append(write)
        background.append(told)
        telling.append(writes(api, path, token, told_between=False)[0])
        start = time.perf_counter()
        Tender.objects.tell_untold()  # (the WRITES - 1 states kept, and the last change)
        kept.append((time.perf_counter() - start) * 1000 / WRITES)
    ratios = sorted(t / f for t, f in zip(telling, floor, strict=True))
    print(f"a tender of {items} items, {ROUNDS} rounds of {WRITES} PATCHes each way")
    print(f"a write, its last change told before (floor): {statistics.median(floor):.1f} ms")
    print(f"a write keeping the state the last one left: {statistics.median(telling):.1f} ms")
    print(
        f"ratio: median {statistics.median(ratios):.2f} "
        f"(rounds from {ratios[0]:.2f} to {ratios[-1]:.2f})"
    )
    print(f"the background telling of one change: median {statistics.median(background):.1f} ms")
    print(f"the background telling of a state kept: median {statistics.median(kept):.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
