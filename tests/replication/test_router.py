"""Reads that may be stale go to a real streaming replica (core/replicas.py); a caller's reads
after its own write, a lagging replica and one that does not answer are the primary's; and the
feed read from a replica never skips or repeats a change."""

import time

import pytest
from django.db import close_old_connections, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.helpers import Api, Crawler, HeldOpen, create_tender, organization
from tests.replication.helpers import REPLICA

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", REPLICA])


def replica_reads(call) -> int:
    """How many statements `call()` sent to the replica (its lag asked aside)."""
    with CaptureQueriesContext(connections[REPLICA]) as captured:
        call()
    return len([q for q in captured.captured_queries if "pg_last_wal_replay" not in q["sql"]])


def until_replayed(tender_id: str) -> None:
    for _ in range(100):
        with connections[REPLICA].cursor() as cursor:
            cursor.execute("SELECT 1 FROM tenders_tender WHERE id = %s", [tender_id])
            if cursor.fetchone():
                return
        time.sleep(0.05)
    raise AssertionError("the replica never replayed the tender")


def test_the_public_reads_a_replica_and_a_writer_reads_its_own_writes(api, api2, client):
    tender = create_tender(api)  # (a write: its broker now reads the primary)
    until_replayed(tender.id)

    assert replica_reads(lambda: client.get(f"/api/2.3/tenders/{tender.id}")) > 0
    assert replica_reads(lambda: client.get("/api/2.3/tenders")) > 0
    assert replica_reads(lambda: api.get(tender.path)) == 0  # its own write, read back
    asked = {}
    question = {"title": "Питання", "author": organization()}
    write = lambda: asked.update(response=api2.post(f"{tender.path}/questions", question))  # noqa: E731
    assert replica_reads(write) == 0  # a write by a broker that had not written
    assert asked["response"].status_code == 201


def test_a_tender_just_written_is_read_by_its_writer_even_when_the_replica_lags(
    api, replica_server
):
    replica_server.sql("SELECT pg_wal_replay_pause()")
    tender = create_tender(api)

    response = api.get(tender.path)  # (the replica has not replayed it)

    assert response.status_code == 200


def test_a_lagging_replica_is_skipped(api, client, replica_server, settings):
    settings.REPLICA_MAX_LAG_SECONDS = 0.5
    replica_server.sql("SELECT pg_wal_replay_pause()")
    tender = create_tender(api)
    time.sleep(1.2)  # (behind by more than the bound, and past a check of its lag)

    read = {}
    reads = replica_reads(lambda: read.update(response=client.get(f"/api/2.3/tenders/{tender.id}")))

    assert read["response"].status_code == 200 and reads == 0
    replica_server.sql("SELECT pg_wal_replay_resume()")
    until_replayed(tender.id)
    time.sleep(1.1)
    assert replica_reads(lambda: client.get(f"/api/2.3/tenders/{tender.id}")) > 0


def test_a_replica_that_does_not_answer_is_skipped(api, client, replica_server):
    tender = create_tender(api)
    until_replayed(tender.id)
    connections[REPLICA].close()
    replica_server.stop("immediate")

    response = client.get(f"/api/2.3/tenders/{tender.id}")

    assert response.status_code == 200
    assert client.get("/api/2.3/tenders").status_code == 200


def test_a_replica_that_dies_after_its_lag_was_asked_is_skipped(api, client, replica_server):
    """Its lag is asked once a second: a read within that second of its death goes to the
    primary all the same (each of these was a 503 in make cluster-test)."""
    tender = create_tender(api)
    until_replayed(tender.id)
    assert replica_reads(lambda: client.get(f"/api/2.3/tenders/{tender.id}")) > 0  # (lag asked)
    replica_server.stop("immediate")

    for path in (f"/api/2.3/tenders/{tender.id}", "/api/2.3/tenders", f"/tenders/{tender.id}/"):
        close_old_connections()  # (what a served request starts with; the test client does not)
        assert client.get(path).status_code == 200


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/api/2.3/tenders/{id}", "{id}"),
        ("/api/2.3/tenders", '"next_page"'),  # (the tender is within the watermark yet)
        ("/tenders/{id}/", "{id}"),
        ("/tenders/{id}/history/", "{id}"),
    ],
)
def test_a_read_whose_replica_dies_under_it_is_read_again_from_the_primary(
    api, client, replica_server, path, shown
):
    tender = create_tender(api)
    until_replayed(tender.id)
    time.sleep(1.1)  # (past the writer's own lag check: the replica is read)

    def die_at_the_first_statement(run, sql, params, many, context):
        if "pg_last_wal_replay" not in sql:
            replica_server.stop("immediate")
        return run(sql, params, many, context)

    with connections[REPLICA].execute_wrapper(die_at_the_first_statement):
        response = client.get(path.format(id=tender.id))

    assert response.status_code == 200
    assert shown.format(id=tender.id) in response.content.decode()
    close_old_connections()  # (what a served request starts with: the dead connection goes)
    assert client.get(path.format(id=tender.id)).status_code == 200  # (skipped now)


def test_a_read_cancelled_on_a_replica_is_not_taken_for_its_death(api, client):
    """A statement past its timeout is the read's own failure (503, as on the primary): it is
    not run again on the primary, and the replica is read on."""
    tender = create_tender(api)
    until_replayed(tender.id)
    time.sleep(1.1)  # (past the writer's own lag check: the replica is read)
    cancelled = []

    def cancel_the_first_statement(run, sql, params, many, context):
        if cancelled or "pg_last_wal_replay" in sql:
            return run(sql, params, many, context)
        cancelled.append(sql)
        with connections[REPLICA].cursor() as cursor:
            cursor.execute("SET statement_timeout = 1")
        try:
            return run("SELECT pg_sleep(1)", None, many, context)
        finally:
            with connections[REPLICA].cursor() as cursor:
                cursor.execute("SET statement_timeout = 0")

    with connections[REPLICA].execute_wrapper(cancel_the_first_statement):
        response = client.get(f"/api/2.3/tenders/{tender.id}")

    assert response.status_code == 503
    assert replica_reads(lambda: client.get(f"/api/2.3/tenders/{tender.id}")) > 0


def test_the_feed_read_from_a_lagging_replica_hands_out_no_offset_past_what_it_lacks(
    api, client, replica_server, settings
):
    """Two changes commit out of the order of their stamps; the replica has replayed the later
    stamped one, not the earlier: a page read from it must not show the later one yet (its
    offset would pass the earlier one, which would then never be shown)."""
    settings.FEED_WATERMARK_SECONDS = 1
    settings.REPLICA_MAX_LAG_SECONDS = 30  # (the replica is read while it lags)
    first, second = create_tender(api), create_tender(api)
    until_replayed(second.id)
    time.sleep(settings.FEED_WATERMARK_SECONDS + 0.5)
    crawler = Crawler(client, "/api/2.3/tenders?limit=10")
    seen = crawler.poll()
    assert sorted(seen) == sorted([first.id, second.id])

    slow = HeldOpen(
        lambda: Api(Client(), key="broker").patch(
            first.path, {"title": "повільно"}, token=first.token
        )
    )
    time.sleep(0.05)
    assert second.patch({"title": "швидко"}).status_code == 200  # stamped later, committed first
    until_stamp_replayed(second.id, second.read()["dateModified"])
    replica_server.sql("SELECT pg_wal_replay_pause()")
    slow.commit()  # the earlier stamped change commits, and the replica does not replay it
    time.sleep(settings.FEED_WATERMARK_SECONDS + 0.5)

    more = crawler.poll()
    assert more == []  # the later one is not shown before the earlier one can be

    replica_server.sql("SELECT pg_wal_replay_resume()")
    time.sleep(settings.FEED_WATERMARK_SECONDS + 0.5)
    more = crawler.poll()
    assert more == [first.id, second.id]  # each once, in stamp order


def test_a_feed_page_read_from_a_replica_asks_the_primary_nothing(api, client):
    """Where its watermark counts back from is what the replica's last lag check found (at
    most a second old): the primary is not asked on every page."""
    tender = create_tender(api)
    until_replayed(tender.id)
    time.sleep(1.1)  # (past the writer's own lag check)
    client.get("/api/2.3/tenders")  # (the replica's lag asked)

    with CaptureQueriesContext(connections["default"]) as primary:
        reads = replica_reads(lambda: client.get("/api/2.3/tenders"))

    assert reads > 0 and len(primary.captured_queries) == 0


def until_stamp_replayed(tender_id: str, stamp: str) -> None:
    from core.schema import parse_iso

    for _ in range(100):
        with connections[REPLICA].cursor() as cursor:
            cursor.execute("SELECT date_modified FROM tenders_tender WHERE id = %s", [tender_id])
            if cursor.fetchone()[0] >= parse_iso(stamp):
                return
        time.sleep(0.05)
    raise AssertionError("the replica never replayed the change")


def test_the_portal_s_search_reads_a_replica_and_a_session_the_primary(api, client):
    tender = create_tender(api)
    until_replayed(tender.id)

    assert replica_reads(lambda: client.get("/", {"q": "футляри"})) > 0
    assert replica_reads(lambda: client.get(f"/tenders/{tender.id}/")) > 0
    from django.contrib.sessions.models import Session

    from core.replicas import ReplicaRouter

    assert ReplicaRouter().db_for_read(Session) == "default"


def test_a_read_that_brings_a_tender_up_to_date_shows_the_result(api, client, time_machine):
    from datetime import timedelta

    from core.schema import parse_iso

    tender = create_tender(api)
    until_replayed(tender.id)
    start = parse_iso(tender.read()["tenderPeriod"]["startDate"])
    time_machine.move_to(start + timedelta(minutes=1), tick=False)

    read = client.get(f"/api/2.3/tenders/{tender.id}").json()["data"]  # (it catches up: a write)

    assert read["status"] == "active.tendering"
