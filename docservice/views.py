"""The document service's HTTP face (2.3 DS protocol): register, upload, get.

Uploaders authenticate with their broker API key (Basic, key as user name, or Bearer), as on
the registry; downloads need only a valid signature. Errors use the 2.3 envelope.
"""

import json
import logging
import re
import time
from functools import wraps

from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError
from django.http import FileResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST, require_safe

from core.api.auth import presented_broker
from core.api.envelope import BodyTooLarge
from core.api.errors import error_response
from core.api.throttling import check_rate
from core.errors import (
    DomainError,
    InvalidData,
    NotFound,
    PermissionDenied,
    infrastructure_failure,
)
from core.ids import is_id
from core.models import Broker
from core.schema import md5_digest

from . import links, storage
from .models import StoredFile
from .signing import SignatureError, keyring, permanent_message, temporary_message, upload_message
from .uploads import clean_filename, guess_format, read_upload

logger = logging.getLogger(__name__)

EXPIRES = re.compile(r"[0-9]{1,12}")


def answers_json(view):
    """Domain errors, and the database out of reach (503), become the 2.3 error envelope."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except DomainError as error:
            return error_response(error)
        except DatabaseError as error:
            unavailable = infrastructure_failure(error)
            if unavailable is None:
                raise
            logger.error("unavailable: %r", error)
            return error_response(unavailable)

    return csrf_exempt(wrapper)


def _uploader(request) -> Broker:
    broker = presented_broker(request)
    if broker is None:
        check_rate(request, None)
        raise PermissionDenied()
    check_rate(request, broker)
    return broker


def _base(request) -> str:
    return request.build_absolute_uri(reverse("docservice:register")).removesuffix("/register")


def parse_md5(value) -> str:
    """The hex digest of an "md5:<32 hex>" hash, or the 2.3 hash errors."""
    try:
        return md5_digest(value)
    except ValueError as refusal:
        raise InvalidData.field("hash", str(refusal)) from None


def _verify(request, message: str) -> None:
    params = request.GET
    if "KeyID" not in params or "Signature" not in params:
        raise NotFound("Signature", location="url")
    try:
        keyring().verify(params["KeyID"], params["Signature"], message)
    except SignatureError as error:
        if error.reason == "key":
            raise DomainError("Key Id does not exist", location="url", name="KeyID") from None
        description = (
            "Signature invalid" if error.reason == "encoding" else "Signature does not match"
        )
        raise DomainError(description, location="url", name="Signature") from None


def _stored(doc_id: str) -> StoredFile:
    stored = StoredFile.objects.filter(pk=doc_id).first() if is_id(doc_id) else None
    if stored is None:
        raise NotFound("doc_id")
    return stored


def _uploaded(request, stored: StoredFile) -> JsonResponse:
    base = _base(request)
    get_url = links.temporary_url(base, stored.id)
    data = {
        "url": links.permanent_url(base, stored.id, stored.md5),
        "hash": f"md5:{stored.md5}",
        "format": stored.content_type,
        "title": stored.title,
    }
    response = JsonResponse({"data": data, "get_url": get_url})
    response["Location"] = get_url
    return response


@require_POST
@answers_json
def register(request):
    """Register a document by its hash: the URL to attach to the registry, the URL to upload to."""
    broker = _uploader(request)
    if request.content_type == "application/json":
        try:
            body = json.loads(request.body)
        except RequestDataTooBig:
            raise BodyTooLarge() from None  # (the JSON body's bound, not a file's)
        except (ValueError, UnicodeError, RecursionError):
            body = {}
        data = body.get("data") if isinstance(body, dict) else None
        value = data.get("hash") if isinstance(data, dict) else None
    else:
        value = request.POST.get("hash")
    if value is None:
        raise NotFound("hash", location="body")
    stored = StoredFile.register(broker=broker, md5=parse_md5(value))
    base = _base(request)
    upload = links.upload_url(base, stored.id)
    body = {
        "upload_url": upload,
        "data": {
            "url": links.permanent_url(base, stored.id, stored.md5),
            "hash": f"md5:{stored.md5}",
        },
    }
    response = JsonResponse(body, status=201)
    response["Location"] = upload
    return response


@require_POST
@answers_json
def upload(request, doc_id):
    """The content of a registered document, at its signed upload URL."""
    _uploader(request)
    stored = _stored(doc_id)
    _verify(request, upload_message(stored.id))
    if stored.uploaded:
        raise DomainError("Content already uploaded", name="file")
    received = read_upload(request)
    title = clean_filename(received.name)
    stored.accept(
        upload=received, title=title, content_type=guess_format(title, received.content_type)
    )
    return _uploaded(request, stored)


@require_POST
@answers_json
def upload_unregistered(request):
    """Upload without registration: the answer carries the URL to attach."""
    broker = _uploader(request)
    received = read_upload(request)
    title = clean_filename(received.name)
    stored = StoredFile.store_new(
        broker=broker,
        upload=received,
        title=title,
        content_type=guess_format(title, received.content_type),
    )
    return _uploaded(request, stored)


@require_safe
@answers_json
def get(request, doc_id):
    """The file, for a permanent (MD5-bound) or an unexpired temporary signed URL."""
    check_rate(request, None)
    stored = _stored(doc_id)
    expires = request.GET.get("Expires")
    if expires is None:
        _verify(request, permanent_message(stored.id, stored.md5))
    else:
        # Unix seconds in ASCII digits (str.isdigit() also takes "²", which int() refuses).
        if not EXPIRES.fullmatch(expires) or int(expires) < time.time():
            raise DomainError("Request has expired", location="url", name="Expires")
        _verify(request, temporary_message(stored.id, int(expires)))
    if not stored.uploaded:
        raise NotFound("doc_id")
    store = storage.documents_storage()
    disposition = content_disposition_header(True, stored.title)
    if getattr(store, "querystring_auth", False):
        # Object storage serves the bytes itself, through its own short-lived URL.
        url = store.url(
            stored.storage_name,
            parameters={
                "ResponseContentDisposition": disposition,
                "ResponseContentType": stored.content_type,
            },
        )
        return HttpResponseRedirect(url)
    response = FileResponse(
        storage.open_file(stored.storage_name, size=stored.size),
        as_attachment=True,
        filename=stored.title,
        content_type=stored.content_type,
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response
