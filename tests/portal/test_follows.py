"""Following a tender from its page (with and without htmx), the list of followed tenders with
how often each is told, and the limits: signed-in people with a confirmed address, published
tenders only, Follow.MAX_PER_PERSON tenders, FOLLOW_RATE follows and unfollows."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from core.actors import Actor, Role
from portal.models import Follow
from tenders.models import Tender
from tests.factories import make_user
from tests.helpers import tender_data
from tests.portal.follows import buyer_and_watcher, follow, published

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "follow"}


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def people(db):
    return buyer_and_watcher()


@pytest.fixture
def tender(people, clock):
    return published(people[0], clock)


def page(client, tender) -> str:
    response = client.get(reverse("tender", args=[tender.pk]))
    assert response.status_code == 200
    return response.content.decode()


def start(client, tender, *, once="f" * 32, frequency="at_once", **headers):
    data = {"once": once, "frequency": frequency}
    return client.post(reverse("tender-follow", args=[tender.pk]), data, **headers)


def stop(client, tender, *, once="u" * 32, **headers):
    return client.post(reverse("tender-unfollow", args=[tender.pk]), {"once": once}, **headers)


def test_a_visitor_is_asked_to_sign_in_to_follow(client, tender):
    text = page(client, tender)

    assert "Sign in to follow this tender" in text
    assert f"/accounts/login/?next=/tenders/{tender.pk}/" in text
    assert reverse("tender-follow", args=[tender.pk]) not in text
    response = start(client, tender)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Follow.objects.exists()


def test_following_and_unfollowing_without_javascript(as_user, people, tender):
    client = as_user(people[1])
    assert "Follow this tender" in page(client, tender)

    response = start(client, tender, frequency="daily")

    assert response.status_code == 302
    assert response["Location"] == f"/tenders/{tender.pk}/#follow"
    following = Follow.objects.get()
    assert (following.user, following.tender_id) == (people[1], tender.pk)
    assert (following.frequency, following.language) == ("daily", "en")
    text = page(client, tender)
    assert "You follow the tender: its changes will be e-mailed to you." in text
    assert "its changes are e-mailed to you once a day" in text
    assert stop(client, tender).status_code == 302
    assert not Follow.objects.exists()
    assert "You no longer follow the tender." in page(client, tender)


def test_following_and_unfollowing_with_htmx_swap_the_box(as_user, people, tender):
    client = as_user(people[1])

    followed = start(client, tender, **HTMX)

    assert followed.status_code == 200
    assert '<section id="follow"' in followed.content.decode()
    assert "<html" not in followed.content.decode()
    assert "Stop following" in followed.content.decode()
    trigger = json.loads(followed["HX-Trigger"])
    assert trigger["follow-changed"]["notice"].startswith("You follow the tender")
    unfollowed = stop(client, tender, **HTMX)
    assert unfollowed.status_code == 200
    assert 'name="frequency"' in unfollowed.content.decode()
    assert not Follow.objects.exists()


def test_the_same_form_sent_twice_follows_once(as_user, people, tender):
    client = as_user(people[1])

    start(client, tender)
    again = start(client, tender, **HTMX)

    assert again.status_code == 422
    assert "This form has already been sent" in again.content.decode()
    assert Follow.objects.count() == 1
    # (the bar now offers to stop, with a token of its own: not the one spent)
    assert "Stop following" in again.content.decode()
    assert "f" * 32 not in again.content.decode()


def test_a_draft_is_never_followed(as_user, people, clock):
    buyer, watcher = people
    draft, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), status="draft")
    )

    assert "Follow this tender" not in page(as_user(buyer), draft)
    refused = start(as_user(buyer), draft, **HTMX)
    assert refused.status_code == 422
    assert "Only a published tender can be followed." in refused.content.decode()
    assert start(as_user(watcher), draft).status_code == 404
    assert not Follow.objects.exists()


def test_an_address_not_confirmed_is_refused(as_user, tender):
    from portal.models import User

    unconfirmed = User.objects.create_user("new", email="new@example.org", password="x" * 12)
    client = as_user(unconfirmed)

    shown = page(client, tender)
    refused = start(client, tender, **HTMX)

    # (told before, instead of a form that would be refused)
    assert (
        "Confirm your e-mail address first" in shown and "Follow this tender</button>" not in shown
    )
    assert refused.status_code == 422
    assert "Confirm your e-mail address first" in refused.content.decode()


def test_one_person_follows_at_most_so_many_tenders(as_user, people, clock, monkeypatch):
    monkeypatch.setattr(Follow, "MAX_PER_PERSON", 2)
    buyer, watcher = people
    tenders = [published(buyer, clock, title=f"Закупівля {n}") for n in range(3)]
    client = as_user(watcher)

    for number, tender in enumerate(tenders[:2]):
        assert start(client, tender, once=f"{number}" * 32).status_code == 302
    refused = start(client, tenders[2], once="3" * 32, **HTMX)

    assert refused.status_code == 422
    assert "You follow 2 tenders already: stop following one first." in refused.content.decode()
    assert Follow.objects.count() == 2


def test_following_and_unfollowing_are_rate_limited(as_user, people, tender, settings):
    settings.FOLLOW_RATE = "2/hour"
    client = as_user(people[1])

    start(client, tender, once="a" * 32)
    stop(client, tender, once="b" * 32)
    refused = start(client, tender, once="c" * 32, **HTMX)

    assert refused.status_code == 422
    assert "You have followed and unfollowed tenders too often" in refused.content.decode()
    assert not Follow.objects.exists()


def test_following_needs_the_csrf_token(people, tender):
    client = Client(enforce_csrf_checks=True)
    client.force_login(people[1])

    assert start(client, tender).status_code == 403
    assert not Follow.objects.exists()


def test_the_list_changes_how_often_and_stops(as_user, people, tender, clock):
    buyer, watcher = people
    other = published(buyer, clock, title="Друга закупівля")
    for followed in (tender, other):
        follow(watcher, followed, clock, language="uk")
    client = as_user(watcher)
    first = Follow.objects.get(tender=tender)

    listed = client.get(reverse("follows")).content.decode()
    assert "Tenders you follow" in listed
    assert tender.title in listed and "Друга закупівля" in listed
    assert "Tenders you follow" in client.get(reverse("dashboard")).content.decode()

    changed = client.post(
        reverse("follow-change", args=[first.pk]),
        {f"f{first.pk}-once": "c" * 32, f"f{first.pk}-frequency": "daily"},
        follow=True,
    )
    assert "Saved: the tender&#x27;s changes are e-mailed to you once a day." in (
        changed.content.decode()
    )
    first.refresh_from_db()
    assert (first.frequency, first.language) == ("daily", "en")
    stopped = client.post(reverse("follow-delete", args=[first.pk]), {"once": "d" * 32})
    assert stopped.status_code == 302
    assert list(Follow.objects.values_list("tender_id", flat=True)) == [other.pk]


def test_another_person_s_follow_is_not_found(as_user, people, tender, clock):
    following = follow(people[1], tender, clock)
    stranger = make_user("stranger", "ПП «Сторонній»", "40111222", "bidder")
    client = as_user(stranger)

    assert (
        client.post(reverse("follow-delete", args=[following.pk]), {"once": "d" * 32}).status_code
        == 404
    )
    assert client.post(reverse("follow-change", args=[following.pk]), {}).status_code == 404
    assert Follow.objects.filter(pk=following.pk).exists()


def test_the_list_asks_to_sign_in(client):
    assert "/accounts/login/" in client.get(reverse("follows"))["Location"]
