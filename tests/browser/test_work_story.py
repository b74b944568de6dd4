"""The dashboards as places to work, in a real browser, with and without JavaScript: the buyer's
queue holds the award to decide, then the contract to sign, and acting empties it; a bidder
learns of the decision by e-mail and files a claim from the link in it."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail

from complaints.models import Complaint
from tests.browser.pages import serious_violations, sign_in, sign_the_contract
from tests.factories import portal_world

pytestmark = pytest.mark.django_db(transaction=True)


def queue_rows(page) -> list[str]:
    return [row.inner_text() for row in page.locator("table.queue tbody tr").all()]


def walk(people, brokers, clock, live_server, *, javascript: bool, screenshot=None):
    world = portal_world(brokers, clock, decision=None)

    # The buyer's queue holds the award; its link leads to the decision.
    buyer = people(javascript=javascript)
    sign_in(buyer, world.buyer)
    [row] = queue_rows(buyer)
    assert "Вирішити щодо пропозиції ПП «Чисто»" in row
    assert buyer.locator(".waiting-count").inner_text().startswith("1")
    if javascript:
        assert serious_violations(buyer) == []
    if screenshot:
        screenshot(buyer, "uk-dashboard-buyer")
    buyer.locator("table.queue").get_by_role("link", name=world.tender.title).click()
    buyer.wait_for_url(re.compile(rf"/tenders/{world.tender.pk}/"))
    buyer.get_by_role("link", name="Визначити переможцем…").click()  # its review
    buyer.get_by_role("button", name="Визначити переможцем").click()
    buyer.get_by_text("переможець", exact=True).first.wait_for()

    buyer.goto("/dashboard/")
    [row] = queue_rows(buyer)
    assert "Укласти договір з ПП «Чисто»" in row
    assert "Вирішити" not in row

    # Each portal bidder is told by e-mail; the link in it leads to the claim form.
    mine = next(
        sent
        for sent in mail.outbox
        if sent.to == ["bidder@example.org"] and "визначено переможця" in sent.subject
    )
    link = re.search(r"https?://\S+/claims/new/", mine.body).group(0)
    bidder = people(javascript=javascript)
    sign_in(bidder, world.bidder)
    assert any("Рішення, щодо якого можна подати вимогу" in row for row in queue_rows(bidder))
    if screenshot:
        screenshot(bidder, "uk-dashboard-bidder")
    bidder.goto(link.replace(settings.SITE_URL, live_server.url))
    bidder.get_by_label("Предмет вимоги").fill("Переможець не має ліцензії")
    bidder.get_by_label("Що не так з рішенням").fill("Ліцензія не додана до пропозиції.")
    bidder.get_by_role("button", name="Подати вимогу").click()
    bidder.wait_for_url(re.compile(r"/claims/[0-9a-f]{32}/$"))
    assert Complaint.objects.get().status == "claim"

    # The buyer now has the claim to answer before the contract; once the window closes
    # unanswered, the contract is signed and the queue is empty.
    buyer.goto("/dashboard/")
    rows = queue_rows(buyer)
    assert "Відповісти на вимогу" in rows[0] and "Укласти договір" in rows[1]
    world.refresh()
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    buyer.goto(f"/tenders/{world.tender.pk}/")
    buyer.get_by_role("link", name="Укласти договір…").click()
    sign_the_contract(buyer)
    buyer.locator("#awards .badge", has_text="договір укладено").wait_for()
    buyer.goto("/dashboard/")
    assert queue_rows(buyer) == []
    assert buyer.get_by_text("Зараз на вас нічого не чекає.").is_visible()
    assert buyer.locator(".waiting-count").count() == 0
    for page in (buyer, bidder):
        assert page.errors == []


def test_work_story_with_javascript(people, brokers, clock, live_server, screenshot):
    walk(people, brokers, clock, live_server, javascript=True, screenshot=screenshot)


def test_work_story_without_javascript(people, brokers, clock, live_server):
    walk(people, brokers, clock, live_server, javascript=False)
