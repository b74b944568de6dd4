"""The protocol of a decision to cancel: documents on a cancellation, the tender owner's until
the tender has ended (2.3), shown with the cancellation."""

import pytest

from tenders.models import CancellationDocument
from tests.docservice.helpers import document, download, md5
from tests.helpers import create_tender, single_error

pytestmark = pytest.mark.django_db

PROTOCOL = b"%PDF protocol of cancellation"


@pytest.fixture
def cancelling(api):
    """A tender with a pending cancellation: (tender, the cancellation's path)."""
    tender = create_tender(api)
    response = api.post(
        f"{tender.path}/cancellations", {"reason": "Зникла потреба"}, token=tender.token
    )
    assert response.status_code == 201
    return tender, f"{tender.path}/cancellations/{response.json()['data']['id']}"


def test_the_owner_attaches_the_protocol_before_cancelling(api, anonymous, ds, cancelling):
    tender, cancellation = cancelling

    response = api.post(
        f"{cancellation}/documents",
        document(ds, PROTOCOL, documentType="notice"),
        token=tender.token,
    )

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["hash"], data["author"]) == (md5(PROTOCOL), "tender_owner")
    assert anonymous.get(cancellation).json()["data"]["documents"] == [data]
    assert tender.read()["cancellations"][0]["documents"] == [data]
    assert download(anonymous, ds, data["url"])[0] == PROTOCOL


def test_once_the_tender_is_cancelled_its_papers_are_closed(api, ds, cancelling):
    tender, cancellation = cancelling
    first = api.post(f"{cancellation}/documents", document(ds, PROTOCOL), token=tender.token)
    assert api.patch(cancellation, {"status": "active"}, token=tender.token).status_code == 200

    added = api.post(f"{cancellation}/documents", document(ds, b"%PDF late"), token=tender.token)
    edited = api.patch(
        f"{cancellation}/documents/{first.json()['data']['id']}",
        {"description": "пізніше"},
        token=tender.token,
    )

    assert single_error(added, 403) == {
        "location": "body",
        "name": "data",
        "description": "Can't add document in current (cancelled) tender status",
    }
    assert single_error(edited, 403)["description"] == (
        "Can't update document in current (cancelled) tender status"
    )
    assert CancellationDocument.objects.count() == 1


def test_nobody_but_the_tender_owner_attaches_them(api2, ds, cancelling):
    tender, cancellation = cancelling
    response = api2.post(f"{cancellation}/documents", document(ds, PROTOCOL), token=tender.token)
    assert single_error(response, 403)["name"] == "permission"
