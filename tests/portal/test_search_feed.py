"""Every search is an Atom feed, for people who would rather not have an account."""

import xml.etree.ElementTree as ET

import pytest
from django.conf import settings
from django.urls import reverse

from core.actors import Actor, Role
from tenders.models import Tender
from tests.factories import make_user
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db

ATOM = {"atom": "http://www.w3.org/2005/Atom"}


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня №3", "01993913", "procuring")


def publish(buyer, clock, title: str, **overrides) -> Tender:
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer),
        data=tender_data(clock.now(), title=title, **overrides),
    )
    return tender


def entries(response) -> list[tuple[str, str]]:
    root = ET.fromstring(response.content)
    return [
        (entry.find("atom:title", ATOM).text, entry.find("atom:link", ATOM).get("href"))
        for entry in root.findall("atom:entry", ATOM)
    ]


def test_a_search_is_a_feed_of_what_it_finds(client, buyer, clock):
    paper = publish(buyer, clock, "Папір офісний А4")
    publish(buyer, clock, "Бензин А-95")
    publish(buyer, clock, "Папір для принтера", status="draft")  # not public

    response = client.get(reverse("search-feed"), {"q": "папір"})

    assert response.status_code == 200
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    link = settings.SITE_URL + reverse("tender", args=[paper.pk])
    assert entries(response) == [(f"Папір офісний А4 ({paper.tender_id})", link)]
    root = ET.fromstring(response.content)
    assert root.find("atom:title", ATOM).text == "Tenders found by: папір"


def test_a_tender_published_later_is_in_the_feed_read_again(client, buyer, clock):
    first = client.get(reverse("search-feed"), {"q": "папір"})
    clock.advance(minutes=1)
    paper = publish(buyer, clock, "Папір офісний А4")

    again = client.get(reverse("search-feed"), {"q": "папір"})

    assert entries(first) == []
    link = settings.SITE_URL + reverse("tender", args=[paper.pk])
    assert entries(again) == [(f"Папір офісний А4 ({paper.tender_id})", link)]


def test_a_search_the_form_refuses_is_a_400_saying_why(client):
    response = client.get(reverse("search-feed"), {"value_min": "lots"})

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert "This search can't be followed: Expected value from, UAH:" in response.content.decode()


def test_the_search_page_links_its_feed(client, buyer, clock):
    publish(buyer, clock, "Папір офісний А4")

    page = client.get(reverse("home"), {"q": "папір", "page": "1"}).content.decode()

    assert f'href="{reverse("search-feed")}?q=%D0%BF%D0%B0%D0%BF%D1%96%D1%80"' in page


@pytest.mark.postgres
def test_a_feed_of_words_is_looked_for_among_the_newest_first(client, buyer, clock, monkeypatch):
    """Its newest changes, whether the newest tenders hold them all or not."""
    monkeypatch.setattr("portal.views.FEED_ENTRIES", 2)
    monkeypatch.setattr("portal.views.SEARCH_FIRST_AMONG", 3)
    publish(buyer, clock, "Бинти давні")
    for n in range(3):
        clock.advance(minutes=1)
        publish(buyer, clock, f"Папір {n}")
    clock.advance(minutes=1)
    publish(buyer, clock, "Бинти нові")

    def titles(q):
        response = client.get(reverse("search-feed"), {"q": q})
        return [title.split(" (")[0] for title, _ in entries(response)]

    assert titles("паперу") == ["Папір 2", "Папір 1"]
    assert titles("бинти") == ["Бинти нові", "Бинти давні"]
