"""A read written in SQL once (core/reads.py) builds what its queryset builds."""

import pytest
from django.db import connection, transaction
from django.db.models import F

from complaints.models import Complaint
from core.models import Broker
from core.reads import Read
from tenders.models import Award, Tender
from tests.factories import decided_award, file_claim

pytestmark = pytest.mark.django_db


def loaded(instance) -> dict:
    """What an instance holds (its deferred fields left unread)."""
    deferred = instance.get_deferred_fields()
    return {
        field.attname: getattr(instance, field.attname)
        for field in instance._meta.concrete_fields
        if field.attname not in deferred
    }


def test_a_read_builds_the_instances_its_queryset_builds(brokers, clock):
    world = decided_award(brokers, clock)
    file_claim(world, submit=True)
    file_claim(world, bidder=1)
    tender = world.tender
    reads = [
        (Read("tenders.Tender", where=["id"], limit=1), Tender.objects.filter(pk=tender.pk)),
        (
            Read("tenders.Tender", fields=["id", "status", "next_check"], where=["id"]),
            Tender.objects.only("status", "next_check").filter(pk=tender.pk),
        ),
        (
            Read("complaints.Complaint", where=["tender_id"], defer=["description"]),
            Complaint.objects.defer("description").filter(tender_id=tender.pk),
        ),
        (
            Read("core.Broker", where=["key_digest"], equal={"is_active": True}, limit=1),
            Broker.objects.filter(key_digest=brokers["broker"].key_digest, is_active=True),
        ),
    ]
    for read, queryset in reads:
        values = [brokers["broker"].key_digest] if read.label == "core.Broker" else [tender.pk]
        built = read(*values)
        expected = list(queryset)
        assert [loaded(instance) for instance in built] == [loaded(i) for i in expected], read.sql
        assert [i.get_deferred_fields() for i in built] == [
            i.get_deferred_fields() for i in expected
        ]
    assert len(reads[2][0](tender.pk)) == 2  # (in the model's order)


def test_a_read_finds_nothing_and_its_first_is_none(brokers):
    read = Read("core.Broker", where=["key_digest"], equal={"is_active": True}, limit=1)

    assert read("0" * 64) == []
    assert read.first("0" * 64) is None


def test_an_inactive_broker_is_not_found_by_its_key(brokers):
    broker = brokers["broker"]
    Broker.objects.filter(pk=broker.pk).update(is_active=False)

    assert Broker.authenticate("broker") is None
    assert Broker.authenticate("broker2") == brokers["broker2"]


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="only PostgreSQL locks rows (SQLite locks the file)"
)
def test_a_read_for_update_locks_its_rows(brokers, clock):
    tender = decided_award(brokers, clock).tender
    read = Read("tenders.Tender", where=["id"], limit=1, for_update=True)

    assert read.sql.endswith("FOR UPDATE")
    with transaction.atomic():
        [locked] = read(tender.pk)
        assert locked.pk == tender.pk


def test_a_read_also_reads_what_its_relations_name_as_annotate_would(brokers, clock):
    world = decided_award(brokers, clock)
    tender = world.tender
    read = Read(
        "tenders.Award",
        where=["tender_id"],
        fields=["id", "status"],
        also={"tender_status": "tender__status", "broker_name": "tender__broker__name"},
    )
    expected = (
        Award.objects.only("id", "status")
        .filter(tender_id=tender.pk)
        .annotate(tender_status=F("tender__status"), broker_name=F("tender__broker__name"))
    )

    built = read(tender.pk)
    assert [loaded(instance) for instance in built] == [loaded(i) for i in expected]
    assert (
        [(i.tender_status, i.broker_name) for i in built]
        == [(i.tender_status, i.broker_name) for i in expected]
        == [(tender.status, "broker")]
    )
    if connection.vendor == "postgresql":  # (the joined rows are read, not locked)
        locking = Read("tenders.Award", where=["tender_id"], for_update=True, also=read.also)
        assert locking.sql.endswith('FOR UPDATE OF "tenders_award"')
        with transaction.atomic():
            assert [award.pk for award in locking(tender.pk)] == [i.pk for i in expected]
