"""The largest tender the API takes, and the tender whose tendering ends with the most work, for
`make load` (bench/load.py).

`python -m bench.largest body FILE` writes the body of a tender of MAX_ITEMS items about as
large as API_MAX_BODY_BYTES allows. `python -m bench.largest worst KEY` (DATABASE_URL naming a
migrated database, the broker KEY registered) builds, through the model methods with the clock
set back, a tender of MAX_ITEMS items in MAX_LOTS lots with MAX_BIDS bids each for every lot
(placed by brokers of their own, each its share), its tendering over but not yet closed (the
next request that reads it closes it: the bids are opened and every lot is awarded), and prints
its id.
"""

import json
import sys
from datetime import timedelta

import django

django.setup()

import time_machine  # noqa: E402
from django.conf import settings  # noqa: E402
from django.utils import timezone  # noqa: E402

from core.actors import Actor, Role  # noqa: E402
from core.models import Broker  # noqa: E402
from core.schema import SHORT_TEXT_MAX, iso  # noqa: E402
from tenders.models import Tender  # noqa: E402
from tenders.schema import MAX_BIDS, MAX_BIDS_OF_ONE, MAX_ITEMS, MAX_LOTS  # noqa: E402
from tests.helpers import item, lot, organization, tender_data  # noqa: E402


def largest_body() -> bytes:
    def body(description: str) -> bytes:
        items = [item(None, f"{n} {description}") for n in range(MAX_ITEMS)]
        return json.dumps({"data": tender_data(items=items)}, ensure_ascii=False).encode()

    room = settings.API_MAX_BODY_BYTES * 0.97 - len(body(""))
    letters = min(SHORT_TEXT_MAX - 10, int(room / MAX_ITEMS / 2))  # (2 bytes a Cyrillic letter)
    return body(("Шприц ін'єкційний одноразовий стерильний " * 100)[:letters])


def worst_tender(key: str) -> str:
    broker = Broker.authenticate(key)
    by = Actor(Role.AUTHENTICATED, broker=broker)
    start = timezone.now() - timedelta(hours=1)
    lot_ids = [f"{n + 1:032x}" for n in range(MAX_LOTS)]
    data = tender_data(
        start,
        lots=[lot(lot_id, 100_000, 10) for lot_id in lot_ids],
        items=[item(lot_ids[n % MAX_LOTS], f"предмет {n}") for n in range(MAX_ITEMS)],
        enquiryPeriod={"endDate": iso(start + timedelta(minutes=10))},
        tenderPeriod={"endDate": iso(start + timedelta(minutes=30))},
    )
    bidders = []
    for n in range(-(-MAX_BIDS // MAX_BIDS_OF_ONE)):
        bidder = Broker(name=f"bidder {n}")
        bidder.set_key(f"bidder-{n}-" + "b" * 32)
        bidder.save()
        bidders.append(Actor(Role.AUTHENTICATED, broker=bidder))
    with time_machine.travel(start, tick=False) as clock:
        tender, _ = Tender.objects.register(by=by, data=data)
        clock.move_to(start + timedelta(minutes=15))
        tender = Tender.objects.get(pk=tender.pk)
        for n in range(MAX_BIDS):
            offers = [{"relatedLot": lot_id, "value": {"amount": 90_000 - n}} for lot_id in lot_ids]
            tenderer = organization(f"Учасник {n}", f"{10_000_000 + n}")
            bidder = bidders[n // MAX_BIDS_OF_ONE]  # (one broker places at most its share)
            tender.place_bid(by=bidder, data={"tenderers": [tenderer], "lotValues": offers})
    return tender.pk


if __name__ == "__main__":
    if sys.argv[1] == "body":
        with open(sys.argv[2], "wb") as out:
            out.write(largest_body())
    else:
        print(worst_tender(sys.argv[2]))
