"""The benchmark's registry, built through the model methods as brokers would build it.

Each tender: 5 items, 5 documents, 3 bids from different tenderers, an award decided (active,
its complaint period open when the benchmark runs), and 5 claims against it, one in each of
draft, claim, answered, resolved and cancelled. The clock is set back (time-machine) so that the
enquiry and tendering periods have really passed; the awards are decided a few hours before now,
so nothing becomes due while the benchmark runs.

`python -m bench.build N` (with DATABASE_URL naming a migrated database) builds N tenders and
keeps what the client needs (ids and access tokens) in the database itself, in the table
bench_keys (so that every copy of it carries them). Then the registry is left as the background
leaves one: its jobs done (the auctions' protocols stored) and open data told of every change.
"""

import hashlib
import json
import sys
from datetime import timedelta

import django

django.setup()

import time_machine  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from django.utils import timezone  # noqa: E402

from complaints.models import Complaint  # noqa: E402
from core.actors import Actor, Role  # noqa: E402
from core.models import Broker  # noqa: E402
from core.schema import iso  # noqa: E402
from docservice.models import StoredFile  # noqa: E402
from tenders.models import Tender, TenderStatus  # noqa: E402

BROKER_KEY = "bench-broker"
BIDDER_BROKER_KEY = "bench-bidder"
QUIET = {"default": {"BACKEND": "django.core.mail.backends.dummy.EmailBackend"}}
# One title in ten has the word the search looks for ("папір").
TITLES = [
    "Папір офісний А4", "Медичні рукавички нітрилові", "Ремонт покрівлі поліклініки",
    "Бензин А-95 у талонах", "Комп'ютерна техніка для шкіл", "Продукти харчування для їдальні",
    "Послуги з прибирання приміщень", "Лікарські засоби: антибіотики", "Меблі для укриття",
    "Охорона адміністративної будівлі",
]  # fmt: skip
CPV = ["30197630-1", "33141420-0", "45261000-4", "09132000-3", "30213000-5"]


def party(name: str, code: str) -> dict:
    return {
        "name": name,
        "identifier": {"scheme": "UA-EDR", "id": code, "legalName": name},
        "address": {
            "countryName": "Україна",
            "postalCode": "01001",
            "region": "м. Київ",
            "locality": "м. Київ",
            "streetAddress": "вул. Хрещатик, 1",
        },
        "contactPoint": {"name": "Відділ закупівель", "telephone": "+380441234567"},
    }


def tender_body(n: int, now) -> dict:
    title = TITLES[n % len(TITLES)]
    return {
        "title": f"{title} (лот {n})",
        "description": f"Закупівля №{n}: {title.lower()}, поставка протягом 30 днів.",
        "procurementMethodType": "belowThreshold",
        "value": {"amount": 900000, "currency": "UAH"},
        "minimalStep": {"amount": 9000, "currency": "UAH"},
        "enquiryPeriod": {"endDate": iso(now + timedelta(days=7))},
        "tenderPeriod": {"endDate": iso(now + timedelta(days=14))},
        "procuringEntity": {
            **party(f"Замовник №{n % 50}", f"{20000000 + n % 50}"), "kind": "general",
        },
        "items": [
            {
                "description": f"{title}, позиція {i + 1}",
                "classification": {
                    "scheme": "ДК021", "id": CPV[n % len(CPV)], "description": title,
                },
                "unit": {"code": "H87", "name": "штука"},
                "quantity": 10 * (i + 1),
            }
            for i in range(5)
        ],
    }  # fmt: skip


def build_one(n: int, brokers: tuple, real_now, traveller) -> dict:
    """One tender's story; returns its ids and tokens."""
    broker, bidder_broker = brokers
    # Each tender's story a few seconds after the previous one's: stamps never tie.
    # (Tendering ends three weeks before now, its auction on one of the next working days.)
    base = real_now - timedelta(days=35) + timedelta(seconds=7 * n)
    traveller.move_to(base)
    tender, owner_token = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=broker), data=tender_body(n, base)
    )
    owner = Actor(Role.TENDER_OWNER, broker=broker, subject=tender)
    for d in range(5):
        md5 = hashlib.md5(f"{n}:{d}".encode()).hexdigest()
        stored = StoredFile.register(broker=broker, md5=md5)
        tender.add_document(
            by=owner, key=stored.id, md5=md5, title=f"document-{d + 1}.pdf",
            format="application/pdf", metadata={"documentType": "tenderNotice"},
        )  # fmt: skip
    traveller.move_to(tender.tender_start + timedelta(hours=1))
    bids = []
    for b in range(3):
        bid, bid_token = tender.place_bid(
            by=Actor(Role.AUTHENTICATED, broker=bidder_broker),
            data={
                "tenderers": [party(f"ТОВ «Постачальник {b + 1}»", f"{30000000 + b}")],
                "value": {"amount": 800000 + 10000 * b},
            },
        )
        bids.append((Actor(Role.BID_OWNER, broker=bidder_broker, subject=bid), bid_token))
    traveller.move_to(tender.tender_end + timedelta(minutes=1))
    tender = Tender.objects.current(tender.pk, viewer=None)
    while tender.status == TenderStatus.AUCTION:  # (nobody bids lower: the sealed prices stand)
        traveller.move_to(tender.next_check)
        tender = Tender.objects.current(tender.pk, viewer=None)
    traveller.move_to(real_now - timedelta(hours=3) + timedelta(seconds=n))
    tender = Tender.objects.current(tender.pk, viewer=None)
    owner = Actor(Role.TENDER_OWNER, broker=broker, subject=tender)
    award = tender.awards.get()
    award.activate(by=owner)
    claims = {}
    for status, (bidder, _token) in zip(
        ["draft", "claim", "answered", "resolved", "cancelled"],
        [bids[1], bids[2]] * 3,
        strict=False,
    ):
        traveller.move_to(timezone.now() + timedelta(seconds=1))
        complaint, token = Complaint.objects.file(
            award=award, by=bidder, title=f"Скарга ({status})",
            author=party("Скаржник", "30000001"),
            description="Переможець не має ліцензії, якої вимагає документація.",
            submit=status != "draft",
        )  # fmt: skip
        claimant = Actor(Role.COMPLAINT_OWNER, broker=bidder_broker, subject=complaint)
        if status in ("answered", "resolved"):
            complaint.answer(
                by=owner, resolution="Ліцензію надано у складі пропозиції, див. документ 3.",
                resolution_type="declined", tenderer_action="",
            )  # fmt: skip
        if status == "resolved":
            complaint.resolve(by=claimant, satisfied=False)
        if status == "cancelled":
            complaint.cancel(by=claimant, reason="Подано помилково.")
        claims[status] = {"id": complaint.pk, "token": token}
    return {
        "tender": tender.pk, "owner_token": owner_token, "award": award.pk, "claims": claims,
    }  # fmt: skip


def broker(name: str, key: str) -> Broker:
    found = Broker.objects.filter(name=name).first()
    if found:
        return found
    found = Broker(name=name)
    found.set_key(key, short_allowed=True)
    found.save()
    return found


def main(count: int) -> None:
    brokers = (broker("bench", BROKER_KEY), broker("bench-bidder", BIDDER_BROKER_KEY))
    real_now = timezone.now().replace(microsecond=0)
    tenders = []
    start = real_now - timedelta(days=15)
    with override_settings(MAILERS=QUIET):
        with time_machine.travel(start, tick=False) as traveller:
            for n in range(count):
                tenders.append(build_one(n, brokers, real_now, traveller))
                if (n + 1) % 100 == 0:
                    print(f"built {n + 1} tenders", flush=True)
        as_the_background_leaves_it()
    keys = json.dumps({"keys": [BROKER_KEY, BIDDER_BROKER_KEY], "tenders": tenders})
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_keys (body text NOT NULL)")
        cursor.execute("INSERT INTO bench_keys (body) VALUES (%s)", [keys])
        # As a registry's routine maintenance would (autovacuum, which a server may have off):
        # each tender's story left a score of dead rows, and without statistics the planner
        # guesses (README "Speed").
        cursor.execute("VACUUM ANALYZE")


def as_the_background_leaves_it() -> None:
    """The jobs the stories queued done (each auction's protocol stored), and open data told of
    every state each tender was in (README "Open data")."""
    call_command("worker", "--batch", "--no-startup-delay", verbosity=0)
    told = 0
    while more := Tender.objects.tell_untold(limit=100):
        told += more
    untold = Tender.objects.filter(untold=True).count()
    if untold:  # (a registry left untold would measure the worst case as the usual one)
        raise SystemExit(f"open data could not be told of {untold} tenders: see the log above")
    print(f"open data told of {told} tenders' changes", flush=True)


def keys() -> dict:
    """What the builder kept for the client (in any copy of the built database)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT body FROM bench_keys")
        return json.loads(cursor.fetchone()[0])


if __name__ == "__main__":
    main(int(sys.argv[1]))
