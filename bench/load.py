"""`make load`: the largest requests the limits allow, and what the rest of the traffic sees
while one broker sends the largest tenders the API takes, on gunicorn with four sync workers over
PostgreSQL, counting in Redis, on loopback.

First, one at a time: the largest tender posted, changed whole, and the read that closes the
tendering of the tender with the most work (bench/largest.py: MAX_ITEMS items, MAX_LOTS lots,
MAX_BIDS bids for every lot), each against a read by id in the same run.

Readers (LOAD_READERS threads, each on its own connection, one request at a time) read tenders
by id and feed pages; the heavy broker (LOAD_HEAVY threads in a process of its own, one key)
posts tenders of MAX_ITEMS items each about as large as the body limit allows, again and again,
and retries a refusal at once (the worst client, not a polite one). Each round measures, for
LOAD_SECONDS each: the readers alone (the floor), the readers beside the heavy broker with
API_CONCURRENT_WRITES=2 (as deployed), and beside it with the bound taken away (0). The table
gives the readers' latency in each, the median of the rounds with their spread, and how it
compares with the floor of the same round (this machine is shared and noisy: only ratios within
a round mean much). It is a benchmark, not a test: nothing here fails a build.
"""

import json
import multiprocessing
import os
import random
import statistics
import subprocess
import threading
import time
from http.client import HTTPConnection

from bench.sides import PYTHON, ROOT, Server, Side, admin, basic, environment

ROUNDS = int(os.environ.get("LOAD_ROUNDS", "3"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "10"))
READERS = int(os.environ.get("LOAD_READERS", "4"))
HEAVY = int(os.environ.get("LOAD_HEAVY", "8"))
WORKERS = int(os.environ.get("LOAD_WORKERS", "4"))
DATABASE = f"load_{os.getpid()}"
HEAVY_KEY = "heavy-broker-key-" + "h" * 32
READER_KEY = "reader-broker-key-" + "r" * 32
REPORT = ROOT / "build" / "load.md"
FLOOR = "GET a small tender by id (kept): the floor"
SMALL = json.dumps(
    {
        "data": {
            "title": "Папір офісний А4",
            "value": {"amount": 50000, "currency": "UAH"},
            "minimalStep": {"amount": 500, "currency": "UAH"},
            "enquiryPeriod": {"endDate": "2030-01-10T12:00:00+02:00"},
            "tenderPeriod": {"endDate": "2030-01-20T12:00:00+02:00"},
            "procuringEntity": {
                "name": "Лікарня", "kind": "general",
                "identifier": {"scheme": "UA-EDR", "id": "01993913"},
                "address": {"countryName": "Україна", "locality": "м. Київ"},
                "contactPoint": {"name": "Олег Мельник", "telephone": "+380445550101"},
            },
            "items": [{
                "description": "Папір офісний А4",
                "classification": {"scheme": "ДК021", "id": "30197630-1", "description": "Папір"},
                "unit": {"code": "H87", "name": "пачка"}, "quantity": 100,
            }],
        }
    }
)  # fmt: skip


def serve(concurrent_writes: int) -> Server:
    return Side("here", ROOT).server(
        DATABASE,
        workers=WORKERS,
        ROOT_URLCONF="portal.urls",
        API_CONCURRENT_WRITES=str(concurrent_writes),
        STATEMENT_TIMEOUT_SECONDS="10",
    )


def request(connection, method, path, body=None, key=None):
    headers = {"Content-Type": "application/json"} if body else {}
    if key:
        headers["Authorization"] = basic(key)
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    return answer.status, answer.read()


def prepare(port: int) -> list[str]:
    connection = HTTPConnection("127.0.0.1", port, timeout=60)
    ids = []
    for _ in range(20):
        status, body = request(connection, "POST", "/api/2.3/tenders", SMALL, READER_KEY)
        assert status == 201, body
        ids.append(json.loads(body)["data"]["id"])
    for tender_id in ids:  # read once: what is measured is a read again, as most are
        request(connection, "GET", f"/api/2.3/tenders/{tender_id}")
    return ids


def read_for(port: int, ids: list[str], until: float, latencies: list[float], seed: int) -> None:
    connection = HTTPConnection("127.0.0.1", port, timeout=120)
    chance = random.Random(seed)
    while time.monotonic() < until:
        path = (
            f"/api/2.3/tenders/{chance.choice(ids)}"
            if chance.random() < 0.8
            else "/api/2.3/tenders?limit=100"
        )
        started = time.perf_counter()
        status, _ = request(connection, "GET", path)
        latencies.append((time.perf_counter() - started) * 1000 if status == 200 else -1.0)


def heavy(port: int, body: bytes, until: float, answers) -> None:
    """The heavy broker: HEAVY threads posting the largest tender until `until`."""

    def post():
        connection = HTTPConnection("127.0.0.1", port, timeout=120)
        while time.monotonic() < until:
            status, _ = request(connection, "POST", "/api/2.3/tenders", body, HEAVY_KEY)
            answers.append(status)

    threads = [threading.Thread(target=post) for _ in range(HEAVY)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def phase(port: int, ids: list[str], body: bytes | None) -> dict:
    manager = multiprocessing.Manager()
    answers = manager.list()
    start = time.monotonic() + (1.0 if body else 0.0)  # (the heavy broker gets going first)
    until = start + SECONDS
    sender = None
    if body:
        sender = multiprocessing.Process(target=heavy, args=(port, body, until, answers))
        sender.start()
        time.sleep(max(0.0, start - time.monotonic()))
    per_reader = [[] for _ in range(READERS)]
    readers = [
        threading.Thread(target=read_for, args=(port, ids, until, latencies, seed))
        for seed, latencies in enumerate(per_reader)
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    if sender:
        sender.join()
    answered = [value for values in per_reader for value in values]
    latencies = sorted(value for value in answered if value >= 0)
    statuses = list(answers)
    return {
        "reads": len(latencies),
        "failed reads": len(answered) - len(latencies),
        "p50": statistics.median(latencies),
        "p99": latencies[int(len(latencies) * 0.99) - 1],
        "max": latencies[-1],
        "stored": statuses.count(201),
        "refused": statuses.count(429),
        "other": len(statuses) - statuses.count(201) - statuses.count(429),
    }


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


def largest_requests(port: int, body: bytes, worst: str) -> list[tuple[str, float, int]]:
    """(what, ms, answer's KiB) of the largest requests, one at a time, after a read by id of
    a small tender (the floor: a kept representation answered as it is)."""
    connection = HTTPConnection("127.0.0.1", port, timeout=120)
    measured = []

    def timed(what, method, path, sent=None, key=None, expected=200):
        started = time.perf_counter()
        status, answer = request(connection, method, path, sent, key)
        measured.append((what, (time.perf_counter() - started) * 1000, len(answer) // 1024))
        assert status == expected, (what, status, answer[:300])
        return json.loads(answer)

    small = json.loads(request(connection, "POST", "/api/2.3/tenders", SMALL, READER_KEY)[1])
    request(connection, "GET", f"/api/2.3/tenders/{small['data']['id']}")  # (kept from now on)
    timed(FLOOR, "GET", f"/api/2.3/tenders/{small['data']['id']}")
    created = timed("POST the largest tender", "POST", "/api/2.3/tenders", body, HEAVY_KEY, 201)
    tender = f"/api/2.3/tenders/{created['data']['id']}"
    items = [{**item, "quantity": 7} for item in created["data"]["items"]]
    change = json.dumps({"data": {"items": items}}, ensure_ascii=False).encode()
    path = f"{tender}?acc_token={created['access']['token']}"
    timed("PATCH all its items", "PATCH", path, change, HEAVY_KEY)
    timed("GET it, the first read after the change", "GET", tender)
    timed("GET it again (kept)", "GET", tender)
    timed("GET that closes the worst tendering", "GET", f"/api/2.3/tenders/{worst}")
    timed("GET that tender again (kept)", "GET", f"/api/2.3/tenders/{worst}")
    return measured


def main() -> None:
    admin(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    admin(f"CREATE DATABASE {DATABASE}")
    env = environment(DATABASE, ROOT_URLCONF="portal.urls")

    def manage(*args) -> str:
        done = subprocess.run(
            [PYTHON, *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    manage("manage.py", "migrate", "--noinput", "-v0")
    manage("manage.py", "add_broker", "heavy", "--key", HEAVY_KEY)
    manage("manage.py", "add_broker", "reader", "--key", READER_KEY)
    body_file = ROOT / "build" / "largest-tender.json"
    body_file.parent.mkdir(exist_ok=True)
    manage("-m", "bench.largest", "body", str(body_file))
    body = body_file.read_bytes()
    print(f"the largest tender: {len(body) / 1024 / 1024:.2f} MiB; building the worst tendering...")
    worst = manage("-m", "bench.largest", "worst", HEAVY_KEY).splitlines()[-1]
    results = {"alone": [], "bounded": [], "unbounded": []}
    ids = None
    try:
        server = serve(concurrent_writes=2)
        try:
            largest = largest_requests(server.port, body, worst)
        finally:
            server.stop()
        for round_number in range(ROUNDS):
            for bounded in (True, False):
                server = serve(concurrent_writes=2 if bounded else 0)
                try:
                    ids = ids or prepare(server.port)
                    if bounded:
                        results["alone"].append(phase(server.port, ids, None))
                    key = "bounded" if bounded else "unbounded"
                    results[key].append(phase(server.port, ids, body))
                finally:
                    server.stop()
            print(f"round {round_number + 1} of {ROUNDS} done")
    finally:
        admin(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    print(table(largest, results))


def table(largest: list, results: dict) -> str:
    floor = next(ms for what, ms, _ in largest if what == FLOOR)
    one_at_a_time = [
        "| request, one at a time | ms | × a read by id | answer KiB |",
        "|---|---|---|---|",
        *(f"| {what} | {ms:.1f} | {ms / floor:.0f} | {kib} |" for what, ms, kib in largest),
    ]
    rows = [
        "| readers | reads/s | p50 ms | p99 ms | max ms | p99 ÷ alone | heavy tenders stored | "
        "refused 429 | other answers |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    labels = {
        "alone": "alone (the floor)",
        "bounded": "beside the heavy broker, API_CONCURRENT_WRITES=2",
        "unbounded": "beside the heavy broker, no bound (0)",
    }
    for key, label in labels.items():
        runs = results[key]
        ratios = [
            run["p99"] / alone["p99"] for run, alone in zip(runs, results["alone"], strict=True)
        ]
        failed = sum(run["failed reads"] for run in runs)
        rows.append(
            f"| {label}{f' ({failed} reads failed)' if failed else ''} | "
            f"{spread([r['reads'] / SECONDS for r in runs])} | "
            f"{spread([r['p50'] for r in runs])} | {spread([r['p99'] for r in runs])} | "
            f"{spread([r['max'] for r in runs])} | {spread(ratios)} | "
            f"{sum(r['stored'] for r in runs)} | {sum(r['refused'] for r in runs)} | "
            f"{sum(r['other'] for r in runs)} |"
        )
    text = (
        "\n".join(one_at_a_time)
        + "\n\n"
        + f"{ROUNDS} rounds of {SECONDS:.0f} s per phase; {WORKERS} gunicorn workers; {READERS} "
        f"readers; the heavy broker on {HEAVY} connections. Medians of the rounds (min–max).\n\n"
        + "\n".join(rows)
        + "\n"
    )
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(text)
    return text


if __name__ == "__main__":
    main()
