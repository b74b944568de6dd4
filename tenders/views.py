"""The tender page: everything about one tender, for anyone, with what the visitor may do."""

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from docservice import client, links
from portal.core.actors import Role, Viewer, portal_actor
from portal.core.errors import DomainError, NotFound, PermissionDenied
from portal.core.forms import DocumentsForm, made_from
from portal.core.htmx import changed, render_page_or_partial
from tenders.documents import latest_versions
from tenders.forms import (
    AwardDecisionForm,
    BidForm,
    ContractSignForm,
    ItemFormSet,
    NewVersionForm,
    PublishForm,
    TenderCancelForm,
    TenderForm,
)
from tenders.models import BidStatus, CancellationStatus, Tender, TenderStatus

# The road a tender takes, and what moves it on.
# What each stage of the tender's lifecycle (Tender.LIFECYCLE) means to a reader.
STAGE_LABELS = {
    TenderStatus.ENQUIRIES: _("Questions to the procuring entity"),
    TenderStatus.TENDERING: _("Bids are accepted"),
    TenderStatus.QUALIFICATION: _("The procuring entity decides on the lowest bid"),
    TenderStatus.AWARDED: _("Winner chosen: claims may be filed, then the contract signed"),
    TenderStatus.COMPLETE: _("Contract signed"),
}


DECISION_NOTICES = {
    "activate": _("The bid is chosen as the winner; claims may be filed against the decision."),
    "disqualify": _("The bid is disqualified; the next lowest bid is now considered."),
    "cancel": _("The decision is taken back; qualification starts over."),
}


DRAFT_SAVED = _("The draft is saved. Only your organization sees it: add documents, then publish.")


def current_tender(tender_id: str, user) -> Tender:
    """The tender with every due change applied; a draft only for its own organization."""
    try:
        return Tender.objects.current(tender_id, viewer=Viewer.of_user(user))
    except NotFound:
        raise Http404 from None


def lifecycle(tender: Tender) -> list[dict]:
    """The stages with the one the tender is in marked: all are ahead of a draft, and none is
    reached by a tender that ended early."""
    order = Tender.LIFECYCLE
    if tender.status == TenderStatus.DRAFT:
        position = -1
    else:
        position = order.index(tender.status) if tender.status in order else None
    stages = []
    for index, status in enumerate(order):
        label = STAGE_LABELS[status]
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


def _tender_page(request, tender, *, refused=None, status=200):
    """The tender page with a form for each thing the visitor may do; `refused` holds the
    forms that were just refused, by where they stand on the page, to show in their place."""
    refused = refused or {}
    now = timezone.now()
    viewer = Viewer.of_user(request.user)
    bidder = bid_actor(request.user, tender)
    owner = portal_actor(request.user, (Role.TENDER_OWNER, tender))
    actions = tender.available_actions(owner)
    contracts = {contract.award_id: contract for contract in tender.contracts.all()}
    awards = []
    for award in tender.awards.all():
        award.tender = tender
        contract = contracts.get(award.pk)
        if contract is not None:
            contract.tender, contract.award = tender, award
        awards.append(
            {
                "award": award,
                "decisions": award.decisions(owner, now) if owner.subject else [],
                "contract": contract,
                "signing_refusal": (
                    contract.signing_refusal(owner, now)
                    if contract is not None and owner.subject
                    else None
                ),
                "errors": form_errors(refused.get(f"award:{award.pk}")),
                "decision_form": AwardDecisionForm(),
                "sign_form": ContractSignForm(),
                "claims": [claim for claim in award.complaints.all() if claim.shown_to(viewer)],
                "may_file": award.may_be_claimed_by(bidder, now),
            }
        )
    my_bids = [
        bid
        for bid in tender.bids.all()
        if bid.status == BidStatus.ACTIVE and bid.is_owned_by_organization(owner.organization)
    ]
    context = {
        "tender": tender,
        # A form that was refused stays in place with its errors; else one while bids are taken.
        "bid_form": refused.get("bid")
        or (
            _new_bid_form(request.user)
            if owner.organization
            and tender.bid_refusal({"identifier": owner.organization.identifier_data}, now) is None
            else None
        ),
        "actions": actions,
        # The page tells the owner why its draft can't be published.
        "stale_draft": owner.subject is not None and tender.is_stale_draft,
        "publish_form": refused.get("publish") or PublishForm(),
        "cancel_form": refused.get("cancel") or TenderCancelForm(),
        "documents_form": refused.get("documents") or DocumentsForm(),
        "my_bids": my_bids,
        "stages": lifecycle(tender),
        "ended_early": tender.status in (TenderStatus.UNSUCCESSFUL, TenderStatus.CANCELLED),
        "items": tender.data.get("items", []),
        "entity": tender.data.get("procuringEntity", {}),
        "value": tender.data.get("value", {}),
        "minimal_step": tender.data.get("minimalStep", {}),
        "documents": [
            {
                **entry,
                "version_form": refused.get(f"version:{entry['latest'].document_id}")
                or NewVersionForm(document_id=entry["latest"].document_id),
            }
            for entry in document_history(tender.documents.all())
        ],
        "cancellation": next(
            (c for c in tender.cancellations.all() if c.status == CancellationStatus.ACTIVE), None
        ),
        "bids": (
            [b for b in tender.bids.all() if b.status == BidStatus.ACTIVE]
            if tender.bids_are_public
            else None
        ),
        "awards": awards,
        "is_owner": owner.subject is not None,
    }
    return render_page_or_partial(
        request,
        "tenders/tender_detail.html",
        context,
        partials={"awards", "bid", "documents"},
        status=status,
    )


@require_GET
def tender_detail(request, tender_id):
    return _tender_page(request, current_tender(tender_id, request.user))


def form_errors(form) -> list[str]:
    """Every message of a refused form whose only inputs are buttons."""
    if form is None:
        return []
    return [message for messages in form.errors.values() for message in messages]


def _act(request, tender_id, form_class, change, *, at: str, find=None):
    """The frame of every change made from the tender page: the form's token is spent with
    the change; a refusal keeps the form `at` its place with the model's words (422), success
    is shown on the fresh page (htmx: the fragment it targets, and a `tender-changed` event).
    `find(tender)` looks up what the URL names first: an unknown one is a 404 page."""
    tender = current_tender(tender_id, request.user)
    if find is not None:
        find(tender)
    owner = portal_actor(request.user, (Role.TENDER_OWNER, tender))
    form = form_class(request.POST, request.FILES)
    notice = form.is_valid() and made_from(form, request.user, lambda: change(tender, owner, form))
    if notice:
        return changed(
            request,
            notice,
            url=reverse("tender", args=[tender.pk]),
            fresh=lambda: _tender_page(request, current_tender(tender_id, request.user)),
            event="tender-changed",
        )
    return _tender_page(request, tender, refused={at: form}, status=422)


def document_of(tender, document_id: str):
    """The latest version of one of the tender's documents, or a 404 page."""
    try:
        return tender.latest_document(document_id)
    except NotFound:
        raise Http404 from None


def award_of(tender, award_id: str):
    """One of the tender's awards (from what is prefetched), or a 404 page."""
    award = next((a for a in tender.awards.all() if a.pk == award_id), None)
    if award is None:
        raise Http404
    award.tender = tender
    return award


@require_POST
@login_required
def award_decision(request, tender_id, award_id):
    def change(tender, owner, form):
        action = form.cleaned_data["action"]
        getattr(award_of(tender, award_id), action)(by=owner)
        return DECISION_NOTICES[action]

    return _act(
        request,
        tender_id,
        AwardDecisionForm,
        change,
        at=f"award:{award_id}",
        find=lambda tender: award_of(tender, award_id),
    )


@require_POST
@login_required
def contract_sign(request, tender_id, award_id):
    def change(tender, owner, _form):
        award = award_of(tender, award_id)
        contract = next((c for c in tender.contracts.all() if c.award_id == award.pk), None)
        if contract is None:
            raise NotFound("contract_id")
        contract.tender, contract.award = tender, award
        contract.sign(by=owner)
        return _("The contract is signed; the tender is complete.")

    return _act(
        request,
        tender_id,
        ContractSignForm,
        change,
        at=f"award:{award_id}",
        find=lambda tender: award_of(tender, award_id),
    )


def _new_bid_form(user) -> BidForm:
    return BidForm(
        initial={"contact_name": user.get_full_name() or user.username, "email": user.email}
    )


@require_POST
@login_required
def bid_place(request, tender_id):
    """Bid as the signed-in user's organization, the bid's tenderer."""

    def change(tender, _owner, form):
        organization = request.user.organization
        if organization is None:
            raise PermissionDenied()  # the bidder is an organization
        bid = form.as_bid(organization, tender.data.get("value", {}))
        tender.place_bid(by=portal_actor(request.user), data=bid)
        return _("Your bid is placed. It stays sealed until bidding closes.")

    return _act(request, tender_id, BidForm, change, at="bid")


# --- the tender owner's tender -----------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def tender_new(request):
    """A new tender of the user's organization, saved as a draft (only the organization sees
    it until it is published) or published at once. "Add an item" sends the form back with
    one more item row, keeping what was typed and judging nothing yet."""
    account = portal_actor(request.user)
    try:
        Tender.objects.check_registering(account)
    except DomainError as error:
        return render_page_or_partial(
            request,
            "tenders/tender_new.html",
            {"refusal": gettext(error.description)},
            partials={"tender-form"},
            status=200 if request.method == "GET" else 422,
        )
    organization = request.user.organization
    if request.method == "GET":
        form = TenderForm(initial=TenderForm.initial_for(request.user, _last_entity(organization)))
        return _new_tender_page(request, form, ItemFormSet(prefix="items"))
    form = TenderForm(request.POST)
    items = ItemFormSet(request.POST, prefix="items")
    if "add_item" in request.POST:
        items = ItemFormSet(_with_another_row(request.POST, items), prefix="items")
        return _new_tender_page(request, form, items, quiet=True)
    if form.is_valid() and items.is_valid():
        draft = "publish" not in request.POST
        registered = made_from(
            form,
            request.user,
            lambda: Tender.objects.register(
                by=account, data=form.as_tender(organization, items.items(), draft=draft)
            ),
        )
        if registered is not None:
            tender, _token = registered
            messages.success(request, DRAFT_SAVED if draft else _("The tender is published."))
            url = reverse("tender", args=[tender.pk])
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    return _new_tender_page(request, form, items, status=422)


def _last_entity(organization) -> dict | None:
    """The procuring entity as the organization described itself in its latest tender."""
    if organization is None:
        return None
    latest = Tender.objects.filter(organization=organization).order_by("-date").first()
    return latest.data.get("procuringEntity") if latest else None


def _with_another_row(data, items):
    data = data.copy()
    data[f"{items.prefix}-TOTAL_FORMS"] = str(min(items.total_form_count() + 1, items.max_num))
    return data


def _new_tender_page(request, form, items, *, quiet=False, status=200):
    context = {"form": form, "items": items, "quiet": quiet}
    return render_page_or_partial(
        request, "tenders/tender_new.html", context, partials={"tender-form"}, status=status
    )


@require_POST
@login_required
def tender_publish(request, tender_id):
    def change(tender, owner, _form):
        tender.publish(by=owner)
        return _("The tender is published: questions are taken from now on.")

    return _act(request, tender_id, PublishForm, change, at="publish")


@require_POST
@login_required
def tender_cancel(request, tender_id):
    def change(tender, owner, form):
        reason = form.cleaned_data["reason"]
        tender.cancel(by=owner, reason=reason)
        return _("The tender is cancelled.")

    return _act(request, tender_id, TenderCancelForm, change, at="cancel")


@require_POST
@login_required
def tender_documents(request, tender_id):
    """Add documents: the files are stored first, and discarded if the tender refuses them."""

    def change(tender, owner, form):
        client.attach_uploads(tender, owner, form.cleaned_data["documents"])
        return _("The documents are published with the tender.")

    return _act(request, tender_id, DocumentsForm, change, at="documents")


@require_POST
@login_required
def tender_document_version(request, tender_id, document_id):
    """A new version of a document; the earlier ones stay listed under it."""

    def change(tender, owner, form):
        tender.check_document_change(owner, "update", document_id)
        stored = client.store_files([form.cleaned_data["document"]], owner)
        with client.discarded_on_refusal(stored):
            tender.replace_document(by=owner, document_id=document_id, **stored[0].fields())
        return _("The new version is published; the earlier one stays in the history.")

    form_class = partial(NewVersionForm, document_id=document_id)
    return _act(
        request,
        tender_id,
        form_class,
        change,
        at=f"version:{document_id}",
        find=lambda tender: document_of(tender, document_id),
    )


@require_GET
def tender_document_download(request, tender_id, document_id, key):
    """One version of a tender's document, for whoever may see the tender: a redirect to a
    freshly signed address of the document service."""
    return download_version(request, current_tender(tender_id, request.user), document_id, key)


def download_version(request, container, document_id: str, key: str):
    try:
        versions = container.document_versions(document_id)
    except NotFound:
        raise Http404 from None
    if key not in {version.key for version in versions}:
        raise Http404
    return HttpResponseRedirect(links.registry_download_url(request, key))
