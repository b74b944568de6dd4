"""A tender in its 2.3 wire form: the document its owner writes, mapped to and from the columns."""

from core.schema import iso, to_json
from tenders.schema import TenderSchema
from tenders.search import search_columns

from .lots import settle_lots
from .statuses import TenderStatus

TEST_TITLE_PREFIXES = {
    "title": "[ТЕСТУВАННЯ] ",
    "title_en": "[TESTING] ",
    "title_ru": "[ТЕСТИРОВАНИЕ] ",
}

# What the owner may change in each status; everything else in a PATCH is dropped silently,
# as 2.3 does. procuringEntity.kind, mode and the procurement method are fixed at creation.
EDITABLE_FIELDS = {
    TenderStatus.ENQUIRIES: frozenset(
        {
            "title", "title_en", "title_ru", "description", "description_en", "description_ru",
            "procurementMethodRationale", "procurementMethodRationale_en",
            "procurementMethodRationale_ru", "awardCriteriaDetails", "awardCriteriaDetails_en",
            "awardCriteriaDetails_ru", "submissionMethodDetails", "submissionMethodDetails_en",
            "submissionMethodDetails_ru", "eligibilityCriteria", "eligibilityCriteria_en",
            "eligibilityCriteria_ru", "hasEnquiries", "procuringEntity", "value", "minimalStep",
            "guarantee", "enquiryPeriod", "tenderPeriod", "items", "features",
        }
    ),
}  # fmt: skip

# Every key a tender PATCH may carry without being a "Rogue field".
TENDER_FIELDS = frozenset(TenderSchema().fields) | TenderSchema.server_fields


class TenderWire:
    """Mixed into Tender."""

    def wire(self) -> dict:
        """The owner-written document in its 2.3 wire form (what PATCH merges into)."""
        document = dict(self.data)
        document["title"] = self.title
        if self.description:
            document["description"] = self.description
        if self.mode:
            document["mode"] = self.mode
        if self.procurement_method_details:
            document["procurementMethodDetails"] = self.procurement_method_details
        document["enquiryPeriod"] = {
            "startDate": iso(self.enquiry_start),
            "endDate": iso(self.enquiry_end),
        }
        document["tenderPeriod"] = {
            "startDate": iso(self.tender_start),
            "endDate": iso(self.tender_end),
        }
        return document

    def store_document(self, document: dict, *, now) -> None:
        """Write a validated document into the columns and `data` (its lots as
        lots.settle_lots keeps them; `now`: when a new lot is added)."""
        document = dict(document)
        settle_lots(document, self.data.get("lots", []) if self.data else [], now)
        self.has_lots = "lots" in document
        # The search's words and codes, which the tender's change writes to TenderSearch.
        self.found_by = search_columns(document)
        self.buyer_identifier = self.found_by.pop("buyer_identifier")
        if document.get("mode") == "test":
            for field, prefix in TEST_TITLE_PREFIXES.items():
                if field in document and not document[field].startswith(prefix):
                    document[field] = prefix + document[field]
        self.title = document.pop("title")
        self.description = document.pop("description", "")
        self.mode = document.pop("mode", "")
        self.procurement_method_details = document.pop("procurementMethodDetails", "")
        enquiry, tender = document.pop("enquiryPeriod"), document.pop("tenderPeriod")
        self.enquiry_start, self.enquiry_end = enquiry["startDate"], enquiry["endDate"]
        self.tender_start, self.tender_end = tender["startDate"], tender["endDate"]
        document["procurementMethodType"] = self.procurement_method_type
        self.data = to_json(document)

    def stored_state(self) -> tuple:
        return (
            self.title, self.description, self.mode, self.procurement_method_details,
            self.enquiry_start, self.enquiry_end, self.tender_start, self.tender_end, self.data,
        )  # fmt: skip


def keeping_entity_kind(changed: dict, current: dict) -> None:
    """The procuring entity's kind stays as published, whatever a change says of it (2.3)."""
    if isinstance(changed.get("procuringEntity"), dict):
        kind = current["procuringEntity"].get("kind")
        changed["procuringEntity"] = {**changed["procuringEntity"], "kind": kind}


def keeping_lot_ids(data: dict, kept_ids: list[str]) -> dict:
    """A draft's document written anew (`data`), its lots taking the ids the draft's lots had,
    by their place in the list (the draft's documents may name them), and its items' relatedLot
    following them."""
    lots = [
        {**lot, "id": kept_ids[n]} if n < len(kept_ids) else lot
        for n, lot in enumerate(data.get("lots", []))
    ]
    if not lots:
        return data
    renamed = {lot["id"]: kept["id"] for lot, kept in zip(data["lots"], lots, strict=True)}
    return {
        **data,
        "lots": lots,
        "items": [
            {**item, "relatedLot": renamed.get(item.get("relatedLot"), "")}
            if "relatedLot" in item
            else item
            for item in data.get("items", [])
        ],
    }
