"""A tender's 2.3 representation is kept with it (tenders/api/stored.py): a tender or claim read
again is one query and the same bytes, every change empties it, and a reader who sees more than
the public (a claimant's draft, an answer not sent) is never given the public's text. That the
kept text always equals a fresh rendering is checked after every test (tests/conftest.py)."""

from datetime import timedelta

import pytest

from core.schema import parse_iso
from tenders.models import Tender
from tests.docservice.helpers import multipart
from tests.helpers import Claims, create_tender, open_for_bids

pytestmark = pytest.mark.django_db


def kept_text(tender) -> str:
    return Tender.objects.get(pk=tender.id).public_text


def test_a_tender_read_again_is_one_query_and_the_same_bytes(
    api, api2, anonymous, clock, query_count
):
    claims = Claims(api, api2, clock, decision="active")  # bids, an award, a contract
    claims.filed(status="claim")
    tender = claims.tender
    first = anonymous.get(tender.path)
    assert kept_text(tender)
    with query_count() as captured:
        again = anonymous.get(tender.path)
    assert len(captured.captured_queries) == 1
    assert again.content == first.content and again["Content-Type"] == first["Content-Type"]


def test_a_claim_read_again_is_one_query_and_the_same_as_rendered(api, api2, clock, query_count):
    claims = Claims(api, api2, clock)
    complaint, _token = claims.filed(status="claim")
    path = f"{claims.path}/{complaint['id']}"
    rendered = api2.get(path).content  # the tender rendered, and kept
    assert kept_text(claims.tender)
    with query_count() as captured:
        kept = api2.get(path)
    assert kept.content == rendered
    assert len(captured.captured_queries) <= 2  # the broker's key, the tender's row


def test_every_change_empties_it_and_the_next_read_shows_the_change(api, anonymous, clock):
    tender = create_tender(api)
    anonymous.get(tender.path)
    assert kept_text(tender)
    assert tender.patch({"description": "Нові умови"}).status_code == 200
    assert kept_text(tender) == ""
    assert anonymous.get(tender.path).json()["data"]["description"] == "Нові умови"


def test_a_time_driven_change_is_applied_not_hidden_by_the_kept_text(api, anonymous, clock):
    tender = open_for_bids(api, clock)
    assert anonymous.get(tender.path).json()["data"]["status"] == "active.tendering"
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    assert anonymous.get(tender.path).json()["data"]["status"] == "unsuccessful"


def test_a_draft_claim_is_shown_to_its_author_though_the_public_text_is_kept(
    api, api2, anonymous, clock, query_count
):
    claims = Claims(api, api2, clock)
    draft, _token = claims.filed()
    public = anonymous.get(claims.tender.path).json()["data"]
    assert public["awards"][0].get("complaints", []) == []
    assert Tender.objects.get(pk=claims.tender.id).others_see_more
    with query_count() as captured:
        mine = api2.get(claims.tender.path).json()["data"]
    # Rendered for its author alone: the kept text, current, is neither rendered nor written.
    assert not any(q["sql"].startswith("UPDATE") for q in captured.captured_queries)
    assert [c["id"] for c in mine["awards"][0]["complaints"]] == [draft["id"]]
    assert api2.get(f"{claims.path}/{draft['id']}").json()["data"]["status"] == "draft"
    assert anonymous.get(f"{claims.path}/{draft['id']}").status_code == 404


def test_an_answer_not_sent_stays_the_buyers_though_the_public_text_is_kept(api, api2, clock):
    claims = Claims(api, api2, clock)
    complaint, _token = claims.filed(status="claim")
    prepared = {"resolution": "Ми розглянемо це питання докладно.", "resolutionType": "resolved"}
    assert claims.owner_patch(complaint, prepared).status_code == 200
    api2.get(claims.tender.path)  # kept: the public's text, without the answer
    assert api2.get(f"{claims.path}/{complaint['id']}").json()["data"].get("resolution") is None
    owner = api.get(f"{claims.path}/{complaint['id']}", token=claims.tender.token).json()["data"]
    assert owner["resolution"] == prepared["resolution"]


def test_documents_name_the_document_service_of_the_host_asked(api, anonymous, settings):
    settings.ALLOWED_HOSTS = ["testserver", "other.example"]
    tender = create_tender(api)
    body, content_type = multipart("protocol.pdf", b"%PDF-1.4 " * 20)
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert response.status_code == 201, response.content
    here = anonymous.get(tender.path).json()["data"]["documents"][0]["url"]
    there = anonymous.get(tender.path, HTTP_HOST="other.example").json()["data"]["documents"]
    assert here.startswith("http://testserver/ds/get/")
    assert there[0]["url"] == here.replace("http://testserver/", "http://other.example/")


def test_a_kept_read_is_indented_when_asked_like_a_rendered_one(api, anonymous, clock):
    tender = create_tender(api)
    rendered = anonymous.get(tender.path, {"opt_pretty": "1"}).content
    assert kept_text(tender)
    kept = anonymous.get(tender.path, {"opt_pretty": "1"}).content
    assert kept == rendered and kept.startswith(b'{\n    "data": {\n')
