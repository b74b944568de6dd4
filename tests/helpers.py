"""Test helpers: a 2.3 client, request bodies from the 2.3 transcripts, and flows that bring a
tender to a stage through the public API with the clock moved (never by writing a status)."""

import base64
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from core.schema import iso, parse_iso

BASE = "/api/2.3"


def basic(key: str) -> str:
    return "Basic " + base64.b64encode(f"{key}:".encode()).decode()


class Api:
    def __init__(self, client, key: str | None):
        self.client = client
        self.key = key

    def headers(self, token=None, **extra) -> dict:
        headers = {}
        if self.key is not None:
            headers["HTTP_AUTHORIZATION"] = basic(self.key)
        if token is not None:
            headers["HTTP_X_ACCESS_TOKEN"] = token
        headers.update(extra)
        return headers

    @staticmethod
    def url(path: str) -> str:
        return path if path.startswith(BASE) else f"{BASE}{path}"

    def get(self, path, params=None, token=None, **headers):
        return self.client.get(self.url(path), params or {}, **self.headers(token, **headers))

    def head(self, path, **headers):
        return self.client.head(self.url(path), **self.headers(**headers))

    def _send(self, method, path, data, token, body, content_type, headers):
        if body is None:
            body = json.dumps({"data": data}) if data is not None else ""
        return getattr(self.client, method)(
            self.url(path), body, content_type=content_type, **self.headers(token, **headers)
        )

    def post(self, path, data=None, *, token=None, body=None, content_type="application/json", **h):
        return self._send("post", path, data, token, body, content_type, h)

    def patch(
        self, path, data=None, *, token=None, body=None, content_type="application/json", **h
    ):
        return self._send("patch", path, data, token, body, content_type, h)

    def put(self, path, data=None, *, token=None, body=None, content_type="application/json", **h):
        return self._send("put", path, data, token, body, content_type, h)

    def delete(self, path, *, token=None, **headers):
        return self.client.delete(self.url(path), **self.headers(token, **headers))


def error(response, status: int | None = None) -> list[dict]:
    """The error entries of a 2.3 error envelope (asserting its shape)."""
    if status is not None:
        assert response.status_code == status, (response.status_code, response.content)
    body = response.json()
    assert body["status"] == "error", body
    return body["errors"]


def single_error(response, status: int) -> dict:
    errors = error(response, status)
    assert len(errors) == 1, errors
    return errors[0]


def organization(name="ДКП «Книга»", identifier="00137256") -> dict:
    return {
        "name": name,
        "identifier": {"scheme": "UA-EDR", "id": identifier, "uri": "http://www.sc.gov.ua/"},
        "address": {
            "countryName": "Україна",
            "postalCode": "21100",
            "region": "м. Вінниця",
            "locality": "м. Вінниця",
            "streetAddress": "вул. Островського, 33",
        },
        "contactPoint": {"name": "Сергій Олексюк", "telephone": "+380 (432) 21-69-30"},
    }


def tender_data(now: datetime | None = None, **overrides) -> dict:
    """The body of OPA tender-post-attempt-json-data.http, periods a week and two ahead."""
    now = now or timezone.now()
    data = {
        "title": "футляри до державних нагород",
        "procurementMethodType": "belowThreshold",
        "value": {"amount": 500, "currency": "UAH"},
        "minimalStep": {"amount": 35, "currency": "UAH"},
        "enquiryPeriod": {"endDate": iso(now + timedelta(days=7))},
        "tenderPeriod": {"endDate": iso(now + timedelta(days=14))},
        "procuringEntity": {
            "name": "Державне управління справами",
            "kind": "general",
            "identifier": {"scheme": "UA-EDR", "id": "00037256", "uri": "http://www.dus.gov.ua/"},
            "address": {
                "countryName": "Україна",
                "postalCode": "01220",
                "region": "м. Київ",
                "locality": "м. Київ",
                "streetAddress": "вул. Банкова, 11, корпус 1",
            },
            "contactPoint": {"name": "Державне управління справами", "telephone": "0440000000"},
        },
        "items": [
            {
                "description": "футляри до державних нагород",
                "classification": {"scheme": "ДК021", "id": "44617100-9", "description": "Cartons"},
                "additionalClassifications": [
                    {"scheme": "ДКПП", "id": "17.21.1", "description": "папір і картон гофровані"}
                ],
                "unit": {"code": "44617100-9", "name": "item"},
                "quantity": 5,
            }
        ],
    }
    data.update(overrides)
    return data


def bid_data(amount=450, name="ДКП «Книга»", identifier="00137256") -> dict:
    return {"tenderers": [organization(name, identifier)], "value": {"amount": amount}}


class Clock:
    """The test's clock (time-machine, frozen): moves only when told."""

    def __init__(self, traveller):
        self.traveller = traveller
        self.traveller.move_to(timezone.now(), tick=False)

    def now(self) -> datetime:
        return timezone.now()

    def advance(self, **delta) -> None:
        self.traveller.shift(timedelta(**delta))

    def move_to(self, moment: datetime) -> None:
        self.traveller.move_to(moment, tick=False)


@dataclass
class Tender:
    """A tender made through the API: its id, owner token and (after a read) its data."""

    api: Api
    id: str
    token: str
    bids: list[tuple[str, str]] = field(default_factory=list)  # (bid id, bid token)

    @property
    def path(self) -> str:
        return f"/tenders/{self.id}"

    def read(self) -> dict:
        response = self.api.get(self.path)
        assert response.status_code == 200, response.content
        return response.json()["data"]

    def patch(self, data, token=None):
        return self.api.patch(self.path, data, token=token or self.token)

    def through_the_auction(self, clock: Clock) -> dict:
        """Past the end of tendering: the clock moved past every auction (our module's, in which
        nobody bids lower: the sealed prices win); the tender as read then."""
        data = self.read()
        while data["status"] == "active.auction":
            clock.move_to(parse_iso(data["next_check"]))
            data = self.read()
        return data

    def award(self, index: int = -1) -> dict:
        return self.read()["awards"][index]

    def decide(self, status: str, index: int = -1):
        award = self.award(index)
        return self.api.patch(
            f"{self.path}/awards/{award['id']}", {"status": status}, token=self.token
        )


def create_tender(api: Api, **overrides) -> Tender:
    response = api.post("/tenders", tender_data(**overrides))
    assert response.status_code == 201, response.content
    body = response.json()
    return Tender(api, body["data"]["id"], body["access"]["token"])


def open_for_bids(api: Api, clock: Clock, **overrides) -> Tender:
    """A tender in active.tendering: made now, clock moved past the end of enquiries."""
    tender = create_tender(api, **overrides)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    return tender


def place_bid(api: Api, tender: Tender, amount=450, **kwargs) -> tuple[str, str]:
    response = api.post(f"{tender.path}/bids", bid_data(amount, **kwargs))
    assert response.status_code == 201, response.content
    body = response.json()
    tender.bids.append((body["data"]["id"], body["access"]["token"]))
    return tender.bids[-1]


def in_qualification(
    api: Api, clock: Clock, amounts=(450, 400), bidder_api: Api | None = None, **overrides
) -> Tender:
    """A tender whose tendering closed with one bid per amount, and whose auction is over
    (nobody bid lower); the lowest has a pending award."""
    tender = open_for_bids(api, clock, **overrides)
    for number, amount in enumerate(amounts):
        place_bid(bidder_api or api, tender, amount, identifier=f"{number + 1:08d}")
        clock.advance(minutes=1)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    tender.through_the_auction(clock)
    return tender


# --- claims through the API -------------------------------------------------------------

CLAIM = {
    "title": "complaint title",
    "description": "complaint description",
    "author": organization("ДКП «Школяр»", "00137256"),
}


ANSWER = {
    "status": "answered",
    "resolutionType": "resolved",
    "tendererAction": "Виправлено неконкурентні умови",
    "resolution": "Виправлено неконкурентні умови",
}


class Claims:
    """A tender whose lowest bid's award was decided; bids were placed by broker2."""

    def __init__(self, api, api2, clock, decision="unsuccessful"):
        self.api, self.api2, self.clock = api, api2, clock
        self.tender = in_qualification(api, clock, amounts=(450, 400), bidder_api=api2)
        if decision:
            assert self.tender.decide(decision).status_code == 200
        self.award = self.tender.read()["awards"][0]
        self.path = f"{self.tender.path}/awards/{self.award['id']}/complaints"
        self.bid_token = self.tender.bids[1][1]  # the bid of that award

    def file(self, data=None, token=None, client=None):
        return (client or self.api2).post(
            self.path, data if data is not None else CLAIM, token=token or self.bid_token
        )

    def filed(self, **extra):
        response = self.file({**CLAIM, **extra})
        assert response.status_code == 201, response.content
        body = response.json()
        return body["data"], body["access"]["token"]

    def patch(self, complaint, data, token, client=None):
        return (client or self.api2).patch(f"{self.path}/{complaint['id']}", data, token=token)

    def owner_patch(self, complaint, data):
        return self.api.patch(f"{self.path}/{complaint['id']}", data, token=self.tender.token)


# --- lots through the API ---------------------------------------------------------------

FIRST, SECOND = "1" * 32, "2" * 32


def lot(lot_id: str, amount: float, step: float = 10, title: str = "") -> dict:
    return {
        "id": lot_id,
        "title": title or f"лот {lot_id[0]}",
        "value": {"amount": amount},
        "minimalStep": {"amount": step},
    }


def item(lot_id: str | None, description: str) -> dict:
    made = {
        "description": description,
        "classification": {"scheme": "ДК021", "id": "44617100-9", "description": "Cartons"},
        "unit": {"code": "H87", "name": "штука"},
        "quantity": 5,
    }
    if lot_id:
        made["relatedLot"] = lot_id
    return made


def two_lots(**overrides) -> dict:
    """A tender in two lots (300 and 200 UAH), an item in each."""
    return {
        "lots": [lot(FIRST, 300, 20), lot(SECOND, 200, 15)],
        "items": [item(FIRST, "футляри"), item(SECOND, "коробки")],
        **overrides,
    }


def offer(lot_id: str, amount: float) -> dict:
    return {"relatedLot": lot_id, "value": {"amount": amount}}


def lot_bid(*offers, identifier="00000001") -> dict:
    return {"tenderers": [organization(f"Учасник {identifier}", identifier)], "lotValues": offers}


def open_two_lots(api, clock, **overrides):
    tender = create_tender(api, **two_lots(**overrides))
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    return tender


def bid_on(api, tender, *offers, identifier="00000001") -> tuple[str, str]:
    response = api.post(f"{tender.path}/bids", lot_bid(*offers, identifier=identifier))
    assert response.status_code == 201, response.content
    body = response.json()
    tender.bids.append((body["data"]["id"], body["access"]["token"]))
    return tender.bids[-1]


def close_tendering(tender, clock) -> dict:
    """Past the end of tendering and of every auction: the tender as read then."""
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    return tender.through_the_auction(clock)


def awards_by_lot(data: dict) -> dict:
    by_lot = {}
    for award in data["awards"]:
        by_lot.setdefault(award["lotID"], []).append(award)
    return by_lot


def decide(api, tender, award_id: str, status: str):
    return api.patch(f"{tender.path}/awards/{award_id}", {"status": status}, token=tender.token)


def lot_statuses(data: dict) -> dict:
    return {item["id"]: item["status"] for item in data["lots"]}


def stand_still_end(tender):
    return max(
        parse_iso(award["complaintPeriod"]["endDate"])
        for award in tender.read()["awards"]
        if "endDate" in award["complaintPeriod"]
    )


def past_stand_still(tender, clock) -> None:
    clock.move_to(stand_still_end(tender) + timedelta(minutes=1))


def shortly_before_stand_still_ends(tender, clock) -> None:
    """An hour before the last claim window closes: an answer given now is still open when it
    closes, whatever weekend the window spans (it counts working days; an answer closes by
    itself three calendar days on)."""
    clock.move_to(stand_still_end(tender) - timedelta(hours=1))


def sign(api, tender, award_id: str):
    contract = next(c for c in tender.read()["contracts"] if c["awardID"] == award_id)
    return api.patch(
        f"{tender.path}/contracts/{contract['id']}", {"status": "active"}, token=tender.token
    )


def routes(prefix: str) -> list[str]:
    """Every path pattern of the URL conf under `prefix`, parameters as {name}."""
    found = []

    def walk(patterns, base):
        for pattern in patterns:
            text = base + str(pattern.pattern).lstrip("^").rstrip("$")
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, text)
            elif isinstance(pattern, URLPattern) and "<" in text:
                found.append("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", text))

    walk(get_resolver().url_patterns, "")
    return [route for route in found if route.startswith(prefix)]


def assert_kept_representations_are_current() -> None:
    """Every tender's kept representation (the public's 2.3 JSON, tenders/api/stored.py) is
    what rendering the tender now gives, unless a time-driven change is due (which the next
    read applies, emptying it)."""

    from django.test import RequestFactory

    from core.actors import Viewer
    from core.api.envelope import JSONRenderer
    from docservice import links
    from tenders.api.serializers import TenderOut
    from tenders.api.stored import PLACEHOLDER
    from tenders.models import Tender

    request = RequestFactory().get("/")
    context = {"request": request, "viewer": Viewer()}
    now = timezone.now()
    for tender in Tender.objects.exclude(public_text=""):
        if tender.is_due(now):
            continue
        live = TenderOut(Tender.objects.current(tender.pk, viewer=None), context=context).data
        kept = tender.public_text.replace(PLACEHOLDER, links.base_url(request))
        assert kept == JSONRenderer().render(live).decode(), tender.tender_id


def tell_every_change() -> None:
    """The background's step (Tender.objects.tell_untold), until open data is told of every
    change."""
    from tenders.models import Tender

    while Tender.objects.tell_untold():
        pass


def assert_releases_are_current() -> None:
    """Once open data is told of every change (the background's step), every public tender has
    its OCDS releases (opendata/releases.py), and a tender changed since its latest one changed
    nothing the public sees (unless a time-driven change is due): no change forgot to tell."""
    import json

    from django.test import RequestFactory

    from core.actors import Viewer
    from core.api.envelope import JSONRenderer
    from docservice import links
    from opendata import ocds
    from opendata.models import Release
    from opendata.releases import digest_of
    from tenders.api.serializers import TenderOut
    from tenders.models import Tender

    request = RequestFactory().get("/")
    context = {"request": request, "viewer": Viewer()}
    tell_every_change()
    now = timezone.now()
    latest = {}
    for release in Release.objects.order_by("tender_modified").only(
        "tender", "tender_modified", "digest"
    ):
        latest[release.tender_id] = release
    public = Tender.objects.filter(published__isnull=False).exclude(mode="test")
    for tender in public.defer("data", "public_text"):
        release = latest.get(tender.pk)
        assert release is not None, f"{tender.tender_id} has no release"
        if release.tender_modified == tender.date_modified or tender.is_due(now):
            continue
        live = TenderOut(Tender.objects.current(tender.pk, viewer=None), context=context).data
        public = json.loads(JSONRenderer().render(live))
        told = ocds.release_of(public, ocds.amendments_of(public))
        assert digest_of(told, links.base_url(request)) == release.digest, (
            f"{tender.tender_id} changed what the public sees without a release"
        )


class Crawler:
    """A feed's crawler: each poll follows next_page from where the last stopped to the empty
    page at the head. `listed`: the page's list (a release package's is "releases")."""

    def __init__(self, api, path: str, listed: str = "data"):
        self.api, self.head, self.listed = api, path, listed

    def poll(self) -> list[str]:
        """The ids seen on the way to the head."""
        seen = []
        while True:
            body = self.api.get(self.head).json()
            if not body[self.listed]:
                return seen
            seen += [item["id"] for item in body[self.listed]]
            self.head = body["next_page"]["path"]


class HeldOpen:
    """`change()` made in a thread of its own, in a transaction held open until `commit()`:
    a change stamped now that commits later (each change's answer must be 200)."""

    def __init__(self, change):
        import threading

        self.made, self.released, self.outcome = threading.Event(), threading.Event(), {}
        self.thread = threading.Thread(target=self._write, args=(change,))
        self.thread.start()
        assert self.made.wait(timeout=30)

    def _write(self, change):
        from django.db import connection, transaction

        try:
            with transaction.atomic():
                self.outcome["status"] = change().status_code
                self.made.set()
                self.released.wait(timeout=30)
        finally:
            self.made.set()
            connection.close()

    def commit(self) -> None:
        self.released.set()
        self.thread.join(timeout=30)
        assert self.outcome["status"] == 200


def settings_for_tests(documents_folder) -> dict:
    """The settings every test runs under (each test's own fixture, or a module's world built
    once, tests/fuzz/world.py)."""
    return {
        # Rate-limit counters and sign-in failures live in a cache of the test's own, emptied
        # for each test (never a developer's Redis, which clearing would wipe).
        "CACHES": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
        # Tests move a frozen clock, under which a change need not move the registry's newest
        # stamp: searches are not kept unless a test asks (tests/portal/test_public_pages.py).
        "SEARCH_RESULTS_SECONDS": 0,
        "SANDBOX_MODE": False,
        "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"],
        # Mail is sent as its change commits (tests/portal/test_mail_queue.py queues it in the
        # database, as in production, and runs the worker).
        "TASKS": {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}},
        # Tests do not run collectstatic, which the manifest storage needs.
        "STORAGES": {
            **django_settings.STORAGES,
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
            # Each test keeps document content in a folder of its own.
            "documents": {
                "BACKEND": "docservice.storage.AtomicFileSystemStorage",
                "OPTIONS": {"location": str(documents_folder)},
            },
        },
    }
