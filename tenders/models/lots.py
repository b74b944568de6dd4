"""A tender's lots: the parts of it that are bid for, awarded and contracted on their own.
They live in the tender's document (`data["lots"]`, as 2.3 keeps them), so a lot changes
under its tender's lock and with its row."""

from decimal import Decimal

from core.actors import Actor, Role, Viewer
from core.errors import InvalidData, NotAllowed, NotFound
from core.schema import iso, merge_patch, validate
from core.transactions import atomic_change
from core.transitions import StatusMachine, transition
from tenders.schema import Lot, TenderSchema

from .statuses import LotStatus

# What the owner writes of a lot (the rest is the server's).
LOT_FIELDS = frozenset(Lot().fields) - {"id"}


def lot_of(document: dict, lot_id: str) -> dict | None:
    return next((lot for lot in document.get("lots", []) if lot["id"] == lot_id), None)


def exact_sum(amounts) -> float:
    """Amounts added as written (0.1 + 0.2 is 0.3, not 0.30000000000000004)."""
    return float(sum((Decimal(str(amount)) for amount in amounts), Decimal(0)))


def settle_lots(document: dict, previous: list[dict], now) -> None:
    """A validated document's lots as stored: each keeps its status and date (a new one is
    active from `now`); their values take the tender's currency and VAT flag; the tender's
    value is their sum, its minimal step their least, its guarantee their sum (2.3)."""
    lots = document.get("lots")
    if not lots:
        document.pop("lots", None)
        return
    before = {lot["id"]: lot for lot in previous}
    value, step = document["value"], document["minimalStep"]
    guarantee = document.get("guarantee")
    for lot in lots:
        kept = before.get(lot["id"], {})
        lot["status"] = kept.get("status", LotStatus.ACTIVE.value)
        lot["date"] = kept.get("date") or iso(now)
        lot["value"] = {**value, "amount": lot["value"]["amount"]}
        lot["minimalStep"] = {**step, "amount": lot["minimalStep"]["amount"]}
        if guarantee and "guarantee" in lot:
            lot["guarantee"] = {**lot["guarantee"], "currency": guarantee["currency"]}
    document["value"] = {**value, "amount": exact_sum(lot["value"]["amount"] for lot in lots)}
    document["minimalStep"] = {**step, "amount": min(lot["minimalStep"]["amount"] for lot in lots)}
    guaranteed = [lot["guarantee"] for lot in lots if "guarantee" in lot]
    if guaranteed:
        currency = guarantee["currency"] if guarantee else guaranteed[0]["currency"]
        document["guarantee"] = {
            "amount": exact_sum(item["amount"] for item in guaranteed),
            "currency": currency,
        }


class LotOfTender(StatusMachine):
    """A lot's status machine. Its status lives in the tender's document (2.3 keeps lots there),
    so it changes under the tender's lock and is saved with the tender's row; a new lot is
    active (settle_lots)."""

    TRANSITIONS = {
        # Nobody bid for it, or every bid for it was disqualified and its claims are over.
        "fail": transition({LotStatus.ACTIVE}, LotStatus.UNSUCCESSFUL, Role.SYSTEM),
        # Its contract was signed.
        "complete": transition({LotStatus.ACTIVE}, LotStatus.COMPLETE, Role.SYSTEM),
        # An active cancellation of it: the owner's act.
        "cancel": transition({LotStatus.ACTIVE}, LotStatus.CANCELLED, Role.TENDER_OWNER),
    }
    STAMP_FIELD = None

    def __init__(self, tender, lot_id: str):
        self.tender, self.id = tender, lot_id

    @property
    def status(self) -> str:
        return self.tender.lot(self.id)["status"]

    @status.setter
    def status(self, status: str) -> None:
        lots = [
            {**lot, "status": status} if lot["id"] == self.id else lot for lot in self.tender.lots
        ]
        self.tender.data = {**self.tender.data, "lots": lots}

    def role_of(self, by: Actor) -> Role | None:
        return self.tender.role_of(by)

    def status_refusal(self, action: str) -> NotAllowed:
        return NotAllowed("Can't update lot in current status", code="lot_not_active")

    def lock_for_change(self):
        return self.tender.lock_for_change()

    def save_change(self, fields: list[str]) -> None:
        """Saved with the tender's row, once per change (Tender.stamp_change)."""

    def record_change(self, action: str, by: Actor, now, before: str, fields: list[str]) -> None:
        self.tender.record_event(
            self.tender, f"lot_{self.status}", by, now, from_status=before, to_status=self.status,
            lot_id=self.id,
        )  # fmt: skip

    def end(self, action: str, by: Actor, at) -> None:
        """The lot ends (fails, is completed or cancelled) through its table; the claims
        nobody answered on it are ignored (2.3)."""
        self.perform(action, by, at)
        for complaint in self.tender.claims():
            if complaint.related_lot == self.id and complaint.awaits_answer:
                complaint.ignore(at)


class Lots:
    """Mixed into Tender."""

    @property
    def lots(self) -> list[dict]:
        return self.data.get("lots", [])

    def lot(self, lot_id: str) -> dict:
        found = lot_of(self.data, lot_id)
        if found is None:
            raise NotFound("lot_id")
        return found

    def lot_status(self, lot_id: str | None) -> str | None:
        """The status of the lot `lot_id` names (None: the tender has no lots)."""
        found = lot_of(self.data, lot_id) if lot_id else None
        return found["status"] if found else None

    def check_lot_active(self, lot_id: str | None, doing: str) -> None:
        """What belongs to a lot changes only while the lot is active: `doing` is 2.3's
        "add complaint", "update award"..."""
        status = self.lot_status(lot_id) if self.has_lots else None
        if status is not None and status != LotStatus.ACTIVE:
            raise NotAllowed(f"Can {doing} only in active lot status", code="lot_not_active")

    def awarding_lines(self) -> list[str | None]:
        """What is awarded on its own: each active lot, or (no lots) the tender (None)."""
        if not self.has_lots:  # (without reading `data`, which some changes leave unread)
            return [None]
        return [lot["id"] for lot in self.open_lots()]

    def expected_value(self, lot_id: str | None) -> dict:
        """The expected value ({"amount", "currency"...}) of the tender (None) or of its lot."""
        if lot_id is None:
            return self.data.get("value", {})
        return (lot_of(self.data, lot_id) or {}).get("value", {})

    def expected_step(self, lot_id: str | None) -> float:
        """The minimal step of the tender's (None) or its lot's auction."""
        found = self.data if lot_id is None else (lot_of(self.data, lot_id) or {})
        return found.get("minimalStep", {}).get("amount", 0)

    def open_lots(self) -> list[dict]:
        """The lots still active: bid for, decided, cancelled on their own."""
        return [lot for lot in self.lots if lot["status"] == LotStatus.ACTIVE]

    # --- the owner's changes (POST/PATCH/DELETE /lots) ------------------------------------

    def add_lot(self, *, by: Actor, data: dict) -> dict:
        fields = validate(Lot, data)

        def change(lots, _now):
            return [*lots, fields], None

        self._change_lots("add_lot", by, change, fields["id"])
        return lot_of(self.data, fields["id"])

    def patch_lot(self, *, by: Actor, lot_id: str, data: dict) -> dict:
        edits = {key: value for key, value in data.items() if key != "id"}
        self._edited(self.lot(lot_id), edits)  # the shape is checked before anything else

        def change(lots, _now):
            current = lot_of({"lots": lots}, lot_id)
            if current is None:
                raise NotFound("lot_id")
            edited = self._edited(current, edits)
            return [edited if lot["id"] == lot_id else lot for lot in lots], None

        self._change_lots("update_lot", by, change, lot_id)
        return lot_of(self.data, lot_id)

    def delete_lot(self, *, by: Actor, lot_id: str) -> dict:
        """Returns the lot as it was (2.3). A lot that items, a cancellation, a question or a
        submitted claim still name stays (422, naming what names it, as 2.3's check of the
        whole tender). A draft claim about it is withdrawn with it: drafts are their authors'
        alone, and a refusal naming one would tell the buyer it exists."""
        self.lot(lot_id)

        def change(lots, now):
            removed = lot_of({"lots": lots}, lot_id)
            if removed is None:
                raise NotFound("lot_id")
            claims = [claim for claim in self.claims() if claim.award_id is None]
            public = [claim for claim in claims if claim.shown_to(Viewer())]
            for part, field, parts, names in (
                ("cancellations", "relatedLot", list(self.cancellations.all()),
                 lambda c: c.related_lot),
                ("questions", "relatedItem", list(self.questions.all()),
                 lambda q: q.related_item if q.question_of == "lot" else None),
                ("complaints", "relatedLot", public, lambda c: c.related_lot),
            ):  # fmt: skip
                if any(names(p) == lot_id for p in parts):
                    stray = {field: [f"{field} should be one of lots"]}
                    raise InvalidData({part: [stray if names(p) == lot_id else {} for p in parts]})
            for draft in claims:
                if draft.related_lot == lot_id and draft not in public:
                    draft.void(now)
            return [lot for lot in lots if lot["id"] != lot_id], removed

        return self._change_lots("delete_lot", by, change, lot_id)

    @staticmethod
    def _edited(lot: dict, edits: dict) -> dict:
        written = {key: value for key, value in lot.items() if key in LOT_FIELDS}
        return {**validate(Lot, merge_patch(written, edits)), "id": lot["id"]}

    def _change_lots(self, action: str, by: Actor, change, lot_id: str):
        """Lock the tender, apply `change(its lots, now)` -> (the new lots, the answer), check the
        whole document again and store it; returns the answer."""
        with atomic_change():
            now = self.lock_and_catch_up()
            self.guard(action, by, now)
            document = self.wire()
            document["lots"], answer = change(document.get("lots", []), now)
            if self.store_rewritten(validate(TenderSchema, document), now):
                self.record_event(self, action, by, now, lot_id=lot_id)
        return answer

    # --- how lots end ---------------------------------------------------------------------

    def lot_machine(self, lot_id: str) -> LotOfTender:
        return LotOfTender(self, lot_id)

    def end_when_no_lot_is_active(self, at, by: Actor) -> None:
        """Once no lot is active, the tender ends: cancelled if every lot was, unsuccessful if
        none was completed, complete otherwise."""
        statuses = {lot["status"] for lot in self.lots}
        if LotStatus.ACTIVE in statuses:
            return
        if statuses == {LotStatus.CANCELLED}:
            self.perform("cancel", by, at)
        elif LotStatus.COMPLETE not in statuses:
            self.perform("fail", Actor.system(), at)
        else:
            self.perform("complete", Actor.system(), at)
