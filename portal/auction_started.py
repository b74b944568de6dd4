"""The bidders of an auction our module holds are told by e-mail as it starts, each with its
turn: `manage.py alerts` looks on every pass (a minute), once for each organization and auction.
(A day ahead they are reminded with the rest of their work queue, portal/reminders.py.)"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from auctions.course import course_of
from core import notices
from portal.models import Reminder
from tenders.models import Auction, Bid
from tenders.models.auction import builtin, page_path

log = logging.getLogger(__name__)

# An auction that started longer ago than this (the alerts were down) is not told any more:
# its first round would be over before the mail is read.
TOLD_WITHIN = timedelta(minutes=10)


def send_due(now) -> int:
    """Tell the bidders of every auction started since TOLD_WITHIN and not told yet; returns
    how many mails were queued. One query when none started."""
    if not builtin():  # (an external module's auction is held, and told, on its own pages)
        return 0
    sent = 0
    for auction in Auction.objects.started_between(now - TOLD_WITHIN, now):
        try:
            sent += _tell(auction, now)
        except Exception:  # one auction's failure is logged; the others are told
            log.exception("telling the bidders of auction %s failed", auction.pk)
    return sent


def _tell(auction, now) -> int:
    tender = auction.tender
    course = course_of(auction, tender)
    turns = {turn.bid_id: turn for turn in course.rounds[0]}
    later_rounds = [turns_of_round[0].starts for turns_of_round in course.rounds[1:]]
    sent = 0
    bids = Bid.objects.filter(pk__in=list(turns), organization__isnull=False)
    for bid in bids.select_related("organization").only("pk", "organization"):
        organization, bid_id = bid.organization, bid.pk
        key = f"{organization.pk}:auction-started:{auction.pk}:{auction.start.isoformat()}"
        emails = organization.emails()
        with transaction.atomic():
            if not emails or not Reminder.first_time(key, now):
                continue
            notices.send(
                "portal/email/auction_started.txt",
                {
                    "tender": tender,
                    "lot": tender.lot(auction.lot_id) if auction.lot_id else None,
                    "start": auction.start,
                    "turn": turns[bid_id],
                    "later_rounds": later_rounds,
                    "link": settings.SITE_URL + page_path(auction),
                },
                emails,
            )
            sent += 1
    return sent
