"""What keeping an OCDS release with every change of a public tender costs a write, in process
(`ALLOWED_HOSTS=testserver python -m bench.releases [ITEMS]`, DATABASE_URL naming a migrated
database it may write in): a tender of ITEMS items (20 by default) is changed through the API
(PATCH of its title) ROUNDS times WRITES writes, each round once with the release kept and once
without (the receiver disconnected: the floor, measured in the same run, alternating); prints
the median write of each and their ratio, with the spread of the rounds' ratios."""

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
from opendata.releases import keep_releases  # noqa: E402
from tenders.signals import tender_changed  # noqa: E402
from tests.helpers import Api, item, tender_data  # noqa: E402

ROUNDS = 7
WRITES = 20


def writes(api: Api, path: str, token: str) -> float:
    """The median of WRITES title changes, in milliseconds."""
    took = []
    for _ in range(WRITES):
        start = time.perf_counter()
        response = api.patch(path, {"title": f"Папір {uuid.uuid4().hex[:8]}"}, token=token)
        took.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.content[:300]
    return statistics.median(took)


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
    writes(api, path, token)  # (warm)
    kept, floor = [], []
    for _ in range(ROUNDS):
        kept.append(writes(api, path, token))
        tender_changed.disconnect(keep_releases, dispatch_uid="opendata.keep_releases")
        try:
            floor.append(writes(api, path, token))
        finally:
            tender_changed.connect(keep_releases, dispatch_uid="opendata.keep_releases")
    ratios = sorted(k / f for k, f in zip(kept, floor, strict=True))
    print(f"a tender of {items} items, {ROUNDS} rounds of {WRITES} PATCHes each way")
    print(f"write with its release kept: median {statistics.median(kept):.1f} ms")
    print(f"write without (the floor):   median {statistics.median(floor):.1f} ms")
    print(
        f"ratio: median {statistics.median(ratios):.2f} "
        f"(rounds from {ratios[0]:.2f} to {ratios[-1]:.2f})"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
