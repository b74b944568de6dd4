"""`make bench`: the project's reads and writes measured against a floor, at two registry sizes.

For each size: the registry is built (bench/build.py through the model methods, then copied in
SQL by bench/multiply.py; both kept as template databases until their code or the migrations
change), one gunicorn sync worker serves it pinned to CPU 0, and this process, pinned to CPU 1,
sends one request at a time. Each round measures every endpoint and the floor (one row by
primary key, answered as a small JSON by the same worker) for BENCH_SECONDS each, in a shuffled
order; an endpoint's "× floor" is its rate divided by the floor's in the same round, so the noise
of a shared machine cancels out. The table gives the median over the rounds and their spread,
the 100k/1k ratio of the cost relative to the floor, the queries per request, the worker's
memory, and the chronograph's rate.

It is a benchmark, not a test: nothing here fails a build. PostgreSQL only (BENCH_DATABASE_URL,
default postgres://postgres@127.0.0.1:5432/postgres, names the server).
"""

import hashlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from base64 import b64encode
from http.client import HTTPConnection
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SIZES = [int(size) for size in os.environ.get("BENCH_SIZES", "1000,100000").split(",")]
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.5"))
# Tenders built through the model methods; larger sizes are copies of them.
BUILT = int(os.environ.get("BENCH_BUILT", "1000"))
SERVER_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
# The cache every worker shares, as deployed (rate limits, rendered page fragments); the run's
# keys have a prefix of their own.
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
RUN = f"bench-{os.getpid()}-{int(time.time())}"
UNLIMITED = "1000000/minute"


def database_url(name: str) -> str:
    parts = urlsplit(SERVER_URL)
    return parts._replace(path=f"/{name}").geturl()


def admin(sql: str) -> None:
    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        connection.execute(sql)


def exists(name: str) -> bool:
    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        row = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    return row is not None


def fingerprint(size: int) -> str:
    """What a template depends on: every migration, the builder, and the copier if it copies."""
    digest = hashlib.sha256()
    files = sorted(ROOT.glob("*/migrations/*.py")) + sorted(ROOT.glob("portal/*/migrations/*.py"))
    files.append(ROOT / "bench" / "build.py")
    if size != BUILT:
        files.append(ROOT / "bench" / "multiply.py")
    for file in files:
        digest.update(file.read_bytes())
    return digest.hexdigest()[:10]


def environment(database: str, **extra) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": database_url(database),
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "SECRET_KEY": "bench-" + "k" * 60,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "ROOT_URLCONF": "bench.urls",
        "REDIS_URL": REDIS_URL,
        "CACHE_KEY_PREFIX": f"{RUN}-{database}",
        "LOG_LEVEL": "WARNING",
        "API_RATE_ANONYMOUS_READS": UNLIMITED,
        "API_RATE_BROKER_READS": UNLIMITED,
        "API_RATE_ANONYMOUS_WRITES": UNLIMITED,
        "API_RATE_BROKER_WRITES": UNLIMITED,
        **extra,
    }


def run(args: list[str], database: str, **extra) -> str:
    done = subprocess.run(
        [PYTHON, *args], cwd=ROOT, env=environment(database, **extra), capture_output=True,
        text=True,
    )  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def template(size: int) -> str:
    """The template database of `size` tenders (built when missing)."""
    name = f"bench_t{size}_{fingerprint(size)}"
    if exists(name):
        return name
    if size == BUILT:
        print(f"building {size} tenders through the model methods (a few minutes, once)...")
        admin(f"CREATE DATABASE {name}_wip")
        run(["manage.py", "migrate", "--noinput", "-v0"], f"{name}_wip")
        run(["-m", "bench.build", str(size)], f"{name}_wip")
    else:
        source = template(BUILT)
        print(f"copying {BUILT} tenders to {size} in SQL (once)...")
        admin(f"CREATE DATABASE {name}_wip TEMPLATE {source}")
        run(["-m", "bench.multiply", str(size // BUILT)], f"{name}_wip")
    admin(f"ALTER DATABASE {name}_wip RENAME TO {name}")
    return name


def working_copy(size: int) -> str:
    name = f"bench_{size}"
    source = template(size)
    admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin(f"CREATE DATABASE {name} TEMPLATE {source}")
    return name


def registry_keys(database: str) -> dict:
    with psycopg.connect(database_url(database)) as connection:
        return json.loads(connection.execute("SELECT body FROM bench_keys").fetchone()[0])


# --- the server --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """gunicorn serving `database`: one sync worker on CPU 0 (the benchmark), or `workers` of
    them on every CPU (make load); `settings` are added to the environment."""

    def __init__(self, database: str, *, workers: int = 1, **settings):
        self.port = free_port()
        command = [
            PYTHON, "-m", "gunicorn", "portal.wsgi", "--workers", str(workers),
            "--worker-class", "sync", "--bind", f"127.0.0.1:{self.port}", "--log-level", "warning",
        ]  # fmt: skip
        if workers == 1:
            command = ["taskset", "-c", "0", *command]
        self.process = subprocess.Popen(command, cwd=ROOT, env=environment(database, **settings))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("gunicorn did not start")

    def worker_rss_mb(self) -> float:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        worker = children.read_text().split()[0]
        for line in Path(f"/proc/{worker}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)


# --- the requests ------------------------------------------------------------------------


def basic(key: str) -> str:
    return "Basic " + b64encode(f"{key}:".encode()).decode()


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
        # Claims to answer (each once): one per tender written, in up to 10 of its copies.
        copies_answered = min(self.copies, 10)
        pool = [(k, t) for t in written for k in order.sample(range(self.copies), copies_answered)]
        order.shuffle(pool)
        rest = pool[self.COUNTED :]
        # A share for each round (a round that uses its share up is measured over the
        # requests it made) and one for the check before the rounds.
        self.shares = [rest[i :: ROUNDS + 1] for i in range(ROUNDS + 1)]
        self.claims_to_answer = pool[: self.COUNTED] if counting else self.shares.pop()
        self.written = written

    @staticmethod
    def id(original: str, k: int) -> str:
        return original if k == 0 else hashlib.md5(f"{original}:{k}".encode()).hexdigest()

    def random_tender(self) -> tuple[dict, int]:
        return random.choice(self.sample)


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

    def answer():
        k, t = registry.claims_to_answer.pop()
        body = {"data": {"status": "answered", "resolutionType": "resolved",
                         "resolution": "Вимогу задоволено: документацію змінено.",
                         "tendererAction": "Змінено умови"}}  # fmt: skip
        path = claim_path(t, k, "claim") + f"?acc_token={t['owner_token']}"
        return "PATCH", path, owner, json.dumps(body)

    def edit_draft():
        t, k = random.choice(registry.written), random.randrange(registry.copies)
        body = {"data": {"description": f"Уточнено {random.random()}"}}
        path = claim_path(t, k, "draft") + f"?acc_token={t['claims']['draft']['token']}"
        return "PATCH", path, bidder, json.dumps(body)

    def create_tender():
        return "POST", "/api/2.3/tenders", owner, json.dumps({"data": new_tender})

    return {
        "floor": lambda: ("GET", f"/bench/floor/{tender()[0]}", {}, None),
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
        "claim PATCH draft edit": edit_draft,
        "POST /tenders": create_tender,
    }


def send(port: int, request) -> int:
    method, path, headers, body = request
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
    while (start := time.perf_counter()) < end:
        try:
            request = make_request()
        except IndexError:  # a pool of one-time writes ran out
            break
        statuses.add(send(port, request))
        latencies.append(time.perf_counter() - start)
    return len(latencies) / max(sum(latencies), 1e-9), latencies, statuses


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def query_counts(database: str, size: int) -> dict:
    return json.loads(run(["-m", "bench.queries", str(size)], database))


def chronograph_rate(database: str) -> str:
    return run(["-m", "bench.chronograph"], database).strip()


def bench_size(size: int) -> dict:
    database = working_copy(size)
    registry = Registry(registry_keys(database), size)
    with psycopg.connect(database_url(database)) as connection:
        rows = connection.execute(
            "SELECT date_modified FROM tenders_tender TABLESAMPLE SYSTEM (5) LIMIT 200"
        ).fetchall()
    offsets = [row[0].isoformat().replace("+", "%2B") for row in rows]
    new_tender = json.loads(run(["-m", "bench.queries", "new-tender"], database))
    queries = query_counts(database, size)
    server = Server(database)
    try:
        requests = endpoints(registry, offsets, new_tender)
        for t, k in registry.sample:  # read once, as the API's reads and the pages are
            tender, claim = registry.id(t["tender"], k), registry.id(t["claims"]["claim"]["id"], k)
            for path in (f"/api/2.3/tenders/{tender}", f"/tenders/{tender}/", f"/claims/{claim}/"):
                send(server.port, ("GET", path, {}, None))
        for make in requests.values():  # every endpoint must answer 2xx
            request = make()
            status = send(server.port, request)
            if status >= 300:
                raise RuntimeError(f"{request[1]} answered {status}")
        results = {name: {"ratios": [], "rates": [], "latencies": []} for name in requests}
        for round_number in range(ROUNDS):
            registry.claims_to_answer = registry.shares[round_number]
            names = list(requests)
            random.shuffle(names)
            rates = {}
            for name in names:
                rate, latencies, statuses = measure(server.port, requests[name], SECONDS)
                if any(status >= 300 for status in statuses):
                    raise RuntimeError(f"{name}: answers {sorted(statuses)}")
                rates[name] = rate
                results[name]["latencies"] += latencies
                results[name]["rates"].append(rate)
            for name in names:
                results[name]["ratios"].append(rates[name] / rates["floor"])
            print(f"  {size}: round {round_number + 1} of {ROUNDS} done", flush=True)
        rss = server.worker_rss_mb()
    finally:
        server.stop()
    return {
        "results": results, "rss": rss, "queries": queries,
        "chronograph": chronograph_rate(working_copy(size)),
    }  # fmt: skip


def table(measured: dict) -> str:
    small, large = SIZES[0], SIZES[-1]
    lines = [
        f"| request | req/s ({large:,}) | p50 ms | p99 ms | × floor ({small:,}) | "
        f"× floor ({large:,}), spread | {large:,} cost ÷ {small:,} cost | queries |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, result in measured[large]["results"].items():
        ratios = result["ratios"]
        small_ratio = statistics.median(measured[small]["results"][name]["ratios"])
        large_ratio = statistics.median(ratios)
        lines.append(
            f"| {name} | {statistics.median(result['rates']):.0f} "
            f"| {percentile(result['latencies'], 0.5) * 1000:.1f} "
            f"| {percentile(result['latencies'], 0.99) * 1000:.1f} "
            f"| {small_ratio:.3f} | {large_ratio:.3f} ({min(ratios):.3f}–{max(ratios):.3f}) "
            f"| {small_ratio / large_ratio:.2f} | {measured[large]['queries'].get(name, '')} |"
        )
    for size in SIZES:
        lines.append(f"\nWorker memory at {size:,} tenders: {measured[size]['rss']:.0f} MB.")
        lines.append(f"Chronograph at {size:,}: {measured[size]['chronograph']}.")
    return "\n".join(lines)


def main() -> None:
    os.sched_setaffinity(0, {1})
    # Served as deployed: static files from the manifest collectstatic writes.
    run(["manage.py", "collectstatic", "--noinput", "-v0"], "postgres")
    measured = {}
    for size in SIZES:
        print(f"measuring at {size:,} tenders ({ROUNDS} rounds of {SECONDS} s per endpoint)")
        measured[size] = bench_size(size)
    report = table(measured)
    print(report)
    out = ROOT / "build" / "bench.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(report + "\n")


if __name__ == "__main__":
    main()
