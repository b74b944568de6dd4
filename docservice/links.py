"""Signed URLs of the document service, as it hands them out and as the registry checks them."""

import time
from urllib.parse import parse_qsl, urlencode, urlsplit

from django.conf import settings

from .signing import (
    DOCSERVICE,
    REGISTRY,
    keyring,
    permanent_message,
    temporary_message,
    upload_message,
)


def _signed(url: str, message: str, party: str, **params) -> str:
    key_id, signature = keyring().sign(message, party)
    return f"{url}?{urlencode({**params, 'KeyID': key_id, 'Signature': signature})}"


def permanent_url(base: str, doc_id: str, md5: str, *, party: str = DOCSERVICE) -> str:
    """Downloads this document for as long as the key is trusted, bound to its MD5."""
    return _signed(f"{base}/get/{doc_id}", permanent_message(doc_id, md5), party)


def temporary_url(base: str, doc_id: str, *, party: str = DOCSERVICE) -> str:
    expires = int(time.time()) + settings.DOCUMENT_URL_SECONDS
    return _signed(
        f"{base}/get/{doc_id}", temporary_message(doc_id, expires), party, Expires=expires
    )


def upload_url(base: str, doc_id: str) -> str:
    return _signed(f"{base}/upload/{doc_id}", upload_message(doc_id), DOCSERVICE)


def registry_url(request, doc_id: str, md5: str) -> str:
    """The address the registry shows for a document: signed by the registry itself."""
    return permanent_url(base_url(request), doc_id, md5, party=REGISTRY)


def registry_download_url(request, doc_id: str) -> str:
    return temporary_url(base_url(request), doc_id, party=REGISTRY)


def parse(url: str, base: str) -> tuple[str, dict] | None:
    """The document id and query of a `<base>/get/<id>?...` URL, or None for any other URL."""
    if not isinstance(url, str) or not url.startswith(f"{base}/get/"):
        return None
    parts = urlsplit(url)
    doc_id = parts.path.rsplit("/", 1)[-1]
    if f"{base}/get/{doc_id}" != f"{url.split('?', 1)[0]}" or parts.fragment:
        return None
    return doc_id, dict(parse_qsl(parts.query, keep_blank_values=True))


def base_url(request) -> str:
    """The document service this registry uses: DOCSERVICE_URL, or /ds of this host."""
    return settings.DOCSERVICE_URL or request.build_absolute_uri("/ds").rstrip("/")
