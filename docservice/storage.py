"""Where file content is kept, and what a failing store means.

A file is written whole or not at all: a full or read-only disk (or an unreachable bucket)
leaves no partial file behind, and answers 503 with Retry-After rather than 500. Each upload
writes under a name of its own, so no write ever replaces another's file. A file the store has
lost (its row says it was stored) is 410, not a 503 to retry: it will not come back.
"""

import contextlib
import logging
import os
import secrets
import tempfile

from django.core.files.storage import FileSystemStorage, storages

from core.errors import DomainError, Unavailable

logger = logging.getLogger(__name__)

try:  # object storage (django-storages' S3 backend) fails with botocore's errors
    from botocore.exceptions import BotoCoreError, ClientError

    STORAGE_ERRORS: tuple[type[BaseException], ...] = (OSError, BotoCoreError, ClientError)
except ImportError:  # pragma: no cover - botocore comes with django-storages[s3]
    STORAGE_ERRORS = (OSError,)


def documents_storage():
    return storages["documents"]


class StorageUnavailable(Unavailable):
    def __init__(self):
        super().__init__("storage")


class ContentLost(DomainError):
    http_status = 410
    code = "content_lost"
    location = "url"

    def __init__(self, damaged: bool = False):
        said = "is damaged in" if damaged else "is missing from"
        super().__init__(f"The document's content {said} the document store", name="doc_id")


def name_for_attempt(document_id: str) -> str:
    """A name no other upload writes to: the document's id and a random suffix."""
    return f"{document_id}.{secrets.token_hex(8)}"


class AtomicFileSystemStorage(FileSystemStorage):
    """A folder of files, each written into a temporary file beside its final place and
    renamed into place once complete (a rename within one folder is atomic)."""

    def _save(self, name, content):
        full_path = self.path(name)
        directory = os.path.dirname(full_path)
        if self.directory_permissions_mode is not None:
            os.makedirs(directory, self.directory_permissions_mode, exist_ok=True)
        else:
            os.makedirs(directory, exist_ok=True)
        descriptor, partial = tempfile.mkstemp(dir=directory, prefix=".partial-")
        try:
            with os.fdopen(descriptor, "wb") as out:
                content.seek(0)
                for chunk in content.chunks():
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if self.file_permissions_mode is not None:
                os.chmod(partial, self.file_permissions_mode)
            os.replace(partial, full_path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial)
            raise
        return os.path.relpath(full_path, self.location).replace(os.sep, "/")


def save(name: str, content) -> str:
    """Store `content` under `name`; the name it was stored under, or StorageUnavailable."""
    try:
        return documents_storage().save(name, content)
    except STORAGE_ERRORS as error:
        logger.error("document store refused a write: %r", error)
        raise StorageUnavailable() from error


def open_file(name: str, size: int | None = None):
    """The stored file to read, checked to be as long as it was stored (`size`): a file cut
    short is not served as the document."""
    try:
        opened = documents_storage().open(name, "rb")
        if size is not None and opened.size != size:
            opened.close()
            logger.error(
                "document store holds %s at %s bytes, stored at %s", name, opened.size, size
            )
            raise ContentLost(damaged=True)
        return opened
    except FileNotFoundError:
        logger.error("document store has lost %s, which a row says it stored", name)
        raise ContentLost() from None
    except STORAGE_ERRORS as error:
        logger.error("document store refused a read: %r", error)
        raise StorageUnavailable() from error


def delete(name: str) -> None:
    """Forget a file; a store that refuses leaves an orphan, which is logged, not raised (the
    answer to the request does not depend on it)."""
    try:
        documents_storage().delete(name)
    except STORAGE_ERRORS as error:
        logger.error("document store kept %s it was asked to delete: %r", name, error)
