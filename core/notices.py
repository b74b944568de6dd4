"""E-mail from the registry. Each notice is rendered from a template whose first line is the
subject and queued in the database in the transaction of the change that caused it: the change
commits with its mail queued, or neither happens (a crash just after the commit loses no mail).
A worker (`manage.py worker`, core.jobs) sends it outside the request, so a slow mail server never
slows a page, and a mail the server refused is tried again later, a few times. A mail carries the
Message-ID it was given as it was queued, however many times it is sent: the one copy a worker
killed after the server took it and before it said so sends again is the same message to the
recipient's mail system."""

import logging
import smtplib
import textwrap
from datetime import timedelta
from email.header import decode_header, make_header
from email.utils import make_msgid
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends import console
from django.tasks import task
from django.template import Context
from django.template.defaultfilters import linebreaks_filter, urlize
from django.template.loader import get_template
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from core import jobs

log = logging.getLogger(__name__)

# How many times a mail is tried, and how long the worker waits before each next try.
ATTEMPTS = 5
RETRY_AFTER = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
)
# Plain text lines are wrapped here (a mail line must stay under 998 bytes).
TEXT_WIDTH = 76


def link(name: str, *args) -> str:
    """An absolute link to a portal page, for e-mail."""
    return settings.SITE_URL + reverse(name, args=args)


class ReadableMail(EmailMultiAlternatives):
    """A mail whose text parts travel as UTF-8 as they are (8bit), not base64: readable in the
    console and in any mail's source; every server of today takes 8-bit mail."""

    def message(self, **kwargs):
        message = super().message(**kwargs)
        for part in message.walk():
            if part.get_content_maintype() == "text" and not part.is_attachment():
                part.set_content(
                    part.get_content(),
                    subtype=part.get_content_subtype(),
                    charset="utf-8",
                    cte="8bit",
                )
        return message


class ReadableConsole(console.EmailBackend):
    """The development console's mail: its headers as people read them (the subject in
    Ukrainian, not encoded for transport), then the mail as it is sent."""

    def write_message(self, message):
        mail = message.message()
        for name in ("Subject", "From", "To"):
            if mail[name]:
                self.stream.write(f"{name}: {make_header(decode_header(str(mail[name])))}\n")
        super().write_message(message)


def wrapped(text: str) -> str:
    """`text` with its long lines wrapped (links are never broken)."""
    return "\n".join(
        textwrap.fill(line, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False)
        if line
        else ""
        for line in text.splitlines()
    )


def rendered(template: str, context: dict, language: str = "") -> tuple[str, str, str]:
    """The subject, the text and the HTML of a notice, in `language` (else the site's)."""
    language = language or settings.LANGUAGE_CODE
    with translation.override(language):
        # Plain text: what people typed is not HTML-escaped (the HTML part escapes it).
        source = get_template(template).template
        subject, _, body = source.render(Context(context, autoescape=False)).partition("\n")
    text = wrapped(body.strip()) + "\n"
    html = f'<!doctype html><html lang="{language}"><body>'
    html += linebreaks_filter(urlize(escape(body.strip()))) + "</body></html>"
    return subject.strip(), text, wrapped(html) + "\n"


def send(template: str, context: dict, to: list[str], *, language: str = "") -> None:
    """Render the notice as the change stands now (in `language`, else the site's) and queue
    it in the change's transaction (core.jobs)."""
    to = [address for address in to if address]
    if not to:
        return
    subject, text, html = rendered(template, context, language)
    message_id = make_msgid(domain=urlsplit(settings.SITE_URL).hostname or "localhost")
    jobs.after_the_change(deliver, subject, text, html, to, message_id=message_id)


@task()
def deliver(
    subject: str, text: str, html: str, to: list[str], attempt: int = 1, message_id: str = ""
) -> None:
    """Send one notice; a refusal or an unreachable server is tried again later."""
    headers = {"Message-ID": message_id} if message_id else None
    mail = ReadableMail(subject, text, None, to, headers=headers)
    mail.attach_alternative(html, "text/html")
    try:
        mail.send()
    except (OSError, smtplib.SMTPException):
        if attempt >= ATTEMPTS:
            log.exception("Gave up sending %r to %d recipients", subject, len(to))
            return
        log.warning("Could not send %r (attempt %d); trying again later", subject, attempt)
        jobs.again_later(
            deliver, RETRY_AFTER[attempt - 1], subject, text, html, to, attempt + 1,
            message_id=message_id,
        )  # fmt: skip
