"""Runners of the followers' mail beside each other and beside the tender's writes, on
PostgreSQL: every change is told once, never twice, and a change still committing while a
runner reads the trail is told by the next pass."""

import threading

import pytest
from django.core import mail
from django.db import connections, transaction
from django.utils import timezone

from portal import watch
from portal.models import Follow
from tests.concurrency.conftest import run_together
from tests.factories import sign_up
from tests.portal.follows import ask_and_answer, buyer_and_watcher, follow, published

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def in_thread(body):
    """Run `body(started, release)` in a thread of its own; returns (started, release, done)."""
    started, release, done = threading.Event(), threading.Event(), threading.Event()

    def run():
        try:
            body(started, release)
        finally:
            connections.close_all()
            done.set()

    threading.Thread(target=run).start()
    assert started.wait(10)
    return started, release, done


def test_two_runners_at_once_tell_each_follower_each_change_once(brokers, clock):
    buyer, first = buyer_and_watcher()
    tender = published(buyer, clock)
    watchers = [first, *(sign_up(f"watcher{n}") for n in range(4))]
    for watcher in watchers:
        follow(watcher, tender, clock)

    for round_ in range(3):
        ask_and_answer(tender, buyer, brokers["broker2"], title=f"Питання {round_}")
        mail.outbox.clear()  # (the buyer's notice of the question)

        sent = run_together(*(lambda: watch.send_due(timezone.now()) for _ in range(2)))

        assert sum(sent) == len(watchers)
        assert sorted(message.to[0] for message in mail.outbox) == sorted(
            watcher.email for watcher in watchers
        )
        assert watch.send_due(timezone.now()) == 0


def test_a_follow_another_runner_holds_is_skipped_without_waiting(brokers, clock):
    buyer, watcher = buyer_and_watcher()
    tender = published(buyer, clock)
    following = follow(watcher, tender, clock)
    ask_and_answer(tender, buyer, brokers["broker2"])

    def hold(started, release):
        with transaction.atomic():
            Follow.objects.select_for_update().get(pk=following.pk)
            started.set()
            release.wait(30)

    _started, release, done = in_thread(hold)
    try:
        assert watch.send_due(timezone.now()) == 0
    finally:
        release.set()
        done.wait(10)
    assert watch.send_due(timezone.now()) == 1
    assert watch.send_due(timezone.now()) == 0


def test_a_change_committing_while_the_trail_is_read_is_told_by_the_next_pass(brokers, clock):
    buyer, watcher = buyer_and_watcher()
    tender = published(buyer, clock)
    follow(watcher, tender, clock)

    def answer_slowly(started, release):
        with transaction.atomic():
            ask_and_answer(tender, buyer, brokers["broker2"], title="Повільне питання")
            started.set()
            release.wait(30)

    _started, release, done = in_thread(answer_slowly)
    try:
        assert watch.send_due(timezone.now()) == 0
    finally:
        release.set()
        done.wait(10)
    mail.outbox.clear()
    assert watch.send_due(timezone.now()) == 1
    assert "Повільне питання" in mail.outbox[0].body
