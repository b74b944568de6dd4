"""A signed contract lives on in contracting (2.3's /contracts): the tender's owner takes the
contract's own credentials, and with them records its changes, changes the terms a pending
change names, and terminates it stating what was paid. `SignedContract` is the tender's
contract (one row, so the tender's contract and the contracting contract never disagree), seen
from contracting: a proxy with contracting's rows of the table and their rules; the tenders app
draws the contract up and signs it (tenders/models/contract.py), and knows nothing of this."""

from django.db import models

from core import tokens
from core.actors import Actor, Role
from core.errors import InvalidData, NotAllowed
from core.schema import parse_iso, to_json, too_many, validate
from core.transactions import atomic_change
from core.transitions import UNCHANGED, transition
from core.words import money
from tenders.models import Contract, ContractStatus
from tenders.models.base import new_id
from tenders.models.contract import ContractQuerySet, ends_too_soon

from ..schemas import ChangePatchSchema, ChangeSchema, SignedContractPatchSchema
from .change import ChangeStatus, ContractChange

# What a change of the terms is: only with a change pending (each has a reason the public
# reads), unlike 2.3, where anything went.
TERMS = ("value", "period", "items")
# How many changes one contract takes (each is read with it, on every read).
MAX_CHANGES = 100
# Contracting's rows of the contract's table: the tender's owner takes the contract's own
# token, with which its changes are made.
CONTRACTING = {
    "credentials": transition({ContractStatus.ACTIVE}, UNCHANGED, Role.TENDER_OWNER),
    "change_terms": transition({ContractStatus.ACTIVE}, UNCHANGED, Role.CONTRACT_OWNER),
    "add_change": transition({ContractStatus.ACTIVE}, UNCHANGED, Role.CONTRACT_OWNER),
    "terminate": transition(
        {ContractStatus.ACTIVE}, ContractStatus.TERMINATED, Role.CONTRACT_OWNER
    ),
}


class SignedContractQuerySet(ContractQuerySet):
    def search(self, *, supplier: str = "", buyer: str = "", status: str = ""):
        """The signed contracts of real tenders (not test ones), newest first: of a supplier
        or a buyer, by its code (all digits: an indexed column each) or a part of its name,
        in a status (active or terminated)."""
        found = self.in_contracting().exclude(tender__mode="test")
        if supplier:
            by_supplier = (
                {"supplier_code": supplier}
                if supplier.isdigit()
                else {"data__suppliers__0__name__icontains": supplier}
            )
            found = found.filter(**by_supplier)
        if buyer:
            by_buyer = (
                {"tender__buyer_identifier": buyer}
                if buyer.isdigit()
                else {"tender__data__procuringEntity__name__icontains": buyer}
            )
            found = found.filter(**by_buyer)
        if status in ContractStatus.in_contracting():
            found = found.filter(status=status)
        return found.select_related("tender").order_by("-date_signed", "-id")

    def with_change_pending_of(self, organization):
        """The signed contracts of `organization`'s tenders with a change not signed yet."""
        pending = ContractChange.objects.filter(
            contract=models.OuterRef("pk"), status=ChangeStatus.PENDING
        )
        return self.filter(
            models.Exists(pending), tender__organization=organization,
            status=ContractStatus.ACTIVE,
        ).select_related("tender")  # fmt: skip

    def to_terminate_by(self, organization, now):
        """The contracts of `organization`'s tenders in force whose term is over: what was
        paid is still to be said."""
        return self.filter(
            tender__organization=organization, status=ContractStatus.ACTIVE, ends__lt=now
        ).select_related("tender")


class SignedContract(Contract):
    TRANSITIONS = {**Contract.TRANSITIONS, **CONTRACTING}

    objects = SignedContractQuerySet.as_manager()

    class Meta:
        proxy = True

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        if by.acts_as(Role.CONTRACT_OWNER, self) and self.still_held_by(by):
            return Role.CONTRACT_OWNER
        return super().role_of(by)

    def check_context(self, action: str, by: Actor, now) -> None:
        if action not in CONTRACTING:
            super().check_context(action, by, now)

    def status_refusal(self, action: str) -> NotAllowed:
        if action in CONTRACTING:
            return self.contracting_refusal(action)
        return super().status_refusal(action)

    def check_rules(self, action: str, by: Actor, now) -> None:
        super().check_rules(action, by, now)
        if action in ("add_change", "terminate"):
            self.check_no_change_pending(action)

    def check_document_change(self, by, verb: str, document_id: str | None = None) -> str:
        if self.role_of(by) is Role.CONTRACT_OWNER:
            # In contracting: while the contract is active, whatever its tender's status.
            if self.status != ContractStatus.ACTIVE:
                raise NotAllowed(
                    f"Can't {verb} document in current ({self.status}) contract status",
                    code="own_status",
                    params={"status": self.get_status_display()},
                )
            by.check_standing()
            return Role.CONTRACT_OWNER
        return super().check_document_change(by, verb, document_id)

    def check_no_change_pending(self, action: str) -> None:
        """A new change, or the end of the contract, waits for the pending change's signature."""
        if self.status != ContractStatus.ACTIVE or self.pending_change() is None:
            return
        if action == "add_change":
            raise NotAllowed(
                "Can't create new contract change while any (pending) change exists",
                code="change_pending",
            )
        raise NotAllowed(
            "Can't terminate contract while any (pending) change exists", code="change_pending"
        )

    # --- who owns it here -----------------------------------------------------------------

    def is_owned_by(self, *, broker=None, token: str | None = None) -> bool:
        """Its tender's broker presenting the contract's own token (credentials)."""
        return (
            broker is not None
            and self.tender.broker_id == broker.pk
            and tokens.matches(token, self.token_digest)
        )

    def still_held_by(self, by: Actor) -> bool:
        """The token `by` acts with (if any) is still the contract's: credentials replace it,
        so a change checks it again on the row it holds, not only as its request arrived."""
        return by.token is None or tokens.matches(by.token, self.token_digest)

    def contracting_refusal(self, action: str) -> NotAllowed:
        """2.3's words for an action of contracting refused in the contract's status."""
        doing = {
            "credentials": "generate credentials",
            "add_change": "add contract change",
        }.get(action)
        if doing is None:
            return NotAllowed(
                f"Can't update contract in current ({self.status}) status",
                code="own_status",
                params={"status": self.get_status_display()},
            )
        return NotAllowed(
            f"Can't {doing} in current ({self.status}) contract status",
            code="own_status",
            params={"status": self.get_status_display()},
        )

    # --- the changes ----------------------------------------------------------------------

    def issue_credentials(self, *, by: Actor) -> str:
        """PATCH /contracts/{id}/credentials: the contract's own token (each call issues a new
        one; the one before stops working)."""
        with atomic_change():
            now = self.begin("credentials", by)
            token = tokens.new_token()
            self.token_digest = tokens.digest(token)
            self.save(update_fields=["token_digest"])
            # (nothing shown changes: no stamp)
            self.record_change("credentials", by, now, self.status, [])
        return token

    def pending_change(self) -> ContractChange | None:
        return next((c for c in self.changes.all() if c.status == ChangeStatus.PENDING), None)

    def add_change(self, *, by: Actor, data: dict) -> ContractChange:
        """POST /contracts/{id}/changes: a pending change (one at a time)."""
        fields = validate(ChangeSchema, data)
        with atomic_change():
            now = self.begin("add_change", by)
            if self.changes.count() >= MAX_CHANGES:
                raise too_many("changes", MAX_CHANGES)
            change = ContractChange(
                id=new_id(), contract=self, number=self.changes.count() + 1, date=now,
                rationale=fields.pop("rationale"), rationale_types=fields.pop("rationaleTypes"),
                contract_number=fields.pop("contractNumber", ""),
                date_signed=fields.pop("dateSigned", None), data=to_json(fields),
            )  # fmt: skip
            change.perform("create", by, now)
            if change.date_signed is not None:
                change.check_date_signed(change.date_signed, now)
            self.stamp_contract(now)
        return change

    def patch_change(self, change: ContractChange, *, by: Actor, data: dict) -> None:
        """PATCH /contracts/{id}/changes/{id}: its fields while pending; status "active" signs
        it (a dateSigned is needed, sent or kept)."""
        fields = validate(ChangePatchSchema, data)
        with atomic_change():
            now = change.begin("edit", by)
            status = fields.pop("status", change.status)
            edits = {
                "rationale": fields.pop("rationale", change.rationale),
                "rationale_types": fields.pop("rationaleTypes", change.rationale_types),
                "contract_number": fields.pop("contractNumber", change.contract_number),
                "date_signed": fields.pop("dateSigned", change.date_signed),
                "data": {**change.data, **to_json(fields)},
            }
            if edits["date_signed"] is not None:
                change.check_date_signed(edits["date_signed"], now)
            changed = [name for name, value in edits.items() if getattr(change, name) != value]
            if changed:
                change.apply("edit", by, now, **{name: edits[name] for name in changed})
            if status == ChangeStatus.ACTIVE:
                self._sign_change(change, by, now)
            if changed or status == ChangeStatus.ACTIVE:
                self.stamp_contract(now)

    def _sign_change(self, change: ContractChange, by: Actor, now) -> None:
        if change.date_signed is None:
            raise NotAllowed(
                "Can't update contract change status. 'dateSigned' is required.",
                code="change_date_signed",
            )
        change.perform("activate", by, now, date=now)

    def record_signed_change(self, *, by: Actor, change: dict, terms: dict, documents=()):
        """A change made and signed at once (the portal's): its reasons and signature
        (`change`: ChangeSchema's fields), the terms it changes (`terms`: value, period), and
        its documents (document_fields' keywords), in one change of the contract."""
        end = terms.get("period", {}).get("endDate")
        if end is not None:
            self.check_end_not_before_signature(parse_iso(end), parse_iso(change["dateSigned"]))
        with atomic_change():
            made = self.add_change(by=by, data=change)
            if terms:
                self.patch_signed(by=by, data=terms)
            self._attach_to_change(made, by, documents)
            self.patch_change(made, by=by, data={"status": ChangeStatus.ACTIVE})
        return made

    def sign_pending_change(self, *, by: Actor, date_signed: str, documents=()) -> None:
        """The change left pending (made through the API), signed on `date_signed`, with its
        signed copy (document_fields' keywords)."""
        with atomic_change():
            self.lock_for_change()
            change = self.pending_change()
            if change is None:
                raise NotAllowed("No change is pending", code="change_none_pending")
            self._attach_to_change(change, by, documents)
            self.patch_change(
                change, by=by, data={"status": ChangeStatus.ACTIVE, "dateSigned": date_signed}
            )

    def _attach_to_change(self, change: ContractChange, by: Actor, documents) -> None:
        """`documents` (its signed copy) attached to the contract, of `change`, still pending."""
        if not documents:
            return
        now = change.begin("edit", by)
        self.check_document_change(by, "add")
        self.attach_sent(by, now, [
            {**document, "metadata": {
                **document["metadata"], "documentOf": "change", "relatedItem": change.pk,
            }}
            for document in documents
        ])  # fmt: skip

    def check_end_not_before_signature(self, end, change_signed) -> None:
        """A new end of the contract's term (the portal's change): not before its start, its
        signature, nor the change's (2.3 asks only that it ends after it begins)."""
        period = self.data.get("period", {})
        moments = [change_signed, self.date_signed]
        if period.get("startDate"):
            moments.append(parse_iso(period["startDate"]))
        earliest = max(moment for moment in moments if moment is not None)
        if end < earliest:
            raise ends_too_soon(end, earliest)

    def terminate(self, *, by: Actor, amount_paid, details: str = "", more_paid=False) -> None:
        """Terminated, stating what was paid (and, for a contract not fulfilled, how it
        ended). More than its price is stated only when `more_paid` says it is right, and why
        (in `details`): the portal's question (2.3 takes any amount)."""
        price = self.data.get("value", {}).get("amount")
        if price is not None and amount_paid > price and not (more_paid and details.strip()):
            raise NotAllowed(
                "Amount paid is above the contract's value",
                code="paid_above_price" if not more_paid else "paid_above_price_why",
                field="more_paid" if not more_paid else "details",
                params={
                    "paid": money({**self.data["value"], "amount": amount_paid}),
                    "price": money(self.data["value"]),
                },
            )
        data = {"amountPaid": {"amount": amount_paid}, "status": ContractStatus.TERMINATED}
        if details:
            data["terminationDetails"] = details
        self.patch_signed(by=by, data=data)

    def patch_signed(self, *, by: Actor, data: dict) -> None:
        """PATCH /contracts/{id}: its title and description, what was paid, how it ended; the
        terms (value, period, items) only while a change is pending; status "terminated"
        ends it, once what was paid is stated."""
        fields = validate(SignedContractPatchSchema, self.merged(data))
        with atomic_change():
            now = self.begin("change_terms", by)
            requested = fields.pop("status", self.status)
            edits = to_json(fields)
            if "items" in edits:
                edits["items"] = self._items_changed(edits["items"])
            if "amountPaid" in edits:
                value = self.data["value"]
                edits["amountPaid"] = {
                    "amount": edits["amountPaid"]["amount"],
                    "currency": value.get("currency"),
                    "valueAddedTaxIncluded": value.get("valueAddedTaxIncluded"),
                }
            edits = {name: v for name, v in edits.items() if self.data.get(name) != v}
            terms = [name for name in TERMS if name in edits]
            if terms and self.pending_change() is None:
                raise NotAllowed(
                    f"Can't update contract {terms[0]} without a pending change",
                    code="change_needed",
                )
            if "value" in edits:
                self.check_value(edits["value"])
            if edits:
                self.save(update_fields=self.with_data(edits))
                self.record_change("change_terms", by, now, self.status, sorted(edits))
            if requested == ContractStatus.TERMINATED:
                if "amountPaid" not in self.data:
                    raise NotAllowed(
                        "Can't terminate contract while 'amountPaid' is not set",
                        code="amount_paid_needed",
                    )
                self.perform("terminate", by, now)
            if edits or requested != ContractStatus.ACTIVE:
                self.stamp_contract(now)

    def _items_changed(self, sent: list[dict]) -> list[dict]:
        """The items with what the owner may change of each (by their place, as 2.3 merges a
        list): the same items, their ids and classifications kept."""
        items = self.data.get("items", [])
        if len(sent) != len(items):
            raise InvalidData.field("items", "Can't add or remove contract items")
        return [
            {**item, **new}  # (new: what ContractItem takes)
            for item, new in zip(items, sent, strict=True)
        ]

    def _check_related_item(self, metadata: dict) -> None:
        """A document of a change names one of the contract's, still pending (2.3)."""
        if metadata.get("documentOf") != "change":
            super()._check_related_item(metadata)
            return
        change = next((c for c in self.changes.all() if c.pk == metadata.get("relatedItem")), None)
        if change is None:
            raise InvalidData.field("relatedItem", "relatedItem should be one of changes")
        if change.status != ChangeStatus.PENDING:
            raise NotAllowed(
                f"Can't add document to '{change.status}' change", code="change_signed"
            )
