"""How much one request may be: a tender holds at most MAX_ITEMS items, MAX_LOTS lots,
MAX_FEATURES features of MAX_FEATURE_VALUES values, MAX_BIDS bids; an item or a party at most
MAX_CLASSIFICATIONS further codes; every object at most MAX_DOCUMENTS documents. Past a bound the
request is refused 422 in the words 2.3's schemas use for a list too long, and nothing changes.
A write costs the same number of statements however many items it carries."""

import pytest

from complaints.models import queries as complaint_queries
from tenders import documents as tender_documents
from tenders.models import Tender, bidding, questions
from tenders.models import tender as tender_model
from tenders.schema import (
    MAX_CLASSIFICATIONS,
    MAX_DOCUMENTS,
    MAX_FEATURE_VALUES,
    MAX_FEATURES,
    MAX_ITEMS,
    MAX_LOTS,
)
from tests.docservice.helpers import DocService, document
from tests.helpers import (
    CLAIM,
    FIRST,
    SECOND,
    bid_data,
    create_tender,
    item,
    lot,
    offer,
    open_for_bids,
    open_two_lots,
    organization,
    place_bid,
    single_error,
    tender_data,
    two_lots,
)

pytestmark = pytest.mark.django_db


QUESTION = {"author": organization("ДКП «Школяр»", "00137226"), "title": "Калорійність"}


def lot_id(n: int) -> str:
    return f"{n + 1:032x}"


def too_many(response, name: str, most: int) -> None:
    assert single_error(response, 422) == {
        "location": "body",
        "name": name,
        "description": [f"Please provide no more than {most} items."],
    }


def items(count: int, lot: str | None = None) -> list[dict]:
    return [item(lot, f"предмет {n}") for n in range(count)]


def feature(code: str, values: int) -> dict:
    return {
        "code": code,
        "featureOf": "tenderer",
        "title": code,
        "enum": [{"value": n / 1000, "title": f"{n}"} for n in range(values)],
    }


def test_a_tender_of_the_most_items_is_taken(api):
    response = api.post("/tenders", tender_data(items=items(MAX_ITEMS)))
    assert response.status_code == 201
    assert len(response.json()["data"]["items"]) == MAX_ITEMS


@pytest.mark.parametrize(
    ("name", "most", "overrides"),
    [
        ("items", MAX_ITEMS, lambda: {"items": items(MAX_ITEMS + 1)}),
        (
            "lots",
            MAX_LOTS,
            lambda: {
                "lots": [lot(lot_id(n), 300) for n in range(MAX_LOTS + 1)],
                "items": [item(lot_id(0), "футляри")],
            },
        ),
        (
            "features",
            MAX_FEATURES,
            lambda: {"features": [feature(f"f{n}", 2) for n in range(MAX_FEATURES + 1)]},
        ),
    ],
    ids=["items", "lots", "features"],
)
def test_a_tender_past_a_bound_is_refused_and_nothing_is_kept(api, name, most, overrides):
    too_many(api.post("/tenders", tender_data(**overrides())), name, most)
    assert not Tender.objects.exists()


def test_a_feature_of_too_many_values_is_refused(api):
    response = api.post("/tenders", tender_data(features=[feature("f", MAX_FEATURE_VALUES + 1)]))
    entry = single_error(response, 422)
    assert entry["name"] == "features"
    assert entry["description"] == [
        {"enum": [f"Please provide no more than {MAX_FEATURE_VALUES} items."]}
    ]


def test_an_item_of_too_many_classifications_is_refused(api):
    crowded = item(None, "футляри")
    crowded["additionalClassifications"] = [
        {"scheme": "ДКПП", "id": f"17.21.{n}", "description": "папір"}
        for n in range(MAX_CLASSIFICATIONS + 1)
    ]
    entry = single_error(api.post("/tenders", tender_data(items=[crowded])), 422)
    assert entry["name"] == "items"
    assert entry["description"] == [
        {"additionalClassifications": [f"Please provide no more than {MAX_CLASSIFICATIONS} items."]}
    ]


def test_a_lot_past_the_most_is_refused_and_the_tender_keeps_its_lots(api):
    tender = create_tender(
        api,
        lots=[lot(lot_id(n), 300) for n in range(MAX_LOTS)],
        items=[item(lot_id(0), "футляри")],
    )
    refused = api.post(f"{tender.path}/lots", lot(lot_id(MAX_LOTS), 300), token=tender.token)
    too_many(refused, "lots", MAX_LOTS)
    assert len(tender.read()["lots"]) == MAX_LOTS


def test_a_bid_past_the_most_is_refused(api, api2, clock, monkeypatch):
    monkeypatch.setattr(bidding, "MAX_BIDS", 2)
    tender = open_for_bids(api, clock)
    place_bid(api2, tender, 450)
    place_bid(api, tender, 440, identifier="00000002")

    too_many(api2.post(f"{tender.path}/bids", bid_data(430, identifier="00000003")), "bids", 2)
    assert Tender.objects.get().bids.count() == 2


def test_no_one_broker_fills_a_tender_and_withdrawn_bids_do_not_count(
    api, api2, clock, monkeypatch
):
    """One caller's drafts cannot shut the others out: each broker (or organization) places at
    most MAX_BIDS_OF_ONE; a bid withdrawn makes room again."""
    monkeypatch.setattr(bidding, "MAX_BIDS_OF_ONE", 2)
    tender = open_for_bids(api, clock)
    drafts = [
        api2.post(
            f"{tender.path}/bids",
            {**bid_data(400 + n, identifier=f"0000001{n}"), "status": "draft"},
        )
        for n in range(2)
    ]
    assert [answer.status_code for answer in drafts] == [201, 201]

    refused = api2.post(f"{tender.path}/bids", bid_data(430, identifier="00000003"))
    assert single_error(refused, 422) == {
        "location": "body",
        "name": "bids",
        "description": ["One broker or organization has at most 2 bids on a tender"],
    }
    assert api.post(f"{tender.path}/bids", bid_data(440, identifier="00000004")).status_code == 201

    withdrawn = drafts[0].json()
    path = f"{tender.path}/bids/{withdrawn['data']['id']}"
    assert api2.delete(path, token=withdrawn["access"]["token"]).status_code == 200
    assert api2.post(f"{tender.path}/bids", bid_data(430, identifier="00000003")).status_code == 201


def test_a_bid_for_too_many_lots_is_refused(api2, api, clock):
    tender = open_two_lots(api, clock)
    offers = [offer(FIRST if n % 2 else SECOND, 100) for n in range(MAX_LOTS + 1)]
    bid = {**bid_data(), "lotValues": offers}
    del bid["value"]
    entry = single_error(api2.post(f"{tender.path}/bids", bid), 422)
    assert entry["name"] == "lotValues"
    assert entry["description"] == [f"Please provide no more than {MAX_LOTS} items."]


def test_a_document_past_the_most_is_refused_and_not_kept(api, client, monkeypatch):
    monkeypatch.setattr(tender_documents, "MAX_DOCUMENTS", 2)
    tender = create_tender(api)
    ds = DocService(client)
    path = f"{tender.path}/documents"
    for name in ("перший.pdf", "другий.pdf"):
        assert api.post(path, document(ds, name=name), token=tender.token).status_code == 201

    too_many(api.post(path, document(ds, name="третій.pdf"), token=tender.token), "documents", 2)
    assert len(api.get(path).json()["data"]) == 2


def test_a_tender_write_costs_the_same_statements_however_many_items(api, query_count):
    def statements(count: int) -> int:
        with query_count() as captured:
            response = api.post("/tenders", tender_data(**two_lots(items=items(count, FIRST))))
        assert response.status_code == 201, response.content
        return len(captured.captured_queries)

    assert statements(1) == statements(300)


def test_questions_past_the_bounds_are_refused(api, api2, anonymous, monkeypatch):
    monkeypatch.setattr(questions, "MAX_QUESTIONS", 3)
    monkeypatch.setattr(questions, "MAX_QUESTIONS_OF_ONE", 2)
    tender = create_tender(api)
    path = f"{tender.path}/questions"
    for _ in range(2):
        assert api2.post(path, QUESTION).status_code == 201
    assert single_error(api2.post(path, QUESTION), 422)["description"] == [
        "One broker or organization has at most 2 questions on a tender"
    ]
    assert api.post(path, QUESTION).status_code == 201  # another broker asks
    too_many(api.post(path, QUESTION), "questions", 3)
    assert len(anonymous.get(path).json()["data"]) == 3


def test_claims_past_the_bounds_are_refused(api, api2, monkeypatch):
    monkeypatch.setattr(complaint_queries, "MAX_CLAIMS", 3)
    monkeypatch.setattr(complaint_queries, "MAX_CLAIMS_OF_ONE", 2)
    tender = create_tender(api)
    path = f"{tender.path}/complaints"
    for _ in range(2):  # (drafts count too)
        assert api2.post(path, CLAIM).status_code == 201
    assert single_error(api2.post(path, CLAIM), 422)["description"] == [
        "One broker or organization has at most 2 complaints on a tender"
    ]
    assert api.post(path, CLAIM).status_code == 201
    too_many(api.post(path, CLAIM), "complaints", 3)


def test_cancellations_past_the_bound_are_refused(api, monkeypatch):
    monkeypatch.setattr(tender_model, "MAX_CANCELLATIONS", 1)
    tender = create_tender(api)
    path = f"{tender.path}/cancellations"
    assert api.post(path, {"reason": "не потрібен"}, token=tender.token).status_code == 201
    too_many(api.post(path, {"reason": "ще раз"}, token=tender.token), "cancellations", 1)


def test_a_bid_sent_with_too_many_documents_is_refused_before_any_is_read(api, api2, clock):
    tender = open_for_bids(api, clock)
    # (not one of them could be attached: they are refused for their number alone)
    documents = [{"title": "x"}] * (MAX_DOCUMENTS + 1)
    too_many(
        api2.post(f"{tender.path}/bids", {**bid_data(), "documents": documents}),
        "documents",
        MAX_DOCUMENTS,
    )
    assert not Tender.objects.get().bids.exists()
