"""Work done after the change that asked for it (Django's tasks, queued in the database): the
e-mail, the auction's protocol. A job is queued in its change's transaction, so it commits with
the change or not at all, and a worker (`manage.py worker`) does it outside any request.

A worker claims a task by marking it RUNNING; django-tasks-db leaves a task so marked forever
when its worker dies (killed, its machine gone), and the job is lost. So each worker says it is
alive every BEAT (a row of its own, core.models.WorkerBeat), and on each beat gives back to the
queue what any worker silent for ABANDONED_AFTER had claimed: it is done again, once, by a
worker that lives. A job must therefore bear being begun twice (the protocol checks whether it
was stored; a mail carries the same Message-ID each time it is sent, README "E-mail")."""

import logging
import threading
from datetime import timedelta
from functools import partial

from django.db import connection, transaction
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.models import DBTaskResult

from core.models import WorkerBeat

logger = logging.getLogger(__name__)

BEAT = timedelta(seconds=5)
# Longer than any pause a living worker's beats can have (a busy database, a slow disk).
ABANDONED_AFTER = timedelta(seconds=60)
# A beat not heard of for this long is forgotten.
FORGOTTEN_AFTER = timedelta(days=1)


def after_the_change(task, *args, **kwargs) -> None:
    """Queue `task` in the transaction of the change now made: with the database's queue it
    commits with it; a queue that keeps no rows here (the tests' immediate one) is handed it
    once the change commits, so that a change rolled back does nothing."""
    if isinstance(task.get_backend(), DatabaseBackend):
        task.enqueue(*args, **kwargs)
    else:
        transaction.on_commit(partial(task.enqueue, *args, **kwargs), robust=True)


def again_later(task, after: timedelta, *args, **kwargs) -> None:
    """Queue `task` again, to be done no sooner than `after` from now where the queue can wait."""
    if task.get_backend().supports_defer:
        task = task.using(run_after=timezone.now() + after)
    task.enqueue(*args, **kwargs)


def beat(worker_id: str) -> None:
    """The worker `worker_id` is alive now."""
    WorkerBeat.objects.update_or_create(worker_id=worker_id, defaults={"at": timezone.now()})


def reclaim_abandoned() -> int:
    """Give back to the queue the tasks claimed by workers silent for ABANDONED_AFTER (or by
    none that ever beat: a plain db_worker's), each once (compare-and-set on when it was
    claimed); how many."""
    now = timezone.now()
    silent_since = now - ABANDONED_AFTER
    WorkerBeat.objects.filter(at__lt=now - FORGOTTEN_AFTER).delete()
    alive = set(WorkerBeat.objects.filter(at__gte=silent_since).values_list("worker_id", flat=True))
    reclaimed = 0
    running = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING)
    for claimed in running.only("id", "worker_ids", "started_at"):
        if claimed.worker_ids and claimed.worker_ids[-1] in alive:
            continue
        if claimed.started_at is not None and claimed.started_at > silent_since:
            continue  # (claimed a moment ago: its worker may not have beaten yet)
        reclaimed += running.filter(pk=claimed.pk, started_at=claimed.started_at).update(
            status=TaskResultStatus.READY, started_at=None
        )
        logger.warning("job %s: its worker is gone; it is queued again", claimed.pk)
    return reclaimed


class Beating(threading.Thread):
    """A worker's beat (and its reclaiming of what silent workers held), every BEAT, in a thread
    of its own, until the process ends."""

    def __init__(self, worker_id: str):
        super().__init__(name="worker-beat", daemon=True)
        self.worker_id = worker_id
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                beat(self.worker_id)
                reclaim_abandoned()
            except Exception:
                logger.exception("worker %s could not beat; it tries again", self.worker_id)
                connection.close()
            self.stopped.wait(BEAT.total_seconds())
        connection.close()
