"""GET /tenders: the feed a crawler follows, in both directions, never skipping a change."""

from contextlib import ExitStack
from urllib.parse import parse_qs, urlsplit

import pytest

from core import limits
from core.api import feed
from core.schema import iso, parse_iso
from tenders.api.serializers import TenderOut
from tests.helpers import (
    CLAIM,
    create_tender,
    in_qualification,
    organization,
    single_error,
    tender_data,
    two_lots,
)

pytestmark = pytest.mark.django_db


def follow(api, path, limit=100):
    """Follow next_page until an empty page; every id in the order seen."""
    seen = []
    for _ in range(limit):
        body = api.get(path).json()
        if not body["data"]:
            return seen, body
        seen += [item["id"] for item in body["data"]]
        path = body["next_page"]["path"]
    raise AssertionError("the feed never ended")


def spaced_tenders(api, clock, count):
    ids = []
    for _ in range(count):
        ids.append(create_tender(api).id)
        clock.advance(seconds=10)
    clock.advance(minutes=1)
    return ids


def test_empty_feed(anonymous):
    response = anonymous.get("/tenders")
    assert response.status_code == 200
    assert response.json() == {
        "data": [],
        "next_page": {
            "offset": "",
            "path": "/api/2.3/tenders?offset=",
            "uri": "http://testserver/api/2.3/tenders?offset=",
        },
    }


def test_items_are_id_and_date_modified_in_order(api, anonymous, clock):
    ids = spaced_tenders(api, clock, 3)
    data = anonymous.get("/tenders").json()["data"]
    assert [item["id"] for item in data] == ids
    assert all(set(item) == {"id", "dateModified"} for item in data)
    assert data == sorted(data, key=lambda item: parse_iso(item["dateModified"]))


def test_the_feed_tells_the_moments_each_tender_tells(api, anonymous, clock):
    # (SQLite keeps moments as UTC text: read back naive, they were shown as Kyiv time, two
    # hours off, and offsets compared as text missed every change)
    ids = spaced_tenders(api, clock, 3)
    own = {i: anonymous.get(f"/tenders/{i}").json()["data"] for i in ids}
    listed = anonymous.get("/tenders", {"opt_fields": "date,tenderPeriod"}).json()["data"]
    assert listed == [
        {key: own[i][key] for key in ("id", "dateModified", "date", "tenderPeriod")} for i in ids
    ]
    assert anonymous.get("/tenders").json()["data"] == [
        {"id": i, "dateModified": own[i]["dateModified"]} for i in ids
    ]
    after_first = anonymous.get("/tenders", {"offset": own[ids[0]]["dateModified"]}).json()
    assert [item["id"] for item in after_first["data"]] == ids[1:]


def test_drafts_and_test_tenders_are_left_out_unless_asked(api, anonymous, clock):
    real = create_tender(api).id
    test = create_tender(api, mode="test").id
    api.post("/tenders", tender_data(status="draft"))
    clock.advance(minutes=1)

    def ids(**params):
        return {item["id"] for item in anonymous.get("/tenders", params).json()["data"]}

    assert ids() == {real}
    assert ids(mode="test") == {test}
    assert ids(mode="_all_") == {real, test}


def test_paging_forward_visits_every_tender_once(api, anonymous, clock):
    ids = spaced_tenders(api, clock, 7)
    seen, last = follow(anonymous, "/api/2.3/tenders?limit=3")
    assert seen == ids
    params = parse_qs(urlsplit(last["next_page"]["path"]).query)
    assert params["limit"] == ["3"]


def test_next_page_keeps_the_parameters(api, anonymous, clock):
    spaced_tenders(api, clock, 2)
    body = anonymous.get("/tenders", {"limit": "1", "opt_fields": "status", "mode": "_all_"}).json()
    params = parse_qs(urlsplit(body["next_page"]["path"]).query)
    assert params == {
        "limit": ["1"],
        "opt_fields": ["status"],
        "mode": ["_all_"],
        "offset": [body["data"][0]["dateModified"]],
    }
    assert body["next_page"]["uri"] == "http://testserver" + body["next_page"]["path"]
    assert "prev_page" not in body


def test_page_never_splits_tenders_with_the_same_date_modified(api, anonymous, clock):
    # A frozen clock gives three tenders one dateModified: a page of one must take all three.
    ids = {create_tender(api).id for _ in range(3)}
    clock.advance(minutes=1)
    body = anonymous.get("/tenders", {"limit": "1"}).json()
    assert {item["id"] for item in body["data"]} == ids
    assert anonymous.get(body["next_page"]["path"]).json()["data"] == []


def test_a_page_that_ends_between_two_stamps_is_one_query(api, anonymous, clock, query_count):
    for _ in range(3):
        create_tender(api)
        clock.advance(seconds=1)
    clock.advance(minutes=1)
    with query_count() as captured:
        body = anonymous.get("/tenders", {"limit": "2"}).json()
    assert len(body["data"]) == 2 and len(captured.captured_queries) == 1
    assert len(anonymous.get(body["next_page"]["path"]).json()["data"]) == 1


def test_a_change_waits_for_the_watermark_before_the_feed_shows_it(api, anonymous, clock, settings):
    settings.FEED_WATERMARK_SECONDS = 2
    older = create_tender(api)
    clock.advance(seconds=10)
    newer = create_tender(api)
    body = anonymous.get("/tenders").json()
    # The newer write might have a neighbour still committing: it waits.
    assert [item["id"] for item in body["data"]] == [older.id]
    assert body["next_page"]["offset"] == body["data"][0]["dateModified"]
    head = anonymous.get(body["next_page"]["path"]).json()
    assert head["data"] == [] and head["next_page"] == body["next_page"]

    clock.advance(seconds=2)
    body = anonymous.get(head["next_page"]["path"]).json()
    assert [item["id"] for item in body["data"]] == [newer.id]
    assert anonymous.get(body["next_page"]["path"]).json()["data"] == []


def test_a_crawler_at_the_head_reaches_an_empty_page_and_sees_nothing_twice(api, anonymous, clock):
    ids = [create_tender(api).id for _ in range(3)]
    clock.advance(minutes=1)
    seen, last = follow(anonymous, "/api/2.3/tenders?limit=2")
    assert sorted(seen) == sorted(ids) and len(seen) == len(set(seen))
    for _ in range(3):
        assert anonymous.get(last["next_page"]["path"]).json()["data"] == []


def test_under_steady_writes_a_crawler_still_sees_each_change_once(api, anonymous, clock):
    path, seen, made = "/api/2.3/tenders?limit=2", [], []
    for _ in range(6):
        made.append(create_tender(api).id)
        clock.advance(seconds=3)
        body = anonymous.get(path).json()
        seen += [item["id"] for item in body["data"]]
        path = body["next_page"]["path"]
    clock.advance(minutes=1)
    rest, _ = follow(anonymous, path)
    assert seen + rest == made


def test_a_tender_changed_after_a_crawl_shows_up_again(api, anonymous, clock):
    first = create_tender(api)
    clock.advance(seconds=10)
    second = create_tender(api)
    clock.advance(minutes=1)
    seen, last = follow(anonymous, "/api/2.3/tenders")
    assert seen == [first.id, second.id]

    assert first.patch({"title": "змінено"}).status_code == 200
    clock.advance(minutes=1)
    assert [item["id"] for item in anonymous.get(last["next_page"]["path"]).json()["data"]] == [
        first.id
    ]


def test_descending_walks_backwards_and_prev_page_turns_around(api, anonymous, clock):
    ids = spaced_tenders(api, clock, 5)
    body = anonymous.get("/tenders", {"descending": "1", "limit": "2"}).json()
    assert [item["id"] for item in body["data"]] == ids[:-3:-1]
    assert "descending=1" in body["next_page"]["path"]
    following = anonymous.get(body["next_page"]["path"]).json()
    assert [item["id"] for item in following["data"]] == [ids[2], ids[1]]

    back = following["prev_page"]
    assert "descending" not in back["path"]
    assert back["offset"] == following["data"][0]["dateModified"]
    assert [item["id"] for item in anonymous.get(back["path"]).json()["data"]] == ids[3:]


def test_prev_page_of_an_ascending_page_goes_back(api, anonymous, clock):
    ids = spaced_tenders(api, clock, 4)
    first = anonymous.get("/tenders", {"limit": "2"}).json()
    second = anonymous.get(first["next_page"]["path"]).json()
    assert [item["id"] for item in second["data"]] == ids[2:]
    prev = second["prev_page"]
    assert "descending=1" in prev["path"] and prev["offset"] == second["data"][0]["dateModified"]
    assert [item["id"] for item in anonymous.get(prev["path"]).json()["data"]] == [ids[1], ids[0]]


def test_opt_fields_adds_fields(api, anonymous, clock):
    tender = create_tender(api)
    clock.advance(minutes=1)
    data = anonymous.get("/tenders", {"opt_fields": "status,tenderID,nonsense,awards"}).json()[
        "data"
    ]
    assert data == [
        {
            "id": tender.id,
            "dateModified": tender.read()["dateModified"],
            "status": "active.enquiries",
            "tenderID": tender.read()["tenderID"],
        }
    ]


@pytest.mark.parametrize("limit", ["abc", "0", "-1", "1.5"])
def test_bad_limit_is_422(anonymous, limit):
    assert single_error(anonymous.get("/tenders", {"limit": limit}), 422) == {
        "location": "params",
        "name": "limit",
        "description": ["Should be a positive integer."],
    }


def test_limit_above_the_maximum_is_capped(api, anonymous, clock):
    spaced_tenders(api, clock, 2)
    assert len(anonymous.get("/tenders", {"limit": "5000"}).json()["data"]) == 2


def test_bad_offset_is_404(anonymous):
    assert single_error(anonymous.get("/tenders", {"offset": "yesterday"}), 404) == {
        "location": "params",
        "name": "offset",
        "description": "Offset expired/invalid",
    }


def test_offset_with_an_unencoded_plus_still_works(api, anonymous, clock):
    ids = spaced_tenders(api, clock, 2)
    offset = anonymous.get("/tenders", {"limit": "1"}).json()["next_page"]["offset"]
    response = anonymous.client.get(f"/api/2.3/tenders?offset={offset}")
    assert [item["id"] for item in response.json()["data"]] == ids[1:]


def test_empty_page_after_an_offset_keeps_the_offset(anonymous, clock):
    offset = iso(clock.now())
    body = anonymous.get("/tenders", {"offset": offset}).json()
    assert body["data"] == [] and body["next_page"]["offset"] == offset
    assert body["prev_page"]["offset"] == offset


def test_every_field_of_the_tender_reads_the_same_in_the_feed(api, anonymous, clock):
    """opt_fields answered from the tender's row (no part of it asked for) show exactly what
    the tender's own read shows, field by field; with a part asked for, the same."""
    tender = in_qualification(api, clock)
    whole = anonymous.get(tender.path).json()["data"]
    clock.advance(minutes=1)
    fields = [*whole, "nonsense"]
    parts = {"numberOfBids", "bids", "awards", "contracts", "cancellations", "documents"}
    columns = {"id", "tenderID", "status", "owner", "date", "title", "enquiryPeriod", "mode"}
    for asked in (
        ",".join(fields),
        ",".join(f for f in fields if f not in parts),
        ",".join(f for f in fields if f in columns),
        ",".join(f for f in fields if f in columns - {"owner"}),  # rows, not model objects
    ):
        (shown,) = anonymous.get("/tenders", {"opt_fields": asked}).json()["data"]
        expected = {"id": whole["id"], "dateModified": whole["dateModified"]}
        expected.update({f: whole[f] for f in asked.split(",") if f in whole})
        assert shown == expected
        assert list(shown) == list(expected)


def test_a_name_no_tender_has_reads_nothing_of_the_tenders(api, anonymous, clock, query_count):
    """opt_fields=x read every tender of the page whole (its document, its items), to show
    nothing: anyone could keep the workers busy with small requests."""
    years = {
        "code": "years",
        "featureOf": "tenderer",
        "title": "стаж",
        "enum": [{"value": 0, "title": "0"}],
    }
    tender = create_tender(api, **two_lots(), features=[years])
    question = {"title": "Питання", "description": "Чи можна?", "author": organization()}
    assert api.post(f"{tender.path}/questions", question).status_code == 201
    assert api.post(f"{tender.path}/complaints", CLAIM).status_code == 201
    whole = anonymous.get(tender.path).json()["data"]
    assert {"lots", "features", "questions", "items"} <= set(whole)
    clock.advance(minutes=1)
    assert TenderOut.known_fields(whole) == list(whole)  # every field a tender shows is known

    with query_count() as queries:
        (shown,) = anonymous.get("/tenders", {"opt_fields": "x,nonsense,data"}).json()["data"]

    assert shown == {"id": tender.id, "dateModified": whole["dateModified"]}
    assert not any('"data"' in query["sql"] for query in queries.captured_queries)


def test_a_caller_has_two_pages_of_large_fields_answered_at_once(api, anonymous, clock):
    """Rate limits count requests, not their cost: small requests each reading a page of large
    tenders whole held every worker (tests/concurrency/test_writes_in_flight.py shows the same
    places shared by the workers)."""
    create_tender(api)
    clock.advance(minutes=1)
    with ExitStack() as held:
        for _ in range(2):  # the two places of the address the test client comes from
            held.enter_context(
                limits.one_of_at_most("api-large-reads", "address:127.0.0.1", 2, 120)
            )
        refused = anonymous.get("/tenders", {"opt_fields": "items"})
        assert single_error(refused, 429)["description"] == (
            "Too many requests in progress. Try again later."
        )
        assert refused["Retry-After"] == "1"
        # Fields from the tender's row cost what any page does; another caller has its own.
        assert anonymous.get("/tenders", {"opt_fields": "status"}).status_code == 200
        assert api.get("/tenders", {"opt_fields": "items"}).status_code == 200
    assert anonymous.get("/tenders", {"opt_fields": "items"}).status_code == 200


def test_a_large_read_past_its_places_is_refused_before_anything_is_read(
    api, anonymous, clock, query_count
):
    """Refused before the broker's key is looked up: a client retrying at once costs little."""
    with ExitStack() as held:
        for _ in range(2):
            held.enter_context(limits.one_of_at_most("api-large-reads", "key:broker", 2, 120))
        with query_count() as captured:
            refused = api.get("/tenders", {"opt_fields": "status,bids"})
    assert refused.status_code == 429 and captured.captured_queries == []


def test_a_page_with_opt_fields_holds_at_most_its_bound(api, anonymous, clock, monkeypatch):
    """2.3: at most 100 objects a page when opt_fields is asked for (1,000 without)."""
    monkeypatch.setattr(feed, "MAX_LIMIT_WITH_FIELDS", 2)
    ids = spaced_tenders(api, clock, 3)
    assert len(anonymous.get("/tenders?limit=1000").json()["data"]) == 3
    page = anonymous.get("/tenders?limit=1000&opt_fields=status").json()
    assert [item["id"] for item in page["data"]] == ids[:2]
    assert follow(anonymous, "/tenders?opt_fields=status")[0] == ids


def test_a_page_of_large_fields_ends_past_its_bytes_and_the_crawl_misses_nothing(
    api, anonymous, clock, monkeypatch
):
    monkeypatch.setattr(feed, "FEED_PAGE_BYTES", 1)
    ids = spaced_tenders(api, clock, 3)
    # Two tenders stamped alike (the clock is frozen) stay on one page, however large it gets.
    tied = [create_tender(api).id for _ in range(2)]
    clock.advance(minutes=1)

    pages = []
    path = "/tenders?opt_fields=items"
    while body := anonymous.get(path).json():
        if not body["data"]:
            break
        pages.append([item["id"] for item in body["data"]])
        assert all("items" in item for item in body["data"])
        path = body["next_page"]["path"]

    assert pages == [[ids[0]], [ids[1]], [ids[2]], sorted(tied)]
    # Small fields are not weighed: the page is whole.
    assert len(anonymous.get("/tenders?opt_fields=status").json()["data"]) == 5
    # Read one tender at a time, a run stamped alike is still kept whole, nothing missed.
    monkeypatch.setattr(feed, "FIRST_CHUNK", 1)
    monkeypatch.setattr(feed, "FEED_PAGE_BYTES", 10**9)
    body = anonymous.get("/tenders?opt_fields=items&limit=4").json()
    assert [item["id"] for item in body["data"]] == [*ids, *sorted(tied)]  # the run kept whole
    assert follow(anonymous, "/tenders?opt_fields=items&limit=2")[0] == [*ids, *sorted(tied)]


def test_a_page_cut_for_its_bytes_reads_few_more_tenders_than_it_shows(
    api, anonymous, clock, monkeypatch, query_count
):
    monkeypatch.setattr(feed, "FEED_PAGE_BYTES", 1)
    spaced_tenders(api, clock, 20)
    with query_count() as captured:
        page = anonymous.get("/tenders?opt_fields=items").json()["data"]
    assert len(page) == 1
    reads = [q["sql"] for q in captured.captured_queries if "ORDER BY" in q["sql"]]
    assert len(reads) == 1 and reads[0].endswith(f"LIMIT {feed.FIRST_CHUNK}")  # (was all 20)


def test_the_feed_keeps_the_reads_of_a_bounded_number_of_column_sets():
    from itertools import combinations

    from tenders.api.feed import feed_rows

    columns = ["status", "title", "mode", "date", "tender_id", "description", "next_check"]
    sets = [list(chosen) for size in (1, 2, 3, 4) for chosen in combinations(columns, size)][:70]
    first = feed_rows("", sets[0])
    assert feed_rows("", sets[0]) is first  # kept
    for chosen in sets[1:]:
        feed_rows("", chosen)
    assert feed_rows("", sets[0]) is not first  # 69 other sets later, no longer kept
