"""The management commands and the settings a deployment relies on."""

import io
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from complaints.models import Complaint
from core.actors import Actor, Role
from core.models import Broker
from core.notices import deliver
from core.schema import parse_iso
from portal.models import User
from tenders.models import Contract, Question, Tender, TenderStatus
from tests.helpers import create_tender

ROOT = Path(__file__).resolve().parents[2]


def manage(*args, env=None) -> subprocess.CompletedProcess:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"SECRET_KEY", "DEBUG", "DATABASE_URL", "HTTPS", "ALLOWED_HOSTS", "REDIS_URL"}
    }
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )


@pytest.mark.django_db
def test_add_broker_stores_only_a_digest_and_prints_a_generated_key_once(capsys):
    call_command("add_broker", "acme")
    out = capsys.readouterr().out
    key = out.split("API key (shown once): ")[1].strip()
    broker = Broker.objects.get(name="acme")
    assert key not in broker.key_digest and len(key) == 32
    assert Broker.authenticate(key) == broker


@pytest.mark.django_db
def test_add_broker_with_a_key_updates_an_existing_broker(capsys):
    first, second = "f" * 32, "s" * 40
    call_command("add_broker", "acme", "--key", first)
    call_command("add_broker", "acme", "--key", second)
    assert "Updated broker acme" in capsys.readouterr().out
    assert Broker.authenticate(first) is None
    assert Broker.authenticate(second).name == "acme"
    assert "shown once" not in capsys.readouterr().out


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "key"),
    [("bad name", "k" * 32), ("acme", "a:b" * 11), ("acme", " "), ("acme", "k" * 31), ("acme", "")],
)
def test_add_broker_refuses_bad_input(name, key):
    with pytest.raises(CommandError):
        call_command("add_broker", name, "--key", key)
    assert not Broker.objects.exists()


# Every stage the demo's tenders reach.
DEMO_STAGES = {
    TenderStatus.ENQUIRIES,
    TenderStatus.TENDERING,
    TenderStatus.QUALIFICATION,
    TenderStatus.AWARDED,
    TenderStatus.COMPLETE,
    TenderStatus.UNSUCCESSFUL,
}


@pytest.mark.django_db
def test_load_demo_reaches_every_stage_and_runs_twice(capsys, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    call_command("load_demo")
    assert not DBTaskResult.objects.exists()  # the demo's past e-mails nobody
    assert set(Tender.objects.values_list("status", flat=True)) == DEMO_STAGES
    assert sorted(Complaint.objects.values_list("status", flat=True)) == ["claim", "resolved"]
    # A contract the buyer may sign now, and one in contracting with a signed change.
    buyer = User.objects.get(username="buyer")
    now = timezone.now()
    signable = [
        c for c in Contract.objects.to_sign_by(buyer.organization)
        if c.can("sign", Actor(Role.TENDER_OWNER, user=buyer, subject=c.tender), now)
    ]  # fmt: skip
    assert len(signable) == 1
    [changed] = Contract.objects.filter(changes__status="active")
    assert changed.status == "active" and changed.data["value"]["amount"] == 115_000
    assert buyer.check_password("demo-password")
    # A question for the buyer to answer; an auction for bidder and bidder2 soon.
    assert [q.answer for q in Question.objects.all()] == [""]
    soon = Tender.objects.get(title="Марля медична")
    assert soon.status == TenderStatus.TENDERING and soon.bids.count() == 3
    assert soon.tender_end - now < timedelta(minutes=16)
    count = Tender.objects.count()
    assert "Demo data is loaded." in capsys.readouterr().out
    call_command("load_demo")
    assert Tender.objects.count() == count
    again = capsys.readouterr().out
    assert f"The database holds {count} tender(s) already: no demo tender is added" in again
    assert "Demo data is loaded." not in again


@pytest.mark.django_db
@pytest.mark.parametrize(
    "moment",
    [
        "2026-11-28T00:05:00+02:00",  # a Saturday just after midnight in Kyiv
        "2026-11-30T10:30:00+02:00",  # a Monday before the day's first auction
        "2026-12-04T23:50:00+02:00",  # a Friday night
    ],
)
def test_the_demo_reaches_every_stage_whatever_the_day_and_hour(moment, time_machine):
    """Auctions are held on working days from 11:00 in Kyiv: the demo's past waits for each."""
    time_machine.move_to(parse_iso(moment), tick=False)

    call_command("load_demo", stdout=io.StringIO())

    assert set(Tender.objects.values_list("status", flat=True)) == DEMO_STAGES
    assert sorted(Complaint.objects.values_list("status", flat=True)) == ["claim", "resolved"]
    assert Contract.objects.filter(changes__status="active").count() == 1


@pytest.mark.django_db
def test_the_demo_loads_where_an_external_module_holds_the_auctions(settings, time_machine):
    # (its past auctions reported as the module would have: the sealed prices standing)
    settings.AUCTION_MODULE = "external"
    time_machine.move_to(parse_iso("2026-11-30T10:30:00+02:00"), tick=False)

    call_command("load_demo", stdout=io.StringIO())

    assert set(Tender.objects.values_list("status", flat=True)) == DEMO_STAGES
    assert Contract.objects.filter(changes__status="active").count() == 1
    # The key they were reported with opens nothing.
    assert not Broker.objects.get(role="auction").is_active


@pytest.mark.django_db
def test_demo_brokers_have_short_keys_only_with_debug(capsys, settings):
    settings.DEBUG = False
    call_command("load_demo")
    out = capsys.readouterr().out
    assert Broker.authenticate("broker") is None
    [key] = [line.split(": ")[1] for line in out.splitlines() if line.startswith("    broker: ")]
    assert len(key) >= Broker.MIN_KEY_LENGTH and Broker.authenticate(key).name == "broker"


@pytest.mark.django_db
def test_demo_brokers_have_their_short_keys_with_debug(capsys, settings):
    settings.DEBUG = True
    call_command("load_demo")
    assert Broker.authenticate("broker").name == "broker"
    assert "curl -u broker:" in capsys.readouterr().out


@pytest.mark.django_db
def test_add_broker_says_how_long_a_key_must_be():
    with pytest.raises(CommandError, match="at least 32 characters"):
        call_command("add_broker", "acme", "--key", "short-key")
    assert not Broker.objects.exists()


def test_secret_key_is_required_unless_debug():
    result = manage("check")
    assert result.returncode != 0 and "Set SECRET_KEY" in result.stderr
    assert manage("check", env={"DEBUG": "1"}).returncode == 0


PRODUCTION = {
    "SECRET_KEY": "a-production-secret-key-that-is-long-and-random-0123456789abcdef",
    "ALLOWED_HOSTS": "registry.example.org",
}
# As deployed: over HTTPS, counting in Redis.
DEPLOYED = {**PRODUCTION, "HTTPS": "1", "REDIS_URL": "redis://127.0.0.1:6379/0"}


def test_deploy_check_with_production_settings_is_clean(tmp_path):
    # (the static files collected: their manifest, as collectstatic writes it)
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1", "hash": ""}')
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env={**DEPLOYED, "STATIC_ROOT": str(tmp_path)},
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_deploy_check_asks_for_the_static_files_collected(tmp_path):
    # (every portal page failed with "Missing staticfiles manifest entry", and no check said so)
    result = manage("check", "--deploy", env={**DEPLOYED, "STATIC_ROOT": str(tmp_path)})
    assert "portal.W003" in result.stderr + result.stdout and "collectstatic" in result.stderr


def test_deploy_check_asks_for_a_shared_cache():
    result = manage("check", "--deploy", env={**PRODUCTION, "HTTPS": "1"})
    assert "portal.W001" in result.stderr + result.stdout and "REDIS_URL" in result.stderr


@pytest.mark.django_db
def test_admin_lists_tenders_and_their_audit_trail(admin_client):
    call_command("load_demo")
    tender = Tender.objects.filter(status=TenderStatus.COMPLETE).get()
    assert admin_client.get("/admin/tenders/tender/").status_code == 200
    page = admin_client.get(f"/admin/tenders/tender/{tender.pk}/change/")
    assert page.status_code == 200 and "sign" in page.content.decode()
    assert admin_client.get("/admin/core/broker/").status_code == 200
    assert admin_client.get("/admin/tenders/auditevent/").status_code == 200


@pytest.mark.django_db
def test_admin_shows_claims_read_only_with_their_audit_trail(admin_client):
    from complaints.models import Complaint

    call_command("load_demo")
    complaint = Complaint.objects.get(status="resolved")

    assert admin_client.get("/admin/complaints/complaint/").status_code == 200
    page = admin_client.get(f"/admin/complaints/complaint/{complaint.pk}/change/").content.decode()
    assert "answered → resolved" in page
    assert 'name="_save"' not in page  # nothing to save: read-only
    assert admin_client.get("/admin/portal/organization/").status_code == 200


@pytest.mark.django_db
def test_demo_leaves_a_tender_open_to_a_portal_bidder(client):
    from portal.models import User

    call_command("load_demo")
    tender = Tender.objects.get(status=TenderStatus.TENDERING, title="Ремонт покрівлі корпусу №2")
    client.force_login(User.objects.get(username="bidder2"))

    page = client.get(f"/tenders/{tender.pk}/")

    assert page.context["bid_form"] is not None


@pytest.mark.django_db
def test_the_migrations_describe_the_models():
    result = manage("makemigrations", "--check", "--dry-run", env={"DEBUG": "1"})
    assert result.returncode == 0, result.stdout + result.stderr


VERIFY_KEY = "ab" * 32


def test_a_remote_document_service_needs_its_upload_key():
    result = manage("check", env={**PRODUCTION, "DOCSERVICE_URL": "https://ds.example.org"})
    assert result.returncode != 0
    assert "portal.E003" in result.stderr and "DOCSERVICE_UPLOAD_KEY" in result.stderr
    assert "portal.E004" in result.stderr  # nor does it trust the service's signatures
    complete = {
        **PRODUCTION,
        "DOCSERVICE_URL": "https://ds.example.org",
        "DOCSERVICE_UPLOAD_KEY": "k" * 32,
        "DOCSERVICE_TRUSTED_KEYS": VERIFY_KEY,
    }
    result = manage("check", env=complete)
    assert result.returncode == 0, result.stderr


def test_a_standalone_document_service_needs_the_registrys_key():
    env = {**PRODUCTION, "ROOT_URLCONF": "docservice.standalone_urls"}
    result = manage("check", env=env)
    assert result.returncode != 0 and "portal.E004" in result.stderr
    assert manage("check", env={**env, "DOCSERVICE_TRUSTED_KEYS": VERIFY_KEY}).returncode == 0


def test_unreadable_signing_keys_stop_the_start():
    result = manage("check", env={**PRODUCTION, "DOCSERVICE_TRUSTED_KEYS": "not-hex"})
    assert result.returncode != 0 and "portal.E005" in result.stderr


def test_an_unusable_document_folder_stops_the_start(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = manage("check", env={**PRODUCTION, "DOCUMENTS_ROOT": str(blocker / "documents")})
    assert result.returncode != 0 and "portal.E006" in result.stderr
    usable = tmp_path / "documents"
    assert manage("check", env={**PRODUCTION, "DOCUMENTS_ROOT": str(usable)}).returncode == 0
    assert usable.is_dir()


def test_gunicorn_refuses_to_start_on_a_failing_check(tmp_path):
    environment = {
        key: value for key, value in os.environ.items() if key not in {"DATABASE_URL", "DEBUG"}
    }
    environment.update(PRODUCTION, DOCSERVICE_URL="https://ds.example.org")
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "portal.wsgi", "--bind", "127.0.0.1:0"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "portal.E003" in result.stderr


# (the mail worker closes the connection between passes, as a process of its own does: no
# transaction may wrap the test)
@pytest.mark.django_db(transaction=True)
def test_the_background_work_of_make_run_runs_in_one_process(api, clock, settings, mailoutbox):
    """`manage.py background`: the chronograph, the alerts and the mail worker; --once runs a
    pass of each in turn."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    tender = create_tender(api)
    clock.move_to(parse_iso(tender.read()["tenderPeriod"]["startDate"]) + timedelta(minutes=1))
    deliver.enqueue("Тема", "Текст", "<p>Текст</p>", ["someone@example.org"])
    assert mailoutbox == []
    out = io.StringIO()

    call_command("background", "--once", stdout=out)

    assert "chronograph: 1 tender(s) brought up to date" in out.getvalue()
    assert "alerts:" in out.getvalue()
    assert Tender.objects.get(pk=tender.id).status == TenderStatus.TENDERING
    assert [mail.subject for mail in mailoutbox] == ["Тема"]


def test_a_background_loop_that_failed_starts_again_on_a_new_connection(monkeypatch):
    """(the database restarted, say: the thread's broken connection is not used again)"""
    from portal.management.commands import background

    passes, closed = [], []

    def command(name, **options):
        passes.append(name)
        if len(passes) == 1:
            raise OperationalError("the connection is closed")
        raise KeyboardInterrupt  # (ends the loop the test runs)

    monkeypatch.setattr(background, "call_command", command)
    monkeypatch.setattr(background.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(background.connection, "close", lambda: closed.append(True))

    with pytest.raises(KeyboardInterrupt):
        background._keep_running("chronograph", 2.0)

    assert passes == ["chronograph", "chronograph"] and closed == [True]
