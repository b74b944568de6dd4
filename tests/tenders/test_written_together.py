"""Changes gathered to be written together (tenders.models.base.written_together): written
once at the end, all of them, and nothing of a change that failed."""

import pytest
from django.db import DataError, connection, transaction

from complaints.models import Complaint
from core.actors import Actor
from tenders.models import AuditEvent, Tender
from tenders.models.base import save_later, written_together
from tests.factories import decided_award, make_complaint

pytestmark = pytest.mark.django_db


@pytest.fixture
def claim(brokers, clock):
    return make_complaint(decided_award(brokers, clock), "claim")


def record(tender, action: str) -> None:
    AuditEvent.record(
        tender=tender, subject=tender, action=action, by=Actor.system(), at=tender.date
    )


def test_events_alone_are_written_together(claim):
    tender = claim.tender
    with written_together():
        record(tender, "one")
        record(tender, "two")
        assert not AuditEvent.objects.filter(action__in=("one", "two")).exists()
    assert AuditEvent.objects.filter(action__in=("one", "two")).count() == 2


def test_rows_and_events_are_written_together(claim):
    with written_together():
        claim.description = "змінено"
        save_later(claim, ["description"])
        claim.tender.title = "Нова назва"
        save_later(claim.tender, ["title"])
        record(claim.tender, "both")
    assert Complaint.objects.get(pk=claim.pk).description == "змінено"
    assert Tender.objects.get(pk=claim.tender_id).title == "Нова назва"
    assert AuditEvent.objects.filter(action="both").count() == 1


def test_two_copies_of_one_row_are_refused_rather_than_one_lost(claim):
    twin = Complaint.objects.get(pk=claim.pk)
    with pytest.raises(RuntimeError, match="Two copies"), written_together():
        save_later(claim, ["description"])
        save_later(twin, ["title"])


def test_a_change_that_failed_inside_another_leaves_nothing_to_write(claim):
    tender = claim.tender
    with written_together():
        record(tender, "kept")
        with transaction.atomic(), pytest.raises(ValueError), written_together():
            claim.description = "не буде"
            save_later(claim, ["description"])
            record(tender, "dropped")
            raise ValueError("refused")
    assert AuditEvent.objects.filter(action="kept").count() == 1
    assert not AuditEvent.objects.filter(action="dropped").exists()
    assert Complaint.objects.get(pk=claim.pk).description != "не буде"


@pytest.mark.postgres
def test_a_value_too_long_for_its_column_is_refused_not_cut(claim):
    claim.status = "x" * 40  # status is varchar(16)
    with pytest.raises(DataError), transaction.atomic(), written_together():
        save_later(claim, ["status"])
        record(claim.tender, "too long")
    assert connection.vendor == "postgresql"
