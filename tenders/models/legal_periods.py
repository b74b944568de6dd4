"""The law's periods every procedure shares: the time the procuring entity has to consider the
best bid (the Law of Ukraine "On Public Procurement": five working days), and the refusal of a
period shorter than the law's. Each procedure's own least periods are its module's
(`Procedure.check_periods`)."""

from datetime import datetime, timedelta

from core.errors import Refused
from tenders.workdays import shift

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


def decision_due(found_at: datetime) -> datetime:
    """When the law expects the decision on a bid found the best at `found_at`."""
    return shift(found_at, DECISION, working_days=True)


def periods_of(document: dict) -> tuple[datetime, datetime]:
    """A validated tender document's ends of questions and bids."""
    return document["enquiryPeriod"]["endDate"], document["tenderPeriod"]["endDate"]
