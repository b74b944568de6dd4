"""The tender: its columns, its status table and the owner's changes. Its other jobs live
beside it: the 2.3 wire form (tender_wire.py), time-driven changes (tender_time.py), bidding
(bidding.py), finding and registering tenders (tender_queries.py), refusals (tender_errors.py),
the portal's changes of the whole document (tender_rewrites.py)."""

from datetime import timedelta

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.actors import Actor, Role, Viewer
from core.errors import InvalidData, NotAllowed, in_own_status, in_tender_status
from core.schema import merge_patch, validate
from core.transactions import atomic_change
from core.transitions import StatusMachine
from tenders import workdays
from tenders.part_schemas import CancellationSchema
from tenders.procedures import WHEN_UNNAMED, Procedure, procedure_named
from tenders.schema import MAX_CANCELLATIONS, TenderSchema
from tenders.search import search_columns

from .auction_routes import AuctionRoutes
from .base import AuditEvent, Owned, new_id
from .bidding import Bidding
from .lots import Lots, lot_of
from .questions import check_items_asked_about
from .room import check_room
from .statuses import CancellationStatus, TenderStatus
from .tender_documents import TenderDocuments
from .tender_errors import StaleDraft
from .tender_queries import TenderQuerySet, claims_with_awards
from .tender_rewrites import WrittenWhole
from .tender_search import TenderSearch
from .tender_time import TimeDrivenChanges
from .tender_wire import EDITABLE_FIELDS, TENDER_FIELDS, TenderWire, keeping_entity_kind
from .untold import keep_untold_states


class Tender(
    StatusMachine, TimeDrivenChanges, AuctionRoutes, Bidding, Lots, TenderWire, TenderDocuments,
    WrittenWhole, Owned,
):  # fmt: skip
    id = models.CharField(primary_key=True, max_length=32, default=new_id, editable=False)
    tender_id = models.CharField(_("tender ID"), max_length=40, unique=True, editable=False)
    status = models.CharField(_("status"), max_length=32, choices=TenderStatus, editable=False)
    mode = models.CharField(max_length=8, blank=True, editable=False)
    # procurementMethodType: which procedure's rules the tender follows (tenders/procedures.py).
    procurement_method_type = models.CharField(
        max_length=64, default=WHEN_UNNAMED, db_default=WHEN_UNNAMED, editable=False
    )
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
    # When it became public (None: a draft), stamped as dateModified is: what the portal's
    # alerts of saved searches call new.
    published = models.DateTimeField(null=True, blank=True, editable=False, db_index=True)
    # Derived from the document by store_document() for the portal's search (tenders/search.py; the
    # words and codes are in TenderSearch).
    buyer_identifier = models.CharField(max_length=64, blank=True, editable=False)
    # Derived by store_document(): whether `data` holds lots (asked by changes that do not read it).
    has_lots = models.BooleanField(default=False, editable=False)
    # When a time-driven change is next due; the chronograph looks for tenders past it.
    next_check = models.DateTimeField(null=True, blank=True, editable=False)
    # The 2.3 representation as the public reads it, kept by the first read after a change
    # (tenders/api/stored.py); every change empties it. `others_see_more`: some readers (an
    # owner of a draft claim, of an answer not sent) are shown more than the public.
    public_text = models.TextField(blank=True, default="", editable=False)
    others_see_more = models.BooleanField(default=False, editable=False)
    # A change committed that open data has not been told of yet (tenders.extensions): told by the
    # background (Tender.objects.tell_untold), or before the next change, once its row is locked.
    untold = models.BooleanField(default=False, editable=False)

    objects = TenderQuerySet.as_manager()

    class Meta:
        verbose_name, verbose_name_plural = _("tender"), _("tenders")
        indexes = [
            models.Index(fields=["date_modified", "id"], name="tender_feed"),
            models.Index(fields=["next_check"], name="tender_next_check"),
            # the search by a procuring entity's code
            models.Index(fields=["buyer_identifier"], name="tender_buyer"),
            # the changes open data is still to be told of (few at any moment)
            models.Index(fields=["id"], condition=models.Q(untold=True), name="tender_untold"),
        ]

    def __str__(self) -> str:
        return f"{self.tender_id} {self.title}"

    # --- reading -------------------------------------------------------------------------

    @property
    def procedure(self) -> Procedure:
        return procedure_named(self.procurement_method_type)

    @property
    def transitions(self):
        return self.procedure.transitions

    @property
    def lifecycle(self) -> list[TenderStatus]:
        return self.procedure.lifecycle

    @property
    def speedup(self) -> int | None:
        return workdays.accelerator(self.procurement_method_details)

    def shift(self, start, duration: timedelta, *, working_days: bool = False):
        return workdays.shift(start, duration, working_days=working_days, speedup=self.speedup)

    @property
    def is_draft(self) -> bool:
        return self.status == TenderStatus.DRAFT

    @property
    def is_cancelled(self) -> bool:
        return self.status == TenderStatus.CANCELLED

    def stages(self) -> list[tuple[str, str]]:
        """The lifecycle's stages, each with where the tender stands to it: "done", "current",
        "upcoming" (all of them for a draft), or "skipped" (every one, for a tender that ended
        early)."""
        if self.status == TenderStatus.DRAFT:
            position = -1
        elif self.status in self.lifecycle:
            position = self.lifecycle.index(self.status)
        else:
            return [(status, "skipped") for status in self.lifecycle]
        return [
            (status, "done" if index < position else "current" if index == position else "upcoming")
            for index, status in enumerate(self.lifecycle)
        ]

    @property
    def cancellation_in_effect(self):
        """The cancellation that took effect (of the tender or of a lot), or None; read from
        the cancellations loaded with it."""
        return next((c for c in self.cancellations.all() if c.took_effect), None)

    @property
    def ended_early(self) -> bool:
        """Ended off the lifecycle's path: cancelled, or without a contract."""
        return self.status in TenderStatus.terminal() and self.status not in self.lifecycle

    @property
    def bids_are_public(self) -> bool:
        """Bids are sealed until the auction is over; a tender cancelled before keeps them so."""
        if self.status in TenderStatus.sealed():
            return False
        return self.status != TenderStatus.CANCELLED or self.award_period_start is not None

    def shown_to(self, viewer: Viewer | None) -> bool:
        """A tender never made public (a draft, or a draft cancelled) is shown to its owner
        alone (`viewer` None: the system)."""
        return self.published is not None or viewer is None or viewer.owns(self)

    def is_due(self, now) -> bool:
        """Has a time-driven change become due (which the next read or the chronograph
        applies)?"""
        return self.next_check is not None and self.next_check <= now

    def differs_by_reader(self) -> bool:
        """Do some readers see more of it than the public (a draft claim, an answer not yet
        sent)? Reads its claims (of both kinds) as loaded."""
        return any(complaint.differs_by_reader() for complaint in self.complaints.all())

    def check_bids_visible(self, noun: str = "bids") -> None:
        if not self.bids_are_public:
            raise in_tender_status(f"view {noun}", self)

    @property
    def owner_name(self) -> str:
        return self.broker.name if self.broker_id else ""

    # --- changing: the frame every write goes through -------------------------------------

    def lock_and_catch_up(self):
        """Lock this tender's row for the current transaction and reload it (unless this
        instance was locked so already), apply the changes that became due, and return `now`
        (read after the lock, so dates follow commit order)."""
        if not self.holds_lock:
            locked = Tender.objects.select_for_update()
            self.refresh_from_db(from_queryset=locked)
            self.locked_as_loaded()
        now = timezone.now()
        self.caught_up = self.is_due(now) and self.apply_changes_due(now)
        if self.caught_up:
            self.stamp_change(now)
        elif self.is_due(now):
            # Nothing was due after all (a change is waiting on something else): look again
            # when the next thing is due, not on every pass.
            # next_check is shown (2.3's next_check): the kept representation goes with it.
            self.next_check = self.next_check_due()
            self.public_text = ""
            self.save()
        return now

    def catch_up_as_locked(self, *, claims: list | None = None) -> bool:
        """This instance was just loaded with its row locked (FOR UPDATE), and its `claims`
        with it if given: apply what became due, without locking or reloading it again; True
        if something was."""
        self.locked_as_loaded(claims=claims)
        self.lock_and_catch_up()
        return self.caught_up

    def locked_as_loaded(self, *, claims: list | None = None) -> None:
        """This instance was just loaded with its row locked (FOR UPDATE), and its `claims`
        with it if given: changes made before the transaction ends need not lock or reload it
        again, and save only the columns they change. The state it is in, if open data was
        not told of it, is kept first (keep_untold_states): the rows are as the last change
        left them, until this one changes them."""
        keep_untold_states([self])
        self.mark_locked()
        self.track_changes()
        self._claims = claims
        for claim in claims or ():
            claim.mark_locked()

    def claims(self) -> list:
        """Its claims (against its awards and against itself), loaded once while the row is
        locked: the rules of time and the claims' own changes read and change the same
        instances. A tender being registered has none."""
        if self._state.adding:
            return []
        if getattr(self, "_claims", None) is None:
            self._claims = claims_with_awards(self)
            if self.holds_lock:
                for claim in self._claims:
                    claim.mark_locked()
        return self._claims

    def adopt(self, part) -> None:
        """`part`, reloaded to be changed, replaces its stale twin among the claims (read now if
        they were not: once its change is gathered to be written later, the database would
        show them as they were)."""
        if isinstance(part, self.complaints.model):
            self._claims = [part if claim.pk == part.pk else claim for claim in self.claims()]

    def claim_filed(self, claim) -> None:
        if getattr(self, "_claims", None) is not None:
            self._claims.append(claim)

    def stamp_change(self, now) -> None:
        """Save a change: dateModified moves forward (strictly), next_check is recomputed."""
        self.date_modified = max(now, self.date_modified + timedelta(microseconds=1))
        self.next_check = self.next_check_due()
        self.public_text = ""
        self.untold = True
        self.save()

    # --- the frame's questions ------------------------------------------------------------

    def role_of(self, by: Actor) -> Role | None:
        if by.role is Role.AUCTION:
            return Role.AUCTION
        return Role.TENDER_OWNER if by.acts_as(Role.TENDER_OWNER, self) else None

    def status_refusal(self, action: str) -> NotAllowed:
        if action == "cancel":
            return in_tender_status("add cancellation", self)
        for noun in ("document", "lot", "question"):
            if action.endswith(f"_{noun}"):
                verb = action.removesuffix(f"_{noun}").removeprefix("auction_")
                return in_tender_status(f"{verb} {noun}", self)
        return in_own_status("update tender", self)

    def check_rules(self, action: str, by: Actor, now) -> None:
        if by.role is Role.SYSTEM:
            return
        if action == "publish" and self.is_stale_draft:
            raise StaleDraft()
        if action == "publish":
            self.procedure.check_periods(by, now, self.enquiry_end, self.tender_end)
        if action == "rewrite_draft" and len(self.open_lots()) != len(self.lots):
            # (its lots keep their ids by place: a cancelled one would pass to another)
            raise NotAllowed(
                "Can't rewrite a draft with a cancelled lot", code="draft_lot_cancelled"
            )
        if action == "amend" and len(self.open_lots()) != len(self.lots):
            raise NotAllowed(
                "Can't amend a tender with a cancelled lot in one form", code="amend_lot_cancelled"
            )
        private = action == "register_draft" or self.status == TenderStatus.DRAFT
        by.check_standing(in_public=action == "publish" or not private)

    def lock_for_change(self):
        return self.lock_and_catch_up()

    def save_change(self, fields: list[str]) -> None:
        """The tender's row is saved once per change, by stamp_change (dateModified, next_check)."""

    def record_change(self, action: str, by: Actor, now, before: str, fields: list[str]):
        if self.status in TenderStatus.terminal():
            # Claims nobody answered before the tender ended are ignored.
            for complaint in self.claims():
                if complaint.awaits_answer:
                    complaint.ignore(now)
        self.record_event(self, action, by, now, from_status=before, to_status=self.status)

    def record_event(
        self, subject, action: str, by: Actor, at, *, from_status="", to_status="", **payload
    ):
        """The audit event of a change to this tender or a part of it (`subject`)."""
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

    # --- the owner's changes --------------------------------------------------------------

    def publish(self, *, by: Actor) -> None:
        """A draft becomes public: questions are taken from now on."""
        with atomic_change():
            now = self.begin("publish", by)
            self._publish(by, now)

    @property
    def is_stale_draft(self) -> bool:
        """A draft whose questions were to end already: published, it would skip them (or its
        bids too) and end at once, so it can no longer be published."""
        return self.status == TenderStatus.DRAFT and self.enquiry_end <= timezone.now()

    def patch(self, *, by: Actor, data: dict) -> bool:
        """PATCH /tenders/{id}: merge `data` into the wire form (2.3 rules); True if it changed."""
        with atomic_change():
            now = self.lock_and_catch_up()
            if self.status == TenderStatus.DRAFT and data.get("status") == TenderStatus.ENQUIRIES:
                self.guard("publish", by, now)
                self._publish(by, now)
                return True
            self.guard("edit", by, now)
            rogue = {key: "Rogue field" for key in data if key not in TENDER_FIELDS}
            if rogue:
                raise InvalidData(rogue)
            allowed = EDITABLE_FIELDS.get(self.status, frozenset())
            current = self.wire()
            merged = merge_patch(current, {k: v for k, v in data.items() if k in allowed})
            keeping_entity_kind(merged, current)
            for name in ("enquiryPeriod", "tenderPeriod"):
                period = merged.get(name)
                if isinstance(period, dict) and "startDate" not in period:
                    raise InvalidData({name: {"startDate": ["This field cannot be deleted"]}})
            document = validate(TenderSchema, merged)
            if "items" in data:
                check_items_asked_about(self, document)
            if not self.store_rewritten(document, now):
                return False
            self.record_event(self, "edit", by, now, fields=sorted(set(data) & allowed))
            return True

    def store_rewritten(self, document: dict, now) -> bool:
        """Store a validated document in place of the current one; True if it changed
        anything (then the tender is stamped, and its search rewritten if that changed)."""
        before, searched = self.stored_state(), search_columns(self.wire())
        self.store_document(document, now=now)
        if self.stored_state() == before:
            return False
        self.stamp_change(now)
        if self.found_by != {name: searched[name] for name in self.found_by}:
            TenderSearch.write(self, new=False)
        return True

    def _publish(self, by: Actor, now) -> None:
        self.apply("publish", by, now, published=now)
        self.stamp_change(now)

    def add_cancellation(self, *, by: Actor, data: dict, documents=()):
        """POST /tenders/{id}/cancellations: a pending cancellation, or with status "active" the
        tender (or the lot it names) is cancelled at once. `documents` (its protocol:
        document_fields' keywords) are attached before it takes effect."""
        fields = validate(CancellationSchema, data)
        with atomic_change():
            now = self.lock_and_catch_up()
            self.guard("cancel", by, now)
            if "relatedLot" in fields:
                if lot_of(self.data, fields["relatedLot"]) is None:
                    raise InvalidData.field("relatedLot", "relatedLot should be one of lots")
                self.check_lot_active(fields["relatedLot"], "add cancellation")
            status = fields.pop("status", CancellationStatus.PENDING)
            check_room(
                self.cancellations.all(), by, name="cancellations", most=MAX_CANCELLATIONS,
                most_of_one=None,
            )  # fmt: skip
            cancellation = self.cancellations.model(
                id=new_id(),
                tender=self,
                number=self.cancellations.count() + 1,
                reason=fields.pop("reason"),
                data=fields,
            )
            cancellation.perform("create", by, now)
            if documents:
                cancellation.tender = self
                cancellation.check_document_change(by, "add")
                cancellation.attach_sent(by, now, documents)
            if status == CancellationStatus.ACTIVE:
                cancellation.activate(by, now)
            self.stamp_change(now)
        return cancellation

    def cancel(self, *, by: Actor, reason: str, documents=()) -> None:
        """Cancel the tender at once, for `reason` (an active cancellation, with `documents`)."""
        self.add_cancellation(
            by=by,
            data={"reason": reason, "status": CancellationStatus.ACTIVE},
            documents=documents,
        )

    def contract_signed(self, award, at) -> None:
        """A contract is signed: the tender is complete; with lots, the award's lot is, and
        the tender once no lot is active."""
        if award.lot_id:
            self.lot_machine(award.lot_id).end("complete", Actor.system(), at)
            self.end_when_no_lot_is_active(at, Actor.system())
        else:
            self.perform("complete", Actor.system(), at)
        self.stamp_change(at)

    def cancellation_activated(self, cancellation, by: Actor, at) -> None:
        """An active cancellation (the owner's act) cancels the tender, or the lot it names:
        the lot is cancelled, the tender ends once no lot is active, and while it decides, it
        is awarded once no other lot's award is pending."""
        if not cancellation.related_lot:
            self.perform("cancel", by, at)
            return
        self.lot_machine(cancellation.related_lot).end("cancel", by, at)
        self.end_when_no_lot_is_active(at, by)
        if self.status in TenderStatus.deciding():
            self.award_next_bid(at=at, by=by)
        self.start_awarding_if_auctions_over(at)
