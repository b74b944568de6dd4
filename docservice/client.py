"""How the registry stores a file it received itself (a multipart upload to its API): straight
into the embedded document service, or over HTTP to the document service at DOCSERVICE_URL."""

import base64
import json
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.error import URLError
from urllib.request import Request, urlopen

from django.conf import settings

from core.errors import DomainError

from . import links
from .models import StoredFile
from .uploads import clean_filename, guess_format, hash_file, read_upload


class UploadFailed(DomainError):
    http_status = 422
    code = "docservice_failed"

    def __init__(self):
        super().__init__("Can't upload document to document service.")


@dataclass
class Stored:
    key: str
    md5: str
    title: str
    format: str
    stored_file: StoredFile | None = field(default=None, repr=False)

    def fields(self) -> dict:
        return {
            "key": self.key,
            "md5": self.md5,
            "title": self.title,
            "format": self.format,
            "metadata": {},
        }

    def discard(self) -> None:
        """Remove content whose attachment was refused (a remote service keeps it: it is
        unreachable without a registry-signed URL)."""
        if self.stored_file is not None:
            self.stored_file.discard()


def store_upload(request, actor) -> Stored:
    return store_file(read_upload(getattr(request, "_request", request)), actor)


def store_file(upload, actor) -> Stored:
    """Keep an uploaded file's content in the document service on behalf of `actor`."""
    if not hasattr(upload, "md5"):
        hash_file(upload)
    title = clean_filename(upload.name)
    format_ = guess_format(title, upload.content_type)
    if settings.DOCSERVICE_URL:
        return _store_remotely(upload, title, format_)
    stored = StoredFile.store_new(
        broker=actor.broker, upload=upload, title=title, content_type=format_
    )
    return Stored(stored.id, stored.md5, title, format_, stored)


def store_files(uploads, actor) -> list[Stored]:
    """Store every upload, or none: what was stored before a failure is discarded."""
    stored = []
    with discarded_on_refusal(stored):
        for upload in uploads:
            stored.append(store_file(upload, actor))
    return stored


def attach_uploads(container, actor, uploads) -> None:
    """Store the uploads and add them to `container` (a tender or a claim) as `actor`'s
    documents; asked first whether `actor` may, and the content is discarded if refused."""
    container.check_document_change(actor, "add")
    stored = store_files(uploads, actor)
    with discarded_on_refusal(stored):
        for item in stored:
            container.add_document(by=actor, **item.fields())


@contextmanager
def discarded_on_refusal(stored: list[Stored]):
    """Discard the stored files when the change they were for is refused."""
    try:
        yield
    except DomainError:
        for item in stored:
            item.discard()
        raise


def _store_remotely(upload, title: str, format_: str) -> Stored:
    base = settings.DOCSERVICE_URL
    boundary = uuid.uuid4().hex
    quoted = title.replace('"', "%22")
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{quoted}"\r\n'
        f"Content-Type: {format_}\r\n\r\n"
    ).encode()
    body = head + upload.read() + f"\r\n--{boundary}--\r\n".encode()
    credentials = base64.b64encode(f"{settings.DOCSERVICE_UPLOAD_KEY}:".encode()).decode()
    request = Request(
        f"{base}/upload",
        data=body,
        method="POST",
        headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Authorization": f"Basic {credentials}",
        },
    )
    try:
        with urlopen(request, timeout=60) as response:
            answer = json.load(response)
        parsed = links.parse(answer["data"]["url"], base)
        md5 = answer["data"]["hash"].split(":", 1)[1]
    except (URLError, OSError, ValueError, KeyError, TypeError, IndexError):
        raise UploadFailed() from None
    if parsed is None:
        raise UploadFailed()
    return Stored(parsed[0], md5, title, format_)
