"""What a worker held when it died is given back to the queue once, by a worker that lives
(core.jobs); what a living worker holds stays its own."""

import pytest
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core import jobs, notices

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def claimed_by(worker_id: str) -> DBTaskResult:
    notices.send(
        "portal/email/confirm_email.txt", {"user": {"username": "o"}, "link": "x"}, ["o@x"]
    )
    task = DBTaskResult.objects.ready().get_locked()
    task.claim(worker_id)
    return task


def test_a_task_whose_worker_fell_silent_is_queued_again_once(queued, clock):
    jobs.beat("dead")
    jobs.beat("alive")
    held_by_the_dead, held_by_the_living = claimed_by("dead"), claimed_by("alive")
    clock.advance(seconds=jobs.ABANDONED_AFTER.total_seconds() - 1)
    jobs.beat("alive")
    assert jobs.reclaim_abandoned() == 0  # (silent, but not yet for long enough)

    clock.advance(seconds=2)
    assert jobs.reclaim_abandoned() == 1
    assert jobs.reclaim_abandoned() == 0
    held_by_the_dead.refresh_from_db()
    held_by_the_living.refresh_from_db()
    assert held_by_the_dead.status == TaskResultStatus.READY
    assert held_by_the_living.status == TaskResultStatus.RUNNING


def test_a_task_claimed_by_a_worker_that_never_beat_waits_as_long(queued, clock):
    task = claimed_by("a plain db_worker")
    assert jobs.reclaim_abandoned() == 0
    clock.advance(seconds=61)
    assert jobs.reclaim_abandoned() == 1
    task.refresh_from_db()
    assert task.status == TaskResultStatus.READY


@pytest.mark.django_db(transaction=True)  # (the worker closes its connection between tasks)
def test_a_mail_keeps_its_message_id_when_it_is_sent_again(queued, settings):
    from django.core import mail
    from django.core.management import call_command

    notices.send(
        "portal/email/confirm_email.txt", {"user": {"username": "o"}, "link": "x"}, ["o@x"]
    )
    [task] = DBTaskResult.objects.all()
    message_id = task.task_result.kwargs["message_id"]
    call_command("worker", "--batch", "--no-startup-delay", verbosity=0)
    [sent] = mail.outbox
    assert sent.message()["Message-ID"] == message_id
