"""E-mail about accounts and organizations. Each notice is rendered from a template whose first
line is the subject and sent once the change that caused it commits; a mail that cannot be sent
is logged, never raised."""

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

log = logging.getLogger(__name__)


def link(name: str, *args) -> str:
    """An absolute link to a portal page, for e-mail."""
    return settings.SITE_URL + reverse(name, args=args)


def send_after_commit(template: str, context: dict, to: list[str]) -> None:
    to = [address for address in to if address]
    if not to:
        return

    def deliver():
        with translation.override(settings.LANGUAGE_CODE):
            subject, _, body = render_to_string(template, context).partition("\n")
        try:
            send_mail(subject.strip(), body.strip() + "\n", None, to)
        except OSError:
            log.exception("Could not send %s to %d recipients", template, len(to))

    transaction.on_commit(deliver, robust=True)
