"""One operation, two faces: the same transition made through the portal and through the API
leaves the same rows and the same audit events (apart from who made it)."""

import pytest
from django.urls import reverse

from core.actors import Actor, Role
from tenders.models import AuditEvent, Tender
from tests.factories import make_user, tendering_closed

pytestmark = pytest.mark.django_db


def state(tender: Tender, since) -> dict:
    tender = Tender.objects.current(tender.pk, viewer=None)
    award = tender.awards.get(number=1)
    return {
        "tender": (tender.status, tender.date, tender.award_period_end),
        "awards": [
            (a.number, a.status, a.date, a.complaint_period_start, a.complaint_period_end)
            for a in tender.awards.all()
        ],
        # (the items are the tender's own, with their own ids)
        "contracts": [
            (c.status, c.date, c.date_signed, {**c.data, "items": len(c.data["items"])})
            for c in award.contracts.all()
        ],
        "events": [
            (e.subject_type, e.action, e.from_status, e.to_status, e.at)
            for e in AuditEvent.objects.filter(tender=tender, at__gte=since)
        ],
    }


@pytest.mark.parametrize(
    ("action", "status"), [("activate", "active"), ("disqualify", "unsuccessful")]
)
def test_an_award_decision_is_the_same_in_both_faces(action, status, brokers, clock, client, api):
    buyer = make_user("buyer", "Лікарня №3", "01993913", "procuring")
    start = clock.now()
    # The same moments for both tenders, so that their rows can be compared.
    in_portal, *_ = tendering_closed(Actor(Role.AUTHENTICATED, user=buyer), brokers, clock)
    clock.move_to(start)
    in_api, token, *_ = tendering_closed(
        Actor(Role.AUTHENTICATED, broker=brokers["broker"]), brokers, clock
    )
    clock.advance(minutes=5)
    decided = clock.now()

    client.force_login(buyer)
    award = in_portal.awards.get()
    reason = {"reason": "Немає ліцензії"} if action == "disqualify" else {}
    response = client.post(
        reverse("award-decision", args=[in_portal.pk, award.pk]),
        {"once": "p" * 32, "action": action, **reason},
    )
    assert response.status_code == 302
    award = in_api.awards.get()
    patch = {"status": status, **({"description": reason["reason"]} if reason else {})}
    response = api.patch(f"/tenders/{in_api.pk}/awards/{award.pk}", patch, token=token)
    assert response.status_code == 200

    portal_state, api_state = state(in_portal, decided), state(in_api, decided)
    assert portal_state == api_state
    assert (action, "pending", status) in {
        (e[1], e[2], e[3]) for e in portal_state["events"] if e[0] == "award"
    }
    actors = {
        face: set(
            AuditEvent.objects.filter(
                tender=t, at__gte=decided, subject_type="award", action=action
            ).values_list("actor_role", "actor_name")
        )
        for face, t in (("portal", in_portal), ("api", in_api))
    }
    assert actors == {"portal": {("tender_owner", "buyer")}, "api": {("tender_owner", "broker")}}
