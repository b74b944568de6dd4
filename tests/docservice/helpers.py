import hashlib
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit
from urllib.request import urlopen

from django.conf import settings
from django.core.files.storage import storages

from complaints.models import ComplaintDocument
from docservice.models import StoredFile
from tests.helpers import basic, single_error

CONTENT = "Скарга на рішення про визначення переможця.\n".encode() * 50
NAME = "Скарга №1.pdf"


def multipart(name: str, content: bytes, content_type: str | None = None, field: str = "file"):
    """A multipart body written by hand: any file name, and no part Content-Type unless given."""
    boundary = "----registry-test-boundary"
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    body = head.encode() + b"\r\n" + content + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def md5(content: bytes = CONTENT) -> str:
    return "md5:" + hashlib.md5(content).hexdigest()


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def with_query(url: str, **changes) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.update({k: v for k, v in changes.items() if v is not None})
    for key in [k for k, v in changes.items() if v is None]:
        query.pop(key, None)
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode(query)}"


class DocService:
    """The document service as a broker uses it (Basic auth with its key)."""

    def __init__(self, client, key="broker"):
        self.client, self.key = client, key

    def headers(self):
        return {"HTTP_AUTHORIZATION": basic(self.key)} if self.key else {}

    def register(self, hash_=None, **form):
        data = {"hash": hash_ or md5(), **form} if hash_ is not False else form
        return self.client.post("/ds/register", data, **self.headers())

    def upload(self, url, content=CONTENT, name=NAME, content_type=None):
        body, multipart_type = multipart(name, content, content_type)
        return self.client.post(path_of(url), body, content_type=multipart_type, **self.headers())

    def upload_unregistered(self, content=CONTENT, name=NAME):
        body, multipart_type = multipart(name, content)
        return self.client.post("/ds/upload", body, content_type=multipart_type, **self.headers())

    def get(self, url):
        return self.client.get(path_of(url))

    def registered_and_uploaded(self, content=CONTENT, name=NAME):
        registered = self.register(md5(content)).json()
        assert self.upload(registered["upload_url"], content, name).status_code == 200
        return registered["data"]["url"]


def body_of(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def object_store() -> dict | None:
    """The options of the object store documents are kept in (the `store` fixture's S3 run),
    or None when they are on the filesystem."""
    documents = settings.STORAGES["documents"]
    if documents["BACKEND"] == "storages.backends.s3.S3Storage":
        return documents["OPTIONS"]
    return None


def fetched(ds, url) -> tuple[bytes, str]:
    """What a document-service URL gives: the bytes and their Content-Disposition. On the
    filesystem the service answers 200 with the bytes; object storage must answer with a
    redirect to its own short-lived signed URL for this document's id, followed over HTTP."""
    response = ds.get(url)
    s3 = object_store()
    if s3 is None:
        assert response.status_code == 200, (response.status_code, response.content)
        return body_of(response), response["Content-Disposition"]
    assert response.status_code == 302, (response.status_code, response.content)
    location = urlsplit(response["Location"])
    doc_id = urlsplit(url).path.rsplit("/", 1)[1]
    assert f"{location.scheme}://{location.netloc}" == s3["endpoint_url"]
    # (each upload is stored under the document's id and a suffix of its own)
    assert location.path.startswith(f"/{s3['bucket_name']}/{s3['location']}/{doc_id}.")
    assert {"X-Amz-Signature", "X-Amz-Expires"} <= set(parse_qs(location.query))
    with urlopen(response["Location"], timeout=10) as stored:
        return stored.read(), stored.headers.get("Content-Disposition", "")


def download(api, ds, url) -> tuple[bytes, str]:
    """Follow a registry document URL (or a ?download= redirect) to the bytes and their name."""
    if "/api/" in url:
        response = api.client.get(url.replace("http://testserver", ""))
        assert response.status_code == 302
        url = response["Location"]
    return fetched(ds, url)


def stored_names() -> list[str]:
    """The files in the document store (S3: under this test's prefix)."""
    try:
        return storages["documents"].listdir("")[1]
    except FileNotFoundError:
        return []


def document(ds, content=CONTENT, name=NAME, upload=True, **extra):
    """Register (and upload) a file; the JSON a broker then posts to the registry."""
    registered = ds.register(md5(content)).json()
    if upload:
        assert ds.upload(registered["upload_url"], content, name).status_code == 200
    return {
        "title": name,
        "format": "application/pdf",
        "url": registered["data"]["url"],
        "hash": md5(content),
        **extra,
    }


def key_of(version: dict) -> str:
    """The document-service id a version's content is stored under (its ?download= key)."""
    return urlsplit(version["url"]).path.rsplit("/", 1)[1]


def store_state() -> tuple:
    """What a refused claim-document request must leave as it was: the document versions, the
    document service's files and the content in the store."""
    return ComplaintDocument.objects.count(), StoredFile.objects.count(), sorted(stored_names())


def with_file(api, method, path, token, name="Додаток.pdf", content=b"%PDF-1.4 refused"):
    """A multipart POST or PUT: the registry would store the file through the document service."""
    body, content_type = multipart(name, content)
    return getattr(api, method)(path, body=body, content_type=content_type, token=token)


def refused(send, expected: dict, status: int = 403) -> None:
    """`send()` is refused with exactly `expected`, and nothing is stored."""
    before = store_state()
    assert single_error(send(), status) == expected
    assert store_state() == before
