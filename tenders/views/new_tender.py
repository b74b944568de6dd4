"""A new tender of the user's organization, written in a form and saved as a draft."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from portal.core.actors import portal_actor
from portal.core.errors import DomainError
from portal.core.forms import made_from
from portal.core.htmx import render_page_or_partial
from tenders.forms import (
    ItemFormSet,
    TenderForm,
)
from tenders.models import Tender

DRAFT_SAVED = _("The draft is saved. Only your organization sees it: add documents, then publish.")


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
