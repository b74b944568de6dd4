"""The pages people see, in both languages and on a phone: screenshots (build/screenshots/) for
a person to look at, and an accessibility check (axe-core) with no serious violation."""

import pytest
from django.utils import timezone

from complaints.models import Complaint
from core.actors import Actor, Role
from tenders.models import Tender
from tests.browser.pages import serious_violations, sign_in
from tests.factories import portal_world
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def claimed(brokers, clock):
    claimed = portal_world(brokers, clock)
    bid = claimed.tender.bids.get(organization=claimed.bidder.organization)
    Complaint.objects.file(
        award=claimed.award,
        by=Actor(Role.BID_OWNER, user=claimed.bidder, subject=bid),
        title="Переможець не підтвердив досвід аналогічних поставок",
        description="Учасник не надав жодного договору, чого вимагає пункт 4.2 документації.",
        author=bid.tenderers[0],
        submit=True,
    )
    return claimed


def in_language(page, language: str, server):
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
    return page


@pytest.mark.parametrize("language", ["uk", "en"])
def test_pages_in_each_language(people, claimed, screenshot, live_server, language):
    visitor = in_language(people(), language, live_server)
    pages = {
        "home": "/",
        "tender": f"/tenders/{claimed.tender.pk}/",
        "claim": f"/claims/{Complaint.objects.get().pk}/",
        "sign-up": "/accounts/signup/",
    }
    for name, url in pages.items():
        visitor.goto(url)
        assert visitor.locator("html").get_attribute("lang") == language
        assert serious_violations(visitor) == [], name
        screenshot(visitor, f"{language}-{name}")

    bidder = in_language(people(), language, live_server)
    sign_in(bidder, claimed.bidder)
    bidder.goto(f"/tenders/{claimed.tender.pk}/awards/{claimed.award.pk}/claims/new/")
    assert serious_violations(bidder) == []
    screenshot(bidder, f"{language}-claim-form")

    buyer = in_language(people(), language, live_server)
    sign_in(buyer, claimed.buyer)
    assert serious_violations(buyer) == []
    screenshot(buyer, f"{language}-owner-dashboard")
    buyer.goto(f"/claims/{Complaint.objects.get().pk}/")
    assert serious_violations(buyer) == []
    screenshot(buyer, f"{language}-answer-form")
    buyer.goto("/tenders/new/")
    assert serious_violations(buyer) == []
    screenshot(buyer, f"{language}-tender-form")
    draft, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=claimed.buyer),
        data=tender_data(timezone.now(), status="draft"),
    )
    buyer.goto(f"/tenders/{draft.pk}/")
    assert serious_violations(buyer) == []
    screenshot(buyer, f"{language}-owner-draft")
    claimed.buyer.organization.invite(user=claimed.buyer, email="colleague@example.org")
    buyer.goto("/organization/")
    assert serious_violations(buyer) == []
    screenshot(buyer, f"{language}-organization")

    for page in (visitor, bidder, buyer):
        assert page.errors == []


def test_tender_page_on_a_phone(people, claimed, screenshot):
    phone = people(width=390)
    phone.goto(f"/tenders/{claimed.tender.pk}/")

    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing forces sideways scrolling
    assert serious_violations(phone) == []
    screenshot(phone, "uk-tender-phone")
