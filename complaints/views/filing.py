"""Filing a claim in the portal: against an award decision, or against the tender's (or a
lot's) conditions; saved as a draft or submitted at once, with its papers."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from complaints.forms import (
    ClaimForm,
    TenderClaimForm,
)
from complaints.models import Complaint
from core.actors import Actor, Role, portal_actor
from core.errors import PermissionDenied, error_of
from core.forms import add_domain_error, change_from_form, posted
from core.htmx import render_page_or_partial
from core.refusals import in_words
from docservice import client
from tenders.documents import latest_versions
from tenders.forms.party import party_of
from tenders.views import award_of, bid_actor, current_tender

from .claim import attach_stored

# --- filing ------------------------------------------------------------------------------


def _filing_page(request, form, refusal, file_claim, context: dict):
    """The frame of both filing pages: a refusal of filing itself is told in place of the
    form; a POST files (the form's token spent with it) and leads to the claim, or comes back
    with the model's words next to the form (422). The same claim sent again (Back, then
    send) leads to the one filed the first time."""
    status = 200
    if request.method == "POST":
        first = form.is_valid() and Complaint.objects.filed_already(
            tender=context["tender"],
            award=context["award"],
            organization=request.user.organization,
            title=form.cleaned_data["title"],
            description=form.cleaned_data["description"],
            related_lot=form.cleaned_data.get("lot", ""),
        )
        if first:
            messages.info(
                request,
                _("This claim is already saved as a draft: here it is.")
                if first.is_draft
                else _("This claim is already filed: here it is."),
            )
            url = reverse("claim", args=[first.pk])
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
        if refusal is not None:
            add_domain_error(form, refusal)
        elif form.is_valid():
            complaint = change_from_form(form, request.user, file_claim)
            if complaint is not None:
                url = reverse("claim", args=[complaint.pk])
                messages.success(
                    request,
                    _("Your claim has been submitted.")
                    if complaint.awaits_answer
                    else _("Your claim is saved as a draft."),
                )
                return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
        status = 422
    context = {**context, "form": form, "refusal": in_words(refusal) if refusal else None}
    return render_page_or_partial(
        request, "complaints/claim_new.html", context, partials={"claim-form"}, status=status
    )


@require_http_methods(["GET", "POST"])
@login_required
def claim_new(request, tender_id, award_id):
    """File a claim against an award decision: saved as a draft, or submitted at once. With
    attachments, the three steps of the 2.3 procedure run behind the form: create the draft,
    attach, submit."""
    tender = current_tender(tender_id, request.user)
    award = award_of(tender, award_id)
    bidder = bid_actor(request.user, tender)
    refusal = error_of(Complaint.objects.check_filing, award, bidder, timezone.now())
    form = ClaimForm(*posted(request))
    context = {"tender": tender, "award": award, **evidence_of(tender, award)}
    return _filing_page(
        request,
        form,
        refusal,
        lambda: _file(request.user, award, bidder, form),
        context,
    )


@require_http_methods(["GET", "POST"])
@login_required
def tender_claim_new(request, tender_id):
    """File a claim against the tender's conditions (or a lot's), as the signed-in user's
    organization, while bids are taken."""
    tender = current_tender(tender_id, request.user)
    actor = portal_actor(request.user)
    if request.user.organization is None:
        refusal = PermissionDenied()  # the claimant is an organization
    else:
        refusal = error_of(
            Complaint.objects.check_filing_against_tender, tender, actor, timezone.now()
        )
    form = TenderClaimForm(*posted(request), tender=tender)
    context = {
        "tender": tender,
        "award": None,
        "tender_documents": latest_versions(tender.documents.all()),
    }
    return _filing_page(
        request,
        form,
        refusal,
        lambda: _file_against_tender(request.user, tender, form),
        context,
    )


def _file_against_tender(user, tender, form) -> Complaint:
    actor = portal_actor(user)

    def file(submit: bool):
        return Complaint.objects.file_against_tender(
            tender=tender,
            by=actor,
            title=form.cleaned_data["title"],
            description=form.cleaned_data["description"],
            author=party_of(user),
            related_lot=form.cleaned_data.get("lot", ""),
            submit=submit,
        )

    return _file_with_papers(user, actor, form, file)


def evidence_of(tender, award) -> dict:
    """What a claim against `award` argues about: the decision's papers, the awarded bid's
    (public once bids are opened), the tender's conditions and the auction's protocol."""
    bid = next((bid for bid in tender.active_bids() if bid.pk == award.bid_id), None)
    tender_documents = latest_versions(tender.documents.all())
    return {
        "decision_documents": latest_versions(award.documents.all()),
        "bid_documents": (
            latest_versions(bid.documents.all()) if bid and tender.bids_are_public else []
        ),
        "awarded_bid": bid,
        # (the auction's protocol is the auction module's, not the procuring entity's terms)
        "tender_documents": [d for d in tender_documents if not d.is_auction_protocol_of()],
        "auction_documents": [
            d for d in tender_documents if d.is_auction_protocol_of(award.lot_id or "")
        ],
    }


def _file(user, award, bidder: Actor, form) -> Complaint:
    def file(submit: bool):
        return Complaint.objects.file(
            award=award,
            by=bidder,
            title=form.cleaned_data["title"],
            description=form.cleaned_data["description"],
            author=bidder.subject.tenderers[0],
            submit=submit,
        )

    return _file_with_papers(user, bidder, form, file)


def _file_with_papers(user, actor: Actor, form, file) -> Complaint:
    """File the claim the form describes (`file(submit)` -> (claim, token)). With papers, the
    three steps of the 2.3 procedure run behind the form: the draft, its documents, then its
    submission; the stored files are discarded if any step is refused."""
    submit = "submit" in form.data
    stored = client.store_files(form.cleaned_data["documents"], actor)
    with client.discarded_on_refusal(stored):
        complaint, _token = file(submit and not stored)
        claimant = Actor(Role.COMPLAINT_OWNER, user=user, subject=complaint)
        attach_stored(complaint, claimant, stored)
        if submit and stored:
            complaint.submit(by=claimant)
    return complaint
