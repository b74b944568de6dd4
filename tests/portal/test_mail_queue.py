"""Mail leaves through the tasks framework's database queue: a request only queues it, the
worker (`manage.py db_worker`) sends it, a server that cannot be reached is tried again later;
what is sent is readable UTF-8 text with an HTML part."""

from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django_tasks_db.models import DBTaskResult

from cluster import ports
from core import notices

pytestmark = pytest.mark.django_db(transaction=True)

TEMPLATE = "complaints/email/claim_submitted.txt"


@pytest.fixture
def queued(settings):
    """Mail queued in the database, as in production."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def closed_port() -> int:
    """A port nothing listens on (below the ephemeral range: no connection takes it meanwhile)."""
    return ports.free_ports()


def work() -> None:
    call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)


def notice(world_claim) -> None:
    notices.send(TEMPLATE, world_claim, ["buyer@example.org"])


@pytest.fixture
def context():
    class Claim:
        complaint_id = "UA-2026-11-23-000001.1"
        title = "Переможця визначено неправильно — " + "дуже довга назва " * 8
        description = "Опис порушення. " * 200  # one paragraph of about 6,000 bytes

    class Tender:
        tender_id = "UA-2026-11-23-000001"
        title = 'Закупівля "паперу" & <картону>'

    return {"complaint": Claim(), "tender": Tender(), "link": "http://127.0.0.1:8000/claims/x/"}


def test_a_request_only_queues_the_mail_and_the_worker_sends_it_readable(queued, context):
    notice(context)

    assert mail.outbox == []
    assert DBTaskResult.objects.filter(status="READY").count() == 1
    work()

    [sent] = mail.outbox
    assert sent.to == ["buyer@example.org"]
    assert "UA-2026-11-23-000001.1" in sent.subject
    source = sent.message().as_bytes()
    assert b"base64" not in source
    assert b"Content-Transfer-Encoding: 8bit" in source
    assert "Переможця визначено неправильно".encode() in source
    assert all(len(line) < 998 for line in source.splitlines())
    # What people typed is as typed in the text, escaped once in the HTML.
    assert 'Закупівля "паперу" & <картону>' in " ".join(sent.body.split())
    [(html, kind)] = sent.alternatives
    assert kind == "text/html"
    assert all(len(line.encode()) < 998 for line in html.splitlines())
    html = " ".join(html.split())
    assert '<a href="http://127.0.0.1:8000/claims/x/"' in html
    assert "Закупівля &quot;паперу&quot; &amp; &lt;картону&gt;" in html
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"


def test_a_server_that_cannot_be_reached_is_tried_again_later(queued, settings, clock, context):
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": closed_port(), "timeout": 2},
        }
    }
    notice(context)
    work()

    again = DBTaskResult.objects.get(status="READY")
    assert again.args_kwargs["args"][-1] == 2  # the second attempt
    assert again.run_after >= clock.now() + timedelta(minutes=1)
    work()  # not yet due
    assert DBTaskResult.objects.filter(status="READY").count() == 1

    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
    clock.advance(minutes=2)
    work()
    assert len(mail.outbox) == 1
    assert not DBTaskResult.objects.filter(status="READY").exists()


def test_a_mail_is_given_up_after_its_last_attempt(queued, settings, clock, context):
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": closed_port(), "timeout": 2},
        }
    }
    notice(context)
    for _attempt in range(notices.ATTEMPTS):
        work()
        clock.advance(hours=3)
    assert not DBTaskResult.objects.filter(status="READY").exists()
    assert DBTaskResult.objects.count() == notices.ATTEMPTS


def test_the_development_console_shows_a_mail_s_subject_as_written():
    import io

    from core.notices import ReadableConsole, ReadableMail

    stream = io.StringIO()
    mail = ReadableMail("Закупівля UA-1: рішення скасовано", "Текст", None, ["a@example.org"])
    ReadableConsole(stream=stream).send_messages([mail])

    assert "Subject: Закупівля UA-1: рішення скасовано" in stream.getvalue()
