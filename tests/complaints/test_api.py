"""The claim API as a 2.3 client sees it: the scenarios of spec/openprocurement-2.3.md §13 and
the flows of the service description, over HTTP only."""

from datetime import timedelta

import pytest

from core.schema import parse_iso
from tests.helpers import ANSWER, CLAIM, Claims, error, in_qualification, single_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def claims(api, api2, clock):
    return Claims(api, api2, clock)


def test_draft_claim_is_created_with_its_token(claims, anonymous):
    response = claims.file()
    assert response.status_code == 201
    body = response.json()
    data = body["data"]
    assert len(body["access"]["token"]) == 32
    assert response["Location"] == f"http://testserver/api/2.3{claims.path}/{data['id']}"
    tender_id = claims.tender.read()["tenderID"]
    assert data["complaintID"] == f"{tender_id}.1"
    assert data["status"] == "draft" and data["type"] == "claim"
    assert data["author"] == CLAIM["author"]
    assert {"id", "date", "title", "description"} <= set(data)
    for hidden in ("owner", "owner_token", "dateSubmitted", "bid_id", "documents"):
        assert hidden not in data
    # A draft is its broker's (by its key) and its token's; anyone else does not find it.
    assert claims.api2.get(f"{claims.path}/{data['id']}").json() == {"data": data}
    token = body["access"]["token"]
    assert anonymous.get(f"{claims.path}/{data['id']}", token=token).json() == {"data": data}
    assert anonymous.get(f"{claims.path}/{data['id']}").status_code == 404


def test_claim_in_one_step_is_submitted_and_numbered_next(claims):
    first, _ = claims.filed()
    second, _ = claims.filed(status="claim")
    assert second["status"] == "claim"
    assert second["dateSubmitted"] == second["date"]
    assert (
        int(second["complaintID"].rsplit(".", 1)[1])
        == int(first["complaintID"].rsplit(".", 1)[1]) + 1
    )


def test_any_other_status_on_creation_makes_a_draft(claims):
    data, _ = claims.filed(status="answered", type="complaint", resolution="ignored", id="x")
    assert data["status"] == "draft" and data["type"] == "claim" and "resolution" not in data
    assert data["id"] != "x"


def test_only_a_bidder_files_a_claim(claims, anonymous):
    for token, client in (
        (claims.tender.token, claims.api),
        (None, claims.api2),
        ("0" * 32, claims.api2),
    ):
        response = (
            claims.api2.post(claims.path, CLAIM, token=token)
            if client is claims.api2
            else client.post(claims.path, CLAIM, token=token)
        )
        assert single_error(response, 403) == {
            "location": "url",
            "name": "permission",
            "description": "Forbidden",
        }
    # The bid token with another broker's key is nobody's.
    assert single_error(claims.file(client=claims.api), 403)["name"] == "permission"
    assert (
        single_error(anonymous.post(claims.path, CLAIM, token=claims.bid_token), 403)["name"]
        == "permission"
    )
    assert "complaints" not in claims.tender.read()["awards"][0]


def test_claim_without_title_and_author_is_422(claims):
    errors = error(claims.file({}), 422)
    assert {
        "location": "body",
        "name": "author",
        "description": ["This field is required."],
    } in errors
    assert {
        "location": "body",
        "name": "title",
        "description": ["This field is required."],
    } in errors
    assert len(errors) == 2
    # relatedLot is 2.3's to write on creation (an id); against an award, the award's lot wins.
    assert single_error(claims.file({**CLAIM, "relatedLot": "x"}), 422)["description"] == [
        "Hash value is wrong length."
    ]
    assert "relatedLot" not in claims.filed(relatedLot="1" * 32)[0]
    assert single_error(claims.file({**CLAIM, "lotID": "x"}), 422)["description"] == "Rogue field"


def test_claim_outside_the_complaint_period_is_refused(claims):
    claims.clock.move_to(
        parse_iso(claims.award["complaintPeriod"]["endDate"]) + timedelta(seconds=1)
    )
    assert (
        single_error(claims.file(), 403)["description"]
        == "Can add complaint only in complaintPeriod"
    )


def test_claim_on_a_pending_award_is_refused(api, api2, clock):
    claims = Claims(api, api2, clock, decision=None)
    assert claims.award["status"] == "pending"
    assert (
        single_error(claims.file(), 403)["description"]
        == "Claim submission is not allowed on pending award"
    )


def test_claim_when_the_tender_is_not_deciding_is_refused(api, api2, clock):
    claims = Claims(api, api2, clock, decision="active")
    end = parse_iso(claims.award["complaintPeriod"]["endDate"])
    claims.clock.move_to(end + timedelta(seconds=1))
    contract = claims.tender.read()["contracts"][0]
    response = api.patch(
        f"{claims.tender.path}/contracts/{contract['id']}",
        {"status": "active"},
        token=claims.tender.token,
    )
    assert response.status_code == 200
    assert (
        single_error(claims.file(), 403)["description"]
        == "Can't add complaint in current (complete) tender status"
    )


def test_unknown_award_or_award_of_another_tender_is_404(claims, api, clock):
    assert (
        single_error(
            claims.api2.post(
                f"{claims.tender.path}/awards/nope/complaints", CLAIM, token=claims.bid_token
            ),
            404,
        )["name"]
        == "award_id"
    )
    other = in_qualification(api, clock)
    path = f"{other.path}/awards/{claims.award['id']}/complaints"
    assert (
        single_error(claims.api2.post(path, CLAIM, token=claims.bid_token), 404)["name"]
        == "award_id"
    )
    assert (
        single_error(claims.api2.get("/tenders/nope/awards/x/complaints/y"), 404)["name"]
        == "tender_id"
    )
    assert single_error(claims.api2.get(f"{claims.path}/nope"), 404)["name"] == "complaint_id"
    assert (
        single_error(claims.api2.patch(f"{claims.path}/nope", {}, token=claims.bid_token), 404)[
            "name"
        ]
        == "complaint_id"
    )


def test_three_step_claim_draft_then_submit(claims):
    draft, token = claims.filed()
    claims.clock.advance(seconds=5)
    response = claims.patch(draft, {"title": "уточнена назва"}, token)
    assert response.status_code == 200 and response.json()["data"]["title"] == "уточнена назва"
    claims.clock.advance(seconds=5)
    response = claims.patch(draft, {"status": "claim"}, token)
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "claim"
    assert data["dateSubmitted"] == data["date"] > draft["date"]
    assert data["title"] == "уточнена назва"


def test_answer_accept_flow(claims):
    claim, token = claims.filed(status="claim")
    response = claims.owner_patch(claim, ANSWER)
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "answered"
    assert data["resolution"] == ANSWER["resolution"] and data["resolutionType"] == "resolved"
    assert data["tendererAction"] == ANSWER["tendererAction"]
    assert data["dateAnswered"] == data["tendererActionDate"] == data["date"]

    response = claims.patch(claim, {"status": "resolved", "satisfied": True}, token)
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "resolved" and data["satisfied"] is True
    assert data["resolution"] == ANSWER["resolution"]


def test_answer_reject_flow(claims):
    claim, token = claims.filed(status="claim")
    claims.owner_patch(claim, ANSWER)
    data = claims.patch(claim, {"satisfied": False}, token).json()["data"]
    assert data["status"] == "answered" and data["satisfied"] is False
    data = claims.patch(claim, {"status": "resolved", "satisfied": False}, token).json()["data"]
    assert data["status"] == "resolved" and data["satisfied"] is False


def test_answer_rules(claims):
    claim, token = claims.filed(status="claim")
    assert single_error(claims.owner_patch(claim, {"status": "answered"}), 422) == {
        "location": "body",
        "name": "resolutionType",
        "description": ["This field is required."],
    }
    short = {"status": "answered", "resolutionType": "resolved", "resolution": "коротко"}
    assert (
        single_error(claims.owner_patch(claim, short), 403)["description"]
        == "Can't update complaint"
    )
    bad = {**ANSWER, "resolutionType": "accepted"}
    assert single_error(claims.owner_patch(claim, bad), 422)["description"] == [
        "Value must be one of ['invalid', 'resolved', 'declined']."
    ]
    assert single_error(claims.patch(claim, {"status": "answered", **ANSWER}, token), 403) == {
        "location": "url",
        "name": "role",
        "description": "Forbidden",
    }
    assert claims.api.get(f"{claims.path}/{claim['id']}").json()["data"]["status"] == "claim"


def test_tender_owner_may_save_a_draft_answer(claims):
    claim, _ = claims.filed(status="claim")
    response = claims.owner_patch(
        claim, {"resolution": ANSWER["resolution"], "resolutionType": "declined"}
    )
    data = response.json()["data"]
    assert data["status"] == "claim" and data["resolutionType"] == "declined"
    data = claims.owner_patch(claim, {"status": "answered"}).json()["data"]
    assert data["status"] == "answered" and data["resolution"] == ANSWER["resolution"]


def test_wrong_actor_is_refused(claims):
    draft, token = claims.filed()
    cancel = {"status": "cancelled", "cancellationReason": "x"}
    # The tender owner does not find another's draft (2.3 said "role" Forbidden).
    assert single_error(claims.owner_patch(draft, cancel), 404) == {
        "location": "url",
        "name": "complaint_id",
        "description": "Not Found",
    }
    assert single_error(claims.owner_patch(draft, {"title": "x"}), 404)["name"] == "complaint_id"
    # The bid token, another claim's token, another broker's key: permission.
    _, other_token = claims.filed()
    assert (
        single_error(claims.patch(draft, {"status": "claim"}, claims.bid_token), 403)["name"]
        == "permission"
    )
    assert (
        single_error(claims.patch(draft, {"status": "claim"}, other_token), 403)["name"]
        == "permission"
    )
    assert (
        single_error(claims.patch(draft, {"status": "claim"}, token, client=claims.api), 403)[
            "name"
        ]
        == "permission"
    )
    claims.patch(draft, {"status": "claim"}, token)
    assert (
        single_error(claims.patch(draft, {"title": "edited after"}, token), 403)["name"] == "role"
    )
    claims.owner_patch(draft, ANSWER)
    assert (
        single_error(claims.patch(draft, {"status": "claim"}, token), 403)["description"]
        == "Can't update complaint"
    )
    assert (
        single_error(claims.owner_patch(draft, {"status": "resolved", "satisfied": True}), 403)[
            "name"
        ]
        == "role"
    )


def test_cancel_and_terminal(claims):
    claim, token = claims.filed(status="claim")
    assert single_error(claims.patch(claim, {"status": "cancelled"}, token), 422) == {
        "location": "body",
        "name": "cancellationReason",
        "description": ["This field is required."],
    }
    response = claims.patch(
        claim, {"status": "cancelled", "cancellationReason": "Умови виправлено"}, token
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "cancelled" and data["cancellationReason"] == "Умови виправлено"
    assert data["dateCanceled"] == data["date"]
    again = claims.patch(claim, {"status": "cancelled", "cancellationReason": "reason"}, token)
    assert (
        single_error(again, 403)["description"]
        == "Can't update complaint in current (cancelled) status"
    )
    assert single_error(claims.owner_patch(claim, ANSWER), 403)["description"] == (
        "Can't update complaint in current (cancelled) status"
    )


def test_satisfied_must_be_a_boolean(claims):
    claim, token = claims.filed(status="claim")
    claims.owner_patch(claim, ANSWER)
    for value in ("yes", "true", 1, None, [], {}):
        response = claims.patch(claim, {"status": "resolved", "satisfied": value}, token)
        assert response.status_code == 422, value
        assert error(response)[0]["name"] == "satisfied"
    assert claims.api.get(f"{claims.path}/{claim['id']}").json()["data"]["status"] == "answered"


def test_unknown_status_is_422(claims):
    claim, token = claims.filed()
    assert (
        single_error(claims.patch(claim, {"status": "escalated"}, token), 422)["name"] == "status"
    )


def test_a_null_status_asks_for_no_change_of_status(claims):
    # (it was a 500: the fuzzer's find)
    claim, token = claims.filed()
    response = claims.patch(claim, {"status": None, "title": "Уточнено"}, token)
    assert response.status_code == 200, response.content
    assert (response.json()["data"]["status"], response.json()["data"]["title"]) == (
        "draft",
        "Уточнено",
    )


def test_echoed_read_only_fields_are_ignored(claims):
    claim, token = claims.filed()
    echoed = {
        **claim,
        "status": "claim",
        "complaintID": "UA-forged.1",
        "date": "2000-01-01T00:00:00+02:00",
    }
    response = claims.patch(claim, echoed, token)
    data = response.json()["data"]
    assert data["status"] == "claim" and data["complaintID"] == claim["complaintID"]
    answer = {**data, **ANSWER, "dateAnswered": "2000-01-01T00:00:00+02:00", "satisfied": True}
    data = claims.owner_patch(claim, answer).json()["data"]
    assert data["status"] == "answered" and "satisfied" not in data
    assert data["dateAnswered"] != "2000-01-01T00:00:00+02:00"
    assert (
        single_error(claims.patch(claim, {"nonsense": 1}, token), 422)["description"]
        == "Rogue field"
    )


def test_claims_are_listed_in_order_and_embedded_in_the_tender(claims, anonymous):
    first, _ = claims.filed(status="claim")
    draft, _ = claims.filed()
    second, _ = claims.filed(status="claim")
    listed = anonymous.get(claims.path).json()["data"]
    assert [c["id"] for c in listed] == [first["id"], second["id"]]
    assert listed[1] == anonymous.get(f"{claims.path}/{second['id']}").json()["data"]
    assert claims.tender.read()["awards"][0]["complaints"] == listed
    assert all("owner" not in c for c in listed)
    # The draft's own broker finds it in its place.
    mine = claims.api2.get(claims.path).json()["data"]
    assert [c["id"] for c in mine] == [first["id"], draft["id"], second["id"]]


def test_claim_changes_move_the_tender_in_the_feed(claims, anonymous):
    before = claims.tender.read()["dateModified"]
    claims.clock.advance(seconds=1)
    claims.filed()
    assert claims.tender.read()["dateModified"] > before


def test_contract_waits_for_answered_claims(api, api2, clock):
    claims = Claims(api, api2, clock, decision="active")
    claim, token = claims.filed(status="claim")
    stand_still_end = parse_iso(claims.award["complaintPeriod"]["endDate"])
    clock.move_to(stand_still_end - timedelta(hours=1))
    claims.owner_patch(claim, ANSWER)  # (still open when the window closes, whatever the weekday)
    contract = claims.tender.read()["contracts"][0]
    path = f"{claims.tender.path}/contracts/{contract['id']}"
    clock.move_to(stand_still_end + timedelta(seconds=1))
    response = api.patch(path, {"status": "active"}, token=claims.tender.token)
    assert (
        single_error(response, 403)["description"]
        == "Can't sign contract before reviewing all complaints"
    )
    claims.patch(claim, {"status": "resolved", "satisfied": False}, token)
    assert api.patch(path, {"status": "active"}, token=claims.tender.token).status_code == 200


def test_finished_tender_ignores_unanswered_claims_and_refuses_changes(api, api2, clock):
    claims = Claims(api, api2, clock, decision="active")
    claim, token = claims.filed(status="claim")
    draft, draft_token = claims.filed()
    clock.move_to(parse_iso(claims.award["complaintPeriod"]["endDate"]) + timedelta(seconds=1))
    contract = claims.tender.read()["contracts"][0]
    api.patch(
        f"{claims.tender.path}/contracts/{contract['id']}",
        {"status": "active"},
        token=claims.tender.token,
    )
    listed = {c["id"]: c for c in api2.get(claims.path).json()["data"]}
    assert listed[claim["id"]]["status"] == "ignored"
    assert listed[draft["id"]]["status"] == "draft"
    response = claims.patch(claim, {"status": "cancelled", "cancellationReason": "x"}, token)
    assert (
        single_error(response, 403)["description"]
        == "Can't update complaint in current (complete) tender status"
    )
    response = claims.patch(draft, {"status": "claim"}, draft_token)
    assert (
        single_error(response, 403)["description"]
        == "Can't update complaint in current (complete) tender status"
    )
    assert (
        single_error(claims.file(), 403)["description"]
        == "Can't add complaint in current (complete) tender status"
    )


def test_answered_claim_closes_itself_after_three_days(claims, anonymous):
    claim, _ = claims.filed(status="claim")
    answered = claims.owner_patch(claim, {**ANSWER, "resolutionType": "declined"}).json()["data"]
    closes = parse_iso(answered["dateAnswered"]) + timedelta(days=3)
    assert claims.tender.read()["next_check"] == closes.isoformat(timespec="microseconds")
    claims.clock.move_to(closes - timedelta(seconds=1))
    assert anonymous.get(f"{claims.path}/{claim['id']}").json()["data"]["status"] == "answered"
    claims.clock.move_to(closes + timedelta(hours=1))
    data = anonymous.get(f"{claims.path}/{claim['id']}").json()["data"]
    assert data["status"] == "declined"
    assert parse_iso(data["date"]) == closes


def test_cancelling_a_winning_award_cancels_its_open_claims(api, api2, clock):
    claims = Claims(api, api2, clock, decision="active")
    claim, _ = claims.filed(status="claim")
    draft, _ = claims.filed()
    assert claims.tender.decide("cancelled", index=0).status_code == 200
    listed = api2.get(claims.path).json()["data"]  # (as their author reads them)
    assert [(c["status"], c["cancellationReason"]) for c in listed] == [
        ("cancelled", "cancelled")
    ] * 2
    assert {c["id"] for c in listed} == {claim["id"], draft["id"]}
    # The draft was never submitted: cancelled, it stays its author's alone.
    assert [c["id"] for c in api.get(claims.path).json()["data"]] == [claim["id"]]


def test_contract_waits_for_answered_claims_on_earlier_decisions_too(api, api2, clock):
    """2.3 holds the contract while a claim on any award of the tender (or of the lot) is
    answered and not yet closed, not only a claim on the winner's."""
    claims = Claims(api, api2, clock, decision="unsuccessful")
    claim, token = claims.filed(status="claim")
    assert claims.tender.decide("active").status_code == 200
    tender = claims.tender.read()
    contract = tender["contracts"][0]
    path = f"{claims.tender.path}/contracts/{contract['id']}"
    stand_still_end = parse_iso(tender["awards"][-1]["complaintPeriod"]["endDate"])
    clock.move_to(stand_still_end - timedelta(hours=1))
    claims.owner_patch(claim, ANSWER)  # (answered late: still open when the contract is due)
    clock.move_to(stand_still_end + timedelta(seconds=1))

    response = api.patch(path, {"status": "active"}, token=claims.tender.token)

    assert single_error(response, 403)["description"] == (
        "Can't sign contract before reviewing all complaints"
    )
    claims.patch(claim, {"status": "resolved", "satisfied": True}, token)
    assert api.patch(path, {"status": "active"}, token=claims.tender.token).status_code == 200
