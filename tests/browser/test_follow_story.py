"""Following a tender in a real browser: in each language on a phone (390 px, with JavaScript:
the bar swaps in place) and on a desktop (1,280 px, without JavaScript: forms post and come
back). A visitor signs in from the tender page to follow it, is e-mailed an answer given
to a question, changes how often it is told, and stops following. Screenshots of each step
land in build/screenshots/."""

import io
import re

import pytest
from django.conf import settings
from django.core import mail
from django.core.management import call_command

from portal.models import Follow
from tests.browser.pages import serious_violations
from tests.factories import PASSWORD
from tests.portal.follows import WATCHER, ask_and_answer, buyer_and_watcher, published

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "uk": {
        "sign in": "Увійдіть, щоб стежити за закупівлею",
        "how often": "Надсилати мені її зміни",
        "at once": "одразу, щойно вони стаються",
        "daily": "раз на день",
        "follow": "Стежити за закупівлею",
        "following": "Ви стежите за закупівлею: її зміни надходять вам одразу",
        "list": "Закупівлі, за якими ви стежите",
        "save": "Зберегти",
        "saved": "Збережено: зміни закупівлі надходять вам раз на день.",
        "stop": "Припинити стежити",
        "stopped": "Ви більше не стежите за закупівлею.",
        "answered": "На запитання «Яка калорійність?» надано відповідь.",
    },
    "en": {
        "sign in": "Sign in to follow this tender",
        "how often": "E-mail me its changes",
        "at once": "at once, as they happen",
        "daily": "once a day",
        "follow": "Follow this tender",
        "following": "You follow this tender: its changes are e-mailed to you at once",
        "list": "The tenders you follow",
        "save": "Save",
        "saved": "Saved: the tender's changes are e-mailed to you once a day.",
        "stop": "Stop following",
        "stopped": "You no longer follow the tender.",
        "answered": "The question «Яка калорійність?» was answered.",
    },
}


def looks_right(page, width: int, javascript: bool) -> None:
    """Nothing forces sideways scrolling, and axe-core finds no serious violation (both need
    the page's scripts: a page without JavaScript is looked at by the screenshot alone)."""
    if javascript:
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert serious_violations(page) == []


@pytest.mark.parametrize(
    ("language", "width", "javascript"),
    [("uk", 390, True), ("en", 1280, False), ("en", 390, True), ("uk", 1280, False)],
    ids=["uk-390-js", "en-1280-no-js", "en-390-js", "uk-1280-no-js"],
)
def test_follow_a_tender_be_told_change_how_often_and_stop(
    people, clock, live_server, screenshot, brokers, language, width, javascript
):
    words = WORDS[language]
    buyer, watcher = buyer_and_watcher()
    tender = published(buyer, clock, title="Папір офісний А4")
    page = people(javascript=javascript, width=width)
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    shot = f"{language}-{width}-follow"

    # A visitor is asked to sign in, and comes back to the tender.
    page.goto(f"/tenders/{tender.pk}/")
    bar = page.locator("#follow")
    screenshot(page, f"{shot}-1-visitor")
    bar.get_by_role("link", name=words["sign in"]).click()
    page.fill("#id_username", watcher.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(rf"/tenders/{tender.pk}/$"))

    # It follows the tender, told at once.
    bar.get_by_label(words["how often"]).select_option(label=words["at once"])
    looks_right(page, width, javascript)
    screenshot(page, f"{shot}-2-signed-in")
    bar.get_by_role("button", name=words["follow"]).click()
    bar.get_by_text(words["following"]).wait_for()
    assert Follow.objects.get().language == language
    looks_right(page, width, javascript)
    screenshot(page, f"{shot}-3-following")

    # A question is answered: the next pass of the alerts e-mails it, in the page's language.
    ask_and_answer(tender, buyer, brokers["broker2"])
    mail.outbox.clear()
    call_command("alerts", "--once", stdout=io.StringIO())
    [told] = [sent for sent in mail.outbox if sent.to == [WATCHER]]
    assert words["answered"] in " ".join(told.body.split())
    link = re.search(rf"https?://\S+/tenders/{tender.pk}/#question-\S+", told.body).group(0)
    page.goto(link.replace(settings.SITE_URL, live_server.url))
    page.get_by_role("heading", name="Папір офісний А4").wait_for()

    # Told once a day from now on: from the list of followed tenders.
    page.locator("#follow").get_by_role("link", name=words["list"]).click()
    page.get_by_role("link", name="Папір офісний А4").wait_for()
    page.get_by_label(words["how often"]).select_option(label=words["daily"])
    page.get_by_role("button", name=words["save"]).click()
    page.locator("#messages").get_by_text(words["saved"]).wait_for()
    assert Follow.objects.get().frequency == "daily"
    looks_right(page, width, javascript)
    screenshot(page, f"{shot}-4-list")

    # It stops following, from the tender's page.
    page.goto(f"/tenders/{tender.pk}/")
    page.locator("#follow").get_by_role("button", name=words["stop"]).click()
    page.locator("#messages").get_by_text(words["stopped"]).wait_for()
    page.locator("#follow").get_by_role("button", name=words["follow"]).wait_for()
    assert not Follow.objects.exists()
    screenshot(page, f"{shot}-5-stopped")
    assert page.errors == []
