"""The catalogues a tender is written with: ДК 021 (CPV) codes with their Ukrainian and
English names, and the regions of Ukraine. Read from data/classifiers (where they came from is
in data/SOURCES.md) once, when first asked. Document types are tenders/document_types.py's."""

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.utils.formats import number_format
from django.utils.translation import get_language, ngettext_lazy, override
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


@dataclass(frozen=True)
class Unit:
    """A unit of measure offered for a tender's items (UN/CEFACT Recommendation 20 code)."""

    code: str
    name: str  # what the registry stores (in Ukrainian, as 2.3 data is written)
    label: str  # the unit in the reader's language
    counted: str  # "%(count)s pieces": a quantity of it, in the reader's language

    def english(self) -> str:
        with override("en"):
            return str(self.label)


UNITS = {
    unit.code: unit
    for unit in (
        Unit(
            "H87",
            "штука",
            _("piece"),
            ngettext_lazy("%(count)s piece", "%(count)s pieces", "count"),
        ),
        Unit(
            "KGM",
            "кілограм",
            _("kilogram"),
            ngettext_lazy("%(count)s kilogram", "%(count)s kilograms", "count"),
        ),
        Unit(
            "LTR", "літр", _("litre"), ngettext_lazy("%(count)s litre", "%(count)s litres", "count")
        ),
        Unit(
            "TNE",
            "тонна",
            _("tonne"),
            ngettext_lazy("%(count)s tonne", "%(count)s tonnes", "count"),
        ),
        Unit(
            "MTR", "метр", _("metre"), ngettext_lazy("%(count)s metre", "%(count)s metres", "count")
        ),
        Unit(
            "MTK",
            "метр квадратний",
            _("square metre"),
            ngettext_lazy("%(count)s square metre", "%(count)s square metres", "count"),
        ),
        Unit(
            "MTQ",
            "метр кубічний",
            _("cubic metre"),
            ngettext_lazy("%(count)s cubic metre", "%(count)s cubic metres", "count"),
        ),
        Unit(
            "KMT",
            "кілометр",
            _("kilometre"),
            ngettext_lazy("%(count)s kilometre", "%(count)s kilometres", "count"),
        ),
        Unit(
            "SET", "комплект", _("set"), ngettext_lazy("%(count)s set", "%(count)s sets", "count")
        ),
        Unit(
            "PK", "упаковка", _("pack"), ngettext_lazy("%(count)s pack", "%(count)s packs", "count")
        ),
        Unit(
            "HUR", "година", _("hour"), ngettext_lazy("%(count)s hour", "%(count)s hours", "count")
        ),
        Unit(
            "MON",
            "місяць",
            _("month"),
            ngettext_lazy("%(count)s month", "%(count)s months", "count"),
        ),
        Unit(
            "E48",
            "послуга",
            _("service"),
            ngettext_lazy("%(count)s service", "%(count)s services", "count"),
        ),
        Unit("LO", "лот", _("lot"), ngettext_lazy("%(count)s lot", "%(count)s lots", "count")),
    )
}


def counted(quantity, unit: dict | None) -> str:
    """A quantity of a unit as people say it ("10 штук", "1 штука", "2,5 кілограмів"); a unit
    this list does not know is written after the number as the registry has it."""
    if quantity is None:
        return ""
    whole = float(quantity).is_integer()
    number = int(quantity) if whole else quantity
    shown = number_format(number, decimal_pos=None, use_l10n=True)
    known = UNITS.get((unit or {}).get("code", ""))
    if known is None:
        return f"{shown} {(unit or {}).get('name', '')}".strip()
    # (the form is chosen by the number, the number then written as the language writes it;
    # a fraction takes the form of "many")
    form = number if whole else 5
    return str(known.counted % {"count": form}).replace(str(form), shown, 1)
