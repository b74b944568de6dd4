"""The document service: register, upload (once, with the registered MD5), get (signed)."""

import hashlib
import os
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from nacl.encoding import HexEncoder
from nacl.signing import SigningKey

from docservice import links
from docservice.models import StoredFile, UploadOvertaken
from docservice.uploads import hash_file
from tests.docservice.helpers import (
    CONTENT,
    NAME,
    DocService,
    body_of,
    fetched,
    md5,
    multipart,
    stored_names,
    with_query,
)
from tests.helpers import single_error

pytestmark = pytest.mark.django_db


def test_register_answers_the_upload_url_and_the_url_to_attach(ds):
    response = ds.register()
    assert response.status_code == 201
    body = response.json()
    assert response["Location"] == body["upload_url"]
    assert body["data"]["hash"] == md5()
    doc_id = body["data"]["url"].split("/get/")[1].split("?")[0]
    assert body["data"]["url"].startswith(f"http://testserver/ds/get/{doc_id}?KeyID=")
    assert body["upload_url"].startswith(f"http://testserver/ds/upload/{doc_id}?KeyID=")
    assert StoredFile.objects.get(pk=doc_id).md5 == md5()[4:]


def test_register_takes_a_json_body_too(ds, client):
    response = client.post(
        "/ds/register", {"data": {"hash": md5()}}, content_type="application/json", **ds.headers()
    )
    assert response.status_code == 201


def test_a_register_body_past_the_bound_is_told_so(ds, client, settings):
    settings.API_MAX_BODY_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    body = {"data": {"hash": md5(), "padding": "x" * 2048}}
    response = client.post("/ds/register", body, content_type="application/json", **ds.headers())
    # (it spoke of a file's bound, DOCUMENT_MAX_BYTES, which no file had reached)
    assert single_error(response, 413)["description"] == (
        "Request body is larger than the limit of 1024 bytes"
    )


@pytest.mark.parametrize(
    ("hash_", "description"),
    [
        ("sha256:" + "0" * 64, "Hash type is not supported."),
        ("0" * 32, "Hash type is not supported."),
        ("md5:" + "0" * 31, "Hash value is wrong length."),
        ("md5:" + "g" * 32, "Hash value is not hexadecimal."),
    ],
)
def test_register_refuses_bad_hashes(ds, hash_, description):
    assert single_error(ds.register(hash_), 422) == {
        "location": "body",
        "name": "hash",
        "description": [description],
    }
    assert not StoredFile.objects.exists()


def test_register_without_a_hash_is_404_as_in_2_3(ds):
    assert single_error(ds.register(False), 404) == {
        "location": "body",
        "name": "hash",
        "description": "Not Found",
    }


def test_uploading_needs_a_broker_key(client, brokers):
    anonymous = DocService(client, key=None)
    assert single_error(anonymous.register(), 403)["name"] == "permission"
    assert single_error(anonymous.upload_unregistered(), 403)["name"] == "permission"
    assert single_error(DocService(client, key="nobody").register(), 403)["name"] == "permission"


def test_upload_then_get_returns_the_same_bytes_and_name(ds, store):
    registered = ds.register().json()
    response = ds.upload(registered["upload_url"])
    assert response.status_code == 200
    body = response.json()
    assert body["data"]["hash"] == md5() and body["data"]["title"] == NAME
    assert body["data"]["format"] == "application/pdf"
    assert body["data"]["url"] == registered["data"]["url"]
    for url in (registered["data"]["url"], body["get_url"]):
        assert fetched(ds, url) == (
            CONTENT,
            "attachment; filename*=utf-8''%D0%A1%D0%BA%D0%B0%D1%80%D0%B3%D0%B0%20%E2%84%961.pdf",
        )
    stored = StoredFile.objects.get()
    assert stored.sha256 == hashlib.sha256(CONTENT).hexdigest() and stored.size == len(CONTENT)
    # stored under its id (and a suffix of the upload's own), never its name
    assert stored_names() == [stored.storage_name]
    assert stored.storage_name.startswith(f"{stored.id}.")


def test_head_answers_what_get_would_without_the_bytes(ds, client):
    url = ds.registered_and_uploaded()

    head = client.head(urlsplit(url).path + "?" + urlsplit(url).query)

    assert head.status_code == 200  # (was 405)
    assert head["Content-Length"] == str(len(CONTENT))
    assert head["Content-Disposition"].startswith("attachment;")
    assert body_of(head) == b""


def test_upload_with_another_md5_is_refused_and_nothing_kept(ds, store):
    registered = ds.register().json()
    response = ds.upload(registered["upload_url"], content=b"other content")
    assert single_error(response, 403) == {
        "location": "body",
        "name": "file",
        "description": "Invalid checksum",
    }
    assert not StoredFile.objects.get().uploaded
    assert stored_names() == []
    assert single_error(ds.get(registered["data"]["url"]), 404)["name"] == "doc_id"


def test_content_cannot_be_replaced(ds, store):
    registered = ds.register().json()
    assert ds.upload(registered["upload_url"]).status_code == 200
    again = ds.upload(registered["upload_url"])
    assert single_error(again, 403)["description"] == "Content already uploaded"
    assert len(stored_names()) == 1


@pytest.mark.parametrize(
    ("change", "name", "description"),
    [
        ({"Signature": "AAAA" + "A" * 84}, "Signature", "Signature does not match"),
        ({"Signature": "not base64!"}, "Signature", "Signature invalid"),
        ({"KeyID": "00000000"}, "KeyID", "Key Id does not exist"),
        ({"Signature": None}, "Signature", "Not Found"),
    ],
)
def test_tampered_upload_url_is_refused(ds, change, name, description):
    registered = ds.register().json()
    response = ds.upload(with_query(registered["upload_url"], **change))
    assert single_error(response, 404 if description == "Not Found" else 403) == {
        "location": "url",
        "name": name,
        "description": description,
    }
    assert stored_names() == []


def test_a_download_url_is_not_an_upload_url(ds):
    registered = ds.register().json()
    forged = registered["data"]["url"].replace("/get/", "/upload/")
    assert single_error(ds.upload(forged), 403)["description"] == "Signature does not match"


def test_permanent_url_is_bound_to_the_registered_md5(ds, client):
    url = ds.registered_and_uploaded()
    other = ds.register(md5(b"something else")).json()["data"]["url"]
    # The signature of one document's URL does not open another's.
    signature = dict(p.split("=", 1) for p in other.split("?")[1].split("&"))["Signature"]
    forged = with_query(url, Signature=__import__("urllib.parse").parse.unquote(signature))
    assert single_error(ds.get(forged), 403)["description"] == "Signature does not match"


def test_permanent_url_signed_for_another_md5_is_refused(ds):
    """The same document id, a genuine signature of the document service's key, but over
    another MD5: the URL does not open the document registered with this one."""
    url = ds.registered_and_uploaded()
    doc_id = urlsplit(url).path.rsplit("/", 1)[1]
    base = url.split("/get/", 1)[0]
    forged = links.permanent_url(base, doc_id, hashlib.md5(b"other content").hexdigest())
    assert urlsplit(forged).path == urlsplit(url).path
    assert parse_qs(urlsplit(forged).query)["KeyID"] == parse_qs(urlsplit(url).query)["KeyID"]
    assert single_error(ds.get(forged), 403) == {
        "location": "url",
        "name": "Signature",
        "description": "Signature does not match",
    }
    assert ds.get(url).status_code == 200  # signed over the registered MD5, it opens


def test_stored_sha256_is_that_of_the_content(ds, store):
    content = b"%PDF-1.4 sha256 of what was received"
    ds.registered_and_uploaded(content)
    unregistered = b"uploaded without registration"
    ds.upload_unregistered(unregistered)
    assert sorted(StoredFile.objects.values_list("sha256", flat=True)) == sorted(
        hashlib.sha256(c).hexdigest() for c in (content, unregistered)
    )


def test_temporary_url_expires(ds, time_machine):
    registered = ds.register().json()
    get_url = ds.upload(registered["upload_url"]).json()["get_url"]
    assert ds.get(get_url).status_code == 200
    time_machine.move_to(time.time() + 3600, tick=False)
    assert single_error(ds.get(get_url), 403) == {
        "location": "url",
        "name": "Expires",
        "description": "Request has expired",
    }
    assert ds.get(with_query(get_url, Expires=str(int(time.time()) + 3600))).status_code == 403
    assert ds.get(registered["data"]["url"]).status_code == 200  # the permanent one does not


def test_upload_without_registration(ds):
    response = ds.upload_unregistered()
    assert response.status_code == 200
    body = response.json()
    assert response["Location"] == body["get_url"]
    assert body["data"]["hash"] == md5()
    assert body_of(ds.get(body["data"]["url"])) == CONTENT


def test_upload_without_a_file_part(ds, client):
    registered = ds.register().json()
    response = client.post(
        registered["upload_url"].replace("http://testserver", ""), {"other": "x"}, **ds.headers()
    )
    assert single_error(response, 404) == {
        "location": "body",
        "name": "file",
        "description": "Not Found",
    }


def test_file_over_the_limit_is_413_and_nothing_kept(ds, settings, store):
    settings.DOCUMENT_MAX_BYTES = 1000
    registered = ds.register(md5(b"x" * 5000)).json()
    response = ds.upload(registered["upload_url"], content=b"x" * 5000)
    assert single_error(response, 413) == {
        "location": "body",
        "name": "file",
        "description": "File is larger than the limit of 1000 bytes",
    }
    assert single_error(ds.upload_unregistered(content=b"x" * 200_000), 413)["name"] == "file"
    assert (
        stored_names() == [] and not StoredFile.objects.filter(uploaded_at__isnull=False).exists()
    )


@pytest.mark.parametrize(
    "name",
    ["../../etc/passwd", "..\\..\\boot.ini", "a/b/c.txt\x00.exe", "...", "%2e%2e%2fetc%2fpasswd"],
)
def test_path_tricks_in_file_names_stay_names(ds, name):
    body = ds.upload_unregistered(name=name).json()
    stored = StoredFile.objects.get()
    assert (
        "/" not in body["data"]["title"]
        and "\\" not in body["data"]["title"]
        and "\x00" not in body["data"]["title"]
    )
    assert stored_names() == [stored.storage_name]
    assert stored.storage_name.startswith(f"{stored.id}.")
    assert body_of(ds.get(body["data"]["url"])) == CONTENT


def test_a_part_without_a_file_name_is_no_file(ds):
    assert single_error(ds.upload_unregistered(name="/"), 404)["name"] == "file"


def test_unknown_document_is_404(ds):
    url = ds.register().json()["upload_url"].replace("/upload/", "/upload/0")
    assert single_error(ds.upload(url), 404)["name"] == "doc_id"
    assert (
        single_error(ds.client.get("/ds/get/nothing?KeyID=x&Signature=y"), 404)["name"] == "doc_id"
    )
    assert single_error(ds.client.get("/ds/elsewhere"), 404)["description"] == "Not Found"


def test_keys_rotate_without_breaking_old_urls(ds, settings):
    old_url = ds.registered_and_uploaded()
    old_seed = settings.DOCSERVICE_SIGNING_KEYS[0]
    new_seed = SigningKey.generate().encode(HexEncoder).decode()
    settings.DOCSERVICE_SIGNING_KEYS = [new_seed, old_seed]
    assert ds.get(old_url).status_code == 200
    new_url = ds.registered_and_uploaded(content=b"new")
    new_key_id = SigningKey(new_seed, encoder=HexEncoder).verify_key.encode(HexEncoder)[:8].decode()
    assert f"KeyID={new_key_id}" in new_url
    settings.DOCSERVICE_SIGNING_KEYS = [new_seed]
    assert single_error(ds.get(old_url), 403)["description"] == "Key Id does not exist"
    assert ds.get(new_url).status_code == 200


def test_storage_keys_never_come_from_names(ds, tmp_path):
    ds.upload_unregistered(name="../../escape.txt")
    assert not os.path.exists(tmp_path / "escape.txt")
    assert not os.path.exists(tmp_path.parent / "escape.txt")


def test_standalone_deployment_serves_at_the_root(client, brokers, settings):
    settings.ROOT_URLCONF = "docservice.standalone_urls"
    headers = DocService(client).headers()
    registered = client.post("/register", {"hash": md5()}, **headers).json()
    assert registered["upload_url"].startswith("http://testserver/upload/")
    body, content_type = multipart(NAME, CONTENT)
    upload_path = registered["upload_url"].replace("http://testserver", "")
    assert client.post(upload_path, body, content_type=content_type, **headers).status_code == 200
    got = client.get(registered["data"]["url"].replace("http://testserver", ""))
    assert body_of(got) == CONTENT
    assert client.get("/api/2.3/tenders").status_code == 404


def received(content: bytes):
    upload = SimpleUploadedFile(NAME, content, "application/pdf")
    hash_file(upload)
    return upload


def test_an_upload_that_lost_the_race_changes_nothing_and_keeps_the_winners_file(ds, store):
    """Two uploads that both found the document without content (a retry of an upload still in
    flight): the one that claims it second is refused with 409 and removes only its own copy."""
    registered = ds.register().json()
    document_id = registered["data"]["url"].split("/get/")[1].split("?")[0]
    first, second = StoredFile.objects.get(pk=document_id), StoredFile.objects.get(pk=document_id)
    first.accept(upload=received(CONTENT), title=NAME, content_type="application/pdf")

    with pytest.raises(UploadOvertaken) as lost:
        second.accept(upload=received(CONTENT), title=NAME, content_type="application/pdf")

    assert lost.value.http_status == 409
    assert lost.value.description == "Content already uploaded"
    assert stored_names() == [StoredFile.objects.get().storage_name]
    assert fetched(ds, registered["data"]["url"])[0] == CONTENT


def test_content_the_store_has_lost_is_gone_not_a_retry(ds):
    registered = ds.register().json()
    assert ds.upload(registered["upload_url"]).status_code == 200
    storages["documents"].delete(StoredFile.objects.get().storage_name)

    response = ds.get(registered["data"]["url"])

    assert single_error(response, 410) == {
        "location": "url",
        "name": "doc_id",
        "description": "The document's content is missing from the document store",
    }
    assert "Retry-After" not in response


def test_content_cut_short_in_the_store_is_not_served_as_the_document(ds):
    url = ds.registered_and_uploaded()
    with storages["documents"].open(StoredFile.objects.get().storage_name, "wb") as stored:
        stored.write(CONTENT[:10])  # (the disk's fault, or an operator's)

    response = ds.get(url)

    # (it was a 200 with the ten bytes left)
    assert single_error(response, 410)["description"] == (
        "The document's content is damaged in the document store"
    )
