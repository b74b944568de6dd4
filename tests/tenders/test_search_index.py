"""At 100,000 tenders the portal's search reads its indexes, not the registry: words through
the full text index in every order (whatever PostgreSQL's statistics guess of them: here, with
few words in them, that any word's start is in one text in fifty), a common word's first page
among the newest thousand first, codes through the trigram index of codes, a procuring
entity's code, a region and a value range through theirs (migration 0018)."""

import pytest
from django.db import connection

from bench.multiply import copy_statement
from core.actors import Actor, Role
from portal.models import Organization
from portal.views import SEARCH_FIRST_AMONG
from tenders.models import Tender
from tests.factories import make_user
from tests.helpers import tender_data

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

COPIES = 100_000
VOCABULARY = [
    "папір", "ремонт", "покрівлі", "рукавички", "комп'ютери", "бензин", "послуги", "прибирання",
    "медичні", "засоби", "миючі", "ноутбуки", "шкіл", "лікарні", "фарба", "цемент", "пісок",
    "вода", "електроенергія", "харчування",
]  # fmt: skip


def words(k: str) -> str:
    """Three words of the vocabulary chosen by copy k, and k itself (every text differs)."""
    size = len(VOCABULARY)
    array = "ARRAY[" + ", ".join(f"'{w.replace(chr(39), chr(39) * 2)}'" for w in VOCABULARY) + "]"
    pick = [f"({array})[1 + ({k} / {step}) % {size}]" for step in (1, size, size * size)]
    return " || ' ' || ".join([*pick, f"'закупівля' || {k}"])


@pytest.fixture
def registry(clock):
    buyer = make_user("buyer", "Лікарня", "01993913", Organization.Kind.PROCURING)
    Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), title="Зразок")
    )
    regions = "(ARRAY['м. Київ', 'Львівська область', 'Одеська область'])[1 + k % 3]"
    with connection.cursor() as cursor:
        cursor.execute(
            copy_statement(
                "tenders_tender",
                {
                    "id": "md5(id || ':' || k)",
                    "tender_id": "'UA-2026-01-01-' || lpad(k::text, 6, '0') || '-c'",
                    "buyer_identifier": "lpad((k % 5000)::text, 8, '0')",
                    # (published a second apart: the newest first is an order of its own)
                    "published": "published - k * interval '1 second'",
                    "data": "'{}'::jsonb",
                    "public_text": "''",
                },
                COPIES + 1,
            )
        )
        cursor.execute(
            copy_statement(
                "tenders_tendersearch",
                {
                    "tender_id": "md5(tender_id || ':' || k)",
                    "search_text": words("k"),
                    "cpv_codes": "' ' || lpad((k % 9000 * 10000)::text, 8, '0') || '-1 '",
                    "region": regions,
                    "value_amount": "(k % 1000) * 1000",
                },
                COPIES + 1,
            )
        )
        cursor.execute("ANALYZE tenders_tender, tenders_tendersearch")
    assert Tender.objects.count() == COPIES + 1
    yield
    # (the copies were made beside the frame: no change of theirs is for open data to tell)
    with connection.cursor() as cursor:
        copies = "SELECT id FROM tenders_tender WHERE tender_id LIKE '%-c'"
        cursor.execute(f"DELETE FROM tenders_tendersearch WHERE tender_id IN ({copies})")
        cursor.execute(f"DELETE FROM tenders_tender WHERE id IN ({copies})")


def plan(**asked) -> str:
    explained = Tender.objects.public().matching(**asked).listed()[:21].explain()
    print(asked, explained)
    return explained


def first_plan(**asked) -> str:
    among_newest = Tender.objects.public().newest_matching(among=SEARCH_FIRST_AMONG, **asked)
    explained = among_newest.listed()[:21].explain()
    print("among the newest:", asked, explained)
    return explained


def test_the_search_reads_its_indexes_at_a_hundred_thousand_tenders(registry):
    # A word of one text in a hundred thousand, and a word with a typo.
    assert "tender_search_words" in plan(q="закупівля4242", sort="relevance")
    assert "tender_search_words" in plan(q="закупівля4242", sort="newest")
    assert "tender_search_words" in plan(q="закупівля4242", sort="deadline")
    assert "tender_search_words" in plan(q="закупівля4242", sort="changed")
    assert "tender_search_words" in plan(q="закупівлі4242")
    assert "tender_search_text_trigram" in plan(q="закупывля4242", resembling=True)
    # A common word (in one text in twenty), the newest first: its page is looked for first
    # by walking the newest thousand, ending where they do, not by reading every text with it.
    for asked in ({"q": "ремонт"}, {"q": "ремонту"}, {"q": "ремонт", "sort": "changed"}):
        walked = first_plan(**asked)
        assert "Index Scan Backward" in walked and "COALESCE" in walked, walked
    # Two words, each in a twentieth of the texts, in one of four hundred together.
    assert "tender_search_words" in plan(q="ремонт цемент", sort="relevance")
    assert "tender_search_codes" in plan(cpv="4242")
    assert "tender_buyer" in plan(q="00004242")
    assert "tenders_tender_tender_id_key" in plan(q="UA-2026-01-01-004242-c".upper())
    assert "tender_search_value" in plan(value_min=5000, value_max=5000)
