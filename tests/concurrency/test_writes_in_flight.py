"""One caller has at most API_CONCURRENT_WRITES writes being answered at once, counted in Redis
across gunicorn's workers: while two of a broker's writes are held in progress (the test holds
their tender's row), its third is refused 429 at once, and another broker's writes and
everyone's reads are answered as usual. No request outlives the statement timeout."""

import json
import threading

import pytest
from django.db import transaction

from tenders.models import Tender
from tests.helpers import basic, tender_data
from tests.served import call, gunicorn, waiting_for_locks

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

JSON = {"Content-Type": "application/json"}


@pytest.fixture
def served(redis, brokers, tmp_path):
    with gunicorn(
        tmp_path, workers=4, redis=redis, API_CONCURRENT_WRITES="2", STATEMENT_TIMEOUT_SECONDS="3"
    ) as base:
        yield base


def post_tender(base: str, key: str):
    body = json.dumps({"data": tender_data()}).encode()
    return call(
        f"{base}/api/2.3/tenders", method="POST", body=body, Authorization=basic(key), **JSON
    )


def patch(base: str, key: str, tender_id: str, token: str, title: str):
    body = json.dumps({"data": {"title": title}}).encode()
    return call(
        f"{base}/api/2.3/tenders/{tender_id}?acc_token={token}",
        method="PATCH",
        body=body,
        Authorization=basic(key),
        **JSON,
    )


def test_a_callers_third_write_at_once_waits_and_others_are_answered(served):
    status, _, body = post_tender(served, "broker")
    assert status == 201
    created = json.loads(body)
    tender_id, token = created["data"]["id"], created["access"]["token"]
    answers = []

    with transaction.atomic():
        Tender.objects.select_for_update().get(pk=tender_id)
        held = [
            threading.Thread(
                target=lambda n=n: answers.append(patch(served, "broker", tender_id, token, f"{n}"))
            )
            for n in range(2)
        ]
        for thread in held:
            thread.start()
        waiting_for_locks(2, "writes")

        third_status, third_headers, third_body = post_tender(served, "broker")
        other_status, _, _ = post_tender(served, "broker2")
        read_status, _, _ = call(f"{served}/api/2.3/tenders")

    for thread in held:
        thread.join()
    assert third_status == 429
    assert third_headers["Retry-After"] == "1"
    assert json.loads(third_body) == {
        "status": "error",
        "errors": [
            {
                "location": "request",
                "name": "rate",
                "description": "Too many requests in progress. Try again later.",
            }
        ],
    }
    assert other_status == 201 and read_status == 200
    assert sorted(status for status, _, _ in answers) == [200, 200]
    assert post_tender(served, "broker")[0] == 201  # its places were given back


def test_no_request_waits_past_the_statement_timeout(served):
    status, _, body = post_tender(served, "broker")
    created = json.loads(body)
    tender_id, token = created["data"]["id"], created["access"]["token"]

    with transaction.atomic():
        Tender.objects.select_for_update().get(pk=tender_id)
        # (without the timeout the write would wait for the row until gunicorn killed it)
        status, headers, body = patch(served, "broker", tender_id, token, "нова назва")

    assert status == 503
    assert json.loads(body)["errors"][0]["name"] == "database"
    assert "Retry-After" in headers
    read = json.loads(call(f"{served}/api/2.3/tenders/{tender_id}")[2])
    assert read["data"]["title"] == tender_data()["title"]
