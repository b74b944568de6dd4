"""What the portal's search looks at, derived from a tender's document whenever it is stored.

Kept in columns of their own because the document is JSON: a keyword must match Cyrillic text
case-insensitively on SQLite too (whose LIKE folds ASCII only), so the text is stored casefolded
and the query is casefolded the same way. The words and codes live in a table of their own
(TenderSearch), written only when they change: every change of a tender rewrites its row, and
the index of the words (trigrams, on PostgreSQL) would be rewritten with it.
"""


def fold(text: str) -> str:
    return " ".join(text.casefold().split())


def search_columns(document: dict) -> dict:
    """`search_text`, `cpv_codes` (space-delimited, padded, so a code matches whole) and
    `buyer_identifier` of a tender's document in its 2.3 wire form."""
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
    return {
        "search_text": fold(" ".join(w for w in words if isinstance(w, str))),
        "cpv_codes": f" {' '.join(dict.fromkeys(codes))} " if codes else "",
        "buyer_identifier": str(identifier.get("id", "")),
    }
