"""The decision's papers: documents on an award, the tender owner's while the tender is in
qualification (2.3), shown with the award and in the tender's read."""

import pytest
from django.urls import reverse

from tenders.models import AuditEvent, AwardDocument
from tests.docservice.helpers import document, download, key_of, md5
from tests.helpers import in_qualification, single_error

pytestmark = pytest.mark.django_db

PROTOCOL = b"%PDF protocol of the decision"


@pytest.fixture
def pending(api, clock):
    """A tender in qualification, its lowest bid's award pending."""
    return in_qualification(api, clock, amounts=(450, 400))


def documents_path(tender, award) -> str:
    return f"{tender.path}/awards/{award['id']}/documents"


def test_the_owner_publishes_the_protocol_with_the_award(api, anonymous, ds, pending, clock):
    award = pending.award()
    sent = document(ds, PROTOCOL, "Протокол.pdf", documentType="awardNotice")

    response = api.post(documents_path(pending, award), sent, token=pending.token)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert response["Location"] == (
        f"http://testserver/api/2.3{documents_path(pending, award)}/{data['id']}"
    )
    assert (data["title"], data["hash"], data["documentType"], data["author"]) == (
        "Протокол.pdf",
        md5(PROTOCOL),
        "awardNotice",
        "tender_owner",
    )
    assert anonymous.get(documents_path(pending, award)).json()["data"] == [data]
    assert anonymous.get(f"{pending.path}/awards/{award['id']}").json()["data"]["documents"] == [
        data
    ]
    assert pending.read()["awards"][0]["documents"] == [data]
    assert download(anonymous, ds, data["url"])[0] == PROTOCOL
    event = AuditEvent.objects.get(action="add_document", actor_role="tender_owner")
    assert (event.subject_type, event.subject_id) == ("award", award["id"])


def test_new_versions_and_metadata_while_the_tender_is_in_qualification(api, ds, pending, clock):
    award = pending.award()
    path = documents_path(pending, award)
    first = api.post(path, document(ds, PROTOCOL), token=pending.token).json()["data"]
    clock.advance(minutes=5)

    second = api.put(f"{path}/{first['id']}", document(ds, b"%PDF v2"), token=pending.token)
    edited = api.patch(
        f"{path}/{first['id']}", {"documentType": "evaluationReports"}, token=pending.token
    )

    assert second.status_code == 200 and edited.status_code == 200
    versions = pending.read()["awards"][0]["documents"]
    assert [version["id"] for version in versions] == [first["id"], first["id"]]
    assert versions[-1]["documentType"] == "evaluationReports"
    assert AwardDocument.objects.count() == 2


def test_nobody_but_the_tender_owner_adds_them(api, api2, ds, pending):
    award = pending.award()
    sent = document(ds, PROTOCOL)

    for caller, token in ((api2, pending.token), (api, None), (api, "0" * 32)):
        response = caller.post(documents_path(pending, award), sent, token=token)
        assert single_error(response, 403)["name"] == "permission"
    assert not AwardDocument.objects.exists()


def test_once_the_award_stands_its_papers_are_closed(api, ds, pending, clock):
    award = pending.award()
    path = documents_path(pending, award)
    first = api.post(path, document(ds, PROTOCOL), token=pending.token).json()["data"]
    pending.decide("active")
    before = pending.read()

    added = api.post(path, document(ds, b"%PDF later"), token=pending.token)
    replaced = api.put(f"{path}/{first['id']}", document(ds, b"%PDF later"), token=pending.token)

    assert single_error(added, 403) == {
        "location": "body",
        "name": "data",
        "description": "Can't add document in current (active.awarded) tender status",
    }
    assert single_error(replaced, 403)["description"] == (
        "Can't update document in current (active.awarded) tender status"
    )
    assert pending.read() == before


def test_an_unknown_award_is_404(api, ds, pending):
    response = api.post(
        f"{pending.path}/awards/{'0' * 32}/documents", document(ds, PROTOCOL), token=pending.token
    )
    assert single_error(response, 404)["name"] == "award_id"


def test_the_tender_page_shows_the_protocol_with_its_decision(api, client, ds, pending):
    award = pending.award()
    sent = document(ds, PROTOCOL, "Протокол.pdf")
    data = api.post(documents_path(pending, award), sent, token=pending.token).json()["data"]
    link = reverse(
        "award-document-download", args=[pending.id, award["id"], data["id"], key_of(data)]
    )

    page = client.get(reverse("tender", args=[pending.id])).content.decode()

    assert link in page and "Протокол.pdf" in page
    response = client.get(link)
    assert response.status_code == 302
    assert b"".join(client.get(response["Location"]).streaming_content) == PROTOCOL
    other_award = "0" * 32
    assert client.get(link.replace(award["id"], other_award)).status_code == 404
    assert client.get(link.replace(key_of(data), "f" * 32)).status_code == 404
