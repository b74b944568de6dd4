"""The unit of work behind the frame (core/writes.py): a change's saves are gathered and sent
together before the next statement or the commit, so that every read sees them; a change that
failed inside another leaves nothing to write; a tracked row saves only what changed."""

import pytest
from django.db import DataError, connection, transaction
from django.test.utils import CaptureQueriesContext

from complaints.models import Complaint
from core.actors import Actor
from core.transactions import atomic_change, recoverable
from portal.models import JoinRequest
from tenders.models import AuditEvent, Tender
from tests.factories import decided_award, make_complaint, make_user, sign_up

pytestmark = pytest.mark.django_db


@pytest.fixture
def claim(brokers, clock):
    return make_complaint(decided_award(brokers, clock), "claim")


def record(tender, action: str) -> None:
    AuditEvent.record(
        tender=tender, subject=tender, action=action, by=Actor.system(), at=tender.date
    )


def test_a_changes_rows_and_events_reach_the_database_in_one_statement(claim):
    with CaptureQueriesContext(connection) as sent, atomic_change():
        claim.description = "змінено"
        claim.save(update_fields=["description"])
        claim.tender.title = "Нова назва"
        claim.tender.save(update_fields=["title"])
        record(claim.tender, "both")
        record(claim.tender, "and again")
        sent_inside = [query["sql"] for query in sent.captured_queries]
    writes = [query["sql"] for query in sent.captured_queries if "SAVEPOINT" not in query["sql"]]
    assert not [sql for sql in sent_inside if "SAVEPOINT" not in sql]
    # one statement on PostgreSQL; elsewhere an INSERT and an UPDATE per row
    assert len(writes) == (1 if connection.vendor == "postgresql" else 3)
    assert Complaint.objects.get(pk=claim.pk).description == "змінено"
    assert Tender.objects.get(pk=claim.tender_id).title == "Нова назва"
    assert AuditEvent.objects.filter(action__in=("both", "and again")).count() == 2


def test_a_read_inside_a_change_sees_what_the_change_saved(claim):
    with atomic_change():
        claim.description = "видно одразу"
        claim.save(update_fields=["description"])
        record(claim.tender, "seen")
        assert Complaint.objects.get(pk=claim.pk).description == "видно одразу"
        assert AuditEvent.objects.filter(action="seen").count() == 1


def test_outside_a_change_a_save_is_sent_at_once(claim):
    claim.description = "одразу"
    claim.save(update_fields=["description"])
    with transaction.atomic():
        assert Complaint.objects.get(pk=claim.pk).description == "одразу"


def test_a_save_of_no_columns_writes_nothing(claim):
    with CaptureQueriesContext(connection) as sent, atomic_change():
        claim.save(update_fields=[])
    assert not [query for query in sent.captured_queries if "SAVEPOINT" not in query["sql"]]


def test_two_copies_of_one_row_are_refused_rather_than_one_lost(claim):
    twin = Complaint.objects.get(pk=claim.pk)
    with pytest.raises(RuntimeError, match="Two copies"), atomic_change():
        claim.save(update_fields=["description"])
        twin.save(update_fields=["title"])


def test_a_change_that_failed_inside_another_leaves_nothing_to_write(claim):
    tender = claim.tender
    with atomic_change():
        record(tender, "kept")
        with pytest.raises(ValueError), recoverable():
            claim.description = "не буде"
            claim.save(update_fields=["description"])
            record(tender, "dropped")
            raise ValueError("refused")
    assert AuditEvent.objects.filter(action="kept").count() == 1
    assert not AuditEvent.objects.filter(action="dropped").exists()
    assert Complaint.objects.get(pk=claim.pk).description != "не буде"


def test_a_tracked_row_saves_only_the_columns_changed_since_it_was_loaded(claim):
    tender = Tender.objects.get(pk=claim.tender_id)
    tender.track_changes()
    with CaptureQueriesContext(connection) as sent:
        tender.save()
    assert len(sent) == 0  # nothing changed, nothing sent
    tender.title = "Лише назва"
    tender.data["description"] = "змінено в документі"  # changed in place
    with CaptureQueriesContext(connection) as sent:
        tender.save()
    (update,) = sent.captured_queries
    assert '"title"' in update["sql"] and '"data"' in update["sql"]
    assert '"status"' not in update["sql"] and '"date_modified"' not in update["sql"]
    assert Tender.objects.get(pk=tender.pk).data["description"] == "змінено в документі"


@pytest.mark.postgres
def test_a_value_too_long_for_its_column_is_refused_not_cut(claim):
    claim.status = "x" * 40  # status is varchar(16)
    with pytest.raises(DataError), atomic_change():
        claim.save(update_fields=["status"])
        record(claim.tender, "too long")
    assert connection.vendor == "postgresql"


def test_an_audit_record_is_written_with_the_change_and_written_once(claim):
    with atomic_change():
        event = AuditEvent.record(
            tender=claim.tender, subject=claim, action="once", by=Actor.system(), at=claim.date
        )
        with pytest.raises(RuntimeError, match="written once"):
            event.save()
    assert AuditEvent.objects.filter(action="once").count() == 1


def test_a_new_row_of_a_record_that_changes_gets_its_key_at_once(claim):
    admin = make_user("admin", "Лікарня №3", "01993913", "procuring")
    applicant = sign_up("applicant")
    with atomic_change():
        request = JoinRequest.objects.create(user=applicant, organization=admin.organization)
        assert request.pk is not None  # (an e-mailed link may name it)
    assert JoinRequest.objects.filter(pk=request.pk).exists()


def test_a_deferred_column_saved_inside_a_change_is_read_then_written(claim):
    with atomic_change():
        loaded = Complaint.objects.defer("description").get(pk=claim.pk)
        loaded.save(update_fields=["description"])
        assert Complaint.objects.get(pk=claim.pk).description == claim.description


def test_a_tracked_row_read_again_by_a_relation_s_name(claim):
    tender = Tender.objects.get(pk=claim.tender_id)
    tender.track_changes()
    tender.refresh_from_db(fields=["broker"])
    with CaptureQueriesContext(connection) as sent:
        tender.save()
    assert len(sent) == 0
