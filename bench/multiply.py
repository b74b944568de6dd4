"""The large registry: the built one copied in SQL, every table kept consistent.

Copy k of a row gets the id md5(id || ':' || k) (32 hex digits, like every id here), and every
reference to a copied row is mapped the same way, so copy k of a claim points at copy k of its
award, bid and tender. Access tokens are kept as their digests, so a copy opens with the
original's token. Stamps move by k milliseconds, so the feed's order never ties; periods stay,
so nothing becomes due. `python -m bench.multiply FACTOR` with DATABASE_URL naming the database.
"""

import sys

import django

django.setup()

from django.db import connection, transaction  # noqa: E402


def mapped(column: str) -> str:
    return f"md5({column} || ':' || k)"


def renumbered(column: str) -> str:
    """A tenderID (UA-YYYY-MM-DD-NNNNNN), or an id made from one (a claim's, a contract's):
    copy k of tender number N is number k * 10000 + N of the same day."""
    number = f"lpad((k * 10000 + substr({column}, 15, 6)::int)::text, 6, '0')"
    return f"left({column}, 14) || {number} || substr({column}, 21)"


def moved(column: str) -> str:
    return f"{column} + k * interval '1 millisecond'"


# table -> {column: expression of the original row and k}; other columns are copied as they are.
COPIES = {
    "tenders_tender": {
        "id": mapped("id"),
        "tender_id": renumbered("tender_id"),
        "date_modified": moved("date_modified"),
        # (the portal lists the newest published first: copies are published apart too)
        "published": moved("published"),
        # The kept representation names the original's ids: a copy's is made by its first read.
        "public_text": "''",
    },
    "tenders_tendersearch": {"tender_id": mapped("tender_id")},
    "tenders_bid": {"id": mapped("id"), "tender_id": mapped("tender_id")},
    "tenders_award": {
        "id": mapped("id"), "tender_id": mapped("tender_id"), "bid_id": mapped("bid_id"),
    },
    "tenders_contract": {
        "id": mapped("id"), "tender_id": mapped("tender_id"), "award_id": mapped("award_id"),
        "contract_id": renumbered("contract_id"),
    },
    "tenders_cancellation": {"id": mapped("id"), "tender_id": mapped("tender_id")},
    "tenders_auction": {"id": mapped("id"), "tender_id": mapped("tender_id")},
    "tenders_tenderdocument": {
        "id": None, "tender_id": mapped("tender_id"), "document_id": mapped("document_id"),
    },
    "tenders_auditevent": {
        "id": None, "tender_id": mapped("tender_id"), "subject_id": mapped("subject_id"),
    },
    "complaints_complaint": {
        "id": mapped("id"), "tender_id": mapped("tender_id"), "award_id": mapped("award_id"),
        "bid_id": mapped("bid_id"), "complaint_id": renumbered("complaint_id"),
        "date": moved("date"),
    },
    "complaints_complaintdocument": {
        "id": None, "complaint_id": mapped("complaint_id"), "document_id": mapped("document_id"),
    },
    "tenders_counter": {
        "key": "split_part(key, ':', 1) || ':' || md5(split_part(key, ':', 2) || ':' || k)",
    },
}  # fmt: skip


def columns_of(table: str) -> list[str]:
    with connection.cursor() as cursor:
        description = connection.introspection.get_table_description(cursor, table)
    return [column.name for column in description]


def copy_statement(table: str, changes: dict, factor: int) -> str:
    targets, sources = [], []
    for column in columns_of(table):
        expression = changes.get(column, column)
        if expression is None:
            continue  # an integer key: the database numbers the copies
        targets.append(f'"{column}"')
        sources.append(expression)
    where = " WHERE key LIKE 'complaints:%'" if table == "tenders_counter" else ""
    return (
        f"INSERT INTO {table} ({', '.join(targets)}) SELECT {', '.join(sources)} "
        f"FROM {table} CROSS JOIN generate_series(1, {factor - 1}) AS k{where}"
    )


def copy_all(factor: int) -> None:
    """`factor` - 1 copies of every row, in one transaction."""
    with transaction.atomic(), connection.cursor() as cursor:
        for table, changes in COPIES.items():
            cursor.execute(copy_statement(table, changes, factor))
            print(f"{table}: {cursor.rowcount} copies", flush=True)


def main(factor: int) -> None:
    copy_all(factor)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


if __name__ == "__main__":
    main(int(sys.argv[1]))
