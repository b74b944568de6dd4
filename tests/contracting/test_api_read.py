"""Contracting on the 2.3 wire, read: a contract enters contracting as it is signed, the same
object the tender shows (one row), in a feed of its own that sees every change once."""

import pytest

from tests.contracting.helpers import feed, signed
from tests.helpers import decide, in_qualification, past_stand_still, single_error

pytestmark = pytest.mark.django_db


def test_a_signed_contract_is_in_contracting_as_the_tender_shows_it(api, api2, anonymous, clock):
    tender = signed(api, api2, clock)
    data = tender.read()
    [in_tender] = data["contracts"]

    response = anonymous.get(f"/contracts/{in_tender['id']}")

    assert response.status_code == 200, response.content
    contract = response.json()["data"]
    for field in ("id", "awardID", "contractID", "status", "value", "suppliers", "items",
                  "dateSigned"):  # fmt: skip
        assert contract[field] == in_tender[field], field
    assert contract["status"] == "active"
    assert contract["dateModified"] == in_tender["dateSigned"]
    assert contract["procuringEntity"] == data["procuringEntity"]
    assert contract["tender_id"] == data["id"]
    assert contract["owner"] == data["owner"]
    assert "mode" not in contract and "date" not in contract


def test_a_contract_not_signed_is_not_in_contracting(api, api2, anonymous, clock):
    tender = in_qualification(api, clock, bidder_api=api2)
    award = tender.read()["awards"][0]
    assert decide(api, tender, award["id"], "active").status_code == 200
    [pending] = tender.read()["contracts"]

    refused = single_error(anonymous.get(f"/contracts/{pending['id']}"), 404)

    assert refused == {"location": "url", "name": "contract_id", "description": "Not Found"}
    assert feed(anonymous, clock) == []


def test_an_unknown_contract_is_not_found(anonymous):
    refused = single_error(anonymous.get(f"/contracts/{'0' * 32}"), 404)
    assert refused == {"location": "url", "name": "contract_id", "description": "Not Found"}


def test_the_feed_shows_each_signed_contract_once_in_order(api, api2, anonymous, clock):
    first = signed(api, api2, clock)
    clock.advance(minutes=5)
    second = signed(api, api2, clock)

    items = feed(anonymous, clock)

    ids = [tender.read()["contracts"][0]["id"] for tender in (first, second)]
    assert [item["id"] for item in items] == ids
    assert all(set(item) == {"id", "dateModified"} for item in items)
    newest_first = feed(anonymous, clock, descending="1")
    assert [item["id"] for item in newest_first] == ids[::-1]


def test_the_feed_shows_the_fields_asked_for(api, api2, anonymous, clock):
    tender = signed(api, api2, clock)

    [item] = feed(anonymous, clock, opt_fields="status,tender_id,contractID,unknown")

    contract = tender.read()["contracts"][0]
    assert item == {
        "id": contract["id"],
        "dateModified": contract["dateSigned"],
        "status": "active",
        "tender_id": tender.id,
        "contractID": contract["contractID"],
    }


def test_test_contracts_are_in_their_own_feed(api, api2, anonymous, clock):
    real = signed(api, api2, clock)
    clock.advance(minutes=5)
    test = signed(api, api2, clock, mode="test")
    real_id, test_id = (t.read()["contracts"][0]["id"] for t in (real, test))

    assert [item["id"] for item in feed(anonymous, clock)] == [real_id]
    assert [item["id"] for item in feed(anonymous, clock, mode="test")] == [test_id]
    everything = feed(anonymous, clock, mode="_all_")
    assert [item["id"] for item in everything] == [real_id, test_id]
    [shown] = feed(anonymous, clock, mode="test", opt_fields="mode")
    assert shown["mode"] == "test"


def test_a_change_to_a_contract_stamps_it_anew(api, api2, anonymous, clock):
    tender = in_qualification(api, clock, bidder_api=api2)
    award = tender.read()["awards"][0]
    assert decide(api, tender, award["id"], "active").status_code == 200
    past_stand_still(tender, clock)
    [pending] = tender.read()["contracts"]
    path = f"{tender.path}/contracts/{pending['id']}"
    assert api.patch(path, {"contractNumber": "42"}, token=tender.token).status_code == 200
    clock.advance(hours=1)
    assert api.patch(path, {"status": "active"}, token=tender.token).status_code == 200
    clock.advance(minutes=1)

    contract = anonymous.get(f"/contracts/{pending['id']}").json()["data"]

    assert contract["contractNumber"] == "42"
    assert contract["dateModified"] == tender.read()["contracts"][0]["dateSigned"]


def test_contracts_stamped_alike_are_never_split_between_pages(api, api2, anonymous, clock):
    """(the clock stands still: both are signed at the same moment)"""
    tenders = [in_qualification(api, clock, bidder_api=api2) for _ in range(2)]
    for tender in tenders:
        award = tender.read()["awards"][0]
        assert decide(api, tender, award["id"], "active").status_code == 200
    past_stand_still(tenders[0], clock)
    past_stand_still(tenders[1], clock)
    ids = []
    for tender in tenders:
        [contract] = tender.read()["contracts"]
        ids.append(contract["id"])
        path = f"{tender.path}/contracts/{contract['id']}"
        assert api.patch(path, {"status": "active"}, token=tender.token).status_code == 200

    items = feed(anonymous, clock)

    assert len({item["dateModified"] for item in items}) == 1
    assert sorted(item["id"] for item in items) == sorted(ids)
