"""A tender's history in a real browser: from the tender's page to every published change, in
Ukrainian on a phone and in English on a desktop. Screenshots in build/screenshots/."""

import pytest

from tests.browser.pages import serious_violations
from tests.factories import portal_world

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "uk": {"link": "Історія змін", "claim": "Подано вимогу", "published": "Закупівлю оголошено."},
    "en": {
        "link": "History of changes",
        "claim": "A claim was filed",
        "published": "The tender is published.",
    },
}


@pytest.mark.parametrize(("language", "width"), [("uk", 390), ("en", 1280)])
def test_a_visitor_reads_the_history_of_a_tender(
    people, brokers, clock, screenshot, live_server, language, width
):
    world = portal_world(brokers, clock)
    world.claim("Переможець не підтвердив досвід", named_as_in_its_bid=True)
    visitor = people(width=width)
    visitor.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )

    visitor.goto(f"/tenders/{world.tender.pk}/")
    visitor.get_by_role("link", name=WORDS[language]["link"]).click()

    changes = visitor.locator("ol.history li")
    assert WORDS[language]["claim"] in changes.first.inner_text()
    assert WORDS[language]["published"] in changes.last.inner_text()
    assert "ТОВ «Медтехсервіс»" in changes.first.inner_text()
    assert visitor.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_violations(visitor) == []
    screenshot(visitor, f"{language}-{width}-tender-history")
