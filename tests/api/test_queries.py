"""Reads cost the same number of queries however much a tender, or the registry, holds."""

import pytest

from tenders.models import Tender
from tests.helpers import create_tender, in_qualification

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


@pytest.mark.parametrize("params", [{}, {"opt_fields": "status,awards,bids,numberOfBids"}])
def test_feed_does_not_grow_with_tenders(api, anonymous, clock, query_count, params):
    decided_tender(api, clock, bids=1)
    clock.advance(minutes=1)
    one = queries_for(query_count, anonymous, "/tenders", params)
    for _ in range(3):
        decided_tender(api, clock, bids=2)
    for _ in range(10):
        create_tender(api)
    clock.advance(minutes=1)
    assert len(anonymous.get("/tenders").json()["data"]) == 14
    assert queries_for(query_count, anonymous, "/tenders", params) == one


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
