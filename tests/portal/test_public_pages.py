"""The pages a visitor who is not signed in reads are kept rendered until what they show changes
(core/fragments.py): read again, a page is one query and the same page."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from complaints.models import Complaint
from core.actors import Actor, Role
from tenders.models import Tender
from tests.factories import RESOLUTION
from tests.helpers import organization, tender_data

pytestmark = pytest.mark.django_db

PER_REQUEST = re.compile(r'(csrfmiddlewaretoken" value="|"x-csrftoken": "|nonce=")[^"]+')


def page(client, url, *, status=200) -> tuple[str, int]:
    """The page without what differs by request (CSRF tokens, the script nonce), and the queries it took."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == status
    return PER_REQUEST.sub(r"\1", response.content.decode()), len(captured)


def a_claim(world) -> Complaint:
    return world.claim("Переможець не має ліцензії")


def test_a_tender_page_read_again_is_one_query_and_the_same_page(client, world):
    url = reverse("tender", args=[world.tender.pk])
    first, first_queries = page(client, url)
    again, again_queries = page(client, url)
    assert again == first and again_queries == 1 and first_queries > 1
    # What the visitor read is what the page renders for anyone without a part in the tender.
    client.force_login(world.stranger)
    as_stranger, _ = page(client, url)
    body = re.compile(r'<nav class="crumbs".*?</main>', re.S)
    assert body.search(again).group() == body.search(as_stranger).group()


@pytest.mark.parametrize("which", ["tender", "claim", "search"])
def test_a_kept_body_holds_nothing_of_one_visitor(client, world, which):
    """A kept body is shown to every visitor: no form token may be in it (forms a visitor
    may send are in the frame, rendered for each request)."""
    url = {
        "tender": reverse("tender", args=[world.tender.pk]),
        "claim": reverse("claim", args=[a_claim(world).pk]),
        "search": "/?q=футляри",
    }[which]
    # The buyer reads first: its page has forms and actions of its own.
    client.force_login(world.buyer)
    owners = client.get(url).content.decode()
    client.logout()
    content = client.get(url).content.decode()
    main = content[content.index("<main") : content.index("</main>")]
    assert "csrfmiddlewaretoken" not in main and "sessionid" not in main
    if which == "tender":
        # (what must not leak: the owner's acts, each a link to its review)
        act = reverse("award-decision", args=[world.tender.pk, world.award.pk])
        assert f'href="{act}?' in owners and act not in content
        assert world.buyer.username not in content
    elif which == "claim":
        assert "csrfmiddlewaretoken" in owners[owners.index("<main") :]  # (what must not leak)
        assert world.buyer.username not in content


def test_a_change_is_on_the_next_read_of_either_page(client, world):
    complaint = a_claim(world)
    tender_url = reverse("tender", args=[world.tender.pk])
    claim_url = reverse("claim", args=[complaint.pk])
    before_tender, _ = page(client, tender_url)
    before_claim, _ = page(client, claim_url)
    assert RESOLUTION not in before_claim

    complaint.tender = world.tender
    complaint.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="resolved")

    after_tender, _ = page(client, tender_url)
    after_claim, queries = page(client, claim_url)
    assert after_tender != before_tender
    assert RESOLUTION in after_claim and queries > 1
    assert page(client, claim_url) == (after_claim, 1)


def test_drafts_are_not_found_by_visitors(client, world, clock):
    draft_tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=world.buyer),
        data={**tender_data(clock.now()), "status": "draft"},
    )
    bid = world.tender.bids.get(organization__identifier="38012345")
    draft_claim, _ = Complaint.objects.file(
        award=world.award,
        by=Actor(Role.BID_OWNER, user=world.bidder, subject=bid),
        title="Чернетка",
        author=organization(),
    )
    page(client, reverse("tender", args=[draft_tender.pk]), status=404)
    page(client, reverse("claim", args=[draft_claim.pk]), status=404)
    page(client, reverse("claim", args=["f" * 32]), status=404)
    page(client, reverse("tender", args=["f" * 32]), status=404)


def test_a_tender_with_a_change_due_is_brought_up_to_date_before_it_is_shown(
    client, brokers, clock
):
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]),
        data=tender_data(clock.now()),
    )
    url = reverse("tender", args=[tender.pk])
    enquiries, _ = page(client, url)
    clock.move_to(tender.tender_start + timedelta(minutes=1))
    tendering, _ = page(client, url)
    assert tendering != enquiries
    assert Tender.objects.get(pk=tender.pk).status == "active.tendering"
    assert page(client, url) == (tendering, 1)


def test_pages_are_rendered_when_the_cache_does_not_answer(client, world, settings):
    # Nothing listens on port 1: every cache call fails at once.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    settings.API_RATE_ANONYMOUS_READS = "1000/minute"
    url = reverse("tender", args=[world.tender.pk])
    first, _ = page(client, url)
    again, queries = page(client, url)
    assert again == first and queries > 1  # rendered anew, the same page


def test_a_search_read_again_is_one_query_until_any_tender_changes(
    client, brokers, clock, settings
):
    settings.SEARCH_RESULTS_SECONDS = 60
    by = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    Tender.objects.register(by=by, data=tender_data(clock.now(), title="Папір офісний"))
    clock.advance(seconds=1)
    url = reverse("home") + "?q=папір"
    first, first_queries = page(client, url)
    assert page(client, url) == (first, 1) and first_queries > 1
    htmx = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}
    results = client.get(url, **htmx).content.decode()
    assert results.lstrip().startswith('<section id="results"') and "Папір офісний" in results
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, **htmx).content.decode() == results
    assert len(captured) == 1

    Tender.objects.register(by=by, data=tender_data(clock.now(), title="Папір для принтера"))
    after, _ = page(client, url)
    assert "Папір для принтера" in after and "Папір офісний" in after


def test_a_search_made_while_earlier_changes_may_still_commit_is_kept_only_until_they_have(
    client, brokers, clock, settings
):
    settings.SEARCH_RESULTS_SECONDS = 60
    settings.FEED_WATERMARK_SECONDS = 5
    by = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    tender, _ = Tender.objects.register(by=by, data=tender_data(clock.now(), title="Папір"))
    url = reverse("home") + "?q=папір"
    assert "Папір" in page(client, url)[0]  # rendered at the newest stamp
    # A change stamped earlier commits now: the newest stamp does not move.
    Tender.objects.filter(pk=tender.pk).update(title="Папір пізній", public_text="")

    clock.advance(seconds=3)
    assert "Папір пізній" not in page(client, url)[0]
    clock.advance(seconds=3)
    assert "Папір пізній" in page(client, url)[0]


def test_a_tender_page_links_its_open_data(client, world):
    html, _ = page(client, reverse("tender", args=[world.tender.pk]))

    links = re.findall(rf'href="(/api/2.3/tenders/{world.tender.pk}\?opt_schema=[a-z-]+)"', html)

    assert [link.rpartition("=")[2] for link in links] == ["ocds-record", "ocds"]
    [record] = client.get(links[0]).json()["records"]
    assert record["ocid"].endswith(world.tender.tender_id) and record["releases"]
