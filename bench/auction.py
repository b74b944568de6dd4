"""`make bench-auction`: what one of our module's auctions costs while it is held, as its
watchers renew its page and as the bidder whose turn it is offers lower prices, against the bare
floors (bench/floor) measured in the same rounds, as `make bench` measures: a read against the
read floor, a write against the write floor (issue 31's rows: a watcher's renewal at least 0.8
of the floor, an offer at least 0.25). The offer is also shown against the read floor.

An auction of many bidders is made to run now, in sandbox quick mode (it starts as tendering
ends, and lasts hours with this many bidders): the tender is written through the model methods
with the clock moved, tendering ending just before the run. The write floor answers a claim of a
tender built as `make bench` builds its registry (bench/build.py). The page and the floors are
served by one gunicorn sync worker each, pinned to CPU 0; this process, on CPU 1, sends one
request at a time. Each round measures the floors, a watcher's renewal (anonymous, htmx: the
shared cache's kept state) and an offer (the bidder whose turn it is, by its participationUrl, a
step below its price each time), BENCH_SECONDS each, in a shuffled order; "× floor" is the rate
divided by its floor's in that round. A benchmark, not a test: it prints the table (also
build/bench-auction.md).
"""

import json
import os
import random
import re
import statistics
import sys
import time
from datetime import timedelta
from http.client import HTTPConnection

from bench.run import READ_FLOOR, WRITE_FLOOR, percentile, send
from bench.sides import ROOT, Server, Side, admin, basic

# (nine rounds: an offer waits on the disk's flush, which this shared machine makes noisy)
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "9"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "2"))
BIDDERS = 60
DATABASE = "bench_auction"
# The first turn starts this long after the run's tender is made (its first pause is 300 s).
TURNS_FROM = timedelta(seconds=20)
WATCHER, OFFER = "watcher's renewal", "offer"
# Each row: a request and the floor it is measured against (a read against the read floor, a
# write against the write floor, as `make bench` measures them; the offer also against the read
# floor).
ROWS = [(WATCHER, READ_FLOOR), (OFFER, WRITE_FLOOR), (OFFER, READ_FLOOR)]


def setup() -> None:
    """Inside the side's process: the tender, its bids, its auction running; prints what the
    requests need."""
    import django

    django.setup()
    import time_machine
    from django.test.utils import override_settings
    from django.utils import timezone

    from bench.build import party, tender_body
    from core.actors import Actor, Role
    from core.models import Broker
    from core.schema import iso
    from tenders.models import Tender
    from tenders.models.auction import FIRST_PAUSE, participation_token

    brokers = []
    for number in range(BIDDERS // 10 + 1):  # (a broker places at most 10 bids on a tender)
        broker = Broker(name=f"bench{number}")
        broker.set_key(f"bench{number}-" + "b" * 40)
        broker.save()
        brokers.append(broker)
    broker = brokers[0]
    real_now = timezone.now()
    first_turn = real_now + TURNS_FROM
    tender_end = first_turn - FIRST_PAUSE
    with time_machine.travel(tender_end - timedelta(days=3), tick=False) as traveller:
        data = {
            **tender_body(0, timezone.now()),
            "value": {"amount": 10_000_000, "currency": "UAH"},
            "minimalStep": {"amount": 1, "currency": "UAH"},
            "submissionMethodDetails": "quick",
            "enquiryPeriod": {"endDate": iso(timezone.now() + timedelta(days=1))},
            "tenderPeriod": {"endDate": iso(tender_end)},
        }
        tender, _token = Tender.objects.register(
            by=Actor(Role.AUTHENTICATED, broker=broker), data=data
        )
        traveller.move_to(tender.tender_start + timedelta(hours=1))
        for n in range(BIDDERS):
            tender.place_bid(
                by=Actor(Role.AUTHENTICATED, broker=brokers[1 + n // 10]),
                data={
                    "tenderers": [party(f"Учасник {n}", f"{n + 1:08d}")],
                    "value": {"amount": 9_000_000 + 1000 * n},
                },
            )
        traveller.move_to(tender_end + timedelta(seconds=1))
        tender = Tender.objects.current(tender.pk, viewer=None)
    # The write floor's claim: a tender of `make bench`'s registry (its own story, days ago).
    from bench.build import BIDDER_BROKER_KEY, BROKER_KEY, QUIET, build_one
    from bench.build import broker as bench_broker

    floor_brokers = (
        bench_broker("bench", BROKER_KEY),
        bench_broker("bench-bidder", BIDDER_BROKER_KEY),
    )
    with override_settings(MAILERS=QUIET), time_machine.travel(real_now, tick=False) as traveller:
        claimed = build_one(0, floor_brokers, real_now.replace(microsecond=0), traveller)
    auction = tender.auctions.get()
    order = sorted(auction.sealed, key=lambda b: auction.sealed[b]["amount"], reverse=True)
    print(
        json.dumps(
            {
                "tender": tender.pk,
                "floor_write": [claimed["tender"], claimed["claims"]["answered"]["id"], BROKER_KEY],
                "first_turn": (auction.start + FIRST_PAUSE).timestamp(),
                "turns": [
                    [
                        bid_id,
                        participation_token(auction.pk, bid_id),
                        auction.sealed[bid_id]["amount"],
                    ]
                    for bid_id in order
                ],
            }
        )
    )


def csrf(port: int, path: str) -> tuple[str, str]:
    """The cookie and the form's token a browser would send with a form from `path`."""
    connection = HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read().decode()
    cookie = response.getheader("Set-Cookie", "").split(";")[0]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)[1]
    connection.close()
    return cookie, token


def requests(story: dict, port: int) -> dict:
    """name -> a function giving (method, path, headers, body) for the next request."""
    page = f"/auctions/{story['tender']}/"
    prices = {bid_id: amount for bid_id, _token, amount in story["turns"]}
    cookie, csrf_token = csrf(port, page)

    def watcher():
        return "GET", page, {"HX-Request": "true"}, None

    def offer():
        turn = int((time.time() - story["first_turn"]) // 120)
        bid_id, bidder_token, _amount = story["turns"][turn % len(story["turns"])]
        prices[bid_id] -= 1
        form = f"amount={prices[bid_id]:.2f}&csrfmiddlewaretoken={csrf_token}"
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
        return "POST", f"{page}?bidder={bid_id}:{bidder_token}", headers, form

    return {WATCHER: watcher, OFFER: offer}


def main() -> None:
    os.sched_setaffinity(0, {1})
    side = Side("now", ROOT)
    admin(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    admin(f"CREATE DATABASE {DATABASE}")
    side.run(["manage.py", "migrate", "--noinput", "-v0"], DATABASE)
    side.run(["manage.py", "collectstatic", "--noinput", "-v0"], DATABASE)
    story = json.loads(side.run(["-m", "bench.auction", "setup"], DATABASE, SANDBOX_MODE="1"))
    # (one bidder offers thousands of times in a turn here: measured, not bounded)
    server = side.server(DATABASE, SANDBOX_MODE="1", AUCTION_OFFERS_PER_TURN="1000000")
    floor = Server.floor(DATABASE)
    floor_tender, floor_claim, floor_key = story["floor_write"]
    answer = json.dumps({"data": {"status": "answered", "resolution": "Вимогу задоволено."}})
    floor_headers = {"Authorization": basic(floor_key), "Content-Type": "application/json"}
    try:
        plan = {name: (server.port, make) for name, make in requests(story, server.port).items()}
        plan[READ_FLOOR] = (floor.port, lambda: ("GET", f"/read/{story['tender']}", {}, None))
        plan[WRITE_FLOOR] = (
            floor.port,
            lambda: ("PATCH", f"/write/{floor_tender}/{floor_claim}", floor_headers, answer),
        )
        while time.time() < story["first_turn"] + 1:
            time.sleep(0.5)
        results = {name: {"rates": [], "latencies": [], "statuses": set()} for name in plan}
        ratios = {row: [] for row in ROWS}
        for number in range(ROUNDS):
            names = list(plan)
            random.shuffle(names)
            rates = {}
            for name in names:
                port, make = plan[name]
                count, spent, end = 0, 0.0, time.perf_counter() + SECONDS
                while (start := time.perf_counter()) < end:
                    status = send(port, make())
                    took = time.perf_counter() - start
                    results[name]["latencies"].append(took)
                    results[name]["statuses"].add(status)
                    count, spent = count + 1, spent + took
                rates[name] = count / spent
                results[name]["rates"].append(rates[name])
            for name, against in ROWS:
                ratios[name, against].append(rates[name] / rates[against])
            print(f"  round {number + 1} of {ROUNDS} done", flush=True)
    finally:
        server.stop()
        floor.stop()
    lines = [
        f"Auction of {BIDDERS} bidders, held now ({ROUNDS} rounds of {SECONDS} s each):",
        "",
        "| request | against | × floor (median, spread) | requests/s | p50 ms | answers |",
        "|---|---|---|---|---|---|",
    ]
    for name, against in [(READ_FLOOR, READ_FLOOR), (WRITE_FLOOR, WRITE_FLOOR), *ROWS]:
        result, row = results[name], ratios.get((name, against), [1.0])
        lines.append(
            f"| {name} | {against} "
            f"| {statistics.median(row):.2f} ({min(row):.2f}–{max(row):.2f}) "
            f"| {statistics.median(result['rates']):.0f} "
            f"| {percentile(result['latencies'], 0.5) * 1000:.1f} "
            f"| {', '.join(str(s) for s in sorted(result['statuses']))} |"
        )
    report = "\n".join(lines)
    print(report)
    out = ROOT / "build" / "bench-auction.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(report + "\n")


if __name__ == "__main__":
    setup() if sys.argv[1:] == ["setup"] else main()
