"""A published tender is amended in the portal while questions are taken (what 2.3's PATCH allows
then), in the form it was written in: its lots and items keep their ids, the law's periods count
from the change too, its followers are told; nobody else amends it, and not once bids are taken."""

from datetime import timedelta

import pytest
from django.urls import reverse

from core.actors import Actor, Role
from core.schema import KYIV
from portal.models import Follow
from tenders.models import AuditEvent, Question, Tender
from tenders.workdays import shift
from tests.factories import make_user, sign_up
from tests.helpers import organization
from tests.portal.follows import alerts, said
from tests.portal.forms import kyiv, tender_form

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_ukrainian(client):
    client.cookies["django_language"] = "uk"


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня №3", "01993913", "procuring")


def published(client, clock, **fields) -> Tender:
    sent = tender_form(clock, publish="1", **fields)
    response = client.post(reverse("tender-new"), sent)
    assert response.status_code == 302, (
        response.context["form"].errors,
        response.context["lots"].errors,
        response.context["items"].errors,
        response.context["lots"].non_form_errors(),
        response.context["items"].non_form_errors(),
    )
    tender = Tender.objects.get()
    assert tender.status == "active.enquiries"
    return tender


def amending(client, tender, **changes):
    url = reverse("tender-edit", args=[tender.pk])
    sent = {**client.get(url).context["form"].data, **changes}
    sent["once"] = "a" * 32
    return client.post(url, sent)


def test_the_owner_amends_its_published_tender_and_its_followers_are_told(
    client, buyer, brokers, clock, django_capture_on_commit_callbacks
):
    client.force_login(buyer)
    tender = published(client, clock)
    watcher = sign_up("watcher", email="watcher@example.org")
    Follow.start(watcher, tender, frequency="at_once", language="uk", now=clock.now())
    item_id = tender.data["items"][0]["id"]
    question = Question.objects.ask(
        tender=tender, by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]),
        data={"title": "Яка щільність?", "author": organization(), "questionOf": "item",
              "relatedItem": item_id},
    )  # fmt: skip
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert "Змінити закупівлю" in page
    clock.advance(hours=2)
    later_end = tender.tender_end + timedelta(days=3)

    response = amending(
        client, tender, title="Папір офісний А4, 80 г/м²", amount="45000",
        tender_end=kyiv(later_end), **{"items-0-quantity": "120"},
    )  # fmt: skip

    assert response.status_code == 302
    amended = Tender.objects.get(pk=tender.pk)
    assert (amended.title, amended.status) == ("Папір офісний А4, 80 г/м²", "active.enquiries")
    assert amended.data["value"]["amount"] == 45000
    assert amended.tender_end == later_end.replace(second=0, microsecond=0)
    assert amended.enquiry_start == tender.enquiry_start  # (the questions' start stays)
    [item] = amended.data["items"]
    assert (item["id"], item["quantity"]) == (item_id, 120)  # (the question names it)
    assert Question.objects.get(pk=question.pk).related_item == item_id
    [event] = AuditEvent.objects.filter(subject_id=tender.pk, action="edit")
    assert event.payload["fields"] == ["items", "tenderPeriod", "title", "value"]
    told = said(alerts(django_capture_on_commit_callbacks, to="watcher@example.org")[0])
    assert "змінилася" in told and "Папір офісний А4, 80 г/м²" in told
    assert "Змінено строки закупівлі" in told
    assert "Закупівлю змінено" in client.get(reverse("tender", args=[tender.pk])).content.decode()


def test_an_amendment_keeps_the_law_s_periods_and_ends_no_period_in_the_past(client, buyer, clock):
    client.force_login(buyer)
    tender = published(client, clock)
    clock.move_to(tender.enquiry_end - timedelta(hours=1))
    # (the questions end after the change, and bids are taken 2 working days after them)
    earliest = shift(tender.enquiry_end, timedelta(days=2), working_days=True)

    too_soon = amending(client, tender, tender_end=kyiv(earliest - timedelta(hours=1)))
    past = amending(client, tender, enquiry_end=kyiv(clock.now() - timedelta(hours=1)))

    assert too_soon.status_code == 422
    words = too_soon.content.decode()
    assert "Закон дає щонайменше 2 робочі дні на пропозиції після завершення запитань" in words
    assert earliest.astimezone(KYIV).strftime("%d.%m.%Y %H:%M") in words
    assert past.status_code == 422
    assert "Кінець періоду запитань не можна перенести в минуле" in past.content.decode()
    assert Tender.objects.get(pk=tender.pk).date_modified == tender.date_modified
    assert (
        amending(client, tender, tender_end=kyiv(earliest + timedelta(hours=1))).status_code == 302
    )


def test_lots_are_neither_added_nor_removed_by_an_amendment(client, buyer, clock):
    client.force_login(buyer)
    tender = published(client, clock, **{
        "lots-TOTAL_FORMS": "2", "lots-INITIAL_FORMS": "0",
        "lots-0-title": "Папір", "lots-0-amount": "300", "lots-0-minimal_step": "10",
        "lots-1-title": "Конверти", "lots-1-amount": "200", "lots-1-minimal_step": "10",
        "items-0-lot": "1", "items-TOTAL_FORMS": "1",
    })  # fmt: skip
    ids = [lot["id"] for lot in tender.lots]

    removed = amending(client, tender, **{"lots-TOTAL_FORMS": "1", "items-0-lot": "1"})
    renamed = amending(client, tender, **{"lots-1-title": "Конверти С4"})

    assert removed.status_code == 422
    assert "Лоти не додають і не вилучають після оприлюднення" in removed.content.decode()
    assert renamed.status_code == 302
    lots = Tender.objects.get(pk=tender.pk).lots
    assert [(lot["id"], lot["title"]) for lot in lots] == [
        (ids[0], "Папір"), (ids[1], "Конверти С4"),
    ]  # fmt: skip


def test_nobody_else_amends_it_and_nobody_once_bids_are_taken(client, buyer, clock):
    client.force_login(buyer)
    tender = published(client, clock)
    url = reverse("tender-edit", args=[tender.pk])
    sent = {**client.get(url).context["form"].data, "title": "Чужа назва", "once": "f" * 32}
    client.force_login(make_user("other", "Інша лікарня", "02993913", "procuring"))
    foreign = client.post(url, sent)
    client.force_login(buyer)
    clock.move_to(tender.enquiry_end + timedelta(minutes=1))
    sent["once"] = "g" * 32
    late = client.post(url, sent)

    assert foreign.status_code == 422
    assert "Вам це не дозволено: це робить інша сторона." in foreign.content.decode()
    assert late.status_code == 422
    assert "Не в теперішньому стані: «подання пропозицій»" in late.content.decode()
    assert (
        "Змінити закупівлю" not in client.get(reverse("tender", args=[tender.pk])).content.decode()
    )
    assert Tender.objects.get(pk=tender.pk).title == "Папір офісний А4"


def test_the_entity_s_kind_stays_and_items_are_not_taken_away(client, buyer, clock):
    client.force_login(buyer)
    tender = published(client, clock, **{
        "items-1-description": "Конверти С4", "items-1-cpv": "30199230-1",
        "items-1-quantity": "50",
    })  # fmt: skip
    assert len(tender.data["items"]) == 2

    shrunk = amending(client, tender, **{
        "items-1-description": "", "items-1-cpv": "", "items-1-quantity": "",
    })  # fmt: skip
    kind = amending(client, tender, entity_kind="special", title="Папір і конверти")

    assert shrunk.status_code == 422
    assert "Позиції не вилучають після оприлюднення закупівлі" in shrunk.content.decode()
    assert kind.status_code == 302
    amended = Tender.objects.get(pk=tender.pk)
    assert amended.title == "Папір і конверти"
    assert amended.data["procuringEntity"]["kind"] == "general"  # (as published: 2.3)
    assert [i["id"] for i in amended.data["items"]] == [i["id"] for i in tender.data["items"]]


def test_an_amendment_that_changes_nothing_says_so_and_tells_nobody(client, buyer, clock):
    client.force_login(buyer)
    tender = published(client, clock)

    response = amending(client, tender)

    assert response.status_code == 302
    assert "Нічого не змінено." in client.get(response["Location"]).content.decode()
    assert not AuditEvent.objects.filter(subject_id=tender.pk, action="edit").exists()
    assert Tender.objects.get(pk=tender.pk).date_modified == tender.date_modified


def test_a_tender_with_a_cancelled_lot_is_not_amended_in_the_form(client, buyer, clock):
    client.force_login(buyer)
    tender = published(client, clock, **{
        "lots-TOTAL_FORMS": "2", "lots-INITIAL_FORMS": "0",
        "lots-0-title": "Папір", "lots-0-amount": "300", "lots-0-minimal_step": "10",
        "lots-1-title": "Конверти", "lots-1-amount": "200", "lots-1-minimal_step": "10",
        "items-0-lot": "1", "items-TOTAL_FORMS": "1",
    })  # fmt: skip
    tender.add_cancellation(
        by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender),
        data={"reason": "Не треба", "status": "active", "cancellationOf": "lot",
              "relatedLot": tender.lots[1]["id"]},
    )  # fmt: skip
    url = reverse("tender-edit", args=[tender.pk])

    refused = client.get(url).content.decode()

    assert "Закупівлю зі скасованим лотом не можна змінити в цій формі." in refused
    assert (
        "Змінити закупівлю" not in client.get(reverse("tender", args=[tender.pk])).content.decode()
    )
