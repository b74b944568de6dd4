"""The tender lifecycle driven by time and by the owner's award decisions, through the API."""

from datetime import datetime, timedelta

import pytest
from django.core.management import call_command

from core.schema import KYIV, iso, parse_iso
from tenders.models import AuditEvent
from tests.helpers import (
    bid_data,
    close_tendering,
    create_tender,
    in_qualification,
    open_for_bids,
    place_bid,
    single_error,
)

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 2, 9, 0, tzinfo=KYIV)


def test_enquiries_turn_into_tendering_at_the_tender_period_start(api, clock):
    tender = create_tender(api)
    start = tender.read()["tenderPeriod"]["startDate"]
    clock.move_to(parse_iso(start) - timedelta(seconds=1))
    assert tender.read()["status"] == "active.enquiries"
    clock.move_to(parse_iso(start) + timedelta(hours=5))
    data = tender.read()
    assert data["status"] == "active.tendering"
    assert data["date"] == start  # stamped when it was due, not when somebody looked
    assert data["next_check"] == data["tenderPeriod"]["endDate"]
    event = AuditEvent.objects.get(action="start_tendering", to_status="active.tendering")
    assert (event.actor_role, event.from_status, iso(event.at)) == (
        "system",
        "active.enquiries",
        start,
    )


def test_the_auction_over_the_lowest_bid_has_a_pending_award(api, api2, clock):
    tender = open_for_bids(api, clock)
    place_bid(api2, tender, 450, identifier="00000001")
    clock.advance(minutes=1)
    low_id, _ = place_bid(api2, tender, 400, identifier="00000002")
    data = close_tendering(tender, clock)
    end = data["auctionPeriod"]["endDate"]
    assert data["status"] == "active.qualification"
    assert data["awardPeriod"] == {"startDate": end}
    [award] = data["awards"]
    assert award["status"] == "pending" and award["bid_id"] == low_id
    assert award["value"] == {"amount": 400.0, "currency": "UAH", "valueAddedTaxIncluded": True}
    assert award["suppliers"][0]["identifier"]["id"] == "00000002"
    assert award["complaintPeriod"] == {"startDate": end}
    assert award["date"] == end
    assert "next_check" not in data


def test_equal_bids_go_to_the_earliest(api, clock):
    tender = open_for_bids(api, clock)
    first_id, _ = place_bid(api, tender, 400, identifier="00000001")
    clock.advance(minutes=1)
    place_bid(api, tender, 400, identifier="00000002")
    close_tendering(tender, clock)
    assert tender.award()["bid_id"] == first_id


def test_tendering_without_bids_is_unsuccessful(api, clock):
    tender = open_for_bids(api, clock)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]))
    data = tender.read()
    assert data["status"] == "unsuccessful" and "awards" not in data and "next_check" not in data


def test_activating_the_award_starts_two_working_days_of_complaints(api, clock):
    clock.move_to(MONDAY)
    tender = in_qualification(api, clock)
    clock.move_to(datetime(2026, 11, 19, 10, 0, tzinfo=KYIV))  # a Thursday
    response = tender.decide("active")
    assert response.status_code == 200
    award = response.json()["data"]
    assert award["status"] == "active"
    assert award["date"] == iso(clock.now())
    assert award["complaintPeriod"]["endDate"] == "2026-11-23T10:00:00.000000+02:00"  # Monday
    data = tender.read()
    assert data["status"] == "active.awarded"
    assert data["awardPeriod"]["endDate"] == award["date"]
    [contract] = data["contracts"]
    assert contract["status"] == "pending" and contract["awardID"] == award["id"]
    assert contract["contractID"] == f"{data['tenderID']}-1"
    assert contract["value"] == award["value"] and contract["items"] == data["items"]


def test_contract_is_signed_only_after_the_complaint_period(api, clock):
    tender = in_qualification(api, clock)
    tender.decide("active")
    data = tender.read()
    end = data["awards"][0]["complaintPeriod"]["endDate"]
    path = f"{tender.path}/contracts/{data['contracts'][0]['id']}"
    response = api.patch(path, {"status": "active"}, token=tender.token)
    assert single_error(response, 403) == {
        "location": "body",
        "name": "data",
        "description": f"Can't sign contract before stand-still period end ({end})",
    }
    assert tender.read()["status"] == "active.awarded"

    clock.move_to(parse_iso(end) + timedelta(minutes=1))
    response = api.patch(
        path, {"status": "active", "contractNumber": "42/2026"}, token=tender.token
    )
    assert response.status_code == 200
    contract = response.json()["data"]
    assert contract["status"] == "active" and contract["contractNumber"] == "42/2026"
    assert contract["dateSigned"] == iso(clock.now())
    data = tender.read()
    assert data["status"] == "complete" and "next_check" not in data

    response = api.patch(path, {"title": "later"}, token=tender.token)
    assert single_error(response, 403)["description"] == (
        "Can't update contract in current (complete) tender status"
    )
    response = tender.decide("cancelled")
    assert (
        single_error(response, 403)["description"]
        == "Can't update award in current (complete) tender status"
    )


def test_contract_rules(api, clock):
    tender = in_qualification(api, clock)
    tender.decide("active")
    data = tender.read()
    end = parse_iso(data["awards"][0]["complaintPeriod"]["endDate"])
    path = f"{tender.path}/contracts/{data['contracts'][0]['id']}"
    assert single_error(api.patch(path, {"status": "cancelled"}, token=tender.token), 403)[
        "description"
    ] == ("Can't update contract status")
    assert single_error(api.patch(path, {"status": "active"}), 403)["name"] == "permission"
    clock.move_to(end + timedelta(hours=1))
    response = api.patch(
        path, {"status": "active", "dateSigned": iso(end + timedelta(days=1))}, token=tender.token
    )
    assert single_error(response, 422) == {
        "location": "body",
        "name": "dateSigned",
        "description": ["Contract signature date can't be in the future"],
    }
    response = api.patch(
        path, {"status": "active", "dateSigned": iso(end - timedelta(hours=1))}, token=tender.token
    )
    assert single_error(response, 422)["description"] == [
        f"Contract signature date should be after award complaint period end date ({iso(end)})"
    ]
    assert tender.read()["contracts"][0]["status"] == "pending"
    response = api.patch(path, {"status": "active", "dateSigned": iso(end)}, token=tender.token)
    assert response.json()["data"]["dateSigned"] == iso(end)


def test_the_owner_lowers_the_contract_value_within_the_award(api, clock):
    tender = in_qualification(api, clock, amounts=(450, 400))
    tender.decide("active")
    data = tender.read()
    path = f"{tender.path}/contracts/{data['contracts'][0]['id']}"

    def refusal(value):
        return single_error(api.patch(path, {"value": value}, token=tender.token), 403)

    assert refusal({"amount": 300, "currency": "USD"}) == {
        "location": "body",
        "name": "data",
        "description": "Can't update currency for contract value",
    }
    assert refusal({"amount": 300, "valueAddedTaxIncluded": False})["description"] == (
        "Can't update valueAddedTaxIncluded for contract value"
    )
    assert refusal({"amount": 401})["description"] == (
        "Value amount should be less or equal to awarded amount (400.0)"
    )
    assert tender.read()["contracts"][0]["value"]["amount"] == 400  # refused: nothing changed

    response = api.patch(path, {"value": {"amount": 380.5}}, token=tender.token)

    assert response.status_code == 200
    assert response.json()["data"]["value"] == {
        "amount": 380.5,
        "currency": "UAH",
        "valueAddedTaxIncluded": True,
    }
    assert tender.read()["contracts"][0]["value"]["amount"] == 380.5
    assert data["awards"][0]["value"]["amount"] == 400  # the award keeps what was bid


def test_a_contract_value_patch_keeps_the_subfields_it_leaves_out(api, clock):
    # 2.3 applies the PATCH to the contract's value: VAT excluded stays excluded.
    excluded = {"currency": "UAH", "valueAddedTaxIncluded": False}
    tender = open_for_bids(
        api, clock, value={"amount": 500, **excluded}, minimalStep={"amount": 5, **excluded}
    )
    bid = {**bid_data(400), "value": {"amount": 400, **excluded}}
    assert api.post(f"{tender.path}/bids", bid).status_code == 201
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    tender.decide("active")
    path = f"{tender.path}/contracts/{tender.read()['contracts'][0]['id']}"

    response = api.patch(path, {"value": {"amount": 390}}, token=tender.token)

    assert response.status_code == 200, response.content
    assert response.json()["data"]["value"] == {"amount": 390, **excluded}


def test_disqualifying_moves_to_the_next_lowest_bid(api, clock):
    tender = in_qualification(api, clock, amounts=(450, 400, 420))
    low = tender.award()
    response = tender.decide("unsuccessful")
    assert response.status_code == 200
    decided = response.json()["data"]
    assert decided["status"] == "unsuccessful"
    assert parse_iso(decided["complaintPeriod"]["endDate"]) > clock.now()
    data = tender.read()
    assert data["status"] == "active.qualification"
    assert [award["status"] for award in data["awards"]] == ["unsuccessful", "pending"]
    assert data["awards"][0]["id"] == low["id"]
    # 2.3 points the decision's answer at the award it made
    next_award = f"http://testserver/api/2.3/tenders/{tender.id}/awards/{data['awards'][1]['id']}"
    assert response["Location"] == next_award
    assert data["awards"][1]["value"]["amount"] == 420.0
    assert data["awards"][1]["complaintPeriod"] == {"startDate": iso(clock.now())}


def test_an_award_time_made_before_a_change_is_not_that_change_s_location(api, clock):
    tender = open_for_bids(api, clock)
    place_bid(api, tender, 400)
    made = api.post(
        f"{tender.path}/cancellations", {"reason": "Зникла потреба"}, token=tender.token
    )
    cancellation = f"{tender.path}/cancellations/{made.json()['data']['id']}"
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))

    # Tendering closes as this change locks the tender, and the bid gets its award then.
    response = api.patch(cancellation, {"reason": "Потреба зникла"}, token=tender.token)

    assert response.status_code == 200
    assert [award["status"] for award in tender.read()["awards"]] == ["pending"]
    assert "Location" not in response


def test_when_every_bid_is_disqualified_the_tender_fails_after_the_complaint_periods(api, clock):
    tender = in_qualification(api, clock, amounts=(450, 400))
    tender.decide("unsuccessful")
    clock.advance(hours=1)
    last = tender.decide("unsuccessful")
    assert "Location" not in last  # no award was made
    data = tender.read()
    assert data["status"] == "active.awarded"
    last_end = max(award["complaintPeriod"]["endDate"] for award in data["awards"])
    assert data["next_check"] == last_end
    clock.move_to(parse_iso(last_end) + timedelta(seconds=1))
    data = tender.read()
    assert data["status"] == "unsuccessful" and data["date"] == last_end


def test_cancelling_a_winning_award_starts_qualification_over(api, clock):
    tender = in_qualification(api, clock)
    assert "Location" not in tender.decide("active")
    response = tender.decide("cancelled")
    assert response.status_code == 200
    cancelled = response.json()["data"]
    assert cancelled["complaintPeriod"]["endDate"] == iso(clock.now())
    data = tender.read()
    assert data["status"] == "active.qualification"
    assert [award["status"] for award in data["awards"]] == ["cancelled", "pending"]
    assert data["awards"][1]["bid_id"] == cancelled["bid_id"]
    assert response["Location"].endswith(f"/awards/{data['awards'][1]['id']}")
    assert data["contracts"][0]["status"] == "cancelled"
    assert "endDate" not in data["awardPeriod"]


@pytest.mark.parametrize(
    ("first", "then", "description"),
    [
        (None, "cancelled", "Can't update award in current (pending) status"),
        ("active", "unsuccessful", "Can't update award in current (active) status"),
        ("active", "pending", "Can't update award in current (active) status"),
        ("unsuccessful", "active", "Can't update award in current (unsuccessful) status"),
        ("unsuccessful", "cancelled", "Can't update award in current (unsuccessful) status"),
    ],
)
def test_award_transitions_outside_the_table_are_refused(api, clock, first, then, description):
    tender = in_qualification(api, clock, amounts=(400,))
    if first:
        assert tender.decide(first, index=0).status_code == 200
    before = tender.read()
    response = tender.decide(then, index=0)
    assert single_error(response, 403) == {
        "location": "body",
        "name": "data",
        "description": description,
    }
    assert tender.read() == before


def test_award_title_is_editable_while_pending_only(api, clock):
    tender = in_qualification(api, clock)
    path = f"{tender.path}/awards/{tender.award()['id']}"
    response = api.patch(path, {"title": "Переможець", "bid_id": "ignored"}, token=tender.token)
    assert response.status_code == 200
    assert response.json()["data"]["title"] == "Переможець"
    assert response.json()["data"]["bid_id"] != "ignored"
    assert single_error(api.patch(path, {"status": "won"}, token=tender.token), 422)[
        "description"
    ] == ["Value must be one of ['pending', 'unsuccessful', 'active', 'cancelled']."]
    tender.decide("active")
    response = api.patch(path, {"title": "Інший"}, token=tender.token)
    assert (
        single_error(response, 403)["description"]
        == "Can't update award in current (active) status"
    )


def test_award_decisions_belong_to_the_tender_owner(api, api2, clock):
    tender = in_qualification(api, clock, bidder_api=api2)
    path = f"{tender.path}/awards/{tender.award()['id']}"
    bid_token = tender.bids[0][1]
    for client, token in ((api, None), (api2, bid_token), (api2, tender.token), (api, bid_token)):
        response = client.patch(path, {"status": "active"}, token=token)
        assert single_error(response, 403)["name"] == "permission"
    assert tender.award()["status"] == "pending"


def test_awards_are_listed_and_read_publicly(api, anonymous, clock):
    tender = in_qualification(api, clock)
    awards = anonymous.get(f"{tender.path}/awards").json()["data"]
    assert awards == tender.read()["awards"]
    assert anonymous.get(f"{tender.path}/awards/{awards[0]['id']}").json()["data"] == awards[0]
    assert anonymous.get(f"{tender.path}/contracts").json()["data"] == []


def test_award_patch_before_qualification_is_refused(api, clock):
    tender = in_qualification(api, clock, amounts=(400,))
    award_id = tender.award()["id"]
    other = create_tender(api)
    response = api.patch(f"{other.path}/awards/{award_id}", {"status": "active"}, token=other.token)
    assert single_error(response, 404)["name"] == "award_id"


def test_chronograph_moves_tenders_nobody_reads(api, anonymous, clock, capsys):
    tender = create_tender(api)
    before = tender.read()
    clock.move_to(parse_iso(before["tenderPeriod"]["startDate"]) + timedelta(minutes=1))
    call_command("chronograph", "--once")
    assert "1 tender(s)" in capsys.readouterr().out
    clock.advance(minutes=1)
    listed = anonymous.get("/tenders", {"opt_fields": "status"}).json()["data"]
    assert listed[0]["status"] == "active.tendering"
    assert listed[0]["dateModified"] > before["dateModified"]
    call_command("chronograph", "--once")
    assert "0 tender(s)" in capsys.readouterr().out
