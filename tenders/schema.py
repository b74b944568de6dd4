"""The shape of tender documents (2.3 belowThreshold), and the rules between their fields.

Model methods validate every incoming document with these schemas; rules that need the state
of the tender (statuses, periods against the clock, bids against the tender) live on the models.
"""

import re

from rest_framework.exceptions import ValidationError

from core.ids import new_id
from core.schema import (
    Boolean,
    Choice,
    Email,
    IsoDateTime,
    LongText,
    Number,
    Schema,
    Text,
    Url,
)
from tenders.classifiers import cpv_names, is_cpv

# How much one tender may hold (2.3 bounds none): each list past its bound is refused with the
# 2.3 schemas' own words for a list too long, "Please provide no more than N items.", before a
# member of it is read. They bound the work of one request (README, "Limits").
MAX_ITEMS = 1_000
MAX_LOTS = 100
MAX_FEATURES = 100
MAX_FEATURE_VALUES = 20
MAX_CLASSIFICATIONS = 20  # an item's additional classifications, a party's identifiers
# Bids on one tender, drafts included (withdrawn ones are not), and of them one broker's (or one
# portal organization's): no one caller can fill a tender and shut the others out.
MAX_BIDS = 100
MAX_BIDS_OF_ONE = 10
# Questions, and claims (against its conditions and its decisions, drafts included), on one
# tender, and of them one broker's or organization's; cancellations (by its owner: the tender's
# and its lots').
MAX_QUESTIONS = 100
MAX_QUESTIONS_OF_ONE = 10
MAX_CLAIMS = 100
MAX_CLAIMS_OF_ONE = 20
MAX_CANCELLATIONS = MAX_LOTS + 10
MAX_DOCUMENTS = 1_000  # documents of one tender, bid, award, contract, cancellation or claim,
# every version counted

PROCURING_ENTITY_KINDS = ["general", "special", "defense", "other", "social", "authority"]


class Md5Id(Text):
    """An id 2.3 writes as 32 hexadecimal digits (lots, and what points at them)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if len(value) != 32:
            raise ValidationError("Hash value is wrong length.")
        if not re.fullmatch(r"[0-9a-fA-F]{32}", value):
            raise ValidationError("Hash value is not hexadecimal.")
        return value


class Identifier(Schema):
    model_name = "Identifier"
    scheme = Text(required=True, allow_blank=False)
    id = Text(required=True, allow_blank=False)
    legalName = Text()
    legalName_en = Text()
    legalName_ru = Text()
    uri = Url()


def party_key(party: dict) -> tuple[str, str]:
    """Who an organization is, whatever its name says: its identifier's scheme and id."""
    identifier = party.get("identifier") or {}
    return identifier.get("scheme", ""), str(identifier.get("id", "")).strip()


class Address(Schema):
    model_name = "Address"
    streetAddress = Text()
    locality = Text()
    region = Text()
    postalCode = Text()
    countryName = Text(required=True, allow_blank=False)
    countryName_en = Text()
    countryName_ru = Text()


class ContactPoint(Schema):
    model_name = "ContactPoint"
    name = Text(required=True, allow_blank=False)
    name_en = Text()
    name_ru = Text()
    email = Email()
    telephone = Text()
    faxNumber = Text()
    url = Url()

    def validate(self, attrs):
        if not attrs.get("email") and not attrs.get("telephone"):
            raise ValidationError({"email": ["telephone or email should be present"]})
        return attrs


class Organization(Schema):
    model_name = "Organization"
    name = Text(required=True, allow_blank=False)
    name_en = Text()
    name_ru = Text()
    identifier = Identifier(required=True)
    additionalIdentifiers = Identifier(many=True, required=False, max_length=MAX_CLASSIFICATIONS)
    address = Address(required=True)
    contactPoint = ContactPoint(required=True)


class ProcuringEntity(Organization):
    model_name = "ProcuringEntity"
    kind = Choice(PROCURING_ENTITY_KINDS)


class Value(Schema):
    model_name = "Value"
    amount = Number(required=True)
    currency = Text(default="UAH", min_length=3, max_length=3)
    valueAddedTaxIncluded = Boolean(default=True)


class Guarantee(Schema):
    model_name = "Guarantee"
    amount = Number(required=True)
    currency = Text(default="UAH", min_length=3, max_length=3)


class Period(Schema):
    model_name = "Period"
    startDate = IsoDateTime()
    endDate = IsoDateTime()

    def validate(self, attrs):
        start, end = attrs.get("startDate"), attrs.get("endDate")
        if start and end and start > end:
            raise ValidationError({"startDate": ["period should begin before its end"]})
        return attrs


class PeriodEndRequired(Period):
    model_name = "PeriodEndRequired"
    endDate = IsoDateTime(required=True)


class Classification(Schema):
    model_name = "Classification"
    scheme = Text(required=True, allow_blank=False)
    id = Text(required=True, allow_blank=False)
    description = Text(required=True, allow_blank=False)
    description_en = Text()
    description_ru = Text()
    uri = Url()


class CPVClassification(Classification):
    model_name = "CPVClassification"
    scheme = Choice(["ДК021"], required=True)

    def validate(self, attrs):
        if not is_cpv(attrs["id"]):
            # 2.3's message names every code of the catalogue.
            raise ValidationError({"id": [f"Value must be one of {list(cpv_names())}."]})
        return attrs


class Unit(Schema):
    model_name = "Unit"
    code = Text(required=True, allow_blank=False)
    name = Text()
    name_en = Text()
    name_ru = Text()


class Location(Schema):
    model_name = "Location"
    latitude = Number(required=True, minimum=None)
    longitude = Number(required=True, minimum=None)
    elevation = Number(minimum=None)


class Item(Schema):
    model_name = "Item"
    id = Text(allow_blank=False, max_length=64)
    description = Text(required=True, allow_blank=False)
    description_en = Text()
    description_ru = Text()
    classification = CPVClassification(required=True)
    additionalClassifications = Classification(
        many=True, required=False, max_length=MAX_CLASSIFICATIONS
    )
    unit = Unit(required=False)
    quantity = Number(as_float=False)
    deliveryDate = Period(required=False)
    deliveryAddress = Address(required=False)
    deliveryLocation = Location(required=False)
    relatedLot = Md5Id()

    def validate(self, attrs):
        attrs.setdefault("id", new_id())
        if attrs["classification"]["id"] == "99999999-9" and not attrs.get(
            "additionalClassifications"
        ):
            raise ValidationError({"additionalClassifications": ["This field is required."]})
        return attrs


class Lot(Schema):
    """A part of a tender bid for, awarded and contracted on its own. Its status and date are
    the server's (Tender._store keeps them); its value and minimal step take the tender's
    currency and VAT flag."""

    model_name = "Lot"
    server_fields = frozenset({"status", "date", "numberOfBids", "auctionPeriod", "auctionUrl"})
    # What the owner writes (POST /lots takes these; PATCH changes them but the id).
    id = Md5Id()
    title = Text(required=True, allow_blank=False)
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()
    value = Value(required=True)
    minimalStep = Value(required=True)
    guarantee = Guarantee(required=False)

    def validate(self, attrs):
        attrs.setdefault("id", new_id())
        if attrs["minimalStep"]["amount"] > attrs["value"]["amount"]:
            raise ValidationError({"minimalStep": ["value should be less than value of lot"]})
        return attrs


class FeatureValue(Schema):
    model_name = "FeatureValue"
    value = Number(required=True, maximum=0.3)
    title = Text(required=True, allow_blank=False)
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()


class Feature(Schema):
    """A non-price criterion: each bid names one of its values (`parameters`), which lowers
    the price it is ranked by (Tender.weighted)."""

    model_name = "Feature"
    code = Text(allow_blank=False)
    featureOf = Choice(["tenderer", "lot", "item"], default="tenderer")
    relatedItem = Text(allow_blank=False)
    title = Text(required=True, allow_blank=False)
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()
    enum = FeatureValue(many=True, required=True, allow_empty=False, max_length=MAX_FEATURE_VALUES)

    def validate(self, attrs):
        attrs.setdefault("code", new_id())
        if attrs["featureOf"] in ("item", "lot") and not attrs.get("relatedItem"):
            raise ValidationError({"relatedItem": ["This field is required."]})
        values = [value["value"] for value in attrs["enum"]]
        if len(set(values)) != len(values):
            raise ValidationError({"enum": ["Feature value should be uniq for feature"]})
        return attrs


def features_of(document: dict, lot_id: str | None) -> list[dict]:
    """The features a bid for the lot (None: the tender without lots) is weighed by: the
    tenderer's, the lot's and its items' (2.3)."""
    if lot_id is None:
        return document.get("features", [])
    return features_by_lot(document, [lot_id])[lot_id]


def features_by_lot(document: dict, lot_ids) -> dict[str, list[dict]]:
    """`features_of` each of the lots, in one pass over the items and the features."""
    by_lot = {lot_id: [] for lot_id in lot_ids}
    features = document.get("features", [])
    if not features:
        return by_lot
    lot_of_item = {item["id"]: item.get("relatedLot") for item in document["items"]}
    for feature in features:
        if feature["featureOf"] == "tenderer":
            for weighed in by_lot.values():
                weighed.append(feature)
            continue
        related = feature.get("relatedItem")
        lot_id = related if feature["featureOf"] == "lot" else lot_of_item.get(related)
        if lot_id in by_lot:
            by_lot[lot_id].append(feature)
    return by_lot


def most_weight(features: list[dict]) -> float:
    """The sum of the features' greatest values."""
    return sum(max(value["value"] for value in feature["enum"]) for feature in features)


class TenderSchema(Schema):
    """A tender as its owner writes it. `validate(TenderSchema, data, now=...)` fills the period
    starts the owner left out (enquiries start now, tendering starts when enquiries end)."""

    model_name = "Tender"
    server_fields = frozenset(
        {
            "id", "doc_id", "tenderID", "date", "dateModified", "owner", "owner_token",
            "status", "procurementMethodType", "bids", "numberOfBids", "documents", "awards",
            "questions", "complaints", "contracts", "cancellations", "auctionPeriod",
            "auctionUrl", "awardPeriod", "next_check", "revisions", "numberOfTenderers",
            "tenderers", "_attachments",
        }
    )  # fmt: skip

    title = Text(required=True, allow_blank=False)
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()
    mode = Choice(["test"])
    procurementMethod = Choice(["open", "selective", "limited"], default="open")
    procurementMethodRationale = LongText()
    procurementMethodRationale_en = LongText()
    procurementMethodRationale_ru = LongText()
    procurementMethodDetails = Text(max_length=255)
    awardCriteria = Choice(
        ["lowestCost", "bestProposal", "bestValueToGovernment", "singleBidOnly"],
        default="lowestCost",
    )
    awardCriteriaDetails = LongText()
    awardCriteriaDetails_en = LongText()
    awardCriteriaDetails_ru = LongText()
    submissionMethod = Choice(
        ["electronicAuction", "electronicSubmission", "written", "inPerson"],
        default="electronicAuction",
    )
    submissionMethodDetails = LongText()
    submissionMethodDetails_en = LongText()
    submissionMethodDetails_ru = LongText()
    eligibilityCriteria = LongText()
    eligibilityCriteria_en = LongText()
    eligibilityCriteria_ru = LongText()
    hasEnquiries = Boolean()
    procuringEntity = ProcuringEntity(required=True)
    value = Value(required=True)
    minimalStep = Value(required=True)
    guarantee = Guarantee(required=False)
    enquiryPeriod = PeriodEndRequired(required=True)
    tenderPeriod = PeriodEndRequired(required=True)
    items = Item(many=True, required=True, allow_empty=False, max_length=MAX_ITEMS)
    lots = Lot(many=True, required=False, max_length=MAX_LOTS)
    features = Feature(many=True, required=False, max_length=MAX_FEATURES)

    def validate(self, attrs):
        errors = {}
        value, step = attrs["value"], attrs["minimalStep"]
        if step["amount"] > value["amount"]:
            errors["minimalStep"] = ["value should be less than value of tender"]
        elif step["currency"] != value["currency"]:
            errors["minimalStep"] = ["currency should be identical to currency of value of tender"]
        elif step["valueAddedTaxIncluded"] != value["valueAddedTaxIncluded"]:
            errors["minimalStep"] = [
                "valueAddedTaxIncluded should be identical to "
                "valueAddedTaxIncluded of value of tender"
            ]

        enquiry, tender = attrs["enquiryPeriod"], attrs["tenderPeriod"]
        if "startDate" not in enquiry and "now" in self.context:
            enquiry["startDate"] = self.context["now"]
            if enquiry["endDate"] < enquiry["startDate"]:
                errors["enquiryPeriod"] = {"endDate": ["enquiryPeriod should end in the future"]}
        tender.setdefault("startDate", enquiry["endDate"])
        if tender["startDate"] < enquiry["endDate"]:
            errors["tenderPeriod"] = ["period should begin after enquiryPeriod"]
        elif tender["startDate"] > tender["endDate"]:
            errors["tenderPeriod"] = {"startDate": ["period should begin before its end"]}

        items, lots = attrs["items"], attrs.get("lots", [])
        lot_ids = {lot["id"] for lot in lots}
        if len(lot_ids) != len(lots):
            errors["lots"] = ["Lot id should be uniq for all lots"]
        elif len({lot["guarantee"]["currency"] for lot in lots if "guarantee" in lot}) > 1:
            errors["lots"] = [
                "lot guarantee currency should be identical to tender guarantee currency"
            ]
        if len({item["id"] for item in items}) != len(items):
            errors["items"] = ["Item id should be uniq for all items"]
        elif len({item["classification"]["id"][:3] for item in items}) != 1:
            errors["items"] = ["CPV group of items be identical"]
        else:
            strays = ["relatedLot" in item and item["relatedLot"] not in lot_ids for item in items]
            if any(strays):
                errors["items"] = [
                    {"relatedLot": ["relatedLot should be one of lots"]} if stray else {}
                    for stray in strays
                ]
        if not errors:
            errors.update(self._features_errors(attrs, lot_ids))
        if errors:
            raise ValidationError(errors)
        return attrs

    @staticmethod
    def _features_errors(attrs, lot_ids: set[str]) -> dict:
        features = attrs.get("features", [])
        if not features:
            return {}
        codes = [feature["code"] for feature in features]
        if len(set(codes)) != len(codes):
            return {"features": ["Feature code should be uniq for all features"]}
        parts = {"item": {item["id"] for item in attrs["items"]}, "lot": set(lot_ids)}
        strays = [
            {"relatedItem": [f"relatedItem should be one of {feature['featureOf']}s"]}
            if feature["featureOf"] in parts
            and feature["relatedItem"] not in parts[feature["featureOf"]]
            else {}
            for feature in features
        ]
        if any(strays):
            return {"features": strays}
        # (rounded as 2.3 rounds it: 0.1 + 0.2 is not over 0.3)
        if lot_ids and any(
            round(most_weight(features), 15) > 0.3
            for features in features_by_lot(attrs, lot_ids).values()
        ):
            return {
                "features": ["Sum of max value of all features for lot should be less then or "
                             "equal to 30%"]
            }  # fmt: skip
        if not lot_ids and round(most_weight(features), 15) > 0.3:
            return {
                "features": ["Sum of max value of all features should be less then or equal "
                             "to 30%"]
            }  # fmt: skip
        return {}
