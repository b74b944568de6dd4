"""A compiled query builds what its queryset builds, and compiles once per connection."""

import gc
import threading
import weakref
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.db.models.sql.compiler import SQLCompiler
from django.db.transaction import TransactionManagementError

from complaints.models import Complaint
from core.compiled import Compiled, Shapes
from core.models import Broker
from tenders.models import Tender
from tests.factories import decided_award, file_claim

pytestmark = pytest.mark.django_db


def claims_with_awards(tender_id):
    return Complaint.objects.filter(tender_id=tender_id).select_related("award")


def values(instance) -> dict:
    return {name: value for name, value in vars(instance).items() if not name.startswith("_")}


@pytest.fixture
def world(brokers, clock):
    world = decided_award(brokers, clock)
    file_claim(world)
    file_claim(world, submit=True, bidder=1)
    return world


def test_it_builds_the_instances_the_queryset_builds(world, django_assert_num_queries):
    expected = list(claims_with_awards(world.tender.pk))
    compiled = Compiled(claims_with_awards)

    with django_assert_num_queries(1):
        built = compiled(world.tender.pk)
        awards = [claim.award for claim in built]  # loaded with them: no query

    assert [values(claim) for claim in built] == [values(claim) for claim in expected]
    assert [values(award) for award in awards] == [values(claim.award) for claim in expected]
    assert all(not claim._state.adding and claim._state.db == "default" for claim in built)
    assert isinstance(built[0].date, type(expected[0].date))  # converted as the ORM converts


def test_deferred_fields_stay_deferred(world):
    compiled = Compiled(lambda pk: Tender.objects.only("id", "status").filter(pk=pk)[:1])
    expected = Tender.objects.only("id", "status").get(pk=world.tender.pk)

    found = compiled.first(world.tender.pk)

    assert found.get_deferred_fields() == expected.get_deferred_fields()
    assert (found.pk, found.status) == (expected.pk, expected.status)
    assert compiled.first("0" * 32) is None


def test_values_list_rows_are_converted(world):
    compiled = Compiled(lambda pk: Tender.objects.filter(pk=pk).values_list("id", "date_modified"))

    assert compiled(world.tender.pk) == list(
        Tender.objects.filter(pk=world.tender.pk).values_list("id", "date_modified")
    )


def test_it_compiles_once(world, monkeypatch):
    compiles = []
    original = SQLCompiler.as_sql

    def counting(self, *args, **kwargs):
        compiles.append(self.query.model)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counting)
    compiled = Compiled(claims_with_awards)
    first = compiled(world.tender.pk)
    again = compiled(world.tender.pk)

    assert compiles == [Complaint]
    assert [claim.pk for claim in again] == [claim.pk for claim in first]


def test_an_argument_the_sql_does_not_carry_as_it_is_is_refused(brokers):
    with pytest.raises(ValueError, match="does not reach the SQL"):
        Compiled(lambda name: Broker.objects.filter(name=name.upper()))("broker")


@pytest.mark.django_db(transaction=True)
def test_a_lock_outside_a_transaction_is_refused_also_once_compiled(brokers):
    locking = Compiled(lambda name: Broker.objects.select_for_update().filter(name=name))
    with transaction.atomic():
        assert [broker.name for broker in locking("broker")] == ["broker"]

    if connections["default"].features.has_select_for_update:
        with pytest.raises(TransactionManagementError):
            locking("broker")
    else:  # SQLite locks whole databases: the ORM runs it as a plain read, and so does this
        assert [broker.name for broker in locking("broker")] == ["broker"]


def test_moments_reach_the_sql_as_the_database_takes_them(world, clock):
    changed_at = Tender.objects.get(pk=world.tender.pk).date_modified
    compiled = Compiled(
        lambda since: Tender.objects.filter(date_modified__gte=since).values_list("id", named=True)
    )

    assert compiled(changed_at) == [(world.tender.pk,)]
    assert compiled(changed_at)[0].id == world.tender.pk
    assert compiled(changed_at + timedelta(microseconds=1)) == []
    with pytest.raises(TypeError):
        compiled(changed_at.replace(tzinfo=None))  # a naive moment names no moment


def test_a_shape_asked_again_is_compiled_once_and_the_least_used_goes_first():
    shapes = Shapes(size=2)
    first = shapes.get("a", lambda: None)

    assert shapes.get("a", lambda: None) is first
    shapes.get("b", lambda: None)
    shapes.get("a", lambda: None)  # used again: "b" is now the least recently used
    shapes.get("c", lambda: None)

    assert shapes.get("a", lambda: None) is first
    assert list(shapes._kept) == ["c", "a"]


@pytest.mark.django_db(transaction=True)
def test_a_connection_whose_thread_ended_is_not_kept_alive_by_its_plans(brokers):
    compiled = Compiled(lambda name: Broker.objects.filter(name=name))
    ended = []

    def work():
        assert [broker.name for broker in compiled("broker")] == ["broker"]
        ended.append(weakref.ref(connections["default"]))
        connections["default"].close()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    gc.collect()

    assert ended[0]() is None
    assert [broker.name for broker in compiled("broker")] == ["broker"]  # compiled here anew
