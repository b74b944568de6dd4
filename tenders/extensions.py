"""Where the apps above plug into the tender core: every extension point, listed here, in one
idiom.

The tender core (this app) knows nothing of the apps above it (the procedures, claims, auctions,
contracting, open data). Where it needs what one of them does, it calls the parts plugged into
an extension point below; each app plugs its own in from its `AppConfig.ready`, by name:

    from tenders.extensions import AWARD_PARTS
    AWARD_PARTS.plug("complaints", award_complaints)

A test may plug a part of its own and take it out again (`unplug`). What the core asks of a claim
(the complaints app's `Complaint`) is the interface `ClaimOfTheTender`."""

from collections.abc import Iterator
from typing import Any, Protocol


class ExtensionPoint:
    """Parts plugged in by name; the core calls them (one, by name, or each in turn)."""

    def __init__(self, name: str, what: str):
        self.name, self.what = name, what
        self._parts: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"<ExtensionPoint {self.name}: {', '.join(self._parts) or 'nothing plugged'}>"

    def plug(self, name: str, part: Any) -> None:
        self._parts[name] = part

    def unplug(self, name: str) -> None:
        self._parts.pop(name, None)

    def get(self, name: str, default: Any = None) -> Any:
        return self._parts.get(name, default)

    def items(self) -> Iterator[tuple[str, Any]]:
        return iter(list(self._parts.items()))

    def names(self) -> list[str]:
        return list(self._parts)

    def parts(self) -> list[Any]:
        return list(self._parts.values())


PROCEDURES = ExtensionPoint(
    "PROCEDURES",
    "the procedures taken, by procurementMethodType: a tenders.procedures.Procedure each "
    "(plugged by belowthreshold/; tenders/procedures.py reads it)",
)
AUCTION_OUTCOME = ExtensionPoint(
    "AUCTION_OUTCOME",
    'our module\'s auction over, "outcome": (auction, tender) -> (final prices by bid id, '
    "the protocol's files) (plugged by auctions/)",
)
AWARD_PARTS = ExtensionPoint(
    "AWARD_PARTS",
    "what the 2.3 wire shows inside each award besides its own fields, by the field's name: "
    "(award, serializer context) -> list (plugged by complaints/: its claims)",
)
TENDER_PARTS = ExtensionPoint(
    "TENDER_PARTS",
    "what the 2.3 wire shows inside the tender besides its own fields, by the field's name: "
    "(tender, serializer context) -> list (plugged by complaints/: its claims)",
)
OTHER_SHAPES = ExtensionPoint(
    "OTHER_SHAPES",
    "other shapes a tender is read in (GET /tenders/{id}?opt_schema=<name>), by name: "
    "(request, tender id) -> the whole body (plugged by opendata/: ocds)",
)
# Open data is told of the last committed change of each tender named (a change leaves its
# tender `untold`), their rows locked and not changed since: by the background
# (`Tender.objects.tell_untold`), or by a tender's next change before it changes anything, or by
# a read that must show it (`Tender.objects.tell_untold_of`). A part reads the tenders as those
# changes left them; what it writes commits with the telling.
TENDER_CHANGED = ExtensionPoint(
    "TENDER_CHANGED",
    "told of the last committed change of tenders: (model, tender_ids=[...]) -> None or a "
    "function writing what was made of it (plugged by opendata/: each change kept as an OCDS "
    "release; tenders/models/untold.py calls each)",
)

EVERY_EXTENSION_POINT = [
    PROCEDURES, AUCTION_OUTCOME, AWARD_PARTS, TENDER_PARTS, OTHER_SHAPES, TENDER_CHANGED,
]  # fmt: skip


class ClaimOfTheTender(Protocol):
    """What the tender core asks of a claim (complaints.models.Complaint), and nothing else:
    time closes an answered claim, a decision taken back voids those against it, a claim
    answered or pending holds up the signing of its line's contract and the end of tendering,
    and readers see a claim as its reader may."""

    pk: Any
    award_id: Any
    related_lot: str
    date: Any
    closes_at: Any
    is_answered: bool
    awaits_answer: bool
    is_open: bool
    is_closed: bool
    holds_up_tender: bool
    is_granted_and_accepted: bool
    lets_reconsider: bool

    def differs_by_reader(self) -> bool: ...
    def concerns_line(self, lot_id: str | None) -> bool: ...
    def expire(self, at) -> None: ...
    def ignore(self, at) -> None: ...
    def void(self, at) -> None: ...
    def shown_to(self, viewer) -> bool: ...
    def mark_locked(self) -> None: ...


def each_told(point: ExtensionPoint, *args, **kwargs) -> list[tuple[str, Any]]:
    """Every part of `point` called with these arguments: (its name, what it answered)."""
    return [(name, part(*args, **kwargs)) for name, part in point.items()]
