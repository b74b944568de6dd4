"""The claim's statuses and its transition table: who may do what, from which status."""

from datetime import timedelta

from django.db import models
from django.utils.translation import gettext_lazy as _

from portal.core.actors import Role
from portal.core.transitions import transition

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
    INVALID = "invalid", _("invalid")
    RESOLVED = "resolved", _("resolved")
    DECLINED = "declined", _("declined")


S = ComplaintStatus
OPEN = frozenset({S.DRAFT, S.CLAIM, S.ANSWERED})
# Claims that let the tender owner reopen the decision they contest: submitted, answered, or
# resolved (withdrawn, refused and ignored claims do not).
RECONSIDERING = frozenset({S.CLAIM, S.ANSWERED, S.RESOLVED})

# action: (statuses it starts from, status it leads to, who performs it). None: the claim's
# resolutionType. The last three are not asked for: time or another decision causes them.
TRANSITIONS = {
    "edit": transition({S.DRAFT}, S.DRAFT, Role.COMPLAINT_OWNER),
    "submit": transition({S.DRAFT}, S.CLAIM, Role.COMPLAINT_OWNER),
    "prepare_answer": transition({S.CLAIM}, S.CLAIM, Role.TENDER_OWNER),
    "answer": transition({S.CLAIM}, S.ANSWERED, Role.TENDER_OWNER),
    "rate_answer": transition({S.ANSWERED}, S.ANSWERED, Role.COMPLAINT_OWNER),
    "resolve": transition({S.ANSWERED}, S.RESOLVED, Role.COMPLAINT_OWNER),
    "cancel": transition(OPEN, S.CANCELLED, Role.COMPLAINT_OWNER),
    "expire": transition({S.ANSWERED}, None, Role.SYSTEM),
    "ignore": transition({S.CLAIM}, S.IGNORED, Role.SYSTEM),
    "void": transition(OPEN, S.CANCELLED, Role.SYSTEM),
}
# Only inside the award's complaint period; the others may happen at any time.
WITHIN_COMPLAINT_PERIOD = {"edit", "submit"}
# Seen by nobody but the actor (so an account may make them before its organization is
# verified); withdrawing a draft is one too.
PRIVATE_ACTIONS = {"edit", "prepare_answer"}
# Who attaches documents to a claim, and when (2.3): the claimant to a draft or to the answer
# it reacts to, the tender owner while answering.
DOCUMENT_STATUSES = {
    Role.COMPLAINT_OWNER: {S.DRAFT, S.ANSWERED},
    Role.TENDER_OWNER: {S.CLAIM},
}
