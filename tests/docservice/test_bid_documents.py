"""A bid's papers: the bidder's, sealed with the bid while tendering is open (nobody else may
even list them), public with the bids once tendering has closed; changed in qualification only
while the bid's award is pending (2.3)."""

import pytest

from tenders.models import Bid, BidDocument
from tests.docservice.helpers import document, download, md5
from tests.helpers import bid_data, close_tendering, open_for_bids, place_bid, single_error

pytestmark = pytest.mark.django_db

LICENCE = b"%PDF the licence the claim says is missing"


@pytest.fixture
def tendering(api, api2, clock):
    """A tender open for bids with two bids of broker2: (tender, [(bid path, bid token)])."""
    tender = open_for_bids(api, clock)
    bids = []
    for amount, identifier in ((400, "00000001"), (450, "00000002")):
        bid_id, token = place_bid(api2, tender, amount, identifier=identifier)
        bids.append((f"{tender.path}/bids/{bid_id}", token))
    return tender, bids


def test_sealed_while_tendering_is_open(api, api2, anonymous, ds, tendering):
    tender, [(bid, token), _] = tendering

    response = api2.post(f"{bid}/documents", document(ds, LICENCE, "Ліцензія.pdf"), token=token)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["author"], data["hash"]) == ("bid_owner", md5(LICENCE))
    assert api2.get(f"{bid}/documents", token=token).json()["data"] == [data]
    assert api2.get(bid, token=token).json()["data"]["documents"] == [data]
    for reader in (api, anonymous):
        assert single_error(reader.get(f"{bid}/documents"), 403)["description"] == (
            "Can't view bid documents in current (active.tendering) tender status"
        )
        assert single_error(reader.get(f"{bid}/documents/{data['id']}"), 403)["description"] == (
            "Can't view bid document in current (active.tendering) tender status"
        )
    assert "bids" not in tender.read()


def test_public_with_the_bids_once_tendering_closes(anonymous, api2, ds, tendering, clock):
    tender, [(bid, token), _] = tendering
    data = api2.post(f"{bid}/documents", document(ds, LICENCE), token=token).json()["data"]
    close_tendering(tender, clock)

    listed = anonymous.get(f"{bid}/documents").json()["data"]
    # (the url: the API's while sealed, a signed document-service one once opened, as 2.3)
    assert [{**doc, "url": None} for doc in listed] == [{**data, "url": None}]
    assert tender.read()["bids"][0]["documents"] == listed
    assert download(anonymous, ds, data["url"])[0] == LICENCE
    assert download(anonymous, ds, listed[0]["url"])[0] == LICENCE


def test_in_qualification_only_the_bid_whose_award_is_pending(api2, ds, tendering, clock):
    tender, [(low, low_token), (high, high_token)] = tendering
    close_tendering(tender, clock)

    answered = api2.post(f"{low}/documents", document(ds, LICENCE), token=low_token)
    refused = api2.post(f"{high}/documents", document(ds, b"%PDF late"), token=high_token)

    assert answered.status_code == 201, answered.content
    assert single_error(refused, 403) == {
        "location": "body",
        "name": "data",
        "description": "Can't add document because award of bid is not in pending state",
    }
    assert BidDocument.objects.count() == 1


def test_only_the_bidder_adds_them(api, ds, tendering):
    tender, [(bid, _token), _] = tendering
    response = api.post(f"{bid}/documents", document(ds, LICENCE), token=tender.token)
    assert single_error(response, 403)["name"] == "permission"
    assert not BidDocument.objects.exists()


def test_a_withdrawn_bid_takes_no_documents(api2, ds, tendering):
    _tender, [(bid, token), _] = tendering
    assert api2.delete(bid, token=token).status_code == 200

    response = api2.post(f"{bid}/documents", document(ds, LICENCE), token=token)

    # 2.3 removes a withdrawn bid: its documents' path is gone with it.
    assert single_error(response, 404)["name"] == "bid_id"
    assert not BidDocument.objects.exists()


def test_documents_sent_with_the_bid_are_kept_with_it(api2, ds, clock, api):
    tender = open_for_bids(api, clock)
    sent = document(ds, LICENCE, "Ліцензія.pdf", documentType="qualificationDocuments")
    body = {**bid_data(400), "documents": [sent]}

    response = api2.post(f"{tender.path}/bids", body)

    assert response.status_code == 201, response.content
    bid = response.json()["data"]
    [kept] = bid["documents"]
    assert (kept["title"], kept["hash"], kept["author"]) == (
        "Ліцензія.pdf",
        md5(LICENCE),
        "bid_owner",
    )
    token = response.json()["access"]["token"]
    path = f"{tender.path}/bids/{bid['id']}/documents"
    assert api2.get(path, token=token).json()["data"] == [kept]


def test_a_bid_whose_document_is_refused_is_not_placed(api2, ds, clock, api):
    tender = open_for_bids(api, clock)
    body = {**bid_data(400), "documents": [{"title": "без адреси.pdf"}]}

    response = api2.post(f"{tender.path}/bids", body)

    assert response.status_code == 422
    assert [error["name"] for error in response.json()["errors"]] == ["documents"]
    assert not BidDocument.objects.exists() and not Bid.objects.exists()
