import hashlib
from urllib.parse import parse_qsl, urlencode, urlsplit
from urllib.request import urlopen

from tests.helpers import basic

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


def fetched(ds, url) -> tuple[bytes, str]:
    """What a document-service URL gives: the bytes and their Content-Disposition. Object
    storage answers with a redirect to its own short-lived URL, which is followed over HTTP."""
    response = ds.get(url)
    if response.status_code == 302 and response["Location"].startswith("http://127.0.0.1"):
        with urlopen(response["Location"], timeout=10) as stored:
            return stored.read(), stored.headers.get("Content-Disposition", "")
    assert response.status_code == 200, response.content
    return body_of(response), response["Content-Disposition"]
