"""The same status × action × actor walk over HTTP: each action is the PATCH body a 2.3 client
sends for it; refused cells assert the status code and the 2.3 description."""

import pytest

from complaints.models import Complaint, ComplaintStatus
from core.schema import iso
from tenders.models import AuditEvent
from tests.factories import decided_award, make_complaint
from tests.helpers import ANSWER, Api, error

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
# The transition an allowed cell performs: (status, action) -> model method, and the dates it
# sets to the moment of the request (`date` always moves with a change).
PERFORMED = {
    ("draft", "edit"): "edit",
    ("draft", "submit"): "submit",
    ("draft", "cancel"): "cancel",
    ("claim", "prepare_answer"): "prepare_answer",
    ("claim", "answer"): "answer",
    ("claim", "cancel"): "cancel",
    ("answered", "rate_answer"): "rate_answer",
    ("answered", "resolve"): "resolve",
    ("answered", "cancel"): "cancel",
}
DATES_SET = {
    "edit": {"date"},
    "submit": {"date", "dateSubmitted"},
    "prepare_answer": {"date"},  # its body has no tendererAction, so no tendererActionDate
    "answer": {"date", "dateAnswered", "tendererActionDate"},
    "rate_answer": {"date"},
    "resolve": {"date"},
    "cancel": {"date", "dateCanceled"},
}
DATES = ("date", "dateSubmitted", "dateAnswered", "tendererActionDate", "dateCanceled")
# Allowed cells that change nothing, hence no audit event and no date moved. The body asks for
# the status the claim already has, or for none, and carries only fields of another party's
# action (2.3 clients send back what they read, and a PATCH ignores what its own transition
# does not take): the party's own transition in that status - the claimant's edit of a draft
# or rating of an answer, the owner's draft answer - then has nothing new to record.
UNCHANGED = {
    ("draft", "prepare_answer"),
    ("draft", "rate_answer"),
    ("claim", "edit"),
    ("claim", "submit"),  # {"status": "claim"} from the owner: the same status again
    ("claim", "rate_answer"),
    ("answered", "edit"),
    ("answered", "prepare_answer"),
    ("answered", "answer"),  # {"status": "answered", ...} from the claimant: the same again
}


# A claim never submitted (a draft, or the cells' "cancelled": a draft withdrawn) is its
# author's alone: others (but its own broker, by the key) do not find it.
NOT_FOUND = {"location": "url", "name": "complaint_id", "description": "Not Found"}


def expected(status, body, who):
    if status in ("draft", "cancelled") and who in ("tender_owner", "anonymous"):
        return 404, NOT_FOUND
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
    ("status", "action", "who"),
    [(s, a, w) for s in list(ComplaintStatus.values) for a in BODIES for w in ACTORS],
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
    # The claim as its author reads it (it sees its draft, not an answer still unsent).
    claimant = Api(client, "broker2")
    claimant_token = world.complaint_tokens[complaint.pk]
    before = claimant.get(path, token=claimant_token).json()["data"]
    events = AuditEvent.objects.count()
    clock.advance(seconds=1)
    now = iso(clock.now())
    response = Api(client, key).patch(path, BODIES[action], token=token)
    code, outcome = expected(status, BODIES[action], who)
    assert response.status_code == code, response.content
    stored = Complaint.objects.get(pk=complaint.pk)
    after = claimant.get(path, token=claimant_token).json()["data"]
    if code != 200:
        assert error(response) == [outcome]
        assert stored.status == status and stored.date == complaint.date
        assert after == before
        assert AuditEvent.objects.count() == events
        return
    data = response.json()["data"]
    assert data == Api(client, key).get(path, token=token).json()["data"]
    assert data["status"] == after["status"] == stored.status == outcome
    new_events = list(AuditEvent.objects.order_by("id")[events:])
    if (status, action) in UNCHANGED:
        assert after == before and new_events == []
        return
    performed = PERFORMED[(status, action)]
    assert [(e.action, e.subject_id, e.from_status, e.to_status, e.at) for e in new_events] == [
        (performed, complaint.pk, status, outcome, clock.now())
    ]
    assert {name: after.get(name) for name in DATES} == {
        name: now if name in DATES_SET[performed] else before.get(name) for name in DATES
    }
    assert before["date"] != now  # `date` moved
