"""Deadlines a day ahead (portal/reminders.py): an organization's members are e-mailed, once,
of what in its work queue is due within a day."""

import io
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from tests.factories import portal_world

pytestmark = pytest.mark.django_db


def reminders(capture) -> list:
    before = len(mail.outbox)
    with capture(execute=True):
        call_command("alerts", "--once", stdout=io.StringIO())
    return [sent for sent in mail.outbox[before:] if sent.subject.startswith("Due within a day")]


def test_a_bidder_is_reminded_once_of_a_claim_window_closing_within_a_day(
    brokers, clock, django_capture_on_commit_callbacks, settings
):
    settings.LANGUAGE_CODE = "en"
    world = portal_world(brokers, clock)
    end = world.award.complaint_period_end
    assert reminders(django_capture_on_commit_callbacks) == []  # two working days ahead

    clock.move_to(end - timedelta(hours=20))
    told = reminders(django_capture_on_commit_callbacks)
    again = reminders(django_capture_on_commit_callbacks)

    to = {address for sent in told for address in sent.to}
    assert to == {"bidder@example.org", "bidder2@example.org"}  # the winner is a broker's
    body = " ".join(told[0].body.split())
    assert "A decision you may file a claim against: ПП «Чисто» chosen as the winner" in body
    assert world.tender.tender_id in body
    link = settings.SITE_URL + reverse("tender", args=[world.tender.pk])
    assert f"{link}#award-{world.award.pk}" in body
    assert again == []
    # The buyer's contract is no deadline: nothing for it.
    assert "buyer@example.org" not in to


def test_the_buyer_is_reminded_of_a_claim_to_answer(
    brokers, clock, django_capture_on_commit_callbacks, settings
):
    settings.LANGUAGE_CODE = "en"
    world = portal_world(brokers, clock)
    claim = world.claim()
    clock.move_to(world.award.complaint_period_end - timedelta(hours=3))

    told = reminders(django_capture_on_commit_callbacks)

    [buyers] = [sent for sent in told if sent.to == ["buyer@example.org"]]
    assert f"Answer the claim: {claim.title} ({claim.complaint_id})" in " ".join(
        buyers.body.split()
    )


def test_the_buyer_is_reminded_of_a_decision_the_law_expects_within_a_day(
    brokers, clock, django_capture_on_commit_callbacks, settings
):
    settings.LANGUAGE_CODE = "en"
    world = portal_world(brokers, clock, decision="")
    due = world.award.decision_due
    assert reminders(django_capture_on_commit_callbacks) == []  # five working days ahead

    clock.move_to(due - timedelta(hours=5))
    [told] = [s for s in reminders(django_capture_on_commit_callbacks) if s.to == [
        "buyer@example.org"]]  # fmt: skip

    body = " ".join(told.body.split())
    assert "Decide on the bid of ПП «Чисто»" in body
    assert f"by {timezone.localtime(due):%d.%m.%Y %H:%M}: the law gives 5 working days" in body
