"""A committed change always has its mail queued: the notice is written in the change's own
transaction. A process killed right after the commit (before anything else it would have done)
loses no mail: the worker sends it. A change rolled back queues nothing. A worker killed while it
sends leaves the mail claimed; a living worker queues it again once the dead one has been silent
long enough, and it is sent once."""

import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from core import notices
from core.jobs import ABANDONED_AFTER, reclaim_abandoned
from tenders.models import Award
from tests.factories import portal_world
from tests.served import ROOT, SECRET, database_url

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Run in a process of its own: decide the award, and die the moment the decision commits
# (a hook registered before the change runs first among those run after the commit).
DECIDE_AND_DIE = """
import os, sys
sys.path.insert(0, os.getcwd())
import django
django.setup()
import time_machine
from django.db import transaction
from core.actors import Actor, Role
from portal.models import User
from tenders.models import Award

with time_machine.travel(sys.argv[1], tick=False):
    award = Award.objects.select_related("tender").get(pk=sys.argv[2])
    buyer = User.objects.get(username="buyer")
    with transaction.atomic():
        transaction.on_commit(lambda: os._exit(9))
        award.activate(by=Actor(Role.TENDER_OWNER, user=buyer, subject=award.tender))
"""


def work() -> None:
    call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)


@pytest.fixture
def queued(settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def test_a_process_killed_right_after_the_commit_loses_no_mail(brokers, clock, queued, tmp_path):
    world = portal_world(brokers, clock, decision="pending")
    work()  # (the mail of the world's making)
    mail.outbox.clear()
    script = tmp_path / "decide_and_die.py"
    script.write_text(DECIDE_AND_DIE)
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "SECRET_KEY": SECRET,
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "DJANGO_SETTINGS_MODULE": "portal.settings",
    }
    died = subprocess.run(
        [sys.executable, str(script), clock.now().isoformat(), world.award.pk],
        cwd=ROOT, env=environment, capture_output=True, text=True,
    )  # fmt: skip

    assert died.returncode == 9, died.stderr
    assert Award.objects.get(pk=world.award.pk).status == "active"  # the decision committed
    work()

    told = sorted(address for sent in mail.outbox for address in sent.to)
    assert told == sorted(
        [*world.bidder.organization.emails(), *world.other_bidder.organization.emails()]
    )
    assert all(world.tender.tender_id in sent.body for sent in mail.outbox)


def test_a_change_rolled_back_queues_no_mail(queued):
    with pytest.raises(RuntimeError), transaction.atomic():
        notices.send(
            "portal/email/confirm_email.txt",
            {"user": {"username": "olena"}, "link": "http://x/"},
            ["olena@example.org"],
        )
        assert DBTaskResult.objects.count() == 1  # queued with the change, not after it
        raise RuntimeError("the change fails after its notice")

    assert not DBTaskResult.objects.exists()


class StalledMailServer:
    """An SMTP server on loopback that greets and then never answers: a worker sending to it
    waits (its socket bound here, by the test, so no other process can take its port)."""

    def __init__(self):
        import socket
        import threading

        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = self.listener.getsockname()[1]
        self.heard = bytearray()
        self.connected = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        connection, _ = self.listener.accept()
        connection.sendall(b"220 stalled.example.org ESMTP\r\n")
        self.connected.set()
        while chunk := connection.recv(4096):
            self.heard += chunk


def test_a_worker_killed_while_sending_leaves_its_mail_to_the_next_sent_once(
    brokers, queued, tmp_path, time_machine
):
    notices.send(
        "portal/email/confirm_email.txt",
        {"user": {"username": "olena"}, "link": "http://x/"},
        ["olena@example.org"],
    )
    [task] = DBTaskResult.objects.all()
    server = StalledMailServer()
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "SECRET_KEY": SECRET,
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(server.port),
        "EMAIL_USE_TLS": "0",
        "EMAIL_TIMEOUT": "120",
    }
    log = tmp_path / "worker.log"
    with open(log, "wb") as output:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "worker", "--interval", "0.1", "--no-startup-delay"],
            cwd=ROOT, env=environment, stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        assert server.connected.wait(60), log.read_text()
        task.refresh_from_db()
        # What it held when it was killed: the mail, claimed, not sent.
        assert task.status == "RUNNING", log.read_text()
    finally:
        worker.kill()
        worker.wait(10)
    assert b"DATA" not in server.heard

    assert reclaim_abandoned() == 0  # (it may only be slow, for all anyone knows yet)
    time_machine.move_to(timezone.now() + ABANDONED_AFTER + timedelta(seconds=1), tick=False)
    assert reclaim_abandoned() == 1
    work()
    work()

    [sent] = mail.outbox
    assert sent.to == ["olena@example.org"]
    assert sent.message()["Message-ID"] == task.task_result.kwargs["message_id"]
    task.refresh_from_db()
    assert task.status == "SUCCESSFUL"
