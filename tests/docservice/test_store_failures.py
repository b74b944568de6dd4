"""A document store that is full or read-only: every write answers 503 with Retry-After in
the envelope, leaves no partial file and no row claiming content, and the same request
succeeds once the store takes writes again. The store is a real filesystem: a tmpfs of 64 KiB
mounted for the test (root only; CI sets REQUIRE_MOUNT)."""

import os
import subprocess

import pytest

from docservice.models import StoredFile
from tests.docservice.helpers import document, md5, multipart
from tests.helpers import create_tender, single_error

pytestmark = pytest.mark.django_db

SMALL = b"%PDF-1.4 small enough\n" * 10
LARGE = b"%PDF-1.4 larger than the store\n" * 4000  # ~120 KiB


def _mount(*args) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.fixture
def store_folder(tmp_path, settings):
    """A 64 KiB tmpfs as the document store; `.read_only()` and `.writable()` remount it."""
    folder = tmp_path / "store"
    folder.mkdir()
    if os.geteuid() != 0 or not _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)):
        if os.environ.get("REQUIRE_MOUNT"):
            pytest.fail("REQUIRE_MOUNT is set but a tmpfs cannot be mounted here")
        pytest.skip("needs root to mount a tmpfs as a full or read-only store")
    settings.STORAGES = {
        **settings.STORAGES,
        "documents": {
            "BACKEND": "docservice.storage.AtomicFileSystemStorage",
            "OPTIONS": {"location": str(folder)},
        },
    }

    class Folder:
        path = folder

        def files(self) -> list[str]:
            return sorted(
                os.path.relpath(os.path.join(root, name), folder)
                for root, _dirs, names in os.walk(folder)
                for name in names
            )

        def read_only(self):
            assert _mount("-o", "remount,ro", str(folder))

        def writable(self):
            assert _mount("-o", "remount,rw", str(folder))

    yield Folder()
    subprocess.run(["umount", str(folder)], check=True)


def assert_storage_unavailable(response):
    assert single_error(response, 503) == {
        "location": "request",
        "name": "storage",
        "description": "Service Unavailable",
    }
    assert int(response["Retry-After"]) > 0


def test_a_full_store_refuses_with_503_and_keeps_no_partial_file(ds, store_folder):
    assert_storage_unavailable(ds.upload_unregistered(LARGE))
    assert store_folder.files() == []
    assert not StoredFile.objects.exists()

    registered = ds.register(md5(LARGE)).json()
    assert_storage_unavailable(ds.upload(registered["upload_url"], LARGE))
    assert store_folder.files() == []
    assert not StoredFile.objects.get().uploaded
    # A file that fits is stored whole.
    assert ds.upload_unregistered(SMALL).status_code == 200
    (name,) = store_folder.files()
    assert (store_folder.path / name).read_bytes() == SMALL


def test_a_read_only_store_refuses_then_takes_the_same_upload_once_writable(ds, store_folder):
    registered = ds.register(md5(SMALL)).json()
    store_folder.read_only()
    assert_storage_unavailable(ds.upload(registered["upload_url"], SMALL))
    assert_storage_unavailable(ds.upload_unregistered(SMALL))
    assert store_folder.files() == []
    assert StoredFile.objects.filter(uploaded_at__isnull=False).count() == 0

    store_folder.writable()
    assert ds.upload(registered["upload_url"], SMALL).status_code == 200
    assert len(store_folder.files()) == 1


def test_a_multipart_upload_to_the_registry_with_a_full_store_adds_nothing(api, store_folder):
    tender = create_tender(api)
    body, content_type = multipart("Оголошення.pdf", LARGE)
    response = api.post(
        f"{tender.path}/documents", body=body, content_type=content_type, token=tender.token
    )
    assert_storage_unavailable(response)
    assert store_folder.files() == []
    assert tender.read().get("documents") is None
    assert api.get(f"{tender.path}/documents").json()["data"] == []


def test_a_read_only_store_still_serves_what_it_has(ds, api, store_folder, client):
    sent = document(ds, SMALL, "Договір.pdf")
    store_folder.read_only()
    response = client.get(sent["url"].replace("http://testserver", ""))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == SMALL
