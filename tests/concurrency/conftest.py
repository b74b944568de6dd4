import threading

import pytest
from django.db import connection
from django.test import Client

from tests.helpers import Api


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


@pytest.fixture
def fresh_api(brokers):
    """A new client per call: each thread talks to the API on its own connection."""

    def make(key="broker"):
        return Api(Client(), key=key)

    return make
