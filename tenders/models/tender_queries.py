"""Finding tenders: the portal's search, reads with every due change applied, registering."""

import logging
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING

from django.apps import apps
from django.db import models
from django.db.models import Case, Prefetch, Q, Subquery, Value, When, prefetch_related_objects
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.actors import Actor, Role, Viewer
from core.errors import NotFound, PermissionDenied
from core.ids import is_id
from core.reads import Read
from core.schema import KYIV, validate
from core.transactions import all_or_nothing, atomic_change
from tenders.procedures import WHEN_UNNAMED, procedure_named
from tenders.schema import TenderSchema
from tenders.search import cpv_digits, understand

from . import search_words
from .base import Counter, new_id
from .legal_periods import periods_of
from .statuses import TenderStatus
from .tender_errors import NotProcuringEntity
from .tender_search import TenderSearch
from .untold import UntoldChanges, keep_untold_states

logger = logging.getLogger(__name__)

# Before any tender: where newest_matching's range starts when the registry holds fewer.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
# How long a tender the chronograph failed to bring up to date waits before it is tried again.
RETRY_AFTER = timedelta(minutes=5)

if TYPE_CHECKING:
    from .tender import Tender


def _with_codes(cpv: str, *, through: str = "search__") -> Q:
    """Tenders with an item classified by a code of the branch `cpv` (a code or digits) starts;
    the codes are written padded (" 30197630-1 "): a branch starts after a space."""
    return Q(**{f"{through}cpv_codes__contains": f" {cpv_digits(cpv)}"})


# The reads asked most, written in SQL once (core.reads).
_KEPT = Read(
    "tenders.Tender",
    fields=["id", "status", "published", "broker", "organization", "token_digest", "next_check",
            "public_text", "others_see_more", "mode", "untold"],
    where=["id"],
    limit=1,
)  # fmt: skip


class TenderQuerySet(UntoldChanges, models.QuerySet):
    # Columns no list shows: what search and the API's reads keep for themselves.
    UNLISTED = ("public_text",)
    # What hangs on a tender, as its representation shows it.
    RELATED = (
        "bids",
        "bids__documents",
        "awards",
        "awards__documents",
        "awards__complaints",
        "awards__complaints__documents",
        "contracts",
        "contracts__documents",
        "cancellations",
        "cancellations__documents",
        "documents",
        "questions",
        # The claims against the tender itself (with the awards' again: a claim's relation
        # holds both kinds, and the claims app shows those of the tender).
        "complaints",
        "complaints__documents",
        "auctions",
    )

    def with_related(self):
        """The whole tender, to render or decide on (not the text a read kept of it)."""
        return self.select_related("broker").defer("public_text").prefetch_related(*self.RELATED)

    def published(self):
        """The tenders ever made public (a draft cancelled before it was published never
        was: it stays its organization's, as a draft is)."""
        return self.filter(published__isnull=False)

    def public(self):
        """What the portal lists: published, not test tenders (without the columns kept for
        the API's reads and for finding)."""
        listed = self.published().exclude(mode="test")
        return listed.defer(*self.UNLISTED)

    def listed(self):
        """What a list of tenders shows (the portal's search): the columns, and the buyer's name
        and the expected value taken out of the document by the database, not the document."""
        return self.defer("data").annotate(
            buyer_name=KT("data__procuringEntity__name"),
            value_amount=KT("data__value__amount"),
            value_currency=KT("data__value__currency"),
        )

    def taking_bids(self, now):
        """The tenders that take bids at `now`, by their dates, as Tender.check_tendering
        decides for one (the end's instant takes bids). A tender whose tendering began since
        it was last brought up to date still says enquiries: its dates say it takes bids."""
        return self.filter(
            status__in=[TenderStatus.ENQUIRIES, TenderStatus.TENDERING],
            tender_start__lte=now,
            tender_end__gte=now,
        )

    def drafts_of(self, organization, now):
        """`organization`'s tenders not yet published that still may be (Tender.is_stale_draft:
        once its questions' period is over, a draft can no longer be published)."""
        return self.filter(
            organization=organization, status=TenderStatus.DRAFT, enquiry_end__gt=now
        )

    def matching(self, *, q="", tender_id="", cpv="", buyer="", region="", value_min=None,
                 value_max=None, status="", procedure="", open_for_bids=False,
                 published_from=None, published_to=None, sort="", resembling=False,
                 now=None):  # fmt: skip
        """The portal's search; every criterion given must hold. `q` is a search box's text
        (tenders.search.understand): a tender ID, codes, a procuring entity's code, words. In
        the order `sort` asks: "relevance" (the words found best first; the newest without
        words), "deadline" (the soonest end of bids first), "changed" (the newest change
        first), the newest published first otherwise. `resembling`: words are also found by
        similarity (search_words.matching)."""
        asked = understand(q)
        found = self
        if asked.words:
            found = found.filter(search_words.matching(asked.words, resembling=resembling))
        if tender_id or asked.tender_id:
            # tenderIDs are upper case (UA-…): matched exactly, the unique index finds them.
            found = found.filter(tender_id=(tender_id or asked.tender_id).strip().upper())
        if cpv:
            found = found.filter(_with_codes(cpv))
        if asked.cpv and asked.identifier:  # 8 digits: either (each found by its own index)
            searched = apps.get_model("tenders", "TenderSearch").objects
            coded = searched.filter(_with_codes(asked.cpv, through="")).values("pk")
            bought = self.model.objects.filter(buyer_identifier=asked.identifier).values("pk")
            found = found.filter(pk__in=coded.union(bought))
        elif asked.cpv:
            found = found.filter(_with_codes(asked.cpv))
        elif asked.identifier:
            found = found.filter(buyer_identifier=asked.identifier)
        if buyer:
            found = found.filter(buyer_identifier=buyer.strip())
        if region:
            found = found.filter(search__region=region)
        if value_min is not None:
            found = found.filter(search__value_amount__gte=value_min)
        if value_max is not None:
            found = found.filter(search__value_amount__lte=value_max)
        if status:
            found = found.filter(status=status)
        if procedure:
            found = found.filter(search__procedure=procedure)
        if open_for_bids:
            found = found.taking_bids(now or timezone.now())
        if published_from:
            found = found.filter(date__date__gte=published_from)
        if published_to:
            found = found.filter(date__date__lte=published_to)
        if sort == "deadline":  # the bids still taken first, soonest end first
            now = now or timezone.now()
            closed = Case(When(tender_end__gt=now, then=Value(0)), default=Value(1))
            return found.order_by(closed, "tender_end", "id")
        if sort == "relevance" and asked.words and search_words.ranks():
            # Ranked among the newest matches only: ranking reads every text it ranks.
            newest = found.order_by(search_words.unindexed("published").desc(), "-id")
            candidates = newest.values("pk")[: search_words.RANKED]
            score = search_words.relevance(asked.words, resembling=resembling)
            return self.filter(pk__in=candidates).order_by(score.desc(), "-published", "-id")
        stamp = "date_modified" if sort == "changed" else "published"
        if asked.words and search_words.ranks():
            # Through the words' index, never by walking the registry's newest (which a word
            # common once but not lately would have walked to its end): the newest matches of
            # a common word are looked for among the newest tenders first (newest_matching).
            return found.order_by(search_words.unindexed(stamp).desc(), "-id")
        return found.order_by(f"-{stamp}", "-id")

    def newest_matching(self, *, among: int, **asked):
        """`matching(**asked)` among the newest `among` tenders of this queryset only, in the
        order the search lists them, when that may find its first page without reading every
        tender with its words (words, in the newest first or the latest change first); None
        otherwise. What it finds first is what the search finds first (core.paging.ListPage's
        `first_try`): a page of a common word costs a walk of at most `among` tenders."""
        sort = asked.get("sort") or "newest"
        if sort not in ("newest", "changed") or not search_words.ranks():
            return None
        if not understand(asked.get("q", "")).words:
            return None
        stamp = "date_modified" if sort == "changed" else "published"
        # The newest `among` as a range of the stamp's index (ties at its end included), so
        # that the walk ends where they do; all of them when there are fewer.
        last = self.order_by(f"-{stamp}").values(stamp)[among - 1 : among]
        since = Coalesce(Subquery(last), Value(EARLIEST))
        within = self.filter(**{f"{stamp}__gte": since}).matching(**asked)
        # (in the stamp's own order: the walk stops at the page's last match)
        return within.order_by(f"-{stamp}", "-id")

    def may_resemble(self, words: list[str]) -> bool:
        """Whether `words` found nowhere may be looked for among words like them."""
        return search_words.may_resemble(words)

    def find(self, pk: str, *, viewer: Viewer | None) -> "Tender":
        """The tender, for a write (which applies due changes itself), or 404 tender_id (also
        for a draft `viewer` may not see; None: the system, which sees everything)."""
        tender = self.select_related("broker").filter(pk=pk).first() if is_id(pk) else None
        if tender is None or not tender.shown_to(viewer):
            raise NotFound("tender_id")
        return tender

    def for_change(self, pk: str, *, viewer: Viewer | None, document: bool = True) -> "Tender":
        """The tender to change, its row locked until the running transaction ends (an API
        write, answered from what it changed in the same transaction), with every due change
        applied; 404 as `find`. The change's own lock then reloads nothing. What no change
        reads is left out (the kept representation, which a change empties), and the
        document too unless `document` (a claim's change does not read it)."""
        tender = _LOCKED[document].first(pk) if is_id(pk) else None
        if tender is None or not tender.shown_to(viewer):
            raise NotFound("tender_id")
        tender.catch_up_as_locked()
        return tender

    def award_for_change(self, pk: str, award_id: str, *, viewer: Viewer | None):
        """The award to change (or to file a claim against), read once its tender is locked
        as by `for_change`; 404 tender_id or award_id. (Read after the lock, not joined to it:
        a row joined to a locked one is read as it was when the query began, which a write
        that held the lock meanwhile may have changed.)"""
        tender = self.for_change(pk, viewer=viewer)
        award = tender.awards.filter(pk=award_id).first() if is_id(award_id) else None
        if award is None:
            raise NotFound("award_id")
        award.tender = tender
        award.mark_locked()
        return award

    def check_registering(self, by: Actor) -> None:
        """A broker registers tenders; in the portal, a procuring entity's user."""
        if by.role is not Role.AUTHENTICATED:
            raise PermissionDenied()
        if by.user is not None and not getattr(by.organization, "publishes_tenders", False):
            raise NotProcuringEntity()
        by.check_standing(in_public=False)

    def register(self, *, by: Actor, data: dict) -> tuple["Tender", str]:
        """Create a tender (as a draft when data.status is "draft"); returns it and its token."""
        self.check_registering(by)
        procedure = procedure_named(data.get("procurementMethodType", WHEN_UNNAMED))
        now = timezone.now()
        document = validate(TenderSchema, data, now=now)
        procedure.check_publishing_kind(document)
        procedure.check_periods(by, now, *periods_of(document))
        action = "register_draft" if data.get("status") == "draft" else "register"
        with atomic_change():
            tender = self.model(
                id=new_id(),
                procurement_method_type=procedure.method_type,
                broker=by.broker,
                organization=by.organization,
            )
            owner = by.owning(tender, Role.TENDER_OWNER)
            tender.guard(action, owner, now)
            day = now.astimezone(KYIV).date().isoformat()
            tender.tender_id = f"UA-{day}-{Counter.next(f'tenderID:{day}'):06d}"
            tender.store_document(document, now=now)
            token = tender.issue_token()
            # Stamped after the day's counter, which parallel creates wait for: dateModified
            # stays close to the commit, as the feed's watermark assumes.
            stamped = max(now, timezone.now())
            public = {"published": stamped} if action == "register" else {}
            tender.apply(action, owner, now, date_modified=stamped, **public)
            tender.next_check = tender.next_check_due()
            tender.untold = True
            tender.save(force_insert=True)
            TenderSearch.write(tender, new=True)
        # The document as the database gives it back (PostgreSQL orders a JSON object's keys
        # its own way, and every read shows them so); nothing hangs on a tender just
        # registered, so its parts are known without asking.
        tender.refresh_from_db(fields=["data"])
        parts = {name.partition("__")[0] for name in self.RELATED}
        prefetch_related_objects(
            [tender],
            *(Prefetch(name, queryset=getattr(tender, name).none()) for name in sorted(parts)),
        )
        return tender, token

    def catch_up_due(self, *, limit: int = 100) -> int:
        """The chronograph's pass: bring up to date up to `limit` tenders whose next change is
        due, in one transaction. Their rows are locked together, skipping those another
        process holds (a write, or another chronograph: several share the work); their claims
        and their awards are read in one query each; their audit events and their own rows are
        written together at the end. Should one of them fail, the batch is rolled back and its
        tenders are taken one by one, so that one that cannot be brought up to date holds up
        no other."""
        try:
            return self._catch_up_together(limit)
        except Exception:
            logger.exception("chronograph: a batch failed; its tenders are taken one by one")
            return self._catch_up_one_by_one(limit)

    def _catch_up_together(self, limit: int) -> int:
        with all_or_nothing():
            due = self.select_for_update(skip_locked=True).filter(next_check__lte=timezone.now())
            # The document and what is derived from it are not what time changes...
            due = due.defer("data", *self.UNLISTED)
            tenders = list(due.order_by("next_check")[:limit])
            # Except the lots, which time ends: read for the tenders that have them at once.
            lotted = {tender.pk: tender for tender in tenders if tender.has_lots}
            if lotted:
                for pk, data in self.filter(pk__in=lotted).values_list("pk", "data"):
                    lotted[pk].data = data
            # Time creates awards (through the relation, which forgets what was prefetched)
            # but changes none: the awards read with the batch stay current.
            prefetch_related_objects(
                tenders, *(self._read_by_time(name) for name in ("complaints", "awards"))
            )
            # The auctions, of the tenders whose time moves them (planned as tendering starts,
            # sealed as it closes, held): most due tenders are past them.
            prefetch_related_objects(
                [tender for tender in tenders if tender.status in TenderStatus.auction_time()],
                "auctions",
            )
            keep_untold_states(tenders)  # (together, before any of them changes again)
            changed = 0
            for tender in tenders:
                changed += tender.catch_up_as_locked(claims=list(tender.complaints.all()))
            return changed

    def _catch_up_one_by_one(self, limit: int) -> int:
        due = self.filter(next_check__lte=timezone.now()).order_by("next_check")
        changed = 0
        for pk in due.values_list("pk", flat=True)[:limit]:
            try:
                with all_or_nothing():
                    tender = self.select_for_update(skip_locked=True).filter(pk=pk).first()
                    if tender is not None and tender.is_due(timezone.now()):
                        changed += tender.catch_up_as_locked()
            except Exception:
                logger.exception("chronograph: tender %s could not be brought up to date", pk)
                # (next_check is shown: the kept representation goes with it)
                retry = timezone.now() + RETRY_AFTER
                self.filter(pk=pk).update(next_check=retry, public_text="")
        return changed

    def _read_by_time(self, relation: str) -> Prefetch:
        """The tenders' `relation` (claims or awards) as time reads them: without the texts and
        documents it never reads (the model's UNREAD_BY_TIME)."""
        model = self.model._meta.get_field(relation).related_model
        return Prefetch(relation, model.objects.defer(*model.UNREAD_BY_TIME))

    def kept_representation(self, pk: str) -> "Tender | None":
        """The row's kept representation and what decides whether it may be shown (one query,
        none for a malformed id)."""
        return _KEPT.first(pk) if is_id(pk) else None

    def registry_stamp(self):
        """The newest dateModified of any tender: every change of any tender moves it (read
        from the end of the feed's index)."""
        return self.aggregate(newest=models.Max("date_modified"))["newest"]

    def stamp(self, pk: str) -> "Tender | None":
        """What says whether a rendering of the tender is current (status, dateModified,
        next_check) and names it (title, tenderID): one small query, none for a malformed
        id."""
        if not is_id(pk):
            return None
        fields = ("id", "tender_id", "title", "status", "published", "date_modified", "next_check")
        return self.only(*fields).filter(pk=pk).first()

    def current(self, pk: str, *, viewer: Viewer | None) -> "Tender":
        """The tender with its bids, awards, contracts and cancellations, with every change
        that became due by now applied (so that what anyone reads is current); 404 tender_id
        for a draft `viewer` may not see (None: the system, which sees everything)."""
        tender = self.with_related().filter(pk=pk).first() if is_id(pk) else None
        if tender is None or not tender.shown_to(viewer):
            raise NotFound("tender_id")
        if tender.is_due(timezone.now()):
            tender.catch_up()
            tender = self.with_related().get(pk=pk)
        return tender


# A tender locked for a change: without what no change reads (the kept representation, which
# a change empties), nor its document when the change does not need it.
_LOCKED = {
    document: Read(
        "tenders.Tender",
        defer=[*TenderQuerySet.UNLISTED, *(() if document else ("data",))],
        where=["id"],
        limit=1,
        for_update=True,
    )
    for document in (True, False)
}


# A tender's claims (against it and against its awards), each with its award: two reads in SQL
# written once, rather than a queryset joined to the awards built on every change of a claim.
@cache
def _claims_and_awards(model) -> tuple[Read, Read]:
    return tuple(
        Read(model._meta.get_field(name).related_model._meta.label, where=["tender_id"])
        for name in ("complaints", "awards")
    )


def claims_with_awards(tender) -> list:
    read_claims, read_awards = _claims_and_awards(type(tender))
    claims = read_claims(tender.pk)
    awards = {award.pk: award for award in read_awards(tender.pk)} if claims else {}
    for claim in claims:
        claim.tender = tender
        claim.award = awards.get(claim.award_id)
        if claim.award is not None:
            claim.award.tender = tender
    return claims
