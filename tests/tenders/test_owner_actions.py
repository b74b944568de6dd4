"""What a tender's owner may do to it, and when: the rules the portal's buttons come from."""

from datetime import timedelta

import pytest

from core.actors import Actor, Role
from core.errors import NotAllowed, PermissionDenied
from portal.models import User
from tenders.models import AuditEvent, Tender
from tenders.models.tender_errors import NotProcuringEntity
from tests.factories import make_user
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня", "01993913", "procuring")


def draft(buyer, clock) -> tuple[Tender, Actor]:
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), status="draft")
    )
    return tender, Actor(Role.TENDER_OWNER, user=buyer, subject=tender)


LOT_CHANGES = ["add_lot", "update_lot", "delete_lot"]


def test_owner_actions_follow_the_status(buyer, clock):
    tender, owner = draft(buyer, clock)
    seen = {"draft": tender.available_actions(owner)}
    tender.publish(by=owner)
    seen["active.enquiries"] = tender.available_actions(owner)
    clock.move_to(tender.tender_start + timedelta(minutes=1))
    tender = Tender.objects.current(tender.pk, viewer=None)
    seen["active.tendering"] = tender.available_actions(owner)
    tender.add_cancellation(by=owner, data={"reason": "Потреба відпала", "status": "active"})
    seen["cancelled"] = tender.available_actions(owner)

    assert seen == {
        "draft": [
            "publish",
            "rewrite_draft",
            "add_document",
            "update_document",
            *LOT_CHANGES,
            "cancel",
        ],
        "active.enquiries": [
            "edit",
            "amend",
            "add_document",
            "update_document",
            *LOT_CHANGES,
            "update_question",
            "cancel",
        ],
        "active.tendering": ["edit", "cancel"],
        "cancelled": [],
    }


def test_others_may_do_nothing_to_the_tender(buyer, clock):
    tender, _owner = draft(buyer, clock)
    colleague_elsewhere = make_user("other", "Інша лікарня", "01993914", "procuring")

    assert tender.available_actions(Actor(Role.AUTHENTICATED, user=colleague_elsewhere)) == []
    assert tender.available_actions(Actor.anonymous()) == []
    with pytest.raises(PermissionDenied):
        tender.publish(by=Actor(Role.AUTHENTICATED, user=colleague_elsewhere))


def test_publishing_is_once_and_recorded(buyer, clock):
    tender, owner = draft(buyer, clock)
    tender.publish(by=owner)

    with pytest.raises(NotAllowed, match=r"current \(active.enquiries\) status"):
        tender.publish(by=owner)
    events = AuditEvent.objects.filter(subject_id=tender.pk, action="publish")
    assert [(e.from_status, e.to_status) for e in events] == [("draft", "active.enquiries")]


@pytest.mark.parametrize("kind", ["bidder", None])
def test_only_a_procuring_entitys_account_registers_tenders(clock, kind):
    if kind:
        user = make_user("someone", "ТОВ «Постачальник»", "38012345", kind)
    else:
        user = User.objects.create_user("someone")

    with pytest.raises(NotProcuringEntity):
        Tender.objects.register(
            by=Actor(Role.AUTHENTICATED, user=user), data=tender_data(clock.now())
        )
    assert not Tender.objects.exists()


def test_a_broker_registers_tenders_without_an_account(brokers, clock):
    tender, token = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]), data=tender_data(clock.now())
    )

    assert tender.broker == brokers["broker"] and tender.organization is None and token
