from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from complaints.models import Complaint
from portal.api.errors import not_found_response, server_error_response
from portal.forms import SearchForm, SignUpForm
from portal.htmx import render_page_or_partial
from tenders.models import Tender

TENDERS_PER_PAGE = 20


@require_GET
def home(request):
    """Search the published tenders; htmx swaps the results as the filters change."""
    form = SearchForm(request.GET or None)
    tenders = Tender.objects.public()
    if form.is_bound and form.is_valid():
        tenders = tenders.matching(**form.cleaned_data)
    elif form.is_bound:
        tenders = tenders.none()
    page = Paginator(tenders.order_by("-date_modified", "-id"), TENDERS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode()}
    return render_page_or_partial(request, "portal/home.html", context, partials={"results"})


@require_http_methods(["GET", "POST"])
def signup(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome! Your account is ready."))
            return redirect("dashboard")
        return render(request, "registration/signup.html", {"form": form}, status=422)
    return render(request, "registration/signup.html", {"form": form})


@require_GET
@login_required
def dashboard(request):
    """What waits for the signed-in user's organization: claims to answer (a procuring entity),
    or its own claims and their statuses (a bidder)."""
    organization = request.user.organization
    claims = Complaint.objects.select_related("tender", "award")
    to_answer = awaiting_claimant = mine = tenders = []
    if organization is not None:
        owned = claims.filter(tender__organization=organization)
        to_answer = owned.unanswered().order_by("award__complaint_period_end", "date_submitted")
        awaiting_claimant = owned.answered().order_by("date_answered")
        mine = claims.filter(organization=organization).order_by("-date")
        tenders = Tender.objects.filter(organization=organization).order_by("-date_modified")
    context = {
        "to_answer": to_answer,
        "awaiting_claimant": awaiting_claimant,
        "my_claims": mine,
        "my_tenders": tenders,
    }
    return render(request, "portal/dashboard.html", context)


def page_not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return not_found_response()
    return render(request, "404.html", status=404)


def server_error(request):
    if request.path.startswith("/api/"):
        return server_error_response()
    return render(request, "500.html", status=500)


def api_version(request):
    """Template context: the API's version, for the footer."""
    return {"api_version": settings.API_VERSION}
