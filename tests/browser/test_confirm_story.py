"""No surprises, in a real browser with and without JavaScript: an act that cannot be undone is
reviewed first and going back changes nothing; a price far below the expected value is asked
about; a bidder changes and withdraws its bid; going Back after filing a claim and sending
the form again does not file a second claim."""

import re
from datetime import timedelta

import pytest

from complaints.models import Complaint
from core.actors import Actor, Role
from tenders.models import Bid, Tender
from tests.browser.pages import serious_violations, sign_in
from tests.factories import make_user, portal_world
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db(transaction=True)

JS = pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])


@JS
def test_a_decision_is_reviewed_and_going_back_changes_nothing(
    people, brokers, clock, javascript, screenshot
):
    world = portal_world(brokers, clock, decision=None)
    buyer = people(javascript=javascript)
    sign_in(buyer, world.buyer)
    buyer.goto(f"/tenders/{world.tender.pk}/")

    buyer.get_by_role("link", name="Дискваліфікувати…").click()
    review = buyer.locator("section.review")
    review.get_by_role("heading", name="Дискваліфікувати пропозицію ПП «Чисто»?").wait_for()
    said = review.inner_text()
    assert "Далі розглядатиметься пропозиція ТОВ «Медтехсервіс», 450,00 UAH." in said
    assert "Хто це побачить:" in said
    if javascript:
        assert serious_violations(buyer) == []
        screenshot(buyer, "uk-confirm-disqualify")
    buyer.get_by_role("link", name="Повернутися, нічого не змінюючи").click()
    buyer.wait_for_url(re.compile(rf"/tenders/{world.tender.pk}/"))
    world.refresh()
    assert world.award.status == "pending"

    buyer.get_by_role("link", name="Визначити переможцем…").click()
    buyer.get_by_role("button", name="Визначити переможцем").click()
    buyer.locator("#awards .badge", has_text="переможець").wait_for()
    world.refresh()
    assert world.award.status == "active"
    assert buyer.errors == []


@JS
def test_a_bidder_is_asked_about_a_low_price_then_changes_and_withdraws_its_bid(
    people, clock, javascript
):
    buyer = make_user("buyer", "Лікарня №3", "01993913", "procuring")
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now())
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    bidder = people(javascript=javascript)
    sign_in(bidder, make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder"))
    bidder.goto(f"/tenders/{tender.pk}/")

    # 1.00 for a 500 UAH tender: the page asks first.
    bidder.get_by_label("Запропонована ціна").fill("1.00")
    bidder.get_by_label("Населений пункт").fill("Київ")
    bidder.get_by_role("button", name="Подати пропозицію").click()
    bidder.get_by_text("Це менше ніж 30% очікуваної вартості").wait_for()
    assert not Bid.objects.exists()
    bidder.get_by_label("Ціна правильна").check()
    bidder.get_by_role("button", name="Подати пропозицію").click()
    bidder.get_by_role("heading", name="Ваша пропозиція").wait_for()
    assert Bid.objects.get().value["amount"] == 1.0

    # The slip is mended while bids are taken.
    bidder.locator("#bid summary", has_text="Змінити ціну").click()
    bidder.get_by_label("Нова ціна").fill("415.00")
    bidder.locator("#bid").get_by_role("button", name="Змінити ціну").click()
    bidder.locator("#bid").get_by_text("415,00 UAH").wait_for()
    assert Bid.objects.get().value["amount"] == 415.0

    # Withdrawn after its review: gone, and a new bid may be placed.
    bidder.get_by_role("link", name="Відкликати пропозицію…").click()
    bidder.get_by_role("heading", name="Відкликати вашу пропозицію?").wait_for()
    bidder.get_by_role("button", name="Відкликати пропозицію").click()
    bidder.get_by_role("heading", name="Подати пропозицію").wait_for()
    assert Bid.objects.get().status == "deleted"
    assert bidder.get_by_role("heading", name="Ваша пропозиція").count() == 0
    # (the price asked about came back with 422, as every refused form does)
    assert [error for error in bidder.errors if "status of 422" not in error] == []


@JS
def test_back_and_send_again_does_not_file_a_second_claim(people, brokers, clock, javascript):
    world = portal_world(brokers, clock)
    bidder = people(javascript=javascript)
    sign_in(bidder, world.bidder)
    bidder.goto(f"/tenders/{world.tender.pk}/awards/{world.award.pk}/claims/new/")
    bidder.get_by_label("Предмет вимоги").fill("Переможець не має ліцензії")
    bidder.get_by_label("Що не так з рішенням").fill("Ліцензія не додана до пропозиції.")
    bidder.get_by_role("button", name="Подати вимогу").click()
    bidder.wait_for_url(re.compile(r"/claims/[0-9a-f]{32}/$"))
    first = Complaint.objects.get()

    bidder.go_back()
    bidder.get_by_label("Предмет вимоги").fill("Переможець не має ліцензії")
    bidder.get_by_label("Що не так з рішенням").fill("Ліцензія не додана до пропозиції.")
    bidder.get_by_role("button", name="Подати вимогу").click()

    bidder.wait_for_url(re.compile(rf"/claims/{first.pk}/$"))
    bidder.get_by_text("Цю вимогу вже подано").wait_for()
    assert Complaint.objects.count() == 1
    assert bidder.errors == []
