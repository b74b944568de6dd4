"""A visitor finds tenders as a person would: a tender ID pasted into the one box, a code's
first digits, a region, a value range; with JavaScript (the results follow the filters) and
without (the form is sent)."""

import copy
import csv
import re
import time

import openpyxl
import pytest

from core.actors import Actor, Role
from portal.models import Organization, User
from tenders.models import Tender
from tests.browser.pages import serious_violations
from tests.factories import make_user
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db(transaction=True)


def publish(user, clock, title, cpv, region, amount) -> Tender:
    data = tender_data(clock.now(), title=title, value={"amount": amount, "currency": "UAH"},
                       minimalStep={"amount": 1, "currency": "UAH"})  # fmt: skip
    data["procuringEntity"] = copy.deepcopy(data["procuringEntity"])
    data["procuringEntity"]["address"]["region"] = region
    data["items"][0]["classification"] = {"scheme": "ДК021", "id": cpv, "description": "—"}
    data["items"][0]["description"] = title
    tender, _ = Tender.objects.register(by=Actor(Role.AUTHENTICATED, user=user), data=data)
    return tender


@pytest.fixture
def registry(clock):
    buyer = make_user("buyer", "Лікарня", "01993913", Organization.Kind.PROCURING)
    made = {
        "paper": publish(buyer, clock, "Папір офісний А4", "30197630-1", "м. Київ", 48_000),
        "envelopes": publish(
            buyer, clock, "Конверти поштові", "30199230-1", "Львівська область", 9_000
        ),
        "roof": publish(buyer, clock, "Ремонт покрівлі", "45261000-4", "м. Київ", 920_000),
    }
    return made


def titles(page) -> list[str]:
    return sorted(page.locator("#results h3 a").all_inner_texts())


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_visitor_finds_by_tender_id_code_region_and_value(
    people, registry, screenshot, javascript
):
    visitor = people(javascript=javascript)
    visitor.goto("/")
    search = visitor.get_by_role("searchbox", name="Шукати")

    def send():
        if javascript:  # the results follow what is typed (a field left: what is changed)
            visitor.keyboard.press("Tab")
        else:
            visitor.get_by_role("button", name="Шукати").click()

    # A tender ID pasted (with spaces around it, in lower case).
    search.fill(f"  {registry['roof'].tender_id.lower()} ")
    send()
    expect_titles(visitor, ["Ремонт покрівлі"])
    assert f"закупівлю {registry['roof'].tender_id}" in visitor.locator("#results").inner_text()

    # The first digits of a class of the catalogue: paper and envelopes.
    search.fill("3019")
    send()
    expect_titles(visitor, ["Конверти поштові", "Папір офісний А4"])
    if javascript:
        screenshot(visitor, "uk-search")

    # A region and a value range, with the box empty.
    search.fill("")
    visitor.get_by_label("Область").select_option("м. Київ")
    visitor.get_by_label("Очікувана вартість від, грн").fill("40000")
    visitor.get_by_label("Очікувана вартість до, грн").fill("50000")
    send()
    expect_titles(visitor, ["Папір офісний А4"])
    assert re.search(r"region=.*value_min=40000", visitor.url)
    if javascript:  # (axe runs in the page: the same markup is checked once)
        assert serious_violations(visitor) == []
    assert visitor.errors == []


def expect_titles(page, expected: list[str]) -> None:
    """The results list `expected` (in any order), once htmx has swapped them in. (Polled
    from here: a page without JavaScript runs no function of ours.)"""
    deadline = time.monotonic() + 15
    while titles(page) != sorted(expected) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert titles(page) == sorted(expected)


@pytest.mark.parametrize(
    ("language", "width"), [(language, width) for language in ("uk", "en") for width in (390, 1280)]
)
def test_a_word_finds_every_form_of_it_the_newest_published_first(
    people, registry, clock, screenshot, live_server, language, width
):
    clock.advance(minutes=5)
    buyer = User.objects.get(username="buyer")
    publish(buyer, clock, "Покрівля для складу", "45261000-4", "м. Київ", 300_000)
    visitor = people(width=width)
    visitor.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )

    # (no JavaScript needed: the address is the search)
    visitor.goto("/?q=покрівля&procedure=belowThreshold")
    assert visitor.locator("#results h3 a").all_inner_texts() == [
        "Покрівля для складу",
        "Ремонт покрівлі",
    ]
    visitor.goto("/?q=паперу")
    assert titles(visitor) == ["Папір офісний А4"]
    assert visitor.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_violations(visitor) == []
    screenshot(visitor, f"{language}-{width}-search-word-forms")
    # A word written without its apostrophe finds it with it (tenders/lemmas.py).
    computers = publish(buyer, clock, "Комп'ютери для бібліотеки", "30213000-5", "м. Київ", 90_000)
    visitor.goto("/?q=компютери")
    assert titles(visitor) == ["Комп'ютери для бібліотеки"]
    # The tender's open data (OCDS) is linked from its page, as a record and as a release.
    visitor.goto(f"/tenders/{computers.pk}/")
    record = {"uk": "запис", "en": "record"}[language]
    href = visitor.get_by_role("link", name=record, exact=True).get_attribute("href")
    assert href == f"/api/2.3/tenders/{computers.pk}?opt_schema=ocds-record"
    read = visitor.request.get(href).json()
    assert read["records"][0]["ocid"].endswith(computers.tender_id)


@pytest.mark.parametrize("language", ["uk", "en"])
def test_a_search_is_taken_away_as_csv_and_as_a_spreadsheet(
    people, registry, live_server, screenshot, language
):
    visitor = people()
    visitor.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    visitor.goto("/?region=м. Київ")
    screenshot(visitor, f"{language}-1200-search-downloads")

    with visitor.expect_download() as csv_download:
        visitor.get_by_role("link", name="CSV").click()
    with open(csv_download.value.path(), encoding="utf-8-sig") as file:
        header, *rows = list(csv.reader(file))
    with visitor.expect_download() as xlsx_download:
        visitor.get_by_role("link", name="Excel").click()
    with open(xlsx_download.value.path(), "rb") as file:  # (its name has no extension)
        sheet = openpyxl.load_workbook(file).active

    assert header[0] == {"uk": "Ідентифікатор закупівлі", "en": "Tender ID"}[language]
    assert sorted(row[1] for row in rows) == ["Папір офісний А4", "Ремонт покрівлі"]
    assert [cell.value for cell in sheet[1]] == header
    assert sorted(row[6] for row in sheet.iter_rows(min_row=2, values_only=True)) == [
        48_000,
        920_000,
    ]
