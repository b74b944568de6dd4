"""Uploads racing to one registered document (a client retrying an upload still in flight),
against gunicorn with eight workers on PostgreSQL: one content is stored and readable, the others
are refused in the envelope, no answer claims a file that is not there, and no file is left
behind by the uploads that lost."""

import hashlib
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import pytest
from django.db import transaction

from docservice.models import StoredFile
from tests.docservice.helpers import multipart
from tests.helpers import basic
from tests.served import call, gunicorn, waiting_for_locks

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Large enough that its upload takes a while: races overlap in writing, not only in claiming.
CONTENT = b"%PDF-1.4\n" + hashlib.sha256(b"seed").digest() * 16_000
BROKER = {"Authorization": basic("broker")}


@pytest.fixture
def served(brokers, tmp_path):
    documents = tmp_path / "documents"
    # (one broker's eight uploads race at once on purpose: none waits for another's place)
    with gunicorn(
        tmp_path, workers=8, DOCUMENTS_ROOT=str(documents), API_CONCURRENT_WRITES="0"
    ) as base:
        yield base, documents


def register(base: str) -> str:
    form = urlencode({"hash": "md5:" + hashlib.md5(CONTENT).hexdigest()}).encode()
    status, _, body = call(
        f"{base}/ds/register",
        method="POST",
        body=form,
        **BROKER,
        **{"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 201, body
    return json.loads(body)["upload_url"]


def upload(url: str):
    body, content_type = multipart("протокол.pdf", CONTENT, "application/pdf")
    return call(url, method="POST", body=body, **BROKER, **{"Content-Type": content_type})


def race(url: str, uploads: int, *, hold_row: str | None = None):
    """Send `uploads` uploads of the same content to `url` at once. With `hold_row`, the test
    holds that document's row until every upload has stored its file and waits to claim it,
    so that they all race to claim it for certain."""
    barrier = threading.Barrier(uploads)

    def one(_):
        barrier.wait()
        return upload(url)

    with ThreadPoolExecutor(uploads) as pool:
        if hold_row is None:
            return list(pool.map(one, range(uploads)))
        with transaction.atomic():
            StoredFile.objects.select_for_update().get(pk=hold_row)
            answers = pool.map(one, range(uploads))
            waiting_for_locks(uploads, "uploads")
        # (the row is released here; the uploads then claim it one after another)
        return list(answers)


def files_of(documents, document_id: str) -> list[str]:
    return sorted(name for name in os.listdir(documents) if name.startswith(document_id))


def assert_consistent(base: str, documents, url: str, answers) -> int:
    """One upload stored the content, readable by both its URLs; each other was refused in the
    envelope as already uploaded (409 when it lost the claim, 403 when it came after); one
    file is kept. The number of uploads that lost the claim."""
    document_id = url.split("/upload/")[1].split("?")[0]
    won = [body for status, _, body in answers if status == 200]
    refused = [(status, json.loads(body)) for status, _, body in answers if status != 200]
    assert len(won) == 1, [status for status, _, _ in answers]
    for status, envelope in refused:
        assert status in (403, 409), (status, envelope)
        assert envelope["status"] == "error"
        assert envelope["errors"][0]["description"] == "Content already uploaded"
    stored = json.loads(won[0])
    for link in (stored["get_url"], stored["data"]["url"]):
        status, _, content = call(link)
        assert status == 200, content
        assert content == CONTENT
    assert len(files_of(documents, document_id)) == 1
    return sum(status == 409 for status, _ in refused)


@pytest.mark.parametrize("uploads", [2, 8])
def test_uploads_racing_to_claim_one_document_store_one_content(served, uploads):
    base, documents = served
    for _ in range(5):
        url = register(base)
        document_id = url.split("/upload/")[1].split("?")[0]
        answers = race(url, uploads, hold_row=document_id)
        assert assert_consistent(base, documents, url, answers) == uploads - 1


@pytest.mark.parametrize(("uploads", "rounds"), [(2, 20), (8, 8)])
def test_uploads_sent_at_once_to_one_document_store_one_content(served, uploads, rounds):
    base, documents = served
    for _ in range(rounds):
        url = register(base)
        assert_consistent(base, documents, url, race(url, uploads))
