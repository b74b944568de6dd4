"""What a procedure decides, and the procedures this registry takes.

A procedure is one `procurementMethodType` (2.3's `belowThreshold`, ...). What every procedure
shares (the tender, its bids, lots, awards, contracts, documents, the clock) is the tender core,
this app. What a procedure decides for itself is a `Procedure`, made by a module of its own
above the core (`belowthreshold/`, as Prozorro keeps `openprocurement.tender.belowthreshold`
beside `openprocurement.tender.core`), which plugs it into `extensions.PROCEDURES` when its app is
ready. The core asks
the tender's procedure (`Tender.procedure`) wherever procedures differ, never its name.

A new procedure is a new module and its registration: README, "How to add a procedure"."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from core.errors import DomainError
from core.transitions import Transition

from .extensions import PROCEDURES

if TYPE_CHECKING:
    from core.actors import Actor
    from tenders.models.statuses import TenderStatus


@dataclass(frozen=True)
class Procedure:
    """What one procedure decides; a module subclasses it where a rule is code, not data."""

    # procurementMethodType on the wire, and procurementMethod.
    method_type: str
    # The tender's transition table (core/transitions.py reads it through the tender).
    transitions: dict[str, Transition]
    # The way a tender of this procedure goes when nothing ends it early: the portal's stages.
    lifecycle: list["TenderStatus"]
    # Its name for people (a lazy translation).
    name: str
    method: str = "open"
    # Whether bids that compete for a line (the tender, or a lot) meet in an auction; without
    # one, the best bid is awarded when tendering closes.
    has_auction: bool = True
    # How long an award decision may be contested before its contract is signed (working days).
    stand_still: timedelta = timedelta(days=2)
    # The procuring entities' kinds that may publish it (2.3's procuringEntity.kind).
    publishing_kinds: tuple[str, ...] = field(default=())

    def check_publishing_kind(self, document: dict) -> None:
        """A procuring entity of a kind that publishes this procedure (2.3's words)."""
        kind = document["procuringEntity"].get("kind", "")
        if kind not in self.publishing_kinds:
            raise DomainError(
                f"'{kind}' procuringEntity cannot publish this type of procedure. "
                f"Only {', '.join(self.publishing_kinds)} are allowed.",
                code="procuring_entity_kind",
                location="procuringEntity",
                name="kind",
            )

    def check_periods(self, by: "Actor", now: datetime, enquiry_end, tender_end) -> None:
        """Refuse periods its rules do not allow, for a tender being registered (none here)."""

    def check_amended_periods(
        self, by: "Actor", now: datetime, published_at: datetime, enquiry_end, tender_end
    ) -> None:
        """Refuse periods its rules do not allow, for a published tender amended (none here)."""

    def earliest_questions_end(self, published_at: datetime) -> datetime:
        """The earliest end of questions a tender published then may have (what the portal's
        form offers first)."""
        return published_at

    def earliest_bids_end(self, enquiry_end: datetime) -> datetime:
        """The earliest end of bids after questions that end then."""
        return enquiry_end


class MethodNotImplemented(DomainError):
    http_status = 415
    code = "not_implemented"

    def __init__(self):
        super().__init__("Not implemented", location="data", name="procurementMethodType")


# The procedure of a tender whose document names none (2.3: a POST without
# procurementMethodType registers a belowThreshold tender).
WHEN_UNNAMED = "belowThreshold"


def procedure_named(method_type: str) -> Procedure:
    """The procedure of that `procurementMethodType` plugged into PROCEDURES; 2.3's "Not
    implemented" (415) for any other."""
    found = PROCEDURES.get(method_type) if isinstance(method_type, str) else None
    if found is None:
        raise MethodNotImplemented()
    return found


def registered() -> list[Procedure]:
    """The procedures taken, the first plugged first."""
    return PROCEDURES.parts()
