"""Bidding on a tender: when bids are taken, what a bid may offer, who may bid."""

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, PermissionDenied, in_tender_status
from core.schema import iso, to_json, validate
from core.transactions import atomic_change
from tenders.part_schemas import BidSchema
from tenders.schema import (
    MAX_BIDS,
    MAX_BIDS_OF_ONE,
    features_by_lot,
    features_of,
    most_weight,
    party_key,
)

from .base import new_id
from .room import check_room
from .statuses import BidStatus, TenderStatus

# A price under this share of what it is measured against (a bid's: the expected value; an
# auction's offer: its bidder's own price) is asked about before it is taken: 2.3 takes it, but
# it is most often a slip (1.00 typed for 70 500), and a price taken binds.
LOW_PRICE_SHARE = Decimal("0.3")


def is_price_in_doubt(price, measure) -> bool:
    """Is `price` under LOW_PRICE_SHARE of `measure` (nothing to measure by: no)?"""
    return bool(measure) and Decimal(str(price)) < Decimal(str(measure)) * LOW_PRICE_SHARE


def value_refusal(value: dict, limit: dict, of: str) -> str | None:
    """Why an offered `value` does not fit the tender's or the lot's (`of`), or None."""
    if value["amount"] > limit["amount"]:
        return f"value of bid should be less than value of {of}"
    if value["currency"] != limit["currency"]:
        return f"currency of bid should be identical to currency of value of {of}"
    if value["valueAddedTaxIncluded"] != limit["valueAddedTaxIncluded"]:
        return (
            f"valueAddedTaxIncluded of bid should be identical to valueAddedTaxIncluded of "
            f"value of {of}"
        )
    return None


@dataclass(frozen=True)
class Weighing:
    """How the bids for one line are weighed: the codes of its features (`features_of` it) and
    1 − the sum of their greatest values, worked out once for all its bids; and what each bid
    names for them, worked out once per bid (lines weighed by the same features share one)."""

    codes: frozenset
    room: Fraction
    _named: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, features: list[dict]) -> "Weighing":
        codes = frozenset(feature["code"] for feature in features)
        return cls(codes, 1 - Fraction(most_weight(features)) if features else Fraction(1))

    def named(self, bid) -> Fraction:
        """The sum of the values `bid` names for these features."""
        if bid.pk not in self._named:
            self._named[bid.pk] = sum(
                (Fraction(p["value"]) for p in bid.parameters if p["code"] in self.codes),
                Fraction(0),
            )
        return self._named[bid.pk]

    def divisor(self, bid) -> Fraction:
        """What `bid`'s amounts are divided by to be ranked (1: it names no feature's value)."""
        named = self.named(bid) if self.codes else Fraction(0)
        return 1 + named / self.room if named else Fraction(1)


class Bidding:
    """Mixed into Tender."""

    @property
    def ranks_by_price(self) -> bool:
        """Do its bids rank by their price alone (no lots, each with its own ranking; no
        features weighing the prices)?"""
        return not self.has_lots and not self.data.get("features")

    def active_bids(self) -> list:
        """The bids that take part (not drafts, not withdrawn), in the order they came; read
        from the bids loaded with the tender when they are."""
        return [bid for bid in self.bids.all() if bid.status == BidStatus.ACTIVE]

    def check_tendering(self, verb: str, now) -> None:
        """Bids are placed, changed and withdrawn only while tendering is open (what
        Tender.objects.taking_bids finds among many)."""
        if self.status != TenderStatus.TENDERING:
            raise in_tender_status(f"{verb} bid", self)
        if not self.tender_start <= now <= self.tender_end:
            past = {"add": "added", "update": "updated", "delete": "deleted"}[verb]
            period = f"from ({iso(self.tender_start)}) to ({iso(self.tender_end)})"
            raise NotAllowed(
                f"Bid can be {past} only during the tendering period: {period}.",
                code="tendering_period",
                params={"start": self.tender_start, "end": self.tender_end},
            )

    def check_bid_offer(self, fields: dict, verb: str, before: list[dict] = ()) -> None:
        """What a bid offers, against the tender: a `value` without lots; with lots, an offer
        (`lotValues`) for each active lot it competes for, none twice, none for a lot the
        tender has not. Each within its limit, in the same currency and VAT flag (2.3). `before`:
        the bid's offers until now (one for a lot since ended may stay as it is)."""
        self._check_offer(fields, verb, before)
        self._check_parameters(fields)

    def _check_offer(self, fields: dict, verb: str, before) -> None:
        offers = fields.get("lotValues", [])
        lots = {lot["id"]: lot for lot in self.lots}
        if not lots:
            if offers:
                refusal = {"relatedLot": ["relatedLot should be one of lots"]}
                raise InvalidData({"lotValues": [refusal for _offer in offers]})
            if "value" not in fields:
                raise InvalidData.field("value", "This field is required.")
            refusal = value_refusal(fields["value"], self.data["value"], "tender")
            if refusal:
                raise InvalidData.field("value", refusal)
            return
        if "value" in fields:
            raise InvalidData.field("value", "value should be posted for each lot of bid")
        if not offers:
            raise InvalidData.field("lotValues", "This field is required.")
        errors = []
        for offer in offers:
            lot = lots.get(offer["relatedLot"])
            refusal = value_refusal(offer["value"], lot["value"], "lot") if lot else None
            if lot is None:
                errors.append({"relatedLot": ["relatedLot should be one of lots"]})
            else:
                errors.append({"value": [refusal]} if refusal else {})
        if any(errors):
            raise InvalidData({"lotValues": errors})
        related = [offer["relatedLot"] for offer in offers]
        if len(set(related)) != len(related):
            raise InvalidData.field("lotValues", "bids don't allow duplicated proposals")
        for offer in offers:
            if offer not in before:
                self.check_lot_active(offer["relatedLot"], f"{verb} bid")

    def _check_parameters(self, fields: dict) -> None:
        """A value for each feature the bid is weighed by, one of that feature's (2.3)."""
        parameters = fields.get("parameters", [])
        features = self.data.get("features", [])
        codes = [parameter["code"] for parameter in parameters]
        if len(set(codes)) != len(codes):
            raise InvalidData.field(
                "parameters", "Parameter code should be uniq for all parameters"
            )
        values = {feature["code"]: [v["value"] for v in feature["enum"]] for feature in features}
        errors = [
            {"code": ["code should be one of feature code."]}
            if parameter["code"] not in values
            else {"value": ["value should be one of feature value."]}
            if parameter["value"] not in values[parameter["code"]]
            else {}
            for parameter in parameters
        ]
        if any(errors):
            raise InvalidData({"parameters": errors})
        if self.lots:
            needed = self.weighed_by([offer["relatedLot"] for offer in fields.get("lotValues", [])])
        else:
            if features and not parameters:
                raise InvalidData.field("parameters", "This field is required.")
            needed = self.weighed_by([None])
        if set(codes) != needed:
            raise InvalidData.field("parameters", "All features parameters is required.")

    def weighed_by(self, lines) -> set[str]:
        """The codes of the features a bid for `lines` (lot ids; [None] without lots) names a
        value for."""
        if None in lines:
            return {feature["code"] for feature in features_of(self.data, None)}
        weighed = features_by_lot(self.data, lines)
        return {feature["code"] for features in weighed.values() for feature in features}

    @staticmethod
    def weighted(bid, offer: dict, weighing: "Weighing") -> Fraction:
        """The price a bid is ranked by: its amount, lowered by the values it names for the
        features of its line, as 2.3 weighs them (amount / (1 + Σ values / (1 − Σ the features'
        greatest values)))."""
        # (the amount as written: 440.1 is 4401/10, as the auction ranks it, not the float)
        return Fraction(str(offer["value"]["amount"])) / weighing.divisor(bid)

    @staticmethod
    def date_offers(fields: dict, before: list[dict], now) -> dict:
        """Each lot offer keeps the date its amount was set; a new or changed amount is dated
        `now` (2.3 ranks equal amounts by it)."""
        if not fields.get("lotValues"):
            return fields
        kept = {offer["relatedLot"]: offer for offer in before}
        offers = []
        for offer in fields["lotValues"]:
            previous = kept.get(offer["relatedLot"])
            same = previous is not None and previous["value"] == offer["value"]
            offers.append({**offer, "date": previous["date"] if same else iso(now)})
        return {**fields, "lotValues": offers}

    def check_tenderers(self, verb: str, tenderers: list[dict], *, active: bool, bid=None):
        """2.3 leaves these to the platforms; we keep them in the model, for both faces: the
        procuring entity does not bid on its own tender, and a tenderer has one active bid."""
        mine = {party_key(tenderer) for tenderer in tenderers}
        if party_key(self.data["procuringEntity"]) in mine:
            raise NotAllowed(
                f"Can't {verb} bid: the procuring entity can't bid on its own tender",
                code="own_tender",
                location="body",
                name="tenderers",
            )
        if not active:
            return
        others = [other for other in self.active_bids() if other.pk != getattr(bid, "pk", None)]
        if any(mine & {party_key(t) for t in other.tenderers} for other in others):
            raise NotAllowed(
                f"Can't {verb} bid: the tenderer already has an active bid on this tender",
                code="one_bid",
                location="body",
                name="tenderers",
            )

    def check_new_bid(self, tenderer: dict, now) -> None:
        """Would an active bid from `tenderer` be accepted now (before its value is known)?"""
        self.check_tendering("add", now)
        self.check_tenderers("add", [tenderer], active=True)

    def place_bid(self, *, by: Actor, data: dict, documents: list[dict] = ()):
        """POST /tenders/{id}/bids: returns the bid and its access token. `documents` (each
        the keywords of a document's first version: tenders.documents.document_fields) are
        attached to it in the same change, as 2.3 keeps the documents sent with a bid."""
        if by.role is not Role.AUTHENTICATED:
            raise PermissionDenied()
        fields = to_json(validate(BidSchema, data, lots=bool(self.lots)))
        with atomic_change():
            now = self.lock_and_catch_up()
            self.check_tendering("add", now)
            self.check_bid_offer(fields, "add")
            fields = self.date_offers(fields, [], now)
            self.check_tenderers(
                "add", fields["tenderers"], active=fields["status"] == BidStatus.ACTIVE
            )
            by.check_standing()
            # (drafts count; a withdrawn bid makes room again)
            standing = self.bids.exclude(status=BidStatus.DELETED)
            check_room(standing, by, name="bids", most=MAX_BIDS, most_of_one=MAX_BIDS_OF_ONE)
            bid = self.bids.model(
                id=new_id(),
                number=self.bids.count() + 1,
                tender=self,
                broker=by.broker,
                organization=by.organization,
                date=now,
                value=fields.get("value"),
                lot_values=fields.get("lotValues", []),
                parameters=fields.get("parameters", []),
                tenderers=fields["tenderers"],
            )
            token = bid.issue_token()
            bidder = by.owning(bid, Role.BID_OWNER)
            action = "place" if fields["status"] == BidStatus.ACTIVE else "place_draft"
            bid.perform(action, bidder, now)  # (saves it, and stamps the tender)
            bid.attach_sent(bidder, now, documents)
        return bid, token
