"""A signed contract in the portal: its page (anyone reads its terms, what was paid, its
documents and every change), and what the buyer does to it, each through a review page: record a
signed change, terminate it stating the amount paid. The rules are the models'
(contracting/models/)."""

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from core.actors import Role, portal_actor
from core.forms import change_from_form
from core.htmx import changed
from core.ids import is_id
from core.paging import ListPage
from core.reviews import Review, not_now, render_review
from core.schema import parse_iso
from core.words import money
from docservice import client
from tenders.views.owner import stored_papers

from .forms import (
    RATIONALE_TYPES,
    ChangeForm,
    ChangeSignForm,
    ContractSearchForm,
    TerminateForm,
)
from .models import SignedContract

REASONS = dict(RATIONALE_TYPES)
PER_PAGE = 20


def contract_of(contract_id: str) -> SignedContract:
    """The signed contract the address names (a 404 page for any other)."""
    contract = (
        SignedContract.objects.in_contracting()
        .filter(pk=contract_id)
        .select_related("tender", "award")
        .prefetch_related("changes")
        .first()
        if is_id(contract_id)
        else None
    )
    if contract is None:
        raise Http404
    return contract


@require_GET
def contract_search(request):
    """The signed contracts, newest first: of a supplier, of a buyer, in force or ended."""
    form = ContractSearchForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(request, "contracting/contracts.html", {"form": form, "page": None})
    asked = form.cleaned_data if form.is_bound else {}
    found = SignedContract.objects.search(
        supplier=asked.get("supplier", "").strip(),
        buyer=asked.get("buyer", "").strip(),
        status=asked.get("status", ""),
    )
    page = ListPage(found, PER_PAGE, request.GET.get("page"))
    query = urlencode({name: value for name, value in asked.items() if value})
    return render(
        request, "contracting/contracts.html", {"form": form, "page": page, "query": query}
    )


@require_GET
def contract_page(request, contract_id):
    return _page(request, contract_id)


def _page(request, contract_id):
    contract = contract_of(contract_id)
    owner = portal_actor(request.user, (Role.CONTRACT_OWNER, contract))
    now = timezone.now()
    pending = contract.pending_change()
    context = {
        "contract": contract,
        "tender": contract.tender,
        "data": contract.data,
        "supplier": (contract.data.get("suppliers") or [{}])[0],
        "buyer": contract.tender.data.get("procuringEntity", {}),
        **{
            f"period_{end}": parse_iso(value) if value else None
            for end, value in (
                ("start", contract.data.get("period", {}).get("startDate")),
                ("end", contract.data.get("period", {}).get("endDate")),
            )
        },
        "changes": [
            {"change": change, "reasons": [REASONS.get(t, t) for t in change.rationale_types]}
            for change in reversed(contract.changes.all())
        ],
        "documents": contract.all_document_versions(),
        "may_change": contract.can("add_change", owner, now),
        "may_sign_change": pending is not None and pending.can("activate", owner, now),
        "may_terminate": contract.can("terminate", owner, now),
    }
    return render(request, "contracting/contract.html", context)


def _act(request, contract_id, form_class, change, review):
    """The frame of a buyer's act on a contract: read, its review (with the form); sent, the
    act (its form's token spent with it); refused, the review again with the model's words."""
    contract = contract_of(contract_id)
    owner = portal_actor(request.user, (Role.CONTRACT_OWNER, contract))
    if request.method == "GET":
        return render_review(request, review(contract, owner, form_class()))
    form = form_class(request.POST, request.FILES)
    notice = form.is_valid() and change_from_form(
        form, request.user, lambda: change(contract, owner, form)
    )
    if notice:
        url = reverse("contract", args=[contract.pk])
        return changed(
            request, notice, url=url, fresh=lambda: _page(request, contract.pk),
            event="contract-changed",
        )  # fmt: skip
    return render_review(request, review(contract, owner, form), status=422)


@require_http_methods(["GET", "POST"])
@login_required
def contract_change(request, contract_id):
    """Read, the review of a change (its form); sent, the change, signed."""

    def change(contract, owner, form):
        contract.check_party(owner)  # before anything is stored
        data = form.cleaned_data
        made = {
            "rationale": data["rationale"],
            "rationaleTypes": data["rationale_types"],
            "dateSigned": data["date_signed"].isoformat(),
        }
        if data["contract_number"]:
            made["contractNumber"] = data["contract_number"]
        terms = {}
        if data["amount"] is not None:
            terms["value"] = {"amount": float(data["amount"])}
        if data["end_date"] is not None:
            terms["period"] = {
                **contract.data.get("period", {}),
                "endDate": data["end_date"].isoformat(),
            }
        stored, documents = stored_papers(owner, data.get("document"), "contractAnnexe")
        with client.discarded_on_refusal(stored):
            contract.record_signed_change(by=owner, change=made, terms=terms, documents=documents)
        return _("The change is signed and published with the contract.")

    def review(contract, owner, form):
        return Review(
            title=_("Record a change of contract %(id)s?") % {"id": contract.contract_id},
            about=_about(contract),
            happens=[
                _("The change is published with its reasons, signed: it can't be taken back."),
                _("A new price or end, if you give one, replaces the contract's."),
            ],
            seen_by=_(
                "Everyone: the change and its document are published on the contract's page."
            ),
            form=form,
            url=reverse("contract-change", args=[contract.pk]),
            confirm=_("Sign the change"),
            back=reverse("contract", args=[contract.pk]),
            refusal=not_now(form, lambda: contract.refused("add_change", owner, timezone.now())),
        )

    return _act(request, contract_id, ChangeForm, change, review)


@require_http_methods(["GET", "POST"])
@login_required
def contract_change_sign(request, contract_id):
    """Read, the review of signing the change left pending (made through the API); sent, its
    signature."""

    def change(contract, owner, form):
        contract.check_party(owner)  # before anything is stored
        data = form.cleaned_data
        stored, documents = stored_papers(owner, data.get("document"), "contractAnnexe")
        with client.discarded_on_refusal(stored):
            contract.sign_pending_change(
                by=owner, date_signed=data["date_signed"].isoformat(), documents=documents
            )
        return _("The change is signed and published with the contract.")

    def review(contract, owner, form):
        pending = contract.pending_change()
        refused = (
            (lambda: pending.refused("activate", owner, timezone.now()))
            if pending is not None
            else (lambda: contract.refused("add_change", owner, timezone.now()))
        )
        return Review(
            title=_("Sign the pending change of contract %(id)s?") % {"id": contract.contract_id},
            about=pending.rationale if pending is not None else _about(contract),
            happens=[_("The change is in force once signed: it can't be taken back.")],
            seen_by=_(
                "Everyone: the change and its document are published on the contract's page."
            ),
            form=form,
            url=reverse("contract-change-sign", args=[contract.pk]),
            confirm=_("Sign the change"),
            back=reverse("contract", args=[contract.pk]),
            refusal=not_now(form, refused),
        )

    return _act(request, contract_id, ChangeSignForm, change, review)


@require_http_methods(["GET", "POST"])
@login_required
def contract_terminate(request, contract_id):
    """Read, the review of terminating the contract; sent, the termination."""

    def change(contract, owner, form):
        data = form.cleaned_data
        contract.terminate(
            by=owner, amount_paid=float(data["amount_paid"]), details=data["details"],
            more_paid=data["more_paid"],
        )  # fmt: skip
        return _("The contract is terminated; what was paid is published.")

    def review(contract, owner, form):
        return Review(
            title=_("Terminate contract %(id)s?") % {"id": contract.contract_id},
            about=_about(contract),
            happens=[
                _("The contract ends: no more changes or documents."),
                _("The amount paid is published beside its price of %(price)s.")
                % {"price": money(contract.data["value"])},
            ],
            seen_by=_("Everyone: the termination is published on the contract's page."),
            form=form,
            url=reverse("contract-terminate", args=[contract.pk]),
            confirm=_("Terminate the contract"),
            back=reverse("contract", args=[contract.pk]),
            danger=True,
            refusal=not_now(form, lambda: contract.refused("terminate", owner, timezone.now())),
        )

    return _act(request, contract_id, TerminateForm, change, review)


def _about(contract) -> str:
    supplier = (contract.data.get("suppliers") or [{}])[0].get("name", "")
    return _("Contract %(id)s with %(supplier)s, tender %(tender)s") % {
        "id": contract.contract_id, "supplier": supplier, "tender": contract.tender.tender_id,
    }  # fmt: skip
