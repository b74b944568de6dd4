"""Wrong passwords sent at the same moment cannot buy more password hashes than the lockout
allows: each attempt is counted before its password is checked. Real threads, each with its
own database connection, counting in a real Redis."""

import threading
import time
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from portal.models import User
from tests.factories import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ATTEMPTS = 8


@pytest.fixture
def shared_counts(settings, redis):
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.SharedRedisCache",
            "LOCATION": redis,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
        }
    }


class HeldHashes:
    """Every password hash made (a password checked, or a made-up account's password hashed
    to take the same time), each held until the test lets them all go: attempts that reach a
    hash are all in it at once, as on a busy server."""

    def __init__(self, monkeypatch):
        self.made, self.released = [], threading.Event()
        lock = threading.Lock()
        for method in ("check_password", "set_password"):
            original = getattr(User, method)

            def held(user, password, _original=original):
                with lock:
                    self.made.append(password)
                self.released.wait(10)
                return _original(user, password)

            monkeypatch.setattr(User, method, held)


def flood(held: HeldHashes, attempts: list[tuple[str, str]]) -> list[int]:
    """Send the sign-ins (account name, address) at once; once each is either hashing or
    answered, let the hashes finish. The answers' statuses."""
    statuses, barrier = [], threading.Barrier(len(attempts))

    def attempt(name: str, address: str) -> None:
        barrier.wait()
        answer = Client().post(
            reverse("login"), {"username": name, "password": "wrong"}, REMOTE_ADDR=address
        )
        statuses.append(answer.status_code)

    threads = [threading.Thread(target=attempt, args=pair) for pair in attempts]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    while len(held.made) + len(statuses) < len(attempts) and time.monotonic() < deadline:
        time.sleep(0.01)
    held.released.set()
    for thread in threads:
        thread.join()
    return sorted(statuses)


@pytest.fixture
def held(monkeypatch, shared_counts):
    User.objects.create_user("olena", password=PASSWORD)
    return HeldHashes(monkeypatch)


def test_concurrent_wrong_passwords_for_one_account_make_no_more_hashes_than_the_limit(
    held, settings
):
    limit = settings.LOGIN_FAILURE_LIMIT

    statuses = flood(held, [("olena", f"198.51.100.{n}") for n in range(ATTEMPTS)])

    assert len(held.made) == limit
    # Each failure below the limit shows the form again; the one reaching it, and every one
    # past it (never checked), the lockout.
    assert statuses == [200] * (limit - 1) + [429] * (ATTEMPTS - limit + 1)


def test_concurrent_guesses_from_one_address_make_no_more_hashes_than_the_limit(held, settings):
    limit = settings.LOGIN_FAILURE_LIMIT

    statuses = flood(held, [(f"guess{n}", "203.0.113.7") for n in range(ATTEMPTS)])

    assert len(held.made) == limit
    assert statuses == [200] * (limit - 1) + [429] * (ATTEMPTS - limit + 1)
