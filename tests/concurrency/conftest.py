import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.test import Client

from tests.helpers import Api, Crawler, HeldOpen


@pytest.fixture(autouse=True)
def _racing(unbounded_writes):
    """These tests race many writes of one broker on purpose."""


def run_together(*calls):
    """Run the calls in threads released at the same moment; their results, in order."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def worker(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except BaseException as exc:  # reported to the test, never swallowed
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=pair) for pair in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


def run_racing_for(tender_id: str, *calls, while_waiting=None):
    """Run the calls while a third party holds the tender's row lock, and release it only once
    every call is waiting for it (after calling `while_waiting`, if given): they then race for
    the lock for certain, not by chance. Their results, in order."""
    from tenders.models import Tender

    return run_racing_holding(Tender, tender_id, *calls, while_waiting=while_waiting)


def run_racing_holding(model, pk: str, *calls, while_waiting=None):
    """run_racing_for, holding the lock of `model`'s row `pk`."""
    return run_racing_behind(
        lambda: model.objects.select_for_update().get(pk=pk), *calls, while_waiting=while_waiting
    )


def run_racing_behind(lock, *calls, while_waiting=None):
    """run_racing_for, a third party's transaction holding what `lock()` takes."""
    locked, release = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                lock()
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    locked.wait(10)
    outcome = {}
    racers = threading.Thread(target=lambda: outcome.setdefault("results", run_together(*calls)))
    racers.start()
    deadline = time.monotonic() + 20
    waiting = 0
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            waiting = cursor.fetchone()[0]
        if waiting >= len(calls):
            break
        time.sleep(0.02)
    if while_waiting is not None:
        while_waiting()
    release.set()
    holder.join()
    racers.join()
    assert waiting >= len(calls), f"only {waiting} of {len(calls)} calls waited for the lock"
    return outcome["results"]


@pytest.fixture
def fresh_api(brokers):
    """A new client per call: each thread talks to the API on its own connection."""

    def make(key="broker"):
        return Api(Client(), key=key)

    return make


def committed_out_of_stamp_order(clock, slow_change, fast_change, crawler: Crawler) -> list:
    """`slow_change()` is stamped first and its transaction held open while `fast_change()`,
    stamped a second later, commits; meanwhile the crawler, polling at the head, sees nothing,
    as neither has settled. Once the slow one commits and the watermark passes, what the
    crawler sees (each change's answer must be 200)."""
    slow = HeldOpen(slow_change)
    clock.advance(seconds=1)
    assert fast_change().status_code == 200  # a later stamp, committed first
    try:
        for _ in range(3):
            clock.advance(seconds=1)  # the slow writer still commits within the watermark
            assert crawler.poll() == []  # neither change has settled: nothing out of order
    finally:
        slow.commit()
    clock.advance(seconds=5)
    return crawler.poll()
