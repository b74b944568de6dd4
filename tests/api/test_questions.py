"""Questions to the buyer over /tenders/{id}/questions, as a 2.3 client sees them."""

from datetime import timedelta

import pytest

from core.schema import iso, parse_iso
from tests.helpers import (
    CLAIM,
    FIRST,
    SECOND,
    create_tender,
    error,
    item,
    organization,
    place_bid,
    single_error,
    two_lots,
)

pytestmark = pytest.mark.django_db

ASKER = organization("ДКП «Школяр»", "00137226")
QUESTION = {
    "author": ASKER,
    "title": "Калорійність",
    "description": "Просимо додати таблицю потрібної калорійності харчування",
}
ANSWER_TEXT = 'Таблицю додано в файлі "Kalorijnist.xslx"'


def ask(api, tender, data=None, **extra):
    return api.post(f"{tender.path}/questions", {**(data or QUESTION), **extra})


def asked(api, tender, **extra) -> dict:
    response = ask(api, tender, **extra)
    assert response.status_code == 201, response.content
    return response.json()["data"]


def answer(api, tender, question_id, text=ANSWER_TEXT, token=None):
    return api.patch(
        f"{tender.path}/questions/{question_id}", {"answer": text}, token=token or tender.token
    )


def test_a_question_is_asked_answered_and_read_as_in_the_2_3_transcripts(api, api2, anonymous):
    tender = create_tender(api)
    response = ask(api2, tender)
    assert response.status_code == 201
    question = response.json()["data"]
    assert response["Location"] == (
        f"http://testserver/api/2.3{tender.path}/questions/{question['id']}"
    )
    # The asker is told what it asked, its name included (2.3's "view").
    assert question == {
        **QUESTION,
        "id": question["id"],
        "date": question["date"],
        "questionOf": "tender",
    }
    assert "access" not in response.json()

    response = answer(api, tender, question["id"])
    assert response.status_code == 200, response.content
    answered = response.json()["data"]
    # While bids are taken, who asked is shown to nobody, the buyer included (2.3).
    assert "author" not in answered
    assert answered["answer"] == ANSWER_TEXT
    assert parse_iso(answered["dateAnswered"]) >= parse_iso(question["date"])

    listed = anonymous.get(f"{tender.path}/questions").json()["data"]
    assert listed == [answered]
    assert anonymous.get(f"{tender.path}/questions/{question['id']}").json() == {"data": answered}
    read = tender.read()
    assert read["questions"] == [answered]


def test_who_asked_is_shown_once_bids_are_opened(api, api2, clock):
    tender = create_tender(api)
    question = asked(api2, tender)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    assert "author" not in tender.read()["questions"][0]
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    read = tender.read()
    assert read["status"] == "unsuccessful"
    assert read["questions"][0]["author"] == ASKER
    assert api2.get(f"{tender.path}/questions/{question['id']}").json()["data"]["author"] == ASKER


def test_anyone_known_asks_nobody_unknown(api, api2, anonymous):
    tender = create_tender(api)
    assert single_error(ask(anonymous, tender), 403)["name"] == "permission"
    # The buyer's broker may ask too (a broker serves many organizations).
    assert ask(api, tender).status_code == 201


def test_questions_are_asked_only_in_the_enquiry_period(api, api2, clock):
    # Tendering starts a day after questions end: the day is the buyer's to answer.
    now = clock.now()
    tender = create_tender(
        api,
        enquiryPeriod={"endDate": iso(now + timedelta(days=7))},
        tenderPeriod={
            "startDate": iso(now + timedelta(days=8)),
            "endDate": iso(now + timedelta(days=14)),
        },
    )
    end = parse_iso(tender.read()["enquiryPeriod"]["endDate"])
    clock.move_to(end - timedelta(seconds=1))
    question = asked(api2, tender)
    clock.move_to(end)
    refused = single_error(ask(api2, tender), 403)
    assert refused == {
        "location": "body",
        "name": "data",
        "description": "Can add question only in enquiryPeriod",
    }
    # Answers are taken until tendering starts (2.3: only in active.enquiries)...
    assert answer(api, tender, question["id"]).status_code == 200
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]))
    assert tender.read()["status"] == "active.tendering"
    assert single_error(answer(api, tender, question["id"]), 403)["description"] == (
        "Can't update question in current (active.tendering) tender status"
    )


def test_a_draft_takes_no_question(api, api2):
    tender = create_tender(api, status="draft")
    # Nobody but its owner finds a draft; its owner's broker is refused as outside the period.
    assert single_error(ask(api2, tender), 404)["name"] == "tender_id"
    assert single_error(ask(api, tender), 403)["description"] == (
        "Can add question only in enquiryPeriod"
    )


def test_only_the_owner_answers_and_with_an_answer(api, api2, anonymous):
    tender = create_tender(api)
    question = asked(api2, tender)
    assert single_error(answer(api2, tender, question["id"], token="0" * 32), 403)["name"] == (
        "permission"
    )
    assert single_error(answer(anonymous, tender, question["id"]), 403)["name"] == "permission"
    assert single_error(answer(api, tender, question["id"], text=""), 422)["name"] == "answer"
    response = api.patch(
        f"{tender.path}/questions/{question['id']}", {"answr": "x"}, token=tender.token
    )
    assert {"location": "body", "name": "answr", "description": "Rogue field"} in error(
        response, 422
    )
    # What a client echoes back of the question is ignored; only the answer is written.
    response = api.patch(
        f"{tender.path}/questions/{question['id']}",
        {**question, "title": "changed", "answer": ANSWER_TEXT},
        token=tender.token,
    )
    assert response.status_code == 200
    assert response.json()["data"]["title"] == QUESTION["title"]
    assert single_error(answer(api, tender, "f" * 32), 404)["name"] == "question_id"
    assert single_error(api.get(f"{tender.path}/questions/nope"), 404)["name"] == "question_id"
    assert single_error(api.get("/tenders/nope/questions"), 404)["name"] == "tender_id"


def test_a_question_says_what_it_is_about(api, api2):
    tender = create_tender(api, **two_lots(items=[item(FIRST, "бензин"), item(SECOND, "дизель")]))
    items = tender.read()["items"]
    about_lot = asked(api2, tender, questionOf="lot", relatedItem=SECOND)
    assert (about_lot["questionOf"], about_lot["relatedItem"]) == ("lot", SECOND)
    about_item = asked(api2, tender, questionOf="item", relatedItem=items[0]["id"])
    assert about_item["relatedItem"] == items[0]["id"]
    for extra, description in (
        ({"questionOf": "lot"}, "This field is required."),
        ({"questionOf": "item"}, "This field is required."),
        ({"questionOf": "lot", "relatedItem": "3" * 32}, "relatedItem should be one of lots"),
        ({"questionOf": "item", "relatedItem": "3" * 32}, "relatedItem should be one of items"),
    ):
        refused = single_error(ask(api2, tender, **extra), 422)
        assert refused == {"location": "body", "name": "relatedItem", "description": [description]}
    refused = single_error(ask(api2, tender, questionOf="bid"), 422)
    assert refused["name"] == "questionOf"
    # An id is at most as long as an item's (a longer one was a database error).
    refused = single_error(ask(api2, tender, relatedItem="a" * 65), 422)
    assert refused["description"] == ["Ensure this field has no more than 64 characters."]


def test_questions_on_a_cancelled_lot_are_refused(api, api2):
    tender = create_tender(api, **two_lots(items=[item(FIRST, "бензин"), item(SECOND, "дизель")]))
    question = asked(api2, tender, questionOf="lot", relatedItem=SECOND)
    items = tender.read()["items"]
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
    for extra in (
        {"questionOf": "lot", "relatedItem": SECOND},
        {"questionOf": "item", "relatedItem": items[1]["id"]},
    ):
        assert single_error(ask(api2, tender, **extra), 403)["description"] == (
            "Can add question only in active lot status"
        )
    assert single_error(answer(api, tender, question["id"]), 403)["description"] == (
        "Can update question only in active lot status"
    )
    # The other lot's questions go on.
    assert ask(api2, tender, questionOf="lot", relatedItem=FIRST).status_code == 201


def test_a_lot_asked_about_is_not_deleted(api, api2):
    tender = create_tender(api, **two_lots(items=[item(FIRST, "бензин"), item(FIRST, "дизель")]))
    asked(api2, tender, questionOf="lot", relatedItem=SECOND)
    response = api.delete(f"{tender.path}/lots/{SECOND}", token=tender.token)
    assert single_error(response, 422) == {
        "location": "body",
        "name": "questions",
        "description": [{"relatedItem": ["relatedItem should be one of lots"]}],
    }
    assert [lot_["id"] for lot_ in tender.read()["lots"]] == [FIRST, SECOND]


def test_an_item_asked_about_is_not_removed(api, api2):
    tender = create_tender(api, **two_lots(items=[item(FIRST, "бензин"), item(FIRST, "дизель")]))
    items = tender.read()["items"]
    asked(api2, tender)
    asked(api2, tender, questionOf="item", relatedItem=items[1]["id"])
    response = api.patch(tender.path, {"items": [items[0]]}, token=tender.token)
    assert single_error(response, 422) == {
        "location": "body",
        "name": "questions",
        "description": [{}, {"relatedItem": ["relatedItem should be one of items"]}],
    }
    assert len(tender.read()["items"]) == 2
    # The question's item stays answerable.
    question = tender.read()["questions"][1]
    assert answer(api, tender, question["id"]).status_code == 200


def test_what_was_sent_is_refused_before_the_time(api, api2, clock):
    tender = create_tender(api)
    question = asked(api2, tender)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    # 2.3 reads the request before the tender's status: a 422, then the period's 403.
    refused = ask(api2, tender, questionOf="lot", relatedItem="3" * 32)
    assert single_error(refused, 422)["name"] == "relatedItem"
    response = api.patch(
        f"{tender.path}/questions/{question['id']}", {"answr": "x"}, token=tender.token
    )
    assert {"location": "body", "name": "answr", "description": "Rogue field"} in error(
        response, 422
    )
    # ...after who is asking: a stranger's answer is a 403 whatever it carries.
    response = api2.patch(f"{tender.path}/questions/{question['id']}", {"answr": "x"})
    assert single_error(response, 403)["name"] == "permission"


def test_who_asked_and_who_claimed_stay_hidden_through_the_auction(api, api2, anonymous, clock):
    # While the auction runs the bidders are still known by number only: a name beside a
    # question or a claim would say who is bidding (2.3 hides both in active.auction).
    tender = create_tender(api)
    question = asked(api2, tender)
    claim = api2.post(f"{tender.path}/complaints", {**CLAIM, "status": "claim"}).json()["data"]
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    place_bid(api2, tender, 450, identifier="00000001")
    place_bid(api2, tender, 400, identifier="00000002")
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["endDate"]) + timedelta(minutes=1))
    read = tender.read()
    assert read["status"] == "active.auction"
    assert "author" not in read["questions"][0]
    assert "author" not in read["complaints"][0]
    for path in (f"questions/{question['id']}", f"complaints/{claim['id']}"):
        assert "author" not in anonymous.get(f"{tender.path}/{path}").json()["data"]

    read = tender.through_the_auction(clock)
    assert read["status"] == "active.qualification"
    assert read["questions"][0]["author"] == ASKER
    assert read["complaints"][0]["author"] == CLAIM["author"]
