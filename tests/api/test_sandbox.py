"""Sandbox mode: "quick, accelerator=N" shrinks every duration the server computes, and
submissionMethodDetails "quick" holds the auction as tendering ends, so a client can drive a
tender from creation to a signed contract in seconds with the public API alone."""

from datetime import timedelta

import pytest

from core.schema import iso, parse_iso
from tests.helpers import (
    FIRST,
    SECOND,
    bid_data,
    in_qualification,
    item,
    lot,
    lot_bid,
    lot_statuses,
    offer,
    tender_data,
)

pytestmark = pytest.mark.django_db

QUICK = "quick, accelerator=172800"  # two days become one second


def test_whole_lifecycle_in_seconds_through_the_api(api, api2, anonymous, clock, settings):
    settings.SANDBOX_MODE = True
    start = clock.now()
    data = tender_data(
        procurementMethodDetails=QUICK,
        submissionMethodDetails="quick",
        enquiryPeriod={"endDate": iso(start + timedelta(seconds=1))},
        tenderPeriod={"endDate": iso(start + timedelta(seconds=3))},
    )
    created = api.post("/tenders", data).json()
    tender_path, owner_token = f"/tenders/{created['data']['id']}", created["access"]["token"]

    clock.advance(seconds=1.5)
    assert anonymous.get(tender_path).json()["data"]["status"] == "active.tendering"
    assert api2.post(f"{tender_path}/bids", bid_data(480)).status_code == 201
    assert api.post(f"{tender_path}/bids", bid_data(470, identifier="00000002")).status_code == 201

    clock.advance(seconds=2)
    tender = anonymous.get(tender_path).json()["data"]
    assert tender["status"] == "active.qualification"
    award = tender["awards"][0]
    assert award["value"]["amount"] == 470.0

    response = api.patch(
        f"{tender_path}/awards/{award['id']}", {"status": "active"}, token=owner_token
    )
    complaint_period = response.json()["data"]["complaintPeriod"]
    length = parse_iso(complaint_period["endDate"]) - clock.now()
    assert length == timedelta(seconds=1)  # 2 days / 172800, weekends not counted

    contract = anonymous.get(tender_path).json()["data"]["contracts"][0]
    clock.advance(seconds=1)
    response = api.patch(
        f"{tender_path}/contracts/{contract['id']}", {"status": "active"}, token=owner_token
    )
    assert response.status_code == 200
    tender = anonymous.get(tender_path).json()["data"]
    assert tender["status"] == "complete"
    assert parse_iso(tender["dateModified"]) - start <= timedelta(seconds=5)


def test_a_two_lot_tender_in_seconds_through_the_api(api, api2, anonymous, clock, settings):
    """The README's story of a tender in lots: one lot contracted, the other cancelled."""
    settings.SANDBOX_MODE = True
    start = clock.now()
    data = tender_data(
        procurementMethodDetails=QUICK,
        submissionMethodDetails="quick",
        enquiryPeriod={"endDate": iso(start + timedelta(seconds=1))},
        tenderPeriod={"endDate": iso(start + timedelta(seconds=3))},
        lots=[lot(FIRST, 300), lot(SECOND, 200)],
        items=[item(FIRST, "папір"), item(SECOND, "конверти")],
    )
    created = api.post("/tenders", data).json()
    tender_path, owner_token = f"/tenders/{created['data']['id']}", created["access"]["token"]
    assert created["data"]["value"]["amount"] == 500

    clock.advance(seconds=1.5)
    for identifier, offers in (
        ("00000001", [offer(FIRST, 280), offer(SECOND, 190)]),
        ("00000002", [offer(FIRST, 270)]),
    ):
        placed = api2.post(f"{tender_path}/bids", lot_bid(*offers, identifier=identifier))
        assert placed.status_code == 201, placed.content

    clock.advance(seconds=2)
    tender = anonymous.get(tender_path).json()["data"]
    assert tender["status"] == "active.qualification"
    awards = {award["lotID"]: award for award in tender["awards"]}
    assert (awards[FIRST]["value"]["amount"], awards[SECOND]["value"]["amount"]) == (270, 190)

    cancelled = api.post(
        f"{tender_path}/cancellations",
        {"reason": "Конверти вже не потрібні", "cancellationOf": "lot", "relatedLot": SECOND,
         "status": "active"},
        token=owner_token,
    )  # fmt: skip
    assert cancelled.status_code == 201
    decided = api.patch(
        f"{tender_path}/awards/{awards[FIRST]['id']}", {"status": "active"}, token=owner_token
    )
    assert decided.status_code == 200
    clock.advance(seconds=1.5)
    contract = anonymous.get(tender_path).json()["data"]["contracts"][0]
    signed = api.patch(
        f"{tender_path}/contracts/{contract['id']}", {"status": "active"}, token=owner_token
    )
    assert signed.status_code == 200
    tender = anonymous.get(tender_path).json()["data"]
    assert tender["status"] == "complete"
    assert lot_statuses(tender) == {FIRST: "complete", SECOND: "cancelled"}
    assert parse_iso(tender["dateModified"]) - start <= timedelta(seconds=8)


def test_accelerator_is_ignored_outside_the_sandbox(api, clock, settings):
    settings.SANDBOX_MODE = False
    tender = in_qualification(api, clock, procurementMethodDetails=QUICK)
    award = tender.decide("active").json()["data"]
    assert parse_iso(award["complaintPeriod"]["endDate"]) - clock.now() >= timedelta(days=2)


README_PARTY = {
    "name": "ТОВ «Офіс-Постач»",
    "identifier": {"scheme": "UA-EDR", "id": "38012345"},
    "address": {"countryName": "Україна"},
    "contactPoint": {"name": "Ірина Бондар", "telephone": "+380441112233"},
}


def test_a_question_and_a_claim_about_the_conditions_as_the_readme_shows(api, api2, anonymous):
    """The README's bodies for a question on a lot and a claim against the conditions."""
    data = tender_data(lots=[lot(FIRST, 300), lot(SECOND, 200)],
                       items=[item(FIRST, "папір"), item(SECOND, "конверти")])  # fmt: skip
    created = api.post("/tenders", data).json()
    path, owner_token = f"/tenders/{created['data']['id']}", created["access"]["token"]

    question = {"title": "Щільність паперу", "description": "Чи підійде 75 г/м²?",
                "questionOf": "lot", "relatedItem": FIRST, "author": README_PARTY}  # fmt: skip
    asked = api2.post(f"{path}/questions", question)
    assert asked.status_code == 201, asked.content
    answered = api.patch(
        f"{path}/questions/{asked.json()['data']['id']}",
        {"answer": "Так, 75 г/м² підійде"},
        token=owner_token,
    )
    assert answered.status_code == 200
    listed = anonymous.get(f"{path}/questions").json()["data"]
    assert [q["answer"] for q in listed] == ["Так, 75 г/м² підійде"]

    claim = {"title": "Вимога ліцензії, яку має одна фірма", "description": "...",
             "status": "claim", "author": README_PARTY}  # fmt: skip
    filed = api2.post(f"{path}/complaints", claim)
    assert filed.status_code == 201, filed.content
    answer = {"status": "answered", "resolutionType": "resolved",
              "resolution": "Вимогу ліцензії вилучено з умов"}  # fmt: skip
    response = api.patch(
        f"{path}/complaints/{filed.json()['data']['id']}", answer, token=owner_token
    )
    assert response.json()["data"]["status"] == "answered"
    assert anonymous.get(path).json()["data"]["complaints"][0]["resolution"] == answer["resolution"]
