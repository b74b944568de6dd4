"""PostgreSQL keeps no index the registry never reads on the tables written most: a new
character id or foreign key brings Django's pattern-ops index back, and its migration must
drop it (core.indexes.drop_pattern_indexes)."""

import pytest
from django.db import connection

from core.indexes import pattern_indexes
from tests.layers import PACKAGES

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.mark.parametrize("app_label", [package for package in PACKAGES if package != "portal"])
def test_no_pattern_index_on_the_registry_s_tables(app_label):
    assert pattern_indexes(connection, app_label) == []


def test_the_portal_s_own_tables_still_have_theirs():
    """(the query finds them where they are)"""
    assert pattern_indexes(connection, "portal") != []


def test_the_feed_is_served_by_its_covering_index_alone():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'tenders_tender' "
            "AND indexname LIKE 'tender_feed%%'"
        )
        assert [name for (name,) in cursor.fetchall()] == ["tender_feed_covering"]
