"""What the portal's search looks at, derived from a tender's document whenever it is stored,
and how a search box's text is understood.

Kept in columns of their own because the document is JSON: a keyword must match Cyrillic text
case-insensitively on SQLite too (whose LIKE folds ASCII only), so the text is stored casefolded
and the query is casefolded the same way. The words and codes live in a table of their own
(TenderSearch), written only when they change: every change of a tender rewrites its row, and
the indexes of the words would be rewritten with it.

The kept words carry the lemmas of Ukrainian words beside the words as written, and a word
asked is also looked for as its lemmas (tenders.lemmas): "паперу" finds "папір", "покрівля"
finds "покрівлі".

On PostgreSQL the words are found by full text search (the `simple` configuration, which keeps
Ukrainian words as they are written, over the text without accents: migration 0018's index),
each word as the start of a word ("ноутбук" finds "ноутбуків"), or, for a word of four letters
or more, by trigram similarity (a typo still finds it); on SQLite, as parts of the text.
"""

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from tenders.lemmas import WORD as LEMMA_WORD
from tenders.lemmas import lemmas
from tenders.procedures import WHEN_UNNAMED

TENDER_ID = re.compile(r"UA-\d{4}-\d{2}-\d{2}-\d{6}(-[a-z])?", re.IGNORECASE)
CPV_CODE = re.compile(r"\d{8}-\d")
# The words of a text as the index splits it (letters and digits; an apostrophe splits).
WORD = re.compile(r"[^\W_]+")
# What a token pasted or typed may carry around it ("UA-2026-…,", «30197630-1»).
PUNCTUATION = ".,;:!?\"'«»()[]{}<>"
# A word shorter than this is found only as the start of a word, never by similarity.
FUZZY_FROM = 4
# A tender's words kept for search: each once, in the order met (title, description, buyer,
# then the items), up to this many characters: what every search reads of a tender is bounded
# however much it holds (a tender of 1,000 long item descriptions is a few megabytes).
SEARCH_TEXT_MAX = 10_000


def fold(text: str) -> str:
    return " ".join(text.casefold().split())


def search_columns(document: dict) -> dict:
    """`search_text`, `cpv_codes` (space-delimited, padded, so a code matches whole),
    `region`, `value_amount`, `buyer_identifier` and `procedure` (procurementMethodType) of a
    tender's document in its 2.3 wire form."""
    entity = document.get("procuringEntity") or {}
    identifier = entity.get("identifier") or {}
    items = document.get("items") or []
    words = [
        document.get("title", ""),
        document.get("title_en", ""),
        document.get("description", ""),
        entity.get("name", ""),
        identifier.get("legalName", ""),
    ]
    codes = []
    for item in items:
        words.append(item.get("description", ""))
        classification = item.get("classification") or {}
        words.append(classification.get("description", ""))
        if classification.get("id"):
            codes.append(classification["id"])
    address = entity.get("address") or {}
    value = document.get("value") or {}
    return {
        "search_text": searchable(" ".join(w for w in words if isinstance(w, str))),
        "cpv_codes": f" {' '.join(dict.fromkeys(codes))} " if codes else "",
        "region": str(address.get("region") or "")[:200],
        "value_amount": amount(value.get("amount")),
        "buyer_identifier": str(identifier.get("id", "")),
        "procedure": str(document.get("procurementMethodType") or WHEN_UNNAMED)[:64],
    }


def searchable(text: str) -> str:
    """`text` folded, each word once followed by its lemmas not met before it
    (tenders.lemmas), cut at a word's end to at most SEARCH_TEXT_MAX."""
    kept: dict[str, None] = {}
    size = -1
    for word in fold(text).split():
        for form in (word, *(lemma for part in LEMMA_WORD.findall(word) for lemma in lemmas(part))):
            if form in kept:
                continue
            size += len(form) + 1
            if size > SEARCH_TEXT_MAX:
                return " ".join(kept)
            kept[form] = None
    return " ".join(kept)


def words_of(text: str) -> list[str]:
    return list(dict.fromkeys(WORD.findall(fold(text))))


@dataclass
class Understood:
    """What a search box's text asks for: a tender by its ID, codes of the catalogue (a code or
    its first digits), a procuring entity by its code (EDRPOU: 8 digits, which may equally be
    a code of the catalogue without its check digit; ІПН: 10), and words."""

    tender_id: str = ""
    cpv: str = ""
    identifier: str = ""
    words: list[str] = field(default_factory=list)


def understand(text: str) -> Understood:
    # (the catalogue is read to tell a code's first digits from a number among the words)
    from tenders.classifiers import find_cpv

    found = Understood()
    rest = []
    for token in (token.strip(PUNCTUATION) for token in text.split()):
        if TENDER_ID.fullmatch(token) and not found.tender_id:
            found.tender_id = token.upper()
        elif CPV_CODE.fullmatch(token) and not found.cpv:
            found.cpv = token
        elif token.isdigit() and len(token) == 8 and not (found.cpv or found.identifier):
            found.cpv = found.identifier = token
        elif token.isdigit() and len(token) == 10 and not found.identifier:
            found.identifier = token
        elif token.isdigit() and 2 <= len(token) < 8 and not found.cpv and find_cpv(token, limit=1):
            found.cpv = token
        else:
            rest.append(token)
    found.words = words_of(" ".join(rest))
    return found


def cpv_digits(code: str) -> str:
    """The digits a code's whole branch of the catalogue starts with (30190000-7, a class,
    covers every code starting 3019; 30000000-9, a division, every one starting 30); digits
    typed are taken as they are."""
    if not CPV_CODE.fullmatch(code):
        return code
    digits = code[:8]
    return digits[: max(len(digits.rstrip("0")), 2)]


# The largest expected value the search's column holds (numeric(20, 2)); a larger one is not
# searched by value.
LARGEST_AMOUNT = Decimal(10) ** 18


def amount(value) -> Decimal | None:
    """An expected value as the search's column keeps it (None: not searched by value)."""
    try:
        found = Decimal(str(value)).quantize(Decimal("0.01")) if value is not None else None
    except InvalidOperation:
        return None
    return found if found is not None and abs(found) < LARGEST_AMOUNT else None
