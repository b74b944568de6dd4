"""A saved search, in a real browser with and without JavaScript: a person searches, saves the
search from its results, and is e-mailed the tender published afterwards that it finds; the
link in the mail opens the tender."""

import io
import re

import pytest
from django.conf import settings
from django.core import mail
from django.core.management import call_command

from core.actors import Actor, Role
from tenders.models import Tender
from tests.browser.pages import serious_violations, sign_in
from tests.factories import make_user, sign_up
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_saved_search_emails_a_newly_published_matching_tender(
    people, clock, live_server, javascript, screenshot
):
    buyer = make_user("buyer", "Лікарня №3", "01993913", "procuring")
    watcher = people(javascript=javascript)
    sign_in(watcher, sign_up("watcher", email="watcher@example.org"))

    watcher.goto("/")
    watcher.get_by_role("searchbox", name="Шукати").fill("папір")
    if javascript:
        watcher.keyboard.press("Tab")  # the results follow what is typed
        watcher.wait_for_url(re.compile(r"q=%D0%BF"))
    else:
        watcher.get_by_role("button", name="Шукати").click()
    watcher.get_by_role(
        "link", name="Зберегти цей пошук і отримувати нові закупівлі поштою…"
    ).click()
    watcher.get_by_role("heading", name="Зберегти пошук").wait_for()
    assert "папір" in watcher.locator("dl.facts").inner_text()
    watcher.get_by_label("одразу, щойно їх оголошено").check()
    if javascript:
        assert serious_violations(watcher) == []
        screenshot(watcher, "uk-save-search")
    watcher.get_by_role("button", name="Зберегти пошук").click()
    watcher.wait_for_url(re.compile(r"/searches/$"))
    watcher.get_by_role("link", name="папір").wait_for()

    # A matching tender is published, and another one; once they are surely committed, the
    # alerts find the one.
    clock.advance(minutes=1)
    paper, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer),
        data=tender_data(clock.now(), title="Папір офісний А4"),
    )
    Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), title="Бензин")
    )
    clock.advance(seconds=settings.FEED_WATERMARK_SECONDS + 1)
    call_command("alerts", "--once", stdout=io.StringIO())

    [told] = [sent for sent in mail.outbox if sent.to == ["watcher@example.org"]]
    assert "Бензин" not in told.body
    link = re.search(rf"https?://\S+/tenders/{paper.pk}/", told.body).group(0)
    watcher.goto(link.replace(settings.SITE_URL, live_server.url))
    watcher.get_by_role("heading", name="Папір офісний А4").wait_for()
    assert watcher.errors == []
