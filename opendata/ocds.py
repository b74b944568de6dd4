"""A tender as OCDS 1.1: its contracting process (ocid `<OCID_PREFIX>-<tenderID>`) told from the
tender's public 2.3 representation (what anyone reads: a draft is never found, sealed bids
are not in it until opened), one release per published change (kept by opendata/releases.py,
which also compiles the record with ocdsmerge, opendata/schema.py). The mapping of each 2.3
field: docs/open-data.md."""

from django.conf import settings

from contracting.models import ContractChange
from core.errors import NotFound
from core.schema import iso
from tenders.api import stored

PUBLISHER = "Public procurement registry"
UNDISCLOSED = "not disclosed yet"
# A bid's standing (the bids extension's bidStatus) by the decision on it.
AWARD_STANDINGS = {
    "active": "valid",
    "unsuccessful": "disqualified",
    "pending": "pending",
    "cancelled": "pending",  # (a decision taken back: the bid is considered again)
}
# The claims' statuses the complaint extension knows (a claim nobody answered before the tender
# ended, "ignored" in 2.3, is said in statusDetails).
COMPLAINT_STATUSES = {
    "draft", "claim", "answered", "pending", "invalid", "declined", "resolved", "cancelled",
    "accepted", "stopped",
}  # fmt: skip


def public_tender(request, tender_id) -> dict:
    """The tender as the public reads it; a test tender (mode "test") is no contracting process
    and is not found."""
    tender = stored.read_as_the_public(request, tender_id)
    if tender.get("mode") == "test":
        raise NotFound("tender_id")
    return tender


def amendments_of(*tenders: dict) -> dict[str, list[dict]]:
    """Each signed contract's signed changes, as OCDS amendments, of every tender given (one
    query)."""
    found = {}
    ids = [contract["id"] for tender in tenders for contract in tender.get("contracts", [])]
    for change in ContractChange.signed_of(ids):
        found.setdefault(change.contract_id, []).append(
            {
                "id": change.id,
                "date": iso(change.date_signed or change.date),
                "rationale": change.rationale,
                "description": ", ".join(change.rationale_types),
            }
        )
    return found


def ocid(tender: dict) -> str:
    return f"{settings.OCID_PREFIX}-{tender['tenderID']}"


def release_of(tender: dict, amendments: dict | None = None, before: dict | None = None) -> dict:
    """The tender as it stands, as one release; `amendments`: each contract's signed changes;
    `before`: the tender's previous release (its tags say what changed since), if any."""
    parties = Parties()
    buyer = parties.add(tender["procuringEntity"], "buyer", "procuringEntity")
    release = {
        "ocid": ocid(tender),
        "id": f"{tender['tenderID']}-{tender['dateModified']}",
        "date": tender["dateModified"],
        "tag": [],
        "initiationType": "tender",
        "language": "uk",
        "buyer": buyer,
        "tender": tender_part(tender, parties),
    }
    bids = tender.get("bids", [])
    decided = decisions_of(tender)
    if bids:
        release["bids"] = {"details": [bid_of(bid, decided, parties) for bid in bids]}
    if tender.get("awards"):
        release["awards"] = [award_of(award, tender, parties) for award in tender["awards"]]
    if tender.get("contracts"):
        release["contracts"] = [
            {**contract_of(contract, parties), "amendments": (amendments or {}).get(contract["id"])}
            for contract in tender["contracts"]
        ]
    release["parties"] = parties.listed()
    release = pruned(release)
    release["tag"] = tags(release, before)
    return release


def tags(release: dict, before: dict | None) -> list[str]:
    """What the release tells, as OCDS tags it: the tender first published (`tender`, with
    `award` and `contract` when it holds them), its cancellation, and otherwise each part that
    changed since the release `before` (updates, new awards and contracts, an award cancelled,
    a contract's amendment or termination)."""
    if release["tender"].get("status") == "cancelled":
        return ["tenderCancellation"]
    if before is None:
        return ["tender", *(["award"] if "awards" in release else []),
                *(["contract"] if "contracts" in release else [])]  # fmt: skip
    found = []
    if any(release.get(part) != before.get(part) for part in ("tender", "bids")):
        found.append("tenderUpdate")
    found += _changed(release.get("awards", []), before.get("awards", []), "award",
                      ended={"cancelled": "awardCancellation"})  # fmt: skip
    found += _changed(release.get("contracts", []), before.get("contracts", []), "contract",
                      ended={"terminated": "contractTermination"})  # fmt: skip
    return list(dict.fromkeys(found)) or ["tenderUpdate"]


def _changed(now: list[dict], then: list[dict], kind: str, ended: dict) -> list[str]:
    """The tags of a list of awards or contracts: new ones, ended ones (`ended`: their status
    -> the tag), a contract's new amendments, any other change an update."""
    previous = {part["id"]: part for part in then}
    found = []
    for part in now:
        old = previous.get(part["id"])
        if old is None:
            found.append(kind)
        elif part.get("status") in ended and old.get("status") != part["status"]:
            found.append(ended[part["status"]])
        elif len(part.get("amendments", [])) > len(old.get("amendments", [])):
            found.append(f"{kind}Amendment")
        elif part != old:
            found.append(f"{kind}Update")
    return found


def tender_part(tender: dict, parties: "Parties") -> dict:
    status = tender["status"].split(".")[0]
    part = {
        "id": tender["id"],
        "title": tender.get("title"),
        "description": tender.get("description"),
        "status": status,
        "procuringEntity": parties.reference(tender["procuringEntity"]),
        "value": money(tender.get("value")),
        "minValue": None,
        "procurementMethod": tender.get("procurementMethod", "open"),
        "procurementMethodDetails": tender.get("procurementMethodType", "belowThreshold"),
        "mainProcurementCategory": tender.get("mainProcurementCategory"),
        "submissionMethod": ["electronicAuction"],
        # (with features, a bid is ranked by its price weighted by its features' values)
        "awardCriteria": "ratedCriteria" if tender.get("features") else "priceOnly",
        "enquiryPeriod": period(tender.get("enquiryPeriod")),
        "tenderPeriod": period(tender.get("tenderPeriod")),
        "awardPeriod": period(tender.get("awardPeriod")),
        "hasEnquiries": bool(tender.get("questions")),
        "features": [feature_of(feature) for feature in tender.get("features", [])],
        "items": [item_of(item) for item in tender.get("items", [])],
        "lots": [lot_of(lot) for lot in tender.get("lots", [])],
        "documents": documents(tender.get("documents", [])),
        "enquiries": [enquiry_of(question, parties) for question in tender.get("questions", [])],
        "complaints": [
            complaint_of(complaint) for complaint in tender.get("complaints", [])
        ],
        "auctions": auctions(tender),
        "numberOfTenderers": len(tender["bids"]) if "bids" in tender else None,
        "tenderers": [parties.reference(org) for bid in tender.get("bids", [])
                      for org in bid.get("tenderers", [])],
    }  # fmt: skip
    return part


def item_of(item: dict) -> dict:
    unit = item.get("unit") or {}
    return {
        "id": item["id"],
        "description": item.get("description"),
        "classification": classification(item.get("classification")),
        "additionalClassifications": [
            classification(c) for c in item.get("additionalClassifications", [])
        ],
        "quantity": item.get("quantity"),
        "unit": {"scheme": "UNCEFACT", "id": unit.get("code"), "name": unit.get("name")}
        if unit
        else None,
        "relatedLot": item.get("relatedLot"),
    }


def feature_of(feature: dict) -> dict:
    """A feature as our extension writes it (opendata/data/ocds/extensions/features)."""
    return {
        **{key: feature.get(key) for key in ("code", "featureOf", "relatedItem", "title",
                                              "description")},
        "enum": [{key: value.get(key) for key in ("value", "title", "description")}
                 for value in feature.get("enum", [])],
    }  # fmt: skip


def classification(found: dict | None) -> dict | None:
    if not found:
        return None
    return {
        "scheme": "CPV" if found.get("scheme") == "ДК021" else found.get("scheme"),
        "id": found.get("id"),
        "description": found.get("description"),
    }


def lot_of(lot: dict) -> dict:
    return {
        "id": lot["id"],
        "title": lot.get("title"),
        "description": lot.get("description"),
        "status": lot.get("status"),
        "value": money(lot.get("value")),
    }


def auctions(tender: dict) -> list[dict]:
    """Each auction (the tender's, or each lot's) with its period, address and step."""
    lines = tender.get("lots") or [tender]
    found = []
    for line in lines:
        if not line.get("auctionPeriod", {}).get("startDate"):
            continue
        found.append(
            {
                "url": line.get("auctionUrl"),
                "period": period(line["auctionPeriod"]),
                "minimalStep": money(line.get("minimalStep")),
            }
        )
    return found


def enquiry_of(question: dict, parties: "Parties") -> dict:
    author = question.get("author")
    return {
        "id": question["id"],
        "date": question.get("date"),
        "author": parties.reference(author, "enquirer") if author else None,
        "title": question.get("title"),
        "description": question.get("description"),
        "answer": question.get("answer"),
        "dateAnswered": question.get("dateAnswered"),
        "relatedItem": question.get("relatedItem") if question.get("questionOf") == "item"
        else None,
        "relatedLot": question.get("relatedItem") if question.get("questionOf") == "lot"
        else None,
    }  # fmt: skip


def complaint_of(complaint: dict) -> dict:
    status = complaint.get("status")
    shown = {key: complaint.get(key) for key in (
        "id", "title", "description", "date", "dateSubmitted", "dateAnswered", "dateCanceled",
        "resolution", "resolutionType", "satisfied", "cancellationReason", "relatedLot",
    )}  # fmt: skip
    shown["dateCancelled"] = shown.pop("dateCanceled")
    return {
        **shown,
        "type": complaint.get("type", "claim"),
        "status": status if status in COMPLAINT_STATUSES else None,
        "statusDetails": None if status in COMPLAINT_STATUSES else status,
        # (the extension requires an author; 2.3 hides a conditions claim's until bids open)
        "author": organization(complaint["author"])
        if complaint.get("author")
        else {"name": UNDISCLOSED},
        "documents": documents(complaint.get("documents", [])),
    }


def decisions_of(tender: dict) -> dict[str, str]:
    """Each bid's standing by the latest decision on it: the bids extension's valid (it won),
    disqualified, or pending (not decided yet). 2.3 shows the bids still in the running
    alone, all "active"."""
    standing = {}
    for award in tender.get("awards", []):
        if award.get("status") in AWARD_STANDINGS:
            standing[award.get("bid_id")] = AWARD_STANDINGS[award["status"]]
    return standing


def bid_of(bid: dict, decided: dict, parties: "Parties") -> dict:
    values = bid.get("lotValues") or []
    return {
        "id": bid["id"],
        "date": bid.get("date"),
        "status": decided.get(bid["id"], "pending"),
        "tenderers": [parties.add(org, "tenderer") for org in bid.get("tenderers", [])],
        "value": money(bid.get("value")),
        "relatedLots": [value["relatedLot"] for value in values if value.get("relatedLot")],
        "parameters": [
            {"code": chosen.get("code"), "value": chosen.get("value")}
            for chosen in bid.get("parameters", [])
        ],
        "documents": documents(bid.get("documents", [])),
    }


def award_of(award: dict, tender: dict, parties: "Parties") -> dict:
    lot = award.get("lotID")
    return {
        "id": award["id"],
        "title": award.get("title"),
        "description": award.get("description"),
        "status": award.get("status"),
        "date": award.get("date"),
        "value": money(award.get("value")),
        # (a supplier is who is awarded: a bidder whose award is pending or was taken back is
        # a tenderer only)
        "suppliers": [
            parties.add(org, *(["supplier"] if award.get("status") == "active" else []))
            for org in award.get("suppliers", [])
        ],
        "relatedBid": award.get("bid_id"),
        "relatedLots": [lot] if lot else None,
        "documents": documents(award.get("documents", [])),
        "complaintPeriod": period(award.get("complaintPeriod")),
        "complaints": [complaint_of(c) for c in award.get("complaints", [])],
    }


def contract_of(contract: dict, parties: "Parties") -> dict:
    return {
        "id": contract["id"],
        "awardID": contract.get("awardID"),
        "title": contract.get("title"),
        "status": contract.get("status"),
        "value": money(contract.get("value")),
        "period": period(contract.get("period")),
        "dateSigned": contract.get("dateSigned"),
        "items": [item_of(item) for item in contract.get("items", [])],
        "suppliers": [parties.add(org, "supplier") for org in contract.get("suppliers", [])],
        "documents": documents(contract.get("documents", [])),
    }


def documents(listed: list[dict]) -> list[dict]:
    """The latest version of each document (2.3 lists every version; OCDS one per id)."""
    latest = {}
    for document in listed:
        latest[document["id"]] = document
    return [
        {
            "id": document["id"],
            "documentType": document.get("documentType"),
            "title": document.get("title"),
            "description": document.get("description"),
            "url": document.get("url"),
            "datePublished": document.get("datePublished"),
            "dateModified": document.get("dateModified"),
            "format": document.get("format"),
        }
        for document in latest.values()
    ]


def money(value: dict | None) -> dict | None:
    if not value or value.get("amount") is None:
        return None
    return {"amount": value["amount"], "currency": value.get("currency", "UAH")}


def period(found: dict | None) -> dict | None:
    if not found:
        return None
    return {"startDate": found.get("startDate"), "endDate": found.get("endDate")}


def organization(org: dict) -> dict:
    """A 2.3 organization as OCDS writes one."""
    identifier = org.get("identifier", {})
    address = org.get("address", {})
    contact = org.get("contactPoint", {})
    return {
        "id": party_id(org),
        "name": org.get("name"),
        "identifier": {
            "scheme": identifier.get("scheme"),
            "id": identifier.get("id"),
            "legalName": identifier.get("legalName"),
            "uri": identifier.get("uri"),
        },
        "address": {
            "streetAddress": address.get("streetAddress"),
            "locality": address.get("locality"),
            "region": address.get("region"),
            "postalCode": address.get("postalCode"),
            "countryName": address.get("countryName"),
        },
        "contactPoint": {
            "name": contact.get("name"),
            "email": contact.get("email"),
            "telephone": contact.get("telephone"),
            "faxNumber": contact.get("faxNumber"),
            "url": contact.get("url"),
        },
    }


def party_id(org: dict) -> str:
    """An organization's id in `parties`: its identifier's scheme and code (UA-EDR-01993913),
    the same in every release."""
    identifier = org.get("identifier", {})
    return f"{identifier.get('scheme', '')}-{identifier.get('id', '')}"


class Parties:
    """The organizations a release names, each once with every role it plays."""

    def __init__(self):
        self.found = {}

    def add(self, org: dict, *roles: str) -> dict:
        key = party_id(org)
        party = self.found.setdefault(key, {**organization(org), "roles": []})
        for role in roles:
            if role not in party["roles"]:
                party["roles"].append(role)
        return self.reference(org)

    def reference(self, org: dict, *roles: str) -> dict:
        if roles:
            self.add(org, *roles)
        return {"id": party_id(org), "name": org.get("name")}

    def listed(self) -> list[dict]:
        return list(self.found.values())


def pruned(value):
    """The value without empty members: OCDS omits a field rather than leave it empty."""
    if isinstance(value, dict):
        kept = {key: pruned(member) for key, member in value.items()}
        return {key: member for key, member in kept.items() if member not in (None, "", [], {})}
    if isinstance(value, list):
        kept = [pruned(member) for member in value]
        return [member for member in kept if member not in (None, "", [], {})]
    return value
