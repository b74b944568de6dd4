"""A draft is edited in the portal in the form it was written in: it is written anew (its lots
keep their ids) and stays a draft; nobody else edits it, and a published tender is amended
instead (test_tender_amend.py)."""

import pytest
from django.urls import reverse

from core.actors import Actor, Role
from tenders.models import AuditEvent, Tender
from tests.factories import make_user
from tests.portal.forms import tender_form

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня №3", "01993913", "procuring")


# The new-tender form's part for two lots, paper and envelopes.
TWO_LOTS = {
    "lots-TOTAL_FORMS": "2",
    "lots-INITIAL_FORMS": "0",
    "lots-0-title": "Папір",
    "lots-0-amount": "300",
    "lots-0-minimal_step": "10",
    "lots-1-title": "Конверти",
    "lots-1-amount": "200",
    "lots-1-minimal_step": "10",
}


def written(client, clock, **fields) -> Tender:
    assert client.post(reverse("tender-new"), tender_form(clock, **fields)).status_code == 302
    return Tender.objects.get()


def test_the_edit_form_holds_the_draft_and_saving_rewrites_it(client, buyer, clock):
    client.force_login(buyer)
    draft = written(client, clock)
    url = reverse("tender-edit", args=[draft.pk])
    page = client.get(reverse("tender", args=[draft.pk])).content.decode()

    form = client.get(url)
    sent = {**form.context["form"].data, "title": "Папір офісний А4, 80 г/м²", "amount": "45000"}
    sent["once"] = "e" * 32
    response = client.post(url, sent)

    assert f'href="{url}"' in page
    assert form.status_code == 200 and not form.context["form"].errors
    assert form.context["form"].data["title"] == "Папір офісний А4"
    assert form.context["form"].data["amount"] == "48000.00"  # (as typed: not the stored 48000.0)
    assert form.context["items"].forms[0]["cpv"].value().startswith("30197630-1")
    assert response.status_code == 302
    draft.refresh_from_db()
    assert (draft.title, draft.status) == ("Папір офісний А4, 80 г/м²", "draft")
    assert draft.data["value"]["amount"] == 45000
    assert [item["classification"]["id"] for item in draft.data["items"]] == ["30197630-1"]
    assert AuditEvent.objects.filter(subject_id=draft.pk, action="rewrite_draft").exists()


def test_a_draft_in_lots_keeps_its_lots_ids(client, buyer, clock):
    client.force_login(buyer)
    draft = written(
        client,
        clock,
        **{
            **TWO_LOTS,
            "items-0-lot": "2",
            "items-1-lot": "1",
        },
    )
    ids = [lot["id"] for lot in draft.lots]
    url = reverse("tender-edit", args=[draft.pk])
    sent = {**client.get(url).context["form"].data, "lots-1-title": "Конверти С4"}
    sent["once"] = "e" * 32

    assert client.post(url, sent).status_code == 302

    draft.refresh_from_db()
    assert [(lot["id"], lot["title"]) for lot in draft.lots] == [
        (ids[0], "Папір"),
        (ids[1], "Конверти С4"),
    ]
    assert [item["relatedLot"] for item in draft.data["items"]] == [ids[1]]


def test_a_refused_edit_keeps_what_was_typed_and_changes_nothing(client, buyer, clock):
    client.force_login(buyer)
    draft = written(client, clock)
    url = reverse("tender-edit", args=[draft.pk])
    sent = {**client.get(url).context["form"].data, "title": "Нова назва", "tender_end": ""}

    response = client.post(url, sent)

    assert response.status_code == 422
    assert "Нова назва" in response.content.decode()
    draft.refresh_from_db()
    assert draft.title == "Папір офісний А4"


def test_nobody_else_edits_a_draft_and_a_published_one_is_amended_instead(client, buyer, clock):
    client.force_login(buyer)
    draft = written(client, clock)
    url = reverse("tender-edit", args=[draft.pk])
    sent = {**client.get(url).context["form"].data, "title": "Чужа назва"}
    colleague_elsewhere = make_user("other", "Інша лікарня", "02993913", "procuring")
    client.force_login(colleague_elsewhere)

    foreign = client.post(url, sent)
    draft.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=draft))
    client.force_login(buyer)
    client.cookies["django_language"] = "en"
    published = client.get(url).content.decode()

    assert foreign.status_code == 404  # a draft is its organization's alone
    draft.refresh_from_db()
    assert draft.title == "Папір офісний А4"
    # (published, the form amends it: tests/portal/test_tender_amend.py)
    assert "<h1>Amend the tender</h1>" in published and "Publish the changes" in published


def test_a_draft_with_a_cancelled_lot_is_not_rewritten(client, buyer, clock):
    """Its lots keep their ids by place: a lot cancelled would pass its state to another."""
    client.force_login(buyer)
    draft = written(
        client,
        clock,
        **{
            **TWO_LOTS,
            "items-0-lot": "1",
            "items-1-lot": "1",
        },
    )
    draft.add_cancellation(
        by=Actor(Role.TENDER_OWNER, user=buyer, subject=draft),
        data={"reason": "Не треба", "status": "active", "cancellationOf": "lot",
              "relatedLot": draft.lots[1]["id"]},
    )  # fmt: skip
    url = reverse("tender-edit", args=[draft.pk])

    page = client.get(reverse("tender", args=[draft.pk])).content.decode()
    refused = client.get(url).content.decode()

    assert f'href="{url}"' not in page
    assert "A draft with a cancelled lot is not edited" in refused
