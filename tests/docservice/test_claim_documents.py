"""Documents of a claim under /tenders/{tid}/awards/{aid}/complaints/{cid}/documents: new
versions by their author only, metadata changes, the lists, every version, and downloads."""

from urllib.parse import quote, urlsplit

import pytest

from complaints.models import ComplaintDocument
from core.schema import iso
from tenders.models import AuditEvent
from tests.docservice.helpers import (
    CONTENT,
    DocService,
    document,
    download,
    fetched,
    key_of,
    md5,
    multipart,
    refused,
    with_file,
)
from tests.helpers import ANSWER, Claims, single_error

pytestmark = pytest.mark.django_db

FIRST, SECOND, THIRD = CONTENT, b"%PDF-1.4 second edition", b"%PDF-1.4 third edition"
NOT_AUTHOR = {"location": "url", "name": "role", "description": "Can update document only author"}


@pytest.fixture
def claims(api, api2, clock):
    return Claims(api, api2, clock)


@pytest.fixture
def ds2(client, brokers):
    """The document service as the claimant's broker uses it."""
    return DocService(client, key="broker2")


@pytest.fixture
def draft(claims, ds2):
    """A draft claim with one document of its author: (claim path, claim token, document).
    Tests that run on both stores ask for `store` first, so this file is kept in the one used."""
    claim, token = claims.filed()
    path = f"{claims.path}/{claim['id']}"
    sent = document(ds2, FIRST, "Вимога.pdf", description="Перша редакція")
    response = claims.api2.post(f"{path}/documents", sent, token=token)
    assert response.status_code == 201, response.content
    return path, token, response.json()["data"]


def test_author_puts_new_versions_and_every_read_agrees(store, claims, ds2, draft, clock):
    path, token, first = draft
    documents, one = f"{path}/documents", f"{path}/documents/{first['id']}"
    clock.advance(seconds=10)
    response = claims.api2.put(one, document(ds2, SECOND, "Вимога-2.pdf"), token=token)
    assert response.status_code == 200, response.content
    second = response.json()["data"]
    assert (second["id"], second["title"], second["hash"]) == (
        first["id"],
        "Вимога-2.pdf",
        md5(SECOND),
    )
    assert second["author"] == first["author"] == "complaint_owner"
    assert second["description"] == "Перша редакція"  # inherited from the version it replaces
    assert second["datePublished"] == first["datePublished"]
    assert second["dateModified"] == iso(clock.now())
    assert second["dateModified"] > first["dateModified"]
    clock.advance(seconds=10)
    body, content_type = multipart("Вимога-3.pdf", THIRD)
    response = claims.api2.put(one, body=body, content_type=content_type, token=token)
    assert response.status_code == 200, response.content
    third = response.json()["data"]
    assert (third["id"], third["title"], third["hash"]) == (first["id"], "Вимога-3.pdf", md5(THIRD))
    assert third["dateModified"] > second["dateModified"]
    assert ComplaintDocument.objects.count() == 3
    replaced = AuditEvent.objects.filter(
        subject_id=path.rsplit("/", 1)[1], action="replace_document"
    )
    assert [event.payload["version"] for event in replaced] == [2, 3]

    latest = claims.api2.get(one).json()["data"]
    assert latest["previousVersions"] == [first, second]  # oldest first
    assert {k: v for k, v in latest.items() if k != "previousVersions"} == third
    assert claims.api2.get(documents).json()["data"] == [third]
    every = claims.api2.get(documents, {"all": "1"}).json()["data"]
    assert every == [first, second, third] == [*latest["previousVersions"], third]
    assert claims.api2.get(path).json()["data"]["documents"] == [first, second, third]
    for version, content in ((first, FIRST), (second, SECOND), (third, THIRD)):
        assert download(claims.api2, ds2, version["url"])[0] == content


def test_download_redirects_to_the_version_asked_for(store, claims, ds2, draft, clock, anonymous):
    path, token, first = draft
    one = f"{path}/documents/{first['id']}"
    clock.advance(seconds=10)
    second = claims.api2.put(one, document(ds2, SECOND, "Вимога-2.pdf"), token=token).json()["data"]
    # The draft's documents download for its author alone.
    assert anonymous.get(one, {"download": key_of(first)}).status_code == 404
    for version, content in ((first, FIRST), (second, SECOND)):
        response = claims.api2.get(one, {"download": key_of(version)})
        assert response.status_code == 302
        location = urlsplit(response["Location"])
        assert location.path == f"/ds/get/{key_of(version)}"
        assert "Expires=" in location.query and "Signature=" in location.query
        assert fetched(ds2, response["Location"]) == (
            content,
            f"attachment; filename*=utf-8''{quote(version['title'])}",
        )
    assert single_error(claims.api2.get(one, {"download": "0" * 32}), 404) == {
        "location": "url",
        "name": "download",
        "description": "Not Found",
    }


def test_patch_changes_the_metadata_of_the_latest_version_only(claims, ds2, draft, clock):
    path, token, first = draft
    documents, one = f"{path}/documents", f"{path}/documents/{first['id']}"
    clock.advance(seconds=10)
    response = claims.api2.patch(
        one,
        {"title": "Вимога (уточнено).pdf", "description": "Друга редакція", "url": "x"},
        token=token,
    )
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["title"], data["description"]) == ("Вимога (уточнено).pdf", "Друга редакція")
    # Neither the content nor its dates change, and no version is added.
    for unchanged in ("id", "url", "hash", "format", "author", "datePublished", "dateModified"):
        assert data[unchanged] == first[unchanged], unchanged
    assert claims.api2.get(one).json()["data"] == {**data, "previousVersions": []}
    assert claims.api2.get(documents, {"all": "1"}).json()["data"] == [data]
    assert single_error(claims.api2.patch(one, {"format": "pdf"}, token=token), 422) == {
        "location": "body",
        "name": "format",
        "description": ["String value did not match validation regex."],
    }
    assert download(claims.api2, ds2, data["url"])[0] == FIRST


def test_only_the_author_replaces_or_edits_a_claim_document(store, claims, ds2, draft, client):
    path, token, first = draft
    one = f"{path}/documents/{first['id']}"
    assert claims.api2.patch(path, {"status": "claim"}, token=token).status_code == 200
    # The tender owner may add documents to a submitted claim, but not touch the claimant's.
    owner, owner_token = claims.api, claims.tender.token
    sent = document(DocService(client, key="broker"), SECOND)
    refused(lambda: owner.put(one, sent, token=owner_token), NOT_AUTHOR)
    refused(lambda: with_file(owner, "put", one, owner_token), NOT_AUTHOR)
    refused(lambda: owner.patch(one, {"description": "чуже"}, token=owner_token), NOT_AUTHOR)
    # The claimant's own document is frozen while the claim waits for its answer...
    sent = document(ds2, SECOND)
    refused(
        lambda: claims.api2.put(one, sent, token=token),
        {
            "location": "body",
            "name": "data",
            "description": "Can't update document in current (claim) complaint status",
        },
    )
    # ...and takes a new version again once it is answered.
    assert claims.api.patch(path, ANSWER, token=owner_token).status_code == 200
    response = claims.api2.put(one, sent, token=token)
    assert response.status_code == 200, response.content
    assert claims.api2.get(one).json()["data"]["previousVersions"] == [first]
    assert ComplaintDocument.objects.count() == 2
