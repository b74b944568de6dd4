"""Questions to the buyer and claims about the conditions in the portal: asked and filed from
the tender page, answered by the buyer, listed on the dashboards, told by e-mail."""

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from complaints.models import Complaint
from core.actors import Actor, Role
from portal.models import Organization, User
from tenders.models import Question, Tender
from tests.factories import RESOLUTION, make_user, portal_world
from tests.helpers import FIRST, SECOND, tender_data, two_lots
from tests.portal.forms import post_claim_form

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@dataclass
class Enquiries:
    tender: Tender
    buyer: User
    bidder: User
    other: User

    def page(self, client) -> str:
        response = client.get(reverse("tender", args=[self.tender.pk]))
        assert response.status_code == 200
        return response.content.decode()


def enquiries(clock, **overrides) -> Enquiries:
    buyer = make_user("buyer", "Лікарня №3", "01993913", Organization.Kind.PROCURING)
    bidder = make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", Organization.Kind.BIDDER)
    other = make_user("bidder2", "ФОП Коваленко", "2894512345", Organization.Kind.BIDDER)
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), **overrides)
    )
    return Enquiries(tender, buyer, bidder, other)


@pytest.fixture
def in_enquiries(brokers, clock):
    return enquiries(clock)


def ask(client, in_enquiries, once="q" * 32, **fields):
    data = {"once": once, "title": "Яка калорійність?", "description": "Просимо таблицю", **fields}
    return client.post(reverse("question-ask", args=[in_enquiries.tender.pk]), data)


def answer(client, in_enquiries, question, text="Таблицю додано", once="r" * 32):
    url = reverse("question-answer", args=[in_enquiries.tender.pk, question.pk])
    return client.post(url, {"once": once, "answer": text})


def test_a_bidder_asks_the_buyer_answers_and_each_is_told(
    in_enquiries, as_user, django_capture_on_commit_callbacks
):
    page = in_enquiries.page(as_user(in_enquiries.bidder))
    assert "Ask a question" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(as_user(in_enquiries.bidder), in_enquiries)
    assert response.status_code == 302
    question = Question.objects.get()
    assert question.author["name"] == in_enquiries.bidder.organization.name
    assert question.organization == in_enquiries.bidder.organization
    assert [m.to for m in mail.outbox] == [["buyer@example.org"]]
    assert question.title in mail.outbox[0].body
    # The buyer is not told who asks, on the page or in the mail.
    assert in_enquiries.bidder.organization.name not in mail.outbox[0].body
    buyer_page = in_enquiries.page(as_user(in_enquiries.buyer))
    assert "Яка калорійність?" in buyer_page
    assert in_enquiries.bidder.organization.name not in buyer_page
    assert "Publish the answer" in buyer_page
    assert "Ask a question" not in buyer_page  # the buyer asks itself nothing

    with django_capture_on_commit_callbacks(execute=True):
        response = answer(as_user(in_enquiries.buyer), in_enquiries, question)
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.answer == "Таблицю додано" and question.date_answered is not None
    assert [m.to for m in mail.outbox][1:] == [["bidder@example.org"]]
    assert "Таблицю додано" in mail.outbox[1].body
    visitor_page = in_enquiries.page(as_user(None))
    assert "Таблицю додано" in visitor_page and "Яка калорійність?" in visitor_page
    assert "Your organization's question" in in_enquiries.page(as_user(in_enquiries.bidder))


def test_questions_and_answers_on_the_dashboards(in_enquiries, as_user):
    ask(as_user(in_enquiries.bidder), in_enquiries)
    question = Question.objects.get()
    dashboard = as_user(in_enquiries.buyer).get(reverse("dashboard")).content.decode()
    assert "Answer the question" in dashboard
    assert question.title in dashboard
    mine = as_user(in_enquiries.bidder).get(reverse("dashboard")).content.decode()
    assert "My questions" in mine and "Not answered yet." in mine
    answer(as_user(in_enquiries.buyer), in_enquiries, question)
    assert (
        question.title not in as_user(in_enquiries.buyer).get(reverse("dashboard")).content.decode()
    )
    mine = as_user(in_enquiries.bidder).get(reverse("dashboard")).content.decode()
    assert "Таблицю додано" in mine


def test_questions_end_with_the_enquiry_period(in_enquiries, as_user, clock):
    ask(as_user(in_enquiries.bidder), in_enquiries)
    question = Question.objects.get()
    clock.move_to(in_enquiries.tender.enquiry_end)
    page = in_enquiries.page(as_user(in_enquiries.other))
    assert "Ask a question" not in page
    response = ask(as_user(in_enquiries.other), in_enquiries, once="s" * 32)
    assert response.status_code == 422
    assert "Not at this stage of the tender: «tendering»." in response.content.decode()
    assert Question.objects.count() == 1
    # Tendering started (the tender's dates make them one moment): no answer any more.
    response = answer(as_user(in_enquiries.buyer), in_enquiries, question)
    assert response.status_code == 422
    assert "Not at this stage of the tender: «tendering»." in response.content.decode()
    question.refresh_from_db()
    assert not question.is_answered


def test_a_stranger_answers_nothing_and_an_empty_question_is_refused(in_enquiries, as_user):
    ask(as_user(in_enquiries.bidder), in_enquiries)
    question = Question.objects.get()
    response = answer(as_user(in_enquiries.other), in_enquiries, question)
    assert response.status_code == 422 and "You may not do this" in response.content.decode()
    response = ask(as_user(in_enquiries.other), in_enquiries, once="t" * 32, title="")
    assert response.status_code == 422
    assert (
        as_user(None).post(reverse("question-ask", args=[in_enquiries.tender.pk])).status_code
        == 302
    )
    assert Question.objects.count() == 1
    unknown = reverse("question-answer", args=[in_enquiries.tender.pk, "f" * 32])
    assert (
        as_user(in_enquiries.buyer).post(unknown, {"once": "u" * 32, "answer": "x"}).status_code
        == 404
    )


def test_a_question_about_a_lot_or_an_item(brokers, clock, as_user):
    in_enquiries = enquiries(clock, **two_lots())
    client = as_user(in_enquiries.bidder)
    page = in_enquiries.page(client)
    assert f'value="lot:{SECOND}"' in page
    ask(client, in_enquiries, about=f"lot:{SECOND}")
    item = in_enquiries.tender.data["items"][0]
    ask(client, in_enquiries, once="v" * 32, about=f"item:{item['id']}")
    about = list(Question.objects.values_list("question_of", "related_item"))
    assert about == [("lot", SECOND), ("item", item["id"])]
    page = in_enquiries.page(client)
    assert "lot «лот 2»" in page and f"item «{item['description']}»" in page
    assert f'value="lot:{FIRST}"' in page
    response = ask(client, in_enquiries, once="w" * 32, about="lot:" + "3" * 32)
    assert response.status_code == 422
    assert Question.objects.count() == 2


# --- claims about the conditions -------------------------------------------------------------


def file_tender_claim(client, in_enquiries, once="c" * 32, submit=True, **fields):
    data = {
        "once": once,
        "title": "Вимога ліцензії, яку має одна фірма",
        "description": "Умова обмежує конкуренцію.",
        **fields,
    }
    if submit:
        data["submit"] = "1"
    return client.post(reverse("tender-claim-new", args=[in_enquiries.tender.pk]), data)


def test_a_claim_about_the_conditions_sent_again_leads_to_the_one_filed(in_enquiries, as_user):
    client = as_user(in_enquiries.bidder)
    file_tender_claim(client, in_enquiries, once="1" * 32)
    first = Complaint.objects.get()

    again = file_tender_claim(client, in_enquiries, once="2" * 32)

    assert again["Location"] == reverse("claim", args=[first.pk])
    assert Complaint.objects.count() == 1


def test_a_claim_about_the_conditions_through_every_step(
    in_enquiries, as_user, django_capture_on_commit_callbacks
):
    client = as_user(in_enquiries.bidder)
    assert "File a claim about the conditions" in in_enquiries.page(client)
    assert client.get(reverse("tender-claim-new", args=[in_enquiries.tender.pk])).status_code == 200
    response = file_tender_claim(client, in_enquiries, submit=False)
    complaint = Complaint.objects.get()
    assert response["Location"] == reverse("claim", args=[complaint.pk])
    assert (complaint.status, complaint.award_id, complaint.bid_id) == ("draft", None, None)
    # A draft is its author's alone.
    assert as_user(in_enquiries.buyer).get(reverse("claim", args=[complaint.pk])).status_code == 404
    assert complaint.title not in in_enquiries.page(as_user(in_enquiries.other))

    client = as_user(in_enquiries.bidder)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("claim-draft", args=[complaint.pk]),
            {"once": "d" * 32, "title": complaint.title, "description": "Опис", "submit": "1"},
        )
    complaint.refresh_from_db()
    assert complaint.status == "claim"
    assert [m.to for m in mail.outbox] == [["buyer@example.org"]]
    assert "щодо умов закупівлі" in mail.outbox[0].body  # (mail is in the site's language)

    buyer = as_user(in_enquiries.buyer)
    page = buyer.get(reverse("claim", args=[complaint.pk])).content.decode()
    assert "about the conditions of tender" in page
    assert in_enquiries.bidder.organization.name not in page  # shown once bids are opened
    dashboard = buyer.get(reverse("dashboard")).content.decode()
    assert complaint.title in dashboard and "a claim about the conditions" in dashboard
    with django_capture_on_commit_callbacks(execute=True):
        buyer.post(
            reverse("claim-answer", args=[complaint.pk]),
            {"once": "e" * 32, "resolution_type": "resolved", "resolution": RESOLUTION,
             "answer": "1"},
        )  # fmt: skip
    complaint.refresh_from_db()
    assert complaint.status == "answered"
    assert [m.to for m in mail.outbox][1:] == [["bidder@example.org"]]

    client = as_user(in_enquiries.bidder)
    assert (
        in_enquiries.bidder.organization.name
        in client.get(reverse("claim", args=[complaint.pk])).content.decode()
    )
    client.post(reverse("claim-decision", args=[complaint.pk]), {"once": "f" * 32,
                                                                  "satisfied": "false"})  # fmt: skip
    complaint.refresh_from_db()
    assert (complaint.status, complaint.satisfied) == ("resolved", False)
    assert complaint.title in in_enquiries.page(as_user(None))


def test_a_claim_about_the_conditions_withdrawn_or_ignored(in_enquiries, as_user, clock):
    client = as_user(in_enquiries.bidder)
    file_tender_claim(client, in_enquiries)
    file_tender_claim(as_user(in_enquiries.other), in_enquiries, once="g" * 32)
    withdrawn, ignored = Complaint.objects.order_by("number")
    as_user(in_enquiries.bidder).post(
        reverse("claim-cancel", args=[withdrawn.pk]), {"once": "h" * 32, "reason": "Помилка"}
    )
    withdrawn.refresh_from_db()
    assert withdrawn.status == "cancelled"
    # Nobody bid: the tender ends when bids close, and the claim nobody answered is ignored.
    clock.move_to(in_enquiries.tender.tender_end + timedelta(minutes=1))
    page = in_enquiries.page(as_user(in_enquiries.other))
    assert "Unsuccessful" in page or "unsuccessful" in page
    ignored.refresh_from_db()
    assert ignored.status == "ignored"
    assert "File a claim about the conditions" not in page


def test_a_claim_about_the_conditions_is_refused_to_the_buyer_and_after_bids_close(
    in_enquiries, as_user, clock
):
    response = file_tender_claim(as_user(in_enquiries.buyer), in_enquiries)
    assert response.status_code == 422 and "You may not do this" in response.content.decode()
    assert "File a claim about the conditions" not in in_enquiries.page(as_user(in_enquiries.buyer))
    clock.move_to(in_enquiries.tender.tender_end + timedelta(minutes=1))
    response = file_tender_claim(as_user(in_enquiries.bidder), in_enquiries, once="i" * 32)
    assert response.status_code == 422
    assert "Not at this stage of the tender: «unsuccessful»." in response.content.decode()
    assert Complaint.objects.count() == 0


def test_an_empty_claim_form_sent_when_claims_are_refused_is_answered_with_the_refusal(
    in_enquiries, as_user
):
    """(an empty POST left the form unbound, and the refusal had no form to stand in: a 500)"""
    url = reverse("tender-claim-new", args=[in_enquiries.tender.pk])

    response = as_user(in_enquiries.buyer).post(url)

    assert response.status_code == 422 and "You may not do this" in response.content.decode()
    assert Complaint.objects.count() == 0


def test_a_claim_about_one_lot(brokers, clock, as_user):
    in_enquiries = enquiries(clock, **two_lots())
    client = as_user(in_enquiries.bidder)
    form = client.get(reverse("tender-claim-new", args=[in_enquiries.tender.pk])).content.decode()
    assert f'value="{SECOND}"' in form
    file_tender_claim(client, in_enquiries, lot=SECOND)
    claim = Complaint.objects.get()
    assert claim.related_lot == SECOND
    page = as_user(None).get(reverse("claim", args=[claim.pk])).content.decode()
    assert "about the conditions of tender" in page and ", lot «лот 2»" in page


def _queries_of(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_page_and_the_dashboards_cost_the_same_with_more_questions_and_claims(
    in_enquiries, as_user
):
    def add(n):
        for k in range(n):
            ask(as_user(in_enquiries.bidder), in_enquiries, once=f"{k}{n}".ljust(32, "a"))
            file_tender_claim(
                as_user(in_enquiries.bidder),
                in_enquiries,
                once=f"{k}{n}".ljust(32, "b"),
                title=f"Вимога {k}{n}",  # (the same words again would land on the first)
            )

    add(1)
    page, dashboard = reverse("tender", args=[in_enquiries.tender.pk]), reverse("dashboard")
    costs = {}
    for who in (in_enquiries.buyer, in_enquiries.bidder):
        client = as_user(who)
        _queries_of(client, page)  # warm: the session, the user's organization
        costs[who.username] = (_queries_of(client, page), _queries_of(client, dashboard))
    add(4)
    assert Question.objects.count() == 5 and Complaint.objects.count() == 5
    for who in (in_enquiries.buyer, in_enquiries.bidder):
        client = as_user(who)
        _queries_of(client, page)
        assert (_queries_of(client, page), _queries_of(client, dashboard)) == costs[who.username]


def test_questions_and_claims_of_one_organization_are_limited(in_enquiries, as_user, settings):
    settings.PUBLIC_POST_RATE = "3/hour"
    client = as_user(in_enquiries.bidder)
    sent = [ask(client, in_enquiries, once=f"{n}".ljust(32, "x")) for n in range(2)]
    sent.append(file_tender_claim(client, in_enquiries, once="2".ljust(32, "x")))
    refused = [
        ask(client, in_enquiries, once="3".ljust(32, "x")),
        file_tender_claim(client, in_enquiries, once="4".ljust(32, "x"), title="Друга вимога"),
    ]
    assert [response.status_code for response in sent] == [302, 302, 302]
    assert [response.status_code for response in refused] == [422, 422]
    assert "posted too often" in refused[0].content.decode()
    assert (Question.objects.count(), Complaint.objects.count()) == (2, 1)
    # Another organization is counted apart.
    assert (
        ask(as_user(in_enquiries.other), in_enquiries, once="5".ljust(32, "x")).status_code == 302
    )


def test_who_filed_a_claim_about_the_conditions_is_not_shown_to_others(in_enquiries, as_user):
    file_tender_claim(as_user(in_enquiries.bidder), in_enquiries)
    name = in_enquiries.bidder.organization.name
    claim = Complaint.objects.get()
    for who in (in_enquiries.other, in_enquiries.buyer, None):
        client = as_user(who)
        assert claim.title in in_enquiries.page(client)
        assert name not in in_enquiries.page(client)
        assert name not in client.get(reverse("claim", args=[claim.pk])).content.decode()
    assert (
        name in as_user(in_enquiries.bidder).get(reverse("claim", args=[claim.pk])).content.decode()
    )


def test_claims_against_a_decision_are_not_listed_as_claims_about_the_conditions(
    brokers, clock, as_user
):
    decided = portal_world(brokers, clock)
    post_claim_form(as_user(decided.bidder), decided)
    response = as_user(decided.other_bidder).get(reverse("tender", args=[decided.tender.pk]))
    assert Complaint.objects.get().award_id is not None
    assert response.context["tender_claims"] == []
    assert "No claims about the conditions." in response.content.decode()
