"""Files the registry stores for a change it then refuses are not kept."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core.actors import Actor, Role
from core.errors import DomainError, NotAllowed
from docservice import client
from docservice.models import StoredFile
from tests.docservice.helpers import stored_names

pytestmark = pytest.mark.django_db


def uploads():
    return [
        SimpleUploadedFile("a.pdf", b"%PDF-1.4 a", content_type="application/pdf"),
        SimpleUploadedFile("b.txt", b"b", content_type="text/plain"),
    ]


def test_stored_files_are_discarded_when_the_change_is_refused(brokers):
    actor = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    stored = client.store_files(uploads(), actor)
    assert StoredFile.objects.count() == 2 and len(stored_names()) == 2

    with pytest.raises(NotAllowed), client.discarded_on_refusal(stored):
        raise NotAllowed("Can't add document in current (active.tendering) tender status")

    assert not StoredFile.objects.exists()
    assert stored_names() == []


def test_stored_files_stay_when_the_change_is_made(brokers):
    stored = client.store_files(uploads(), Actor(Role.AUTHENTICATED, broker=brokers["broker"]))

    with client.discarded_on_refusal(stored):
        pass

    assert StoredFile.objects.count() == 2 and len(stored_names()) == 2


def test_a_failed_upload_leaves_none_of_the_files_before_it(brokers, settings):
    settings.DOCUMENT_MAX_BYTES = 20
    too_large = SimpleUploadedFile("c.txt", b"c" * 21, content_type="text/plain")

    with pytest.raises(DomainError):
        client.store_files(
            [*uploads(), too_large], Actor(Role.AUTHENTICATED, broker=brokers["broker"])
        )

    assert not StoredFile.objects.exists()
    assert stored_names() == []
