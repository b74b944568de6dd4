"""What people meet on their pages, in Ukrainian and English, on a phone (390 px) and a desktop
(1,280 px): the buyer's form guards the law and keeps what was typed, tables hide nothing on a
phone, a zero price and a price above the expected value are refused in the reader's words, a
cancellation names its ground. Screenshots: build/screenshots/{language}-{width}-{what}.png."""

from datetime import timedelta

import pytest

from core.actors import Actor, Role
from tenders.models import Tender
from tests.browser.pages import kyiv, serious_violations, sign_in
from tests.factories import make_user, portal_world
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db(transaction=True)

# An item described at length, as buyers do: it squeezes the other columns.
LONG_ITEM = (
    "Папір для офісної техніки формату А4, щільність 80 г/м², білизна не менше 146 CIE, "
    "500 аркушів у пачці, для лазерних і струменевих принтерів та копіювальних апаратів"
)
SCREENS = [(language, width) for language in ("uk", "en") for width in (390, 1280)]

WORDS = {
    "uk": {
        "questions": "Закон дає щонайменше 3 робочі дні на запитання",
        "pack": "пачка",
        "quantity": "Кількість",
        "by": "Коли",
        "value0": "Очікувана вартість має бути більшою за нуль",
        "step0": "Мінімальний крок має бути більшим за нуль",
        "quantity0": "Кількість має бути більшою за нуль",
        "marks": "Приберіть із тексту невидимі знаки напрямку письма",
        "no_items": "Вкажіть, що купується: хоча б одну позицію",
        "zero": "Ціна має бути більшою за нуль",
        "above": "Ціна пропозиції не може перевищувати очікувану вартість закупівлі",
        "ground": "Підстава для скасування",
        "voided": "закрито: оскаржене рішення скасовано",
        "drafts": "Тим часом її учасники готують чернетки",
    },
    "en": {
        "questions": "The law gives at least 3 working days for questions",
        "pack": "pack",
        "quantity": "Quantity",
        "by": "When",
        "value0": "The expected value is above zero",
        "step0": "The minimal step is above zero",
        "quantity0": "The quantity is above zero",
        "marks": "Remove the invisible direction marks",
        "no_items": "Say what is bought: at least one item",
        "zero": "A price is above zero",
        "above": "value of bid should be less than value of tender",
        "ground": "Ground for cancelling",
        "voided": "closed: the decision it contested was taken back",
        "drafts": "Meanwhile its members write drafts",
    },
}


def person(people, live_server, language: str, width: int):
    page = people(width=width)
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    return page


def fits(page, width: int) -> None:
    """Nothing forces sideways scrolling, and nothing serious stands in anyone's way."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_violations(page) == []


@pytest.mark.parametrize(("language", "width"), SCREENS)
def test_the_buyer_s_form_guards_the_law_and_keeps_what_was_typed(
    people, db, clock, screenshot, live_server, language, width
):
    words = WORDS[language]
    user = make_user("buyer", "Лікарня №3", "01993913", "procuring")
    buyer = person(people, live_server, language, width)
    sign_in(buyer, user)
    buyer.goto("/tenders/new/")
    buyer.fill("#id_title", "Папір офісний А4")
    buyer.fill("#id_amount", "48000")
    buyer.fill("#id_minimal_step", "480")

    buyer.click("button[name=add_lot]")
    assert buyer.input_value("#id_lots-0-amount") == "48000"
    buyer.click("button[name=remove_lot]")
    assert buyer.input_value("#id_amount") == "48000"

    assert words["pack"] in buyer.locator("#id_items-0-unit").inner_text()
    buyer.fill("#id_enquiry_end", kyiv(clock.now() + timedelta(days=1)))
    buyer.select_option("#id_region", "м. Київ")
    buyer.fill("#id_locality", "м. Київ")
    buyer.fill("#id_street_address", "вул. Саксаганського, 10")
    buyer.fill("#id_items-0-description", "Папір А4, 500 аркушів")
    buyer.fill("#id_items-0-cpv", "30197630-1")
    buyer.fill("#id_items-0-quantity", "20")
    buyer.select_option("#id_items-0-unit", "PK")
    buyer.click("button[name=draft]")

    buyer.locator("#id_enquiry_end-errors", has_text=words["questions"]).wait_for()
    assert not Tender.objects.exists()
    fits(buyer, width)
    screenshot(buyer, f"{language}-{width}-tender-form-periods")


@pytest.mark.parametrize(("language", "width"), SCREENS)
def test_the_buyer_s_form_refuses_a_record_that_cannot_be(
    people, db, clock, screenshot, live_server, language, width
):
    """A value, a step or a quantity of zero, a title with a direction mark, no item at all:
    each refused beside its field in the reader's words, nothing made."""
    words = WORDS[language]
    user = make_user("buyer", "Лікарня №3", "01993913", "procuring")
    buyer = person(people, live_server, language, width)
    sign_in(buyer, user)
    buyer.goto("/tenders/new/")
    buyer.fill("#id_title", "Папір\u202eофісний")
    buyer.fill("#id_amount", "0")
    buyer.fill("#id_minimal_step", "0")
    buyer.fill("#id_items-0-description", "Папір А4, 500 аркушів")
    buyer.fill("#id_items-0-cpv", "30197630-1")
    buyer.fill("#id_items-0-quantity", "0")
    buyer.select_option("#id_region", "м. Київ")
    buyer.fill("#id_locality", "м. Київ")
    buyer.fill("#id_street_address", "вул. Саксаганського, 10")
    buyer.click("button[name=draft]")

    for field, said in (("title", "marks"), ("amount", "value0"), ("minimal_step", "step0"),
                        ("items-0-quantity", "quantity0")):  # fmt: skip
        buyer.locator(f"#id_{field}-errors", has_text=words[said]).wait_for()
    fits(buyer, width)
    screenshot(buyer, f"{language}-{width}-tender-form-zeros")
    buyer.fill("#id_items-0-description", "")
    buyer.fill("#id_items-0-cpv", "")
    buyer.fill("#id_items-0-quantity", "")
    buyer.click("button[name=draft]")
    buyer.get_by_text(words["no_items"]).first.wait_for()
    assert not Tender.objects.exists()


@pytest.mark.parametrize(("language", "width"), SCREENS)
def test_tables_hide_nothing_and_refusals_speak_the_reader_s_language(
    people, brokers, clock, screenshot, live_server, language, width
):
    words = WORDS[language]
    world = portal_world(brokers, clock)
    data = tender_data(clock.now())
    data["items"][0]["description"] = LONG_ITEM
    open_tender, _token = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=world.buyer), data=data
    )
    visitor = person(people, live_server, language, width)
    visitor.goto(f"/tenders/{open_tender.pk}/")
    quantity = visitor.locator("section[aria-labelledby=about-title] td").nth(2)
    assert quantity.is_visible() and quantity.inner_text().strip()
    if width > 390:  # the column's name on one line
        heading = visitor.locator(
            "section[aria-labelledby=about-title] th", has_text=words["quantity"]
        )
        lines = heading.evaluate(
            "th => { const r = document.createRange(); r.selectNodeContents(th); "
            "return r.getClientRects().length; }"
        )
        assert lines == 1
    fits(visitor, width)
    screenshot(visitor, f"{language}-{width}-tender-items")

    buyer = person(people, live_server, language, width)
    sign_in(buyer, world.buyer)
    assert buyer.locator("table.queue td").nth(2).is_visible()
    fits(buyer, width)
    screenshot(buyer, f"{language}-{width}-work-queue")
    buyer.goto(f"/tenders/{world.tender.pk}/cancel/")
    assert words["ground"] in buyer.locator("main").inner_text()
    screenshot(buyer, f"{language}-{width}-cancel-ground")

    clock.move_to(open_tender.tender_start + timedelta(hours=1))
    bidder = person(people, live_server, language, width)
    sign_in(bidder, world.stranger)
    for price, refusal in (("0", words["zero"]), ("999999", words["above"])):
        bidder.goto(f"/tenders/{open_tender.pk}/")
        bidder.fill("#id_amount", price)
        bidder.fill("#id_locality", "м. Бровари")
        bidder.locator("#bid button[type=submit]").first.click()
        bidder.locator("#bid", has_text=refusal).wait_for()
    assert not open_tender.bids.exists()
    fits(bidder, width)
    screenshot(bidder, f"{language}-{width}-bid-refused")


@pytest.mark.parametrize(("language", "width"), SCREENS)
def test_a_decision_taken_back_closes_its_claim_saying_so_and_the_unverified_are_told_first(
    people, brokers, clock, screenshot, live_server, language, width
):
    words = WORDS[language]
    world = portal_world(brokers, clock)
    claim = world.claim("Переможець не підтвердив досвід", named_as_in_its_bid=True)
    world.award.cancel(by=Actor(Role.TENDER_OWNER, user=world.buyer, subject=world.tender))

    claimant = person(people, live_server, language, width)
    sign_in(claimant, world.bidder)
    claimant.goto(f"/claims/{claim.pk}/")
    claimant.locator("main", has_text=words["voided"]).wait_for()
    fits(claimant, width)
    screenshot(claimant, f"{language}-{width}-claim-voided")

    newcomer = make_user("newcomer", "ТОВ «Новачок»", "41222333", "bidder", verified=False)
    unverified = person(people, live_server, language, width)
    sign_in(unverified, newcomer)
    unverified.goto("/dashboard/")
    unverified.locator(".notice", has_text=words["drafts"]).wait_for()
    fits(unverified, width)
    screenshot(unverified, f"{language}-{width}-unverified-notice")
