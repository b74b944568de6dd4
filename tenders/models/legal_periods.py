"""The least time the law gives bidders in a simplified procurement (the Law of Ukraine "On
Public Procurement", article 14): clarifications (questions) for at least three working days
from publication, then bids for at least two working days after them; and the time it gives
the procuring entity to consider the best bid (five working days). The portal holds the
tenders its users publish to it; the 2.3 API keeps 2.3's own rules, which brokers apply."""

from datetime import datetime, timedelta

from core.errors import Refused
from tenders.workdays import shift

QUESTIONS = timedelta(days=3)
BIDS = timedelta(days=2)
# The procuring entity considers the best bid within 5 working days of its being found (and
# may take up to 20 with a reason it publishes).
DECISION = timedelta(days=5)


class ShortPeriod(Refused):
    """A period shorter than the law's: its words name the earliest end it may have."""

    http_status = 422

    def __init__(self, description: str, *, code: str, field: str, name: str, earliest):
        super().__init__(
            description,
            code=code,
            field=field,
            location="body",
            name=name,
            params={"earliest": earliest},
        )


def earliest_questions_end(published_at: datetime) -> datetime:
    return shift(published_at, QUESTIONS, working_days=True)


def earliest_bids_end(enquiry_end: datetime) -> datetime:
    return shift(enquiry_end, BIDS, working_days=True)


def decision_due(found_at: datetime) -> datetime:
    """When the law expects the decision on a bid found the best at `found_at`."""
    return shift(found_at, DECISION, working_days=True)


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


def check_portal_periods(by, now, enquiry_end: datetime, tender_end: datetime) -> None:
    """The law's periods, for a tender of a portal user's organization (`by.user`); a broker's
    tender keeps 2.3's rules."""
    if by.user is not None:
        check_legal_periods(now, enquiry_end, tender_end)


def check_amended_periods(by, now, published_at: datetime, enquiry_end, tender_end) -> None:
    """A portal user's amendment of its published tender: the questions still end after now,
    and both periods keep the law's minimum (so bids are taken for at least 2 working days
    after the change too: the questions end after it)."""
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


def periods_of(document: dict) -> tuple[datetime, datetime]:
    """A validated tender document's ends of questions and bids."""
    return document["enquiryPeriod"]["endDate"], document["tenderPeriod"]["endDate"]
