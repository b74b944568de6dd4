"""The portal's search: one box that understands a tender ID, a code of the catalogue or its
first digits, a procuring entity's code or words; filters by code, region, value, status and
bids open now; orders by relevance or deadline."""

import copy
from datetime import timedelta

import pytest

from core.actors import Actor, Role
from portal.models import Organization
from tenders.models import Tender
from tenders.search import SEARCH_TEXT_MAX, search_columns, searchable
from tests.factories import make_user
from tests.helpers import tender_data
from tests.portal.forms import found

pytestmark = pytest.mark.django_db


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня", "01993913", Organization.Kind.PROCURING)


def publish(user, clock, title, *, cpv="44617100-9", region="м. Київ", amount=500,
            identifier="00037256", days=14) -> Tender:  # fmt: skip
    data = tender_data(clock.now(), title=title, value={"amount": amount, "currency": "UAH"},
                       minimalStep={"amount": 1, "currency": "UAH"})  # fmt: skip
    data["tenderPeriod"]["endDate"] = (clock.now() + timedelta(days=days)).isoformat()
    entity = copy.deepcopy(data["procuringEntity"])
    entity["address"]["region"] = region
    entity["identifier"]["id"] = identifier
    data["procuringEntity"] = entity
    data["items"][0]["classification"] = {"scheme": "ДК021", "id": cpv, "description": "—"}
    data["items"][0]["description"] = title
    tender, _ = Tender.objects.register(by=Actor(Role.AUTHENTICATED, user=user), data=data)
    return tender


def test_a_tender_id_pasted_in_the_box_finds_the_tender(client, buyer, clock):
    paper = publish(buyer, clock, "Папір офісний")
    publish(buyer, clock, "Ремонт покрівлі")

    assert found(client, q=f"  {paper.tender_id.lower()} ") == ["Папір офісний"]
    page = client.get("/", {"q": paper.tender_id}).content.decode()
    assert f"the tender {paper.tender_id}" in page or f"закупівлю {paper.tender_id}" in page


def test_a_cpv_code_or_its_first_digits_in_the_box_or_the_filter(client, buyer, clock):
    publish(buyer, clock, "Папір", cpv="30197630-1")
    publish(buyer, clock, "Конверти", cpv="30199230-1")
    publish(buyer, clock, "Комп'ютери", cpv="30213000-5")
    publish(buyer, clock, "Рукавички", cpv="33141420-0")

    assert found(client, q="30197630-1") == ["Папір"]
    assert sorted(found(client, q="3019")) == ["Конверти", "Папір"]
    assert sorted(found(client, q="30")) == ["Комп'ютери", "Конверти", "Папір"]
    assert sorted(found(client, cpv="30")) == ["Комп'ютери", "Конверти", "Папір"]
    # A class of the catalogue chosen from the list covers every code under it.
    assert sorted(found(client, cpv="30190000-7 Офісне устаткування")) == ["Конверти", "Папір"]
    assert found(client, cpv="33141420-0") == ["Рукавички"]


def test_an_edrpou_code_in_the_box_finds_the_procuring_entity_s_tenders(client, buyer, clock):
    publish(buyer, clock, "Папір", identifier="01993913")
    publish(buyer, clock, "Інше", identifier="02012345")

    assert found(client, q="01993913") == ["Папір"]
    assert found(client, q="0201234567") == []  # ten digits: an ІПН


def test_the_region_and_the_value_range(client, buyer, clock):
    publish(buyer, clock, "Київ дешево", region="м. Київ", amount=1000)
    publish(buyer, clock, "Київ дорого", region="м. Київ", amount=900_000)
    publish(buyer, clock, "Львів", region="Львівська область", amount=50_000)

    assert sorted(found(client, region="м. Київ")) == ["Київ дешево", "Київ дорого"]
    assert found(client, region="Львівська область") == ["Львів"]
    assert sorted(found(client, value_min="1000", value_max="50000")) == ["Київ дешево", "Львів"]
    assert found(client, value_min="100000") == ["Київ дорого"]
    assert found(client, region="м. Київ", value_max="999.99") == []


def test_open_for_bids_now_and_the_soonest_deadline_first(client, buyer, clock):
    publish(buyer, clock, "Пізніше", days=20)
    publish(buyer, clock, "Раніше", days=12)
    assert found(client, open_for_bids="on") == []  # still in enquiries

    clock.advance(days=8)
    assert found(client, open_for_bids="on", sort="deadline") == ["Раніше", "Пізніше"]
    clock.advance(days=5)
    assert found(client, open_for_bids="on", sort="deadline") == ["Пізніше"]
    assert found(client, sort="deadline") == ["Пізніше", "Раніше"]


def test_bad_filters_are_refused_next_to_their_fields(client, buyer, clock):
    publish(buyer, clock, "Папір")

    response = client.get(
        "/", {"cpv": "11111111-1", "value_min": "10", "value_max": "5", "region": "Марс"}
    )

    assert response.context["form"].errors.keys() == {"cpv", "value_max", "region"}
    assert response.context["page"].object_list == []
    response = client.get("/", {"cpv": "29"})
    assert response.context["form"].errors["cpv"] == ["У ДК 021 немає коду, що починається з 29."]


def test_words_are_found_by_their_start_whatever_the_case(client, buyer, clock):
    publish(buyer, clock, "Ноутбуки для шкіл")
    publish(buyer, clock, "Папір офісний")

    assert found(client, q="НОУТБУК") == ["Ноутбуки для шкіл"]
    assert found(client, q="ноутбук шкіл") == ["Ноутбуки для шкіл"]
    assert found(client, q="ноутбук папір") == []


def test_a_word_written_without_its_apostrophe_finds_it_and_is_found(client, buyer, clock):
    publish(buyer, clock, "Комп'ютери для шкіл")
    publish(buyer, clock, "Мясо охолоджене")

    assert found(client, q="компютери") == ["Комп'ютери для шкіл"]
    assert found(client, q="комп’ютер") == ["Комп'ютери для шкіл"]
    assert found(client, q="м'ясо") == ["Мясо охолоджене"]  # (indexed with its lemma)


@pytest.mark.postgres
def test_on_postgresql_a_typo_still_finds_and_the_best_match_comes_first(client, buyer, clock):
    publish(buyer, clock, "Папір для принтерів і папки")
    clock.advance(minutes=1)
    publish(buyer, clock, "Канцелярія: ручки, олівці, папір")
    clock.advance(minutes=1)
    publish(buyer, clock, "Ремонт покрівлі")

    assert sorted(found(client, q="папір")) == [
        "Канцелярія: ручки, олівці, папір",
        "Папір для принтерів і папки",
    ]
    # A typo: nothing has the word as written, so words like it are looked for, and said so.
    response = client.get("/", {"q": "принтерыв"})
    assert [t.title for t in response.context["page"].object_list] == [
        "Папір для принтерів і папки"
    ]
    assert "words like them" in response.content.decode() or "схожими" in response.content.decode()
    # A word found as written is not looked for among similar ones.
    assert found(client, q="папки") == ["Папір для принтерів і папки"]
    assert found(client, q="папір принтер", sort="relevance") == ["Папір для принтерів і папки"]
    assert found(client, q="папір", sort="newest")[0] == "Канцелярія: ручки, олівці, папір"


@pytest.mark.parametrize(
    "text", ["⑴", "ʼ", "ʼєкт", "aːb", "a'b:*&|!", "\\", "(", "папір)", "x" * 200]
)
def test_any_text_in_the_box_answers_a_page(client, buyer, clock, text):
    """Unaccent may turn a letter into tsquery syntax on PostgreSQL: the words are quoted."""
    publish(buyer, clock, "Папір офісний")

    response = client.get("/", {"q": text})

    assert response.status_code == 200


def test_a_number_among_words_is_a_word_unless_codes_start_with_it(client, buyer, clock):
    publish(buyer, clock, "Ремонт школи 2024 року", cpv="45261000-4")

    assert found(client, q="ремонт 2024") == ["Ремонт школи 2024 року"]  # no code starts 2024
    assert found(client, q="ремонт 45,") == ["Ремонт школи 2024 року"]  # the division 45


def test_a_tender_too_dear_for_the_value_column_is_kept_and_not_searched_by_value(api, clock):
    response = api.post("/tenders", tender_data(value={"amount": 1e20, "currency": "UAH"}))

    assert response.status_code == 201
    tender = Tender.objects.get(pk=response.json()["data"]["id"])
    assert tender.search.value_amount is None


def test_what_search_reads_of_a_tender_is_bounded_however_much_it_holds(client, buyer, clock):
    """A tender's words are kept each once, up to SEARCH_TEXT_MAX characters, the title's
    first: a tender of a thousand long item descriptions costs every search no more than that
    (PostgreSQL would even refuse the words of a large enough one outright)."""
    tender = publish(buyer, clock, "Шприци одноразові стерильні")
    data = tender.wire()
    data["items"] = [
        {**data["items"][0], "id": f"{n:032x}", "description": f"виріб{n} " + "слово " * 150}
        for n in range(1000)
    ]
    kept = search_columns(data)["search_text"]

    assert len(kept) <= SEARCH_TEXT_MAX
    # (each word followed by its lemmas)
    assert kept.startswith("шприци шприц одноразові одноразовий стерильні стерильний")
    assert kept.count("слово") == 1
    assert found(client, q="шприци") == ["Шприци одноразові стерильні"]


def test_searchable_text_is_cut_at_a_word_s_end():
    text = " ".join(f"слово{n}" for n in range(5000))
    kept = searchable(text)
    assert len(kept) <= SEARCH_TEXT_MAX
    assert kept.split() == text.split()[: len(kept.split())]


def test_the_any_choice_agrees_with_its_word_in_ukrainian(client, db):
    client.cookies["django_language"] = "uk"
    page = client.get("/").content.decode()
    region = page[page.index('name="region"') :].split("</select>")[0]
    status = page[page.index('name="status"') :].split("</select>")[0]
    assert ">будь-яка</option>" in region  # (область)
    assert ">будь-який</option>" in status  # (статус)


def test_a_reversed_range_says_which_range_in_ukrainian(client, db):
    client.cookies["django_language"] = "uk"
    values = client.get("/", {"value_min": "500", "value_max": "100"}).content.decode()
    dates = client.get(
        "/", {"published_from": "2026-05-02", "published_to": "2026-05-01"}
    ).content.decode()
    assert "Верхня межа вартості менша за нижню." in values
    assert "Кінцева дата раніша за початкову." not in values
    assert "Кінцева дата раніша за початкову." in dates
