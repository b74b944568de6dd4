from http import HTTPStatus

from django.conf import settings
from django.shortcuts import render
from django.utils import translation
from django.utils.cache import patch_vary_headers

from core import limits
from core.api.auth import key_from_header
from core.api.errors import envelope_response, error_response, not_found_response
from core.replicas import Pins

MACHINE_PREFIXES = ("/api/", "/ds/")


def is_machine_face(request) -> bool:
    """Is this a request to the API or the document service (every path of a document service
    deployed on its own host)? Those faces answer JSON in 2.3's English, always."""
    urlconf = getattr(request, "urlconf", None) or settings.ROOT_URLCONF
    # (however many slashes lead: "//api/..." is a client's mistake on the API, not a page)
    path = "/" + request.path.lstrip("/")
    return urlconf == "docservice.standalone_urls" or path.startswith(MACHINE_PREFIXES)


class MachineFacesAnswerJSON:
    """First in the chain, so that it sees every answer: an error that some layer below the
    views rendered as HTML (Django's 400 for an unknown Host or too many fields, a 405 of a
    function view, an empty 413) reaches API and document-service clients as the 2.3
    envelope, with its status and its Allow or Retry-After header kept."""

    KEPT_HEADERS = ("Allow", "Retry-After")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code < 400 or not is_machine_face(request):
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        headers = {name: response[name] for name in self.KEPT_HEADERS if response.has_header(name)}
        return _as_envelope(response.status_code, headers)


def _as_envelope(status: int, headers: dict):
    if status == 404:
        return not_found_response()
    if status == 405:
        entry = {"location": "request", "name": "method", "description": "Method not allowed"}
    else:
        try:
            description = HTTPStatus(status).phrase
        except ValueError:
            description = "Error"
        entry = {"location": "request", "name": "request", "description": description}
    return envelope_response([entry], status=status, headers=headers)


class RequestsInFlight:
    """A caller (its broker key, or its address without one) has at most API_CONCURRENT_WRITES
    writes to the API and the document service being answered at once, and at most
    API_CONCURRENT_LARGE_READS reads that cost what a large write does (limits.LARGE_READS);
    one more is answered 429 with Retry-After at once, before its body is read or its key
    looked up. However large the requests one caller sends, it holds that many workers at most
    and the others are left to everyone else."""

    WRITING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
    # A place is given back when its request is answered; one a killed worker kept is free
    # again after this long (longer than any request may run: gunicorn's timeout).
    LEASE_SECONDS = 120

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_machine_face(request):
            return self.get_response(request)
        if request.method in self.WRITING:
            scope, most = "api-writes", settings.API_CONCURRENT_WRITES
        elif any(is_large(request) for is_large in limits.LARGE_READS):
            scope, most = "api-large-reads", settings.API_CONCURRENT_LARGE_READS
        else:
            return self.get_response(request)
        if not most:
            return self.get_response(request)
        key = key_from_header(request.META.get("HTTP_AUTHORIZATION", ""))
        caller = f"key:{key}" if key else f"address:{limits.client_address(request)}"
        try:
            with limits.one_of_at_most(scope, caller, most, self.LEASE_SECONDS):
                return self.get_response(request)
        except limits.TooManyAtOnce as refused:
            return error_response(refused)


class BodiesBounded:
    """A body is refused 413 before it is read when it is larger than a caller may send: no
    page or path takes more than API_MAX_BODY_BYTES from a caller that is neither signed in nor
    presenting a broker key (a sign-in form posted with gigabytes of file parts was read
    whole), and none more than REQUEST_MAX_BYTES from anyone. (A body of no declared length is
    read as empty.)"""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > settings.API_MAX_BODY_BYTES:
            known = bool(request.META.get("HTTP_AUTHORIZATION") or request.user.is_authenticated)
            if length > settings.REQUEST_MAX_BYTES or not known:
                # A page in both languages (the API's and the document service's callers get
                # the envelope, MachineFacesAnswerJSON).
                limit = settings.REQUEST_MAX_BYTES if known else settings.API_MAX_BODY_BYTES
                context = {"limit_mb": max(limit // (1024 * 1024), 1), "known": known}
                return render(request, "413.html", context, status=413)
        return self.get_response(request)


class MachineFacesInEnglishMiddleware:
    """The API and the document service answer in 2.3's English whatever the client's language;
    translation is for the portal's pages."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if is_machine_face(request):
            with translation.override("en"):
                return self.get_response(request)
        return self.get_response(request)


class PortalLanguageMiddleware:
    """Ukrainian unless the visitor chose English with the switch (the language cookie): the
    browser's own preference does not decide, so everyone sees the same page by default."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if is_machine_face(request):
            return self.get_response(request)
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        language = chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ["Cookie"])
        return response


class WritersReadTheirWrites:
    """After a caller's write succeeds, its reads go to the primary for a while, not to a
    replica that may not have it yet (core.replicas.Pins)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method not in ("GET", "HEAD", "OPTIONS") and response.status_code < 400:
            Pins.wrote(request)
        return response
