"""What the tender's owner does on its page: publish, cancel, documents, award decisions,
the contract."""

from functools import partial

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from core.forms import DocumentsForm
from core.reviews import Review, not_now
from core.words import moment, money
from docservice import client
from tenders.forms.owner import (
    AwardDecisionForm,
    ContractSignForm,
    NewVersionForm,
    PublishForm,
    TenderCancelForm,
)
from tenders.models import Award

from .documents import award_of, document_of
from .page import about_tender, act_on_tender

DECISION_NOTICES = {
    "activate": _("The bid is chosen as the winner; claims may be filed against the decision."),
    "disqualify": _("The bid is disqualified; the next lowest bid is now considered."),
    "cancel": _("The decision is taken back; qualification starts over."),
}


def stored_papers(owner, upload, document_type: str = "") -> tuple[list, list[dict]]:
    """An optional upload stored in the document service (nothing for none), and the keywords
    of the document it becomes, of `document_type` (one of 2.3's, or none)."""
    stored = client.store_files([upload] if upload else [], owner)
    metadata = {"documentType": document_type} if document_type else {}
    return stored, [{**item.fields(), "metadata": metadata} for item in stored]


@require_http_methods(["GET", "POST"])
@login_required
def award_decision(request, tender_id, award_id):
    """A decision on an award: read (GET ?action=activate, disqualify or cancel), the review
    of what it will do; sent, the decision."""
    action = (request.POST if request.method == "POST" else request.GET).get("action", "")
    if action not in Award.DECISIONS:
        raise Http404  # no such decision

    def change(tender, owner, form):
        award = award_of(tender, award_id)
        award.check_party(owner)  # before anything is stored
        protocol = form.cleaned_data.get("protocol")
        stored, documents = stored_papers(owner, protocol, "evaluationReports")
        with client.discarded_on_refusal(stored):
            award.decide(
                by=owner,
                action=action,
                description=form.cleaned_data.get("reason", "").strip(),
                documents=documents,
            )
        return DECISION_NOTICES[action]

    return act_on_tender(
        request,
        tender_id,
        AwardDecisionForm,
        change,
        at=f"award:{award_id}",
        find=lambda tender: award_of(tender, award_id),
        form_kwargs=lambda _tender: {"action": action},
        review=partial(_decision_review, award_id=award_id, action=action),
    )


def _decision_review(tender, owner, form, *, award_id: str, action: str) -> Review:
    award = award_of(tender, award_id)
    now = timezone.now()
    words = {
        "supplier": award.supplier_name,
        "price": money(award.value),
        "end": moment(award.claims_end_if_decided_at(now)),
    }
    if action == "activate":
        title = _("Choose %(supplier)s as the winner?")
        happens = [
            _("The bid of %(supplier)s, %(price)s, becomes the winner; its contract is drawn up.")
            % words,
            _(
                "The bidders who bid through this portal are told by e-mail. Claims against the "
                "decision may be filed until %(end)s."
            )
            % words,
            _("The contract may be signed once that time is over, if no claim is left open."),
            _("Should you change your mind, you take the decision back, in public."),
        ]
        seen_by = _("Everyone: the decision and its protocol are published on the tender's page.")
        confirm = _("Choose as the winner")
    elif action == "disqualify":
        title = _("Disqualify the bid of %(supplier)s?")
        following = award.next_if_disqualified()
        if following is None and award.lot_id:
            next_step = _(
                "No other bid is left: once claims against this decision are closed, the lot "
                "ends without a winner."
            )
        elif following is None:
            next_step = _(
                "No other bid is left: once claims against this decision are closed, the "
                "tender ends without a winner."
            )
        else:
            bid, offer = following
            next_step = _("The next bid to consider is that of %(next)s, %(next_price)s.") % {
                "next": bid.tenderer_name,
                "next_price": money(offer["value"]),
            }
        happens = [
            _("The bid of %(supplier)s, %(price)s, leaves the competition for the reason you give.")
            % words,
            next_step,
            _(
                "The bidders who bid through this portal are told by e-mail, with the reason. "
                "Claims against the decision may be filed until %(end)s."
            )
            % words,
        ]
        seen_by = _("Everyone: the reason and the protocol are published on the tender's page.")
        confirm = _("Disqualify")
    else:
        title = _("Take back the decision on %(supplier)s?")
        if award.won:
            undone = _(
                "The bid of %(supplier)s is no longer the winner, and the contract drawn up "
                "for it is cancelled."
            )
        else:
            undone = _(
                "The disqualification of %(supplier)s is taken back, with every decision "
                "taken after it."
            )
        happens = [
            undone % words,
            _("Claims against it still open, answered or not, close with it."),
            _("Qualification starts over from the best bid still in the competition."),
        ]
        seen_by = _("Everyone: the decision stays on the tender's page, marked as taken back.")
        confirm = _("Take the decision back")
    return Review(
        title=title % words,
        about=about_tender(tender, award.lot_id),
        happens=happens,
        seen_by=seen_by,
        form=form,
        url=reverse("award-decision", args=[tender.pk, award.pk]),
        confirm=confirm,
        back=reverse("tender", args=[tender.pk]) + f"#award-{award.pk}",
        danger=action != "activate",
        refusal=not_now(form, lambda: award.refused(action, owner, now)),
    )


def _contract_of(tender, award):
    """The contract drawn up for `award`, knowing both."""
    contract = next((c for c in tender.contracts.all() if c.award_id == award.pk), None)
    if contract is None:
        raise Http404  # (the award is not, or no longer, the winner)
    contract.tender, contract.award = tender, award
    return contract


@require_http_methods(["GET", "POST"])
@login_required
def contract_sign(request, tender_id, award_id):
    """Read, the review of signing the award's contract; sent, the signature."""

    def change(tender, owner, form):
        award = award_of(tender, award_id)
        contract = _contract_of(tender, award)
        contract.check_party(owner)  # before anything is stored
        data = form.cleaned_data
        stored, documents = stored_papers(owner, data["contract"], "contractSigned")
        with client.discarded_on_refusal(stored):
            contract.sign_with_terms(
                by=owner, number=data["contract_number"], date_signed=data["date_signed"],
                period=(data["start_date"], data["end_date"]), amount=data["amount"],
                documents=documents,
            )  # fmt: skip
        if award.lot_id:
            return _("The contract is signed; its lot is complete.")
        return _("The contract is signed; the tender is complete.")

    return act_on_tender(
        request,
        tender_id,
        ContractSignForm,
        change,
        at=f"award:{award_id}",
        find=lambda tender: _contract_of(tender, award_of(tender, award_id)),
        review=lambda tender, owner, form: _signing_review(
            tender, owner, form, award_of(tender, award_id)
        ),
    )


def _signing_review(tender, owner, form, award) -> Review:
    contract = _contract_of(tender, award)
    words = {
        "id": contract.contract_id,
        "supplier": award.supplier_name,
        "price": money(award.value),
    }
    granted = [
        claim.complaint_id
        for claim in tender.claims()
        if claim.award_id == award.pk and claim.is_granted_and_accepted
    ]
    warnings = [
        _(
            "Careful: you granted the claim %(claims)s against this decision, and its claimant "
            "accepted; take the decision back instead, as you answered."
        )
        % {"claims": ", ".join(granted)}
    ] if granted else []  # fmt: skip
    return Review(
        title=_("Sign contract %(id)s with %(supplier)s?") % words,
        about=about_tender(tender, award.lot_id),
        happens=[
            *warnings,
            _("The contract with %(supplier)s for %(price)s is signed: it can't be unsigned.")
            % words,
            _("The lot is complete: no more decisions or claims on it.")
            if award.lot_id
            else _("The tender is complete: no more decisions or claims on it."),
        ],
        seen_by=_(
            "Everyone: the contract and the file you attach are published on the tender's page."
        ),
        form=form,
        url=reverse("contract-sign", args=[tender.pk, award.pk]),
        confirm=_("Sign the contract"),
        back=reverse("tender", args=[tender.pk]) + f"#award-{award.pk}",
        refusal=not_now(form, lambda: contract.refused("sign", owner, timezone.now())),
    )


@require_http_methods(["GET", "POST"])
@login_required
def tender_publish(request, tender_id):
    """Read, the review of publishing the draft; sent, the publication."""

    def change(tender, owner, _form):
        tender.publish(by=owner)
        return _("The tender is published: questions are taken from now on.")

    return act_on_tender(
        request, tender_id, PublishForm, change, at="publish", review=_publishing_review
    )


def _publishing_review(tender, owner, form) -> Review:
    words = {
        "enquiry_end": moment(tender.enquiry_end),
        "start": moment(tender.tender_start),
        "end": moment(tender.tender_end),
    }
    return Review(
        title=_("Publish «%(title)s»?") % {"title": tender.title},
        about=about_tender(tender),
        happens=[
            _(
                "Anyone can read the tender and its documents, without signing in; it appears "
                "in search and in the feeds brokers read."
            ),
            _("Questions are taken until %(enquiry_end)s; bids from %(start)s until %(end)s.")
            % words,
            _("It can't become a draft again: to stop it, you cancel it, in public."),
        ],
        seen_by=_("Everyone."),
        form=form,
        url=reverse("tender-publish", args=[tender.pk]),
        confirm=_("Publish the tender"),
        back=reverse("tender", args=[tender.pk]),
        refusal=not_now(form, lambda: tender.refused("publish", owner, timezone.now())),
    )


@require_http_methods(["GET", "POST"])
@login_required
def tender_cancel(request, tender_id):
    """Read, the review of cancelling the tender or one of its lots; sent, the
    cancellation."""

    def change(tender, owner, form):
        tender.check_party(owner)  # before anything is stored
        # (2.3 knows no type for a cancellation's protocol)
        stored, documents = stored_papers(owner, form.cleaned_data["protocol"])
        cancellation = form.cancellation()
        with client.discarded_on_refusal(stored):
            tender.add_cancellation(by=owner, data=cancellation, documents=documents)
        if "relatedLot" in cancellation:
            return _("The lot is cancelled.")
        return _("The tender is cancelled.")

    return act_on_tender(
        request,
        tender_id,
        TenderCancelForm,
        change,
        at="cancel",
        form_kwargs=lambda tender: {"tender": tender},
        review=_cancelling_review,
    )


def _cancelling_review(tender, owner, form) -> Review:
    lots = bool(tender.open_lots())
    return Review(
        title=_("Cancel a lot or the whole tender?") if lots else _("Cancel the tender?"),
        about=about_tender(tender),
        happens=[
            _(
                "What you cancel ends for good: it can't be reopened, bids placed for it no "
                "longer take part, and no contract is signed for it."
            ),
            _("The reason and the protocol you give are published with it."),
        ],
        seen_by=_("Your organization alone: the draft was never published.")
        if tender.is_draft
        else _(
            "Everyone: the cancellation, its reason and protocol are published on the tender's "
            "page."
        ),
        form=form,
        url=reverse("tender-cancel", args=[tender.pk]),
        confirm=_("Cancel") if lots else _("Cancel the tender"),
        back=reverse("tender", args=[tender.pk]),
        danger=True,
        refusal=not_now(form, lambda: tender.refused("cancel", owner, timezone.now())),
    )


@require_POST
@login_required
def tender_documents(request, tender_id):
    """Add documents: the files are stored first, and discarded if the tender refuses them."""

    def change(tender, owner, form):
        client.attach_uploads(tender, owner, form.cleaned_data["documents"])
        return _("The documents are published with the tender.")

    return act_on_tender(request, tender_id, DocumentsForm, change, at="documents")


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
    return act_on_tender(
        request,
        tender_id,
        form_class,
        change,
        at=f"version:{document_id}",
        find=lambda tender: document_of(tender, document_id),
    )
