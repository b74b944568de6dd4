"""Reads cost the same number of queries however much a tender, or the registry, holds; writes
are a few statements."""

import json
from datetime import timedelta
from functools import partial

import pytest
from django.db import connection, transaction

from core.schema import parse_iso
from tenders.models import Tender, UntoldState
from tests.docservice.helpers import DocService, document
from tests.helpers import (
    CLAIM,
    Claims,
    awards_by_lot,
    bid_on,
    close_tendering,
    create_tender,
    decide,
    in_qualification,
    item,
    lot,
    offer,
    organization,
    tell_every_change,
    tender_data,
)

pytestmark = pytest.mark.django_db


def queries_for(query_count, api, path, params=None):
    with query_count() as captured:
        response = api.get(path, params)
    assert response.status_code == 200
    return len(captured.captured_queries)


def decided_tender(api, clock, bids: int):
    """A tender with `bids` bids, all but one disqualified, the last one active, cancelled
    and awarded again: many awards, a contract, a cancellation."""
    tender = in_qualification(api, clock, amounts=[400 + n for n in range(bids)])
    for _ in range(bids - 1):
        response = tender.decide("unsuccessful")
        assert response.status_code == 200, response.json()
    assert tender.decide("active").status_code == 200
    assert tender.decide("cancelled").status_code == 200
    assert tender.decide("active").status_code == 200
    api.post(f"{tender.path}/cancellations", {"reason": "причина"}, token=tender.token)
    return tender


def test_tender_read_does_not_grow_with_bids_awards_contracts(api, anonymous, clock, query_count):
    small = decided_tender(api, clock, bids=1)
    large = decided_tender(api, clock, bids=8)
    assert len(large.read()["awards"]) == 9 and len(large.read()["bids"]) == 8
    # The first read after a change renders (and keeps) the representation; a read again is
    # the kept row alone.
    Tender.objects.update(public_text="")
    assert queries_for(query_count, anonymous, small.path) == queries_for(
        query_count, anonymous, large.path
    )
    assert queries_for(query_count, anonymous, small.path) == 1
    assert queries_for(query_count, anonymous, large.path) == 1
    for collection in ("awards", "bids", "contracts", "cancellations"):
        assert queries_for(query_count, anonymous, f"{small.path}/{collection}") == queries_for(
            query_count, anonymous, f"{large.path}/{collection}"
        )


def lot_tender(api, api2, clock, lots: int, ds):
    """A tender in `lots` lots, each bid for by two bidders (both on every lot), each lot's
    award decided, a decision document on each award."""
    ids = [f"{n:032x}" for n in range(1, lots + 1)]
    tender = create_tender(
        api,
        lots=[lot(lot_id, 300) for lot_id in ids],
        items=[item(lot_id, f"товар {n}") for n, lot_id in enumerate(ids)],
    )
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    for bidder in ("00000001", "00000002"):
        amounts = [offer(lot_id, 200 + int(bidder)) for lot_id in ids]
        bid_on(api2, tender, *amounts, identifier=bidder)
    for award in awards_by_lot(close_tendering(tender, clock)).values():
        attached = api.post(
            f"{tender.path}/awards/{award[0]['id']}/documents",
            document(ds, name="протокол.pdf"),
            token=tender.token,
        )
        assert attached.status_code == 201, attached.content
        assert decide(api, tender, award[0]["id"], "active").status_code == 200
    return tender


def test_tender_read_does_not_grow_with_lots(api, api2, anonymous, clock, query_count, client):
    ds = DocService(client, key="broker")
    small, large = lot_tender(api, api2, clock, 1, ds), lot_tender(api, api2, clock, 6, ds)
    assert len(large.read()["lots"]) == 6 and len(large.read()["contracts"]) == 6
    Tender.objects.update(public_text="")
    assert queries_for(query_count, anonymous, small.path) == queries_for(
        query_count, anonymous, large.path
    )
    for collection in ("lots", "awards", "bids", "contracts"):
        assert queries_for(query_count, anonymous, f"{small.path}/{collection}") == queries_for(
            query_count, anonymous, f"{large.path}/{collection}"
        )


def test_feed_does_not_grow_with_lots(api, api2, anonymous, clock, query_count, client):
    ds = DocService(client, key="broker")
    lot_tender(api, api2, clock, 1, ds)
    clock.advance(minutes=1)
    params = {"opt_fields": "status,lots,awards,bids"}
    one = queries_for(query_count, anonymous, "/tenders", params)
    for lots in (2, 5):
        lot_tender(api, api2, clock, lots, ds)
    clock.advance(minutes=1)
    assert queries_for(query_count, anonymous, "/tenders", params) == one


@pytest.mark.parametrize("decision", ["active", "unsuccessful"])
def test_a_decision_on_a_lot_costs_the_same_however_many_lots(
    api, api2, clock, query_count, decision
):
    def statements_of_a_decision(lots: int) -> int:
        ids = [f"{n:032x}" for n in range(1, lots + 1)]
        tender = create_tender(
            api,
            lots=[lot(lot_id, 300) for lot_id in ids],
            items=[item(lot_id, f"товар {n}") for n, lot_id in enumerate(ids)],
        )
        clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
        for bidder in ("00000001", "00000002"):
            bid_on(api2, tender, *(offer(lot_id, 250) for lot_id in ids), identifier=bidder)
        award = awards_by_lot(close_tendering(tender, clock))[ids[0]][0]
        with query_count() as captured:
            assert decide(api, tender, award["id"], decision).status_code == 200
        return len(statements(captured))

    # (from two lots: with one, choosing its winner also awards the tender, one more event)
    assert statements_of_a_decision(2) == statements_of_a_decision(6)


@pytest.mark.parametrize("params", [{}, {"opt_fields": "status,tenderID,owner"}])
def test_feed_does_not_grow_with_tenders(api, anonymous, clock, query_count, params):
    decided_tender(api, clock, bids=1)
    clock.advance(minutes=1)
    one = queries_for(query_count, anonymous, "/tenders", params)
    thirteen_more(api, clock)
    assert len(anonymous.get("/tenders").json()["data"]) == 14
    assert queries_for(query_count, anonymous, "/tenders", params) == one


def thirteen_more(api, clock) -> None:
    """Three more decided tenders and ten new ones, settled in the feed."""
    for _ in range(3):
        decided_tender(api, clock, bids=2)
    for _ in range(10):
        create_tender(api)
    clock.advance(minutes=1)


def test_a_feed_page_of_parts_reads_its_tenders_in_reads_that_double(
    api, anonymous, clock, query_count
):
    """A page whose fields come from the tenders' parts is read a few tenders at a time (4,
    then 8, 16...: a page of a few of the largest tenders reads few more than it shows), each
    read with no more statements than a page of one tender, however many tenders it holds."""
    params = {"opt_fields": "status,awards,bids,numberOfBids"}
    decided_tender(api, clock, bids=1)
    clock.advance(minutes=1)
    one_read = queries_for(query_count, anonymous, "/tenders", params)
    thirteen_more(api, clock)

    with query_count() as captured:
        page = anonymous.get("/tenders", params).json()["data"]

    assert len(page) == 14
    sent = statements(captured)
    reads = [n for n, sql in enumerate(sent) if 'ORDER BY "tenders_tender"."date_modified"' in sql]
    assert len(reads) == 3  # 4, then 8, then the 2 left (of 16)
    # Each read with its parts costs no more statements than the page of one tender did.
    for start, end in zip(reads, [*reads[1:], len(sent)], strict=True):
        assert end - start <= one_read


def test_tender_read_with_a_key_adds_one_query(api, anonymous, clock, query_count):
    tender = create_tender(api)
    anonymous.get(tender.path)  # kept from now on
    assert (
        queries_for(query_count, api, tender.path)
        == queries_for(query_count, anonymous, tender.path) + 1
    )


def test_feed_reads_the_parts_only_when_a_field_of_them_is_asked_for(
    api, anonymous, clock, query_count
):
    decided_tender(api, clock, bids=2)
    clock.advance(minutes=1)
    with query_count() as plain:
        anonymous.get("/tenders")
    with query_count() as columns:
        anonymous.get("/tenders", {"opt_fields": "status,tenderID,owner"})
    with query_count() as own:
        anonymous.get("/tenders", {"opt_fields": "status,tenderID,procuringEntity,owner"})
    with query_count() as parts:
        anonymous.get("/tenders", {"opt_fields": "status,awards"})
    assert len(plain.captured_queries) == len(columns.captured_queries) == 1
    assert len(own.captured_queries) == 1
    assert len(parts.captured_queries) > 1
    for captured in (plain, columns):
        (query,) = captured.captured_queries
        assert '"data"' not in query["sql"] and "search_text" not in query["sql"]
    (query,) = own.captured_queries
    assert '"data"' in query["sql"] and "public_text" not in query["sql"]


# --- writes -------------------------------------------------------------------------------

# (and a statement prepared once per connection, core.reads.Prepared: its EXECUTE is counted)
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "PREPARE")


def statements(captured) -> list[str]:
    """The SQL statements a request sent (BEGIN, COMMIT, savepoints and the once-per-connection
    PREPARE are not counted)."""
    return [
        query["sql"]
        for query in captured.captured_queries
        if not query["sql"].lstrip('"').upper().startswith(TRANSACTION_CONTROL)
    ]


def claim_on(api, api2, clock, ds, *, extra_claims: int, documents: int):
    """A decided award with a draft claim and `extra_claims` claims answered (each with
    `documents` documents), returning (claims, the draft, its token, a submitted claim)."""
    claims = Claims(api, api2, clock)
    for _ in range(extra_claims):
        other, token = claims.filed()
        for n in range(documents):
            path = f"{claims.path}/{other['id']}/documents"
            attached = api2.post(path, document(ds, name=f"доказ{n}.pdf"), token=token)
            assert attached.status_code == 201, attached.content
        assert claims.patch(other, {"status": "claim"}, token).status_code == 200
        answer = {"status": "answered", "resolutionType": "resolved", "resolution": "x" * 20}
        assert claims.owner_patch(other, answer).status_code == 200
    draft, token = claims.filed()
    submitted, _ = claims.filed(status="claim")
    return claims, draft, token, submitted


def write_statements(query_count, send) -> list[str]:
    """The statements of the write `send()` makes, open data told of the changes before it (as
    the background tells them soon after each: test_a_change_to_a_tender_open_data_was_not_
    told_of_tells_it_first counts a write that tells)."""
    tell_every_change()
    with query_count() as captured:
        response = send()
    assert response.status_code in (200, 201), response.content
    # The write's transaction is a savepoint of the test's own; the changes inside it make
    # none (core.transactions): each would be two more round trips.
    opened = [q for q in captured.captured_queries if q["sql"].upper().startswith("SAVEPOINT")]
    assert len(opened) == 1
    return statements(captured)


@pytest.mark.parametrize("kind", ["draft edit", "answer"])
def test_a_claim_change_is_six_statements_however_much_the_tender_holds(
    api, api2, clock, client, query_count, kind
):
    ds = DocService(client, key="broker2")
    counts = []
    for extra_claims, documents in ((0, 0), (4, 3)):
        claims, draft, token, submitted = claim_on(
            api, api2, clock, ds, extra_claims=extra_claims, documents=documents
        )
        if kind == "draft edit":
            send = partial(claims.patch, draft, {"description": "уточнено"}, token)
        else:
            answer = {"status": "answered", "resolutionType": "declined", "resolution": "y" * 20}
            send = partial(claims.owner_patch, submitted, answer)
        sent = write_statements(query_count, send)
        # The key, the tender locked, its claims with their awards (read after the lock, so
        # current), the change written (the claim's row, the audit event, the tender's stamp
        # and its `untold`: one statement on PostgreSQL), the claim's documents for the answer.
        counts.append(len(sent))
        tender_updates = [sql for sql in sent if 'UPDATE "tenders_tender"' in sql]
        assert len(tender_updates) == 1 and '"data" =' not in tender_updates[0]
        assert '"public_text"' in tender_updates[0]  # the kept text emptied
    assert counts == ([6, 6] if connection.vendor == "postgresql" else [8, 8])


def test_a_change_to_a_tender_open_data_was_not_told_of_keeps_its_state_first(api, query_count):
    told, untold = create_tender(api), create_tender(api)
    tell_every_change()
    assert untold.patch({"title": "Папір"}).status_code == 200

    sent = {}
    for tender in (told, untold):
        with query_count() as captured:
            assert tender.patch({"title": "Папір А4"}).status_code == 200
        sent[tender.id] = statements(captured)
    told, untold = sent[told.id], sent[untold.id]

    # Once the tender is locked and before it changes, the state its last change left is kept:
    # one statement more (its rows taken as JSON by the database), in a savepoint of its own (a
    # failure is logged, and the change goes on). Open data is told of it later, by the
    # background: nothing is rendered here.
    assert len(untold) == len(told) + 1
    [kept] = [s for s in untold if "keep_untold_states" in s or 'INTO "tenders_untoldstate"' in s]
    changed = next(
        sql for sql in untold
        if sql.startswith(("UPDATE", "INSERT", "WITH")) and "untoldstate" not in sql
    )  # fmt: skip
    assert untold.index(kept) < untold.index(changed)
    assert not any("opendata_release" in sql for sql in untold)
    [state] = UntoldState.objects.all()
    [row] = json.loads(state.rows)["tenders_tender"]
    assert row["title"] == "Папір" and Tender.objects.get(pk=state.tender_id).untold


def test_a_new_tender_is_six_statements_and_its_answer_is_what_a_read_shows(
    api, anonymous, query_count
):
    with query_count() as captured:
        response = api.post("/tenders", tender_data())
    assert response.status_code == 201
    # The key, the day's counter, the tender, its words for the search, the audit event, its
    # document read back (as the database orders it).
    assert len(statements(captured)) == 6
    path = f"/tenders/{response.json()['data']['id']}"
    assert anonymous.get(path).json() == {"data": response.json()["data"]}


def test_a_tender_s_words_for_the_search_are_written_only_when_they_change(api, query_count):
    tender = create_tender(api)

    def patched(change) -> list[str]:
        with query_count() as captured:
            assert tender.patch(change).status_code == 200
        return [sql for sql in statements(captured) if "tenders_tendersearch" in sql]

    assert patched({"minimalStep": {"amount": 20}, "description": "Інший опис"}) != []
    assert patched({"minimalStep": {"amount": 25}}) == []
    assert len(patched({"title": "Папір для принтерів"})) == 1
    assert len(patched({"value": {"amount": 450}})) == 1
    found = Tender.objects.matching(q="принтерів").values_list("pk", flat=True)
    assert list(found) == [tender.id]


def test_a_change_made_to_the_document_in_place_is_saved(api):
    tender = create_tender(api)
    with transaction.atomic():
        locked = Tender.objects.for_change(tender.id, viewer=None)
        locked.data["value"]["amount"] = 123
        locked.stamp_change(locked.date_modified)
    assert Tender.objects.get(pk=tender.id).data["value"]["amount"] == 123


def asked_and_claimed(api, api2, ds, *, questions: int, claims: int):
    """A tender in enquiries with `questions` answered questions and `claims` claims against
    its conditions (each submitted, with a document, answered)."""
    tender = create_tender(api)
    asker = {"title": "Питання", "author": organization()}
    for _ in range(questions):
        question = api2.post(f"{tender.path}/questions", asker).json()["data"]
        api.patch(
            f"{tender.path}/questions/{question['id']}", {"answer": "Відповідь"}, token=tender.token
        )
    for _ in range(claims):
        body = api2.post(f"{tender.path}/complaints", CLAIM).json()
        claim, token = body["data"], body["access"]["token"]
        path = f"{tender.path}/complaints/{claim['id']}"
        attached = api2.post(f"{path}/documents", document(ds, name="доказ.pdf"), token=token)
        assert attached.status_code == 201, attached.content
        assert api2.patch(path, {"status": "claim"}, token=token).status_code == 200
        answer = {"status": "answered", "resolutionType": "resolved", "resolution": "x" * 20}
        assert api.patch(path, answer, token=tender.token).status_code == 200
    return tender


def test_reads_do_not_grow_with_questions_and_claims_against_the_tender(
    api, api2, anonymous, query_count, client
):
    ds = DocService(client, key="broker2")
    small = asked_and_claimed(api, api2, ds, questions=1, claims=1)
    large = asked_and_claimed(api, api2, ds, questions=6, claims=6)
    assert len(large.read()["questions"]) == 6 and len(large.read()["complaints"]) == 6
    Tender.objects.update(public_text="")
    assert queries_for(query_count, anonymous, small.path) == queries_for(
        query_count, anonymous, large.path
    )
    assert queries_for(query_count, anonymous, large.path) == 1  # kept
    for collection in ("questions", "complaints"):
        assert queries_for(query_count, anonymous, f"{small.path}/{collection}") == queries_for(
            query_count, anonymous, f"{large.path}/{collection}"
        )
    # The claimant's broker reads with its key: rendered for it (its drafts), the same cost.
    assert queries_for(query_count, api2, small.path) == queries_for(query_count, api2, large.path)


def test_asking_and_answering_cost_the_same_however_many_questions(api, api2, query_count, client):
    ds = DocService(client, key="broker2")
    asker = {"title": "Питання", "author": organization()}
    counts = []
    for questions in (1, 6):
        tender = asked_and_claimed(api, api2, ds, questions=questions, claims=1)
        asked = write_statements(query_count, partial(api2.post, f"{tender.path}/questions", asker))
        question = tender.read()["questions"][-1]
        answered = write_statements(
            query_count,
            partial(
                api.patch,
                f"{tender.path}/questions/{question['id']}",
                {"answer": "Відповідь"},
                token=tender.token,
            ),
        )
        counts.append((len(asked), len(answered)))
    assert counts[0] == counts[1]
