"""The mixed load of `make cluster-test`, through the balancer: brokers writing (tenders, their
changes, documents, bids that take tenders to their auctions) and reading what they just wrote,
a crawler of the tenders' feed, visitors reading and searching. Every answer is counted by its
kind; every write that was acknowledged is remembered, to be looked for at the end
(cluster/verdict.py)."""

import itertools
import json
import random
import threading
import time
import uuid
from base64 import b64encode
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.client import HTTPConnection
from urllib.parse import quote, urlsplit

API = "/api/2.3"
# A tender's enquiries and tendering, in seconds from its creation (sandbox: a day is a minute).
ENQUIRIES, TENDERING = 4, 14


class Refused(Exception):
    """A request that got no answer: its kind (refused, cut, timed out)."""


@dataclass
class Answer:
    status: int
    body: bytes

    def json(self) -> dict:
        return json.loads(self.body)


class Http:
    """One request per connection, counting every answer by its kind."""

    def __init__(self, base: str, tally: Counter, lock: threading.Lock):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port
        self.tally, self.lock = tally, lock
        self.failures: list[tuple[float, str]] = []  # (when, kind): 5xx, and no answer

    def call(self, method, path, body=None, key=None, content_type="application/json") -> Answer:
        headers = {}
        if body is not None:
            headers["Content-Type"] = content_type
            if not isinstance(body, bytes):
                body = json.dumps(body).encode()
        if key:
            headers["Authorization"] = "Basic " + b64encode(f"{key}:".encode()).decode()
        connection = HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            answer = Answer(response.status, response.read())
        except ConnectionRefusedError:
            self.count("no answer: connection refused")
            raise Refused("refused") from None
        except TimeoutError:
            self.count("no answer: timed out")
            raise Refused("timed out") from None
        except (ConnectionError, OSError, ValueError) as error:  # (ValueError: a cut status line)
            self.count(f"no answer: connection cut ({type(error).__name__})")
            raise Refused("cut") from None
        finally:
            connection.close()
        self.count(f"{answer.status}")
        return answer

    def count(self, kind: str) -> None:
        with self.lock:
            self.tally[kind] += 1
            if not kind.isdigit() or kind.startswith("5"):
                self.failures.append((time.monotonic(), kind))


def now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def tender_body(number: int, broker: str) -> dict:
    created = now()
    entity = {
        "name": f"Лікарня {broker}", "kind": "general",
        "identifier": {"scheme": "UA-EDR", "id": f"0199{number % 10000:04d}"},
        "address": {"countryName": "Україна", "locality": "м. Київ"},
        "contactPoint": {"name": "Олег Мельник", "telephone": "+380445550101"},
    }  # fmt: skip
    return {"data": {
        "title": f"Папір офісний А4, партія {number}",
        "procurementMethodDetails": "quick, accelerator=1440",
        "submissionMethodDetails": "quick",
        "value": {"amount": 50000, "currency": "UAH"},
        "minimalStep": {"amount": 500, "currency": "UAH"},
        "enquiryPeriod": {"endDate": stamp(created + timedelta(seconds=ENQUIRIES))},
        "tenderPeriod": {"endDate": stamp(created + timedelta(seconds=TENDERING))},
        "procuringEntity": entity,
        "items": [{
            "description": "Папір офісний А4",
            "classification": {"scheme": "ДК021", "id": "30197630-1", "description": "Папір"},
            "unit": {"code": "H87", "name": "пачка"}, "quantity": 100,
        }],
    }}  # fmt: skip


def bid_body(broker: str, number: int) -> dict:
    return {"data": {
        "value": {"amount": 40000 + random.randrange(0, 9000, 100)},
        "tenderers": [{
            "name": f"ТОВ «Постачальник {broker}»",
            "identifier": {"scheme": "UA-EDR", "id": f"3{number:07d}"},
            "address": {"countryName": "Україна"},
            "contactPoint": {"name": "Ірина Бондар", "telephone": "+380441112233"},
        }],
    }}  # fmt: skip


def multipart(name: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: application/pdf\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


@dataclass
class Written:
    """What the cluster acknowledged: looked for at the end."""

    tenders: dict = field(default_factory=dict)  # id -> {"broker", "token", "description"}
    documents: list = field(default_factory=list)  # (tender id, document id, content)
    bids: list = field(default_factory=list)  # (tender id, bid id, token, broker)
    stale_own_reads: int = 0
    own_reads: int = 0


class Load:
    def __init__(self, cluster, seconds: float):
        self.cluster, self.seconds = cluster, seconds
        self.tally, self.lock = Counter(), threading.Lock()
        self.http = Http(cluster.url, self.tally, self.lock)
        self.written = Written()
        self.open_for_bids: list = []  # (tender id, tendering from, tendering until, broker)
        self.seen = Counter()  # (id, dateModified as a moment) -> times the crawler saw it
        self.crawler_head = f"{API}/tenders"
        self.stopping = threading.Event()
        self.numbers = itertools.count(1)

    # --- brokers ------------------------------------------------------------------------------

    def broker(self, name: str) -> None:
        key = self.cluster.keys[name]
        while not self.stopping.is_set():
            try:
                self.broker_round(name, key)
            except Refused:
                time.sleep(0.2)
            time.sleep(0.1)

    def broker_round(self, name: str, key: str) -> None:
        number = next(self.numbers)
        created = self.http.call("POST", f"{API}/tenders", tender_body(number, name), key)
        if created.status != 201:
            return
        body = created.json()
        tender_id, token = body["data"]["id"], body["access"]["token"]
        data = body["data"]
        with self.lock:
            self.written.tenders[tender_id] = {"broker": name, "token": token, "description": ""}
            period = [
                datetime.fromisoformat(data["tenderPeriod"][end])
                for end in ("startDate", "endDate")
            ]
            self.open_for_bids.append((tender_id, *period, name))
        description = f"Партія {number}: {uuid.uuid4().hex[:8]}"
        changed = self.http.call(
            "PATCH", f"{API}/tenders/{tender_id}?acc_token={token}",
            {"data": {"description": description}}, key,
        )  # fmt: skip
        if changed.status == 200:
            with self.lock:
                self.written.tenders[tender_id]["description"] = description
            self.read_own_write(key, tender_id, description)
        if number % 2:
            content = f"Технічне завдання {number} {uuid.uuid4().hex}".encode()
            upload, content_type = multipart("ТЗ.pdf", content)
            added = self.http.call(
                "POST", f"{API}/tenders/{tender_id}/documents?acc_token={token}", upload, key,
                content_type,
            )  # fmt: skip
            if added.status == 201:
                with self.lock:
                    self.written.documents.append((tender_id, added.json()["data"]["id"], content))
        self.bid_on_others(name, key)

    def read_own_write(self, key: str, tender_id: str, description: str) -> None:
        """A broker reads what it has just written: the router sends it to the primary."""
        read = self.http.call("GET", f"{API}/tenders/{tender_id}", key=key)
        with self.lock:
            self.written.own_reads += 1
            if read.status != 200 or read.json()["data"].get("description") != description:
                self.written.stale_own_reads += 1

    def bid_on_others(self, name: str, key: str) -> None:
        moment = now()
        with self.lock:
            open_now = [
                entry for entry in self.open_for_bids
                if entry[3] != name and entry[1] <= moment < entry[2]
            ]  # fmt: skip
            bid_on = {tender for tender, _, _, broker in self.written.bids if broker == name}
        for tender_id, _start, end, _owner in open_now:
            if tender_id in bid_on or now() + timedelta(seconds=2) >= end:
                continue
            placed = self.http.call(
                "POST", f"{API}/tenders/{tender_id}/bids", bid_body(name, next(self.numbers)), key
            )
            if placed.status == 201:
                body = placed.json()
                with self.lock:
                    self.written.bids.append(
                        (tender_id, body["data"]["id"], body["access"]["token"], name)
                    )

    # --- the crawler and the visitors -----------------------------------------------------------

    def crawl(self, until_empty: bool = False) -> None:
        """Follow the feed's pages from where the crawler stopped; at the head, wait and look
        again (or return, `until_empty`)."""
        while until_empty or not self.stopping.is_set():
            try:
                page = self.http.call("GET", self.crawler_head)
            except Refused:
                time.sleep(0.5)
                continue
            if page.status != 200:
                time.sleep(0.5)
                continue
            body = page.json()
            if not body["data"]:
                if until_empty:
                    return
                time.sleep(0.5)
                continue
            with self.lock:
                for item in body["data"]:
                    self.seen[(item["id"], datetime.fromisoformat(item["dateModified"]))] += 1
            self.crawler_head = body["next_page"]["path"]

    def visitor(self) -> None:
        pages = [
            lambda tender: "/",
            lambda tender: f"/?q={quote('папір')}",
            lambda tender: f"/search.atom?q={quote('папір')}",
            lambda tender: f"/tenders/{tender}/",
            lambda tender: f"{API}/tenders/{tender}",
            lambda tender: f"{API}/tenders/{tender}?opt_schema=ocds",
            lambda tender: f"{API}/releases",
        ]
        while not self.stopping.is_set():
            with self.lock:
                known = list(self.written.tenders)
            if not known:
                time.sleep(0.2)
                continue
            try:
                self.http.call("GET", random.choice(pages)(random.choice(known)))
            except Refused:
                time.sleep(0.2)

    def start(self, brokers: list[str], visitors: int) -> list[threading.Thread]:
        self.actors = (
            f"{len(brokers)} brokers writing and reading back, a crawler of the tenders' feed, "
            f"{visitors} visitors reading and searching the portal, the API and open data"
        )
        jobs = [(self.broker, (name,)) for name in brokers]
        jobs += [(self.crawl, ())] + [(self.visitor, ())] * visitors
        threads = [threading.Thread(target=job, args=args, daemon=True) for job, args in jobs]
        for thread in threads:
            thread.start()
        return threads
