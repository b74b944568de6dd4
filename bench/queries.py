"""Queries per request of each endpoint the benchmark measures, counted in process on the same
database (`python -m bench.queries SIZE`), and the body of a new tender (`new-tender`)."""

import json
import sys

import django

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.build import keys, tender_body  # noqa: E402
from bench.run import Registry, endpoints  # noqa: E402


def send(client: Client, request):
    """Send `request` (method, path, headers, body, and the request to send first, if any)."""
    method, path, headers, body, *first = request
    if first:
        send(client, first[0])
    extra = {f"HTTP_{name.upper().replace('-', '_')}": value for name, value in headers.items()}
    content_type = extra.pop("HTTP_CONTENT_TYPE", "application/json")
    return client.generic(method, path, body or "", content_type=content_type, **extra)


def is_transaction_control(sql: str) -> bool:
    """BEGIN, COMMIT and savepoints; and PREPARE, once per connection (core.reads.Prepared: its
    EXECUTE is counted)."""
    return (
        sql.lstrip('"').upper().startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "PREPARE"))
    )


def count(client: Client, make_request, *, warmed: bool = True) -> int:
    """The statements of a request as the benchmark sends it (BEGIN, COMMIT and savepoints
    not counted): a read is sent once before (the benchmark reads its sample before the
    rounds) unless it is one nobody asked before, a write is a new one; what a request needs
    sent first is sent first, not counted."""
    for _attempt in range(20):
        method, path, headers, body, *first = make_request()
        request = (method, path, headers, body)
        if first:
            send(client, first[0])
        if method == "GET" and warmed:
            send(client, request)
        with CaptureQueriesContext(connection) as queries:
            response = send(client, request)
        if response.status_code < 300:
            return sum(not is_transaction_control(query["sql"]) for query in queries)
    raise RuntimeError(f"{request[1]} answered {response.status_code}")


def main(size: int) -> None:
    registry = Registry(keys(), size, counting=True)
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute("SELECT date_modified FROM tenders_tender LIMIT 50")
        offsets = [row[0].isoformat().replace("+", "%2B") for row in cursor.fetchall()]
    client = Client(HTTP_HOST="127.0.0.1")
    counts = {}
    for name, make in endpoints(registry, offsets, tender_body(0, now)).items():
        count(client, make)  # the first requests of a process fill its caches
        counts[name] = count(client, make, warmed="not kept" not in name)
    print(json.dumps(counts))


if __name__ == "__main__":
    if sys.argv[1] == "new-tender":
        print(json.dumps(tender_body(0, timezone.now())))
    else:
        main(int(sys.argv[1]))
