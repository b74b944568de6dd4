import json

import pytest
from django.urls import reverse
from django.utils import translation

from tenders.classifiers import (
    COUNTED,
    DATA,
    counted,
    cpv_name,
    find_cpv,
    is_cpv,
    regions,
    unit_choices,
    unit_of_item,
    units,
)


def test_the_catalogue_names_every_code_in_both_languages():
    uk = json.loads((DATA / "dk021_uk.json").read_text(encoding="utf-8"))
    en = json.loads((DATA / "cpv_en.json").read_text(encoding="utf-8"))
    assert len(uk) == 9458 and set(uk) == set(en)
    assert cpv_name("30197630-1", "uk") == "Папір для друку"
    assert cpv_name("30197630-1", "en") == "Printing paper"
    assert is_cpv("99999999-9") and not is_cpv("11111111-1") and not is_cpv("30197630")


def test_codes_are_found_by_their_first_digits_or_by_words_in_either_language():
    assert find_cpv("3019763") == ["30197630-1"]
    assert find_cpv("30197630-1") == ["30197630-1"]
    assert "30197630-1" in find_cpv("папір друку")
    assert "30197630-1" in find_cpv("Printing PAPER")
    assert find_cpv("") == [] and find_cpv("жодного такого слова") == []
    assert len(find_cpv("30", limit=5)) == 5


def test_the_regions_are_the_oblasts_and_the_two_cities():
    assert len(regions()) == 27
    assert "Київська область" in regions() and "м. Київ" in regions()


def test_the_catalogue_page_finds_codes_without_javascript(client):
    response = client.get(reverse("cpv-options"), {"q": "рукавички"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "33141420-0" in page and "Хірургічні рукавички" in page


def test_the_code_field_s_list_is_filled_from_what_is_typed_in_it(client):
    response = client.get(
        reverse("cpv-options"), {"items-0-cpv": "3314142"}, headers={"HX-Request": "true"}
    )
    assert response.content.decode() == (
        '<option value="33141420-0 Хірургічні рукавички"></option>'
    )


@pytest.mark.parametrize(
    ("language", "quantity", "unit", "said"),
    [
        ("uk", 1, "H87", "1 штука"),
        ("uk", 3, "H87", "3 штуки"),
        ("uk", 10, "H87", "10 штук"),
        ("uk", 21, "KGM", "21 кілограм"),
        ("uk", 2.5, "KGM", "2,5 кілограмів"),
        ("en", 1, "H87", "1 piece"),
        ("en", 10, "H87", "10 pieces"),
        ("en", 2.5, "KGM", "2.5 kilograms"),
        ("uk", 5, "PK", "5 пачок"),
        ("en", 1, "PK", "1 pack"),
        ("uk", 2, "KT", "2 комплекти"),
        ("uk", 12, "BO", "12 пл"),
        ("en", 12, "BO", "12 bot"),
        ("uk", 3, "BG", "3 мішок"),
    ],
)
def test_a_quantity_is_said_with_its_unit_in_the_right_form(language, quantity, unit, said):
    with translation.override(language):
        assert counted(quantity, {"code": unit, "name": "?"}) == said


def test_the_units_are_prozorro_s_list_the_commonest_first_in_the_reader_s_language():
    with translation.override("uk"):
        (_common, first), (_every, rest) = unit_choices()
        assert ("PK", "пачка") in first and ("RO", "рулон") in rest
    with translation.override("en"):
        assert ("PK", "pack") in unit_choices()[0][1]
    assert set(COUNTED) <= set(units()) and len(units()) > 150
    assert unit_of_item("PK") == {"code": "PK", "name": "пачка", "name_en": "pack"}


def test_a_unit_the_list_does_not_know_is_written_as_the_registry_has_it():
    assert counted(3, {"code": "BLL", "name": "барель"}) == "3 барель"
    assert counted(None, {"code": "H87"}) == ""
