"""Bids: placed, changed and withdrawn by their owner while tendering is open, sealed until then."""

from datetime import timedelta

import pytest

from core.schema import iso, parse_iso
from tenders.models import Bid
from tests.helpers import (
    bid_data,
    close_tendering,
    create_tender,
    error,
    in_qualification,
    open_for_bids,
    organization,
    place_bid,
    single_error,
)

pytestmark = pytest.mark.django_db


def test_bid_during_tendering_answers_201_with_its_token(api2, api, clock):
    tender = open_for_bids(api, clock)
    response = api2.post(f"{tender.path}/bids", bid_data(450))
    assert response.status_code == 201
    body = response.json()
    assert len(body["access"]["token"]) == 32
    assert response["Location"].endswith(f"{tender.path}/bids/{body['data']['id']}")
    assert body["data"]["status"] == "active"
    assert body["data"]["value"] == {
        "amount": 450.0,
        "currency": "UAH",
        "valueAddedTaxIncluded": True,
    }
    assert body["data"]["date"] == iso(clock.now())


def test_bid_before_tendering_is_refused(api, clock):
    tender = create_tender(api)
    response = api.post(f"{tender.path}/bids", bid_data())
    assert single_error(response, 403) == {
        "location": "body",
        "name": "data",
        "description": "Can't add bid in current (active.enquiries) tender status",
    }
    assert not Bid.objects.exists()


def test_bid_after_tendering_is_refused(api, clock):
    tender = open_for_bids(api, clock)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(seconds=1))
    response = api.post(f"{tender.path}/bids", bid_data())
    assert single_error(response, 403)["description"] == (
        "Can't add bid in current (unsuccessful) tender status"
    )
    assert not Bid.objects.exists()


def test_bid_needs_a_key(anonymous, api, clock):
    tender = open_for_bids(api, clock)
    assert (
        single_error(anonymous.post(f"{tender.path}/bids", bid_data()), 403)["name"] == "permission"
    )


@pytest.mark.parametrize(
    ("value", "description"),
    [
        ({"amount": 501}, "value of bid should be less than value of tender"),
        (
            {"amount": 450, "currency": "USD"},
            "currency of bid should be identical to currency of value of tender",
        ),
        (
            {"amount": 450, "valueAddedTaxIncluded": False},
            "valueAddedTaxIncluded of bid should be identical to valueAddedTaxIncluded of value of tender",
        ),
    ],
)
def test_bid_value_must_fit_the_tender(api, clock, value, description):
    tender = open_for_bids(api, clock)
    response = api.post(f"{tender.path}/bids", {**bid_data(), "value": value})
    assert single_error(response, 422) == {
        "location": "body",
        "name": "value",
        "description": [description],
    }
    assert not Bid.objects.exists()


def test_bid_shape_errors(api, clock):
    tender = open_for_bids(api, clock)
    errors = error(api.post(f"{tender.path}/bids", {"selfEligible": True}), 422)
    assert {
        "location": "body",
        "name": "tenderers",
        "description": ["This field is required."],
    } in errors
    assert {
        "location": "body",
        "name": "value",
        "description": ["This field is required."],
    } in errors
    assert {"location": "body", "name": "selfEligible", "description": "Rogue field"} in errors
    data = bid_data()
    data["tenderers"] = data["tenderers"] * 2
    response = api.post(f"{tender.path}/bids", data)
    assert single_error(response, 422)["description"] == ["Please provide no more than 1 items."]


def test_bids_are_sealed_while_tendering(api, api2, anonymous, clock):
    tender = open_for_bids(api, clock)
    bid_id, token = place_bid(api2, tender)
    assert "bids" not in tender.read()
    assert single_error(anonymous.get(f"{tender.path}/bids"), 403)["description"] == (
        "Can't view bids in current (active.tendering) tender status"
    )
    assert single_error(anonymous.get(f"{tender.path}/bids/{bid_id}"), 403)["description"] == (
        "Can't view bid in current (active.tendering) tender status"
    )
    # Another broker holding the token, or the owner's broker without it, sees nothing either.
    assert api.get(f"{tender.path}/bids/{bid_id}", token=token).status_code == 403
    assert api2.get(f"{tender.path}/bids/{bid_id}").status_code == 403
    own = api2.get(f"{tender.path}/bids/{bid_id}", token=token)
    assert own.status_code == 200 and own.json()["data"]["id"] == bid_id


def test_bids_are_public_once_tendering_closes(api, anonymous, clock):
    tender = in_qualification(api, clock, amounts=(450, 400))
    data = tender.read()
    assert data["numberOfBids"] == 2
    assert {bid["value"]["amount"] for bid in data["bids"]} == {450.0, 400.0}
    listed = anonymous.get(f"{tender.path}/bids").json()["data"]
    assert listed == data["bids"]
    one = anonymous.get(f"{tender.path}/bids/{listed[0]['id']}").json()["data"]
    assert one == listed[0] and "owner" not in one


def test_owner_changes_the_bid_while_tendering(api, api2, clock):
    tender = open_for_bids(api, clock)
    bid_id, token = place_bid(api2, tender, 450)
    path = f"{tender.path}/bids/{bid_id}"
    response = api2.patch(path, {"value": {"amount": 420}}, token=token)
    assert response.status_code == 200
    assert response.json()["data"]["value"]["amount"] == 420.0
    assert (
        single_error(api2.patch(path, {"value": {"amount": 600}}, token=token), 422)["name"]
        == "value"
    )
    assert (
        single_error(api2.patch(path, {"status": "deleted"}, token=token), 422)["name"] == "status"
    )
    assert api2.get(path, token=token).json()["data"]["value"]["amount"] == 420.0


def test_someone_else_cannot_change_a_bid(api, api2, clock):
    tender = open_for_bids(api, clock)
    bid_id, token = place_bid(api2, tender, 450)
    path = f"{tender.path}/bids/{bid_id}"
    assert (
        single_error(api.patch(path, {"value": {"amount": 1}}, token=token), 403)["name"]
        == "permission"
    )
    assert (
        single_error(api2.patch(path, {"value": {"amount": 1}}, token=tender.token), 403)["name"]
        == "permission"
    )
    assert api2.get(path, token=token).json()["data"]["value"]["amount"] == 450.0


def test_bid_cannot_change_after_tendering(api, clock):
    tender = in_qualification(api, clock, amounts=(450,))
    bid_id, token = tender.bids[0]
    response = api.patch(f"{tender.path}/bids/{bid_id}", {"value": {"amount": 1}}, token=token)
    assert single_error(response, 403)["description"] == (
        "Can't update bid in current (active.qualification) tender status"
    )


def test_draft_bid_takes_no_part_until_activated(api, clock):
    tender = open_for_bids(api, clock)
    response = api.post(f"{tender.path}/bids", {**bid_data(300), "status": "draft"})
    draft_id, token = response.json()["data"]["id"], response.json()["access"]["token"]
    place_bid(api, tender, 450)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]))
    data = tender.read()
    assert data["numberOfBids"] == 1 and data["awards"][0]["value"]["amount"] == 450.0
    assert single_error(api.get(f"{tender.path}/bids/{draft_id}"), 404)["name"] == "bid_id"
    assert (
        api.get(f"{tender.path}/bids/{draft_id}", token=token).json()["data"]["status"] == "draft"
    )


def test_withdrawn_bid_is_answered_as_it_was_then_gone_but_kept(api, api2, clock):
    tender = open_for_bids(api, clock)
    bid_id, token = place_bid(api2, tender, 300)
    path = f"{tender.path}/bids/{bid_id}"
    as_placed = api2.get(path, token=token).json()["data"]

    response = api2.delete(path, token=token)

    # 2.3 answers the removed bid in its last state, and it is gone from every path.
    assert response.status_code == 200 and response.json()["data"] == as_placed
    assert as_placed["status"] == "active"
    for gone in (
        api2.get(path, token=token),
        api2.patch(path, {"value": {"amount": 1}}, token=token),
        api2.delete(path, token=token),
        api2.get(f"{path}/documents", token=token),
    ):
        assert single_error(gone, 404)["name"] == "bid_id"
    assert Bid.objects.get(pk=bid_id).status == "deleted"  # kept for the audit trail
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]))
    assert tender.read()["status"] == "unsuccessful"


def test_a_tenderer_has_one_active_bid(api, api2, clock):
    tender = open_for_bids(api, clock)
    place_bid(api2, tender, 450, identifier="00137256")
    response = api.post(
        f"{tender.path}/bids", bid_data(400, name="Інша назва", identifier="00137256")
    )
    assert single_error(response, 403) == {
        "location": "body",
        "name": "tenderers",
        "description": "Can't add bid: the tenderer already has an active bid on this tender",
    }
    assert Bid.objects.count() == 1


def test_a_withdrawn_or_draft_bid_does_not_count_until_activated(api, clock):
    tender = open_for_bids(api, clock)
    withdrawn_id, withdrawn_token = place_bid(api, tender, 450)
    api.delete(f"{tender.path}/bids/{withdrawn_id}", token=withdrawn_token)
    response = api.post(f"{tender.path}/bids", {**bid_data(300), "status": "draft"})
    draft_id, draft_token = response.json()["data"]["id"], response.json()["access"]["token"]
    place_bid(api, tender, 420)

    activated = api.patch(f"{tender.path}/bids/{draft_id}", {"status": "active"}, token=draft_token)

    assert single_error(activated, 403)["description"] == (
        "Can't update bid: the tenderer already has an active bid on this tender"
    )
    assert Bid.objects.get(pk=draft_id).status == "draft"


def test_a_bid_cannot_take_another_tenderers_place(api, clock):
    tender = open_for_bids(api, clock)
    place_bid(api, tender, 450, identifier="00000001")
    bid_id, token = place_bid(api, tender, 420, identifier="00000002")
    response = api.patch(
        f"{tender.path}/bids/{bid_id}",
        {"tenderers": bid_data(identifier="00000001")["tenderers"]},
        token=token,
    )
    assert single_error(response, 403)["name"] == "tenderers"
    assert Bid.objects.get(pk=bid_id).tenderers[0]["identifier"]["id"] == "00000002"


def test_the_procuring_entity_does_not_bid_on_its_own_tender(api, api2, clock):
    tender = open_for_bids(api, clock)
    entity = tender.read()["procuringEntity"]
    response = api2.post(
        f"{tender.path}/bids",
        bid_data(400, name="Та сама установа", identifier=entity["identifier"]["id"]),
    )
    assert single_error(response, 403) == {
        "location": "body",
        "name": "tenderers",
        "description": "Can't add bid: the procuring entity can't bid on its own tender",
    }
    assert not Bid.objects.exists()


def test_a_bid_is_dated_again_when_its_amount_changes(api, api2, clock):
    """2.3 moves a bid's date when its amount changes: equal amounts rank by that date."""
    tender = open_for_bids(api, clock)
    first, first_token = place_bid(api2, tender, 450, identifier="00000001")
    clock.advance(minutes=1)
    place_bid(api2, tender, 420, identifier="00000002")
    clock.advance(minutes=1)
    path = f"{tender.path}/bids/{first}"
    placed = api2.get(path, token=first_token).json()["data"]["date"]
    renamed = api2.patch(path, {"tenderers": [organization("Нова назва", "00000001")]},
                         token=first_token)  # fmt: skip
    assert renamed.json()["data"]["date"] == placed

    repriced = api2.patch(path, {"value": {"amount": 420}}, token=first_token)

    assert parse_iso(repriced.json()["data"]["date"]) == clock.now()
    close_tendering(tender, clock)
    assert tender.read()["awards"][0]["bid_id"] != first  # the other 420 was there first
