"""The tender page: everything about one tender, for anyone, with what the visitor may do."""

from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from complaints.models import Complaint
from portal.actors import Role, portal_actor
from portal.errors import NotFound
from portal.htmx import render_page_or_partial
from tenders.documents import latest_versions
from tenders.models import AwardStatus, BidStatus, Tender, TenderStatus

# The road a tender takes, and what moves it on.
STAGES = [
    (TenderStatus.ENQUIRIES, _("Questions to the procuring entity")),
    (TenderStatus.TENDERING, _("Bids are accepted")),
    (TenderStatus.QUALIFICATION, _("The procuring entity decides on the lowest bid")),
    (TenderStatus.AWARDED, _("Winner chosen: claims may be filed, then the contract signed")),
    (TenderStatus.COMPLETE, _("Contract signed")),
]


def current_tender(tender_id: str, user) -> Tender:
    """The tender with every due change applied; a draft only for its own organization."""
    try:
        tender = Tender.objects.current(tender_id)
    except NotFound:
        raise Http404 from None
    if tender.status == TenderStatus.DRAFT and not (
        user.is_authenticated and tender.is_owned_by_organization(user.organization)
    ):
        raise Http404
    return tender


def lifecycle(tender: Tender) -> list[dict]:
    """The stages with the one the tender is in marked; an ended-early tender shows where."""
    order = [status for status, _label in STAGES]
    position = order.index(tender.status) if tender.status in order else None
    stages = []
    for index, (status, label) in enumerate(STAGES):
        if position is None:
            state = "skipped"
        elif index < position:
            state = "done"
        elif index == position:
            state = "current"
        else:
            state = "upcoming"
        stages.append({"status": status, "name": status.label, "label": label, "state": state})
    return stages


def document_history(versions) -> list[dict]:
    """Each document's latest version with the versions it replaced, newest first."""
    versions = list(versions)
    return [
        {
            "latest": latest,
            "older": sorted(
                (v for v in versions if v.document_id == latest.document_id and v != latest),
                key=lambda v: -v.version,
            ),
        }
        for latest in latest_versions(versions)
    ]


def bid_actor(user, tender):
    """The user's organization as the owner of its active bid on `tender`, if it has one."""
    bids = [bid for bid in tender.bids.all() if bid.status == BidStatus.ACTIVE]
    return portal_actor(user, *((Role.BID_OWNER, bid) for bid in bids))


@require_GET
def tender_detail(request, tender_id):
    tender = current_tender(tender_id, request.user)
    now = timezone.now()
    bidder = bid_actor(request.user, tender)
    awards = []
    for award in tender.awards.all():
        award.tender = tender
        awards.append(
            {
                "award": award,
                "claims": [
                    claim
                    for claim in award.complaints.all()
                    if claim.shown_to(portal_actor(request.user, (Role.COMPLAINT_OWNER, claim)))
                ],
                "may_file": Complaint.may_file(award, bidder, now),
            }
        )
    context = {
        "tender": tender,
        "stages": lifecycle(tender),
        "ended_early": tender.status in (TenderStatus.UNSUCCESSFUL, TenderStatus.CANCELLED),
        "items": tender.data.get("items", []),
        "entity": tender.data.get("procuringEntity", {}),
        "value": tender.data.get("value", {}),
        "minimal_step": tender.data.get("minimalStep", {}),
        "documents": document_history(tender.documents.all()),
        "bids": (
            [b for b in tender.bids.all() if b.status == BidStatus.ACTIVE]
            if tender.bids_are_public
            else None
        ),
        "awards": awards,
        "AwardStatus": AwardStatus,
        "now": now,
    }
    return render_page_or_partial(request, "tenders/tender_detail.html", context)
