"""The auction's page: anyone watches it live (with htmx in place, without JavaScript by a page
that renews itself); the bidder whose turn it is offers from it, signed in or entering by its
bid's participationUrl."""

import io
import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from auctions.course import course_of
from core.actors import Actor, Role
from core.schema import parse_iso
from portal import auction_started
from tenders.models import Tender
from tenders.models.auction import FIRST_PAUSE, PAUSE, TURN
from tests.factories import portal_auction
from tests.helpers import Api, tender_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def held(brokers, clock):
    return portal_auction(brokers, clock)


def test_anyone_watches_under_neutral_names_and_the_page_renews_itself(client, held, clock):
    tender, auction, _users, _api = held
    url = reverse("auction-page", args=[tender.pk])
    assert url in client.get(reverse("tender", args=[tender.pk])).content.decode()  # its link
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Аукціон ще не почався" in html and 'http-equiv="refresh"' in html
    # Before it starts, nothing of the sealed prices (nor the order they make) is shown.
    assert "450,00" not in html and "Учасник 1" not in html and "ТОВ «Перший»" not in html
    clock.move_to(auction.start + FIRST_PAUSE + timedelta(seconds=30))
    fragment = client.get(url, headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="auction-state"')
    assert "Раунд 1" in body and "залишилося 90 секунд" in body  # the turn's seconds left
    assert "Учасник 1" in body and "450,00" in body and "ТОВ «Перший»" not in body
    assert 'class="auction-offer"' not in body  # a watcher offers nothing


def test_a_portal_bidder_offers_in_its_turn_and_a_refusal_stands_by_the_field(client, held, clock):
    tender, auction, (first, second), _api = held
    url = reverse("auction-page", args=[tender.pk])
    clock.move_to(auction.start + FIRST_PAUSE)
    client.force_login(second)
    assert 'class="auction-offer"' not in client.get(url).content.decode()  # not its turn yet
    client.force_login(first)
    assert 'class="auction-offer"' in client.get(url).content.decode()
    refused = client.post(url, {"amount": "440"}, headers={"HX-Request": "true"})
    assert refused.status_code == 422
    # (the step is 35: from 450, at most 415)
    assert "Занадто висока ціна: зараз ви можете запропонувати не більше 415,00 грн" in (
        refused.content.decode()
    )
    assert client.post(url, {"amount": "400"}).status_code == 302
    assert "400,00" in client.get(url).content.decode()


def test_an_api_bidder_enters_by_its_participation_url_only(client, brokers, held, clock):
    tender, auction, _users, (bid, token) = held
    read = Api(client, key="broker2").get(f"/tenders/{tender.pk}/bids/{bid.pk}", token=token)
    link = read.json()["data"]["participationUrl"]
    parts = urlsplit(link)
    assert parts.path == reverse("auction-page", args=[tender.pk])
    entry = f"{parts.path}?{parts.query}"
    # Its turn is the last of the first round (400: the best).
    clock.move_to(auction.start + FIRST_PAUSE + timedelta(seconds=2 * 120))
    assert 'class="auction-offer"' in client.get(entry).content.decode()
    forged = entry[:-4] + "0000"
    assert 'class="auction-offer"' not in client.get(forged).content.decode()
    assert client.post(forged, {"amount": "300"}).status_code == 404
    assert client.post(entry, {"amount": "360"}).status_code == 302
    others = Api(client, key="broker").get(f"/tenders/{tender.pk}/bids/{bid.pk}")
    assert others.status_code == 403  # (sealed until the auction is over)


def test_once_over_the_names_are_shown_and_the_page_stops_renewing(client, held, clock):
    tender, auction, _users, _api = held
    clock.move_to(auction.start + auction.length(tender))
    html = client.get(reverse("auction-page", args=[tender.pk])).content.decode()
    assert "ТОВ «Перший»" in html and 'http-equiv="refresh"' not in html
    assert Tender.objects.get(pk=tender.pk).status == "active.qualification"


def test_a_watchers_renewal_is_rendered_once_a_second_and_an_offer_shows_the_next(
    client, held, clock, django_assert_num_queries
):
    tender, auction, (first, second), _api = held
    url = reverse("auction-page", args=[tender.pk])
    clock.move_to(auction.start + FIRST_PAUSE)
    watching = {"headers": {"HX-Request": "true"}}
    assert "450,00" in client.get(url, **watching).content.decode()
    with django_assert_num_queries(0):
        again = client.get(url, **watching)
    assert again.status_code == 200 and "450,00" in again.content.decode()

    bidder = Client()
    bidder.force_login(first)
    assert bidder.post(url, {"amount": "390"}).status_code == 302
    rival = Client()
    rival.force_login(second)
    assert "390,00" in rival.get(url, **watching).content.decode()  # a bidder's: at once
    clock.advance(seconds=1)
    assert "390,00" in client.get(url, **watching).content.decode()  # a watcher's: next second


def test_a_bidder_s_work_queue_has_its_auction_and_its_bid_is_in_it(client, held, clock):
    tender, auction, (first, _second), _api = held
    client.force_login(first)
    dashboard = client.get(reverse("dashboard")).content.decode()
    assert "Ваш аукціон: пропонуйте нижчі ціни у свої ходи" in dashboard
    assert reverse("auction-page", args=[tender.pk]) in dashboard
    assert "на аукціоні: ви можете знижувати ціну у свої ходи" in dashboard
    clock.move_to(auction.start + auction.length(tender))
    Tender.objects.catch_up_due()  # (the chronograph's pass)
    assert "Ваш аукціон" not in client.get(reverse("dashboard")).content.decode()


def test_portal_bidders_are_told_a_day_ahead_and_when_it_starts(
    held, clock, django_capture_on_commit_callbacks, settings
):
    settings.LANGUAGE_CODE = "en"
    tender, auction, users, _api = held

    def told(subject: str) -> list:
        before = len(mail.outbox)
        with django_capture_on_commit_callbacks(execute=True):
            call_command("alerts", "--once", stdout=io.StringIO())
        return [sent for sent in mail.outbox[before:] if sent.subject.startswith(subject)]

    clock.move_to(max(clock.now(), auction.start - timedelta(hours=20)))
    ahead = told("Due within a day")
    assert {address for sent in ahead for address in sent.to} == {
        "first@example.org",
        "second@example.org",
    }  # fmt: skip (the third bids through a broker, which hands it its link)
    body = " ".join(ahead[0].body.split())
    assert "Your auction: offer lower prices in your turns" in body and tender.tender_id in body
    assert settings.SITE_URL + reverse("auction-page", args=[tender.pk]) in body

    # As it starts (on the next pass of the alerts, a minute), each with its own turn.
    clock.move_to(auction.start + timedelta(seconds=30))
    started = told("Your auction has started")
    assert len(started) == 2 and tender.tender_id in started[0].body
    first_round = course_of(auction, Tender.objects.get(pk=tender.pk)).rounds[0]
    turns = {turn.bid_id: turn for turn in first_round}
    for sent in started:
        [user] = [u for u in users if u.email in sent.to]
        [bid] = [b for b in Tender.objects.get(pk=tender.pk).active_bids() if b.tenderer_name
                 == user.organization.name]  # fmt: skip
        turn = turns[bid.pk]
        kyiv = timezone.localtime
        body = " ".join(sent.body.split())
        assert (
            f"Your turn in round 1: from {kyiv(turn.starts):%H:%M:%S} to {kyiv(turn.ends):%H:%M:%S}."
        ) in body
        assert (
            f"Round 2 starts at {kyiv(course_of(auction, tender).rounds[1][0].starts):%H:%M:%S}"
            in body
        )
    assert told("Your auction has started") == []  # once


def test_an_offer_to_no_auction_is_a_404_page(client, held):
    tender, _auction, (first, _second), _api = held
    client.force_login(first)
    for url in (
        reverse("auction-page", args=["f" * 32]),
        reverse("auction-page", args=["not-an-id"]),
        reverse("auction-page", args=[tender.pk, "1" * 32]),
    ):
        assert client.post(url, {"amount": "1"}).status_code == 404


def test_a_bidder_s_renewals_read_the_offers_only_after_one_is_taken(client, held, clock):
    tender, auction, (first, second), _api = held
    url = reverse("auction-page", args=[tender.pk])
    clock.move_to(auction.start + FIRST_PAUSE)
    client.force_login(second)
    renewing = {"headers": {"HX-Request": "true"}}

    def offers_read() -> bool:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url, **renewing).status_code == 200
        return any("auctions_auctionbid" in query["sql"] for query in queries.captured_queries)

    offers_read()
    assert not offers_read()  # (the course as the tally says it stands, kept)
    bidder = Client()
    bidder.force_login(first)
    assert bidder.post(url, {"amount": "390"}).status_code == 302
    assert offers_read()
    assert "390,00" in client.get(url, **renewing).content.decode()
    assert not offers_read()


def test_a_link_that_lets_nobody_in_is_read_as_a_watcher_s_renewal(client, held, clock):
    """A made-up participationUrl is no way past the watchers' kept state (a page rendered per
    second for every one of them, whoever asks a thousand times a minute)."""
    tender, auction, _users, (bid, _token) = held
    url = reverse("auction-page", args=[tender.pk])
    clock.move_to(auction.start + FIRST_PAUSE)
    renewing = {"headers": {"HX-Request": "true"}}
    client.get(url, **renewing)
    for made_up in ("x", ":", f"{bid.pk}:{'0' * 64}"):
        with CaptureQueriesContext(connection) as queries:
            body = client.get(url, {"bidder": made_up}, **renewing).content.decode()
        assert "bidder=" not in body and "Учасник 1" in body
        assert not any("tenders_tender" in q["sql"] for q in queries.captured_queries)


def test_an_offer_far_below_the_bidder_s_price_is_taken_once_confirmed(client, held, clock):
    tender, auction, (first, _second), _api = held
    url = reverse("auction-page", args=[tender.pk])
    clock.move_to(auction.start + FIRST_PAUSE)
    client.force_login(first)
    for headers in ({"HX-Request": "true"}, {}):  # with htmx, and without JavaScript
        asked = client.post(url, {"amount": "1"}, headers=headers)
        assert asked.status_code == 422
        html = asked.content.decode()
        assert "1,00 грн — набагато нижче за вашу ціну, 450,00 грн" in html
        assert 'name="confirmed" value="1"' in html and "Так, запропонувати 1,00 грн" in html
        assert 'value="1"' in html  # (the amount typed stays in its field)
    assert not auction.placed.exists()
    # The page renewing itself keeps the question (htmx keeps what the offer's answer put there).
    renewed = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert '<div id="offer-doubt" hx-preserve="true"></div>' in renewed
    # A confirmation of another amount confirms nothing.
    assert client.post(url, {"amount": "2", "confirmed": "1.00"}).status_code == 422
    assert client.post(url, {"amount": "1", "confirmed": "1.00"}).status_code == 302
    [taken] = auction.placed.all()
    assert taken.amount == 1


def test_the_page_tells_the_bidder_its_turn_the_step_and_the_most_it_may_offer(
    client, brokers, clock
):
    tender, auction, (first, second), _api = portal_auction(brokers, clock, scale=160)
    url = reverse("auction-page", args=[tender.pk])
    client.force_login(first)
    clock.move_to(auction.start + FIRST_PAUSE - timedelta(seconds=20))
    before = client.get(url).content.decode()
    assert "Перший раунд ось-ось почнеться" in before
    assert "Раунд 1 почнеться через 20 секунд" in before
    clock.move_to(auction.start + FIRST_PAUSE + timedelta(seconds=1))
    html = client.get(url).content.decode()
    assert "Раунд 1: ваш хід" in html and "Ваш хід: залишилося 119 секунд" in html
    # 72 000 less the step, 5 600 (amounts grouped in thousands, as everywhere)
    assert "не більше <strong>66\xa0400,00 грн</strong>" in html and "5\xa0600,00 грн" in html
    assert "72\xa0000,00" in html
    client.force_login(second)
    watching = client.get(url).content.decode()
    assert "Раунд 1: хід — Учасник 1" in watching and "ваш хід" not in watching.lower()
    # Between rounds, the time to the next.
    round_two = auction.start + FIRST_PAUSE + 3 * TURN + PAUSE
    clock.move_to(round_two - timedelta(seconds=30))
    between = client.get(url).content.decode()
    assert "Перерва між раундами" in between and "Раунд 2 почнеться через 30 секунд" in between


def test_the_page_is_there_from_the_moment_the_auction_is_planned(client, brokers, clock):
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]), data=tender_data(clock.now())
    )
    url = reverse("auction-page", args=[tender.pk])
    assert client.get(url).status_code == 404  # (planned as tendering starts)
    clock.move_to(tender.tender_start + timedelta(minutes=1))
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Аукціон ще не почався" in html and "Почнеться через" in html
    assert "Пропозиції приймаються до" in html
    assert url in client.get(reverse("tender", args=[tender.pk])).content.decode()
    # (the API gives no auctionUrl until the bidders are known, as 2.3)
    read = Api(client, key="broker").get(f"/tenders/{tender.pk}").json()["data"]
    assert "auctionUrl" not in read
    assert client.post(url, {"amount": "1"}).status_code == 404


def test_the_results_give_each_bid_its_sealed_price_and_reduction_and_link_the_protocol(
    client, held, clock, django_capture_on_commit_callbacks
):
    tender, auction, (first, _second), _api = held
    url = reverse("auction-page", args=[tender.pk])
    clock.move_to(auction.start + FIRST_PAUSE)
    client.force_login(first)
    assert client.post(url, {"amount": "360"}).status_code == 302
    client.logout()
    clock.move_to(auction.start + auction.length(tender))
    with django_capture_on_commit_callbacks(execute=True):  # (the end stores the protocol)
        client.get(url)
    html = client.get(url).content.decode()
    standing = html[html.index('class="table auction-standing"') : html.index("</table>")]
    rows = [
        [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", standing.split("<tbody>")[1])
    ]
    assert rows == [
        ["ТОВ «Перший»", "450,00", "360,00", "−90,00 грн (20,00%)"],
        ["ПП «Третій»", "400,00", "400,00", "—"],
        ["ТОВ «Другий»", "420,00", "420,00", "—"],
    ]
    assert "Протокол аукціону:" in html
    for name in ("auction-protocol.json", "auction-protocol.html"):
        assert f">{name}</a>" in html

    # The tender's page: the bids by price, each dated as sealed, the auction's change said.
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()
    bids = page[page.index('id="bids-title"') :]
    bids = bids[: bids.index("</table>")]
    assert bids.index("ТОВ «Перший»") < bids.index("ПП «Третій»") < bids.index("ТОВ «Другий»")
    assert '360,00 UAH <span class="muted">(подано 450,00, знижено на аукціоні)</span>' in bids
    sealed = Tender.objects.get(pk=tender.pk).auctions.get().sealed
    [first_bid] = [bid for bid in sealed if sealed[bid]["amount"] == 450]
    submitted = timezone.localtime(parse_iso(sealed[first_bid]["date"])).strftime("%d.%m.%Y %H:%M")
    assert submitted in bids
    assert timezone.localtime(clock.now()).strftime("%d.%m.%Y %H:%M") not in bids


def test_an_auction_started_longer_ago_than_a_pass_or_two_is_not_told(
    held, clock, django_capture_on_commit_callbacks
):
    _tender, auction, _users, _api = held
    too_late = auction.start + auction_started.TOLD_WITHIN + timedelta(seconds=1)
    clock.move_to(too_late)
    with django_capture_on_commit_callbacks(execute=True):
        assert auction_started.send_due(too_late) == 0
    assert mail.outbox == []
    with django_capture_on_commit_callbacks(execute=True):  # (in time: both portal bidders)
        assert auction_started.send_due(auction.start + timedelta(seconds=5)) == 2
