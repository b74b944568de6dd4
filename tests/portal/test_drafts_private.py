"""Drafts are their organization's alone in the portal: a draft tender, a draft claim and an
answer saved but not sent are seen by the owning organization's members only, in every read
path (page, lists, search, dashboards, downloads); an action on what one may not see is a 404."""

import pytest
from django.urls import reverse

from complaints.models import Complaint
from core.actors import Actor, Role
from tenders.models import Tender
from tests.factories import RESOLUTION, make_user
from tests.helpers import tender_data
from tests.portal.forms import post_claim_form, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def draft_tender(db, clock):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer),
        data=tender_data(clock.now(), status="draft", title="Секретна чернетка закупівлі"),
    )
    return buyer, tender


def test_a_draft_tender_is_in_no_search_and_no_one_elses_dashboard(as_user, draft_tender):
    buyer, tender = draft_tender
    other = make_user("other", "Інша лікарня", "01993914", "procuring")

    for user in (None, other, buyer):
        found = as_user(user).get(reverse("home"), {"q": "Секретна"})
        assert tender.title not in found.content.decode()
    assert tender.title not in as_user(other).get(reverse("dashboard")).content.decode()
    assert tender.title in as_user(buyer).get(reverse("dashboard")).content.decode()


def test_actions_on_another_organizations_draft_tender_are_404s(as_user, draft_tender):
    _buyer, tender = draft_tender
    other = make_user("other", "Інша лікарня", "01993914", "procuring")
    client = as_user(other)

    responses = [
        client.post(reverse("tender-publish", args=[tender.pk]), {"once": "p" * 32}),
        client.post(
            reverse("tender-cancel", args=[tender.pk]),
            {"once": "c" * 32, "ground": "noDemand", "reason": "x"},
        ),
        client.post(reverse("tender-documents", args=[tender.pk]), {"once": "d" * 32}),
    ]

    assert [response.status_code for response in responses] == [404, 404, 404]
    assert Tender.objects.get(pk=tender.pk).status == "draft"


def test_a_draft_claims_documents_download_for_its_author_alone(world, as_user):
    post_claim_form(as_user(world.bidder), world, submit=False, files=[upload()])
    complaint = Complaint.objects.get()
    version = complaint.documents.get()
    link = reverse("claim-document-download", args=[complaint.pk, version.document_id, version.key])
    page = as_user(world.bidder).get(reverse("claim", args=[complaint.pk])).content.decode()

    assert link in page
    assert as_user(world.bidder).get(link).status_code == 302
    for user in (world.buyer, world.other_bidder, None):
        assert as_user(user).get(link).status_code == 404


def test_actions_on_a_draft_claim_of_another_are_404s(world, as_user):
    post_claim_form(as_user(world.bidder), world, submit=False)
    complaint = Complaint.objects.get()

    answer = as_user(world.buyer).post(
        reverse("claim-answer", args=[complaint.pk]),
        {"once": "d" * 32, "resolution_type": "resolved", "resolution": RESOLUTION, "answer": "1"},
    )
    cancel = as_user(world.other_bidder).post(
        reverse("claim-cancel", args=[complaint.pk]), {"once": "f" * 32, "reason": "x"}
    )

    assert (answer.status_code, cancel.status_code) == (404, 404)
    assert Complaint.objects.get(pk=complaint.pk).status == "draft"


def test_an_answer_saved_but_not_sent_is_the_tender_owners_alone(world, as_user):
    post_claim_form(as_user(world.bidder), world)
    complaint = Complaint.objects.get()
    saved = "Ця відповідь ще не надіслана і нікому не видна"
    as_user(world.buyer).post(
        reverse("claim-answer", args=[complaint.pk]),
        {"once": "d" * 32, "resolution_type": "declined", "resolution": saved, "prepare": "1"},
    )
    url = reverse("claim", args=[complaint.pk])
    tender_url = reverse("tender", args=[world.tender.pk])

    assert saved in as_user(world.buyer).get(url).content.decode()
    for user in (world.bidder, world.other_bidder, None):
        assert saved not in as_user(user).get(url).content.decode()
        assert saved not in as_user(user).get(tender_url).content.decode()


def test_a_draft_cancelled_before_it_was_published_stays_its_organizations(as_user, draft_tender):
    buyer, tender = draft_tender
    tender.add_cancellation(
        by=Actor(Role.TENDER_OWNER, user=buyer, subject=tender),
        data={"reason": "Передумали", "status": "active"},
    )
    other = make_user("other", "Інша лікарня", "01993914", "procuring")

    for user in (None, other):
        client = as_user(user)
        assert client.get(reverse("tender", args=[tender.pk])).status_code == 404
        found = client.get(reverse("home"), {"q": "Секретна"}).content.decode()
        assert tender.title not in found
        assert tender.title not in client.get(reverse("search-feed")).content.decode()
    assert as_user(buyer).get(reverse("tender", args=[tender.pk])).status_code == 200
