"""What the tender's owner does on its page: publish, cancel, documents, award decisions,
the contract."""

from functools import partial

from django.contrib.auth.decorators import login_required
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from docservice import client
from portal.core.errors import NotFound
from portal.core.forms import DocumentsForm
from tenders.forms import (
    AwardDecisionForm,
    ContractSignForm,
    NewVersionForm,
    PublishForm,
    TenderCancelForm,
)

from .page import _act, award_of, document_of

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


@require_POST
@login_required
def award_decision(request, tender_id, award_id):
    def change(tender, owner, form):
        action = form.cleaned_data["action"]
        award = award_of(tender, award_id)
        award.check_party(owner)  # before anything is stored
        stored, documents = stored_papers(owner, form.cleaned_data["protocol"], "evaluationReports")
        with client.discarded_on_refusal(stored):
            award.decide(
                by=owner,
                action=action,
                description=form.cleaned_data["reason"].strip() if action == "disqualify" else "",
                documents=documents,
            )
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
    def change(tender, owner, form):
        award = award_of(tender, award_id)
        contract = next((c for c in tender.contracts.all() if c.award_id == award.pk), None)
        if contract is None:
            raise NotFound("contract_id")
        contract.tender, contract.award = tender, award
        contract.check_party(owner)  # before anything is stored
        stored, documents = stored_papers(owner, form.cleaned_data["contract"], "contractSigned")
        with client.discarded_on_refusal(stored):
            contract.sign(by=owner, documents=documents)
        if award.lot_id:
            return _("The contract is signed; its lot is complete.")
        return _("The contract is signed; the tender is complete.")

    return _act(
        request,
        tender_id,
        ContractSignForm,
        change,
        at=f"award:{award_id}",
        find=lambda tender: award_of(tender, award_id),
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
        tender.check_party(owner)  # before anything is stored
        # (2.3 knows no type for a cancellation's protocol)
        stored, documents = stored_papers(owner, form.cleaned_data["protocol"])
        cancellation = form.cancellation()
        with client.discarded_on_refusal(stored):
            tender.add_cancellation(by=owner, data=cancellation, documents=documents)
        if "relatedLot" in cancellation:
            return _("The lot is cancelled.")
        return _("The tender is cancelled.")

    return _act(
        request,
        tender_id,
        TenderCancelForm,
        change,
        at="cancel",
        form_kwargs=lambda tender: {"tender": tender},
    )


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
