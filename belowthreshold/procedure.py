"""The simplified procedure, 2.3's `belowThreshold`: questions first (`active.enquiries`), then
bids; an auction where two or more bids compete; a stand-still of two working days after each
award decision; claims, never complaints to the review body.

The law's least periods for it (the Law of Ukraine "On Public Procurement", article 14) hold for
the tenders the portal's users publish: questions for at least three working days from
publication, then bids for at least two working days after them. The 2.3 API keeps 2.3's own
rules, which brokers apply (2.3's belowThreshold sets no least period)."""

from datetime import datetime, timedelta

from django.utils.translation import gettext_lazy as _

from tenders.models.legal_periods import ShortPeriod
from tenders.procedures import Procedure
from tenders.workdays import shift

from .table import LIFECYCLE, TRANSITIONS

QUESTIONS = timedelta(days=3)
BIDS = timedelta(days=2)


def earliest_questions_end(published_at: datetime) -> datetime:
    return shift(published_at, QUESTIONS, working_days=True)


def earliest_bids_end(enquiry_end: datetime) -> datetime:
    return shift(enquiry_end, BIDS, working_days=True)


def check_legal_periods(published_at: datetime, enquiry_end: datetime, tender_end: datetime):
    """Refuse periods shorter than the law's minimum, the questions' first."""
    questions_end, bids_end = earliest_questions_end(published_at), earliest_bids_end(enquiry_end)
    if enquiry_end < questions_end:
        raise ShortPeriod(
            "Questions are taken for at least 3 working days from publication",
            code="legal_questions_period",
            field="enquiry_end",
            name="enquiryPeriod",
            earliest=questions_end,
        )
    if tender_end < bids_end:
        raise ShortPeriod(
            "Bids are taken for at least 2 working days after the questions end",
            code="legal_bids_period",
            field="tender_end",
            name="tenderPeriod",
            earliest=bids_end,
        )


class BelowThreshold(Procedure):
    def check_periods(self, by, now, enquiry_end, tender_end) -> None:
        """The law's periods, for a tender of a portal user's organization (`by.user`); a
        broker's tender keeps 2.3's rules."""
        if by.user is not None:
            check_legal_periods(now, enquiry_end, tender_end)

    def check_amended_periods(self, by, now, published_at, enquiry_end, tender_end) -> None:
        """A portal user's amendment of its published tender: the questions still end after
        now, and both periods keep the law's minimum (so bids are taken for at least 2 working
        days after the change too: the questions end after it)."""
        if by.user is None:
            return
        if enquiry_end <= now:
            raise ShortPeriod(
                "The questions' end may not be moved into the past",
                code="legal_questions_past",
                field="enquiry_end",
                name="enquiryPeriod",
                earliest=now,
            )
        check_legal_periods(published_at, enquiry_end, tender_end)

    def earliest_questions_end(self, published_at):
        return earliest_questions_end(published_at)

    def earliest_bids_end(self, enquiry_end):
        return earliest_bids_end(enquiry_end)


BELOW_THRESHOLD = BelowThreshold(
    method_type="belowThreshold",
    transitions=TRANSITIONS,
    lifecycle=LIFECYCLE,
    name=_("below-threshold procurement"),
    stand_still=timedelta(days=2),
    publishing_kinds=("general", "special", "defense", "other"),
)
