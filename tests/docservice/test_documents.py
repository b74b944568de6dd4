"""Documents in the registry: attached by their document-service URL or uploaded through the
API, versioned, re-signed on output, downloadable, and refused with 2.3's errors."""

from urllib.parse import parse_qs, urlsplit

import pytest

from complaints.models import ComplaintDocument
from docservice.models import StoredFile
from tenders.models import Tender, TenderDocument
from tests.docservice.helpers import (
    CONTENT,
    NAME,
    DocService,
    document,
    download,
    fetched,
    md5,
    multipart,
    refused,
    with_file,
    with_query,
)
from tests.helpers import ANSWER, Claims, create_tender, error, open_for_bids, single_error

pytestmark = pytest.mark.django_db


def test_tender_document_is_attached_by_its_url(api, ds, store):
    tender = create_tender(api)
    sent = document(ds, documentType="tenderNotice")
    response = api.post(f"{tender.path}/documents", sent, token=tender.token)
    assert response.status_code == 201
    data = response.json()["data"]
    assert response["Location"] == f"http://testserver/api/2.3{tender.path}/documents/{data['id']}"
    assert (data["title"], data["format"], data["hash"], data["documentType"]) == (
        NAME,
        "application/pdf",
        md5(),
        "tenderNotice",
    )
    assert (data["author"], data["documentOf"]) == ("tender_owner", "tender")
    assert data["datePublished"] == data["dateModified"]
    # The registry's own signature: same document, another query.
    assert urlsplit(data["url"]).path == urlsplit(sent["url"]).path
    assert (
        parse_qs(urlsplit(data["url"]).query)["KeyID"]
        != parse_qs(urlsplit(sent["url"]).query)["KeyID"]
    )
    assert download(api, ds, data["url"]) == (
        CONTENT,
        "attachment; filename*=utf-8''%D0%A1%D0%BA%D0%B0%D1%80%D0%B3%D0%B0%20%E2%84%961.pdf",
    )
    assert tender.read()["documents"] == [data]


def test_new_versions_keep_the_id_and_the_history(api, ds, clock):
    tender = create_tender(api)
    first = api.post(
        f"{tender.path}/documents", document(ds, description="Перша редакція"), token=tender.token
    ).json()["data"]
    path = f"{tender.path}/documents/{first['id']}"
    clock.advance(seconds=10)
    second_content = b"%PDF second edition"
    response = api.put(path, document(ds, second_content, "Умови-2.pdf"), token=tender.token)
    assert response.status_code == 200
    second = response.json()["data"]
    assert second["id"] == first["id"] and second["title"] == "Умови-2.pdf"
    assert (
        second["datePublished"] == first["datePublished"]
        and second["dateModified"] > first["dateModified"]
    )
    assert second["description"] == "Перша редакція"  # inherited
    one = api.get(path).json()["data"]
    assert one["previousVersions"] == [first]
    assert {k: v for k, v in one.items() if k != "previousVersions"} == second
    assert api.get(f"{tender.path}/documents").json()["data"] == [second]
    assert api.get(f"{tender.path}/documents", {"all": "1"}).json()["data"] == [first, second]
    assert download(api, ds, second["url"])[0] == second_content
    assert download(api, ds, first["url"])[0] == CONTENT
    # 2.3: the tender's read lists every version, as they were published
    assert tender.read()["documents"] == [first, second]


def test_patch_changes_metadata_not_the_date(api, ds, clock):
    tender = create_tender(api)
    created = api.post(f"{tender.path}/documents", document(ds), token=tender.token).json()["data"]
    clock.advance(seconds=10)
    path = f"{tender.path}/documents/{created['id']}"
    response = api.patch(
        path,
        {"documentType": "technicalSpecifications", "description": "змінено", "url": "x"},
        token=tender.token,
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["documentType"], data["description"]) == ("technicalSpecifications", "змінено")
    assert data["dateModified"] == created["dateModified"] and data["url"] == created["url"]
    assert (
        single_error(api.patch(path, {"documentType": "memo"}, token=tender.token), 422)["name"]
        == "documentType"
    )
    too_long = api.patch(path, {"format": "application/" + "x" * 250}, token=tender.token)
    assert single_error(too_long, 422)["name"] == "format"  # (was a 500: the fuzzer's find)


def test_download_redirects_to_a_fresh_signed_url(api, ds, store):
    tender = create_tender(api)
    sent = document(ds)
    data = api.post(f"{tender.path}/documents", sent, token=tender.token).json()["data"]
    key = urlsplit(sent["url"]).path.rsplit("/", 1)[1]
    response = api.get(f"{tender.path}/documents/{data['id']}", {"download": key})
    assert response.status_code == 302 and "Expires=" in response["Location"]
    assert fetched(ds, response["Location"])[0] == CONTENT
    assert (
        single_error(api.get(f"{tender.path}/documents/{data['id']}", {"download": "nope"}), 404)[
            "name"
        ]
        == "download"
    )


def test_multipart_upload_straight_to_the_registry(api, ds, store):
    tender = create_tender(api)
    body, content_type = multipart("Технічні вимоги.pdf", CONTENT)  # no part Content-Type
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["title"], data["format"], data["hash"]) == (
        "Технічні вимоги.pdf",
        "application/pdf",
        md5(),
    )
    assert download(api, ds, data["url"])[0] == CONTENT
    body, content_type = multipart("Технічні вимоги v2.docx", b"v2")
    response = api.put(
        f"{tender.path}/documents/{data['id']}",
        body=body,
        content_type=content_type,
        token=tender.token,
    )
    assert (
        response.json()["data"]["format"]
        == "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    )
    assert download(api, ds, response.json()["data"]["url"])[0] == b"v2"


@pytest.mark.parametrize(
    ("change", "status", "name", "description"),
    [
        (
            {"url": "http://example.org/get/abc?KeyID=1&Signature=2"},
            403,
            "url",
            "Can add document only from document service.",
        ),
        (
            {"url": "http://testserver/ds/upload/abc?KeyID=1&Signature=2"},
            403,
            "url",
            "Can add document only from document service.",
        ),
        ("extra-param", 403, "url", "Can add document only from document service."),
        ("no-hash", 422, "hash", "This field is required."),
        ("tampered", 422, "url", "Document url invalid."),
        ("other-hash", 422, "url", "Document url invalid."),
        ("unknown-key", 422, "url", "Document url expired."),
        ("not-base64", 422, "url", "Document url signature invalid."),
        ({"hash": "sha1:" + "0" * 40}, 422, "hash", ["Hash type is not supported."]),
        ({"hash": "md5:123"}, 422, "hash", ["Hash value is wrong length."]),
        ({"hash": "md5:" + "z" * 32}, 422, "hash", ["Hash value is not hexadecimal."]),
        ({"format": "pdf"}, 422, "format", ["String value did not match validation regex."]),
        (  # longer than its column (was a 500)
            {"format": "application/" + "x" * 250},
            422,
            "format",
            ["Ensure this field has no more than 255 characters."],
        ),
        ({"title": None}, 422, "title", ["This field is required."]),
        (
            {"documentOf": "item", "relatedItem": "nope"},
            422,
            "relatedItem",
            ["relatedItem should be one of items"],
        ),
        ({"documentOf": "lot"}, 422, "relatedItem", ["This field is required."]),
        (
            {"documentOf": "lot", "relatedItem": "nope"},
            422,
            "relatedItem",
            ["relatedItem should be one of lots"],
        ),
        (
            {"documentOf": "bid"},
            422,
            "documentOf",
            ["Value must be one of ['tender', 'item', 'lot']."],
        ),
    ],
)
def test_bad_document_registrations_are_refused_and_nothing_is_attached(
    api, ds, change, status, name, description
):
    tender = create_tender(api)
    data = document(ds)
    if change == "extra-param":
        data["url"] = with_query(data["url"], extra="1")
    elif change == "no-hash":
        del data["hash"]
    elif change == "tampered":
        data["url"] = with_query(data["url"], Signature="A" * 86 + "==")
    elif change == "other-hash":
        data["hash"] = md5(b"other content")
    elif change == "unknown-key":
        data["url"] = with_query(data["url"], KeyID="0badc0de")
    elif change == "not-base64":
        data["url"] = with_query(data["url"], Signature="%%%")
    else:
        data.update(change)
        data = {k: v for k, v in data.items() if v is not None}
    response = api.post(f"{tender.path}/documents", data, token=tender.token)
    assert single_error(response, status) == {
        "location": "body",
        "name": name,
        "description": description,
    }
    assert not TenderDocument.objects.exists()


def test_document_in_a_status_that_forbids_it_is_refused_and_nothing_stored(api, ds, clock, store):
    tender = open_for_bids(api, clock)
    response = api.post(f"{tender.path}/documents", document(ds), token=tender.token)
    assert (
        single_error(response, 403)["description"]
        == "Can't add document in current (active.tendering) tender status"
    )
    uploaded = StoredFile.objects.count()
    body, content_type = multipart("late.pdf", CONTENT)
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert (
        single_error(response, 403)["description"]
        == "Can't add document in current (active.tendering) tender status"
    )
    assert StoredFile.objects.count() == uploaded and not TenderDocument.objects.exists()


def test_only_the_owner_adds_tender_documents(api, api2, ds):
    tender = create_tender(api)
    assert (
        single_error(api2.post(f"{tender.path}/documents", document(ds), token=tender.token), 403)[
            "name"
        ]
        == "permission"
    )
    assert (
        single_error(api.post(f"{tender.path}/documents", document(ds)), 403)["name"]
        == "permission"
    )
    assert (
        single_error(
            api.put(f"{tender.path}/documents/nope", document(ds), token=tender.token), 404
        )["name"]
        == "document_id"
    )


def test_oversized_multipart_is_413_and_nothing_stored(api, settings, store):
    settings.DOCUMENT_MAX_BYTES = 100
    tender = create_tender(api)
    body, content_type = multipart("big.pdf", b"x" * 1000)
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert single_error(response, 413)["name"] == "file"
    assert not StoredFile.objects.exists() and not TenderDocument.objects.exists()


def test_multipart_without_a_file_is_404(api):
    tender = create_tender(api)
    body, content_type = multipart("x.pdf", CONTENT, field="other")
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert single_error(response, 404) == {
        "location": "body",
        "name": "file",
        "description": "Not Found",
    }


def test_claim_in_three_steps_with_a_real_file(api, api2, clock, client, brokers, store):
    """Service description, "Document upload procedure": register, attach to the draft claim,
    upload the content, submit; then download through the registry's URL."""
    claims = Claims(api, api2, clock)
    draft, token = claims.filed()
    ds2 = DocService(client, key="broker2")
    registered = ds2.register(md5()).json()
    attach = {
        "title": NAME,
        "format": "application/pdf",
        "url": registered["data"]["url"],
        "hash": md5(),
    }
    response = api2.post(f"{claims.path}/{draft['id']}/documents", attach, token=token)
    assert response.status_code == 201
    attached = response.json()["data"]
    assert attached["author"] == "complaint_owner"
    assert ds2.upload(registered["upload_url"]).status_code == 200
    submitted = claims.patch(draft, {"status": "claim"}, token).json()["data"]
    assert submitted["status"] == "claim" and submitted["documents"] == [attached]
    assert download(api, ds2, attached["url"]) == download(
        api, ds2, submitted["documents"][0]["url"]
    )
    content, disposition = download(api, ds2, attached["url"])
    assert content == CONTENT and "%D0%A1%D0%BA%D0%B0%D1%80%D0%B3%D0%B0" in disposition
    assert claims.tender.read()["awards"][0]["complaints"][0]["documents"] == [attached]


def status_refusal(status: str) -> dict:
    return {
        "location": "body",
        "name": "data",
        "description": f"Can't add document in current ({status}) complaint status",
    }


def test_claim_document_status_rules(api, api2, clock, client, brokers, store):
    claims = Claims(api, api2, clock)
    ds2, ds1 = DocService(client, key="broker2"), DocService(client, key="broker")
    claim, token = claims.filed(status="claim")
    documents = f"{claims.path}/{claim['id']}/documents"
    sent = document(ds2)
    refused(lambda: api2.post(documents, sent, token=token), status_refusal("claim"))
    refused(lambda: with_file(api2, "post", documents, token), status_refusal("claim"))
    owners = api.post(documents, document(ds1), token=claims.tender.token)
    assert owners.status_code == 201 and owners.json()["data"]["author"] == "tender_owner"
    owner_doc = owners.json()["data"]["id"]
    claims.owner_patch(claim, ANSWER)
    # Answered: the claimant may add, the owner no longer; and nobody replaces another's document.
    assert api2.post(documents, document(ds2), token=token).status_code == 201
    sent = document(ds1)
    refused(
        lambda: api.post(documents, sent, token=claims.tender.token), status_refusal("answered")
    )
    refused(
        lambda: with_file(api, "post", documents, claims.tender.token), status_refusal("answered")
    )
    not_author = {
        "location": "url",
        "name": "role",
        "description": "Can update document only author",
    }
    sent = document(ds2)
    refused(lambda: api2.put(f"{documents}/{owner_doc}", sent, token=token), not_author)
    refused(lambda: with_file(api2, "put", f"{documents}/{owner_doc}", token), not_author)
    forbidden = {"location": "url", "name": "permission", "description": "Forbidden"}
    sent = document(ds2)
    refused(lambda: api2.post(documents, sent, token=claims.bid_token), forbidden)
    refused(lambda: with_file(api2, "post", documents, claims.bid_token), forbidden)
    assert ComplaintDocument.objects.count() == 2


def test_draft_claim_is_not_found_by_the_tender_owner(api, api2, clock, client, brokers, store):
    claims = Claims(api, api2, clock)
    draft, _ = claims.filed()
    documents = f"{claims.path}/{draft['id']}/documents"
    sent = document(DocService(client))
    not_found = {"location": "url", "name": "complaint_id", "description": "Not Found"}
    refused(lambda: api.post(documents, sent, token=claims.tender.token), not_found, 404)
    refused(lambda: with_file(api, "post", documents, claims.tender.token), not_found, 404)
    assert not ComplaintDocument.objects.exists()


def test_tender_read_with_documents_costs_the_same(api, ds, anonymous, query_count):
    def queries(tender):
        with query_count() as captured:
            assert anonymous.get(tender.path).status_code == 200
        return len(captured.captured_queries)

    one, many = create_tender(api), create_tender(api)
    api.post(f"{one.path}/documents", document(ds), token=one.token)
    for n in range(5):
        api.post(f"{many.path}/documents", document(ds, bytes([n]) * 10), token=many.token)
    assert len(many.read()["documents"]) == 5
    Tender.objects.update(public_text="")  # both rendered (then kept) by the reads measured
    assert queries(one) == queries(many)
    assert queries(one) == queries(many) == 1


def test_errors_of_document_requests_are_in_the_envelope(api, ds):
    tender = create_tender(api)
    response = api.post(
        f"{tender.path}/documents", body="x", content_type="text/plain", token=tender.token
    )
    assert single_error(response, 415)["name"] == "Content-Type"
    assert error(api.post(f"{tender.path}/documents", {}, token=tender.token), 422)
