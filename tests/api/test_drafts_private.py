"""Drafts are their owner's alone in the API: a draft tender, a draft claim and an answer saved
but not sent are found by the broker that made them (its key) or with their own token, and by
nobody else, in any read path (a deliberate difference from 2.3, which listed draft claims)."""

import pytest

from tests.docservice.helpers import DocService, document, key_of
from tests.helpers import ANSWER, Claims, create_tender

pytestmark = pytest.mark.django_db


def not_found(response, name="tender_id") -> bool:
    body = response.json()
    return response.status_code == 404 and body["errors"][0]["name"] == name


@pytest.fixture
def draft(api, client, brokers):
    """A draft tender of `broker`, with a document."""
    tender = create_tender(api, status="draft")
    response = api.post(
        f"{tender.path}/documents", document(DocService(client)), token=tender.token
    )
    assert response.status_code == 201, response.content
    return tender, response.json()["data"]


# --- a draft tender --------------------------------------------------------------------------


def test_a_draft_tender_is_read_by_its_broker_and_with_its_token(api, anonymous, draft):
    tender, _document = draft

    assert api.get(tender.path).json()["data"]["status"] == "draft"
    assert anonymous.get(tender.path, token=tender.token).status_code == 200


def test_a_draft_tender_is_not_found_by_anyone_else(api2, anonymous, draft):
    tender, doc = draft
    paths = [
        tender.path,
        f"{tender.path}/documents",
        f"{tender.path}/documents/{doc['id']}",
        f"{tender.path}/bids",
        f"{tender.path}/awards",
        f"{tender.path}/contracts",
        f"{tender.path}/cancellations",
    ]
    for reader in (api2, anonymous):
        for path in paths:
            assert not_found(reader.get(path)), path
        download = reader.get(f"{tender.path}/documents/{doc['id']}", {"download": key_of(doc)})
        assert not_found(download)


def test_writes_to_another_brokers_draft_find_nothing(api2, draft):
    tender, _document = draft

    assert not_found(api2.patch(tender.path, {"title": "чуже"}))
    assert not_found(api2.post(f"{tender.path}/cancellations", {"reason": "чуже"}))
    assert not_found(api2.post(f"{tender.path}/bids", {"value": {"amount": 1}}))


def test_a_draft_tender_is_in_no_feed(api, api2, anonymous, draft, clock):
    tender, _document = draft
    clock.advance(minutes=1)  # long settled: the feed would show it if it showed drafts

    for reader in (api, api2, anonymous):
        for params in ({}, {"mode": "_all_"}, {"opt_fields": "status"}):
            listed = reader.get("/tenders", params).json()["data"]
            assert tender.id not in {item["id"] for item in listed}


def test_a_draft_cancelled_before_it_was_published_stays_its_brokers(
    api, api2, anonymous, draft, clock
):
    tender, _document = draft
    cancelled = api.post(
        f"{tender.path}/cancellations",
        {"reason": "Передумали", "status": "active"},
        token=tender.token,
    )
    assert cancelled.status_code == 201, cancelled.content
    clock.advance(minutes=1)

    assert api.get(tender.path).json()["data"]["status"] == "cancelled"
    for reader in (api2, anonymous):
        assert not_found(reader.get(tender.path))
        listed = reader.get("/tenders", {"mode": "_all_"}).json()["data"]
        assert tender.id not in {item["id"] for item in listed}


def test_a_published_tender_is_found_by_everyone(api, api2, anonymous, draft, clock):
    tender, _document = draft

    assert tender.patch({"status": "active.enquiries"}).status_code == 200
    clock.advance(minutes=1)  # settled, so the feed shows it

    for reader in (api2, anonymous):
        assert reader.get(tender.path).json()["data"]["status"] == "active.enquiries"
        assert tender.id in {item["id"] for item in reader.get("/tenders").json()["data"]}


# --- a draft claim ---------------------------------------------------------------------------


@pytest.fixture
def claims(api, api2, clock):
    return Claims(api, api2, clock, decision="active")


@pytest.fixture
def draft_claim(claims, client):
    """A draft claim of broker2 (the bidder's broker), with a document, beside a submitted one."""
    claims.filed(status="claim")
    claim, token = claims.filed()
    documents = f"{claims.path}/{claim['id']}/documents"
    response = claims.api2.post(documents, document(DocService(client, key="broker2")), token=token)
    assert response.status_code == 201, response.content
    return claim, token, response.json()["data"]


def every_read(claims, reader, claim, doc, token=None) -> dict:
    """Where a reader may meet a claim: its id as each read path shows it (None: absent)."""
    one = f"{claims.path}/{claim['id']}"
    claims.clock.advance(seconds=10)  # settled, so the feed shows the tender
    tender = reader.get(claims.tender.path, token=token).json()["data"]
    award = reader.get(f"{claims.tender.path}/awards/{claims.award['id']}", token=token)
    feed = reader.get("/tenders", {"opt_fields": "awards"}).json()["data"]
    [listed_tender] = [item for item in feed if item["id"] == claims.tender.id]
    download = reader.get(f"{one}/documents/{doc['id']}", {"download": key_of(doc)}, token=token)
    return {
        "claim": reader.get(one, token=token).status_code,
        "list": claim["id"]
        in {c["id"] for c in reader.get(claims.path, token=token).json()["data"]},
        "tender": claim["id"] in {c["id"] for c in tender["awards"][0].get("complaints", [])},
        "award": claim["id"] in {c["id"] for c in award.json()["data"].get("complaints", [])},
        "feed": claim["id"] in {c["id"] for c in listed_tender["awards"][0].get("complaints", [])},
        "documents": reader.get(f"{one}/documents", token=token).status_code,
        "document": reader.get(f"{one}/documents/{doc['id']}", token=token).status_code,
        "download": download.status_code,
    }


def test_a_draft_claim_is_found_by_its_broker_in_every_read_path(claims, draft_claim):
    claim, _token, doc = draft_claim

    assert every_read(claims, claims.api2, claim, doc) == {
        "claim": 200, "list": True, "tender": True, "award": True, "feed": True,
        "documents": 200, "document": 200, "download": 302,
    }  # fmt: skip


def test_a_draft_claim_is_found_with_its_token_alone(claims, anonymous, draft_claim):
    claim, token, doc = draft_claim

    found = every_read(claims, anonymous, claim, doc, token=token)

    assert found["claim"] == 200 and found["list"] and found["tender"] and found["award"]
    assert found["download"] == 302


@pytest.mark.parametrize("who", ["tender_owner", "anonymous"])
def test_a_draft_claim_is_found_by_nobody_else(claims, anonymous, draft_claim, who):
    claim, _token, doc = draft_claim
    reader = claims.api if who == "tender_owner" else anonymous
    token = claims.tender.token if who == "tender_owner" else None

    assert every_read(claims, reader, claim, doc, token=token) == {
        "claim": 404, "list": False, "tender": False, "award": False, "feed": False,
        "documents": 404, "document": 404, "download": 404,
    }  # fmt: skip


def test_a_submitted_claim_is_found_by_everyone(claims, anonymous, draft_claim):
    claim, token, doc = draft_claim

    claims.patch(claim, {"status": "claim"}, token)

    found = every_read(claims, anonymous, claim, doc)
    assert found["claim"] == 200 and found["list"] and found["feed"] and found["download"] == 302


# --- an answer saved but not sent ------------------------------------------------------------

ANSWER_FIELDS = {"resolution", "resolutionType", "tendererAction", "tendererActionDate"}


def answer_fields_seen(claims, reader, claim, token=None) -> set:
    one = reader.get(f"{claims.path}/{claim['id']}", token=token).json()["data"]
    listed = reader.get(claims.path, token=token).json()["data"]
    embedded = reader.get(claims.tender.path, token=token).json()["data"]["awards"][0]
    [in_list] = [c for c in listed if c["id"] == claim["id"]]
    [in_tender] = [c for c in embedded["complaints"] if c["id"] == claim["id"]]
    seen = [set(one) & ANSWER_FIELDS, set(in_list) & ANSWER_FIELDS, set(in_tender) & ANSWER_FIELDS]
    assert seen[0] == seen[1] == seen[2]
    return seen[0]


def test_a_prepared_answer_is_the_tender_owners_until_it_is_sent(claims, anonymous):
    claim, token = claims.filed(status="claim")
    prepared = {key: value for key, value in ANSWER.items() if key != "status"}
    response = claims.owner_patch(claim, prepared)
    assert response.status_code == 200 and response.json()["data"]["resolution"]

    assert answer_fields_seen(claims, claims.api, claim, claims.tender.token) == ANSWER_FIELDS
    assert answer_fields_seen(claims, claims.api2, claim, token) == set()
    assert answer_fields_seen(claims, anonymous, claim) == set()

    claims.owner_patch(claim, {"status": "answered"})

    assert answer_fields_seen(claims, anonymous, claim) == ANSWER_FIELDS


def test_an_answer_never_sent_stays_hidden_after_the_claim_is_withdrawn(claims, anonymous):
    claim, token = claims.filed(status="claim")
    claims.owner_patch(claim, {"resolution": ANSWER["resolution"], "resolutionType": "declined"})

    claims.patch(claim, {"status": "cancelled", "cancellationReason": "Знято"}, token)

    assert answer_fields_seen(claims, anonymous, claim) == set()
    assert answer_fields_seen(claims, claims.api, claim, claims.tender.token) == {
        "resolution",
        "resolutionType",
    }
