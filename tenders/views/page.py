"""The tender page: everything about one tender, for anyone, with a form for each thing the
visitor may do; and the frame every change made from it goes through."""

from django.http import Http404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from core.actors import Role, Viewer, portal_actor
from core.errors import NotFound
from core.forms import DocumentsForm, change_from_form, with_ids
from core.fragments import fragment_key, kept_fragment
from core.htmx import changed, render_page_or_partial
from core.refusals import in_words
from core.replicas import may_read_a_replica
from core.reviews import render_review
from docservice.models import StoredFile
from tenders.documents import latest_versions
from tenders.forms.owner import NewVersionForm
from tenders.forms.questions import QuestionAnswerForm, QuestionForm
from tenders.models import LotStatus, Question, Tender, TenderStatus
from tenders.models.lots import lot_of

from .page_bids import my_bid_entries, new_bid_form, public_bid_entries

# What each stage of the tender's lifecycle (Tender.LIFECYCLE) means to a reader.
STAGE_LABELS = {
    TenderStatus.ENQUIRIES: _("Questions to the procuring entity"),
    TenderStatus.TENDERING: _("Bids are accepted"),
    TenderStatus.AUCTION: _("Electronic auction: the bidders lower their prices in turn"),
    TenderStatus.QUALIFICATION: _("The procuring entity decides on the lowest bid"),
    TenderStatus.AWARDED: _("Winner chosen: claims may be filed, then the contract signed"),
    TenderStatus.COMPLETE: _("Contract signed"),
}


def current_tender(tender_id: str, user) -> Tender:
    """The tender with every due change applied; a draft only for its own organization."""
    try:
        return Tender.objects.current(tender_id, viewer=Viewer.of_user(user))
    except NotFound:
        raise Http404 from None


def lifecycle(tender: Tender) -> list[dict]:
    """The stages with where the tender stands to each (Tender.stages), in the reader's words."""
    return [
        {"status": status, "name": status.label, "label": STAGE_LABELS[status], "state": state}
        for status, state in tender.stages()
    ]


def document_history(versions) -> list[dict]:
    """Each document's latest version with the versions it replaced, newest first."""
    versions = list(versions)
    sizes = StoredFile.sizes(version.key for version in versions)
    return [
        {
            "latest": latest,
            "size": sizes.get(latest.key),
            "older": sorted(
                (v for v in versions if v.document_id == latest.document_id and v != latest),
                key=lambda v: -v.version,
            ),
        }
        for latest in latest_versions(versions)
    ]


def bid_actor(user, tender):
    """The user's organization as the owner of its active bid on `tender`, if it has one."""
    bids = tender.active_bids()
    return portal_actor(user, *((Role.BID_OWNER, bid) for bid in bids))


def _tender_page(request, tender, *, refused=None, status=200):
    """The tender page with a form for each thing the visitor may do; `refused` holds the
    forms that were just refused, by where they stand on the page, to show in their place."""
    return render_page_or_partial(
        request,
        "tenders/tender_detail.html",
        _tender_context(request, tender, refused or {}),
        partials={"awards", "bid", "documents", "questions"},
        status=status,
    )


def _tender_context(request, tender, refused=None) -> dict:
    refused = refused or {}
    now = timezone.now()
    lots = {lot["id"]: lot for lot in tender.lots}
    owner = portal_actor(request.user, (Role.TENDER_OWNER, tender))
    return {
        "tender": tender,
        "bid_form": new_bid_form(request.user, tender, owner, now, refused),
        "actions": tender.available_actions(owner, now),
        # The page tells the owner why its draft can't be published.
        "stale_draft": owner.subject is not None and tender.is_stale_draft,
        "documents_form": refused.get("documents") or DocumentsForm(),
        "my_bids": my_bid_entries(request.user, tender, owner, now, refused, lots),
        # Papers refused for a bid that is not the visitor's: told where its bid would be.
        "bid_documents_refused": [
            form
            for at, form in refused.items()
            if at.startswith("bid-documents:")
            and not any(
                bid.pk == at.partition(":")[2] and bid.is_owned_by_organization(owner.organization)
                for bid in tender.active_bids()
            )
        ],
        "lots": _lot_entries(tender),
        "auctions": [
            {
                "lot": lots.get(auction.lot_id),
                "start": auction.start,
                "ended": auction.ended,
                "link": auction.watched_at,
            }
            for auction in sorted(tender.auctions.all(), key=lambda auction: auction.start)
        ],
        "stages": lifecycle(tender),
        "ended_early": tender.ended_early,
        "items": tender.data.get("items", []),
        "entity": tender.data.get("procuringEntity", {}),
        "value": tender.data.get("value", {}),
        # (a lot tender's is only the smallest of its lots' steps: each lot shows its own)
        "minimal_step": {} if tender.has_lots else tender.data.get("minimalStep", {}),
        "documents": [
            {
                **entry,
                "lot": lots.get(entry["latest"].metadata.get("relatedItem"))
                if entry["latest"].metadata.get("documentOf") == "lot"
                else None,
                "version_form": refused.get(f"version:{entry['latest'].document_id}")
                or NewVersionForm(document_id=entry["latest"].document_id),
            }
            for entry in document_history(tender.documents.all())
        ],
        "cancellations": _cancellation_entries(tender, lots),
        "cancellation": tender.cancellation_in_effect,
        "bids": (public_bid_entries(tender, lots) if tender.bids_are_public else None),
        "awards": _award_entries(request.user, tender, owner, now, lots),
        "is_owner": owner.subject is not None,
        "questions": _question_entries(request.user, tender, owner, now, refused, lots),
        "question_form": _question_form(request.user, tender, now, refused),
        **_tender_claims(request.user, tender, now),
    }


def _shown_claims(claims, tender, viewer) -> list:
    """The claims `viewer` may see, each knowing its tender (which says whether its filer is
    shown yet)."""
    shown = [claim for claim in claims if claim.shown_to(viewer)]
    for claim in shown:
        claim.tender = tender
    return shown


def _question_entries(user, tender, owner, now, refused, lots: dict) -> list[dict]:
    """Each question with what it is about, whether it is the visitor's organization's, and
    (for the buyer, while it answers) a form to answer it."""
    organization = user.organization if user.is_authenticated else None
    items = {item["id"]: item for item in tender.data.get("items", [])}
    answers = owner.subject is not None and tender.can("update_question", owner, now)
    entries = []
    for question in tender.questions.all():
        if question.question_of == "lot":
            about = lots.get(question.related_item, {}).get("title", "")
        elif question.question_of == "item":
            about = items.get(question.related_item, {}).get("description", "")
        else:
            about = ""
        refusal = refused.get(f"answer:{question.pk}")
        entries.append(
            {
                "question": question,
                "about": about,
                "mine": question.is_owned_by_organization(organization),
                "asker_shown": question.asker_shown(tender.status),
                "answer_form": with_ids(refusal or QuestionAnswerForm(), f"answer-{question.pk}")
                if refusal or (answers and not question.is_answered)
                else None,
            }
        )
    return entries


def _question_form(user, tender, now, refused):
    """The form to ask a question, while the model would take one from the visitor."""
    if "question" in refused:
        return refused["question"]
    if not user.is_authenticated or user.organization is None:
        return None
    if not Question.objects.can_ask(tender, portal_actor(user), now):
        return None
    return QuestionForm(tender=tender)


def _tender_claims(user, tender, now) -> dict:
    """The claims against the tender's conditions the visitor may see, and whether it may file
    one (the claims app decides, through the tender's relation)."""
    viewer, actor = Viewer.of_user(user), portal_actor(user)
    against_tender = [claim for claim in tender.complaints.all() if claim.award_id is None]
    claims = _shown_claims(against_tender, tender, viewer)
    may_file = (
        user.is_authenticated
        and user.organization is not None
        and tender.complaints.model.objects.can_file_against_tender(tender, actor, now)
    )
    return {"tender_claims": claims, "can_file_tender_claim": may_file}


def _lot_entries(tender) -> list[dict]:
    """Each lot with its status in words and its items."""
    items = tender.data.get("items", [])
    return [
        {
            "lot": lot,
            "status": LotStatus(lot["status"]).label,
            "items": [item for item in items if item.get("relatedLot") == lot["id"]],
        }
        for lot in tender.lots
    ]


def _cancellation_entries(tender, lots: dict) -> list[dict]:
    return [
        {
            "cancellation": cancellation,
            "lot": lots.get(cancellation.related_lot or ""),
            "documents": latest_versions(cancellation.documents.all()),
        }
        for cancellation in tender.cancellations.all()
    ]


def _award_entries(user, tender, owner, now, lots: dict) -> list[dict]:
    """Each award with its decisions, its contract and its claims, as `user` may see them."""
    viewer, bidder = Viewer.of_user(user), bid_actor(user, tender)
    contracts = {contract.award_id: contract for contract in tender.contracts.all()}
    entries = []
    for award in tender.awards.all():
        award.tender = tender
        decisions = award.decisions(owner, now) if owner.subject else []
        contract = contracts.get(award.pk)
        if contract is not None:
            contract.tender, contract.award = tender, award
        entries.append(
            {
                "award": award,
                "lot": lots.get(award.lot_id),
                "decisions": decisions,
                "contract": contract,
                # The owner's contract to sign: the form, or why not yet.
                "awaits_signing": contract is not None and contract.awaits_signing_by(owner),
                "signing_refusal": (
                    in_words(refusal)
                    if contract is not None and (refusal := contract.refused("sign", owner, now))
                    else None
                ),
                "claims": _shown_claims(award.complaints.all(), tender, viewer),
                "can_file": award.can_be_claimed_by(bidder, now),
                # The decision's papers (its protocol): what a claim against it argues from.
                "documents": latest_versions(award.documents.all()),
                "contract_documents": (
                    latest_versions(contract.documents.all()) if contract is not None else []
                ),
            }
        )
    return entries


@require_GET
@may_read_a_replica
def tender_detail(request, tender_id):
    if request.user.is_authenticated or request.htmx:
        return _tender_page(request, current_tender(tender_id, request.user))
    return _public_tender_page(request, tender_id)


def _public_tender_page(request, tender_id):
    """The page a visitor who is not signed in reads: its body is the same for every such
    visitor, so it is kept rendered until the tender changes (core/fragments.py). A
    page read again is one small query; a tender with a change due is brought up to date
    first."""
    stamp = Tender.objects.stamp(tender_id)
    if stamp is None or stamp.published is None:
        raise Http404
    tender = None
    if stamp.is_due(timezone.now()):
        stamp = tender = current_tender(tender_id, request.user)

    def render_body():
        loaded = tender or current_tender(tender_id, request.user)
        return render_to_string(
            "tenders/tender_detail.html#body", _tender_context(request, loaded), request
        )

    key = fragment_key("tender", stamp.pk, stamp.date_modified, stamp.next_check)
    context = {"tender": stamp, "public_body": kept_fragment(key, render_body)}
    response = TemplateResponse(request, "tenders/tender_detail.html", context)
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response


def about_tender(tender, lot_id: str = "") -> str:
    """What a review is about: the tender, and its lot when the act concerns one."""
    lot = (lot_of(tender.data, lot_id) or {}).get("title", "") if lot_id else ""
    if lot:
        return _("«%(tender)s» (%(id)s), lot «%(lot)s»") % {
            "tender": tender.title,
            "id": tender.tender_id,
            "lot": lot,
        }
    return _("«%(tender)s» (%(id)s)") % {"tender": tender.title, "id": tender.tender_id}


def act_on_tender(
    request, tender_id, form_class, change, *, at: str, find=None, form_kwargs=None, review=None
):
    """The frame of every change made from the tender page: the form's token is spent with
    the change; a refusal keeps the form `at` its place with the model's words (422), success
    is shown on the fresh page (htmx: the fragment it targets, and a `tender-changed` event).
    `find(tender)` looks up what the URL names first: an unknown one is a 404 page;
    `form_kwargs(tender)`: what the form is made with besides the request's data.

    An act that can't be undone has a `review(tender, owner, form)` (core/reviews.py):
    its address read (GET) is the review, with the form; a refusal comes back to it."""
    tender = current_tender(tender_id, request.user)
    if find is not None:
        find(tender)
    owner = portal_actor(request.user, (Role.TENDER_OWNER, tender))
    kwargs = form_kwargs(tender) if form_kwargs else {}
    if request.method == "GET":
        return render_review(request, review(tender, owner, form_class(**kwargs)))
    form = form_class(request.POST, request.FILES, **kwargs)
    notice = form.is_valid() and change_from_form(
        form, request.user, lambda: change(tender, owner, form)
    )
    if notice:
        return changed(
            request,
            notice,
            url=reverse("tender", args=[tender.pk]),
            fresh=lambda: _tender_page(request, current_tender(tender_id, request.user)),
            event="tender-changed",
        )
    if review is not None:
        return render_review(request, review(tender, owner, form), status=422)
    return _tender_page(request, tender, refused={at: form}, status=422)
