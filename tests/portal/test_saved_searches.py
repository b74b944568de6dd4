"""Saved searches: any signed-in person keeps a search and gets the tenders newly published that
it finds by e-mail, at once or once a day (portal/alerts.py, `manage.py alerts`)."""

import io
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.core.management import call_command
from django.urls import reverse

from core.actors import Actor, Role
from portal.alerts import look
from portal.models import SavedSearch, User
from tenders.models import Tender
from tests.factories import make_user, sign_up
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня №3", "01993913", "procuring")


@pytest.fixture
def watcher(db, client):
    """A person with an account and no organization: saving a search asks for nothing more."""
    user = sign_up("watcher", email="watcher@example.org")
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return user


def publish(buyer, clock, title: str, **overrides) -> Tender:
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer),
        data=tender_data(clock.now(), title=title, **overrides),
    )
    return tender


def save(client, query="q=папір", frequency="at_once", name="Папір", once="s" * 32):
    return client.post(
        reverse("search-save"),
        {"once": once, "query": query, "name": name, "frequency": frequency},
    )


def alerts(capture):
    with capture(execute=True):
        call_command("alerts", "--once", stdout=io.StringIO())
    return [sent for sent in mail.outbox if sent.to == ["watcher@example.org"]]


def settle(clock):
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)


def test_the_save_page_says_what_the_search_asks(client, watcher):
    response = client.get(
        reverse("search-save"), {"q": "папір", "open_for_bids": "on", "page": "2"}
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert response.context["query"] == "open_for_bids=on&q=%D0%BF%D0%B0%D0%BF%D1%96%D1%80"
    assert "<dt>Search</dt><dd>папір</dd>" in page
    assert "<dt>Open for bids now</dt><dd>yes</dd>" in page
    assert response.context["form"].initial["name"] == "папір"


def test_a_saved_search_is_told_of_tenders_published_after_it_once(
    client, watcher, buyer, clock, django_capture_on_commit_callbacks
):
    publish(buyer, clock, "Папір офісний (до збереження)")
    clock.advance(minutes=1)
    assert save(client).status_code == 302
    clock.advance(minutes=1)
    paper = publish(buyer, clock, "Папір офісний А4")
    publish(buyer, clock, "Бензин А-95")
    assert alerts(django_capture_on_commit_callbacks) == []  # not settled yet: may not be committed
    settle(clock)

    [told] = alerts(django_capture_on_commit_callbacks)

    assert told.subject == "Нові закупівлі за вашим пошуком «Папір»"
    body = " ".join(told.body.split())
    assert f"Папір офісний А4 ({paper.tender_id})" in body
    assert settings.SITE_URL + reverse("tender", args=[paper.pk]) in body
    assert "до збереження" not in body and "Бензин" not in body
    assert settings.SITE_URL + reverse("searches") in body
    # Told once: the next pass finds nothing new.
    clock.advance(minutes=5)
    assert alerts(django_capture_on_commit_callbacks) == [told]


def test_a_draft_is_new_when_it_is_published(
    client, watcher, buyer, clock, django_capture_on_commit_callbacks
):
    draft = publish(buyer, clock, "Папір для принтера", status="draft")
    save(client)
    clock.advance(minutes=1)
    settle(clock)
    assert alerts(django_capture_on_commit_callbacks) == []

    draft.publish(by=Actor(Role.TENDER_OWNER, user=buyer, subject=draft))
    settle(clock)

    [told] = alerts(django_capture_on_commit_callbacks)
    assert draft.tender_id in told.body


def test_a_daily_search_tells_once_a_day_of_the_days_tenders(
    client, watcher, buyer, clock, django_capture_on_commit_callbacks
):
    save(client, frequency="daily")
    clock.advance(hours=1)
    first = publish(buyer, clock, "Папір офісний А4")
    clock.advance(hours=2)
    second = publish(buyer, clock, "Папір для принтера")
    settle(clock)
    assert alerts(django_capture_on_commit_callbacks) == []  # not a day yet

    clock.advance(days=1)
    [told] = alerts(django_capture_on_commit_callbacks)

    assert first.tender_id in told.body and second.tender_id in told.body
    clock.advance(hours=1)
    publish(buyer, clock, "Папір газетний")
    clock.advance(hours=2)
    assert len(alerts(django_capture_on_commit_callbacks)) == 1  # the next one waits a day


def test_the_same_search_saved_again_is_one_search(client, watcher):
    first = client.get(reverse("search-save") + "?region=м. Київ&q=папір&page=3")
    again = client.get(reverse("search-save") + "?q=книги&q=папір&region=м. Київ")
    assert first.context["query"] == again.context["query"]  # (the last of a repeated key)
    save(client, query=first.context["query"], name="Папір")
    save(
        client,
        query=again.context["query"],
        name="Папір і картон",
        frequency="daily",
        once="t" * 32,
    )

    [kept] = SavedSearch.objects.all()
    assert (kept.name, kept.frequency) == ("Папір і картон", "daily")


def test_saving_is_refused_for_an_unconfirmed_address_beyond_the_limit_and_for_a_bad_search(
    client, watcher
):
    bad = save(client, query="value_min=lots")
    for n in range(SavedSearch.MAX_PER_PERSON):
        save(client, query=f"q=слово{n}", once=f"{n}".ljust(32, "k"))
    one_too_many = save(client, query="q=зайве", once="z" * 32)
    # (signed up, its address not confirmed yet)
    newcomer = User.objects.create_user("newcomer", email="newcomer@example.org", password="x")
    client.force_login(newcomer)
    client.cookies["django_language"] = "en"
    unconfirmed = save(client, once="u" * 32)

    assert bad.status_code == 422 and "This search has mistakes" in bad.content.decode()
    assert one_too_many.status_code == 422
    assert "You keep 20 searches already" in one_too_many.content.decode()
    assert unconfirmed.status_code == 422
    assert "Confirm your e-mail address first" in unconfirmed.content.decode()
    assert SavedSearch.objects.count() == SavedSearch.MAX_PER_PERSON


def test_a_person_lists_and_deletes_its_own_searches_only(client, watcher):
    save(client)
    kept = SavedSearch.objects.get()
    listed = client.get(reverse("searches")).content.decode()
    other = sign_up("other", email="other@example.org")
    client.force_login(other)

    foreign = client.post(reverse("search-delete", args=[kept.pk]), {"once": "d" * 32})
    client.force_login(watcher)
    deleted = client.post(reverse("search-delete", args=[kept.pk]), {"once": "e" * 32})

    assert "Папір" in listed and reverse("search-delete", args=[kept.pk]) in listed
    assert foreign.status_code == 404
    assert deleted.status_code == 302 and not SavedSearch.objects.exists()


def test_a_search_of_a_stage_is_told_of_tenders_as_they_are_published(
    client, watcher, buyer, clock, django_capture_on_commit_callbacks
):
    save(client, query="open_for_bids=on&q=папір&status=active.tendering")
    clock.advance(minutes=1)
    paper = publish(buyer, clock, "Папір офісний А4")  # taking questions: bids come later
    settle(clock)

    [told] = alerts(django_capture_on_commit_callbacks)

    assert paper.tender_id in told.body


def test_a_look_that_began_before_the_last_one_tells_nothing_again(
    client, watcher, buyer, clock, django_capture_on_commit_callbacks
):
    save(client)
    clock.advance(minutes=1)
    publish(buyer, clock, "Папір офісний А4")
    settle(clock)
    started = clock.now()
    [told] = alerts(django_capture_on_commit_callbacks)
    search = SavedSearch.objects.get()

    look(search, started - timedelta(seconds=30))  # (a second worker, slower to get there)

    search.refresh_from_db()
    assert search.seen_until >= started - timedelta(seconds=settings.FEED_WATERMARK_SECONDS)
    assert alerts(django_capture_on_commit_callbacks) == [told]  # nothing more


def test_a_search_too_long_to_save_says_so(client, watcher):
    response = save(client, query="q=" + "%D0%BF" * 400)  # (URL-encoded, as the page sends it)

    assert response.status_code == 422
    assert "This search is too long to save" in response.content.decode()


def test_saving_needs_a_signed_in_person(client):
    response = client.get(reverse("search-save"), {"q": "папір"})

    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_the_results_offer_to_save_the_search(client):
    page = client.get(reverse("home"), {"q": "папір"}).content.decode()

    assert f'href="{reverse("search-save")}?q=%D0%BF%D0%B0%D0%BF%D1%96%D1%80"' in page


def test_a_search_of_a_later_stage_finds_no_tender_as_it_is_published(
    client, watcher, buyer, clock, django_capture_on_commit_callbacks
):
    save(client, query="q=папір&status=complete")
    clock.advance(minutes=1)
    publish(buyer, clock, "Папір офісний А4")
    settle(clock)

    assert alerts(django_capture_on_commit_callbacks) == []
