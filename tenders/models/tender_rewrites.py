"""The portal's changes of the whole tender at once, from the form it was written in: a draft
written anew, and a published tender amended while questions are taken (what 2.3's PATCH allows
then, its lots and items kept by their places)."""

from core.actors import Actor
from core.errors import InvalidData
from core.schema import validate
from core.transactions import atomic_change
from tenders.schema import TenderSchema

from .legal_periods import periods_of
from .questions import check_items_asked_about
from .statuses import TenderStatus
from .tender_wire import EDITABLE_FIELDS, keeping_entity_kind, keeping_lot_ids


class WrittenWhole:
    """Mixed into Tender."""

    @property
    def written_whole_by(self) -> str:
        """The change of the whole document the tender takes in its status: a draft is
        written anew, a published tender amended."""
        return "amend" if self.status == TenderStatus.ENQUIRIES else "rewrite_draft"

    def write_whole(self, *, by: Actor, data: dict) -> bool:
        return getattr(self, self.written_whole_by)(by=by, data=data)

    def rewrite_draft(self, *, by: Actor, data: dict) -> bool:
        """The owner writes its draft anew, the whole document checked as a new tender's is;
        it stays a draft. Its lots keep their ids by their place in the list (the draft's
        documents may name them). True if anything changed."""
        with atomic_change():
            now = self.begin("rewrite_draft", by)
            data = keeping_lot_ids(data, [lot["id"] for lot in self.lots])
            document = validate(TenderSchema, {**data, "status": TenderStatus.DRAFT}, now=now)
            self.procedure.check_publishing_kind(document)
            self.procedure.check_periods(by, now, *periods_of(document))
            if not self.store_rewritten(document, now):
                return False
            self.record_event(self, "rewrite_draft", by, now, fields=sorted(data))
            return True

    def amend(self, *, by: Actor, data: dict) -> bool:
        """The owner amends its published tender while questions are taken: the fields 2.3's
        PATCH allows then, written from `data` (a whole document, as the form makes it), its
        lots and items keeping their ids by their places (questions and documents name them:
        items may be added, not taken away; lots are added and removed one by one, by the
        API's lot routes; a tender with a cancelled lot is not amended so). The procuring
        entity's kind stays. The questions' start
        stays; the periods keep the law's minimum from publication and, for the bids, from the
        change (Procedure.check_amended_periods). Followers are told by the event, as of an
        API edit. True if anything changed."""
        with atomic_change():
            now = self.begin("amend", by)
            current = self.wire()
            kept_lots = [lot["id"] for lot in current.get("lots", [])]
            if len(data.get("lots", [])) != len(kept_lots):
                refusal = InvalidData.field(
                    "lots", "Lots may not be added or removed once the tender is published"
                )
                refusal.code = "lots_fixed"
                raise refusal
            data = keeping_lot_ids(data, kept_lots)
            kept_items = [item["id"] for item in current.get("items", [])]
            if len(data.get("items", [])) < len(kept_items):
                # (items keep their ids by place: one taken away would pass its id, and the
                # questions about it, to the next)
                refusal = InvalidData.field(
                    "items", "Items may not be removed once the tender is published"
                )
                refusal.code = "items_kept"
                raise refusal
            data["items"] = [
                {**item, "id": kept_items[n]} if n < len(kept_items) else item
                for n, item in enumerate(data.get("items", []))
            ]
            allowed = EDITABLE_FIELDS[TenderStatus.ENQUIRIES] | {"lots"}
            amended = {**current, **{k: v for k, v in data.items() if k in allowed}}
            keeping_entity_kind(amended, current)
            if "description" not in data:
                amended.pop("description", None)
            amended["enquiryPeriod"] = {
                "startDate": current["enquiryPeriod"]["startDate"],
                "endDate": data["enquiryPeriod"]["endDate"],
            }
            amended["tenderPeriod"] = {
                "startDate": data["enquiryPeriod"]["endDate"],
                "endDate": data["tenderPeriod"]["endDate"],
            }
            document = validate(TenderSchema, amended)
            check_items_asked_about(self, document)
            self.procedure.check_amended_periods(by, now, self.published, *periods_of(document))
            if not self.store_rewritten(document, now):
                return False
            after = self.wire()
            changed = sorted(name for name in allowed if current.get(name) != after.get(name))
            self.record_event(self, "edit", by, now, fields=changed)
            return True
