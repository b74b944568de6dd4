from datetime import timedelta

from django.db import models

from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed, in_own_status, in_tender_status
from core.schema import iso, parse_iso, to_json, validate
from core.transactions import atomic_change
from core.transitions import NEW, transition
from core.words import money
from tenders.documents import PartDocuments
from tenders.part_schemas import ContractPatchSchema

from .base import PartOfTender, new_id
from .statuses import AwardStatus, ContractStatus, TenderStatus


class ContractQuerySet(models.QuerySet):
    def to_sign_by(self, organization):
        """The contracts `organization` is to sign as the tenders' buyer (now, or once the
        award's complaint period is over), each with its award and tender."""
        return self.filter(
            tender__organization=organization,
            tender__status__in=TenderStatus.deciding(),
            award__status=AwardStatus.ACTIVE,
            status=ContractStatus.PENDING,
        ).select_related("tender", "award")

    def in_contracting(self):
        return self.filter(status__in=ContractStatus.in_contracting())

    def signed_values(self, tender_ids) -> dict[str, float]:
        """What the signed contracts of each of `tender_ids` are worth together, as they stand
        (one query)."""
        values = {}
        for tender_id, value in (
            self.in_contracting()
            .filter(tender_id__in=tender_ids)
            .values_list("tender_id", "data__value__amount")
        ):
            values[tender_id] = values.get(tender_id, 0) + float(value or 0)
        return values


def ends_too_soon(end, earliest) -> InvalidData:
    """A term that would end before it begins or before the contract (or its change) is
    signed: refused at its end (the portal's rule: 2.3 has the first alone)."""
    refused = InvalidData(
        {"period": {"endDate": ["period should end after it begins and is signed"]}}
    )
    refused.code, refused.params = "ends_too_soon", {"earliest": earliest}
    return refused


class Contract(PartOfTender, PartDocuments):
    """The contract with an active award's supplier; signing it completes the tender, and it
    lives on in contracting (contracting.models.SignedContract, the same row) until it is
    terminated."""

    TRANSITIONS = {
        # Drawn up when its award is activated.
        "create": transition({NEW}, ContractStatus.PENDING, Role.SYSTEM),
        "edit": transition({ContractStatus.PENDING}, ContractStatus.PENDING, Role.TENDER_OWNER),
        "sign": transition({ContractStatus.PENDING}, ContractStatus.ACTIVE, Role.TENDER_OWNER),
        # Its award was taken back.
        "void": transition({ContractStatus.PENDING}, ContractStatus.CANCELLED, Role.SYSTEM),
        # (contracting's rows, once it is signed: contracting.models.SignedContract)
    }
    # 2.3 keeps a contract's date (the moment it was drawn up); its dateModified in
    # contracting is stamped by the changes themselves (next_stamp).
    STAMP_FIELD = None

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    award = models.ForeignKey("tenders.Award", on_delete=models.PROTECT, related_name="contracts")
    contract_id = models.CharField(max_length=64, editable=False)
    status = models.CharField(max_length=16, choices=ContractStatus, editable=False)
    date = models.DateTimeField(editable=False)
    date_signed = models.DateTimeField(null=True, blank=True, editable=False)
    date_modified = models.DateTimeField(null=True, blank=True, editable=False)
    # Its supplier's code (ЄДРПОУ), kept apart for the search.
    supplier_code = models.CharField(max_length=64, blank=True, editable=False)
    # The end of its term (its data's period.endDate), kept apart for the buyer's queue.
    ends = models.DateTimeField(null=True, blank=True, editable=False)
    # The contract's own token in contracting (its digest; none until credentials are taken).
    token_digest = models.CharField(max_length=64, blank=True, editable=False)
    # value, suppliers and items copied from the award; title, description, contractNumber,
    # period as the owner wrote them
    data = models.JSONField(default=dict)

    objects = ContractQuerySet.as_manager()

    class Meta(PartOfTender.Meta):
        indexes = [
            # The contracts' feed: those in contracting, by dateModified then id.
            models.Index(
                fields=["date_modified", "id"],
                condition=models.Q(status__in=["active", "terminated"]),
                name="contracts_feed",
            ),
            # The search: newest signed first, and a supplier's.
            models.Index(
                fields=["-date_signed", "-id"],
                condition=models.Q(status__in=["active", "terminated"]),
                name="contracts_signed",
            ),
            models.Index(fields=["supplier_code"], name="contracts_of_supplier"),
        ]

    def __str__(self) -> str:
        return self.contract_id

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        return Role.TENDER_OWNER if by.acts_as(Role.TENDER_OWNER, self.tender) else None

    def is_owned_by_organization(self, organization) -> bool:
        return self.tender.is_owned_by_organization(organization)

    def check_context(self, action: str, by: Actor, now) -> None:
        tender = self.tender
        if by.role is Role.SYSTEM:
            return
        if tender.status not in TenderStatus.deciding():
            raise in_tender_status("update contract", tender)
        tender.check_lot_active(self.award.lot_id, "update contract")

    def status_refusal(self, action: str) -> NotAllowed:
        return in_own_status("update contract", self)

    def check_rules(self, action: str, by: Actor, now) -> None:
        if by.role is not Role.SYSTEM:
            by.check_standing()
        if action == "sign":
            self._check_signing(now)

    # --- its documents (the signed contract) ----------------------------------------------

    # Where the tender may stand for its contracts' documents to change (2.3).
    DOCUMENTS_OPEN_IN = (TenderStatus.QUALIFICATION, TenderStatus.AWARDED)

    def check_documents_open(self, verb: str) -> None:
        tender = self.tender
        if tender.status not in self.DOCUMENTS_OPEN_IN:
            raise in_tender_status(f"{verb} document", tender)
        if self.status not in (ContractStatus.PENDING, ContractStatus.ACTIVE):
            raise NotAllowed(
                f"Can't {verb} document in current contract status",
                code="own_status",
                params={"status": self.get_status_display()},
            )
        tender.check_lot_active(self.award.lot_id, f"{verb} document")

    def patch(self, *, by: Actor, data: dict) -> None:
        """PATCH /contracts/{id}: the owner's edits of a pending contract, and signing it
        (status "active")."""
        fields = validate(ContractPatchSchema, self.merged(data))
        with atomic_change():
            now = self.begin("edit", by)
            requested = fields.pop("status", self.status)
            if requested not in (ContractStatus.PENDING, ContractStatus.ACTIVE):
                raise NotAllowed("Can't update contract status")
            date_signed = fields.pop("dateSigned", None)
            if "value" in fields:
                self.check_value(fields["value"])
            edits = to_json(fields)
            if edits and {**self.data, **edits} != self.data:
                self.date_modified = self.next_stamp(now)
                self.save(update_fields=[*self.with_data(edits), "date_modified"])
                self.record_change("edit", by, now, self.status, sorted(edits))
                self.tender.stamp_change(now)
            if requested == ContractStatus.ACTIVE:
                self.sign(by=by, date_signed=date_signed)
            elif date_signed is not None:
                self._check_date_signed(date_signed, now)
                self.date_signed, self.date_modified = date_signed, self.next_stamp(now)
                self.save(update_fields=["date_signed", "date_modified"])
                self.tender.stamp_change(now)

    def check_value(self, value: dict) -> None:
        """The owner may lower the contract's amount, not raise it past the award's, and may
        change neither its currency nor whether VAT is included."""
        for name in ("valueAddedTaxIncluded", "currency"):
            if value[name] != self.data["value"].get(name):
                raise NotAllowed(f"Can't update {name} for contract value")
        awarded = self.award.value["amount"]
        if value["amount"] > awarded:
            raise NotAllowed(
                f"Value amount should be less or equal to awarded amount ({float(awarded)})",
                code="value_above_award",
                field="amount",
                params={"amount": money(self.award.value)},
            )

    def _check_date_signed(self, date_signed, now) -> None:
        if date_signed > now:
            raise InvalidData.field("dateSigned", "Contract signature date can't be in the future")
        end = self.award.complaint_period_end
        if end and date_signed < end:
            raise InvalidData.field(
                "dateSigned",
                "Contract signature date should be after award complaint period end date "
                f"({iso(end)})",
            )

    def _check_signing(self, now) -> None:
        award = self.award
        if award.status != AwardStatus.ACTIVE:
            raise NotAllowed(
                f"Can't update contract in current ({award.status}) award status",
                code="award_status",
                params={"status": award.get_status_display()},
            )
        end = award.complaint_period_end
        if end and end > now:
            raise NotAllowed(
                f"Can't sign contract before stand-still period end ({iso(end)})",
                code="stand_still",
                params={"end": end},
            )
        # Claims against any decision on the same lot (or, without lots, the tender), and
        # against the conditions of the lot or the whole tender, hold the contract until their
        # claimants have said whether the answer satisfies them (2.3).
        if any(
            claim.is_answered and claim.concerns_line(award.lot_id)
            for claim in self.tender.claims()
        ):
            raise NotAllowed(
                "Can't sign contract before reviewing all complaints", code="claims_answered"
            )

    def with_data(self, edits: dict) -> list[str]:
        """`edits` laid over its data, and the end of its term kept apart (the buyer's queue
        reads it); the columns to save."""
        self.data = {**self.data, **edits}
        end = self.data.get("period", {}).get("endDate")
        self.ends = parse_iso(end) if end else None
        return ["data", "ends"]

    def merged(self, data: dict) -> dict:
        """A PATCH's data with its objects (value, period) laid over the contract's (2.3
        applies a PATCH to what is there: an object's fields left out stay)."""
        return {
            name: {**self.data[name], **sent}
            if isinstance(sent, dict) and isinstance(self.data.get(name), dict)
            else sent
            for name, sent in data.items()
        }

    def next_stamp(self, now):
        """Its dateModified after a change made `now`: strictly later than the last (the
        contracts' feed follows it, and never shows two changes of one stamp apart)."""
        last = self.date_modified
        return now if last is None or now > last else last + timedelta(microseconds=1)

    def _documents_changed(self, version, action: str, by, now) -> None:
        """A document added or replaced: recorded, and the contract stamped (its feed shows
        it) with its tender."""
        self.record_document_change(version, action, by, now)
        self.stamp_contract(now)

    def stamp_contract(self, now) -> None:
        """The contract changed: its dateModified moves forward, and so does its tender's (the
        tender shows the contract)."""
        self.date_modified = self.next_stamp(now)
        self.save(update_fields=["date_modified"])
        self.tender.stamp_change(now)

    @property
    def in_force(self) -> bool:
        """Signed and not terminated."""
        return self.status == ContractStatus.ACTIVE

    @property
    def is_signed(self) -> bool:
        return self.status in ContractStatus.in_contracting()  # (and terminated since)

    def awaits_signing_by(self, by: Actor) -> bool:
        """Is this a contract `by` is to sign (now or once the rules allow)?"""
        return self.role_of(by) is not None and self.status in self.TRANSITIONS["sign"].sources

    def sign(self, *, by: Actor, date_signed=None, documents=()) -> None:
        """Sign once the award's complaint period is over; the tender (with lots: the lot) is
        then complete. `documents` (the signed contract: document_fields' keywords) are
        attached in the same change."""
        with atomic_change():
            now = self.begin("sign", by)
            if date_signed is not None:
                self._check_date_signed(date_signed, now)
            if documents:
                self.check_document_change(by, "add")
                self.attach_sent(by, now, documents)
            self.apply(
                "sign", by, now, date_signed=date_signed or now, date_modified=self.next_stamp(now)
            )
            self.tender.contract_signed(self.award, now)

    def sign_with_terms(
        self, *, by: Actor, number: str, date_signed, period: tuple, amount, documents=()
    ) -> None:
        """The portal's signature: the contract's number, when it was signed, its term (start,
        end; no start: from the signature) and its price (at most the award's; None: the
        award's), and its signed copy, in one change, as 2.3's contract holds them. Its term
        ends after it begins (2.3) and not before it is signed (ours: the API signs as 2.3
        does)."""
        start, end = period
        start = start or date_signed
        amount = self.award.value["amount"] if amount is None else amount
        if end < date_signed or end < start:
            raise ends_too_soon(end, max(start, date_signed))
        with atomic_change():
            self.patch(
                by=by,
                data={
                    "contractNumber": number,
                    "period": {"startDate": iso(start), "endDate": iso(end)},
                    "value": {"amount": float(amount)},
                },
            )
            self.sign(by=by, date_signed=date_signed, documents=documents)

    def void(self, now) -> None:
        system = Actor.system()
        self.perform("void", system, now)
