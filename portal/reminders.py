"""Deadlines approaching: a day before a thing in an organization's work queue (portal/queues.py)
is due, its members are told by e-mail, once: a claim to answer, a question to answer, a draft
to publish, a claim window closing on a decision the organization may contest, an answer to
accept or reject, an auction it bids in starting (its start is told as it starts, with the
bidder's turn: portal/auction_started.py). `manage.py alerts` looks for them."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from core import notices
from portal import queues
from portal.models import Organization, Reminder

log = logging.getLogger(__name__)

# How long before its deadline a thing to do is reminded of.
AHEAD = timedelta(days=1)
# What has a deadline to remind of (a contract's date is when it may be signed, not a deadline).
REMINDED = frozenset({"claim", "question", "draft", "claim-window", "answer", "auction", "award"})


def send_due(now) -> int:
    """Remind every organization of what is due within AHEAD; returns how many mails were
    queued. Organizations with nothing waiting cost one small query each."""
    sent = 0
    for organization in Organization.objects.filter(memberships__user__is_active=True).distinct():
        try:
            sent += remind(organization, now)
        except Exception:  # one organization's failure is logged; the others are reminded
            log.exception("reminding organization %s failed", organization.pk)
    return sent


def remind(organization, now) -> bool:
    """Tell `organization`'s members of what is due within AHEAD and was not told yet; True
    if a mail is queued."""
    if not queues.count_of(organization, now):
        return False
    tasks = queues.tasks_of(organization, now)
    soon = [
        task
        for task in tasks
        if task.kind in REMINDED and task.due is not None and now < task.due <= now + AHEAD
    ]
    emails = organization.emails() if soon else []
    if not emails:
        return False
    with transaction.atomic():
        new = [t for t in soon if Reminder.first_time(_key(organization, t), now)]
        if new:
            notices.send(
                "portal/email/reminder.txt",
                {
                    "tasks": [{"task": t, "link": settings.SITE_URL + t.url} for t in new],
                    "dashboard": notices.link("dashboard"),
                },
                emails,
            )
    return bool(new)


def _key(organization, task) -> str:
    return f"{organization.pk}:{task.kind}:{task.url}:{task.due.isoformat()}"
