"""The claim's statuses and its transition table: who may do what, from which status."""

from datetime import timedelta
from typing import NamedTuple

from django.db import models
from django.utils.translation import gettext_lazy as _

from core.actors import Role
from core.transitions import NEW, transition

# The tender owner's answer must say at least this much.
MIN_RESOLUTION_LENGTH = 20
# An answered claim its author has not closed takes its resolution type after this long.
ANSWER_STANDSTILL = timedelta(days=3)


class ComplaintStatus(models.TextChoices):
    DRAFT = "draft", _("draft")
    CLAIM = "claim", _("submitted")
    ANSWERED = "answered", _("answered")
    RESOLVED = "resolved", _("resolved")
    CANCELLED = "cancelled", _("cancelled")
    INVALID = "invalid", _("invalid")
    DECLINED = "declined", _("declined")
    IGNORED = "ignored", _("ignored")


class ResolutionType(models.TextChoices):
    # (the words the meanings below begin with: one set of words for the answer's types)
    INVALID = "invalid", _("not considered")
    RESOLVED = "resolved", _("granted")
    DECLINED = "declined", _("rejected")


# What each answer type means, said to both sides (the answer form and the claim's page).
RESOLUTION_MEANING = {
    ResolutionType.INVALID: _(
        "Not considered: the procuring entity holds that the claim cannot be considered "
        "(filed against the wrong decision, too late, or without grounds)."
    ),
    ResolutionType.RESOLVED: _(
        "Granted: the procuring entity agrees with the claim and puts the decision right."
    ),
    ResolutionType.DECLINED: _(
        "Rejected: the procuring entity considered the claim and holds its decision to be right."
    ),
}


# The reason a claim closed with its decision carries (2.3's cancellationReason for it).
VOIDED = "cancelled"


class Outcome(NamedTuple):
    """Where a claim stands, said as its outcome (a "resolved" claim the claimant disagreed
    with is no won claim), and the tone its badge shows it in: "waiting" for someone's step,
    "settled" by agreement, "disputed" (the claimant disagreed, or nobody answered),
    "closed" otherwise."""

    label: str
    tone: str


OUTCOMES = {
    # (status, satisfied): outcome; satisfied is None but for a claim answered
    ("draft", None): Outcome(_("draft: not submitted yet"), "closed"),
    ("claim", None): Outcome(_("submitted: waiting for the answer"), "waiting"),
    ("answered", None): Outcome(_("answered: waiting for the claimant"), "waiting"),
    ("resolved", True): Outcome(_("closed: the answer accepted"), "settled"),
    ("resolved", False): Outcome(_("closed: the claimant disagreed"), "disputed"),
    # Closed by time with the answer's type (the claimant did not say within three days).
    ("resolved", None): Outcome(_("closed: granted, the claimant did not reply"), "settled"),
    ("invalid", None): Outcome(_("closed: not considered, the claimant did not reply"), "closed"),
    ("declined", None): Outcome(_("closed: rejected, the claimant did not reply"), "closed"),
    # ... having said what it thought of the answer without closing the claim
    ("invalid", True): Outcome(_("closed: the answer accepted"), "settled"),
    ("declined", True): Outcome(_("closed: the answer accepted"), "settled"),
    ("invalid", False): Outcome(_("closed: the claimant disagreed"), "disputed"),
    ("declined", False): Outcome(_("closed: the claimant disagreed"), "disputed"),
    ("cancelled", None): Outcome(_("withdrawn"), "closed"),
    # (closed by the system: the decision it contested was taken back)
    ("voided", None): Outcome(_("closed: the decision it contested was taken back"), "closed"),
    ("ignored", None): Outcome(_("closed: not answered in time"), "disputed"),
}


S = ComplaintStatus
OPEN = frozenset({S.DRAFT, S.CLAIM, S.ANSWERED})
# Claims that let the tender owner reopen the decision they contest: submitted, answered, or
# resolved (withdrawn, refused and ignored claims do not).
RECONSIDERING = frozenset({S.CLAIM, S.ANSWERED, S.RESOLVED})

# action: (statuses it starts from, statuses it leads to, who performs it). The last three are
# not asked for: time or another decision causes them.
TRANSITIONS = {
    # Filed submitted at once, or as a draft (what the claimant sends picks).
    "file": transition({NEW}, S.CLAIM, Role.COMPLAINT_OWNER),
    "file_draft": transition({NEW}, S.DRAFT, Role.COMPLAINT_OWNER),
    "edit": transition({S.DRAFT}, S.DRAFT, Role.COMPLAINT_OWNER),
    "submit": transition({S.DRAFT}, S.CLAIM, Role.COMPLAINT_OWNER),
    "prepare_answer": transition({S.CLAIM}, S.CLAIM, Role.TENDER_OWNER),
    "answer": transition({S.CLAIM}, S.ANSWERED, Role.TENDER_OWNER),
    "rate_answer": transition({S.ANSWERED}, S.ANSWERED, Role.COMPLAINT_OWNER),
    "resolve": transition({S.ANSWERED}, S.RESOLVED, Role.COMPLAINT_OWNER),
    "cancel": transition(OPEN, S.CANCELLED, Role.COMPLAINT_OWNER),
    # To the answer's resolutionType.
    "expire": transition(
        {S.ANSWERED},
        {S.INVALID, S.RESOLVED, S.DECLINED},
        Role.SYSTEM,
        picked_by="status_its_answer_gives",
    ),
    "ignore": transition({S.CLAIM}, S.IGNORED, Role.SYSTEM),
    "void": transition(OPEN, S.CANCELLED, Role.SYSTEM),
}
# Filing: its own rules (Complaint.objects.check_filing, check_filing_against_tender) say
# where a claim may be filed, in 2.3's order, before the claim exists.
FILING = frozenset({"file", "file_draft"})
# Only inside the award's complaint period; the others may happen at any time.
WITHIN_COMPLAINT_PERIOD = {"edit", "submit"}
# Seen by nobody but the actor (so an account may make them before its organization is
# verified); withdrawing a draft is one too.
PRIVATE_ACTIONS = {"file_draft", "edit", "prepare_answer"}
# Who attaches documents to a claim, and when (2.3): the claimant to a draft or to the answer
# it reacts to, the tender owner while answering.
DOCUMENT_STATUSES = {
    Role.COMPLAINT_OWNER: {S.DRAFT, S.ANSWERED},
    Role.TENDER_OWNER: {S.CLAIM},
}
