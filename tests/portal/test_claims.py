"""Claims in the portal: each action through its form, as a person (post, redirect, get) and
through htmx (422 fragment on errors, fragment plus event on success); forged posts refused with
the API's words; nothing half-saved."""

import pytest
from django.core import mail
from django.urls import reverse

from complaints.models import Complaint, ComplaintDocument
from complaints.views import claim_actor
from core.actors import Actor, Role
from core.models import FormSubmission
from docservice.models import StoredFile
from tenders.models import AuditEvent
from tests.factories import RESOLUTION, portal_world
from tests.portal.forms import claim_form, new_claim_url, post_claim_form, upload

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "claim-panel"}


@pytest.fixture(autouse=True)
def _in_english(client):
    """The API's words are English; the portal shows them untranslated in English."""
    client.cookies["django_language"] = "en"


def test_bidder_files_a_claim_at_once_and_the_buyer_is_told(
    world, as_user, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = post_claim_form(as_user(world.bidder), world)

    complaint = Complaint.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("claim", args=[complaint.pk])
    assert complaint.status == "claim"
    assert complaint.date_submitted is not None
    assert complaint.organization == world.bidder.organization
    assert complaint.author["name"] == world.bidder.organization.name
    assert [m.to for m in mail.outbox] == [["buyer@example.org"]]
    assert complaint.complaint_id in mail.outbox[0].subject


def test_claim_with_two_attachments_is_filed_in_three_steps_behind_the_form(world, as_user):
    client = as_user(world.bidder)
    post_claim_form(client, world, files=[upload("а.pdf", b"one"), upload("б.pdf", b"two")])

    complaint = Complaint.objects.get()
    assert complaint.status == "claim"
    assert sorted(d.title for d in complaint.documents.all()) == ["а.pdf", "б.pdf"]
    assert {d.author for d in complaint.documents.all()} == {"complaint_owner"}
    actions = list(
        AuditEvent.objects.filter(subject_id=complaint.pk).values_list("action", flat=True)
    )
    assert actions == ["file_draft", "add_document", "add_document", "submit"]


def test_draft_then_documents_then_submit(world, as_user, django_capture_on_commit_callbacks):
    client = as_user(world.bidder)
    with django_capture_on_commit_callbacks(execute=True):
        post_claim_form(client, world, submit=False)
    complaint = Complaint.objects.get()
    assert complaint.status == "draft"
    assert mail.outbox == []

    response = client.post(
        reverse("claim-documents", args=[complaint.pk]),
        {"once": "b" * 32, "documents": [upload()]},
    )
    assert response.status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("claim-draft", args=[complaint.pk]),
            {"once": "c" * 32, "title": "Новий заголовок", "description": "Опис", "submit": "1"},
        )

    complaint.refresh_from_db()
    assert response.status_code == 302
    assert (complaint.status, complaint.title) == ("claim", "Новий заголовок")
    assert complaint.documents.count() == 1
    assert len(mail.outbox) == 1


def test_a_draft_is_shown_to_its_author_only(world, as_user):
    post_claim_form(as_user(world.bidder), world, submit=False)
    url = reverse("claim", args=[Complaint.objects.get().pk])

    assert as_user(world.bidder).get(url).status_code == 200
    assert as_user(world.buyer).get(url).status_code == 404
    assert as_user(None).get(url).status_code == 404


def test_buyer_answers_through_htmx_and_the_claimant_is_told(
    world, as_user, django_capture_on_commit_callbacks
):
    post_claim_form(as_user(world.bidder), world)
    complaint = Complaint.objects.get()

    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(world.buyer).post(
            reverse("claim-answer", args=[complaint.pk]),
            {
                "once": "d" * 32,
                "resolution_type": "resolved",
                "resolution": RESOLUTION,
                "tenderer_action": "Рішення переглянуто",
                "documents": [upload("відповідь.pdf")],
                "answer": "1",
            },
            **HTMX,
        )

    complaint.refresh_from_db()
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b'id="claim-panel"' in response.content
    assert "claim-changed" in response["HX-Trigger"]
    assert complaint.status == "answered"
    assert complaint.date_answered and complaint.tenderer_action_date
    assert [d.author for d in complaint.documents.all()] == ["tender_owner"]
    assert [m.to for m in mail.outbox] == [["bidder@example.org"]]


def test_answer_too_short_is_422_next_to_the_field_and_changes_nothing(world, as_user):
    post_claim_form(as_user(world.bidder), world)
    complaint = Complaint.objects.get()

    response = as_user(world.buyer).post(
        reverse("claim-answer", args=[complaint.pk]),
        {"once": "d" * 32, "resolution_type": "resolved", "resolution": "Коротко", "answer": "1"},
        **HTMX,
    )

    complaint.refresh_from_db()
    assert response.status_code == 422
    assert "Коротко" in response.content.decode()  # what was typed is kept
    assert "The answer is too short: write at least 20 characters." in response.content.decode()
    assert complaint.status == "claim"
    assert not FormSubmission.objects.filter(token="d" * 32).exists()


def test_buyer_may_save_a_draft_answer(world, as_user):
    post_claim_form(as_user(world.bidder), world)
    complaint = Complaint.objects.get()

    as_user(world.buyer).post(
        reverse("claim-answer", args=[complaint.pk]),
        {"once": "d" * 32, "resolution": "Чернетка відповіді", "prepare": "1"},
    )

    complaint.refresh_from_db()
    assert (complaint.status, complaint.resolution) == ("claim", "Чернетка відповіді")


@pytest.mark.parametrize("satisfied", [True, False])
def test_claimant_accepts_or_rejects_the_answer(world, as_user, satisfied):
    post_claim_form(as_user(world.bidder), world)
    complaint = Complaint.objects.get()
    complaint.tender = world.tender
    complaint.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="declined")

    response = as_user(world.bidder).post(
        reverse("claim-decision", args=[complaint.pk]),
        {"once": "e" * 32, "satisfied": "true" if satisfied else "false"},
    )

    complaint.refresh_from_db()
    assert response.status_code == 302
    assert (complaint.status, complaint.satisfied) == ("resolved", satisfied)
    # The page says the outcome, not the status: a claim the claimant disagreed with is not
    # shown as a won one, and says what may come next.
    page = as_user(world.stranger).get(reverse("claim", args=[complaint.pk])).content.decode()
    next_step = "the Antimonopoly Committee of Ukraine (amcu.gov.ua)"
    if satisfied:
        assert '<span class="badge claim-settled">closed: the answer accepted</span>' in page
        assert next_step not in page
    else:
        assert '<span class="badge claim-disputed">closed: the claimant disagreed</span>' in page
        assert next_step in page
    assert "Rejected: the procuring entity considered the claim" in page  # "declined" explained


def test_claimant_withdraws_with_a_reason(world, as_user):
    client = as_user(world.bidder)
    post_claim_form(client, world)
    complaint = Complaint.objects.get()

    refused = client.post(reverse("claim-cancel", args=[complaint.pk]), {"once": "f" * 32})
    assert refused.status_code == 422
    client.post(
        reverse("claim-cancel", args=[complaint.pk]), {"once": "f" * 32, "reason": "Помилка"}
    )

    complaint.refresh_from_db()
    assert (complaint.status, complaint.cancellation_reason) == ("cancelled", "Помилка")


@pytest.mark.parametrize(
    ("who", "view", "data", "message"),
    [
        # The claimant may not answer its own claim, the buyer may not judge its answer: the
        # API's 403s, in the portal's words (core/refusals.py).
        (
            "bidder",
            "claim-answer",
            {"resolution_type": "resolved", "resolution": RESOLUTION, "answer": "1"},
            "You may not do this",
        ),
        ("buyer", "claim-cancel", {"reason": "Не хочу"}, "You may not do this"),
        (
            "stranger",
            "claim-answer",
            {"resolution_type": "resolved", "resolution": RESOLUTION, "answer": "1"},
            "You may not do this",
        ),
        (
            "bidder",
            "claim-draft",
            {"title": "x", "description": "y", "submit": "1"},
            "The claim can&#x27;t be changed now.",
        ),
    ],
)
def test_forged_post_is_refused_in_the_portals_words(world, as_user, who, view, data, message):
    post_claim_form(as_user(world.bidder), world)
    complaint = Complaint.objects.get()
    before = (complaint.status, complaint.date)

    response = as_user(getattr(world, who)).post(
        reverse(view, args=[complaint.pk]), {"once": "9" * 32, **data}
    )

    complaint.refresh_from_db()
    assert response.status_code == 422
    assert message in response.content.decode()
    assert (complaint.status, complaint.date) == before


# Each form of the claim page, by its view, and the transitions it performs.
CLAIM_FORMS = {
    "claim-draft": {"edit", "submit"},
    "claim-answer": {"prepare_answer", "answer"},
    "claim-decision": {"rate_answer", "resolve"},
    "claim-cancel": {"cancel"},
}


def forms_on(page: str, complaint) -> set[str]:
    """The acts the page offers: by their form, or by a link to their review."""
    return {
        name
        for name in CLAIM_FORMS
        for url in [reverse(name, args=[complaint.pk])]
        if f'action="{url}"' in page or f'href="{url}"' in page or f'href="{url}?' in page
    }


def test_forms_shown_are_the_available_actions(world, as_user):
    """For each status and each person, the page offers a form exactly for what the model's
    available_actions() allows that person (a draft is the claimant's alone)."""
    post_claim_form(as_user(world.bidder), world, submit=False)
    complaint = Complaint.objects.get()
    steps = {
        "draft": lambda c: None,
        "claim": lambda c: c.submit(by=claim_actor(world.bidder, c)),
        "answered": lambda c: c.answer(
            by=claim_actor(world.buyer, c), resolution=RESOLUTION, resolution_type="resolved"
        ),
        "resolved": lambda c: c.resolve(by=claim_actor(world.bidder, c), satisfied=False),
    }
    url = reverse("claim", args=[complaint.pk])
    seen = {}
    for status, step in steps.items():
        step(Complaint.objects.get(pk=complaint.pk))
        complaint = Complaint.objects.get(pk=complaint.pk)
        assert complaint.status == status
        for who in ("buyer", "bidder", "other_bidder", "stranger", None):
            user = getattr(world, who) if who else None
            response = as_user(user).get(url)
            offered = set(complaint.available_actions(claim_actor(user, complaint)))
            if response.status_code == 404:
                assert status == "draft" and who != "bidder" and not offered
                continue
            expected = {name for name, actions in CLAIM_FORMS.items() if actions & offered}
            shown = forms_on(response.content.decode(), complaint)
            assert shown == expected, (status, who)
            seen[(status, who)] = shown
    # The walk met every form, so the comparison above was never empty-handed.
    assert set().union(*seen.values()) == set(CLAIM_FORMS)


def test_the_same_form_sent_twice_changes_nothing_the_second_time(world, as_user):
    client = as_user(world.bidder)
    post_claim_form(client, world, once="1" * 32)
    data = {**claim_form(once="1" * 32, title="Інша тема"), "submit": "1"}
    again = client.post(new_claim_url(world), data)

    assert again.status_code == 422
    assert "already been sent" in again.content.decode()
    assert Complaint.objects.count() == 1


@pytest.mark.parametrize("once", ["1" * 32, "2" * 32], ids=["same-form", "form-read-again"])
def test_the_same_claim_sent_again_leads_to_the_one_filed(world, as_user, once):
    """Back, then send: whether the browser kept the form (its token spent) or read it again
    (a new token), the claim is filed once and the second sending lands on it."""
    client = as_user(world.bidder)
    post_claim_form(client, world, once="1" * 32)
    first = Complaint.objects.get()

    again = post_claim_form(client, world, once=once)

    assert again.status_code == 302 and again["Location"] == reverse("claim", args=[first.pk])
    assert "This claim is already filed" in client.get(again["Location"]).content.decode()
    assert Complaint.objects.count() == 1
    # Another organization's claim in the same words is its own.
    post_claim_form(as_user(world.other_bidder), world, once="3" * 32)
    assert Complaint.objects.count() == 2


def test_a_draft_sent_again_leads_to_the_draft_and_a_withdrawn_claim_may_be_filed_anew(
    world, as_user
):
    client = as_user(world.bidder)
    post_claim_form(client, world, submit=False, once="1" * 32)
    draft = Complaint.objects.get()

    again = post_claim_form(client, world, once="2" * 32)
    said = client.get(again["Location"]).content.decode()
    client.post(reverse("claim-cancel", args=[draft.pk]), {"once": "3" * 32, "reason": "Ні"})
    anew = post_claim_form(client, world, once="4" * 32)

    assert again["Location"] == reverse("claim", args=[draft.pk])
    assert "This claim is already saved as a draft" in said
    assert anew.status_code == 302 and Complaint.objects.count() == 2


def test_refused_filing_keeps_no_attachment(world, as_user, clock):
    clock.move_to(world.award.complaint_period_end)  # the period is over

    response = post_claim_form(as_user(world.bidder), world, files=[upload()])

    assert response.status_code == 422
    assert "Claims against this decision are taken only from" in response.content.decode()
    assert not Complaint.objects.exists()
    assert not ComplaintDocument.objects.exists()
    # (no file of the filing's is kept: the only ones there may be are the auction's protocol's)
    assert not StoredFile.objects.exclude(title__startswith="auction-protocol.").exists()


def test_empty_attachment_is_refused_next_to_the_field(world, as_user):
    response = post_claim_form(as_user(world.bidder), world, files=[upload(content=b"")])

    assert response.status_code == 422
    assert not Complaint.objects.exists()


def test_oversized_attachment_is_refused_and_nothing_kept(world, as_user, settings):
    settings.DOCUMENT_MAX_BYTES = 10

    response = post_claim_form(as_user(world.bidder), world, files=[upload(content=b"x" * 11)])

    assert response.status_code == 422
    assert not Complaint.objects.exists()
    assert not StoredFile.objects.exclude(title__startswith="auction-protocol.").exists()


def test_the_attachments_say_how_much_they_may_be(world, as_user, settings):
    settings.DOCUMENT_MAX_BYTES, settings.REQUEST_MAX_BYTES = 3 * 2**20, 12 * 2**20

    page = as_user(world.bidder).get(new_claim_url(world)).content.decode()

    # In the page's language (an English page said it in Ukrainian, the language of start-up).
    assert "Files of up to 3 MB each, 12 MB together." in page


def test_only_a_bidder_of_the_tender_sees_the_claim_form(world, as_user):
    url = new_claim_url(world)
    tender_url = reverse("tender", args=[world.tender.pk])

    assert url in as_user(world.bidder).get(tender_url).content.decode()
    assert url not in as_user(world.stranger).get(tender_url).content.decode()
    assert as_user(None).get(url).status_code == 302  # to sign in
    response = as_user(world.stranger).post(url, claim_form(submit="1"))
    assert response.status_code == 422
    assert "You may not do this" in response.content.decode()
    assert not Complaint.objects.exists()


def test_user_text_is_escaped(world, as_user):
    client = as_user(world.bidder)
    client.post(new_claim_url(world), claim_form(title="<script>alert(1)</script>", submit="1"))

    page = client.get(reverse("claim", args=[Complaint.objects.get().pk])).content.decode()

    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_claim_made_in_the_portal_is_the_one_the_api_shows(world, as_user, client):
    post_claim_form(as_user(world.bidder), world, files=[upload()])
    complaint = Complaint.objects.get()

    data = client.get(
        f"/api/2.3/tenders/{world.tender.pk}/awards/{world.award.pk}/complaints/{complaint.pk}"
    ).json()["data"]

    assert (data["status"], data["complaintID"]) == ("claim", complaint.complaint_id)
    assert data["documents"][0]["title"] == "довідка.pdf"


def test_a_draft_is_listed_on_the_tender_page_for_its_author_only(world, as_user):
    post_claim_form(as_user(world.bidder), world, submit=False)
    complaint = Complaint.objects.get()
    tender_url = reverse("tender", args=[world.tender.pk])

    assert complaint.complaint_id in as_user(world.bidder).get(tender_url).content.decode()
    assert complaint.complaint_id not in as_user(world.buyer).get(tender_url).content.decode()


def test_the_claim_form_shows_what_the_decision_rests_on(brokers, clock, as_user):
    world = portal_world(brokers, clock, decision=None)
    winner = world.award.bid
    winner.tender = world.tender
    paper = {"md5": "0" * 32, "format": "application/pdf"}
    winner.add_document(
        by=Actor(Role.BID_OWNER, broker=brokers["broker2"], subject=winner),
        key="a" * 32, title="ліцензія переможця.pdf", metadata={}, **paper,
    )  # fmt: skip
    world.award.decide(
        by=Actor(Role.TENDER_OWNER, user=world.buyer, subject=world.tender),
        action="activate",
        documents=[{"key": "b" * 32, "title": "протокол.pdf",
                    "metadata": {"documentType": "evaluationReports"}, **paper}],
    )  # fmt: skip
    client = as_user(world.bidder)

    page = client.get(reverse("claim-new", args=[world.tender.pk, world.award.pk]))

    body = page.content.decode()
    assert "What the decision rests on" in body
    assert "протокол.pdf" in body and "Evaluation report" in body
    assert "ліцензія переможця.pdf" in body
    bid_paper = reverse(
        "part-document-download",
        args=[world.tender.pk, "bids", winner.pk, winner.documents.get().document_id, "a" * 32],
    )
    assert bid_paper in body and client.get(bid_paper).status_code == 302


@pytest.mark.parametrize(
    ("decision", "heading"),
    [
        ("active", "award to ПП «Чисто»"),
        ("unsuccessful", "the decision on ПП «Чисто»: disqualified"),
    ],
)
def test_a_claim_s_page_names_the_decision_it_is_against(
    brokers, clock, as_user, decision, heading
):
    from tests.factories import portal_world

    world = portal_world(brokers, clock, decision=decision)
    post_claim_form(as_user(world.bidder), world)
    page = as_user(None).get(reverse("claim", args=[Complaint.objects.get().pk])).text

    assert heading in page
    if decision == "unsuccessful":
        assert "award to" not in page
