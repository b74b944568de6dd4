"""Two parties acting on one claim at the same moment, on PostgreSQL: exactly one wins."""

import pytest
from django.test import Client

from complaints.models import Complaint
from tenders.models import AuditEvent
from tests.concurrency.conftest import run_racing_for, run_together
from tests.helpers import ANSWER, CLAIM, Api, Claims

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("unbounded_writes"),
]


def fresh(key):
    return Api(Client(), key=key)


def test_answer_and_cancel_at_once_leave_one_consistent_outcome(brokers, clock):
    claims = Claims(fresh("broker"), fresh("broker2"), clock)
    for _ in range(10):
        claim, token = claims.filed(status="claim")
        path = f"{claims.path}/{claim['id']}"
        answer, cancel = run_racing_for(
            claims.tender.id,
            lambda path=path: fresh("broker").patch(path, ANSWER, token=claims.tender.token),
            lambda path=path, token=token: fresh("broker2").patch(
                path, {"status": "cancelled", "cancellationReason": "знято"}, token=token
            ),
        )
        assert {answer.status_code, cancel.status_code} <= {200, 403}, (
            answer.content,
            cancel.content,
        )
        stored = Complaint.objects.get(pk=claim["id"])
        events = list(
            AuditEvent.objects.filter(subject_id=claim["id"]).values_list("action", flat=True)
        )
        if answer.status_code == 200 and cancel.status_code == 200:
            # The answer came first; cancelling an answered claim is allowed.
            assert stored.status == "cancelled" and stored.date_answered and stored.date_canceled
            assert events == ["file", "answer", "cancel"]
        elif answer.status_code == 200:
            assert stored.status == "answered" and stored.date_canceled is None
            assert events == ["file", "answer"]
        else:
            assert cancel.status_code == 200
            assert (
                answer.json()["errors"][0]["description"]
                == "Can't update complaint in current (cancelled) status"
            )
            assert (
                stored.status == "cancelled"
                and stored.date_answered is None
                and not stored.resolution
            )
            assert events == ["file", "cancel"]


def test_parallel_claims_get_unique_consecutive_numbers(brokers, clock):
    claims = Claims(fresh("broker"), fresh("broker2"), clock)
    responses = run_together(
        *[lambda: fresh("broker2").post(claims.path, CLAIM, token=claims.bid_token)] * 8
    )
    assert [r.status_code for r in responses] == [201] * 8
    numbers = sorted(int(r.json()["data"]["complaintID"].rsplit(".", 1)[1]) for r in responses)
    assert numbers == list(range(1, 9))
