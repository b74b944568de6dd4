"""Mail to the followers of a tender (portal/watch.py, run by `manage.py alerts`): each public
change told once, at once or in a daily digest, in the follower's language; nothing of bids,
draft claims or anything a follower may not see."""

from datetime import timedelta

import pytest

from complaints.models import Complaint
from core.actors import Actor, Role
from core.schema import iso
from portal import watch
from portal.models import Follow
from tenders.models import Tender
from tests.factories import RESOLUTION, portal_world, sign_up
from tests.helpers import FIRST, bid_data, organization, two_lots
from tests.portal.follows import (
    alerts,
    ask_and_answer,
    buyer_and_watcher,
    follow,
    owner,
    published,
    said,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(db):
    return buyer_and_watcher()


@pytest.fixture
def tender(people, clock):
    return published(people[0], clock)


def test_an_answer_is_told_at_once_and_never_again(
    people, tender, brokers, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    follow(watcher, tender, clock)
    assert alerts(django_capture_on_commit_callbacks) == []

    question = ask_and_answer(tender, buyer, brokers["broker2"])

    [sent] = alerts(django_capture_on_commit_callbacks)
    assert sent.subject == f'Changes to the tender "{tender.title}" ({tender.tender_id})'
    assert "The question «Яка калорійність?» was answered." in said(sent)
    assert f"/tenders/{tender.pk}/#question-{question.pk}" in said(sent)
    assert alerts(django_capture_on_commit_callbacks) == []


def test_what_happened_before_the_follow_is_not_told(
    people, tender, brokers, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    ask_and_answer(tender, buyer, brokers["broker2"])
    follow(watcher, tender, clock)

    assert alerts(django_capture_on_commit_callbacks) == []


def test_documents_dates_and_stages_are_told_in_order_in_one_mail(
    people, tender, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    follow(watcher, tender, clock)
    tender.add_document(
        by=owner(buyer, tender), key="e" * 32, md5="1" * 32, title="умови.pdf",
        format="application/pdf", metadata={},
    )  # fmt: skip
    tender.patch(
        by=owner(buyer, tender),
        data={"tenderPeriod": {"endDate": iso(tender.tender_end + timedelta(days=2))}},
    )
    tender.patch(by=owner(buyer, tender), data={"title": "Футляри для нагород"})
    clock.move_to(tender.enquiry_end + timedelta(minutes=1))
    Tender.objects.current(tender.pk, viewer=None)  # (time starts the tendering)

    [sent] = alerts(django_capture_on_commit_callbacks)
    body = said(sent)
    document = body.index("New document: «умови.pdf».")
    dates = body.index("The tender's dates changed.")
    conditions = body.index("The tender's conditions changed.")
    stage = body.index("The tender is now at the stage: tendering.")
    assert document < dates < conditions < stage
    assert f"/tenders/{tender.pk}/#documents" in body
    assert alerts(django_capture_on_commit_callbacks) == []


def test_bids_are_sealed_and_never_told(
    people, tender, brokers, clock, django_capture_on_commit_callbacks
):
    _buyer, watcher = people
    clock.move_to(tender.tender_start + timedelta(hours=1))
    tender = Tender.objects.current(tender.pk, viewer=None)
    follow(watcher, tender, clock)

    bid, _token = tender.place_bid(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]), data=bid_data(400)
    )
    bid.add_document(
        by=Actor(Role.BID_OWNER, broker=brokers["broker2"], subject=bid),
        key="f" * 32, md5="0" * 32, title="ліцензія.pdf", format="application/pdf",
        metadata={"documentType": "qualificationDocuments"},
    )  # fmt: skip

    assert bid.documents.exists()
    assert alerts(django_capture_on_commit_callbacks) == []
    assert Follow.objects.get().told_until == tender.events.order_by("pk").last().pk


def test_decisions_claims_and_their_answers_are_told_but_not_a_draft_claim(
    brokers, clock, django_capture_on_commit_callbacks
):
    world = portal_world(brokers, clock, decision="pending")
    watcher = sign_up("watcher", email="watcher@example.org")
    follow(watcher, world.tender, clock)

    world.award.activate(by=world.owner())
    [sent] = alerts(django_capture_on_commit_callbacks)
    assert "The bid of ПП «Чисто» won." in said(sent)
    assert f"#award-{world.award.pk}" in said(sent)

    world.refresh()
    bid = world.tender.bids.get(organization=world.bidder.organization)
    bidder = Actor(Role.BID_OWNER, user=world.bidder, subject=bid)
    draft, _token = Complaint.objects.file(
        award=world.award, by=bidder, title="Чернетка вимоги", author=organization()
    )
    assert alerts(django_capture_on_commit_callbacks) == []

    draft.submit(by=Actor(Role.COMPLAINT_OWNER, user=world.bidder, subject=draft))
    draft = Complaint.objects.get(pk=draft.pk)
    draft.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="resolved")
    [sent] = alerts(django_capture_on_commit_callbacks)
    claim = f"«Чернетка вимоги» ({draft.complaint_id})"
    assert f"A claim was filed: {claim}." in said(sent)
    assert f"The claim {claim} was answered." in said(sent)
    assert f"/claims/{draft.pk}/" in said(sent)

    # Closed by a claimant who disagreed: named as its page names it, not by its status.
    Complaint.objects.get(pk=draft.pk).resolve(
        by=Actor(Role.COMPLAINT_OWNER, user=world.bidder, subject=draft), satisfied=False
    )
    [sent] = alerts(django_capture_on_commit_callbacks)
    assert f"The claim {claim}: closed: the claimant disagreed." in said(sent)
    assert "resolved" not in said(sent)


def test_an_answer_the_buyer_prepared_but_did_not_send_is_never_told(
    brokers, clock, django_capture_on_commit_callbacks
):
    world = portal_world(brokers, clock)
    claim = world.claim("Переможець не має ліцензії")
    watcher = sign_up("watcher", email="watcher@example.org")
    follow(watcher, world.tender, clock)

    claim.prepare_answer(by=world.owner(), resolution=RESOLUTION, resolution_type="resolved")

    assert world.tender.events.filter(action="prepare_answer").exists()
    assert alerts(django_capture_on_commit_callbacks) == []


def test_a_withdrawn_draft_claim_is_never_told(brokers, clock, django_capture_on_commit_callbacks):
    world = portal_world(brokers, clock)
    watcher = sign_up("watcher", email="watcher@example.org")
    follow(watcher, world.tender, clock)
    bid = world.tender.bids.get(organization=world.bidder.organization)
    draft, _token = Complaint.objects.file(
        award=world.award,
        by=Actor(Role.BID_OWNER, user=world.bidder, subject=bid),
        title="Чернетка вимоги",
        author=organization(),
    )
    draft.cancel(by=Actor(Role.COMPLAINT_OWNER, user=world.bidder, subject=draft), reason="Ні")

    assert alerts(django_capture_on_commit_callbacks) == []


def test_a_cancellation_is_told_with_its_reason(
    people, tender, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    follow(watcher, tender, clock)

    tender.add_cancellation(
        by=owner(buyer, tender), data={"reason": "Потреба відпала", "status": "active"}
    )

    [sent] = alerts(django_capture_on_commit_callbacks)
    assert "Cancelled: Потреба відпала" in said(sent)
    assert "means to cancel" not in said(sent)  # (proposed and in effect: said once)
    assert "stage" not in said(sent)  # (the cancellation says it once)


def test_a_lot_cancelled_is_told_by_its_name_not_as_the_tender_cancelled(
    people, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    tender = published(buyer, clock, **two_lots())
    follow(watcher, tender, clock)

    tender.add_cancellation(
        by=owner(buyer, tender),
        data={"reason": "Лот не потрібен", "relatedLot": FIRST, "status": "active"},
    )

    [sent] = alerts(django_capture_on_commit_callbacks)
    assert "The lot «лот 1» is cancelled: Лот не потрібен" in said(sent)
    assert "stage" not in said(sent) and "Cancelled:" not in said(sent)
    assert Tender.objects.get(pk=tender.pk).status == "active.enquiries"


def test_a_daily_follow_waits_a_day_then_tells_everything_in_one_digest(
    people, tender, brokers, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    follow(watcher, tender, clock, frequency="daily")
    ask_and_answer(tender, buyer, brokers["broker2"], title="Перше питання")
    clock.advance(hours=2)
    ask_and_answer(tender, buyer, brokers["broker2"], title="Друге питання")

    assert alerts(django_capture_on_commit_callbacks) == []
    clock.advance(hours=23)
    [sent] = alerts(django_capture_on_commit_callbacks)
    assert "«Перше питання»" in said(sent) and "«Друге питання»" in said(sent)
    assert alerts(django_capture_on_commit_callbacks) == []

    clock.advance(hours=1)
    ask_and_answer(tender, buyer, brokers["broker2"], title="Третє питання")
    assert alerts(django_capture_on_commit_callbacks) == []  # (a day since the digest)


def test_the_mail_is_in_the_language_the_follower_followed_in(
    people, tender, brokers, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    follow(watcher, tender, clock, language="uk")

    ask_and_answer(tender, buyer, brokers["broker2"])

    [sent] = alerts(django_capture_on_commit_callbacks)
    assert sent.subject.startswith("Зміни в закупівлі «")
    assert "На запитання «Яка калорійність?» надано відповідь." in said(sent)


def test_an_unconfirmed_or_inactive_account_is_told_nothing(
    people, tender, brokers, clock, django_capture_on_commit_callbacks
):
    buyer, watcher = people
    follow(watcher, tender, clock)
    watcher.is_active = False
    watcher.save()

    ask_and_answer(tender, buyer, brokers["broker2"])

    assert alerts(django_capture_on_commit_callbacks) == []


def test_a_mail_that_cannot_be_made_is_passed_over_not_tried_for_ever(
    people, tender, brokers, clock, django_capture_on_commit_callbacks, monkeypatch, caplog
):
    buyer, watcher = people
    follow(watcher, tender, clock)
    ask_and_answer(tender, buyer, brokers["broker2"], title="Перше питання")
    with monkeypatch.context() as broken:
        broken.setattr(watch, "described", lambda *args: 1 / 0)
        assert alerts(django_capture_on_commit_callbacks) == []
    assert "its changes are passed over" in caplog.text

    assert alerts(django_capture_on_commit_callbacks) == []  # (not tried again)
    ask_and_answer(tender, buyer, brokers["broker2"], title="Друге питання")
    [sent] = alerts(django_capture_on_commit_callbacks)
    assert "«Друге питання»" in said(sent) and "«Перше питання»" not in said(sent)


def test_a_mail_of_many_documents_reads_their_titles_at_once(
    people, clock, django_capture_on_commit_callbacks, query_count
):
    buyer, watcher = people
    counted = []
    for documents in (1, 4):
        tender = published(buyer, clock, title=f"Закупівля {documents}")
        follow(watcher, tender, clock)
        for number in range(documents):
            tender.add_document(
                by=owner(buyer, tender), key=f"{number:x}" * 32, md5="1" * 32,
                title=f"{number}.pdf", format="application/pdf", metadata={},
            )  # fmt: skip
        with query_count() as queries:
            [sent] = alerts(django_capture_on_commit_callbacks)
        assert said(sent).count("New document") == documents
        counted.append(len(queries.captured_queries))
        Follow.objects.all().delete()

    assert counted[0] == counted[1]
