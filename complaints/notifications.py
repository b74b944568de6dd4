"""E-mail about claims: the tender owner's users learn of a submitted claim, the claimant's of an
answer. Sent after the change commits; a mail that cannot be sent is logged, never raised."""

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from portal.models import User

log = logging.getLogger(__name__)

# status the claim reached: (whose users hear of it, template)
NOTICES = {
    "claim": ("tender", "complaints/email/claim_submitted.txt"),
    "answered": ("complaint", "complaints/email/claim_answered.txt"),
}


def recipients(organization_id) -> list[str]:
    if organization_id is None:
        return []
    users = User.objects.filter(
        organization_membership__organization_id=organization_id, is_active=True
    ).exclude(email="")
    return list(users.values_list("email", flat=True))


def notify(complaint) -> None:
    """Mail the party that must act next, when `complaint` has just reached such a status."""
    if complaint.status not in NOTICES:
        return
    whose, template = NOTICES[complaint.status]
    owner = complaint.tender if whose == "tender" else complaint
    to = recipients(owner.organization_id)
    if not to:
        return
    link = settings.SITE_URL + reverse("claim", args=[complaint.pk])
    with translation.override(settings.LANGUAGE_CODE):
        subject, _, body = render_to_string(
            template, {"complaint": complaint, "tender": complaint.tender, "link": link}
        ).partition("\n")
    try:
        send_mail(subject.strip(), body.strip() + "\n", None, to)
    except OSError:
        log.exception("Could not send the notice about claim %s", complaint.complaint_id)
