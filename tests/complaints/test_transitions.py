"""The claim status machine, cell by cell: every status × action × actor.

Allowed cells assert the new status, the dates set and exactly one audit event; refused cells
assert the error (kind, code) and that nothing changed.
"""

from datetime import timedelta

import pytest

from complaints.models import TRANSITIONS, Complaint, ComplaintStatus
from core.errors import InvalidData, NotAllowed, PermissionDenied, RoleNotAllowed
from tenders.models import AuditEvent
from tests.factories import RESOLUTION, decided_award, make_complaint
from tests.helpers import organization

pytestmark = pytest.mark.django_db

STATUSES = ["draft", "claim", "answered", "resolved", "cancelled", "invalid", "declined", "ignored"]
ACTORS = ["claimant", "tender_owner", "other_bidder", "anonymous"]

# Arguments that make each action valid when it is allowed.
ARGUMENTS = {
    "edit": {"title": "Уточнена назва вимоги"},
    "submit": {},
    "prepare_answer": {"resolution": "Чернетка відповіді"},
    "answer": {
        "resolution": RESOLUTION,
        "resolution_type": "resolved",
        "tenderer_action": "Виправлено",
    },
    "rate_answer": {"satisfied": False},
    "resolve": {"satisfied": True},
    "cancel": {"reason": "Питання знято"},
}

# (status, action, actor) -> the status it leads to. Every other cell is refused.
ALLOWED = {
    ("draft", "edit", "claimant"): "draft",
    ("draft", "submit", "claimant"): "claim",
    ("draft", "cancel", "claimant"): "cancelled",
    ("claim", "cancel", "claimant"): "cancelled",
    ("claim", "prepare_answer", "tender_owner"): "claim",
    ("claim", "answer", "tender_owner"): "answered",
    ("answered", "rate_answer", "claimant"): "answered",
    ("answered", "resolve", "claimant"): "resolved",
    ("answered", "cancel", "claimant"): "cancelled",
}
# The date each allowed action sets, besides `date`.
DATES = {
    "submit": ["date_submitted"],
    "answer": ["date_answered", "tenderer_action_date"],
    "cancel": ["date_canceled"],
}


def expected_refusal(status, action, actor):
    """(error class, description) for a refused cell, as 2.3 words it."""
    if actor in ("other_bidder", "anonymous"):
        return PermissionDenied, "Forbidden"
    if status == "ignored":  # the tender was cancelled
        return NotAllowed, "Can't update complaint in current (cancelled) tender status"
    if status not in ("draft", "claim", "answered"):
        return NotAllowed, f"Can't update complaint in current ({status}) status"
    owner_actions = {"prepare_answer", "answer"}
    if (actor == "tender_owner") != (action in owner_actions):
        return RoleNotAllowed, "Forbidden"
    return NotAllowed, "Can't update complaint"


@pytest.fixture
def decided(brokers, clock):
    return decided_award(brokers, clock)


def actor(decided, complaint, who):
    from core.actors import Actor

    return {
        "claimant": decided.claimant(complaint),
        "tender_owner": decided.owner,
        "other_bidder": decided.bidders[1],
        "anonymous": Actor.anonymous(),
    }[who]


CELLS = [(s, a, who) for s in STATUSES for a in ARGUMENTS for who in ACTORS]


@pytest.mark.parametrize(("status", "action", "who"), CELLS)
def test_cell(decided, status, action, who):
    complaint = make_complaint(decided, status)
    assert complaint.status == status
    events = AuditEvent.objects.count()
    decided.clock.advance(seconds=1)
    before = {
        field.attname: getattr(complaint, field.attname)
        for field in Complaint._meta.concrete_fields
    }
    method = getattr(complaint, action)
    target = ALLOWED.get((status, action, who))
    if target is None:
        error, description = expected_refusal(status, action, who)
        with pytest.raises(error) as raised:
            method(by=actor(decided, complaint, who), **ARGUMENTS[action])
        assert raised.value.description == description
        after = Complaint.objects.get(pk=complaint.pk)
        assert {
            f.attname: getattr(after, f.attname) for f in Complaint._meta.concrete_fields
        } == before
        assert AuditEvent.objects.count() == events
        return
    method(by=actor(decided, complaint, who), **ARGUMENTS[action])
    after = Complaint.objects.get(pk=complaint.pk)
    now = decided.clock.now()
    assert after.status == target
    assert after.date == now
    for date in DATES.get(action, []):
        assert getattr(after, date) == now
    [event] = AuditEvent.objects.order_by("-id")[: AuditEvent.objects.count() - events]
    assert (event.action, event.from_status, event.to_status, event.subject_id) == (
        action,
        status,
        target,
        complaint.pk,
    )
    assert event.at == now


def test_every_refusal_has_its_reason_and_every_allowed_cell_is_in_the_table():
    for (status, action, who), target in ALLOWED.items():
        sources, targets, role, _picked_by = TRANSITIONS[action]
        assert status in sources and targets == {target}
        assert str(role) == {"claimant": "complaint_owner", "tender_owner": "tender_owner"}[who]


def test_table_is_the_2_3_claim_diagram():
    """OPA docs/source/complaints.rst: draft -> claim -> answered -> resolved; draft, claim and
    answered may be cancelled by the claimant; time turns answered into the resolution type and
    unanswered claims into ignored."""
    edges = {
        (source, target, str(role))
        for action, (sources, targets, role, _picked_by) in TRANSITIONS.items()
        for source in sources
        for target in targets
        if source != target
    }
    assert edges == {
        # filing ("": the claim is not saved yet), as a draft or submitted at once
        ("", "draft", "complaint_owner"),
        ("", "claim", "complaint_owner"),
        ("draft", "claim", "complaint_owner"),
        ("claim", "answered", "tender_owner"),
        ("answered", "resolved", "complaint_owner"),
        ("draft", "cancelled", "complaint_owner"),
        ("claim", "cancelled", "complaint_owner"),
        ("answered", "cancelled", "complaint_owner"),
        # (to the answer's resolutionType)
        ("answered", "invalid", "system"),
        ("answered", "resolved", "system"),
        ("answered", "declined", "system"),
        ("claim", "ignored", "system"),
        ("draft", "cancelled", "system"),
        ("claim", "cancelled", "system"),
        ("answered", "cancelled", "system"),
    }
    assert set(ComplaintStatus.values) == set(STATUSES)


def test_available_actions_are_the_allowed_cells(decided):
    for status in ("draft", "claim", "answered", "resolved"):
        complaint = make_complaint(decided, status)
        for who in ACTORS:
            expected = sorted(a for (s, a, w) in ALLOWED if s == status and w == who)
            assert (
                sorted(complaint.available_actions(actor(decided, complaint, who))) == expected
            ), (
                status,
                who,
            )


def test_answer_needs_a_resolution_type(decided):
    complaint = make_complaint(decided, "claim")
    with pytest.raises(InvalidData) as raised:
        complaint.answer(by=decided.owner, resolution=RESOLUTION)
    assert raised.value.errors == {"resolutionType": ["This field is required."]}
    assert Complaint.objects.get(pk=complaint.pk).status == "claim"


def test_answer_with_a_short_resolution_is_refused(decided):
    complaint = make_complaint(decided, "claim")
    with pytest.raises(NotAllowed) as raised:
        complaint.answer(by=decided.owner, resolution="Відмовлено.", resolution_type="declined")
    assert (raised.value.description, raised.value.code, raised.value.field) == (
        "Can't update complaint",
        "resolution_too_short",
        "resolution",
    )


def test_prepared_answer_counts_when_answering(decided):
    complaint = make_complaint(decided, "claim")
    complaint.prepare_answer(by=decided.owner, resolution=RESOLUTION, resolution_type="invalid")
    assert Complaint.objects.get(pk=complaint.pk).status == "claim"
    complaint.answer(by=decided.owner)
    after = Complaint.objects.get(pk=complaint.pk)
    assert (after.status, after.resolution, after.resolution_type) == (
        "answered",
        RESOLUTION,
        "invalid",
    )
    assert after.tenderer_action_date is None


def test_satisfied_may_be_recorded_first_and_used_to_close(decided):
    complaint = make_complaint(decided, "answered")
    claimant = decided.claimant(complaint)
    complaint.rate_answer(by=claimant, satisfied=False)
    assert Complaint.objects.get(pk=complaint.pk).satisfied is False
    complaint.resolve(by=claimant)
    after = Complaint.objects.get(pk=complaint.pk)
    assert (after.status, after.satisfied) == ("resolved", False)


def test_resolve_without_a_verdict_is_refused(decided):
    complaint = make_complaint(decided, "answered")
    with pytest.raises(InvalidData) as raised:
        complaint.resolve(by=decided.claimant(complaint))
    assert raised.value.errors == {"satisfied": ["This field is required."]}


def test_cancel_needs_a_reason(decided):
    complaint = make_complaint(decided, "draft")
    with pytest.raises(InvalidData) as raised:
        complaint.cancel(by=decided.claimant(complaint), reason="")
    assert raised.value.errors == {"cancellationReason": ["This field is required."]}


def test_edit_that_changes_nothing_keeps_the_date(decided):
    complaint = make_complaint(decided, "draft")
    decided.clock.advance(seconds=5)
    complaint.edit(by=decided.claimant(complaint), title=complaint.title, author=organization())
    assert Complaint.objects.get(pk=complaint.pk).date == complaint.date


def test_draft_cannot_be_submitted_after_the_complaint_period(decided):
    complaint = make_complaint(decided, "draft")
    decided.clock.move_to(decided.award.complaint_period_end + timedelta(seconds=1))
    with pytest.raises(NotAllowed) as raised:
        complaint.submit(by=decided.claimant(complaint))
    assert raised.value.description == "Can update complaint only in complaintPeriod"
    # ...but it may still be cancelled.
    complaint.cancel(by=decided.claimant(complaint), reason="Строк минув")
    assert Complaint.objects.get(pk=complaint.pk).status == "cancelled"


def test_a_change_that_finds_its_claim_closed_by_time_meanwhile_is_refused(decided):
    """The claimant acts on the answered claim it holds, after the time to close it passed:
    the change first applies what time did (the claim took its resolution type, gathered to
    be written with the change) and reads the claim as that left it, not as the database
    still has it."""
    complaint = make_complaint(decided, "answered")
    decided.clock.move_to(complaint.closes_at + timedelta(seconds=1))

    with pytest.raises(NotAllowed) as raised:
        complaint.resolve(by=decided.claimant(complaint), satisfied=True)

    assert raised.value.description == "Can't update complaint in current (resolved) status"
    decided.refresh()
    stored = Complaint.objects.get(pk=complaint.pk)
    assert (stored.status, stored.satisfied) == ("resolved", None)
    assert list(
        AuditEvent.objects.filter(subject_id=complaint.pk).values_list("action", flat=True)
    ) == ["file", "answer", "expire"]
