"""A document's type (2.3's documentType) in words, by the object it belongs to, from the
Prozorro standards' list (tenders/data/document_types, where it came from in SOURCES.md)."""

import json
from functools import cache
from pathlib import Path

from django.utils.translation import get_language

FOLDER = Path(__file__).parent / "data" / "document_types"


@cache
def _by_object() -> dict[str, dict[str, dict]]:
    """object ("tender", "bid", "award", "contract") -> code -> titles and descriptions."""
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(FOLDER.glob("*.json"))
    }


def document_type_title(code: str, of: str = "tender") -> str:
    """The type's title in the reader's language (Ukrainian, else English), looked up among the
    types of `of` first, then of any object; the code itself if no list knows it."""
    if not code:
        return ""
    lists = _by_object()
    entry = lists.get(of, {}).get(code) or next(
        (types[code] for types in lists.values() if code in types), None
    )
    if entry is None:
        return code
    language = "uk" if (get_language() or "").startswith("uk") else "en"
    return entry.get(f"title_{language}") or entry.get("title_en") or code
