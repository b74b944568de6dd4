"""A change is a savepoint inside a caller's transaction, so that the caller may recover from
its refusal; inside a request's all-or-nothing write it is not (nothing would roll back to it)."""

import pytest
from django.db import transaction

from core.transactions import all_or_nothing, atomic_change
from tenders.models import Counter

pytestmark = pytest.mark.django_db


def savepoints(captured) -> int:
    return sum(q["sql"].upper().startswith("SAVEPOINT") for q in captured.captured_queries)


def test_a_caller_recovers_from_a_change_that_failed_inside_its_transaction():
    with transaction.atomic():
        with pytest.raises(ValueError), atomic_change():
            Counter.next("refused")
            raise ValueError("refused")
        assert not Counter.objects.filter(key="refused").exists()
        assert Counter.next("after") == 1  # the transaction goes on


def test_inside_all_or_nothing_a_change_makes_no_savepoint(query_count):
    with query_count() as plain, transaction.atomic(), atomic_change():
        Counter.next("plain")
    with query_count() as whole, all_or_nothing(), atomic_change(), atomic_change():
        Counter.next("whole")

    # (each test runs in a transaction of its own: the outer block is a savepoint of it)
    assert savepoints(plain) == 2
    assert savepoints(whole) == 1


def test_a_change_that_fails_inside_all_or_nothing_fails_it_whole():
    with pytest.raises(ValueError), all_or_nothing():
        Counter.next("first")
        with atomic_change():
            Counter.next("second")
            raise ValueError("refused")
    assert not Counter.objects.exists()


def test_a_change_after_all_or_nothing_ended_is_a_savepoint_again(query_count):
    with all_or_nothing():
        Counter.next("inside")
    with query_count() as after, transaction.atomic(), atomic_change():
        Counter.next("after")
    assert savepoints(after) == 2
