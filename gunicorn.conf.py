"""gunicorn's settings for this project, read from the working directory by `gunicorn
portal.wsgi`. Secrets never reach its logs: owner tokens (`acc_token=...`) are masked in the
access log and the error log, and the access log leaves out the Basic-auth user name, which in
the 2.3 API is the broker's key. Each access line ends with the worker that answered. A
request gunicorn refuses itself, before the application sees it (a request line or a header
past its limits, a request it cannot parse), is answered in the 2.3 error envelope too."""

import json
import os
import sys

from gunicorn import util
from gunicorn.glogging import Logger

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from core.log_filters import MaskTokens, mask_tokens

# How long one request may hold a worker (README, "Limits"): a database statement is cancelled
# after STATEMENT_TIMEOUT_SECONDS (503, nothing changed), and a worker still busy after
# `timeout` seconds is killed and replaced (the last resort; no request of the limits comes
# near either: the largest takes about a second, `make load`).
os.environ.setdefault("STATEMENT_TIMEOUT_SECONDS", "10")
timeout = 30


class TokenMaskingLogger(Logger):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.error_log.addFilter(MaskTokens())

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        atoms["u"] = "-"
        if "{authorization}i" in atoms:
            atoms["{authorization}i"] = "-"
        return {
            name: mask_tokens(value) if isinstance(value, str) else value
            for name, value in atoms.items()
        }


logger_class = TokenMaskingLogger

# What each refusal of gunicorn's own is about, in the envelope's terms.
REFUSED_PARTS = {
    414: ("url", "url", "Request line is too long"),
    431: ("header", "headers", "Request header fields are too large"),
    500: ("request", "server", "Internal Server Error"),
    501: ("header", "Transfer-Encoding", "Not Implemented"),
}


def write_envelope(sock, status_int, reason, mesg):
    """gunicorn's answer to a request it refuses before the application: the 2.3 envelope
    instead of an HTML page (gunicorn writes it with this function; set below)."""
    location, name, description = REFUSED_PARTS.get(status_int, ("request", "request", reason))
    body = json.dumps(
        {
            "status": "error",
            "errors": [{"location": location, "name": name, "description": description}],
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


util.write_error = write_envelope
access_log_format = '%(h)s %(l)s - %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(L)s %(p)s'


# The application is loaded once, in the master, with what every worker reads once
# (portal/wsgi.py `load_shared`): the workers forked from it share those pages.
preload_app = True


def when_ready(server):
    from portal.wsgi import load_shared

    load_shared()


def on_starting(server):
    """Refuse to start on settings that the system checks call errors (portal/checks.py): a
    misconfiguration is found here, not by the first user it fails."""
    import django
    from django.core.management import call_command

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    django.setup()
    call_command("check", "--deploy", "--fail-level", "ERROR")
