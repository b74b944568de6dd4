"""The catalogues a tender is written with: ДК 021 (CPV) codes with their Ukrainian and
English names, and the regions of Ukraine. Read from data/classifiers (where they came from is
in data/SOURCES.md) once, when first asked. Document types are tenders/document_types.py's."""

import json
from functools import cache
from pathlib import Path

from django.utils.formats import number_format
from django.utils.translation import get_language, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from tenders.search import fold

DATA = Path(__file__).parent / "data" / "classifiers"
# The catalogue's code for "not in any other section": 2.3 wants an additional
# classification with it.
UNCLASSIFIED = "99999999-9"


def _read(name: str):
    with open(DATA / name, encoding="utf-8") as file:
        return json.load(file)


@cache
def cpv_names(language: str = "uk") -> dict[str, str]:
    """Every ДК 021 code and its name, in the catalogue's order."""
    return _read("cpv_en.json" if language == "en" else "dk021_uk.json")


def is_cpv(code: str) -> bool:
    return code in cpv_names()


def cpv_name(code: str, language: str | None = None) -> str:
    language = (language or get_language() or "uk")[:2]
    return cpv_names(language).get(code, "")


@cache
def _folded() -> list[tuple[str, str]]:
    """Each code with its names in both languages, folded as the search folds words."""
    english = cpv_names("en")
    return [
        (code, fold(f"{name} {english.get(code, '')}")) for code, name in cpv_names("uk").items()
    ]


def find_cpv(text: str, *, limit: int = 20) -> list[str]:
    """The codes a person typing `text` may mean, in the catalogue's order: a code or the
    start of one (digits), or words, every one of which is in the Ukrainian or the English
    name."""
    text = text.strip()
    if not text:
        return []
    digits = text.replace("-", "")
    if digits.isdigit():
        return [code for code in cpv_names() if code.replace("-", "").startswith(digits)][:limit]
    words = fold(text).split()
    found = []
    for code, names in _folded():
        if all(word in names for word in words):
            found.append(code)
            if len(found) == limit:
                break
    return found


@cache
def regions() -> list[str]:
    return _read("ua_regions.json")


@cache
def units() -> dict[str, dict]:
    """The units of measure Prozorro recommends (UN/CEFACT Recommendation 20 codes), each with
    its name and symbol in Ukrainian and English."""
    return _read("unit_codes_recommended.json")


def unit_name(code: str, language: str | None = None) -> str:
    unit = units().get(code)
    if unit is None:
        return ""
    return unit["name_en" if (language or get_language() or "uk")[:2] == "en" else "name_uk"]


def unit_symbol(code: str) -> str:
    unit = units().get(code, {})
    return unit.get("symbol_en" if (get_language() or "uk")[:2] == "en" else "symbol_uk", "")


# The commonest units, offered first and said with the number in the right form ("5 штук").
COUNTED = {
    "H87": ngettext_lazy("%(count)s piece", "%(count)s pieces", "count"),
    "KGM": ngettext_lazy("%(count)s kilogram", "%(count)s kilograms", "count"),
    "LTR": ngettext_lazy("%(count)s litre", "%(count)s litres", "count"),
    "TNE": ngettext_lazy("%(count)s tonne", "%(count)s tonnes", "count"),
    "MTR": ngettext_lazy("%(count)s metre", "%(count)s metres", "count"),
    "MTK": ngettext_lazy("%(count)s square metre", "%(count)s square metres", "count"),
    "MTQ": ngettext_lazy("%(count)s cubic metre", "%(count)s cubic metres", "count"),
    "KMT": ngettext_lazy("%(count)s kilometre", "%(count)s kilometres", "count"),
    "PK": ngettext_lazy("%(count)s pack", "%(count)s packs", "count"),
    "SET": ngettext_lazy("%(count)s set", "%(count)s sets", "count"),
    "KT": ngettext_lazy("%(count)s kit", "%(count)s kits", "count"),
    "PR": ngettext_lazy("%(count)s pair", "%(count)s pairs", "count"),
    "HUR": ngettext_lazy("%(count)s hour", "%(count)s hours", "count"),
    "MON": ngettext_lazy("%(count)s month", "%(count)s months", "count"),
    "E48": ngettext_lazy("%(count)s service", "%(count)s services", "count"),
    "LO": ngettext_lazy("%(count)s lot", "%(count)s lots", "count"),
}


def unit_choices() -> list:
    """The units for a select, in the reader's language: the commonest, then every other
    unit of the list by its name."""
    common = [(code, unit_name(code)) for code in COUNTED]
    others = sorted(
        ((code, unit_name(code)) for code in units() if code not in COUNTED),
        key=lambda choice: fold(choice[1]),
    )
    return [(_("Common units"), common), (_("Every unit"), others)]


def unit_of_item(code: str) -> dict:
    """An item's `unit` for the code: 2.3 writes its name in Ukrainian (and `name_en`)."""
    return {"code": code, "name": unit_name(code, "uk"), "name_en": unit_name(code, "en")}


def counted(quantity, unit: dict | None) -> str:
    """A quantity of a unit as people say it ("10 штук", "1 штука", "2,5 кілограмів"); a unit
    of the list said by its symbol ("12 пар"), else by its name; a unit the list does not
    know as the registry has it."""
    if quantity is None:
        return ""
    whole = float(quantity).is_integer()
    number = int(quantity) if whole else quantity
    shown = number_format(number, decimal_pos=None, use_l10n=True)
    code = (unit or {}).get("code", "")
    if code in COUNTED:
        # (the form is chosen by the number, the number then written as the language writes
        # it; a fraction takes the form of "many")
        form = number if whole else 5
        return str(COUNTED[code] % {"count": form}).replace(str(form), shown, 1)
    said = unit_symbol(code) or unit_name(code) or (unit or {}).get("name", "")
    return f"{shown} {said}".strip()
