"""The address of a bid's paper, as 2.3 answers it: while bids are sealed, the API's own
(`.../bids/{bid}/documents/{doc}?download=<key>`), which asks who reads before it redirects to
the content, so that the address given to anyone opens nothing but for the bidder; once bids
are opened, a signed document-service address, and the API's address opens for everyone."""

from urllib.parse import parse_qs, urlsplit

import pytest

from core.schema import parse_iso
from tests.docservice.helpers import document, download, fetched, key_of
from tests.helpers import BASE, bid_data, close_tendering, open_for_bids, place_bid, single_error

pytestmark = pytest.mark.django_db

LICENCE = b"%PDF the bidder's licence"
OFFER = b"%PDF the priced offer"
REVISED = b"%PDF the priced offer, revised"


@pytest.fixture
def sealed(api, api2, ds, clock):
    """A tender open for bids with two bids of broker2, the first carrying a paper sent with
    it: (tender, [(bid path, bid token)], the paper as its POST answered)."""
    tender = open_for_bids(api, clock)
    sent = document(ds, LICENCE, "Ліцензія.pdf")
    response = api2.post(
        f"{tender.path}/bids", {**bid_data(400, identifier="00000001"), "documents": [sent]}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    tender.bids.append((body["data"]["id"], body["access"]["token"]))
    place_bid(api2, tender, 450, identifier="00000002")
    bids = [(f"{tender.path}/bids/{bid_id}", token) for bid_id, token in tender.bids]
    [paper] = body["data"]["documents"]
    return tender, bids, paper


def api_address(bid_path: str, doc: dict, key: str) -> str:
    return f"http://testserver{BASE}{bid_path}/documents/{doc['id']}?download={key}"


def signed_by_the_registry(url: str) -> bool:
    """A permanent signed document-service address (KeyID and Signature, no Expires)."""
    parts = urlsplit(url)
    return parts.path.startswith("/ds/get/") and set(parse_qs(parts.query)) == {
        "KeyID",
        "Signature",
    }


def test_a_sealed_paper_is_answered_with_the_api_address_in_every_read(api2, ds, sealed):
    _tender, [(bid, token), _], paper = sealed
    registered = document(ds, OFFER, "Пропозиція.pdf")
    revised = document(ds, REVISED, "Пропозиція.pdf")

    added = api2.post(f"{bid}/documents", registered, token=token).json()["data"]
    doc = f"{bid}/documents/{added['id']}"
    replaced = api2.put(doc, revised, token=token).json()["data"]
    patched = api2.patch(doc, {"description": "ціна"}, token=token).json()["data"]

    licence = api_address(bid, paper, paper["url"].rsplit("=", 1)[1])
    first = api_address(bid, added, key_of(registered))
    second = api_address(bid, added, key_of(revised))
    assert paper["url"] == licence  # the bid's own POST
    assert (added["url"], replaced["url"], patched["url"]) == (first, second, second)
    read_bid = api2.get(bid, token=token)
    listed = api2.get(f"{bid}/documents", token=token)
    every = api2.get(f"{bid}/documents", {"all": "1"}, token=token)
    one = api2.get(doc, token=token)
    assert [d["url"] for d in read_bid.json()["data"]["documents"]] == [licence, first, second]
    assert [d["url"] for d in listed.json()["data"]] == [licence, second]
    assert [d["url"] for d in every.json()["data"]] == [licence, first, second]
    assert one.json()["data"]["url"] == second
    assert [d["url"] for d in one.json()["data"]["previousVersions"]] == [first]
    for response in (read_bid, listed, every, one):
        # no signed document-service address of a sealed paper is handed out
        assert b"/ds/get/" not in response.content


@pytest.mark.parametrize("stage", ["active.tendering", "active.auction"])
def test_before_bids_are_opened_the_address_opens_nothing_but_for_the_bidder(
    api, api2, anonymous, ds, sealed, clock, stage
):
    tender, [(_bid, token), (_other, other_token)], paper = sealed
    if stage == "active.auction":
        clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]))
        clock.advance(minutes=1)
    assert tender.read()["status"] == stage
    address = paper["url"].replace("http://testserver", "")
    unknown = address.rsplit("=", 1)[0] + "=" + "0" * 32
    refusal = {
        "location": "body",
        "name": "data",
        "description": f"Can't view bid document in current ({stage}) tender status",
    }

    for reader, reader_token in (
        (anonymous, None),
        (api, None),  # another broker
        (api2, other_token),  # another bidder
        (api, tender.token),  # the buyer
    ):
        for asked in (address, unknown):
            response = reader.get(asked, token=reader_token)
            assert single_error(response, 403) == refusal
            assert "Location" not in response

    response = api2.get(address, token=token)
    assert response.status_code == 302
    assert {"KeyID", "Signature", "Expires"} <= set(parse_qs(urlsplit(response["Location"]).query))
    assert fetched(ds, response["Location"])[0] == LICENCE
    assert single_error(api2.get(unknown, token=token), 404) == {
        "location": "url",
        "name": "download",
        "description": "Not Found",
    }


def test_once_bids_are_opened_anyone_follows_the_address(api, api2, anonymous, ds, sealed, clock):
    tender, [_bid, (_other, other_token)], paper = sealed
    address = paper["url"]
    close_tendering(tender, clock)

    assert download(anonymous, ds, address)[0] == LICENCE
    for reader, reader_token in ((api, tender.token), (api2, other_token)):
        response = reader.get(address.replace("http://testserver", ""), token=reader_token)
        assert response.status_code == 302
        assert fetched(ds, response["Location"])[0] == LICENCE


def test_once_bids_are_opened_reads_show_the_signed_address_as_2_3_does(
    api, anonymous, ds, sealed, clock
):
    tender, [(bid, _token), _], paper = sealed
    close_tendering(tender, clock)
    clock.advance(minutes=1)  # (the feed shows what changed before this moment)

    shown = [
        tender.read()["bids"][0]["documents"][0],
        anonymous.get(bid).json()["data"]["documents"][0],
        anonymous.get(f"{tender.path}/bids").json()["data"][0]["documents"][0],
        anonymous.get(f"{bid}/documents").json()["data"][0],
        anonymous.get(f"{bid}/documents/{paper['id']}").json()["data"],
        next(
            each["bids"][0]["documents"][0]
            for each in anonymous.get("/tenders", {"opt_fields": "bids", "mode": "_all_"}).json()[
                "data"
            ]
            if each["id"] == tender.id
        ),
    ]

    assert all(signed_by_the_registry(doc["url"]) for doc in shown), shown
    assert {doc["url"] for doc in shown} == {shown[0]["url"]}
    assert fetched(ds, shown[0]["url"])[0] == LICENCE


def test_a_tender_cancelled_before_bids_are_opened_keeps_its_papers_sealed(
    api, api2, anonymous, sealed
):
    tender, [(bid, token), _], paper = sealed
    cancelled = api.post(
        f"{tender.path}/cancellations",
        {"reason": "закупівля більше не потрібна", "status": "active"},
        token=tender.token,
    )
    assert cancelled.status_code == 201, cancelled.content
    assert tender.read()["status"] == "cancelled"

    [shown] = api2.get(f"{bid}/documents", token=token).json()["data"]
    assert shown["url"] == paper["url"]
    response = anonymous.get(paper["url"].replace("http://testserver", ""))
    assert single_error(response, 403)["description"] == (
        "Can't view bid document in current (cancelled) tender status"
    )
