"""The tender page: everything about one tender, for anyone, with what the visitor may do."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from complaints.models import Complaint
from portal.actors import Role, portal_actor
from portal.errors import DomainError, InvalidData, NotFound, PermissionDenied
from portal.forms import add_domain_error
from portal.htmx import render_page_or_partial
from tenders.documents import latest_versions
from tenders.forms import AwardDecisionForm, BidForm, ContractSignForm
from tenders.models import BidStatus, Tender, TenderStatus

# The road a tender takes, and what moves it on.
STAGES = [
    (TenderStatus.ENQUIRIES, _("Questions to the procuring entity")),
    (TenderStatus.TENDERING, _("Bids are accepted")),
    (TenderStatus.QUALIFICATION, _("The procuring entity decides on the lowest bid")),
    (TenderStatus.AWARDED, _("Winner chosen: claims may be filed, then the contract signed")),
    (TenderStatus.COMPLETE, _("Contract signed")),
]


DECISION_NOTICES = {
    "activate": _("The bid is chosen as the winner; claims may be filed against the decision."),
    "disqualify": _("The bid is disqualified; the next lowest bid is now considered."),
    "cancel": _("The decision is taken back; qualification starts over."),
}


def current_tender(tender_id: str, user) -> Tender:
    """The tender with every due change applied; a draft only for its own organization."""
    try:
        tender = Tender.objects.current(tender_id)
    except NotFound:
        raise Http404 from None
    if not tender.shown_to(portal_actor(user, (Role.TENDER_OWNER, tender))):
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


def _tender_page(request, tender, *, errors=None, bid_form=None, status=200):
    """The tender page; `errors` maps an award's id to the refusal of a decision on it."""
    now = timezone.now()
    bidder = bid_actor(request.user, tender)
    owner = portal_actor(request.user, (Role.TENDER_OWNER, tender))
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
                "decisions": award.available_actions(owner) if owner.subject else [],
                "contract": contract,
                "signing_refusal": (
                    contract.signing_refusal(owner, now)
                    if contract is not None and owner.subject
                    else None
                ),
                "error": (errors or {}).get(award.pk),
                "decision_form": AwardDecisionForm(),
                "sign_form": ContractSignForm(),
                "claims": [
                    claim
                    for claim in award.complaints.all()
                    if claim.shown_to(portal_actor(request.user, (Role.COMPLAINT_OWNER, claim)))
                ],
                "may_file": Complaint.may_file(award, bidder, now),
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
        "bid_form": bid_form
        or (
            _new_bid_form(request.user)
            if owner.organization and not my_bids and tender.accepts_bids_at(now)
            else None
        ),
        "my_bids": my_bids,
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
        "is_owner": owner.subject is not None,
    }
    return render_page_or_partial(
        request, "tenders/tender_detail.html", context, partials={"awards", "bid"}, status=status
    )


@require_GET
def tender_detail(request, tender_id):
    return _tender_page(request, current_tender(tender_id, request.user))


def _decide(request, tender_id, form_class, award_id, change):
    """The frame of the owner's decisions on the tender page: the form's token is spent with
    the change; a refusal is shown at the award (422), success is shown on the fresh page."""
    tender = current_tender(tender_id, request.user)
    owner = portal_actor(request.user, (Role.TENDER_OWNER, tender))
    form = form_class(request.POST)
    try:
        if not form.is_valid():
            raise InvalidData.field("action", "Invalid data")
        with transaction.atomic():
            form.spend(request.user)
            notice = change(tender, owner, form.cleaned_data)
    except DomainError as error:
        message = gettext(error.description)
        return _tender_page(request, tender, errors={award_id: message}, status=422)
    if not request.htmx:
        messages.success(request, notice)
        return redirect("tender", tender.pk)
    response = _tender_page(request, current_tender(tender_id, request.user))
    return trigger_client_event(response, "tender-changed", {"notice": notice})


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
    def change(tender, owner, data):
        award = award_of(tender, award_id)
        getattr(award, data["action"])(by=owner)
        return DECISION_NOTICES[data["action"]]

    return _decide(request, tender_id, AwardDecisionForm, award_id, change)


@require_POST
@login_required
def contract_sign(request, tender_id, award_id):
    def change(tender, owner, data):
        award = award_of(tender, award_id)
        contract = next((c for c in tender.contracts.all() if c.award_id == award.pk), None)
        if contract is None:
            raise NotFound("contract_id")
        contract.tender, contract.award = tender, award
        contract.sign(by=owner)
        return _("The contract is signed; the tender is complete.")

    return _decide(request, tender_id, ContractSignForm, award_id, change)


def _new_bid_form(user) -> BidForm:
    return BidForm(
        initial={"contact_name": user.get_full_name() or user.username, "email": user.email}
    )


@require_POST
@login_required
def bid_place(request, tender_id):
    """Bid as the signed-in user's organization, the bid's tenderer."""
    tender = current_tender(tender_id, request.user)
    form = BidForm(request.POST)
    organization = request.user.organization
    if organization is None:
        add_domain_error(form, PermissionDenied())  # the bidder is an organization
    elif form.is_valid():
        data = form.cleaned_data
        value = tender.data.get("value", {})
        bid = {
            "value": {
                "amount": float(data["amount"]),
                "currency": value.get("currency", "UAH"),
                "valueAddedTaxIncluded": value.get("valueAddedTaxIncluded", True),
            },
            "tenderers": [
                {
                    "name": organization.name,
                    "identifier": {
                        "scheme": organization.identifier_scheme,
                        "id": organization.identifier,
                    },
                    "address": {"countryName": "Україна", "locality": data["locality"]},
                    "contactPoint": {
                        "name": data["contact_name"],
                        "email": data["email"],
                        **({"telephone": data["telephone"]} if data["telephone"] else {}),
                    },
                }
            ],
        }
        try:
            with transaction.atomic():
                form.spend(request.user)
                tender.place_bid(by=portal_actor(request.user), data=bid)
        except DomainError as error:
            add_domain_error(form, error)
        else:
            notice = _("Your bid is placed. It stays sealed until bidding closes.")
            if not request.htmx:
                messages.success(request, notice)
                return redirect("tender", tender.pk)
            response = _tender_page(request, current_tender(tender_id, request.user))
            return trigger_client_event(response, "tender-changed", {"notice": notice})
    return _tender_page(request, tender, bid_form=form, status=422)
