"""The tender owner's decisions on the tender page: choose or disqualify the bid, take a
decision back, sign the contract when the model allows it, refusals in the API's words."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from complaints.models import Complaint
from core.actors import Actor, Role
from core.words import moment
from tenders.models import Award
from tests.factories import RESOLUTION, portal_world
from tests.portal.forms import signing_form, upload

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "awards"}


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def pending(brokers, clock):
    """The lowest bid awaits the owner's decision."""
    return portal_world(brokers, clock, decision=None)


def decide(client, world, action, award=None, once=None, **headers):
    award = award or world.award
    url = reverse("award-decision", args=[world.tender.pk, award.pk])
    data = {"once": once or action[:1] * 32, "action": action}
    if action == "disqualify":
        data["reason"] = "Немає ліцензії на цей вид діяльності"
    return client.post(url, data, **headers)


def sign(client, world, once="s" * 32):
    url = reverse("contract-sign", args=[world.tender.pk, world.award.pk])
    return client.post(url, signing_form(once))


def test_owner_chooses_the_winner_and_the_complaint_period_runs(pending, as_user):
    response = decide(as_user(pending.buyer), pending, "activate")

    pending.refresh()
    assert response.status_code == 302
    assert pending.award.status == "active"
    assert pending.award.complaint_period_end is not None
    assert pending.tender.status == "active.awarded"


def test_owner_disqualifies_through_htmx_and_the_next_bid_is_considered(pending, as_user):
    response = decide(as_user(pending.buyer), pending, "disqualify", **HTMX)

    pending.refresh()
    assert response.status_code == 200
    assert b'id="awards"' in response.content and b"<html" not in response.content
    assert "tender-changed" in response["HX-Trigger"]
    awards = list(pending.tender.awards.order_by("number"))
    assert [a.status for a in awards] == ["unsuccessful", "pending"]


@pytest.mark.parametrize("who", ["bidder", "stranger"])
def test_others_cannot_decide(pending, as_user, who):
    page = as_user(getattr(pending, who)).get(reverse("tender", args=[pending.tender.pk]))
    response = decide(as_user(getattr(pending, who)), pending, "activate")

    pending.refresh()
    assert (
        "award-decision" not in page.content.decode() and "/decision/" not in page.content.decode()
    )
    assert response.status_code == 422
    assert "You may not do this" in response.content.decode()
    assert pending.award.status == "pending"


def test_contract_waits_for_the_complaint_period_then_completes_the_tender(world, as_user, clock):
    client = as_user(world.buyer)
    page = client.get(reverse("tender", args=[world.tender.pk])).content.decode()
    early = sign(client, world)

    end = moment(world.award.complaint_period_end)
    assert (
        f"Not yet: the contract may be signed from {end}, when the time for claims is over." in page
    )
    assert early.status_code == 422
    assert f"Not yet: the contract may be signed from {end}" in early.content.decode()
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    response = sign(client, world, once="t" * 32)

    world.refresh()
    assert response.status_code == 302
    assert world.tender.status == "complete"


def test_contract_waits_for_answered_claims(world, as_user, clock):
    bid = world.tender.bids.get(organization=world.bidder.organization)
    complaint, _ = Complaint.objects.file(
        award=world.award, by=Actor(Role.BID_OWNER, user=world.bidder, subject=bid),
        title="t", author={"name": "n"}, submit=True,
    )  # fmt: skip
    # Answered late enough to be still open when the window closes, whatever the weekday.
    clock.move_to(world.award.complaint_period_end - timedelta(hours=1))
    complaint.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="declined")
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))

    response = sign(as_user(world.buyer), world)

    world.refresh()
    assert response.status_code == 422
    assert "Not yet: a claim has been answered and waits" in response.content.decode()
    assert world.tender.status == "active.awarded"


def test_a_decision_sent_twice_is_made_once(pending, as_user):
    client = as_user(pending.buyer)
    decide(client, pending, "disqualify")
    second = decide(client, pending, "disqualify")

    pending.refresh()
    assert second.status_code == 422
    assert "already been sent" in second.content.decode()
    assert [a.status for a in pending.tender.awards.order_by("number")] == [
        "unsuccessful",
        "pending",
    ]


def test_unknown_action_is_refused(pending, as_user):
    response = decide(as_user(pending.buyer), pending, "promote")

    pending.refresh()
    assert response.status_code == 404
    assert pending.award.status == "pending"


def test_a_decision_on_an_unknown_award_is_a_404(pending, as_user):
    url = reverse("award-decision", args=[pending.tender.pk, "0" * 32])

    response = as_user(pending.buyer).post(url, {"once": "u" * 32, "action": "activate"})

    assert response.status_code == 404


# --- the papers of a decision ----------------------------------------------------------------


def test_disqualifying_says_why_or_changes_nothing(pending, as_user):
    client = as_user(pending.buyer)
    url = reverse("award-decision", args=[pending.tender.pk, pending.award.pk])

    response = client.post(url, {"once": "q" * 32, "action": "disqualify", "reason": "  "})

    assert response.status_code == 422
    assert "Say why the bid is disqualified." in response.content.decode()
    pending.award.refresh_from_db()
    assert pending.award.status == "pending"


def test_a_disqualification_carries_its_reason_and_protocol(pending, as_user):
    client = as_user(pending.buyer)
    url = reverse("award-decision", args=[pending.tender.pk, pending.award.pk])

    response = client.post(
        url,
        {"once": "q" * 32, "action": "disqualify", "reason": "Немає ліцензії",
         "protocol": upload("протокол.pdf")},
    )  # fmt: skip

    assert response.status_code == 302
    pending.award.refresh_from_db()
    assert pending.award.status == "unsuccessful"
    assert pending.award.data["description"] == "Немає ліцензії"
    [protocol] = pending.award.documents.all()
    assert (protocol.title, protocol.metadata) == (
        "протокол.pdf",
        {"documentType": "evaluationReports"},
    )
    page = client.get(reverse("tender", args=[pending.tender.pk])).content.decode()
    assert "Немає ліцензії" in page and "протокол.pdf" in page and "Evaluation report" in page


def test_the_signed_contract_is_attached_when_signing(world, as_user, clock):
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    client = as_user(world.buyer)
    url = reverse("contract-sign", args=[world.tender.pk, world.award.pk])

    response = client.post(url, signing_form(contract=upload("договір.pdf")))

    assert response.status_code == 302
    contract = world.tender.contracts.get()
    assert contract.status == "active"
    [signed] = contract.documents.all()
    assert (signed.title, signed.metadata) == ("договір.pdf", {"documentType": "contractSigned"})


def test_a_cancellation_carries_its_protocol(pending, as_user):
    client = as_user(pending.buyer)
    url = reverse("tender-cancel", args=[pending.tender.pk])

    response = client.post(
        url,
        {
            "once": "c" * 32,
            "ground": "noDemand",
            "reason": "Потреба відпала",
            "protocol": upload("рішення.pdf"),
        },
    )

    assert response.status_code == 302
    cancellation = pending.tender.cancellations.get()
    assert cancellation.status == "active"
    assert [d.title for d in cancellation.documents.all()] == ["рішення.pdf"]
    page = client.get(reverse("tender", args=[pending.tender.pk])).content.decode()
    assert "Потреба відпала" in page and "рішення.pdf" in page


def duplicate_ids(html: str) -> list[str]:
    ids = re.findall(r'\sid="([^"]+)"', html)
    return sorted({found for found in ids if ids.count(found) > 1})


def test_no_id_is_used_twice_on_the_owner_s_page_nor_after_a_refusal(pending, as_user):
    """Found in review: a refused decision came back with the default ids, shared with the
    other decisions' forms (a label then opens another form's file input)."""
    client = as_user(pending.buyer)
    page = client.get(reverse("tender", args=[pending.tender.pk])).content.decode()
    url = reverse("award-decision", args=[pending.tender.pk, pending.award.pk])

    refused = client.post(url, {"once": "r" * 32, "action": "disqualify", "reason": ""})

    assert refused.status_code == 422
    assert duplicate_ids(page) == []
    assert duplicate_ids(refused.content.decode()) == []


def test_every_bidder_is_told_of_a_decision_with_the_claim_windows_end_and_a_link_to_claim(
    pending, as_user, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        decide(as_user(pending.buyer), pending, "disqualify")
    pending.refresh()
    end = timezone.localtime(pending.award.complaint_period_end).strftime("%d.%m.%Y %H:%M")

    # The two bidders of the portal (the broker's bidder is told by its broker), in the site's
    # language.
    told = {tuple(sent.to): sent for sent in mail.outbox}
    assert set(told) == {("bidder@example.org",), ("bidder2@example.org",)}
    sent = told[("bidder@example.org",)]
    body = " ".join(sent.body.split())
    assert pending.tender.tender_id in sent.subject
    assert "пропозицію ПП «Чисто» відхилено" in body
    assert "Немає ліцензії" in body
    assert end in body
    claim_link = reverse("claim-new", args=[pending.tender.pk, pending.award.pk])
    assert claim_link in body
    assert claim_link in sent.alternatives[0][0]


def test_the_winner_is_told_its_bid_won_and_a_disqualified_bidder_how_to_claim(
    pending, as_user, django_capture_on_commit_callbacks
):
    decide(as_user(pending.buyer), pending, "disqualify")
    pending.refresh()
    # The bidder's bid is next: disqualifying it tells it so, with the link to claim.
    award = pending.tender.awards.get(status="pending")
    with django_capture_on_commit_callbacks(execute=True):
        decide(as_user(pending.buyer), pending, "disqualify", award=award, once="e" * 32)
    told = {tuple(sent.to): " ".join(sent.body.split()) for sent in mail.outbox}
    assert "Вашу пропозицію" in told[("bidder@example.org",)]
    assert reverse("claim-new", args=[pending.tender.pk, award.pk]) in told[("bidder@example.org",)]

    # The next is bidder2's: choosing it tells it that it won, with no link to claim.
    pending.refresh()
    third = pending.tender.awards.get(status="pending")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        decide(as_user(pending.buyer), pending, "activate", award=third)
    told = {tuple(sent.to): " ".join(sent.body.split()) for sent in mail.outbox}
    claim_link = reverse("claim-new", args=[pending.tender.pk, third.pk])
    assert "Вашу пропозицію" in told[("bidder2@example.org",)]
    assert claim_link not in told[("bidder2@example.org",)]
    assert "ФОП Коваленко" in told[("bidder@example.org",)]
    assert claim_link in told[("bidder@example.org",)]
    # The winner's queue holds no claim window on its own win; the others' do.
    now = timezone.now()
    assert not Award.objects.open_to_claims_of(pending.other_bidder.organization, now).filter(
        pk=third.pk
    )
    assert Award.objects.open_to_claims_of(pending.bidder.organization, now).filter(pk=third.pk)


def test_a_refusal_is_said_in_the_pages_language_with_its_date_as_people_write_it(
    world, as_user, client
):
    client.cookies["django_language"] = "uk"

    page = as_user(world.buyer).get(reverse("tender", args=[world.tender.pk])).content.decode()

    end = moment(world.award.complaint_period_end)
    assert f"Ще ні: договір можна укласти з {end}, коли мине строк подання вимог." in page
    assert "stand-still" not in page  # (the API's words stay the API's)


def test_a_decision_taken_back_tells_every_bidder_and_closes_its_claims_saying_why(
    world, django_capture_on_commit_callbacks
):
    claim = world.claim()
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        world.award.cancel(by=world.owner())

    told = {tuple(sent.to): " ".join(sent.body.split()) for sent in mail.outbox}
    assert set(told) == {("bidder@example.org",), ("bidder2@example.org",)}
    for body in told.values():
        assert "скасовано рішення щодо пропозиції ПП «Чисто»" in body
        # (the best bid is considered again: a winner's award taken back is decided anew)
        assert "Тепер розглядають пропозицію ПП «Чисто»" in body
    claim = Complaint.objects.get(pk=claim.pk)
    assert claim.status == "cancelled"
    assert str(claim.outcome.label) == "закрито: оскаржене рішення скасовано"
