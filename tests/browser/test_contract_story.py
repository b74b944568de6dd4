"""After the signature, in a real browser, with and without JavaScript: the buyer signs the
contract, records a change (a lower price, its reasons) and signs it, then terminates the
contract stating what was paid, each through its review page; a visitor reads the whole history
on the contract's page, and finds it among the supplier's contracts."""

import re
from datetime import timedelta

import pytest

from tests.browser.pages import serious_violations, sign_in
from tests.factories import portal_world

pytestmark = pytest.mark.django_db(transaction=True)


def walk(people, brokers, clock, *, javascript: bool, screenshot=None):
    world = portal_world(brokers, clock)
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    buyer = people(javascript=javascript)
    sign_in(buyer, world.buyer)
    buyer.goto(f"/tenders/{world.tender.pk}/")
    buyer.get_by_role("link", name="Укласти договір…").click()
    # What 2.3's contract holds: its number, its term (a date signed: now), its price (the
    # award's, unless lower); a term ending before the signature is refused by its field.
    buyer.get_by_label("Номер договору").fill("Д-17/2026")
    buyer.get_by_label("Кінець строку дії договору").fill("2020-01-01T10:00")
    buyer.get_by_role("button", name="Укласти договір").click()
    buyer.get_by_text("Строк дії договору закінчився б раніше").wait_for()
    buyer.get_by_label("Кінець строку дії договору").fill("2027-12-31T18:00")
    buyer.get_by_role("button", name="Укласти договір").click()
    buyer.locator("#awards .badge", has_text="договір укладено").wait_for()
    contract = world.tender.contracts.get()

    # A day later the parties agree a lower price: a change, through its review page.
    clock.advance(days=1)
    buyer.get_by_role("link", name=re.compile(r"Договір .*: умови, зміни й оплата")).click()
    buyer.wait_for_url(re.compile(rf"/contracts/{contract.pk}/$"))
    buyer.get_by_role("link", name="Зареєструвати зміну…").click()
    buyer.get_by_label("Сторони погодили нижчу ціну").check()
    buyer.get_by_label("Причина, словами").fill("Постачальник погодився знизити ціну на 10 грн.")
    buyer.get_by_label("Нова ціна договору").fill("390")
    if javascript:
        assert serious_violations(buyer) == []
    buyer.get_by_role("button", name="Підписати зміну").click()
    buyer.wait_for_url(re.compile(rf"/contracts/{contract.pk}/$"))
    buyer.get_by_text("Зміну підписано й оприлюднено разом із договором.").wait_for()
    assert "390,00 UAH" in buyer.locator(".contract-value").inner_text().replace("\xa0", " ")

    # Terminated, stating what was paid (refusals by the field: tests/portal/test_contracts.py).
    buyer.get_by_role("link", name="Припинити договір…").click()
    buyer.get_by_label("Сума, сплачена за договором").fill("390")
    buyer.get_by_role("button", name="Припинити договір").click()
    buyer.wait_for_url(re.compile(rf"/contracts/{contract.pk}/$"))
    buyer.get_by_text("Договір припинено; сплачену суму оприлюднено.").wait_for()
    if screenshot:
        screenshot(buyer, "uk-contract")

    # A visitor reads the whole history, and finds the contract among the supplier's.
    visitor = people(javascript=javascript)
    visitor.goto(f"/contracts/{contract.pk}/")
    page = visitor.locator("main").inner_text().replace("\xa0", " ")
    assert "припинено" in page and "Сплачено" in page and "390,00 UAH" in page
    assert "Сторони погодили нижчу ціну" in page
    assert "Постачальник погодився знизити ціну на 10 грн." in page
    assert "Зареєструвати зміну" not in page
    visitor.get_by_role("link", name="його договори").first.click()
    visitor.get_by_role("link", name=contract.contract_id).wait_for()
    for page in (buyer, visitor):  # (the refusal above answers 422: logged as a failed load)
        assert [e for e in page.errors if "status of 422" not in e] == []


def test_contract_story_with_javascript(people, brokers, clock, screenshot):
    walk(people, brokers, clock, javascript=True, screenshot=screenshot)


def test_contract_story_without_javascript(people, brokers, clock):
    walk(people, brokers, clock, javascript=False)


@pytest.mark.parametrize("width", [390, 1280])
def test_a_contract_that_cannot_be_is_refused_in_english(people, brokers, clock, screenshot,
                                                        live_server, width):  # fmt: skip
    """Signing ends no term before the signature; a change prices nothing at zero; more paid
    than the price is asked about: each beside its field, in English, on a phone and a desk."""
    world = portal_world(brokers, clock)
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    buyer = people(width=width)
    buyer.context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    sign_in(buyer, world.buyer)
    buyer.goto(f"/tenders/{world.tender.pk}/")
    buyer.get_by_role("link", name="Sign the contract…").click()
    buyer.get_by_label("The contract's number").fill("C-17/2026")
    buyer.get_by_label("The contract's term ends").fill("2020-01-01T10:00")
    buyer.get_by_role("button", name="Sign the contract").click()
    buyer.get_by_text("The contract's term would end before it begins").wait_for()
    assert buyer.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(buyer, f"en-{width}-contract-ends-too-soon")
    buyer.get_by_label("The contract's term ends").fill("2027-12-31T18:00")
    buyer.get_by_role("button", name="Sign the contract").click()
    buyer.locator("#awards .badge", has_text="contract signed").wait_for()
    contract = world.tender.contracts.get()

    buyer.goto(f"/contracts/{contract.pk}/")
    buyer.get_by_role("link", name="Record a change…").click()
    buyer.get_by_label("The price is agreed lower").check()
    buyer.get_by_label("The reason, in words").fill("The supplier agreed to a lower price.")
    buyer.get_by_label("The contract's new price").fill("0")
    buyer.get_by_role("button", name="Sign the change").click()
    buyer.get_by_text("The contract's price is above zero.").wait_for()

    buyer.goto(f"/contracts/{contract.pk}/")
    buyer.get_by_role("link", name="Terminate the contract…").click()
    buyer.get_by_label("The amount paid under the contract").fill("99999999")
    buyer.get_by_role("button", name="Terminate the contract").click()
    buyer.get_by_text("is more than the contract's price of").wait_for()
    assert buyer.get_by_label("More than the price was paid").is_visible()
    screenshot(buyer, f"en-{width}-contract-paid-above-price")
    assert [e for e in buyer.errors if "status of 422" not in e] == []
