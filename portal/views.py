import functools
import hashlib
import math
import sys
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import DatabaseError
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST, require_safe

from complaints.models import Complaint
from core.api.errors import error_response, not_found_response, server_error_response
from core.errors import DomainError, infrastructure_failure
from core.forms import add_domain_error
from core.fragments import fragment_key, kept_fragment
from core.htmx import partial_asked
from core.middleware import is_machine_face
from core.paging import ListPage, rows_of
from core.refusals import in_words
from core.replicas import may_read_a_replica
from core.words import moment, money
from portal import queues
from portal.account_forms import JoinForm
from portal.forms import SearchForm, search_query
from portal.models import Organization
from tenders.models import Question, Tender
from tenders.search import understand

TENDERS_PER_PAGE = 20
# A search with words looks for its page among this many of the newest tenders first.
SEARCH_FIRST_AMONG = 1000
# A search's feed carries its newest tenders, as feeds of news do.
FEED_ENTRIES = 50


@require_GET
@may_read_a_replica
def home(request):
    """Search the published tenders; htmx swaps the results as the filters change. What a
    search shows is the same for everyone, so its rendering is kept until any tender changes
    (the registry's newest dateModified moves with every change), SEARCH_RESULTS_SECONDS at
    most, and while changes stamped earlier may still commit, only until they have."""
    results = partial_asked(request, {"results"})
    template = "portal/home.html#results" if results else "portal/home.html#body"
    asked = urlencode(sorted((k, v) for k, values in request.GET.lists() for v in values))
    stamp = Tender.objects.registry_stamp()
    key = fragment_key(
        "search-results" if results else "search",
        hashlib.sha256(asked.encode()).hexdigest()[:32],
        stamp,
    )
    body = kept_fragment(
        key,
        lambda: render_to_string(template, _search(request), request),
        _search_kept_for(stamp),
    )
    if results:
        response = HttpResponse(body)
    else:
        response = TemplateResponse(request, "portal/home.html", {"public_body": body})
    patch_vary_headers(response, ["HX-Request", "HX-Target"])
    return response


@require_safe
@may_read_a_replica
def search_feed(request):
    """A search as an Atom feed, for people who would rather not have an account: the tenders
    it finds, the newest change first. It is the same for everyone, so it is kept as the
    search's page is; a search the form refuses is a 400 saying why."""
    form = SearchForm(request.GET)
    if not form.is_valid():
        refused = "; ".join(
            f"{form.fields[name].label if name in form.fields else name}: {' '.join(errors)}"
            for name, errors in form.errors.items()
        )
        return HttpResponseBadRequest(
            _("This search can't be followed: %(errors)s") % {"errors": refused},
            content_type="text/plain; charset=utf-8",
        )
    asked = search_query(request.GET)
    stamp = Tender.objects.registry_stamp()
    key = fragment_key("search-feed", hashlib.sha256(asked.encode()).hexdigest()[:32], stamp)
    body = kept_fragment(key, lambda: _atom(asked, form), _search_kept_for(stamp))
    return HttpResponse(body, content_type="application/atom+xml; charset=utf-8")


def _atom(asked: str, form) -> str:
    criteria = {**form.cleaned_data, "sort": "changed"}
    public = Tender.objects.public()
    first = public.newest_matching(among=SEARCH_FIRST_AMONG, **criteria)
    entries = rows_of(
        public.matching(**criteria).listed(),
        0,
        FEED_ENTRIES,
        first_try=first.listed() if first is not None else None,
    )
    search = settings.SITE_URL + reverse("home") + (f"?{asked}" if asked else "")
    feed = Atom1Feed(
        title=_("Tenders found by: %(search)s") % {"search": form.cleaned_data["q"] or asked}
        if asked
        else _("Every tender published"),
        link=search,
        description="",
        language=get_language(),
        feed_url=settings.SITE_URL + reverse("search-feed") + (f"?{asked}" if asked else ""),
    )
    for tender in entries:
        url = settings.SITE_URL + reverse("tender", args=[tender.pk])
        feed.add_item(
            title=f"{tender.title} ({tender.tender_id})",
            link=url,
            unique_id=url,
            updateddate=tender.date_modified,
            description=_("%(buyer)s · expected value %(value)s · %(status)s · bids until %(end)s")
            % {
                "buyer": tender.buyer_name or "",
                "value": money({"amount": tender.value_amount, "currency": tender.value_currency}),
                "status": tender.get_status_display(),
                "end": moment(tender.tender_end),
            },
        )
    return feed.writeString("utf-8")


def _search_kept_for(stamp) -> int:
    """Seconds a search rendered now is kept. A change stamped before the newest stamp may
    still commit within FEED_WATERMARK_SECONDS of its stamp (the feed's own bound) without
    moving the newest one: until then, a rendering is kept only that long."""
    if stamp is None:
        return settings.SEARCH_RESULTS_SECONDS
    unsettled = (stamp - timezone.now()).total_seconds() + settings.FEED_WATERMARK_SECONDS
    if unsettled <= 0:
        return settings.SEARCH_RESULTS_SECONDS
    return min(settings.SEARCH_RESULTS_SECONDS, math.ceil(unsettled))


def _search(request) -> dict:
    """The search's page of results. Words found nowhere as written are looked for again
    among words like them (a typo), and the page says so."""
    form = SearchForm(request.GET or None)
    public = Tender.objects.public()
    understood, resembling, first_try = None, False, None
    if form.is_bound and form.is_valid():
        understood = understand(form.cleaned_data["q"])
        tenders = public.matching(**form.cleaned_data)
        first_try = public.newest_matching(among=SEARCH_FIRST_AMONG, **form.cleaned_data)
    elif form.is_bound:
        tenders = public.none()
    else:
        tenders = public.matching()
    page = ListPage(
        tenders.listed(),
        TENDERS_PER_PAGE,
        request.GET.get("page"),
        first_try=first_try.listed() if first_try is not None else None,
    )
    if (
        understood
        and not page.object_list
        and Tender.objects.may_resemble(understood.words)
        and not public.matching(q=" ".join(understood.words)).exists()
    ):
        resembling = True
        tenders = public.matching(**form.cleaned_data, resembling=True)
        page = ListPage(tenders.listed(), TENDERS_PER_PAGE, request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return {
        "form": form,
        "page": page,
        "query": query.urlencode(),
        "understood": understood,
        "resembling": resembling,
    }


@require_GET
@login_required
def dashboard(request):
    return dashboard_page(request)


def dashboard_page(request, *, join_form=None, status=200):
    """What waits for the signed-in user: its account's next step (confirm the address, join
    an organization), the requests to join its organization (administrators), and its
    organization's work queue (portal.queues), bids, claims, questions and tenders."""
    user = request.user
    organization = user.organization
    now = timezone.now()
    tasks = bids = awaiting_claimant = mine = tenders = requests = my_questions = []
    join_request = None
    if organization is not None:
        tasks = queues.tasks_of(organization, now)
        bids = queues.bids_of(organization, now)
        claims = Complaint.objects.select_related("tender", "award")
        awaiting_claimant = (
            claims.filter(tender__organization=organization).answered().order_by("date_answered")
        )
        mine = claims.filter(organization=organization).order_by("-date")
        my_questions = (
            Question.objects.filter(organization=organization)
            .select_related("tender")
            .order_by("-date")[:50]
        )
        tenders = Tender.objects.filter(organization=organization).order_by("-date_modified")
        if organization.is_administered_by(user):
            requests = organization.pending_requests()
    elif user.email_confirmed_at is not None:
        join_request = user.pending_join_request()
        if join_request is None:
            join_form = join_form or JoinForm()
    context = {
        "organization": organization,
        "join_request": join_request,
        "join_form": join_form,
        "requests": requests,
        "tasks": tasks,
        "my_bids": bids,
        "my_questions": my_questions,
        "awaiting_claimant": awaiting_claimant,
        "my_claims": mine,
        "my_tenders": tenders,
    }
    return render(request, "portal/dashboard.html", context, status=status)


@require_POST
@login_required
def join(request):
    """An account without an organization names one to join or register: the same neutral
    answer either way."""
    form = JoinForm(request.POST)
    if form.is_valid():
        try:
            Organization.objects.join_or_register(user=request.user, **form.application())
        except DomainError as error:
            add_domain_error(form, error)
        else:
            request.user.forget_membership()
            messages.success(
                request,
                _(
                    "Done. An organization registered here already admits you when its "
                    "administrators accept your request; a new one is registered with you as "
                    "its administrator and awaits an operator's verification."
                ),
            )
            return redirect("dashboard")
    return dashboard_page(request, join_form=form, status=422)


@require_POST
@login_required
def withdraw_request(request):
    join_request = request.user.pending_join_request()
    if join_request is not None:
        try:
            join_request.withdraw(user=request.user)
        except DomainError as refusal:  # answered by an administrator a moment before
            messages.error(request, in_words(refusal))
        else:
            messages.success(request, _("Your request is withdrawn."))
    return redirect("dashboard")


def page_not_found(request, exception=None):
    if is_machine_face(request):
        return not_found_response()
    return render(request, "404.html", status=404)


def server_error(request):
    """Django calls this while handling the exception: a database out of reach is a 503 (a
    page that says to come back soon, or the envelope), anything else a 500."""
    unavailable = infrastructure_failure(sys.exc_info()[1])
    if unavailable is not None:
        if is_machine_face(request):
            return error_response(unavailable)
        response = render(request, "503.html", status=503)
        for name, value in unavailable.headers().items():
            response[name] = value
        return response
    if is_machine_face(request):
        return server_error_response()
    return render(request, "500.html", status=500)


def waiting(request):
    """Template context: how many things wait for the signed-in user's organization (the
    header's count), asked only when a page shows it."""

    @functools.cache  # (a template calls what it is given each time it reads it)
    def count() -> int:
        user = getattr(request, "user", None)
        try:
            if user is None or not user.is_authenticated or user.organization is None:
                return 0
            return queues.count_of(user.organization, timezone.now())
        except DatabaseError:  # (the page that says the database is down reads no count)
            return 0

    return {"waiting": count}


def api_version(request):
    """Template context: the API's version, for the footer."""
    return {"api_version": settings.API_VERSION}
