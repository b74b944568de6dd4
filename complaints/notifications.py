"""E-mail about claims: the tender owner's users learn of a submitted claim, the claimant's of an
answer. Queued by the kernel's mailer with the change that causes it."""

from core import notices

# status the claim reached: (whose users hear of it, template)
NOTICES = {
    "claim": ("tender", "complaints/email/claim_submitted.txt"),
    "answered": ("complaint", "complaints/email/claim_answered.txt"),
}


def notify(complaint) -> None:
    """Mail the party that must act next, when `complaint` has just reached such a status."""
    whose, template = NOTICES.get(complaint.status, (None, None))
    if whose is None:
        return
    organization = (complaint.tender if whose == "tender" else complaint).organization
    if organization is None:
        return
    notices.send(
        template,
        {
            "complaint": complaint,
            "tender": complaint.tender,
            "link": notices.link("claim", complaint.pk),
        },
        organization.emails(),
    )
