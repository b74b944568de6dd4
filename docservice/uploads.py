"""Receiving a file: streamed to a temporary file, hashed (MD5 and SHA-256) on the way, and
stopped at DOCUMENT_MAX_BYTES before anything is kept."""

import hashlib
import mimetypes
import re
import unicodedata

from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopFutureHandlers, StopUpload
from django.http.multipartparser import MultiPartParser, MultiPartParserError

from core.errors import DomainError, NotFound

from .storage import StorageUnavailable


class FileTooLarge(DomainError):
    http_status = 413
    code = "too_large"

    def __init__(self):
        limit = settings.DOCUMENT_MAX_BYTES
        super().__init__(f"File is larger than the limit of {limit} bytes", name="file")


class BadUpload(DomainError):
    http_status = 422
    code = "bad_upload"

    def __init__(self):
        super().__init__("Could not read the multipart body", name="file")


class HashingUploadHandler(FileUploadHandler):
    """Takes the part named `file` (the first one), and only it."""

    def __init__(self, request, limit: int):
        super().__init__(request)
        self.limit = limit
        self.too_large = False
        self.taken = False

    def new_file(self, field_name, *args, **kwargs):
        super().new_file(field_name, *args, **kwargs)
        self.active = field_name == "file" and not self.taken
        if self.active:
            self.taken = True
            self.size = 0
            self.md5, self.sha256 = hashlib.md5(), hashlib.sha256()
            name = clean_filename(self.file_name)
            self.file = TemporaryUploadedFile(name, self.content_type, 0, self.charset)
        raise StopFutureHandlers()

    def receive_data_chunk(self, raw_data, start):
        if not self.active:
            return None
        self.size += len(raw_data)
        if self.size > self.limit:
            self.too_large = True
            self.file.close()
            raise StopUpload(connection_reset=True)
        self.md5.update(raw_data)
        self.sha256.update(raw_data)
        self.file.write(raw_data)
        return None

    def file_complete(self, file_size):
        if not self.active:
            return None
        self.file.seek(0)
        self.file.size = file_size
        self.file.md5 = self.md5.hexdigest()
        self.file.sha256 = self.sha256.hexdigest()
        return self.file


def read_upload(request) -> TemporaryUploadedFile:
    """The multipart part `file` of a Django request, hashed (`.md5`, `.sha256`), or the error
    to answer: 413 too large, 422 unreadable, 404 body/file when there is no such part."""
    limit = settings.DOCUMENT_MAX_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    # Refuse up front what cannot fit, rather than read it (64 KiB for the multipart framing).
    if declared > limit + 64 * 1024:
        raise FileTooLarge()
    handler = HashingUploadHandler(request, limit)
    request.upload_handlers = [handler]
    try:
        if request.method == "POST":
            files = request.FILES
        else:  # Django parses multipart bodies of POSTs only; a PUT carries a new version
            _, files = MultiPartParser(request.META, request, [handler], request.encoding).parse()
        upload = files.get("file")
    except MultiPartParserError:
        raise BadUpload() from None
    except OSError as error:  # the temporary folder is full, or the client went away
        raise StorageUnavailable() from error
    if handler.too_large:
        raise FileTooLarge()
    if upload is None:
        raise NotFound("file", location="body")
    return upload


def hash_file(upload) -> None:
    """Give a file that arrived otherwise (a portal form's) the `.md5` and `.sha256` that
    HashingUploadHandler computes while streaming; refuse it past DOCUMENT_MAX_BYTES."""
    if upload.size > settings.DOCUMENT_MAX_BYTES:
        raise FileTooLarge()
    md5, sha256 = hashlib.md5(), hashlib.sha256()
    for chunk in upload.chunks():
        md5.update(chunk)
        sha256.update(chunk)
    upload.seek(0)
    upload.md5, upload.sha256 = md5.hexdigest(), sha256.hexdigest()


_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


def clean_filename(name: str) -> str:
    """A file name fit to show and to send back in Content-Disposition: no directories, no
    control characters. (Storage never uses it: content is stored under the document's id.)"""
    name = unicodedata.normalize("NFC", name or "")
    name = re.split(r"[\\/]", name)[-1]
    name = _UNSAFE.sub("", name).strip().strip(".").strip()
    return name[:255] or "document"


def guess_format(name: str, declared: str | None) -> str:
    """The part's own content type when it says something; else a guess from the name."""
    if declared and declared not in ("application/octet-stream", "text/plain"):
        return declared
    guessed, _ = mimetypes.guess_type(name)
    return guessed or declared or "application/octet-stream"
