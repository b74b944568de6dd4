"""Our module's protocol is stored after the change that ends the auction commits, by a job the
worker tries until it is stored: the document service slow or down holds up no auction's end, a
change rolled back leaves no file behind, and the protocol is never lost nor published twice."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django_tasks_db.models import DBTaskResult

from docservice import client
from docservice.models import StoredFile
from tenders.models import Tender
from tenders.models.tender_documents import PROTOCOL_RETRY_AFTER
from tests.factories import in_auction
from tests.helpers import bid_data

# (the worker closes its connection between tasks: what the tests write is committed)
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queued(settings):
    """Jobs queued in the database, as in production."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def work() -> None:
    call_command("worker", "--batch", "--no-startup-delay", verbosity=0)


def files_in_store(settings) -> list[Path]:
    folder = Path(settings.STORAGES["documents"]["OPTIONS"]["location"])
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []


def protocols(tender) -> list:
    return [d for d in Tender.objects.get(pk=tender.pk).documents.all() if d.author == "auction"]


def test_the_auction_ends_with_the_document_service_down_and_its_protocol_follows(
    brokers, clock, queued, monkeypatch, settings
):
    tender, _bidders, auction = in_auction(brokers, clock)
    clock.move_to(auction.expected_end(tender))
    stored = client.store_file

    def down(upload, actor):
        raise OSError("the document service does not answer")

    monkeypatch.setattr(client, "store_file", down)
    ended = Tender.objects.current(tender.pk, viewer=None)
    # The end is not held up: the awards are made, the protocol waits in the queue.
    assert ended.status == "active.qualification"
    assert protocols(tender) == []
    work()
    work()
    assert protocols(tender) == [] and files_in_store(settings) == []
    waiting = DBTaskResult.objects.filter(status="READY")
    assert len(waiting) == 2  # (its data and its readable page)
    assert all(job.run_after > clock.now() for job in waiting)  # (tried again later)

    monkeypatch.setattr(client, "store_file", stored)
    clock.advance(seconds=PROTOCOL_RETRY_AFTER[0].total_seconds() + 1)
    work()
    assert sorted(p.title for p in protocols(tender)) == [
        "auction-protocol.html", "auction-protocol.json",
    ]  # fmt: skip
    assert len(files_in_store(settings)) == StoredFile.objects.count() == 2
    read = Tender.objects.get(pk=tender.pk)
    assert read.date_modified > ended.date_modified  # (a change brokers' feeds show)


def test_refused_writes_leave_no_file_and_the_protocol_is_stored_once(
    brokers, clock, queued, settings, api
):
    tender, _bidders, auction = in_auction(brokers, clock)
    clock.move_to(auction.expected_end(tender))
    # Each write is refused on a tender whose auction is over by now: the end it brings about
    # first is rolled back with it, and so is its job.
    for _ in range(5):
        assert api.post(f"/tenders/{tender.pk}/bids", bid_data(300)).status_code == 403
    assert files_in_store(settings) == [] and not DBTaskResult.objects.exists()

    assert Tender.objects.current(tender.pk, viewer=None).status == "active.qualification"
    work()
    # A job begun twice (its worker died after storing it) adds its file once.
    done = DBTaskResult.objects.all()[0]
    done.task.enqueue(*done.task_result.args, **done.task_result.kwargs)
    work()
    assert len(protocols(tender)) == 2
    assert len(files_in_store(settings)) == StoredFile.objects.count() == 2
