"""What gunicorn refuses before the application sees it (a request line or headers past its
limits, a request it cannot parse) is answered in the 2.3 envelope, not an HTML page."""

import json
import socket

import pytest

from tests.served import gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def served(tmp_path_factory, django_db_setup, django_db_blocker):
    with (
        django_db_blocker.unblock(),
        gunicorn(tmp_path_factory.mktemp("served"), workers=1) as base,
    ):
        yield base.rsplit(":", 1)[1]


def raw(port: str, request: bytes) -> tuple[int, str, dict]:
    with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers["Content-Type"], json.loads(body)


@pytest.mark.parametrize(
    ("request_bytes", "status", "entry"),
    [
        (
            b"GET /api/2.3/tenders?" + b"a" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            414,
            {"location": "url", "name": "url", "description": "Request line is too long"},
        ),
        (
            b"GET /api/2.3/tenders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: "
            + b"a" * 10000
            + b"\r\n\r\n",
            431,
            {
                "location": "header",
                "name": "headers",
                "description": "Request header fields are too large",
            },
        ),
        (
            b"GET /api/2.3/tenders HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + b"".join(b"X-H%d: 1\r\n" % n for n in range(150))
            + b"\r\n",
            431,
            {
                "location": "header",
                "name": "headers",
                "description": "Request header fields are too large",
            },
        ),
        (
            b"GET\x00 / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            400,
            {"location": "request", "name": "request", "description": "Bad Request"},
        ),
    ],
    ids=["request line", "one long header", "too many headers", "malformed"],
)
def test_requests_gunicorn_refuses_are_answered_in_the_envelope(
    served, request_bytes, status, entry
):
    answered, content_type, body = raw(served, request_bytes)
    assert answered == status
    assert content_type == "application/json"
    assert body == {"status": "error", "errors": [entry]}
