"""Who may knock how often in the portal: sign-in is locked after failures (per account name
and per address) without checking a password meanwhile; new accounts per address,
confirmation e-mails per account, invitations per organization and join requests per account
are limited. Each refusal is a message next to the form and changes nothing."""

import logging
import time
import uuid
from io import StringIO
from types import SimpleNamespace

import pytest
from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.core.cache import caches
from django.core.management import call_command
from django.urls import reverse

from core import limits
from core.limits import Rate, RateLimited, check, client_address, hit
from core.log_filters import MaskTokens
from portal.models import Invitation, JoinRequest, User
from tests.docservice.helpers import multipart
from tests.factories import PASSWORD, make_user, sign_up
from tests.helpers import basic
from tests.portal.forms import signup_form

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


def sign_in(client, username, password, address="203.0.113.7"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.fixture
def hashes(monkeypatch):
    """How many passwords were checked (the tests' hasher is MD5)."""
    checked = []
    original = MD5PasswordHasher.verify

    def verify(self, password, encoded):
        checked.append(password)
        return original(self, password, encoded)

    monkeypatch.setattr(MD5PasswordHasher, "verify", verify)
    return checked


# --- sign-in -------------------------------------------------------------------------------


def test_failures_for_one_account_lock_it_without_checking_passwords(client, settings, hashes):
    User.objects.create_user("olena", password=PASSWORD)
    for attempt in range(settings.LOGIN_FAILURE_LIMIT - 1):
        assert sign_in(client, "olena", "wrong", address=f"198.51.100.{attempt}").status_code == 200
    # The failure that reaches the limit is answered with the lockout.
    assert sign_in(client, "olena", "wrong", address="198.51.100.98").status_code == 429
    checked = len(hashes)

    locked = sign_in(client, "olena", PASSWORD, address="198.51.100.99")

    assert locked.status_code == 429 and not signed_in(client)
    assert int(locked["Retry-After"]) == settings.LOGIN_LOCKOUT_MINUTES * 60
    assert "Too many failed attempts" in locked.content.decode()
    assert len(hashes) == checked  # the right password was not even looked at


def test_failures_from_one_address_lock_it_for_every_account(client, settings):
    User.objects.create_user("olena", password=PASSWORD)
    for attempt in range(settings.LOGIN_FAILURE_LIMIT):
        sign_in(client, f"guess{attempt}", "wrong")

    assert sign_in(client, "olena", PASSWORD).status_code == 429
    assert not signed_in(client)
    assert sign_in(client, "olena", PASSWORD, address="192.0.2.1").status_code == 302


def test_the_lockout_ends_after_its_time(client, settings, clock):
    User.objects.create_user("olena", password=PASSWORD)
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        sign_in(client, "olena", "wrong")
    assert sign_in(client, "olena", PASSWORD).status_code == 429

    clock.advance(minutes=settings.LOGIN_LOCKOUT_MINUTES + 1)

    assert sign_in(client, "olena", PASSWORD).status_code == 302 and signed_in(client)


def test_a_successful_sign_in_is_not_held_up_and_forgets_the_accounts_failures(client, settings):
    User.objects.create_user("olena", password=PASSWORD)
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        sign_in(client, "olena", "wrong", address="192.0.2.1")
    assert sign_in(client, "olena", PASSWORD, address="192.0.2.1").status_code == 302
    client.logout()

    # From elsewhere: the account's count starts again (the first address keeps its own).
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        sign_in(client, "olena", "wrong", address="192.0.2.2")
    assert sign_in(client, "olena", PASSWORD, address="192.0.2.2").status_code == 302


def test_sign_ins_that_succeed_never_lock_their_address(client, settings):
    """Each attempt is counted before its password is checked; one that succeeds takes its
    count back, so an office signing in all day from one address is never locked."""
    User.objects.create_user("olena", password=PASSWORD)
    for _ in range(settings.LOGIN_FAILURE_LIMIT * 2):
        assert sign_in(client, "olena", PASSWORD).status_code == 302
        client.logout()
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        assert sign_in(client, "someone", "wrong").status_code == 200


def test_retrying_a_locked_account_does_not_lock_ones_own_address(client, settings):
    """Someone locks an account by failing on purpose; its owner, trying its right password
    meanwhile, checks no password, so its tries are no failures: once an operator unlocks the
    account, the owner signs in from the address it tried from."""
    User.objects.create_user("olena", password=PASSWORD)
    for attempt in range(settings.LOGIN_FAILURE_LIMIT):
        sign_in(client, "olena", "wrong", address=f"198.51.100.{attempt}")
    for _ in range(settings.LOGIN_FAILURE_LIMIT + 1):
        assert sign_in(client, "olena", PASSWORD, address="203.0.113.50").status_code == 429

    call_command("axes_reset_username", "olena")

    assert sign_in(client, "olena", PASSWORD, address="203.0.113.50").status_code == 302


def test_an_operator_unlocks_an_account_by_its_name(client, settings):
    User.objects.create_user("olena", password=PASSWORD)
    for attempt in range(settings.LOGIN_FAILURE_LIMIT):
        sign_in(client, "olena", "wrong", address=f"198.51.100.{attempt}")
    assert sign_in(client, "olena", PASSWORD).status_code == 429

    call_command("axes_reset_username", "olena")

    assert sign_in(client, "olena", PASSWORD).status_code == 302


def test_signing_in_to_ones_own_account_does_not_reset_the_addresss_count(client, settings):
    User.objects.create_user("mallory", password=PASSWORD)
    for guess in range(settings.LOGIN_FAILURE_LIMIT - 1):
        sign_in(client, f"victim{guess}", "guess")
    assert sign_in(client, "mallory", PASSWORD).status_code == 302
    client.logout()

    assert sign_in(client, "victim9", "guess").status_code == 429


def test_a_name_typed_as_an_address_does_not_count_against_that_address(client, settings):
    User.objects.create_user("olena", password=PASSWORD)
    for attempt in range(settings.LOGIN_FAILURE_LIMIT + 1):
        sign_in(client, "203.0.113.7", "wrong", address=f"198.51.100.{attempt}")

    assert sign_in(client, "olena", PASSWORD, address="203.0.113.7").status_code == 302


def test_sign_in_and_sign_up_work_while_the_cache_does_not_answer(
    client, settings, caplog, monkeypatch
):
    monkeypatch.setattr("core.limits._last_complaint", 0.0)  # not said in the last minute
    # The lockout handler keeps the cache it was made with (made now, if not yet, with the
    # working one): hand it the one that does not answer, for this test only.
    lockout = AxesProxyHandler.get_implementation()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
        }
    }
    monkeypatch.setattr(lockout, "cache", caches["default"])
    User.objects.create_user("olena", password=PASSWORD)
    for _ in range(settings.LOGIN_FAILURE_LIMIT + 1):
        assert sign_in(client, "olena", "wrong").status_code == 200

    assert sign_in(client, "olena", PASSWORD).status_code == 302
    client.logout()
    assert client.post(reverse("signup"), signup_form("newcomer", "2894512345")).status_code == 302
    assert "the cache does not answer" in caplog.text


# --- the portal's own limits ---------------------------------------------------------------


def test_new_accounts_from_one_address_are_limited(client, settings):
    settings.SIGNUP_RATE = "2/hour"
    made = [
        client.post(reverse("signup"), signup_form(name, "2894512345"), REMOTE_ADDR="192.0.2.5")
        for name in ("one", "two")
    ]
    client.logout()
    client.cookies["django_language"] = "en"
    refused = client.post(
        reverse("signup"), signup_form("three", "2894512345"), REMOTE_ADDR="192.0.2.5"
    )
    elsewhere = client.post(
        reverse("signup"), signup_form("four", "2894512345"), REMOTE_ADDR="192.0.2.6"
    )

    assert [response.status_code for response in made] == [302, 302]
    assert refused.status_code == 422
    assert "Too many new accounts from your address" in refused.content.decode()
    assert not User.objects.filter(username="three").exists()
    assert elsewhere.status_code == 302


def test_confirmation_links_are_sent_a_few_times_an_hour(
    as_user, settings, django_capture_on_commit_callbacks
):
    settings.CONFIRMATION_RESEND_RATE = "2/hour"
    user = User.objects.create_user("olena", email="olena@example.org")
    client = as_user(user)

    with django_capture_on_commit_callbacks(execute=True):
        answers = [client.post(reverse("confirm-email-again"), follow=True) for _ in range(3)]

    assert "We sent a new link" in answers[1].content.decode()
    assert "sent you several links already" in answers[2].content.decode()
    assert len(mail.outbox) == 2


def test_invitations_of_one_organization_are_limited(as_user, settings):
    settings.INVITATION_RATE = "2/day"
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    client = as_user(buyer)

    sent = [client.post(reverse("invite"), {"email": f"person{n}@example.org"}) for n in range(3)]

    assert [response.status_code for response in sent[:2]] == [302, 302]
    assert sent[2].status_code == 422
    assert "too many invitations" in sent[2].content.decode()
    assert Invitation.objects.count() == 2


def test_join_requests_of_one_account_are_limited(as_user, settings):
    settings.JOIN_REQUEST_RATE = "2/day"
    make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")
    client = as_user(olena)
    client.post(reverse("join-withdraw"))
    form = {
        "organization_name": "Лікарня",
        "organization_identifier": "01993913",
        "organization_kind": "procuring",
    }

    again = client.post(reverse("join"), form)
    client.post(reverse("join-withdraw"))
    refused = client.post(reverse("join"), form)

    assert again.status_code == 302
    assert refused.status_code == 422 and "asked to join too often" in refused.content.decode()
    assert JoinRequest.objects.filter(user=olena).count() == 2


# --- the counters themselves ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rate"),
    [("1200/minute", Rate(1200, 60)), ("5/hours", Rate(5, 3600)), (" 3 / day ", Rate(3, 86400))],
)
def test_rates_are_read_from_settings_text(text, rate):
    assert Rate.parse(text) == rate


@pytest.mark.parametrize("text", ["", "10", "ten/minute", "10/week", "-1/minute"])
def test_a_rate_that_cannot_be_read_is_an_error(text):
    with pytest.raises(ValueError, match="A rate is"):
        Rate.parse(text)


@pytest.mark.parametrize(
    ("remote", "address"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("203.0.113.9:51000", "203.0.113.9"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("[2001:db8:1:2:bbbb::7]:443", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.9", "203.0.113.9"),
        ("not an address", "unparsed:not an address"),
        ("", "unparsed:"),
    ],
)
def test_addresses_are_counted_by_what_one_caller_holds(rf, remote, address):
    assert client_address(rf.get("/", REMOTE_ADDR=remote)) == address


def test_the_address_behind_trusted_proxies(rf, settings):
    request = rf.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    assert client_address(request) == "10.0.0.1"
    settings.PROXY_COUNT = 1
    # The client may put anything in front; the proxy appends the address it saw.
    assert client_address(request) == "203.0.113.9"


def test_a_cache_that_does_not_answer_lets_requests_through(settings, caplog, monkeypatch):
    monkeypatch.setattr("core.limits._last_complaint", 0.0)  # not said in the last minute
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
        }
    }
    for _ in range(3):
        hit("test", "someone", Rate(1, 60))  # would refuse the second with a working cache
    assert "the cache does not answer" in caplog.text


def counting_in(backend: str, settings, request) -> None:
    """Count in `backend`: a Redis one on the real Redis, under a prefix of the test's own."""
    if "Redis" in backend:
        settings.CACHES = {
            "default": {
                "BACKEND": backend,
                "LOCATION": request.getfixturevalue("redis"),
                "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
            }
        }


@pytest.mark.parametrize(
    "backend",
    [
        "django.core.cache.backends.locmem.LocMemCache",
        "django.core.cache.backends.redis.RedisCache",
        "core.cache.SharedRedisCache",
    ],
)
def test_a_window_counts_every_knock_and_ends_with_its_time(settings, request, clock, backend):
    counting_in(backend, settings, request)
    rate = Rate(3, 60)
    for _ in range(3):
        hit("test", "someone", rate)
    check("test", "other", rate)  # another caller's window is its own

    with pytest.raises(RateLimited):
        check("test", "someone", rate)
    with pytest.raises(RateLimited) as refused:
        hit("test", "someone", rate)
    assert 0 < refused.value.retry_after <= 60
    if "Redis" in backend:  # the window's key goes with the window: nothing piles up
        shared = caches["default"]
        name = shared.make_and_validate_key(
            limits._key("test", "someone", rate, int(time.time() // 60))
        )
        assert shared.get(limits._key("test", "someone", rate, int(time.time() // 60))) == 4
        assert 0 < shared._cache.get_client(name).ttl(name) <= 61

    clock.advance(seconds=60)
    hit("test", "someone", rate)


@pytest.mark.parametrize(
    "backend",
    ["django.core.cache.backends.locmem.LocMemCache", "core.cache.SharedRedisCache"],
)
def test_a_caller_holds_so_many_places_at_once_and_gives_them_back(
    settings, request, clock, backend
):
    counting_in(backend, settings, request)
    with limits.one_of_at_most("test", "someone", 2, 60):
        with limits.one_of_at_most("test", "someone", 2, 60):
            with limits.one_of_at_most("test", "other", 2, 60):  # another's places are its own
                pass
            with (
                pytest.raises(limits.TooManyAtOnce) as refused,
                limits.one_of_at_most("test", "someone", 2, 60),
            ):
                pass
            assert refused.value.headers() == {"Retry-After": "1"}
        with limits.one_of_at_most("test", "someone", 2, 60):  # one was given back
            pass


@pytest.mark.parametrize(
    "backend",
    ["django.core.cache.backends.locmem.LocMemCache", "core.cache.SharedRedisCache"],
)
def test_a_place_never_given_back_is_free_after_its_lease(settings, request, clock, backend):
    counting_in(backend, settings, request)
    held = limits.one_of_at_most("test", "killed", 1, 60)
    held.__enter__()  # (its worker dies: never left)
    with pytest.raises(limits.TooManyAtOnce), limits.one_of_at_most("test", "killed", 1, 60):
        pass

    clock.advance(seconds=61)

    with limits.one_of_at_most("test", "killed", 1, 60):
        pass


def test_places_are_not_counted_while_the_cache_does_not_answer(settings, monkeypatch, caplog):
    monkeypatch.setattr("core.limits._last_complaint", 0.0)
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.SharedRedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
        }
    }
    entered = 0
    with (
        limits.one_of_at_most("test", "someone", 1, 60),
        limits.one_of_at_most("test", "someone", 1, 60),
    ):
        entered += 1

    assert entered == 1  # the second of "one at most" was let in: nothing counted it
    assert "the cache does not answer" in caplog.text


def test_a_rate_setting_that_cannot_be_read_stops_the_start(settings):
    from portal.checks import rates_are_readable

    assert rates_are_readable(None) == []
    settings.API_RATE_ANONYMOUS_READS = "100/min"
    [error] = rates_are_readable(None)
    assert error.id == "portal.E001" and "API_RATE_ANONYMOUS_READS" in error.msg


def test_a_proxy_in_front_needs_proxy_count(settings):
    from portal.checks import proxies_are_counted

    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    [warning] = proxies_are_counted(None)
    assert warning.id == "portal.W002"
    settings.PROXY_COUNT = 1
    assert proxies_are_counted(None) == []


# --- logs ----------------------------------------------------------------------------------


def test_the_development_servers_request_lines_mask_owner_tokens():
    logger = logging.getLogger("django.server")
    [handler] = [h for h in logger.handlers if any(isinstance(f, MaskTokens) for f in h.filters)]
    stream = StringIO()
    previous = handler.setStream(stream)
    try:
        logger.info(
            '"%s" %s %s',
            "GET /api/2.3/tenders/abc/complaints?acc_token=s3cret&x=1 HTTP/1.1",
            200,
            9,
        )
    finally:
        handler.setStream(previous)
    line = stream.getvalue()
    assert "s3cret" not in line and "acc_token=***&x=1" in line


@pytest.mark.parametrize(
    ("message", "args"),
    [
        ("Error handling request %s", (SimpleNamespace(__str__=None),)),
        ("GET %s", ("/api/2.3/tenders/abc?acc%5Ftoken=s3cret",)),
        ("%(method)s %(path)s", ({"method": "PATCH", "path": "/x?a=1;acc_token=s3cret"},)),
    ],
)
def test_tokens_are_masked_whatever_carries_them(message, args):
    class Url:
        def __str__(self):
            return "/api/2.3/tenders/abc?acc_token=s3cret"

    args = tuple(Url() if isinstance(arg, SimpleNamespace) else arg for arg in args)
    if len(args) == 1 and isinstance(args[0], dict):
        args = args[0]
    record = logging.LogRecord("x", logging.INFO, __file__, 1, message, args, None)

    assert MaskTokens().filter(record)
    assert "s3cret" not in record.getMessage() and "token=***" in record.getMessage()


def test_a_malformed_log_call_is_left_to_the_handler():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "%s and %s", ("one",), None)
    assert MaskTokens().filter(record)  # no exception: logging reports it as it always has


# --- bodies ---------------------------------------------------------------------------------


def test_a_large_body_from_a_caller_nobody_knows_is_refused_before_it_is_read(client, settings):
    settings.API_MAX_BODY_BYTES = 4096
    body, content_type = multipart("a.pdf", b"%PDF" + b"x" * 8192)
    answer = client.generic(
        "POST", reverse("login"), body, content_type=content_type, REMOTE_ADDR="203.0.113.7"
    )
    assert answer.status_code == 413
    page = answer.content.decode()  # a page in both languages (it was "Request Entity Too Large")
    assert "Надіслане разом більше за 1 МБ (стільки можна надіслати, не увійшовши)" in page
    assert "What you sent is more than 1 MB together" in page
    # A small form from the same caller is read as usual.
    assert sign_in(client, "nobody", "wrong").status_code == 200


def test_a_large_body_is_taken_from_a_broker_or_a_person_signed_in_up_to_the_bound(
    client, api, settings
):
    settings.API_MAX_BODY_BYTES = 4096
    settings.REQUEST_MAX_BYTES = 64 * 1024
    body, content_type = multipart("a.pdf", b"%PDF" + b"x" * 8192)
    assert (
        api.client.generic(
            "POST",
            "/ds/upload",
            body,
            content_type=content_type,
            HTTP_AUTHORIZATION=basic("broker"),
        ).status_code
        == 200
    )
    too_large, content_type = multipart("b.pdf", b"%PDF" + b"x" * 70_000)
    refused = api.client.generic(
        "POST",
        "/ds/upload",
        too_large,
        content_type=content_type,
        HTTP_AUTHORIZATION=basic("broker"),
    )
    assert refused.status_code == 413
    assert refused.json()["status"] == "error"
