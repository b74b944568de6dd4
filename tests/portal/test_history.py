"""A tender's history in the open: every published change, newest first, with who and when;
never a bid, a draft claim or a draft tender's changes to others."""

import pytest
from django.urls import reverse

from complaints.models import Complaint
from portal import history
from tenders.models import Tender
from tests.docservice.helpers import multipart
from tests.factories import portal_world
from tests.helpers import SECOND, create_tender, organization, two_lots
from tests.portal.follows import ask_and_answer, buyer_and_watcher, published

pytestmark = pytest.mark.django_db


def changes(client, tender, **asked) -> list[str]:
    response = client.get(reverse("tender-history", args=[tender.pk]), asked)
    assert response.status_code == 200
    return [f"{change['who']}: {change['text']}" for change in response.context["changes"]]


def test_the_history_tells_each_published_change_newest_first_with_who(client, brokers, clock):
    world = portal_world(brokers, clock)
    world.claim("Переможець не підтвердив досвід", named_as_in_its_bid=True)
    client.cookies["django_language"] = "en"

    told = changes(client, world.tender)

    assert told[
        0
    ] == "ТОВ «Медтехсервіс»: A claim was filed: «Переможець не підтвердив досвід» " + (
        f"({Complaint.objects.get().complaint_id})."
    )
    assert "Державне управління справами: The bid of ПП «Чисто» won." in told
    assert "the registry: The tender is now at the stage: qualification." in told
    assert told[-1] == "Державне управління справами: The tender is published."
    assert not [line for line in told if "bid" in line.lower() and "won" not in line]


def test_a_change_through_a_broker_names_it_and_a_draft_s_history_is_its_own(
    client, api, api2, clock
):
    tender = create_tender(api)
    question = api2.post(
        f"{tender.path}/questions",
        {"title": "Строки?", "description": "Які строки?", "author": organization("Школа", "1")},
    ).json()["data"]
    api.patch(
        f"{tender.path}/questions/{question['id']}", {"answer": "Тиждень"}, token=tender.token
    )
    client.cookies["django_language"] = "en"

    told = changes(client, Tender.objects.get(pk=tender.id))

    assert told[0] == (
        "Державне управління справами, through broker: The question «Строки?» was answered."
    )
    draft = create_tender(api, status="draft")
    assert client.get(reverse("tender-history", args=[draft.id])).status_code == 404


def test_older_changes_follow_a_link(client, brokers, clock, monkeypatch):
    monkeypatch.setattr(history, "SHOWN", 2)
    buyer, _watcher = buyer_and_watcher()
    tender = published(buyer, clock)
    for number in range(3):
        ask_and_answer(tender, buyer, brokers["broker2"], title=f"Питання {number}")
    client.cookies["django_language"] = "en"

    first = client.get(reverse("tender-history", args=[tender.pk]))
    later = changes(client, tender, before=first.context["older"])

    assert [c["text"] for c in first.context["changes"]] == [
        "The question «Питання 2» was answered.",
        "The question «Питання 1» was answered.",
    ]
    assert later == [
        "Державне управління справами: The question «Питання 0» was answered.",
        "Державне управління справами: The tender is published.",
    ]


def test_a_draft_s_changes_stay_out_and_an_odd_page_asks_nothing(client, api, clock):
    draft = create_tender(api, status="draft", **two_lots())
    api.delete(f"{draft.path}/lots/{SECOND}", token=draft.token)
    api.patch(draft.path, {"status": "active.enquiries"}, token=draft.token)
    client.cookies["django_language"] = "en"

    told = changes(client, Tender.objects.get(pk=draft.id))
    odd = client.get(reverse("tender-history", args=[draft.id]), {"before": "²"})

    assert told == ["Державне управління справами: The tender is published."]
    assert odd.status_code == 200


def test_a_document_s_change_links_the_version_it_made(client, api, clock):
    tender = create_tender(api)
    body, content_type = multipart("terms.pdf", b"%PDF-1.4 first " * 20)
    added = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    ).json()["data"]
    clock.advance(minutes=1)
    body, content_type = multipart("terms.pdf", b"%PDF-1.4 second " * 20)
    replaced = api.put(
        f"{tender.path}/documents/{added['id']}",
        body=body,
        content_type=content_type,
        token=tender.token,
    )
    assert replaced.status_code == 200, replaced.content
    client.cookies["django_language"] = "en"

    response = client.get(reverse("tender-history", args=[tender.id]))

    versions = [change["version"] for change in response.context["changes"] if change["version"]]
    assert [version["number"] for version in versions] == [2, 1]
    keys = [version["link"].rstrip("/").rsplit("/", 1)[-1] for version in versions]
    assert len(set(keys)) == 2  # each its own version
    for version in versions:
        assert client.get(version["link"]).status_code == 302
    assert "download>version 2</a>" in response.content.decode()
