from datetime import timedelta

from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from portal.core.actors import Actor, Role, Viewer
from portal.core.errors import (
    DomainError,
    InvalidData,
    NotAllowed,
    NotFound,
    PermissionDenied,
    Refused,
)
from portal.core.ids import is_id
from portal.core.schema import KYIV, iso, merge_patch, to_json, validate
from portal.core.transitions import StatusMachine, transition
from tenders import workdays
from tenders.documents import HasDocuments
from tenders.schema import (
    PUBLISHING_KINDS,
    BidSchema,
    CancellationSchema,
    TenderSchema,
    party_key,
)
from tenders.search import fold, search_columns

from .base import AuditEvent, Counter, Owned, new_id
from .statuses import AwardStatus, BidStatus, CancellationStatus, TenderStatus

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
            "guarantee", "enquiryPeriod", "tenderPeriod", "items",
        }
    ),
}  # fmt: skip
# Every key a tender PATCH may carry without being a "Rogue field".
TENDER_FIELDS = frozenset(TenderSchema().fields) | TenderSchema.server_fields


class MethodNotImplemented(DomainError):
    http_status = 415
    code = "not_implemented"

    def __init__(self):
        super().__init__("Not implemented", location="data", name="procurementMethodType")


class NotProcuringEntity(Refused):
    """A portal account registers tenders only for a procuring entity (2.3 has no accounts)."""

    code = "not_procuring_entity"

    def __init__(self):
        super().__init__("Only users of a procuring entity can publish tenders")


class StaleDraft(Refused):
    """A draft whose enquiry period is over (2.3 published it, and the tender moved on at once);
    a draft cannot be edited, so it is cancelled and written anew."""

    http_status = 422
    code = "stale_draft"

    def __init__(self):
        super().__init__(
            "enquiryPeriod should end in the future", location="body", name="enquiryPeriod"
        )


class TenderQuerySet(models.QuerySet):
    def with_related(self):
        return self.select_related("broker").prefetch_related(
            "bids",
            "awards",
            "awards__complaints",
            "awards__complaints__documents",
            "contracts",
            "cancellations",
            "documents",
        )

    def published(self):
        return self.exclude(status=TenderStatus.DRAFT)

    def public(self):
        """What the portal lists: published, not test tenders."""
        return self.published().exclude(mode="test")

    def matching(self, *, q="", tender_id="", cpv="", buyer="", status="", published_from=None,
                 published_to=None):  # fmt: skip
        """The portal's search; every criterion given must hold."""
        found = self
        for word in fold(q).split():
            found = found.filter(search_text__contains=word)
        if tender_id:
            found = found.filter(tender_id__iexact=tender_id.strip())
        if cpv:
            found = found.filter(cpv_codes__contains=f" {cpv} " if "-" in cpv else f" {cpv}-")
        if buyer:
            found = found.filter(buyer_identifier=buyer.strip())
        if status:
            found = found.filter(status=status)
        if published_from:
            found = found.filter(date__date__gte=published_from)
        if published_to:
            found = found.filter(date__date__lte=published_to)
        return found

    def find(self, pk: str, *, viewer: Viewer | None) -> "Tender":
        """The tender, for a write (which applies due changes itself), or 404 tender_id (also
        for a draft `viewer` may not see; None: the system, which sees everything)."""
        tender = self.select_related("broker").filter(pk=pk).first() if is_id(pk) else None
        if tender is None or not tender.shown_to(viewer):
            raise NotFound("tender_id")
        return tender

    def check_registering(self, by: Actor) -> None:
        """A broker registers tenders; in the portal, a procuring entity's user."""
        if by.role is not Role.BROKER:
            raise PermissionDenied()
        if by.user is not None and not getattr(by.organization, "publishes_tenders", False):
            raise NotProcuringEntity()
        by.check_standing(in_public=False)

    def register(self, *, by: Actor, data: dict) -> tuple["Tender", str]:
        """Create a tender (as a draft when data.status is "draft"); returns it and its token."""
        self.check_registering(by)
        if data.get("procurementMethodType", "belowThreshold") != "belowThreshold":
            raise MethodNotImplemented()
        now = timezone.now()
        document = validate(TenderSchema, data, now=now)
        kind = document["procuringEntity"].get("kind", "")
        if kind not in PUBLISHING_KINDS:
            raise DomainError(
                f"'{kind}' procuringEntity cannot publish this type of procedure. "
                f"Only {', '.join(PUBLISHING_KINDS)} are allowed.",
                code="procuring_entity_kind",
                location="procuringEntity",
                name="kind",
            )
        status = TenderStatus.DRAFT if data.get("status") == "draft" else TenderStatus.ENQUIRIES
        by.check_standing(in_public=status != TenderStatus.DRAFT)
        with transaction.atomic():
            tender = self.model(
                id=new_id(),
                broker=by.broker,
                organization=by.organization,
                status=status,
                date=now,
                tender_id=Tender.next_tender_id(now),
            )
            tender._store(document)
            token = tender.issue_token()
            tender.next_check = tender._next_check()
            # Stamped after the day's counter, which parallel creates wait for: dateModified
            # stays close to the commit, as the feed's watermark assumes.
            tender.date_modified = max(now, timezone.now())
            tender.save(force_insert=True)
            tender._record(tender, "register", by, now, to_status=status)
        return tender, token

    def catch_up_due(self, *, limit: int = 100) -> int:
        """The chronograph's pass: bring up to date the tenders whose next change is due."""
        due = self.filter(next_check__lte=timezone.now()).order_by("next_check")
        changed = 0
        for tender in due[:limit]:
            changed += tender.catch_up(skip_locked=True)
        return changed

    def current(self, pk: str, *, viewer: Viewer | None) -> "Tender":
        """The tender with its bids, awards, contracts and cancellations, with every change
        that became due by now applied (so that what anyone reads is current); 404 tender_id
        for a draft `viewer` may not see (None: the system, which sees everything)."""
        tender = self.with_related().filter(pk=pk).first() if is_id(pk) else None
        if tender is None or not tender.shown_to(viewer):
            raise NotFound("tender_id")
        if tender.next_check and tender.next_check <= timezone.now():
            tender.catch_up()
            tender = self.with_related().get(pk=pk)
        return tender


T = TenderStatus
LIVE = frozenset(T) - T.terminal()
TRANSITIONS = {
    # The owner's changes.
    "publish": transition({T.DRAFT}, T.ENQUIRIES, Role.TENDER_OWNER),
    "edit": transition(LIVE - {T.DRAFT}, None, Role.TENDER_OWNER),
    "add_document": transition({T.DRAFT, T.ENQUIRIES}, None, Role.TENDER_OWNER),
    "update_document": transition({T.DRAFT, T.ENQUIRIES}, None, Role.TENDER_OWNER),
    "cancel": transition(LIVE, T.CANCELLED, Role.TENDER_OWNER),
    # Caused by time, or by a decision on an award or a contract.
    "start_tendering": transition({T.ENQUIRIES}, T.TENDERING, Role.SYSTEM),
    "close_tendering": transition({T.TENDERING}, None, Role.SYSTEM),  # qualification | unsuccessful
    "awarded": transition({T.QUALIFICATION}, T.AWARDED, Role.SYSTEM),
    "reopen_qualification": transition({T.AWARDED}, T.QUALIFICATION, Role.SYSTEM),
    "fail": transition({T.AWARDED}, T.UNSUCCESSFUL, Role.SYSTEM),
    "complete": transition({T.AWARDED}, T.COMPLETE, Role.SYSTEM),
}

# The way a tender goes when nothing ends it early (each step a transition above; closing
# tendering leads to qualification when there are bids): the stages the portal shows.
LIFECYCLE = [T.ENQUIRIES, T.TENDERING, T.QUALIFICATION, T.AWARDED, T.COMPLETE]


class Tender(StatusMachine, HasDocuments, Owned):
    TRANSITIONS = TRANSITIONS
    LIFECYCLE = LIFECYCLE

    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    tender_id = models.CharField(_("tender ID"), max_length=40, unique=True, editable=False)
    status = models.CharField(_("status"), max_length=32, choices=TenderStatus, editable=False)
    mode = models.CharField(max_length=8, blank=True, editable=False)
    title = models.TextField(_("title"))
    description = models.TextField(_("description"), blank=True)
    procurement_method_details = models.CharField(max_length=255, blank=True)
    enquiry_start = models.DateTimeField()
    enquiry_end = models.DateTimeField()
    tender_start = models.DateTimeField()
    tender_end = models.DateTimeField()
    award_period_start = models.DateTimeField(null=True, blank=True, editable=False)
    award_period_end = models.DateTimeField(null=True, blank=True, editable=False)
    # The rest of the document as its owner wrote it (procuringEntity, value, items...).
    data = models.JSONField(default=dict)
    date = models.DateTimeField(editable=False)
    date_modified = models.DateTimeField(editable=False)
    # Derived from the document by _store() for the portal's search (tenders/search.py).
    search_text = models.TextField(blank=True, editable=False)
    cpv_codes = models.TextField(blank=True, editable=False)
    buyer_identifier = models.CharField(max_length=64, blank=True, editable=False)
    # When a time-driven change is next due; the chronograph looks for tenders past it.
    next_check = models.DateTimeField(null=True, blank=True, editable=False)

    objects = TenderQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["date_modified", "id"], name="tender_feed"),
            models.Index(fields=["next_check"], name="tender_next_check"),
        ]

    def __str__(self) -> str:
        return f"{self.tender_id} {self.title}"

    # --- reading -------------------------------------------------------------------------

    @property
    def speedup(self) -> int | None:
        return workdays.accelerator(self.procurement_method_details)

    def shift(self, start, duration: timedelta, *, working_days: bool = False):
        return workdays.shift(start, duration, working_days=working_days, speedup=self.speedup)

    @property
    def bids_are_public(self) -> bool:
        """Bids stay sealed until tendering closes; a tender cancelled before that keeps them so."""
        if self.status in (TenderStatus.DRAFT, TenderStatus.ENQUIRIES, TenderStatus.TENDERING):
            return False
        return self.status != TenderStatus.CANCELLED or self.award_period_start is not None

    def shown_to(self, viewer: Viewer | None) -> bool:
        """A draft is shown to its owner alone (`viewer` None: the system)."""
        return self.status != TenderStatus.DRAFT or viewer is None or viewer.owns(self)

    def check_bids_visible(self, noun: str = "bids") -> None:
        if not self.bids_are_public:
            raise NotAllowed(f"Can't view {noun} in current ({self.status}) tender status")

    @property
    def owner_name(self) -> str:
        return self.broker.name if self.broker_id else ""

    def document(self) -> dict:
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

    def _store(self, document: dict) -> None:
        """Write a validated document into the columns and `data`."""
        document = dict(document)
        for column, value in search_columns(document).items():
            setattr(self, column, value)
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
        document.setdefault("procurementMethodType", "belowThreshold")
        self.data = to_json(document)

    def _stored_state(self) -> tuple:
        return (
            self.title, self.description, self.mode, self.procurement_method_details,
            self.enquiry_start, self.enquiry_end, self.tender_start, self.tender_end, self.data,
        )  # fmt: skip

    @staticmethod
    def next_tender_id(now) -> str:
        day = now.astimezone(KYIV).date().isoformat()
        return f"UA-{day}-{Counter.next(f'tenderID:{day}'):06d}"

    # --- changing: the frame every write goes through -------------------------------------

    def _lock(self, *, skip_locked: bool = False):
        """Lock this tender's row for the current transaction, reload it, apply the changes that
        became due, and return `now` (read after the lock, so dates follow commit order)."""
        locked = Tender.objects.select_for_update(skip_locked=skip_locked)
        self.refresh_from_db(from_queryset=locked)
        now = timezone.now()
        self._caught_up = self._advance(now)
        if self._caught_up:
            self._touch(now)
        elif self.next_check and self.next_check <= now:
            # Nothing was due after all (a change is waiting on something else): look again
            # when the next thing is due, not on every pass.
            self.next_check = self._next_check()
            self.save(update_fields=["next_check"])
        return now

    def _touch(self, now) -> None:
        """Save a change: dateModified moves forward (strictly), next_check is recomputed."""
        self.date_modified = max(now, self.date_modified + timedelta(microseconds=1))
        self.next_check = self._next_check()
        self.save()

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        return Role.TENDER_OWNER if by.acts_as(Role.TENDER_OWNER, self) else None

    def status_refusal(self, action: str) -> NotAllowed:
        if action == "cancel":
            return NotAllowed(f"Can't add cancellation in current ({self.status}) tender status")
        if action.endswith("_document"):
            verb = action.removesuffix("_document")
            return NotAllowed(f"Can't {verb} document in current ({self.status}) tender status")
        return NotAllowed(f"Can't update tender in current ({self.status}) status")

    def check_rules(self, action: str, by: Actor, now) -> None:
        if by.role is Role.SYSTEM:
            return
        if action == "publish" and self.is_stale_draft:
            raise StaleDraft()
        by.check_standing(in_public=action == "publish" or self.status != TenderStatus.DRAFT)

    def lock_for_change(self):
        return self._lock()

    def save_change(self, fields: list[str]) -> None:
        """The tender's row is saved once per change, by _touch (dateModified, next_check)."""

    def record_change(self, action: str, by: Actor, now, before: str, fields: list[str]):
        if self.status in TenderStatus.terminal():
            # Claims nobody answered before the tender ended are ignored.
            for complaint in self.complaints.unanswered():
                complaint._ignore(now)
        self._record(self, action, by, now, from_status=before, to_status=self.status)

    def _transit(self, action: str, by: Actor, at, *, status=None) -> None:
        """A change of status through the one guard (time-driven ones by the system)."""
        self.guard(action, by, at)
        self.apply(action, by, at, status=status)

    def _record(
        self, subject, action: str, by: Actor, at, *, from_status="", to_status="", **payload
    ):
        AuditEvent.record(
            tender=self,
            subject=subject,
            action=action,
            by=by,
            at=at,
            from_status=from_status,
            to_status=to_status,
            **payload,
        )

    def catch_up(self, *, skip_locked: bool = False) -> bool:
        """Apply every time-driven change due by now; True if there was one. With skip_locked,
        a tender another process is changing is left alone (it will catch up itself)."""
        try:
            with transaction.atomic():
                self._lock(skip_locked=skip_locked)
        except Tender.DoesNotExist:
            return False
        return self._caught_up

    # --- time-driven changes --------------------------------------------------------------

    def _advance(self, now) -> bool:
        """Apply, in order, each change that became due by `now`, stamped with its due time."""
        changed = False
        for complaint in self.complaints.answered():
            if complaint.closes_at <= now:
                complaint._expire(complaint.closes_at)
                changed = True
        if self.status == TenderStatus.ENQUIRIES and self.tender_start <= now:
            self._transit("start_tendering", Actor.system(), self.tender_start)
            changed = True
        if self.status == TenderStatus.TENDERING and self.tender_end <= now:
            self._close_tendering(at=self.tender_end)
            changed = True
        failed_at = self._qualification_failed_at()
        if failed_at is not None and failed_at <= now:
            self._transit("fail", Actor.system(), failed_at)
            changed = True
        return changed

    def _next_check(self):
        if self.status == TenderStatus.ENQUIRIES:
            return self.tender_start
        if self.status == TenderStatus.TENDERING:
            return self.tender_end
        due = [complaint.closes_at for complaint in self.complaints.answered()]
        due.append(self._qualification_failed_at())
        return min((moment for moment in due if moment is not None), default=None)

    def _close_tendering(self, *, at) -> None:
        system = Actor.system()
        if not self.bids.filter(status=BidStatus.ACTIVE).exists():
            self._transit("close_tendering", system, at, status=TenderStatus.UNSUCCESSFUL)
            return
        self._transit("close_tendering", system, at, status=TenderStatus.QUALIFICATION)
        self.award_period_start = at
        self._award_next_bid(at=at, by=system)

    def _qualification_failed_at(self):
        """When every bid has been disqualified, the tender fails once the last complaint
        period has ended and the last claim is closed; None while some bid is still in the
        running or a submitted claim awaits its end."""
        if self.status != TenderStatus.AWARDED:
            return None
        awards = list(self.awards.all())
        if not awards or awards[-1].status != AwardStatus.UNSUCCESSFUL:
            return None
        if self.complaints.unresolved().exists():
            return None
        ends = [award.complaint_period_end for award in awards if award.complaint_period_end]
        ends += [complaint.date for complaint in self.complaints.closed()]
        return max(ends)

    def _award_next_bid(self, *, at, by: Actor) -> None:
        """Give a pending award to the lowest bid (earliest on ties) not yet disqualified, or,
        with none left, end the qualification."""
        disqualified = {
            award.bid_id for award in self.awards.all() if award.status == AwardStatus.UNSUCCESSFUL
        }
        candidates = sorted(
            (
                bid
                for bid in self.bids.filter(status=BidStatus.ACTIVE)
                if bid.pk not in disqualified
            ),
            key=lambda bid: (bid.value["amount"], bid.number),
        )
        if not candidates:
            if self.status != TenderStatus.AWARDED:
                self._transit("awarded", Actor.system(), at)
            self.award_period_end = at
            return
        bid = candidates[0]
        award = self.awards.create(
            id=new_id(),
            number=self.awards.count() + 1,
            bid=bid,
            status=AwardStatus.PENDING,
            date=at,
            value=bid.value,
            suppliers=bid.tenderers,
            complaint_period_start=at,
        )
        self._record(award, "create", by, at, to_status=AwardStatus.PENDING)
        if self.status != TenderStatus.QUALIFICATION:
            self._transit("reopen_qualification", Actor.system(), at)
        self.award_period_end = None

    # --- the owner's changes --------------------------------------------------------------

    def publish(self, *, by: Actor) -> None:
        """A draft becomes public: questions are taken from now on."""
        with transaction.atomic():
            now = self.begin("publish", by)
            self._publish(by, now)

    @property
    def is_stale_draft(self) -> bool:
        """A draft whose questions were to end already: published, it would skip them (or its
        bids too) and end at once, so it can no longer be published."""
        return self.status == TenderStatus.DRAFT and self.enquiry_end <= timezone.now()

    def edit(self, *, by: Actor, patch: dict) -> bool:
        """PATCH /tenders/{id}: merge `patch` into the document (2.3 rules); True if it changed."""
        with transaction.atomic():
            now = self._lock()
            if self.status == TenderStatus.DRAFT and patch.get("status") == TenderStatus.ENQUIRIES:
                self.guard("publish", by, now)
                self._publish(by, now)
                return True
            self.guard("edit", by, now)
            rogue = {key: "Rogue field" for key in patch if key not in TENDER_FIELDS}
            if rogue:
                raise InvalidData(rogue)
            allowed = EDITABLE_FIELDS.get(self.status, frozenset())
            current = self.document()
            merged = merge_patch(current, {k: v for k, v in patch.items() if k in allowed})
            if isinstance(merged.get("procuringEntity"), dict):
                kind = current["procuringEntity"].get("kind")
                merged["procuringEntity"] = {**merged["procuringEntity"], "kind": kind}
            for name in ("enquiryPeriod", "tenderPeriod"):
                period = merged.get(name)
                if isinstance(period, dict) and "startDate" not in period:
                    raise InvalidData({name: {"startDate": ["This field cannot be deleted"]}})
            document = validate(TenderSchema, merged)
            before = self._stored_state()
            self._store(document)
            if self._stored_state() == before:
                return False
            self._touch(now)
            self._record(self, "edit", by, now, fields=sorted(set(patch) & allowed))
            return True

    def _publish(self, by: Actor, now) -> None:
        self.apply("publish", by, now)
        self._touch(now)

    def add_cancellation(self, *, by: Actor, data: dict):
        """POST /tenders/{id}/cancellations: a pending cancellation, or with status "active" the
        tender is cancelled at once."""
        fields = validate(CancellationSchema, data)
        with transaction.atomic():
            now = self._lock()
            self.guard("cancel", by, now)
            status = fields.pop("status", CancellationStatus.PENDING)
            cancellation = self.cancellations.create(
                id=new_id(),
                number=self.cancellations.count() + 1,
                status=CancellationStatus.PENDING,
                date=now,
                reason=fields.pop("reason"),
                data=fields,
            )
            self._record(cancellation, "create", by, now, to_status=CancellationStatus.PENDING)
            if status == CancellationStatus.ACTIVE:
                cancellation._activate(by, now)
            self._touch(now)
        return cancellation

    def cancel(self, *, by: Actor, reason: str) -> None:
        """Cancel the tender at once, for `reason` (an active cancellation)."""
        self.add_cancellation(by=by, data={"reason": reason, "status": CancellationStatus.ACTIVE})

    def _complete(self, by: Actor, at) -> None:
        """The contract is signed: the tender is complete."""
        self._transit("complete", Actor.system(), at)
        self._touch(at)

    def _cancel(self, by: Actor, at) -> None:
        """An active cancellation cancels the tender (the owner's act, through it)."""
        self.apply("cancel", by, at)

    # --- documents ------------------------------------------------------------------------

    @property
    def document_tender(self) -> "Tender":
        return self

    def check_document_change(self, by: Actor, verb: str, document_id: str | None = None) -> str:
        """The owner's documents, added and replaced while the tender is a draft or in
        enquiries (once bids come in, the conditions they answer are fixed)."""
        self.guard(f"{verb}_document", by, timezone.now())
        if document_id:
            self._check_author(Role.TENDER_OWNER, document_id)
        return Role.TENDER_OWNER

    def _documents_changed(self, version, action: str, by: Actor, now) -> None:
        self._touch(now)
        self._record(
            self, action, by, now, document_id=version.document_id, version=version.version
        )

    # --- bidders --------------------------------------------------------------------------

    def require_tendering(self, verb: str, now) -> None:
        """Bids are placed, changed and withdrawn only while tendering is open."""
        if self.status != TenderStatus.TENDERING:
            raise NotAllowed(f"Can't {verb} bid in current ({self.status}) tender status")
        if not self.tender_start <= now <= self.tender_end:
            past = {"add": "added", "update": "updated", "delete": "deleted"}[verb]
            period = f"from ({iso(self.tender_start)}) to ({iso(self.tender_end)})"
            raise NotAllowed(f"Bid can be {past} only during the tendering period: {period}.")

    def check_bid_value(self, value: dict) -> None:
        mine = self.data["value"]
        if value["amount"] > mine["amount"]:
            raise InvalidData.field("value", "value of bid should be less than value of tender")
        if value["currency"] != mine["currency"]:
            raise InvalidData.field(
                "value", "currency of bid should be identical to currency of value of tender"
            )
        if value["valueAddedTaxIncluded"] != mine["valueAddedTaxIncluded"]:
            raise InvalidData.field(
                "value",
                "valueAddedTaxIncluded of bid should be identical to "
                "valueAddedTaxIncluded of value of tender",
            )

    def check_tenderers(self, verb: str, tenderers: list[dict], *, active: bool, bid=None):
        """2.3 leaves these to the platforms; we keep them in the model, for both faces: the
        procuring entity does not bid on its own tender, and a tenderer has one active bid."""
        mine = {party_key(tenderer) for tenderer in tenderers}
        if party_key(self.data["procuringEntity"]) in mine:
            raise NotAllowed(
                f"Can't {verb} bid: the procuring entity can't bid on its own tender",
                location="body",
                name="tenderers",
            )
        if not active:
            return
        others = self.bids.filter(status=BidStatus.ACTIVE).exclude(pk=getattr(bid, "pk", None))
        if any(mine & {party_key(t) for t in other.tenderers} for other in others):
            raise NotAllowed(
                f"Can't {verb} bid: the tenderer already has an active bid on this tender",
                location="body",
                name="tenderers",
            )

    def bid_refusal(self, tenderer: dict, now) -> str | None:
        """Why a bid from `tenderer` would be refused now (the 2.3 description), or None."""
        try:
            self.require_tendering("add", now)
            self.check_tenderers("add", [tenderer], active=True)
        except NotAllowed as refusal:
            return refusal.description
        return None

    def place_bid(self, *, by: Actor, data: dict):
        """POST /tenders/{id}/bids: returns the bid and its access token."""
        if by.role is not Role.BROKER:
            raise PermissionDenied()
        fields = to_json(validate(BidSchema, data))
        with transaction.atomic():
            now = self._lock()
            self.require_tendering("add", now)
            self.check_bid_value(fields["value"])
            self.check_tenderers(
                "add", fields["tenderers"], active=fields["status"] == BidStatus.ACTIVE
            )
            by.check_standing()
            bid = self.bids.model(
                id=new_id(),
                number=self.bids.count() + 1,
                tender=self,
                broker=by.broker,
                organization=by.organization,
                status=fields["status"],
                date=now,
                value=fields["value"],
                tenderers=fields["tenderers"],
            )
            token = bid.issue_token()
            bid.save(force_insert=True)
            self._touch(now)
            self._record(bid, "create", by, now, to_status=bid.status)
        return bid, token
