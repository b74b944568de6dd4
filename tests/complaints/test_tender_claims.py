"""Claims against the tender's conditions over /tenders/{id}/complaints, as a 2.3 client sees
them: the same status machine as claims against a decision, filed by anyone known while
questions and bids are taken."""

from datetime import timedelta

import pytest

from core.schema import parse_iso
from tests.docservice.helpers import with_file
from tests.helpers import (
    ANSWER,
    CLAIM,
    FIRST,
    SECOND,
    awards_by_lot,
    bid_on,
    close_tendering,
    create_tender,
    decide,
    lot_statuses,
    offer,
    open_for_bids,
    open_two_lots,
    past_stand_still,
    place_bid,
    shortly_before_stand_still_ends,
    sign,
    single_error,
    two_lots,
)

pytestmark = pytest.mark.django_db


class TenderClaims:
    """A tender in enquiries (its owner broker "broker"); claims filed by broker2."""

    def __init__(self, api, api2, tender):
        self.api, self.api2, self.tender = api, api2, tender
        self.path = f"{tender.path}/complaints"

    def file(self, data=None, client=None, **extra):
        return (client or self.api2).post(self.path, {**(data or CLAIM), **extra})

    def filed(self, **extra) -> tuple[dict, str]:
        response = self.file(**extra)
        assert response.status_code == 201, response.content
        body = response.json()
        return body["data"], body["access"]["token"]

    def patch(self, claim, data, token):
        return self.api2.patch(f"{self.path}/{claim['id']}", data, token=token)

    def owner_patch(self, claim, data):
        return self.api.patch(f"{self.path}/{claim['id']}", data, token=self.tender.token)

    def read(self, claim, client=None) -> dict:
        response = (client or self.api2).get(f"{self.path}/{claim['id']}")
        assert response.status_code == 200, response.content
        return response.json()["data"]


@pytest.fixture
def claims(api, api2):
    return TenderClaims(api, api2, create_tender(api))


def test_anyone_known_files_a_claim_against_the_conditions(claims, anonymous):
    response = claims.file()
    assert response.status_code == 201
    body = response.json()
    claim = body["data"]
    assert response["Location"] == f"http://testserver/api/2.3{claims.path}/{claim['id']}"
    assert len(body["access"]["token"]) == 32
    tender_id = claims.tender.read()["tenderID"]
    assert claim["complaintID"] == f"{tender_id}.1"
    assert (claim["status"], claim["type"]) == ("draft", "claim")
    # The filer is told what it filed, its name included; nobody reads it again until bids
    # are opened (2.3).
    assert claim["author"] == CLAIM["author"]
    assert "author" not in claims.read(claim)
    assert "relatedLot" not in claim and "bid_id" not in claim
    # No bid is needed, but a key is.
    assert single_error(claims.file(client=anonymous), 403)["name"] == "permission"


def test_a_tender_claim_goes_draft_claim_answered_resolved(claims, anonymous):
    claim, token = claims.filed()
    # A draft is its filer's alone.
    assert anonymous.get(claims.path).json()["data"] == []
    assert "complaints" not in claims.tender.read()
    response = claims.patch(claim, {"title": "Вимога ліцензії", "status": "draft"}, token)
    assert response.json()["data"]["title"] == "Вимога ліцензії"
    submitted = claims.patch(claim, {"status": "claim"}, token).json()["data"]
    assert submitted["status"] == "claim" and "dateSubmitted" in submitted
    assert anonymous.get(claims.path).json()["data"] == [submitted]
    assert claims.tender.read()["complaints"] == [submitted]

    # 2.3 words the short answer to a tender claim apart.
    short = claims.owner_patch(claim, {**ANSWER, "resolution": "Ні."})
    assert single_error(short, 403)["description"] == (
        "Can't update complaint: resolution too short"
    )
    answered = claims.owner_patch(claim, ANSWER).json()["data"]
    assert answered["status"] == "answered" and answered["resolutionType"] == "resolved"
    assert "dateAnswered" in answered and "tendererActionDate" in answered
    resolved = claims.patch(claim, {"status": "resolved", "satisfied": True}, token)
    assert resolved.json()["data"]["status"] == "resolved"
    assert single_error(claims.patch(claim, {"status": "cancelled"}, token), 403)[
        "description"
    ] == ("Can't update complaint in current (resolved) status")


def test_a_tender_claim_is_withdrawn_and_refused_to_others(claims, api):
    claim, token = claims.filed(status="claim")
    assert claim["status"] == "claim" and claim["dateSubmitted"] == claim["date"]
    # The buyer's token is not the claimant's, and nobody else's is either.
    assert single_error(claims.patch(claim, {"status": "resolved"}, "0" * 32), 403)["name"] == (
        "permission"
    )
    assert single_error(claims.owner_patch(claim, {"status": "cancelled"}), 403)
    refused = claims.patch(claim, {"status": "cancelled"}, token)
    assert single_error(refused, 422)["name"] == "cancellationReason"
    cancelled = claims.patch(
        claim, {"status": "cancelled", "cancellationReason": "Умови змінено"}, token
    ).json()["data"]
    assert cancelled["status"] == "cancelled" and "dateCanceled" in cancelled


def test_an_answer_nobody_closes_takes_its_type_while_questions_are_still_taken(claims, clock):
    claim, _token = claims.filed(status="claim")
    claims.owner_patch(claim, {**ANSWER, "resolutionType": "declined"})
    read = claims.tender.read()
    assert read["status"] == "active.enquiries"
    assert parse_iso(read["next_check"]) < parse_iso(read["tenderPeriod"]["startDate"])
    clock.advance(days=3, minutes=1)
    assert claims.read(claim)["status"] == "declined"
    assert claims.tender.read()["status"] == "active.enquiries"


def test_claims_are_filed_and_drafts_submitted_only_while_bids_are_taken(api, api2, clock):
    tender = open_for_bids(api, clock)
    claims = TenderClaims(api, api2, tender)
    draft, token = claims.filed()
    place_bid(api2, tender, 450)
    place_bid(api, tender, 400, identifier="00000002")
    unanswered, _ = claims.filed(status="claim")
    read = close_tendering(tender, clock)
    # Tendering ends on time whatever claims are open (2.3).
    assert read["status"] == "active.qualification"
    assert single_error(claims.file(), 403)["description"] == (
        "Can't add complaint in current (active.qualification) tender status"
    )
    assert single_error(claims.patch(draft, {"status": "claim"}, token), 403)["description"] == (
        "Can't update complaint"
    )
    # Who filed is shown once bids are opened.
    assert claims.read(unanswered)["author"] == CLAIM["author"]
    # The buyer still answers, the claimant still closes or withdraws.
    assert claims.owner_patch(unanswered, ANSWER).status_code == 200
    withdrawn = claims.patch(draft, {"status": "cancelled", "cancellationReason": "Пізно"}, token)
    assert withdrawn.json()["data"]["status"] == "cancelled"


def test_an_answered_tender_claim_holds_the_contract_and_an_unanswered_one_is_ignored(
    api, api2, clock
):
    tender = open_for_bids(api, clock)
    claims = TenderClaims(api, api2, tender)
    place_bid(api2, tender, 400)
    answered, token = claims.filed(status="claim")
    unanswered, _ = claims.filed(status="claim")
    close_tendering(tender, clock)
    assert tender.decide("active").status_code == 200
    past_stand_still(tender, clock)
    # (Answered now: an answer nobody closes takes its type after three days.)
    claims.owner_patch(answered, ANSWER)
    award = tender.award()
    refused = sign(api, tender, award["id"])
    assert single_error(refused, 403)["description"] == (
        "Can't sign contract before reviewing all complaints"
    )
    claims.patch(answered, {"status": "resolved", "satisfied": True}, token)
    assert sign(api, tender, award["id"]).status_code == 200
    read = tender.read()
    assert read["status"] == "complete"
    # The claim nobody answered before the tender ended is ignored (2.3).
    assert [c["status"] for c in read["complaints"]] == ["resolved", "ignored"]
    assert single_error(claims.owner_patch(unanswered, ANSWER), 403)["description"] == (
        "Can't update complaint in current (complete) tender status"
    )


def test_a_tender_claim_ignored_when_the_tender_fails_without_bids(claims, clock):
    claims.filed(status="claim")
    read = close_tendering(claims.tender, clock)
    assert read["status"] == "unsuccessful"
    assert read["complaints"][0]["status"] == "ignored"


def test_claim_numbers_are_shared_with_claims_against_decisions(api, api2, clock):
    tender = open_for_bids(api, clock)
    claims = TenderClaims(api, api2, tender)
    first, _ = claims.filed(status="claim")
    place_bid(api2, tender, 400)
    close_tendering(tender, clock)
    tender.decide("unsuccessful")
    award = tender.award()
    response = api2.post(
        f"{tender.path}/awards/{award['id']}/complaints", CLAIM, token=tender.bids[0][1]
    )
    assert response.json()["data"]["complaintID"].endswith(".2")
    assert first["complaintID"].endswith(".1")
    # Each path finds only its own kind.
    second = response.json()["data"]["id"]
    assert single_error(api2.get(f"{claims.path}/{second}"), 404)["name"] == "complaint_id"
    assert (
        single_error(api2.get(f"{tender.path}/awards/{award['id']}/complaints/{first['id']}"), 404)[
            "name"
        ]
        == "complaint_id"
    )


def test_documents_of_a_tender_claim(claims):
    claim, token = claims.filed()
    documents = f"{claims.path}/{claim['id']}/documents"
    response = with_file(claims.api2, "post", documents, token)
    assert response.status_code == 201, response.content
    assert response.json()["data"]["author"] == "complaint_owner"
    claims.patch(claim, {"status": "claim"}, token)
    # Submitted, the buyer attaches to its answer, the claimant waits.
    assert single_error(with_file(claims.api2, "post", documents, token), 403)["description"] == (
        "Can't add document in current (claim) complaint status"
    )
    response = with_file(claims.api, "post", documents, claims.tender.token)
    assert response.status_code == 201, response.content
    assert response.json()["data"]["author"] == "tender_owner"
    listed = claims.api.get(documents).json()["data"]
    assert [d["author"] for d in listed] == ["complaint_owner", "tender_owner"]
    assert claims.read(claim)["documents"] == listed


def test_claims_against_a_lot(api, api2, clock):
    tender = open_two_lots(api, clock)
    claims = TenderClaims(api, api2, tender)
    on_first, first_token = claims.filed(status="claim", relatedLot=FIRST)
    assert on_first["relatedLot"] == FIRST
    whole, whole_token = claims.filed(status="claim")
    for related, status, description in (
        ("3" * 32, 422, ["relatedLot should be one of lots"]),
        ("x", 422, ["Hash value is wrong length."]),
    ):
        assert single_error(claims.file(relatedLot=related), status)["description"] == description
    bid_on(api2, tender, offer(FIRST, 250), offer(SECOND, 150))
    read = close_tendering(tender, clock)
    awards = awards_by_lot(read)
    for lot_id in (FIRST, SECOND):
        assert decide(api, tender, awards[lot_id][0]["id"], "active").status_code == 200
    past_stand_still(tender, clock)
    claims.owner_patch(on_first, ANSWER)
    claims.owner_patch(whole, ANSWER)
    # A claim against the whole tender holds every lot's contract; one against a lot, its own.
    for lot_id in (FIRST, SECOND):
        assert sign(api, tender, awards[lot_id][0]["id"]).status_code == 403
    claims.patch(whole, {"status": "resolved", "satisfied": True}, whole_token)
    assert sign(api, tender, awards[SECOND][0]["id"]).status_code == 200
    assert sign(api, tender, awards[FIRST][0]["id"]).status_code == 403
    claims.patch(on_first, {"status": "resolved", "satisfied": True}, first_token)
    assert sign(api, tender, awards[FIRST][0]["id"]).status_code == 200
    assert tender.read()["status"] == "complete"


def test_a_cancelled_lot_takes_no_claim_and_ignores_its_own(api, api2, clock):
    tender = create_tender(api, **two_lots())
    claims = TenderClaims(api, api2, tender)
    on_second, _ = claims.filed(status="claim", relatedLot=SECOND)
    response = api.post(
        f"{tender.path}/cancellations",
        {
            "reason": "не потрібен",
            "status": "active",
            "cancellationOf": "lot",
            "relatedLot": SECOND,
        },
        token=tender.token,
    )
    assert response.status_code == 201, response.content
    assert lot_statuses(tender.read())[SECOND] == "cancelled"
    assert claims.read(on_second)["status"] == "ignored"
    assert single_error(claims.file(relatedLot=SECOND), 403)["description"] == (
        "Can add complaint only in active lot status"
    )
    assert claims.file(relatedLot=FIRST).status_code == 201


def test_a_lot_claimed_against_is_not_deleted(api, api2):
    tender = create_tender(api, **two_lots())
    claims = TenderClaims(api, api2, tender)
    claims.filed(relatedLot=SECOND)  # a draft
    claims.filed(relatedLot=SECOND, status="claim")
    items = api.patch(tender.path, {"items": [tender.read()["items"][0]]}, token=tender.token)
    assert items.status_code == 200, items.content
    response = api.delete(f"{tender.path}/lots/{SECOND}", token=tender.token)
    # The refusal names the submitted claim by its place among those the public sees: the
    # draft is nobody's business but its author's.
    assert single_error(response, 422) == {
        "location": "body",
        "name": "complaints",
        "description": [{"relatedLot": ["relatedLot should be one of lots"]}],
    }
    assert SECOND in lot_statuses(tender.read())


def test_a_draft_claim_about_a_deleted_lot_is_withdrawn_with_it(api, api2):
    tender = create_tender(api, **two_lots())
    claims = TenderClaims(api, api2, tender)
    draft, token = claims.filed(relatedLot=SECOND)
    items = api.patch(tender.path, {"items": [tender.read()["items"][0]]}, token=tender.token)
    assert items.status_code == 200, items.content
    response = api.delete(f"{tender.path}/lots/{SECOND}", token=tender.token)
    assert response.status_code == 200, response.content
    assert SECOND not in lot_statuses(tender.read())
    withdrawn = claims.api2.get(f"{claims.path}/{draft['id']}", token=token).json()["data"]
    assert withdrawn["status"] == "cancelled" and "dateCanceled" in withdrawn


def test_an_answered_claim_keeps_a_failing_tender_open_until_it_closes(api, api2, clock):
    tender = open_for_bids(api, clock)
    claims = TenderClaims(api, api2, tender)
    place_bid(api2, tender, 400)
    answered, token = claims.filed(status="claim")
    close_tendering(tender, clock)
    assert tender.decide("unsuccessful").status_code == 200
    shortly_before_stand_still_ends(tender, clock)
    claims.owner_patch(answered, ANSWER)
    past_stand_still(tender, clock)
    assert tender.read()["status"] == "active.awarded"
    claims.patch(answered, {"status": "resolved", "satisfied": False}, token)
    assert tender.read()["status"] == "unsuccessful"


def test_a_draft_is_submitted_while_bids_are_taken(claims, clock):
    claim, token = claims.filed()
    clock.move_to(parse_iso(claims.tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    assert claims.patch(claim, {"status": "claim"}, token).status_code == 200


def test_a_draft_and_an_unsent_answer_stay_out_of_what_the_public_reads(claims, anonymous):
    """The claimant's broker reads first (its rendering shows its draft): the text kept for the
    public must not; nor the answer the buyer saved without sending."""
    draft, _ = claims.filed()
    submitted, _ = claims.filed(status="claim")
    claims.owner_patch(submitted, {"status": "claim", "resolution": "Чернетка відповіді"})
    mine = claims.api2.get(claims.tender.path).json()["data"]["complaints"]
    assert [c["id"] for c in mine] == [draft["id"], submitted["id"]]
    public = anonymous.get(claims.tender.path).json()["data"]["complaints"]
    assert [c["id"] for c in public] == [submitted["id"]]
    assert "resolution" not in public[0]
    assert claims.api.get(claims.tender.path).json()["data"]["complaints"][0]["resolution"]


def test_an_unanswered_tender_claim_does_not_hold_a_failing_tender(api, api2, clock):
    tender = open_for_bids(api, clock)
    claims = TenderClaims(api, api2, tender)
    place_bid(api2, tender, 400)
    claims.filed(status="claim")
    close_tendering(tender, clock)
    assert tender.decide("unsuccessful").status_code == 200
    past_stand_still(tender, clock)
    read = tender.read()
    assert read["status"] == "unsuccessful"
    assert read["complaints"][0]["status"] == "ignored"


def test_an_answered_claim_against_the_whole_tender_keeps_every_lot_from_failing(api, api2, clock):
    tender = open_two_lots(api, clock)
    claims = TenderClaims(api, api2, tender)
    bid_on(api2, tender, offer(FIRST, 250), offer(SECOND, 150))
    whole, token = claims.filed(status="claim")
    awards = awards_by_lot(close_tendering(tender, clock))
    for lot_id in (FIRST, SECOND):
        assert decide(api, tender, awards[lot_id][0]["id"], "unsuccessful").status_code == 200
    shortly_before_stand_still_ends(tender, clock)
    claims.owner_patch(whole, ANSWER)
    past_stand_still(tender, clock)
    read = tender.read()
    assert lot_statuses(read) == {FIRST: "active", SECOND: "active"}
    claims.patch(whole, {"status": "resolved", "satisfied": True}, token)
    read = tender.read()
    assert lot_statuses(read) == {FIRST: "unsuccessful", SECOND: "unsuccessful"}
    assert read["status"] == "unsuccessful"


def test_an_answer_given_while_bids_are_taken_closes_on_time(api, api2, clock):
    tender = open_for_bids(api, clock)
    claims = TenderClaims(api, api2, tender)
    claim, _ = claims.filed(status="claim")
    claims.owner_patch(claim, {**ANSWER, "resolutionType": "invalid"})
    read = tender.read()
    assert parse_iso(read["next_check"]) < parse_iso(read["tenderPeriod"]["endDate"])
    clock.advance(days=3, minutes=1)
    assert claims.read(claim)["status"] == "invalid"
    assert tender.read()["status"] == "active.tendering"


def test_a_claim_answered_before_its_lot_was_cancelled_may_still_be_closed(api, api2):
    tender = create_tender(api, **two_lots())
    claims = TenderClaims(api, api2, tender)
    claim, token = claims.filed(status="claim", relatedLot=SECOND)
    claims.owner_patch(claim, ANSWER)
    response = api.post(
        f"{tender.path}/cancellations",
        {"reason": "не потрібен", "status": "active", "cancellationOf": "lot",
         "relatedLot": SECOND},
        token=tender.token,
    )  # fmt: skip
    assert response.status_code == 201, response.content
    closed = claims.patch(claim, {"status": "resolved", "satisfied": True}, token)
    assert closed.json()["data"]["status"] == "resolved"
