"""Finding claims, who may file one, and filing it."""

from typing import TYPE_CHECKING

from django.db import models
from django.utils import timezone

from core import limits
from core.actors import Actor, Role, Viewer
from core.errors import (
    InvalidData,
    NotAllowed,
    NotFound,
    PermissionDenied,
    in_tender_status,
    worth_offering,
)
from core.ids import is_id
from core.transactions import atomic_change
from tenders.models import AwardStatus, BidStatus, Counter, Tender, TenderStatus, new_id
from tenders.models.lots import lot_of
from tenders.models.room import check_room
from tenders.schema import MAX_CLAIMS, MAX_CLAIMS_OF_ONE

from .kinds import AGAINST_TENDER
from .table import OPEN, ResolutionType, S

if TYPE_CHECKING:
    from .complaint import Complaint


class ComplaintQuerySet(models.QuerySet):
    def for_change(self, tender_id: str, award_id: str | None, pk: str, *, viewer: Viewer):
        """The claim to change (against the award `award_id`, or with None against the tender
        itself), read (with every claim of the tender, each with its award: one query) once its
        tender is locked as by Tender.objects.for_change. 404 tender_id, award_id or
        complaint_id; a draft is found by its author alone."""
        tender = Tender.objects.for_change(tender_id, viewer=viewer, document=False)
        found = next((claim for claim in tender.claims() if claim.pk == pk), None)
        if found is None or found.award_id != award_id:
            if award_id is not None:
                Tender.objects.award_for_change(tender_id, award_id, viewer=viewer)
            raise NotFound("complaint_id")
        if not found.shown_to(viewer):
            raise NotFound("complaint_id")
        if found.award is not None:
            found.award.tender = tender
        return found

    def stamp(self, pk: str):
        """The claim's name and status with its tender's stamp (dateModified, next_check),
        which every change of the claim moves: one small query, none for a malformed id."""
        if not is_id(pk):
            return None
        fields = ("id", "complaint_id", "title", "status", "date_submitted", "broker_id",
                  "organization_id")  # fmt: skip
        tender_fields = ("tender__id", "tender__status", "tender__date_modified")
        found = self.select_related("tender").only(*fields, *tender_fields, "tender__next_check")
        return found.filter(pk=pk).first()

    def filed_already(self, *, tender, award, organization, title: str, description: str,
                      related_lot: str = ""):  # fmt: skip
        """`organization`'s open claim (a draft too) that says the same about the same decision
        (`award`; None: the tender's conditions, or its lot's): what a form sent a second
        time (Back, then send) filed the first time. None if there is none."""
        if organization is None:
            return None
        same = self.filter(
            tender=tender, award=award, organization=organization, title=title,
            description=description,
        )  # fmt: skip
        if award is None:
            same = same.filter(related_lot=related_lot)
        return same.filter(status__in=OPEN).order_by("number").first()

    def answered(self):
        return self.filter(status=S.ANSWERED)

    def unanswered(self):
        return self.filter(status=S.CLAIM)

    def to_answer_by(self, organization):
        """The claims against `organization`'s tenders waiting for its answer, each with its
        tender and award."""
        owned = self.filter(tender__organization=organization)
        return owned.unanswered().select_related("tender", "award")

    def granted_against_decisions_of(self, organization):
        """The claims against `organization`'s decisions still standing (the winner chosen)
        that it granted and whose claimants accepted the answer: the buyer promised to take the
        decision back (each with its tender and award)."""
        return self.filter(
            tender__organization=organization,
            tender__status__in=TenderStatus.deciding(),
            award__status=AwardStatus.ACTIVE,
            status=S.RESOLVED,
            resolution_type=ResolutionType.RESOLVED,
            satisfied=True,
        ).select_related("tender", "award")

    def to_rate_by(self, organization):
        """`organization`'s claims answered and waiting for it to accept or reject the
        answer, each with its tender and award."""
        mine = self.filter(organization=organization)
        return mine.answered().select_related("tender", "award")

    # --- who may file ---------------------------------------------------------------------

    def check_filer(self, by: Actor, tender) -> None:
        """Claims are filed by the owner of a bid that took part in this tender."""
        bid = by.subject if by.role is Role.BID_OWNER else None
        if bid is None or bid.tender_id != tender.pk or bid.status != BidStatus.ACTIVE:
            raise PermissionDenied()

    def check_filing(self, award, by: Actor, now, *, submit: bool = False) -> None:
        """May `by` file a claim against `award` now (as a draft, or `submit`ted at once)?
        Raises the 2.3 refusal if not."""
        tender = award.tender
        self.check_filer(by, tender)
        if tender.status not in TenderStatus.deciding():
            raise in_tender_status("add complaint", tender)
        tender.check_lot_active(award.lot_id, "add complaint")
        if award.status == AwardStatus.PENDING:
            raise NotAllowed(
                "Claim submission is not allowed on pending award", code="award_pending"
            )
        if not award.in_complaint_period(now):
            raise NotAllowed(
                "Can add complaint only in complaintPeriod",
                code="claims_period",
                params={"start": award.complaint_period_start, "end": award.complaint_period_end},
            )
        by.check_standing(in_public=submit)

    def can_file(self, award, by: Actor, now=None) -> bool:
        return worth_offering(self.check_filing, award, by, now or timezone.now())

    def check_tender_filer(self, by: Actor, tender) -> None:
        """Claims against the conditions are filed by anyone known (not only bidders: bids may
        not be made yet), except the buyer itself."""
        if not by.is_authenticated or by.role is Role.SYSTEM:
            raise PermissionDenied()
        if by.organization is not None and tender.is_owned_by_organization(by.organization):
            raise PermissionDenied()

    def check_filing_against_tender(
        self, tender, by: Actor, now, *, related_lot: str = "", submit: bool = False
    ) -> None:
        """May `by` file a claim against `tender`'s conditions (or those of its lot
        `related_lot`) now? Raises the 2.3 refusal if not."""
        self.check_tender_filer(by, tender)
        if related_lot and lot_of(tender.data, related_lot) is None:
            raise InvalidData.field("relatedLot", "relatedLot should be one of lots")
        if tender.status not in AGAINST_TENDER.filed_in:
            raise in_tender_status("add complaint", tender)
        if related_lot:
            tender.check_lot_active(related_lot, "add complaint")
        by.check_standing(in_public=submit)

    def can_file_against_tender(self, tender, by: Actor, now=None) -> bool:
        return worth_offering(self.check_filing_against_tender, tender, by, now or timezone.now())

    # --- filing ---------------------------------------------------------------------------

    def file(self, *, award, by: Actor, title: str, author: dict, description: str = "",
             submit: bool = False) -> tuple["Complaint", str]:  # fmt: skip
        """A bidder's claim against `award`: a draft, or submitted at once. Returns the claim
        and its access token."""
        with atomic_change():
            now = award.lock_for_change()
            self.check_filing(award, by, now, submit=submit)
            return self._filed(
                award.tender, by, now, award=award, bid=by.subject, related_lot=award.lot_id,
                title=title, author=author, description=description, submit=submit,
            )  # fmt: skip

    def file_against_tender(self, *, tender, by: Actor, title: str, author: dict,
                            description: str = "", related_lot: str = "",
                            submit: bool = False) -> tuple["Complaint", str]:  # fmt: skip
        """A claim against `tender`'s conditions (or its lot's): a draft, or submitted at once.
        Returns the claim and its access token."""
        limits.count_public_post(by)
        with atomic_change():
            now = tender.lock_for_change()
            self.check_filing_against_tender(
                tender, by, now, related_lot=related_lot, submit=submit
            )
            return self._filed(
                tender, by, now, award=None, bid=None, related_lot=related_lot,
                title=title, author=author, description=description, submit=submit,
            )  # fmt: skip

    def _filed(self, tender, by: Actor, now, *, award, bid, related_lot, title, author,
               description, submit) -> tuple["Complaint", str]:  # fmt: skip
        check_room(
            self.filter(tender=tender), by, name="complaints", most=MAX_CLAIMS,
            most_of_one=MAX_CLAIMS_OF_ONE,
        )  # fmt: skip
        number = Counter.next(f"complaints:{tender.pk}")
        complaint = self.model(
            id=new_id(),
            tender=tender,
            award=award,
            related_lot=related_lot,
            bid=bid,
            broker=by.broker,
            organization=by.organization,
            number=number,
            complaint_id=f"{tender.tender_id}.{number}",
            title=title,
            description=description,
            author=author,
        )
        token = complaint.issue_token()
        tender.claim_filed(complaint)
        claimant = by.owning(complaint, Role.COMPLAINT_OWNER)
        action = "file" if submit else "file_draft"
        complaint.guard(action, claimant, now)
        # (saved, recorded, its tender stamped and the people concerned told, as every change)
        complaint.apply(action, claimant, now, **({"date_submitted": now} if submit else {}))
        return complaint, token
