"""A new tender of the user's organization, written in a form and saved as a draft."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from core.actors import Role, portal_actor
from core.errors import DomainError
from core.forms import change_from_form
from core.htmx import render_page_or_partial
from core.refusals import in_words
from tenders.forms.new_tender import ItemFormSet, LotFormSet, LotRows, TenderForm
from tenders.models import Tender

from .page import current_tender

DRAFT_SAVED = _("The draft is saved. Only your organization sees it: add documents, then publish.")
AMENDED = _("The tender is amended; those who follow it are told of the change.")


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
            {"refusal": in_words(error)},
            partials={"tender-form"},
            status=200 if request.method == "GET" else 422,
        )
    organization = request.user.organization
    if request.method == "GET":
        form = TenderForm(initial=TenderForm.initial_for(request.user, _last_entity(organization)))
        return _new_tender_page(
            request, form, LotFormSet(prefix="lots"), ItemFormSet(prefix="items")
        )
    lots, form, items, resized = _bound(request.POST)
    if resized:
        return _new_tender_page(request, form, lots, items, quiet=True)
    if form.is_valid() and (url := form.made_already(request.user)):
        # The same form sent again (Back, then send): to the tender it made the first time.
        messages.info(request, _("This form was sent before: here is the tender it made."))
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if form.is_valid() and lots.is_valid() and items.is_valid():
        draft = "publish" not in request.POST
        made = lots.lots()
        data = form.as_tender(
            organization, items.items([lot["id"] for lot in made]), draft=draft, lots=made
        )

        def register():
            tender, _token = Tender.objects.register(by=account, data=data)
            form.remember(reverse("tender", args=[tender.pk]))
            return tender

        tender = change_from_form(form, request.user, register)
        if tender is not None:
            messages.success(request, DRAFT_SAVED if draft else _("The tender is published."))
            url = reverse("tender", args=[tender.pk])
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    return _new_tender_page(request, form, lots, items, status=422)


@require_http_methods(["GET", "POST"])
@login_required
def tender_edit(request, tender_id):
    """The organization's tender in the form it was written in: a draft is written anew (and
    stays a draft; publishing it has its own review); a published one is amended while
    questions are taken (its followers told)."""
    tender = current_tender(tender_id, request.user)
    owner = portal_actor(request.user, (Role.TENDER_OWNER, tender))
    action = tender.written_whole_by
    refusal = tender.refused(action, owner, timezone.now())
    if refusal is not None:
        context = {"refusal": in_words(refusal)}
        status = 200 if request.method == "GET" else 422
        return _new_tender_page(request, None, None, None, tender=tender, status=status, **context)
    if request.method == "GET":
        lots, form, items, _resized = _bound(TenderForm.data_of(tender))
        return _new_tender_page(request, form, lots, items, tender=tender, quiet=True)
    lots, form, items, resized = _bound(request.POST)
    if resized:
        return _new_tender_page(request, form, lots, items, tender=tender, quiet=True)
    if form.is_valid() and lots.is_valid() and items.is_valid():
        made = lots.lots()
        data = form.as_tender(
            request.user.organization,
            items.items([lot["id"] for lot in made]),
            draft=True,
            lots=made,
        )
        # (None: refused; False: nothing changed)
        changed = change_from_form(
            form, request.user, lambda: tender.write_whole(by=owner, data=data)
        )
        if changed is not None:
            if not changed:
                messages.info(request, _("Nothing was changed."))
            else:
                messages.success(request, DRAFT_SAVED if action == "rewrite_draft" else AMENDED)
            url = reverse("tender", args=[tender.pk])
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    return _new_tender_page(request, form, lots, items, tender=tender, status=422)


def _bound(sent):
    """The tender's form, its lots and its items bound to what was `sent`; True when a button
    asked for a row more or less ("Add an item", "Add a lot", "Remove the last lot"): the
    form then comes back keeping what was typed and judging nothing yet."""
    data = sent.copy()
    if "lots-TOTAL_FORMS" not in data:  # (a form without the lots' part: no lots)
        data.update({"lots-TOTAL_FORMS": "0", "lots-INITIAL_FORMS": "0"})
    resized = False
    data = LotRows.keeping_typed_value(data)
    for button, prefix, step, limit in (
        ("add_item", "items", 1, ItemFormSet.max_num),
        ("add_lot", "lots", 1, LotFormSet.max_num),
        ("remove_lot", "lots", -1, LotFormSet.max_num),
    ):
        if button in data:
            data, resized = _with_rows(data, prefix, step, limit), True
    lots = LotFormSet(data, prefix="lots")
    lot_count = lots.total_form_count()
    form = TenderForm(data, with_lots=bool(lot_count))
    items = ItemFormSet(data, prefix="items", form_kwargs={"lots": lot_count})
    return lots, form, items, resized


def _last_entity(organization) -> dict | None:
    """The procuring entity as the organization described itself in its latest tender."""
    if organization is None:
        return None
    latest = Tender.objects.filter(organization=organization).order_by("-date").first()
    return latest.data.get("procuringEntity") if latest else None


def _with_rows(data, prefix: str, step: int, limit: int):
    """The form's data with `step` rows more (or fewer) of the formset `prefix`."""
    data = data.copy()
    key = f"{prefix}-TOTAL_FORMS"
    try:
        count = int(data.get(key, 0))
    except ValueError:
        count = 0
    data[key] = str(max(0, min(count + step, limit)))
    return data


def _new_tender_page(request, form, lots, items, *, quiet=False, status=200, tender=None, **extra):
    """The tender's form: a new one, or (`tender`) a draft's or a published tender's."""
    context = {
        "form": form,
        "lots": lots,
        "items": items,
        "quiet": quiet,
        "editing": tender,
        "amending": tender is not None and tender.written_whole_by == "amend",
        **extra,
    }
    return render_page_or_partial(
        request, "tenders/tender_new.html", context, partials={"tender-form"}, status=status
    )
