"""The same status × action × actor walk over HTTP: each action is the PATCH body a 2.3 client
sends for it; refused cells assert the status code and the 2.3 description."""

import pytest

from complaints.models import Complaint
from tenders.models import AuditEvent
from tests.complaints.test_api import ANSWER
from tests.complaints.test_transitions import STATUSES
from tests.factories import decided_award, make_complaint
from tests.helpers import Api, error

pytestmark = pytest.mark.django_db

BODIES = {
    "edit": {"title": "Уточнена назва вимоги"},
    "submit": {"status": "claim"},
    "prepare_answer": {"resolution": "Чернетка відповіді"},
    "answer": ANSWER,
    "rate_answer": {"satisfied": False},
    "resolve": {"status": "resolved", "satisfied": True},
    "cancel": {"status": "cancelled", "cancellationReason": "Питання знято"},
}
ACTORS = ["claimant", "tender_owner", "other_bidder", "anonymous"]
# What each party may do, as 2.3 has it: (status, requested status, party).
MOVES = {
    ("draft", "draft", "claimant"),
    ("draft", "claim", "claimant"),
    ("claim", "claim", "tender_owner"),
    ("claim", "answered", "tender_owner"),
    ("answered", "answered", "claimant"),
    ("answered", "resolved", "claimant"),
    ("draft", "cancelled", "claimant"),
    ("claim", "cancelled", "claimant"),
    ("answered", "cancelled", "claimant"),
}
# Where a party may send a PATCH at all (2.3's roles); elsewhere it is "role" Forbidden.
PATCHING = {("draft", "claimant"), ("claim", "tender_owner"), ("answered", "claimant")}


def expected(status, body, who):
    if who in ("other_bidder", "anonymous"):
        return 403, {"location": "url", "name": "permission", "description": "Forbidden"}
    if status == "ignored":
        return 403, {
            "location": "body",
            "name": "data",
            "description": "Can't update complaint in current (cancelled) tender status",
        }
    if status not in ("draft", "claim", "answered"):
        return 403, {
            "location": "body",
            "name": "data",
            "description": f"Can't update complaint in current ({status}) status",
        }
    requested = body.get("status", status)
    if not ((who == "claimant" and requested == "cancelled") or (status, who) in PATCHING):
        return 403, {"location": "url", "name": "role", "description": "Forbidden"}
    if (status, requested, who) in MOVES:
        return 200, requested
    return 403, {"location": "body", "name": "data", "description": "Can't update complaint"}


@pytest.mark.parametrize(
    ("status", "action", "who"), [(s, a, w) for s in STATUSES for a in BODIES for w in ACTORS]
)
def test_http_cell(client, brokers, clock, status, action, who):
    world = decided_award(brokers, clock)
    complaint = make_complaint(world, status)
    key, token = {
        "claimant": ("broker2", world.complaint_tokens[complaint.pk]),
        "tender_owner": ("broker", world.tender_token),
        "other_bidder": ("broker2", world.bid_tokens[1]),
        "anonymous": (None, None),
    }[who]
    path = f"/tenders/{world.tender.pk}/awards/{world.award.pk}/complaints/{complaint.pk}"
    events = AuditEvent.objects.count()
    clock.advance(seconds=1)
    response = Api(client, key).patch(path, BODIES[action], token=token)
    code, outcome = expected(status, BODIES[action], who)
    assert response.status_code == code, response.content
    stored = Complaint.objects.get(pk=complaint.pk)
    if code == 200:
        data = response.json()["data"]
        assert data["status"] == stored.status == outcome
        assert AuditEvent.objects.count() - events <= 1
    else:
        assert error(response) == [outcome]
        assert stored.status == status and stored.date == complaint.date
        assert AuditEvent.objects.count() == events
