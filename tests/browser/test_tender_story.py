"""A tender's life in a real browser, as its people live it: the buyer writes a tender with two
items as a draft, publishes its conditions and replaces them with a new version, publishes the
tender; a bidder asks a question and the buyer answers it; the bidder bids while tendering is
open; the buyer chooses the bid and, after the
complaint period, signs the contract; a visitor downloads the conditions. Once with JavaScript
(htmx swapping fragments), once without. The clock is moved by hand between the stages."""

import re
from datetime import timedelta

import pytest

from tenders.models import Tender, TenderDocument
from tests.browser.pages import fill_item, kyiv, serious_violations, sign_in, sign_the_contract
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

CONDITIONS = ("умови закупівлі.txt", "Поставка протягом 10 днів".encode())
CONDITIONS_V2 = ("умови закупівлі (зміни).txt", "Поставка протягом 5 днів".encode())


def walk_the_story(people, clock, tmp_path, *, javascript: bool, check=lambda page: None):
    buyer_user = make_user("buyer", "Лікарня №3", "01993913", "procuring")
    bidder_user = make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder")
    files = {}
    for name, content in (CONDITIONS, CONDITIONS_V2):
        files[name] = tmp_path / name
        files[name].write_bytes(content)

    # The buyer writes a tender with two items and saves it as a draft.
    buyer = people(javascript=javascript)
    sign_in(buyer, buyer_user)
    buyer.get_by_role("link", name="Нова закупівля").click()
    buyer.get_by_label(re.compile(r"^Назва\s*\*?$")).fill("Рукавички медичні оглядові")
    buyer.get_by_label("Очікувана вартість, грн").fill("125000")
    buyer.get_by_label("Мінімальний крок пониження ціни, грн").fill("1250")
    buyer.get_by_label("Запитання до").fill(kyiv(clock.now() + timedelta(days=7)))
    buyer.get_by_label("Подання пропозицій до").fill(kyiv(clock.now() + timedelta(days=12)))
    fill_item(
        buyer, 1, "Рукавички нітрилові, розмір M", "33141420-0", "Хірургічні рукавички", "500"
    )
    buyer.get_by_role("button", name="Додати позицію").click()
    fill_item(
        buyer, 2, "Рукавички нітрилові, розмір L", "33141420-0", "Хірургічні рукавички", "300"
    )
    buyer.get_by_label("Область").select_option("м. Київ")
    buyer.get_by_label("Населений пункт").fill("м. Київ")
    buyer.get_by_label("Вулиця, будинок").fill("вул. Саксаганського, 10")
    check(buyer)
    buyer.get_by_role("button", name="Зберегти чернетку").click()
    buyer.wait_for_url(re.compile(r"/tenders/[0-9a-f]{32}/$"))
    tender = Tender.objects.get()
    assert tender.status == "draft"
    assert [item["quantity"] for item in tender.data["items"]] == [500, 300]

    # A quantity was wrong: the draft is edited in the form it was written in.
    buyer.get_by_role("link", name="Редагувати чернетку").click()
    row = buyer.get_by_role("group", name="Позиція 2")
    assert row.get_by_label("Код CPV").input_value().startswith("33141420-0")
    row.get_by_label("Кількість").fill("350")
    buyer.get_by_role("button", name="Зберегти чернетку").click()
    buyer.wait_for_url(re.compile(rf"/tenders/{tender.pk}/$"))
    tender.refresh_from_db()
    assert (tender.status, [item["quantity"] for item in tender.data["items"]]) == (
        "draft",
        [500, 350],
    )

    # Its conditions, then a new version of them; then the tender is published.
    buyer.get_by_label("Вкладення").set_input_files(files[CONDITIONS[0]])
    buyer.get_by_role("button", name="Оприлюднити документи").click()
    buyer.get_by_role("link", name=CONDITIONS[0]).wait_for()
    buyer.get_by_text(f"Завантажити нову версію «{CONDITIONS[0]}»").click()
    buyer.get_by_label("Нова версія").set_input_files(files[CONDITIONS_V2[0]])
    buyer.get_by_role("button", name="Завантажити нову версію").click()
    buyer.get_by_role("link", name=CONDITIONS_V2[0]).wait_for()
    assert "Попередні версії" in buyer.locator("#documents").inner_text()
    check(buyer)
    buyer.get_by_role("link", name="Оголосити закупівлю…").click()
    buyer.get_by_role("button", name="Оголосити закупівлю").click()
    buyer.locator(".page-head .badge", has_text="період уточнень").wait_for()
    tender.refresh_from_db()
    assert tender.status == "active.enquiries"

    # A bidder asks a question; the buyer answers it before bids are accepted.
    asker = people(javascript=javascript)
    sign_in(asker, bidder_user)
    asker.goto(f"/tenders/{tender.pk}/")
    asker.get_by_label(re.compile(r"^Запитання\s*\*?$")).fill("Чи підійдуть рукавички без пудри?")
    check(asker)
    asker.get_by_role("button", name="Поставити запитання").click()
    asker.locator("#questions").get_by_text("Запитання вашої організації").wait_for()
    buyer.goto(f"/tenders/{tender.pk}/")
    buyer.get_by_label(re.compile(r"^Відповідь\s*\*?$")).fill("Так, без пудри.")
    check(buyer)
    buyer.get_by_role("button", name="Оприлюднити відповідь").click()
    buyer.locator("#questions").get_by_text("Так, без пудри.").wait_for()
    assert tender.questions.get().answer == "Так, без пудри."

    # Tendering opens; the bidder bids.
    clock.move_to(tender.tender_start + timedelta(hours=1))
    bidder = people(javascript=javascript)
    sign_in(bidder, bidder_user)
    bidder.goto(f"/tenders/{tender.pk}/")
    bidder.get_by_label("Запропонована ціна").fill("118500")
    bidder.get_by_label("Населений пункт").fill("м. Бровари")
    check(bidder)
    bidder.get_by_role("button", name="Подати пропозицію").click()
    bidder.get_by_role("heading", name="Ваша пропозиція").wait_for()
    assert tender.bids.get().organization == bidder_user.organization

    # Bidding closes; the buyer chooses the bid, and signs once the complaint period is over.
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    buyer.goto(f"/tenders/{tender.pk}/")
    # The decision is reviewed first (with its protocol), then made.
    buyer.get_by_role("link", name="Визначити переможцем…").click()
    buyer.get_by_label("Протокол рішення").set_input_files(
        files=[{"name": "протокол.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4 p"}]
    )
    buyer.get_by_role("button", name="Визначити переможцем").click()
    buyer.locator("#awards .badge", has_text="переможець").wait_for()
    check(buyer)
    award = Tender.objects.current(tender.pk, viewer=None).awards.get()
    assert award.status == "active"
    # Up to two weeks have passed since the buyer signed in: its session may have ended.
    clock.move_to(award.complaint_period_end + timedelta(minutes=1))
    buyer = people(javascript=javascript)
    sign_in(buyer, buyer_user)
    buyer.goto(f"/tenders/{tender.pk}/")
    buyer.get_by_role("link", name="Укласти договір…").click()
    sign_the_contract(buyer)
    buyer.locator("#awards .badge", has_text="договір укладено").wait_for()
    assert [d.title for d in award.documents.all()] == ["протокол.pdf"]
    assert Tender.objects.current(tender.pk, viewer=None).status == "complete"

    # A visitor reads the tender and downloads its conditions as they stand.
    visitor = people(javascript=javascript)
    visitor.goto(f"/tenders/{tender.pk}/")
    assert "завершена" in visitor.locator(".page-head").inner_text()
    check(visitor)
    with visitor.expect_download() as download:
        visitor.get_by_role("link", name=CONDITIONS_V2[0]).click()
    saved = tmp_path / "downloaded"
    download.value.save_as(saved)
    assert download.value.suggested_filename == CONDITIONS_V2[0]
    assert saved.read_bytes() == CONDITIONS_V2[1]
    assert TenderDocument.objects.count() == 2
    return buyer, asker, bidder, visitor


def test_tender_story_with_javascript(people, clock, tmp_path):
    checked = []

    def check(page):
        assert serious_violations(page) == [], page.url
        checked.append(page.url)

    pages = walk_the_story(people, clock, tmp_path, javascript=True, check=check)

    assert len(checked) == 7
    for page in pages:
        assert page.errors == []


def test_tender_story_without_javascript(people, clock, tmp_path):
    walk_the_story(people, clock, tmp_path, javascript=False)
