from django_tasks_db.management.commands import db_worker

from core.jobs import Beating


class Command(db_worker.Command):
    help = (
        "The background worker: django-tasks-db's db_worker (the same options), which also says "
        "every few seconds that it is alive and gives back to the queue what a worker silent "
        "for a minute had claimed (core.jobs). It does not reload on code changes."
    )

    def handle(self, *args, worker_id: str, batch: bool, **options) -> None:
        beating = None
        if not batch:
            beating = Beating(worker_id)
            beating.start()
        try:
            # (reloading would run the work in a child process of another worker id)
            super().handle(*args, worker_id=worker_id, batch=batch, **{**options, "reload": False})
        finally:
            if beating is not None:
                beating.stopped.set()
