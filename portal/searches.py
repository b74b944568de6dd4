"""Saved searches: a signed-in person keeps a search and is told by e-mail of the tenders newly
published that it finds (portal/alerts.py); the list of them, and deleting one."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.forms import OnceForm, change_from_form
from portal.forms import SavedSearchForm, SearchForm, search_query
from portal.models import SavedSearch


@require_http_methods(["GET", "POST"])
@login_required
def search_save(request):
    """Keep the search the address names (?q=...&region=...): what it finds, a name, and how
    often to be told of new tenders."""
    if request.method == "POST":
        form = SavedSearchForm(request.POST)
    else:
        query = search_query(request.GET)
        found = SearchForm(QueryDict(query))
        name = found.cleaned_data["q"] if found.is_valid() else ""
        form = SavedSearchForm(initial={"query": query, "name": name or _("My search")})
    if request.method == "POST" and form.is_valid():

        def keep():
            return SavedSearch.keep(
                request.user,
                query=form.cleaned_data["query"],
                name=form.cleaned_data["name"],
                frequency=form.cleaned_data["frequency"],
                now=timezone.now(),
            )

        if change_from_form(form, request.user, keep):
            messages.success(
                request, _("The search is saved. New tenders it finds will be e-mailed to you.")
            )
            return redirect("searches")
    query = form.data.get("query", "") if form.is_bound else form.initial["query"]
    context = {"form": form, "filters": described(query), "query": query}
    return render(request, "portal/search_save.html", context, status=422 if form.is_bound else 200)


def described(query: str) -> list[tuple[str, str]]:
    """What a search asks, as (label, value) pairs in the words of its form."""
    form = SearchForm(QueryDict(query))
    if not form.is_valid():
        return []
    pairs = []
    for name, value in form.cleaned_data.items():
        field = form.fields[name]
        if name == "sort" or value in (None, "", False):
            continue
        if hasattr(field, "choices"):
            value = dict(field.choices).get(value, value)
        elif value is True:
            value = _("yes")
        pairs.append((str(field.label), str(value)))
    return pairs


@require_GET
@login_required
def searches(request):
    kept = [
        {"search": search, "filters": described(search.query), "delete_form": OnceForm()}
        for search in request.user.saved_searches.all()
    ]
    return render(
        request, "portal/searches.html", {"searches": kept, "most": SavedSearch.MAX_PER_PERSON}
    )


@require_POST
@login_required
def search_delete(request, search_id):
    search = request.user.saved_searches.filter(pk=search_id).first()
    if search is None:
        raise Http404
    form = OnceForm(request.POST)
    if form.is_valid() and change_from_form(form, request.user, search.delete):
        messages.success(request, _("The search is deleted: no more e-mail about it."))
    else:
        messages.error(request, " ".join(str(error) for error in form.top_errors))
    return redirect(reverse("searches"))
