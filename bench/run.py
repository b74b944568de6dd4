"""`make bench`: the project's reads and writes measured against a bare floor, at two registry
sizes, side by side with the code of an earlier commit.

For each size and each side (the code here, and the code of BENCH_BEFORE checked out in a
worktree under build/): the registry is built by that side's code (bench/build.py through the
model methods, then copied in SQL by bench/multiply.py; both kept as template databases until
their code or the migrations change) and served by one gunicorn sync worker pinned to CPU 0;
this process, pinned to CPU 1, sends one request at a time. The floors are a Django project of
their own (bench/floor: no middleware, no app but the one row the query needs) served by the
same gunicorn the same way: a read of one tender row by primary key, and a claim's answer as
plain SQL through psycopg. Each round measures every endpoint of both sides and the floors for
BENCH_SECONDS each, in a shuffled order; an endpoint's "× floor" is its rate divided by the
floor's in the same round (reads by the read floor's, writes by the write floor's), so the
noise of a shared machine cancels out. The table gives the median over the rounds and their
spread, the 100k/1k ratio of the cost relative to the floor, the queries per request, the
workers' memory, and the chronograph's rate, for both sides.

It is a benchmark, not a test: nothing here fails a build. PostgreSQL only (BENCH_DATABASE_URL,
default postgres://postgres@127.0.0.1:5432/postgres, names the server).
"""

import hashlib
import json
import os
import random
import statistics
import time
from http.client import HTTPConnection

import psycopg

from bench.sides import ROOT, Server, Side, basic, database_url, registry_keys

SIZES = [int(size) for size in os.environ.get("BENCH_SIZES", "1000,100000").split(",")]
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.5"))
# The code measured beside this one: the last commit before the domain was made plain Django
# (its speed machinery woven into the models). Empty: this code alone.
BEFORE = os.environ.get("BENCH_BEFORE", "2e640e6")


# --- the requests ------------------------------------------------------------------------


class Registry:
    """Ids and tokens of the registry being measured: tender n's copy k is found by the same
    mapping as bench/multiply.py."""

    COUNTED = 10  # claims to answer kept for counting queries, apart from the timed ones

    def __init__(self, keys: dict, size: int, *, counting: bool = False):
        self.tenders = keys["tenders"]
        self.copies = size // len(self.tenders)
        self.owner_key, self.bidder_key = keys["keys"]
        # Reads go to a sample of the registry (copies of the first half of the tenders built),
        # read once before the rounds: what is measured is a tender read again (most are read
        # many times between two changes), not the first read after a change, which renders
        # what it keeps. Writes go to the other half.
        order = random.Random(size)
        half = len(self.tenders) // 2
        read, written = self.tenders[:half], self.tenders[half:]
        self.sample = [(order.choice(read), order.randrange(self.copies)) for _ in range(1000)]
        # Claims to answer (each once): one per tender written, in up to 10 of its copies; half
        # of them answered right after another change of their tender (open data not yet told
        # of it), half not.
        copies_answered = min(self.copies, 10)
        pool = [(k, t) for t in written for k in order.sample(range(self.copies), copies_answered)]
        order.shuffle(pool)
        self.shares, self.untold_shares = [], []
        for half, shares in ((pool[0::2], self.shares), (pool[1::2], self.untold_shares)):
            rest = half[self.COUNTED :]
            # A share for each round (a round that uses its share up is measured over the
            # requests it made) and one for the check before the rounds.
            shares += [rest[i :: ROUNDS + 1] for i in range(ROUNDS + 1)]
        self.claims_to_answer = pool[0::2][: self.COUNTED] if counting else self.shares.pop()
        self.untold_to_answer = pool[1::2][: self.COUNTED] if counting else self.untold_shares.pop()
        self.written = written

    @staticmethod
    def id(original: str, k: int) -> str:
        return original if k == 0 else hashlib.md5(f"{original}:{k}".encode()).hexdigest()

    def random_tender(self) -> tuple[dict, int]:
        return random.choice(self.sample)


# The floor served inside the project (bench/urls.py: the whole middleware stack), a second
# reference beside the bare one; the code before 2e640e6's successor called it "floor".
IN_PROJECT_FLOOR = "floor in the project"
EARLIER_NAMES = {IN_PROJECT_FLOOR: "floor"}


def floor_requests(registry: Registry) -> dict:
    """The bare floors' requests (bench/floor), on the tenders and claims of `registry`."""
    owner = {"Authorization": basic(registry.owner_key), "Content-Type": "application/json"}
    answer = {"status": "answered", "resolution": "Вимогу задоволено: документацію змінено."}
    body = json.dumps({"data": answer})

    def read():
        t, k = registry.random_tender()
        return "GET", f"/read/{registry.id(t['tender'], k)}", {}, None

    def write():
        t, k = random.choice(registry.written), random.randrange(registry.copies)
        claim = registry.id(t["claims"]["answered"]["id"], k)
        return "PATCH", f"/write/{registry.id(t['tender'], k)}/{claim}", owner, body

    return {READ_FLOOR: read, WRITE_FLOOR: write}


READ_FLOOR, WRITE_FLOOR = "read floor (bare Django)", "write floor (plain SQL)"
# A claim's answer right after another change of its tender, before the background told open
# data of it: the answer keeps that state (README "Open data").
UNTOLD_ANSWER = "claim PATCH answer, last change untold"


def endpoints(registry: Registry, offsets: list[str], new_tender: dict) -> dict:
    """name -> a function giving (method, path, headers, body) for the next request."""
    owner = {"Authorization": basic(registry.owner_key), "Content-Type": "application/json"}
    bidder = {"Authorization": basic(registry.bidder_key), "Content-Type": "application/json"}
    ident = registry.id

    def tender():
        t, k = registry.random_tender()
        return ident(t["tender"], k), t, k

    def claim_path(t, k, status):
        tid, aid = ident(t["tender"], k), ident(t["award"], k)
        return (
            f"/api/2.3/tenders/{tid}/awards/{aid}/complaints/{ident(t['claims'][status]['id'], k)}"
        )

    def api_tender():
        return "GET", f"/api/2.3/tenders/{tender()[0]}", {}, None

    def api_claim():
        _, t, k = tender()
        return "GET", claim_path(t, k, "claim"), {}, None

    def feed(query):
        def request():
            offset = random.choice(offsets)
            return "GET", f"/api/2.3/tenders?limit=100&offset={offset}{query}", {}, None

        return request

    def portal(path):
        return lambda: ("GET", path, {}, None)

    def portal_tender():
        return "GET", f"/tenders/{tender()[0]}/", {}, None

    def portal_claim():
        _, t, k = tender()
        return "GET", f"/claims/{ident(t['claims']['claim']['id'], k)}/", {}, None

    def answering(t, k):
        body = {"data": {"status": "answered", "resolutionType": "resolved",
                         "resolution": "Вимогу задоволено: документацію змінено.",
                         "tendererAction": "Змінено умови"}}  # fmt: skip
        path = claim_path(t, k, "claim") + f"?acc_token={t['owner_token']}"
        return "PATCH", path, owner, json.dumps(body)

    def answer():
        return answering(*reversed(registry.claims_to_answer.pop()))

    def editing(t, k):
        body = {"data": {"description": f"Уточнено {random.random()}"}}
        path = claim_path(t, k, "draft") + f"?acc_token={t['claims']['draft']['token']}"
        return "PATCH", path, bidder, json.dumps(body)

    def edit_draft():
        return editing(random.choice(registry.written), random.randrange(registry.copies))

    def answer_untold():
        # (the tender changed a moment before, by its draft claim's edit, sent first, untimed:
        # the answer keeps the state that edit left, open data not told of it yet)
        k, t = registry.untold_to_answer.pop()
        return (*answering(t, k), editing(t, k))

    def create_tender():
        return "POST", "/api/2.3/tenders", owner, json.dumps({"data": new_tender})

    return {
        IN_PROJECT_FLOOR: lambda: ("GET", f"/bench/floor/{tender()[0]}", {}, None),
        "GET /api/2.3/tenders/{id}": api_tender,
        "GET …/complaints/{cid}": api_claim,
        "feed limit=100": feed(""),
        "feed limit=100 descending": feed("&descending=1"),
        "feed limit=100&opt_fields=status,tenderID": feed("&opt_fields=status%2CtenderID"),
        "portal home /": portal("/"),
        "portal search /?q=папір": portal("/?q=%D0%BF%D0%B0%D0%BF%D1%96%D1%80"),
        # A search nobody asked before (its own parameter defeats the kept results).
        "portal search, not kept": lambda: (
            "GET",
            f"/?q=%D0%BF%D0%B0%D0%BF%D1%96%D1%80&n={random.random()}",
            {},
            None,
        ),
        "portal /tenders/{id}/": portal_tender,
        "portal /claims/{id}/": portal_claim,
        "claim PATCH answer": answer,
        UNTOLD_ANSWER: answer_untold,
        "claim PATCH draft edit": edit_draft,
        "POST /tenders": create_tender,
    }


def send(port: int, request) -> int:
    """Send `request` (method, path, headers, body, and the request to send first, if any)."""
    method, path, headers, body, *first = request
    if first:
        send(port, first[0])
    connection = HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=body.encode() if body else None, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def measure(port: int, make_request, seconds: float) -> tuple[float, list[float], set]:
    """Requests per second, the latencies, and the statuses seen."""
    latencies, statuses = [], set()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        try:
            request = make_request()
        except IndexError:  # a pool of one-time writes ran out
            break
        method, path, headers, body, *first = request
        if first:  # (what must come first is not timed)
            statuses.add(send(port, first[0]))
        start = time.perf_counter()
        statuses.add(send(port, (method, path, headers, body)))
        latencies.append(time.perf_counter() - start)
    return len(latencies) / max(sum(latencies), 1e-9), latencies, statuses


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def measure_all(plan: dict, ports: dict) -> dict:
    """Rounds of every (side, request) in `plan` and the floors: name -> rates, ratios to the
    floor of their kind in the same round, latencies."""
    results = {key: {"ratios": [], "rates": [], "latencies": []} for key in plan}
    for round_number in range(ROUNDS):
        for registry in ports["registries"].values():
            registry.claims_to_answer = registry.shares[round_number]
            registry.untold_to_answer = registry.untold_shares[round_number]
        keys = list(plan)
        random.shuffle(keys)
        rates = {}
        for key in keys:
            side, name = key
            rate, latencies, statuses = measure(ports[side], plan[key], SECONDS)
            if any(status >= 300 for status in statuses):
                raise RuntimeError(f"{side} {name}: answers {sorted(statuses)}")
            rates[key] = rate
            results[key]["latencies"] += latencies
            results[key]["rates"].append(rate)
        for key in keys:
            floor = WRITE_FLOOR if ports["writes"].get(key[1]) else READ_FLOOR
            results[key]["ratios"].append(rates[key] / rates[("floor", floor)])
        print(f"  round {round_number + 1} of {ROUNDS} done", flush=True)
    return results


def bench_size(size: int, sides: list[Side]) -> dict:
    plan, ports, servers, measured = {}, {"registries": {}, "writes": {}}, [], {}
    try:
        for side in sides:
            database = side.working_copy(size)
            registry = Registry(registry_keys(database), size)
            with psycopg.connect(database_url(database)) as connection:
                rows = connection.execute(
                    "SELECT date_modified FROM tenders_tender TABLESAMPLE SYSTEM (5) LIMIT 200"
                ).fetchall()
            offsets = [row[0].isoformat().replace("+", "%2B") for row in rows]
            new_tender = json.loads(side.run(["-m", "bench.queries", "new-tender"], database))
            queries = json.loads(side.run(["-m", "bench.queries", str(size)], database))
            measured[side.name] = {"queries": queries}
            server = side.server(database)
            servers.append(server)
            measured[side.name]["server"] = server
            ports[side.name], ports["registries"][side.name] = server.port, registry
            for t, k in registry.sample:  # read once, as the API's reads and the pages are
                tender = registry.id(t["tender"], k)
                claim = registry.id(t["claims"]["claim"]["id"], k)
                for path in (
                    f"/api/2.3/tenders/{tender}",
                    f"/tenders/{tender}/",
                    f"/claims/{claim}/",
                ):
                    send(server.port, ("GET", path, {}, None))
            for name, make in endpoints(registry, offsets, new_tender).items():
                plan[side.name, name] = make
            if side is sides[0]:
                floor = Server.floor(database)
                servers.append(floor)
                ports["floor"] = floor.port
                for name, make in floor_requests(registry).items():
                    plan["floor", name] = make
        for (side, name), make in plan.items():  # every request must answer 2xx
            request = make()
            ports["writes"][name] = request[0] != "GET"
            status = send(ports[side], request)
            if status >= 300:
                raise RuntimeError(f"{side}: {request[1]} answered {status}")
        results = measure_all(plan, ports)
        for side in sides:
            server = measured[side.name].pop("server")
            measured[side.name]["rss"], measured[side.name]["own"] = server.worker_memory_mb()
    finally:
        for server in servers:
            server.stop()
    for side in sides:
        measured[side.name]["chronograph"] = side.run(
            ["-m", "bench.chronograph"], side.working_copy(size)
        ).strip()
    return {"results": results, "sides": measured, "writes": ports["writes"]}


def table(measured: dict, sides: list[Side]) -> str:
    """The table: for each request, × floor at both sizes, for each side (and now ÷ before, the
    median of the rounds' ratios)."""
    small, large = SIZES[0], SIZES[-1]
    names = [side.name for side in sides]
    header = ["request", f"req/s ({large:,})", "p50 ms", "p99 ms"]
    for size in (small, large):
        header += [f"× floor ({size:,}), {name}" for name in names]
        if len(names) > 1:
            header.append(f"{names[0]} ÷ {names[1]} ({size:,}), spread")
    header += [f"queries, {name}" for name in names]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    results_large = measured[large]["results"]
    floors = [key for key in results_large if key[0] == "floor"]
    requests = [name for side, name in results_large if side == names[0]]
    for key in floors + [(names[0], name) for name in requests]:
        result = results_large[key]
        row = [
            key[1] + (" ← writes" if key in floors and key[1] == WRITE_FLOOR else ""),
            f"{statistics.median(result['rates']):.0f}",
            f"{percentile(result['latencies'], 0.5) * 1000:.1f}",
            f"{percentile(result['latencies'], 0.99) * 1000:.1f}",
        ]
        for size in (small, large):
            results = measured[size]["results"]
            if key in floors:
                row += ["1.000"] * len(names) + ([""] if len(names) > 1 else [])
                continue
            ratios = {name: results[name, key[1]]["ratios"] for name in names}
            row += [
                f"{statistics.median(ratios[name]):.3f} "
                f"({min(ratios[name]):.3f}–{max(ratios[name]):.3f})"
                for name in names
            ]
            if len(names) > 1:
                shares = [now / then for now, then in zip(*ratios.values(), strict=True)]
                row.append(f"{statistics.median(shares):.2f} ({min(shares):.2f}–{max(shares):.2f})")
        for name in names:
            queries = measured[large]["sides"][name]["queries"]
            row.append(
                ""
                if key in floors
                else str(queries.get(key[1], queries.get(EARLIER_NAMES.get(key[1]), "")))
            )
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append(
        "Reads are measured against the read floor, writes (claim PATCHes, POST /tenders) "
        "against the write floor, in the same round."
    )
    for size in SIZES:
        for name in names:
            side = measured[size]["sides"][name]
            lines.append(
                f"\n{name}, {size:,} tenders: worker memory {side.get('rss', 0):.0f} MB "
                f"({side.get('own', 0):.0f} MB its own, the rest shared with the master); "
                f"chronograph {side['chronograph']}."
            )
    return "\n".join(lines)


def main() -> None:
    os.sched_setaffinity(0, {1})
    sides = [Side("now", ROOT)]
    if BEFORE:
        sides.append(Side.before(BEFORE))
    for side in sides:  # served as deployed: static files from the manifest collectstatic writes
        side.run(["manage.py", "collectstatic", "--noinput", "-v0"], "postgres")
    measured = {}
    for size in SIZES:
        print(f"measuring at {size:,} tenders ({ROUNDS} rounds of {SECONDS} s per endpoint)")
        measured[size] = bench_size(size, sides)
    report = table(measured, sides)
    print(report)
    out = ROOT / "build" / "bench.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(report + "\n")


if __name__ == "__main__":
    main()
